//! Per-hop latency: the same traffic captured at several points of its path (`--at leaf1=a.pcap
//! --at spine1=b.pcap`), each packet matched from one point to the next on what stays the same
//! hop by hop (addresses, UDP source port, destination QP, PSN, opcode), and the time it took.
//!
//! The upstream capture is indexed (its first sighting of each packet: a retransmission is the
//! same packet again), the downstream one streamed past the index. Capture points with clocks
//! that disagree give negative delays: counted apart, never averaged in.
use crate::capture::CaptureError;
use crate::decode::{Frame, frame};
use crate::histogram::Histogram;
use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::net::IpAddr;

/// What identifies a packet at every point of its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PacketId {
    pub src: IpAddr,
    pub dst: IpAddr,
    pub src_port: u16,
    pub dest_qp: u32,
    pub psn: u32,
    pub opcode: u8,
}

/// When each RoCEv2 packet of a capture was first seen.
pub fn index(input: impl Read + Send + 'static) -> Result<HashMap<PacketId, u64>, CaptureError> {
    let mut seen = HashMap::new();
    for_each_packet(input, |id, t| {
        seen.entry(id).or_insert(t);
    })?;
    Ok(seen)
}

/// One hop's delays.
#[derive(Debug, Clone, Default)]
pub struct Hop {
    /// Packets seen at both points.
    pub matched: u64,
    /// Packets seen downstream but not upstream.
    pub unmatched: u64,
    /// Matched packets that arrived downstream before they left upstream (clocks apart).
    pub negative: u64,
    pub latency_ns: Histogram,
    sum_ns: u128,
}

impl Hop {
    /// The mean delay of the matched packets with a delay of zero or more.
    pub fn mean_ns(&self) -> Option<u64> {
        let n = self.latency_ns.count();
        (n > 0).then(|| u64::try_from(self.sum_ns / u128::from(n)).unwrap_or(u64::MAX))
    }
}

/// Streams the downstream capture `input` against the upstream `index`.
pub fn hop(upstream: &HashMap<PacketId, u64>, input: impl Read + Send + 'static) -> Result<Hop, CaptureError> {
    let mut hop = Hop::default();
    let mut counted: HashSet<PacketId> = HashSet::new();
    for_each_packet(input, |id, t| {
        if !counted.insert(id) {
            return; // Seen here before: the first sighting counts.
        }
        match upstream.get(&id) {
            Some(&sent) if t >= sent => {
                hop.matched += 1;
                hop.latency_ns.record(t - sent);
                hop.sum_ns += u128::from(t - sent);
            }
            Some(_) => {
                hop.matched += 1;
                hop.negative += 1;
            }
            None => hop.unmatched += 1,
        }
    })?;
    Ok(hop)
}

fn for_each_packet(input: impl Read + Send + 'static, mut each: impl FnMut(PacketId, u64)) -> Result<(), CaptureError> {
    crate::capture::for_each_frame(input, |c| {
        let Some(link) = c.link else { return };
        if let Frame::RoceV2(p) = frame(link, c.data) {
            let b = &p.transport.bth;
            let id = PacketId {
                src: p.src,
                dst: p.dst,
                src_port: p.src_port,
                dest_qp: b.dest_qp,
                psn: b.psn,
                opcode: b.opcode,
            };
            each(id, c.time_ns);
        }
    })
}
