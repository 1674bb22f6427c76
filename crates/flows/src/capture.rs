//! Reading pcap and pcapng captures as a stream of frames, in bounded memory (a circular buffer
//! that holds one block at a time, grown only for a block larger than it), with each frame's
//! time in nanoseconds since the Unix epoch and its interface's link type.
use crate::decode::Link;
use pcap_parser::{Block, PcapBlockOwned, PcapError, create_reader};
use std::io::Read;

/// The buffer a reader starts with; a block larger than this grows it.
const BUFFER: usize = 1 << 16;
/// The largest block a capture may hold (a jumbo frame and its headers fit many times).
const MAX_BLOCK: usize = 16 << 20;

/// A captured frame.
pub struct Captured<'a> {
    /// Nanoseconds since the Unix epoch.
    pub time_ns: u64,
    /// The link type it was captured on, when fabcheck reads it.
    pub link: Option<Link>,
    /// The bytes captured (possibly fewer than were on the wire).
    pub data: &'a [u8],
}

/// Why a capture could not be read (to the end).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct CaptureError(pub String);

/// Calls `each` for every frame of the capture `input` (pcap or pcapng), in file order.
pub fn for_each_frame(
    input: impl Read + Send + 'static,
    mut each: impl FnMut(Captured<'_>),
) -> Result<(), CaptureError> {
    let mut reader = create_reader(BUFFER, input).map_err(|e| {
        CaptureError(format!("not a pcap or pcapng capture: {}", said(&e).unwrap_or_else(|| malformed(&[], None))))
    })?;
    // The byte order of the pcapng section being read (`None`: a legacy pcap), to name a block
    // that does not parse by its type and length.
    let mut big_endian: Option<bool> = None;
    let mut legacy_link: Option<Link> = None;
    let mut legacy_nanos = false;
    // Per pcapng interface: link type and timestamp resolution.
    let mut interfaces: Vec<(Option<Link>, u8)> = Vec::new();
    let mut buffer = BUFFER;
    loop {
        match reader.next() {
            Ok((offset, block)) => {
                match block {
                    PcapBlockOwned::LegacyHeader(h) => {
                        legacy_link = Link::from_linktype(h.network.0);
                        legacy_nanos = h.is_nanosecond_precision();
                    }
                    PcapBlockOwned::Legacy(b) => {
                        let sub = u64::from(b.ts_usec) * if legacy_nanos { 1 } else { 1000 };
                        let time_ns = u64::from(b.ts_sec) * 1_000_000_000 + sub;
                        each(Captured { time_ns, link: legacy_link, data: b.data });
                    }
                    PcapBlockOwned::NG(Block::SectionHeader(shb)) => {
                        big_endian = Some(shb.big_endian());
                        interfaces.clear();
                    }
                    PcapBlockOwned::NG(Block::InterfaceDescription(idb)) => {
                        interfaces.push((Link::from_linktype(idb.linktype.0), idb.if_tsresol));
                    }
                    PcapBlockOwned::NG(Block::EnhancedPacket(epb)) => {
                        let (link, tsresol) = interfaces.get(epb.if_id as usize).copied().unwrap_or((None, 6));
                        let ticks = (u64::from(epb.ts_high) << 32) | u64::from(epb.ts_low);
                        let data = epb.data.get(..epb.caplen as usize).unwrap_or(epb.data);
                        each(Captured { time_ns: ticks_to_ns(ticks, tsresol), link, data });
                    }
                    PcapBlockOwned::NG(Block::SimplePacket(spb)) => {
                        let link = interfaces.first().and_then(|(l, _)| *l);
                        each(Captured { time_ns: 0, link, data: spb.data });
                    }
                    PcapBlockOwned::NG(_) => {}
                }
                reader.consume(offset);
            }
            Err(PcapError::Eof) => return Ok(()),
            Err(PcapError::Incomplete(_)) => {
                if reader.reader_exhausted() {
                    return Err(CaptureError("the capture ends inside a block: it was cut".into()));
                }
                if reader.refill().is_err() {
                    // The block is larger than the buffer: grow it, within reason.
                    buffer *= 2;
                    if buffer > MAX_BLOCK || !reader.grow(buffer) {
                        return Err(CaptureError(format!("a block larger than {} bytes", MAX_BLOCK)));
                    }
                }
            }
            Err(PcapError::BufferTooSmall) => {
                buffer *= 2;
                if buffer > MAX_BLOCK || !reader.grow(buffer) {
                    return Err(CaptureError(format!("a block larger than {} bytes", MAX_BLOCK)));
                }
            }
            Err(e) => {
                let what = said(&e).unwrap_or_else(|| malformed(reader.data(), big_endian));
                return Err(CaptureError(format!("unreadable block at byte {}: {what}", reader.consumed())));
            }
        }
    }
}

/// pcap-parser's own words for `e`, except for a block that does not parse (`None`): that
/// error's `Debug` and `Display` print the input left in the buffer as a list of numbers (196 KB
/// on stderr for one zero-length pcapng block); [`malformed`] says it in a few words.
fn said<I: std::fmt::Debug>(e: &PcapError<I>) -> Option<String> {
    (!matches!(e, PcapError::NomError(..) | PcapError::OwnedNomError(..))).then(|| e.to_string())
}

/// A block that does not parse, named by what its header says: `block` is the unread input,
/// which starts with it, and `big_endian` the pcapng section's byte order (`None`: a legacy
/// pcap record).
fn malformed(block: &[u8], big_endian: Option<bool>) -> String {
    let word = |at: usize| -> Option<u32> {
        let bytes: [u8; 4] = block.get(at..at + 4)?.try_into().ok()?;
        Some(if big_endian == Some(true) { u32::from_be_bytes(bytes) } else { u32::from_le_bytes(bytes) })
    };
    match (big_endian, word(0), word(4)) {
        (Some(_), Some(kind), Some(length)) => {
            let why = match length {
                0..12 => "shorter than the 12 bytes of a block's frame",
                _ if length % 4 != 0 => "not a multiple of 4",
                _ => "its content does not parse",
            };
            format!("a malformed pcapng block (type {kind:#x}, length {length}: {why})")
        }
        (None, Some(_), Some(_)) => {
            let length = word(8).map_or(String::new(), |n| format!(", captured length {n}"));
            format!("a malformed pcap record{length}")
        }
        _ => "a malformed block".to_string(),
    }
}

/// Nanoseconds since the epoch of `ticks` timestamp units of resolution `tsresol` (pcapng
/// `if_tsresol`: 10^-n s, or 2^-n s with the top bit set; 6 when absent), in 128-bit arithmetic so
/// that neither picoseconds nor binary fractions are rounded to a wrong unit.
fn ticks_to_ns(ticks: u64, tsresol: u8) -> u64 {
    let exp = u32::from(tsresol & 0x7f);
    let per_second: u128 = if tsresol & 0x80 != 0 {
        1u128.checked_shl(exp).unwrap_or(u128::MAX)
    } else {
        10u128.checked_pow(exp).unwrap_or(u128::MAX)
    };
    u64::try_from(u128::from(ticks) * 1_000_000_000 / per_second).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pcapng section header and one Ethernet interface, little-endian.
    fn pcapng_head() -> Vec<u8> {
        let mut shb = Vec::new();
        for word in [0x0A0D_0D0Au32, 28, 0x1A2B_3C4D] {
            shb.extend(word.to_le_bytes());
        }
        shb.extend([1, 0, 0, 0]);
        shb.extend((-1i64).to_le_bytes());
        shb.extend(28u32.to_le_bytes());
        for word in [1u32, 20, 1, 0, 20] {
            shb.extend(word.to_le_bytes());
        }
        shb
    }

    /// Issue 34: a zero-length block put pcap-parser's error, with the 64 KiB left in its buffer
    /// as a list of numbers, on stderr; the error is one short line saying where and what.
    #[test]
    fn r34_a_malformed_block_is_one_short_line() {
        let mut capture = pcapng_head();
        let at = capture.len();
        capture.extend(6u32.to_le_bytes());
        capture.extend(0u32.to_le_bytes());
        capture.extend((0..200_000u32).map(|i| i as u8));
        let error = for_each_frame(std::io::Cursor::new(capture), |_| {}).unwrap_err().to_string();
        assert_eq!(
            error,
            format!(
                "unreadable block at byte {at}: a malformed pcapng block (type 0x6, length 0: shorter than the 12 bytes of a block's frame)"
            )
        );
        let mut odd = pcapng_head();
        odd.extend(6u32.to_le_bytes());
        odd.extend(33u32.to_le_bytes());
        odd.extend([0u8; 64]);
        let error = for_each_frame(std::io::Cursor::new(odd), |_| {}).unwrap_err().to_string();
        assert!(error.ends_with("(type 0x6, length 33: not a multiple of 4)"), "{error}");
        let garbage = for_each_frame(std::io::Cursor::new(vec![7u8; 4096]), |_| {}).unwrap_err().to_string();
        assert_eq!(garbage, "not a pcap or pcapng capture: Header not recognized as PCAP or PCAPNG");
    }

    #[test]
    fn timestamps_of_every_resolution_come_out_in_nanoseconds() {
        assert_eq!(ticks_to_ns(1_700_000_000_123_456, 6), 1_700_000_000_123_456_000, "microseconds, pcapng's default");
        assert_eq!(ticks_to_ns(1_700_000_000_123_456_789, 9), 1_700_000_000_123_456_789);
        assert_eq!(ticks_to_ns(1_500_000, 12), 1_500, "picoseconds");
        assert_eq!(ticks_to_ns(3 << 30, 0x80 | 30), 3_000_000_000, "2^-30 s units");
        assert_eq!(ticks_to_ns(1024, 0x80 | 10), 1_000_000_000);
        // Absurd resolutions do not panic.
        assert_eq!(ticks_to_ns(u64::MAX, 127), 0);
        assert_eq!(ticks_to_ns(u64::MAX, 0xff), 0);
        assert_eq!(ticks_to_ns(u64::MAX, 0), u64::MAX);
    }
}
