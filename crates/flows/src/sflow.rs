//! sFlow version 5 datagrams (sflow.org/sflow_version_5.txt), as a collector receives them from
//! the sFlow agents of switches and hosts: read so that each sampled packet's header can be
//! decoded like a captured frame, and counted as the `sampling_rate` packets it stands for.
//!
//! ```text
//! datagram:    version 5 | agent address (type 1: 4 bytes, 2: 16) | sub-agent | sequence | uptime | samples<>
//! sample:      format (enterprise << 12 | format) | opaque data<>
//! flow sample  (0:1): sequence | source (class 8 bits, index 24) | rate | pool | drops | input | output | records<>
//! expanded     (0:3): sequence | class | index | rate | pool | drops | in format | in value | out format | out value | records<>
//! record:      format | opaque data<>
//! sampled header (record 0:1): protocol | frame length | stripped | header<>
//! ```
//!
//! XDR: big-endian 32-bit words, each opaque<> a length and its bytes padded to four. Only flow
//! samples and their sampled-header records are read; every other sample (counters,
//! dropped-packet notifications, vendor formats) and record (decoded fields, extended data) is
//! stepped over by its length. So a record fabcheck does not read never costs the samples beside
//! it, and a flow sample that is not well formed is skipped alone, with why, while the datagram's
//! framing still says where the next one starts. Every read is bounds-checked: any input at all
//! gives a datagram or an error, never a panic, and nothing is allocated from a count the input
//! claims (a loop reads at least one word per turn or stops).
use crate::decode::Link;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The UDP port sFlow collectors listen on (IANA).
pub const SFLOW_PORT: u16 = 6343;

/// An interface value that means "the agent itself" (format 0): the packet came from or went to
/// the device's own stack.
const INTERNAL: u32 = 0x3fff_ffff;

/// One sFlow v5 datagram: its agent and its flow samples.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Datagram<'a> {
    /// The agent's address; `None` when the agent sent type 0 (unknown).
    pub agent: Option<IpAddr>,
    pub sub_agent_id: u32,
    pub sequence: u32,
    /// Flow samples, compact and expanded, in datagram order.
    pub flow_samples: Vec<FlowSample<'a>>,
    /// Samples of other kinds (counters, dropped packets, vendor formats): not read.
    pub other_samples: u64,
    /// Flow samples that are not well formed, each with why: skipped, their neighbours kept.
    pub skipped: Vec<SflowError>,
}

/// One sampled packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowSample<'a> {
    pub sequence: u32,
    /// Its data source: class 0 is an interface, the index its ifIndex.
    pub source_class: u32,
    pub source_index: u32,
    /// One packet in `sampling_rate` is sampled: this one stands for that many.
    pub sampling_rate: u32,
    pub input: Interface,
    pub output: Interface,
    /// Its first sampled-header record, when it has one (a sample may carry decoded fields only).
    pub header: Option<SampledHeader<'a>>,
}

/// The start of a sampled packet, as the agent copied it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SampledHeader<'a> {
    /// 1 Ethernet, 11 IPv4, 12 IPv6, others (token ring, MPLS, 802.11 ...) as sFlow numbers them.
    pub protocol: u32,
    /// The packet's length on the wire (the FCS included, for Ethernet).
    pub frame_length: u32,
    pub bytes: &'a [u8],
}

impl SampledHeader<'_> {
    /// The link its bytes start with, for the header protocols fabcheck decodes.
    pub fn link(&self) -> Option<Link> {
        match self.protocol {
            1 => Some(Link::Ethernet),
            11 | 12 => Some(Link::RawIp),
            _ => None,
        }
    }
}

/// An input or output interface: `format` 0 an ifIndex (0 unknown, 0x3FFFFFFF the agent
/// itself), 1 a discarded packet (`value` the reason), 2 several interfaces (`value` how many).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interface {
    pub format: u32,
    pub value: u32,
}

impl Interface {
    /// A compact sample's interface: the format in the top two bits.
    fn compact(word: u32) -> Interface {
        Interface { format: word >> 30, value: word & INTERNAL }
    }

    /// The ifIndex of the one known interface of the device: not unknown, not the device's own
    /// stack, not a discard, not several.
    pub fn ifindex(&self) -> Option<u32> {
        (self.format == 0 && self.value != 0 && self.value != INTERNAL).then_some(self.value)
    }
}

/// Why (part of) a datagram could not be read, and at which byte of it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("sFlow datagram byte {at}: {what}")]
pub struct SflowError {
    pub at: usize,
    pub what: String,
}

/// Reads one datagram (the UDP payload).
///
/// # Errors
/// Not sFlow version 5, or its header or sample framing is cut or inconsistent.
pub fn parse(datagram: &[u8]) -> Result<Datagram<'_>, SflowError> {
    let mut c = Cursor { data: datagram, at: 0, end: datagram.len() };
    let version = c.u32("the version")?;
    if version != 5 {
        return Err(SflowError { at: 0, what: format!("version {version}, not 5") });
    }
    let agent = match c.u32("the agent address type")? {
        0 => None,
        1 => Some(IpAddr::V4(Ipv4Addr::from(c.array::<4>("the agent's IPv4 address")?))),
        2 => Some(IpAddr::V6(Ipv6Addr::from(c.array::<16>("the agent's IPv6 address")?))),
        other => return Err(c.error(4, format!("agent address type {other}, not 1 (IPv4) or 2 (IPv6)"))),
    };
    let sub_agent_id = c.u32("the sub-agent id")?;
    let sequence = c.u32("the sequence number")?;
    c.take(4, "the uptime")?;
    let count = c.u32("the number of samples")?;
    let mut d =
        Datagram { agent, sub_agent_id, sequence, flow_samples: Vec::new(), other_samples: 0, skipped: Vec::new() };
    for n in 1..=count {
        let within = |e: SflowError| SflowError { at: e.at, what: format!("sample {n} of {count}: {}", e.what) };
        let format = c.u32("its format").map_err(within)?;
        let mut body = c.opaque("its data").map_err(within)?;
        let sample = match format {
            1 => flow_sample(&mut body, false),
            3 => flow_sample(&mut body, true),
            _ => {
                d.other_samples += 1;
                continue;
            }
        };
        match sample {
            Ok(s) => d.flow_samples.push(s),
            Err(e) => d.skipped.push(within(e)),
        }
    }
    Ok(d)
}

/// A flow sample's data, compact (0:1) or expanded (0:3).
fn flow_sample<'a>(c: &mut Cursor<'a>, expanded: bool) -> Result<FlowSample<'a>, SflowError> {
    let sequence = c.u32("the sample's sequence number")?;
    let (source_class, source_index) = if expanded {
        (c.u32("the data source class")?, c.u32("the data source index")?)
    } else {
        let source = c.u32("the data source")?;
        (source >> 24, source & 0x00ff_ffff)
    };
    let sampling_rate = c.u32("the sampling rate")?;
    c.take(8, "the sample pool and drops")?;
    let (input, output) = if expanded {
        let input = Interface { format: c.u32("the input format")?, value: c.u32("the input interface")? };
        (input, Interface { format: c.u32("the output format")?, value: c.u32("the output interface")? })
    } else {
        (Interface::compact(c.u32("the input interface")?), Interface::compact(c.u32("the output interface")?))
    };
    let records = c.u32("the number of flow records")?;
    let mut header = None;
    for n in 1..=records {
        let within = |e: SflowError| SflowError { at: e.at, what: format!("flow record {n} of {records}: {}", e.what) };
        let format = c.u32("its format").map_err(within)?;
        let mut body = c.opaque("its data").map_err(within)?;
        if format == 1 && header.is_none() {
            header = Some(sampled_header(&mut body).map_err(within)?);
        }
    }
    Ok(FlowSample { sequence, source_class, source_index, sampling_rate, input, output, header })
}

/// A sampled-header record's data (0:1).
fn sampled_header<'a>(c: &mut Cursor<'a>) -> Result<SampledHeader<'a>, SflowError> {
    let protocol = c.u32("the header protocol")?;
    let frame_length = c.u32("the frame length")?;
    c.take(4, "the stripped byte count")?;
    let header = c.opaque("the header")?;
    Ok(SampledHeader { protocol, frame_length, bytes: header.rest() })
}

/// A read position within `data[..end]`; positions are the datagram's, for errors that say where.
struct Cursor<'a> {
    data: &'a [u8],
    at: usize,
    end: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], SflowError> {
        let end = self.at.checked_add(n).filter(|e| *e <= self.end);
        let Some(bytes) = end.and_then(|e| self.data.get(self.at..e)) else {
            let left = self.end.saturating_sub(self.at);
            return Err(self.error(0, format!("{what}: {n} bytes, {left} left")));
        };
        self.at += n;
        Ok(bytes)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], SflowError> {
        let bytes = self.take(N, what)?;
        let mut out = [0; N];
        out.copy_from_slice(bytes);
        Ok(out)
    }

    fn u32(&mut self, what: &str) -> Result<u32, SflowError> {
        self.array::<4>(what).map(u32::from_be_bytes)
    }

    /// XDR `opaque<>`: a length, that many bytes (returned as a cursor of their own), and
    /// padding to four bytes, which the end of the enclosing data may cut.
    fn opaque(&mut self, what: &str) -> Result<Cursor<'a>, SflowError> {
        let len = self.u32(what)?;
        let start = self.at;
        let n = usize::try_from(len).unwrap_or(usize::MAX);
        self.take(n, what)?;
        self.at = self.at.saturating_add((4 - n % 4) % 4).min(self.end);
        Ok(Cursor { data: self.data, at: start, end: start + n })
    }

    /// What is left.
    fn rest(&self) -> &'a [u8] {
        self.data.get(self.at..self.end).unwrap_or_default()
    }

    /// An error `back` bytes before the read position.
    fn error(&self, back: usize, what: String) -> SflowError {
        SflowError { at: self.at.saturating_sub(back), what }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// sFlow v5's examples of the interface encoding (section 5): only a single interface the
    /// packet really crossed has an ifIndex.
    #[test]
    fn only_one_known_interface_has_an_ifindex() {
        let ifindex = |word| Interface::compact(word).ifindex();
        assert_eq!(ifindex(0x0000_0002), Some(2));
        // Unknown, the device itself, dropped by an ACL, sent to 7, sent to an unknown number.
        for word in [0, 0x3fff_ffff, 0x4000_0102, 0x8000_0007, 0x8000_0000] {
            assert_eq!(ifindex(word), None, "{word:#x}");
        }
        assert_eq!(Interface::compact(0x4000_0102), Interface { format: 1, value: 0x102 });
        assert_eq!(Interface { format: 0, value: 1 << 30 }.ifindex(), Some(1 << 30), "expanded: 32 bits");
    }
}
