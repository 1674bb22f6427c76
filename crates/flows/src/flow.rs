//! Flows: RoCEv2 packets grouped by (source IP, destination IP, UDP source port, destination
//! QP), the metrics each keeps while the capture streams past (nothing per packet is kept:
//! memory grows with the number of flows, not packets), and the two directions of a QP pair
//! linked at the end.
//!
//! What is counted where:
//! - data packets (SEND, WRITE, READ RESPONSE) and their payload; messages from FIRST..LAST and
//!   ONLY packets, each message's completion time (first to last packet, as seen at the capture
//!   point); a message still open at the end is incomplete (UC drops no message on purpose: an
//!   unfinished one is not loss);
//! - PSN going back within a data flow is a retransmission (go-back-N);
//! - ACKs, NAKs and RNR NAKs by their AETH syndrome, on the flow that carries them (the
//!   responder's), and so, once linked, against the requester's flow;
//! - CNPs (opcode 0x81) on the flow toward the sender they slow down;
//! - ECN codepoints and DSCP values per direction;
//! - RDMA-CM (destination QP 1) is counted but kept out of the data metrics.
//!
//! A packet sampled by an sFlow agent counts as the `sampling_rate` packets it stands for, in a
//! flow of that agent's data source: each point's samples make an estimate of their own, since
//! adding up two points' samples of one stream would count it twice. Messages and their
//! completion times need every packet of a message: a sampled flow has none.
use crate::bth::{self, Operation, Syndrome, Transport};
use crate::decode::RocePacket;
use crate::histogram::Histogram;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::net::IpAddr;

/// A flow's identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FlowKey {
    pub src: IpAddr,
    pub dst: IpAddr,
    pub src_port: u16,
    pub dest_qp: u32,
    /// Who sampled its packets; `None` when every packet was captured.
    pub sampler: Option<Sampler>,
}

/// An sFlow agent's data source: the interface whose packets it samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sampler {
    /// `None` when the agent did not say (address type 0).
    pub agent: Option<IpAddr>,
    pub sub_agent_id: u32,
    pub source_class: u32,
    pub source_index: u32,
}

/// One sampled packet: who sampled it, how many packets it stands for, and the interfaces it came
/// in and went out on (their ifIndex, when known).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sampling {
    pub by: Sampler,
    pub rate: u32,
    pub input: Option<u32>,
    pub output: Option<u32>,
}

/// One way between two addresses as seen at one point: captured (`None`), or sampled by an sFlow
/// agent (its address, when it said), on whichever of its interfaces.
type Way = (IpAddr, IpAddr, Option<Option<IpAddr>>);

/// What an sFlow agent's samples of a flow said.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sampled {
    /// Packets sampled: what the flow's estimates stand on.
    pub samples: u64,
    /// The highest sampling rate among them (an agent may change it while it runs).
    pub max_rate: u32,
    pub input_ifindex: BTreeSet<u32>,
    pub output_ifindex: BTreeSet<u32>,
}

/// What a flow did.
#[derive(Debug, Clone, Default)]
pub struct Flow {
    pub first_ns: u64,
    pub last_ns: u64,
    pub packets: u64,
    /// Transports its packets used (a QP has one; CNPs are counted apart).
    pub transports: BTreeSet<Transport>,
    /// Data packets (SEND, WRITE, READ RESPONSE).
    pub data_packets: u64,
    /// Payload bytes of the data packets; `None` once a packet's headers were not known (RD/DC).
    pub payload_bytes: Option<u64>,
    pub messages: u64,
    /// The flow's own requests (SEND, WRITE) in its QP's PSN space.
    requests: Stream,
    /// READ RESPONSEs, in the PSN space of the other side's READ requests: a QP that answers
    /// reads and sends its own requests on one flow has two sequences, not one going back.
    read_responses: Stream,
    /// Completion time of each message, in ns.
    pub fct_ns: Histogram,
    pub retransmits: u64,
    pub read_requests: u64,
    pub acks: u64,
    pub naks_psn_seq: u64,
    pub naks_other: u64,
    pub rnr_naks: u64,
    pub cnps: u64,
    /// Packets per ECN codepoint: Not-ECT, ECT(1), ECT(0), CE.
    pub ecn: [u64; 4],
    pub dscp: BTreeSet<u8>,
    /// RDMA-CM (QP1).
    pub cm: bool,
    /// Seen through sFlow: its counts are estimates, scaled up from these samples.
    pub sampled: Option<Sampled>,
}

/// One sequence of data packets: its highest PSN and its open message.
#[derive(Debug, Clone, Default)]
struct Stream {
    /// Highest PSN so far.
    max_psn: Option<u32>,
    /// Open message: when it started.
    open_since: Option<u64>,
    /// Messages a new one replaced before they ended (UC drops a message it cannot finish).
    abandoned: u64,
}

impl Flow {
    /// Messages still open when the capture ended.
    pub fn incomplete(&self) -> u64 {
        [&self.requests, &self.read_responses].iter().map(|s| s.abandoned + u64::from(s.open_since.is_some())).sum()
    }
}

/// Every flow of one or more captures, and what was not RoCEv2.
#[derive(Debug, Default)]
pub struct Flows {
    pub flows: HashMap<FlowKey, Flow>,
    pub frames: u64,
    pub rocev1: u64,
    pub malformed: u64,
    pub other: u64,
    /// Frames on a link type fabcheck does not read.
    pub unknown_link: u64,
    pub sflow: SflowCounts,
}

/// What the sFlow datagrams of the captures held.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SflowCounts {
    /// Frames that are sFlow datagrams (UDP destination port 6343).
    pub datagrams: u64,
    /// Datagrams, or flow samples in them, that are not well-formed sFlow v5 (other versions
    /// included): skipped.
    pub malformed: u64,
    /// Why the first of them was, and where.
    pub first_malformed: Option<String>,
    pub flow_samples: u64,
    /// Samples of other kinds (counters, dropped packets, vendor formats).
    pub other_samples: u64,
    /// Sampled packets that are RoCEv2, each counted in its flow as the packets it stands for.
    pub rocev2: u64,
    /// Sampled packets of other traffic, RoCEv2 headers cut before their BTH's end among them.
    pub other: u64,
    /// Flow samples without a header fabcheck decodes: decoded fields only, a header protocol
    /// other than Ethernet, IPv4 and IPv6, or a sampling rate of 0.
    pub unread: u64,
}

impl SflowCounts {
    /// Counts a datagram or flow sample skipped in frame `frame` of the capture.
    pub fn malformed(&mut self, frame: u64, why: &crate::sflow::SflowError) {
        self.malformed += 1;
        self.first_malformed.get_or_insert_with(|| format!("frame {frame}: {why}"));
    }
}

impl Flows {
    /// Adds one RoCEv2 packet captured at `time_ns`.
    pub fn add(&mut self, time_ns: u64, p: &RocePacket) {
        self.count(time_ns, p, None);
    }

    /// Adds one RoCEv2 packet an sFlow agent sampled, in a datagram captured at `time_ns`.
    pub fn add_sampled(&mut self, time_ns: u64, p: &RocePacket, sampling: &Sampling) {
        self.count(time_ns, p, Some(sampling));
    }

    fn count(&mut self, time_ns: u64, p: &RocePacket, sampling: Option<&Sampling>) {
        let t = &p.transport;
        let sampler = sampling.map(|s| s.by);
        let key = FlowKey { src: p.src, dst: p.dst, src_port: p.src_port, dest_qp: t.bth.dest_qp, sampler };
        let f = self.flows.entry(key).or_insert_with(|| Flow {
            first_ns: time_ns,
            payload_bytes: Some(0),
            sampled: sampling.map(|_| Sampled::default()),
            ..Flow::default()
        });
        // The packets this one stands for.
        let n = sampling.map_or(1, |s| u64::from(s.rate));
        if let (Some(s), Some(seen)) = (sampling, f.sampled.as_mut()) {
            seen.samples += 1;
            seen.max_rate = seen.max_rate.max(s.rate);
            seen.input_ifindex.extend(s.input);
            seen.output_ifindex.extend(s.output);
        }
        f.first_ns = f.first_ns.min(time_ns);
        f.last_ns = f.last_ns.max(time_ns);
        f.packets += n;
        f.ecn[usize::from(p.ecn & 3)] += n;
        f.dscp.insert(p.dscp);
        if t.transport == Transport::CNP {
            f.cnps += n;
            return;
        }
        f.transports.insert(t.transport);
        if t.bth.dest_qp == 1 {
            f.cm = true;
            return;
        }
        match t.syndrome {
            Some(Syndrome::Ack) if t.operation == Operation::Ack || t.operation == Operation::AtomicAck => f.acks += n,
            Some(Syndrome::Nak(0)) => f.naks_psn_seq += n,
            Some(Syndrome::Nak(_)) => f.naks_other += n,
            Some(Syndrome::RnrNak) => f.rnr_naks += n,
            _ => {}
        }
        let (part, stream) = match t.operation {
            Operation::Send(part) | Operation::Write(part) => (part, &mut f.requests),
            Operation::ReadResponse(part) => (part, &mut f.read_responses),
            Operation::ReadRequest => {
                f.read_requests += n;
                return;
            }
            _ => return,
        };
        f.data_packets += n;
        f.payload_bytes = f.payload_bytes.zip(t.payload_len(p.udp_payload_len)).map(|(a, b)| a + b as u64 * n);
        let psn = t.bth.psn;
        let again = stream.max_psn.is_some_and(|max| !bth::psn_after(psn, max));
        if again {
            // The same PSN again, or an earlier one: the sender went back (go-back-N).
            f.retransmits += n;
        } else {
            stream.max_psn = Some(psn);
        }
        if f.sampled.is_some() {
            return;
        }
        if part.starts() {
            // A message sent again keeps the time it first started; a new one while another is
            // open leaves that one incomplete.
            match (stream.open_since, again) {
                (Some(_), true) => {}
                (Some(_), false) => {
                    stream.abandoned += 1;
                    stream.open_since = Some(time_ns);
                }
                (None, _) => stream.open_since = Some(time_ns),
            }
        }
        if part.ends()
            && let Some(start) = stream.open_since.take()
        {
            f.messages += 1;
            f.fct_ns.record(time_ns.saturating_sub(start));
        }
    }

    /// The reverse direction of each flow: the flow from its destination back to its source
    /// whose packets answer it, seen at the same point (captured, or sampled by the same sFlow
    /// agent, on whichever of its interfaces the way back comes in). The same UDP source port on
    /// both sides decides (ConnectX NICs use one per QP pair); else the only flow back between
    /// the two addresses, if there is one.
    pub fn links(&self) -> BTreeMap<FlowKey, FlowKey> {
        let way = |k: &FlowKey| -> Way { (k.src, k.dst, k.sampler.map(|s| s.agent)) };
        let mut back: HashMap<Way, Vec<FlowKey>> = HashMap::new();
        for (k, f) in &self.flows {
            if !f.cm {
                back.entry(way(k)).or_default().push(*k);
            }
        }
        let mut links = BTreeMap::new();
        for (k, f) in &self.flows {
            if f.cm {
                continue;
            }
            let (src, dst, at) = way(k);
            let candidates = back.get(&(dst, src, at)).map(Vec::as_slice).unwrap_or_default();
            let same_port = candidates.iter().find(|c| c.src_port == k.src_port);
            let only = (candidates.len() == 1).then(|| &candidates[0]);
            if let Some(r) = same_port.or(only) {
                links.insert(*k, *r);
            }
        }
        links
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bth;
    use std::net::Ipv4Addr;

    const A: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1));
    const B: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2));

    /// A packet from `src` to `dst` with `opcode`, QP, PSN, an AETH syndrome byte after the BTH
    /// (for ACKs), `payload` bytes and ECN codepoint `ecn`.
    fn packet(
        (src, dst): (IpAddr, IpAddr),
        opcode: u8,
        qp: u32,
        psn: u32,
        syndrome: u8,
        payload: usize,
        ecn: u8,
    ) -> RocePacket {
        let mut b = vec![opcode, 0, 0xff, 0xff, 0];
        b.extend(&qp.to_be_bytes()[1..]);
        b.push(0);
        b.extend(&psn.to_be_bytes()[1..]);
        b.extend([syndrome, 0, 0, 0]);
        let transport = bth::decode(&b).unwrap();
        let ext = transport.ext_len.unwrap();
        RocePacket { src, dst, src_port: 50000, dscp: 26, ecn, udp_payload_len: 12 + ext + payload + 4, transport }
    }

    /// A 3-packet SEND, a NAK (PSN sequence error) and the requester going back, an RNR NAK, CNPs
    /// and CE marks: each counted where the record reads it.
    #[test]
    fn naks_retransmissions_cnps_and_ce_are_counted_on_their_flows() {
        let mut flows = Flows::default();
        let mut t = 1_000;
        let mut send = |flows: &mut Flows, p: RocePacket| {
            t += 1_000;
            flows.add(t, &p);
        };
        send(&mut flows, packet((A, B), 0x00, 0x22, 10, 0, 1024, 2)); // SEND FIRST
        send(&mut flows, packet((A, B), 0x01, 0x22, 11, 0, 1024, 3)); // MIDDLE, CE-marked
        send(&mut flows, packet((B, A), 0x11, 0x11, 11, 0x60, 0, 2)); // NAK: PSN sequence error
        send(&mut flows, packet((A, B), 0x01, 0x22, 11, 0, 1024, 2)); // MIDDLE again: retransmitted
        send(&mut flows, packet((A, B), 0x02, 0x22, 12, 0, 512, 2)); // LAST
        send(&mut flows, packet((B, A), 0x11, 0x11, 12, 0x1f, 0, 2)); // ACK
        send(&mut flows, packet((B, A), 0x11, 0x11, 12, 0x21, 0, 2)); // RNR NAK
        send(&mut flows, packet((B, A), 0x81, 0x11, 0, 0, 0, 2)); // CNP to the sender's QP
        send(&mut flows, packet((A, B), 0x00, 0x22, 13, 0, 1024, 2)); // a message left open
        let req = &flows.flows[&FlowKey { src: A, dst: B, src_port: 50000, dest_qp: 0x22, sampler: None }];
        assert_eq!((req.data_packets, req.payload_bytes, req.messages, req.incomplete()), (5, Some(4608), 1, 1));
        assert_eq!((req.retransmits, req.ecn), (1, [0, 0, 4, 1]));
        assert_eq!((req.fct_ns.min(), req.fct_ns.max()), (Some(4_000), Some(4_000)));
        let resp = &flows.flows[&FlowKey { src: B, dst: A, src_port: 50000, dest_qp: 0x11, sampler: None }];
        assert_eq!((resp.acks, resp.naks_psn_seq, resp.rnr_naks, resp.cnps, resp.naks_other), (1, 1, 1, 1, 0));
        let links = flows.links();
        assert_eq!(links[&FlowKey { src: A, dst: B, src_port: 50000, dest_qp: 0x22, sampler: None }].dest_qp, 0x11);
    }

    /// UC SENDs (opcodes 0x20..): a message cut short and replaced by the next FIRST is
    /// incomplete; a retransmitted FIRST (RC) keeps its message's start; READ RESPONSEs on the
    /// same flow are their own PSN sequence, not a sender going back.
    #[test]
    fn replaced_messages_are_incomplete_and_read_responses_their_own_sequence() {
        let mut flows = Flows::default();
        flows.add(1_000, &packet((A, B), 0x20, 0x22, 100, 0, 1024, 2)); // UC SEND FIRST
        flows.add(2_000, &packet((A, B), 0x21, 0x22, 101, 0, 1024, 2)); // MIDDLE; LAST lost
        flows.add(3_000, &packet((A, B), 0x20, 0x22, 103, 0, 1024, 2)); // the next message
        flows.add(4_000, &packet((A, B), 0x22, 0x22, 104, 0, 1024, 2)); // LAST
        let uc = &flows.flows[&FlowKey { src: A, dst: B, src_port: 50000, dest_qp: 0x22, sampler: None }];
        assert_eq!((uc.messages, uc.incomplete(), uc.retransmits), (1, 1, 0));
        assert_eq!(uc.fct_ns.max(), Some(1_000));

        let mut flows = Flows::default();
        flows.add(1_000, &packet((A, B), 0x00, 0x33, 10, 0, 1024, 2)); // RC SEND FIRST
        flows.add(2_000, &packet((A, B), 0x00, 0x33, 10, 0, 1024, 2)); // FIRST again
        flows.add(3_000, &packet((A, B), 0x02, 0x33, 11, 0, 1024, 2)); // LAST
        flows.add(4_000, &packet((A, B), 0x0d, 0x33, 5, 0x1f, 1024, 2)); // READ RESPONSE FIRST, PSN 5
        flows.add(5_000, &packet((A, B), 0x0f, 0x33, 6, 0x1f, 1024, 2)); // READ RESPONSE LAST
        let rc = &flows.flows[&FlowKey { src: A, dst: B, src_port: 50000, dest_qp: 0x33, sampler: None }];
        assert_eq!((rc.messages, rc.incomplete(), rc.retransmits), (2, 0, 1), "only the FIRST sent again");
        assert_eq!(rc.fct_ns.max(), Some(2_000), "the message's time runs from its first FIRST");
    }

    #[test]
    fn rdma_cm_is_kept_out_of_the_data_metrics() {
        let mut flows = Flows::default();
        flows.add(1, &packet((A, B), 0x64, 1, 0, 0, 256, 0));
        let cm = flows.flows.values().next().unwrap();
        assert!(cm.cm);
        assert_eq!((cm.packets, cm.data_packets, cm.messages), (1, 0, 0));
        assert!(flows.links().is_empty());
    }
}
