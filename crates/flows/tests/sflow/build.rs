//! sFlow v5 datagrams written as an agent writes them (XDR, sflow.org/sflow_version_5.txt), and
//! the pcap a collector's capture of them is, to wrap real RoCEv2 frames into samples. tshark
//! reads what this writes in `roce.rs`: a misreading of the format shared by this writer and
//! fabcheck's reader would not pass there.
use etherparse::PacketBuilder;
use std::net::IpAddr;

/// XDR: big-endian words, opaque data padded to four bytes.
#[derive(Default)]
struct Xdr(Vec<u8>);

impl Xdr {
    fn u32(mut self, v: u32) -> Xdr {
        self.0.extend(v.to_be_bytes());
        self
    }

    /// Variable-length opaque: its length, the bytes, padding.
    fn opaque(self, bytes: &[u8]) -> Xdr {
        let mut x = self.u32(bytes.len() as u32).fixed(bytes);
        x.0.resize(x.0.len().next_multiple_of(4), 0);
        x
    }

    /// Fixed-length opaque (an address): the bytes alone.
    fn fixed(mut self, bytes: &[u8]) -> Xdr {
        self.0.extend(bytes);
        self
    }
}

/// One sampled packet: a flow sample of data source `0:input` with an extended-switch record
/// (VLANs and priorities, which fabcheck steps over) and then the sampled header of `frame`, cut
/// to 128 bytes as switches do.
pub struct Sample<'a> {
    pub expanded: bool,
    pub sequence: u32,
    pub rate: u32,
    pub input: u32,
    pub output: u32,
    pub frame: &'a [u8],
}

impl Sample<'_> {
    fn encode(&self) -> Vec<u8> {
        let cut = &self.frame[..self.frame.len().min(128)];
        // protocol 1 (Ethernet), frame length with the FCS, 4 bytes stripped (the FCS), header.
        let header = Xdr::default().u32(1).u32(self.frame.len() as u32 + 4).u32(4).opaque(cut).0;
        let switch = Xdr::default().u32(0).u32(0).u32(0).u32(0).0;
        let mut x = Xdr::default().u32(self.sequence);
        x = if self.expanded { x.u32(0).u32(self.input) } else { x.u32(self.input) };
        // The sample pool and drops: what the agent counted so far.
        x = x.u32(self.rate).u32(self.sequence * self.rate).u32(0);
        x = if self.expanded {
            x.u32(0).u32(self.input).u32(0).u32(self.output)
        } else {
            x.u32(self.input).u32(self.output)
        };
        x = x.u32(2).u32(1001).opaque(&switch).u32(1).opaque(&header);
        Xdr::default().u32(if self.expanded { 3 } else { 1 }).opaque(&x.0).0
    }
}

/// A datagram of `agent` (sub-agent 0) holding `samples` and, after them, a counter sample with
/// the generic interface counters of ifIndex 1 (what agents send most; fabcheck steps over it).
pub fn datagram(agent: IpAddr, sequence: u32, samples: &[Sample<'_>]) -> Vec<u8> {
    let mut x = match agent {
        IpAddr::V4(a) => Xdr::default().u32(5).u32(1).fixed(&a.octets()),
        IpAddr::V6(a) => Xdr::default().u32(5).u32(2).fixed(&a.octets()),
    };
    x = x.u32(0).u32(sequence).u32(sequence * 1000).u32(samples.len() as u32 + 1);
    for s in samples {
        x = x.fixed(&s.encode());
    }
    let counters = Xdr::default().u32(sequence).u32(1).u32(1).u32(1).opaque(&[0; 88]).0;
    x.u32(2).opaque(&counters).0
}

/// A classic pcap (Ethernet, microseconds) of `datagrams` sent by an agent to a collector on UDP
/// port 6343, each at its time in nanoseconds.
pub fn pcap(datagrams: &[(u64, Vec<u8>)]) -> Vec<u8> {
    let mut out = 0xa1b2_c3d4u32.to_le_bytes().to_vec();
    out.extend(2u16.to_le_bytes());
    out.extend(4u16.to_le_bytes());
    // Time zone, accuracy, snapshot length, link type 1 (Ethernet).
    for word in [0u32, 0, 65535, 1] {
        out.extend(word.to_le_bytes());
    }
    for (time_ns, payload) in datagrams {
        let builder = PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2])
            .ipv4([10, 9, 0, 1], [10, 9, 0, 100], 64)
            .udp(50000, 6343);
        let mut frame = Vec::with_capacity(builder.size(payload.len()));
        builder.write(&mut frame, payload).unwrap();
        let (secs, micros) = ((time_ns / 1_000_000_000) as u32, ((time_ns % 1_000_000_000) / 1000) as u32);
        for word in [secs, micros, frame.len() as u32, frame.len() as u32] {
            out.extend(word.to_le_bytes());
        }
        out.extend(frame);
    }
    out
}
