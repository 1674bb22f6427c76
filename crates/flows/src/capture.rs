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
    let mut reader =
        create_reader(BUFFER, input).map_err(|e| CaptureError(format!("not a pcap or pcapng capture: {e:?}")))?;
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
                    PcapBlockOwned::NG(Block::SectionHeader(_)) => interfaces.clear(),
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
                let what = format!("{e:?}");
                return Err(CaptureError(format!("unreadable block at byte {}: {what}", reader.consumed())));
            }
        }
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
