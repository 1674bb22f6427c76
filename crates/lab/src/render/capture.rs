//! `tcpdump -i IF -w - [-c N] [-s SNAPLEN] [-U] udp dst port 4791`: a pcap of the RoCEv2 traffic
//! on one of a host's RoCE ports, as a port capture records it (what it sends and what it
//! receives), consistent with the lab's state and the same at both ends of every flow:
//! - RC RDMA WRITEs of 4 KiB messages (FIRST, MIDDLE, MIDDLE, LAST with 1,024-byte payloads)
//!   between the same rail of every two hosts, each message ACKed, back to back at the slower
//!   end's line rate (a degraded link halves the throughput);
//! - each packet reaches the other end after the way's latency: 25 ns per cable, 600 ns per
//!   switch (one leaf, or leaf-spine-leaf as the lab's topology has it) and the standing queue
//!   on the receiver's leaf port ([`STANDING_QUEUE_BYTES`]) drained at the receiver's rate, so
//!   `fabcheck flows --at A=... --at B=...` on two hosts' captures gives the way's latency;
//! - marked DSCP 26 and ECT(0), or DSCP 0 when the NIC's RoCE traffic runs on priority 0
//!   (`roce-on-prio0`);
//! - where either end drops packets (`pfc-off` with `out-of-buffer`), one data packet in 50 is
//!   lost on the way: the sender's capture has it, the receiver's does not; the receiver NAKs the
//!   PSN it still expects (PSN sequence error) and the sender goes back to it once the NAK is in;
//! - the leaf port toward the receiver marks CE as RED would at that standing queue: nothing
//!   below Kmin (the healthy 150 KB), every packet above Kmax, in between a share rising to
//!   [`MAX_MARK_PROBABILITY`]; the mark shows in the receiver's capture, not the sender's; the
//!   receiver answers with a CNP to the sender's QP (on its CNP DSCP, at most one per 4 µs per
//!   QP, none when its notification point is off).
//!
//! Frames are cut to the snap length; the IP and UDP lengths keep the packets' real sizes.
//! Timestamps are microseconds, as tcpdump writes them, unless `--time-stamp-precision nano`
//! (or `--nano`) asks for nanoseconds: at 400 Gb/s a packet takes 21 ns. Every capture shows the
//! same window of traffic on the lab's clock (a second after it started).
use super::nccl::drops_packets;
use crate::shell::Output;
use crate::state::{Fabric, LabHost, LabNic};

/// RoCEv2's UDP destination port.
const ROCEV2: u16 = 4791;
/// Payload of one data packet (MTU 1024 of the RoCE path MTU enum).
const PAYLOAD: usize = 1024;
/// Preamble, start delimiter and inter-frame gap: what a frame costs on the wire beyond itself.
const WIRE_OVERHEAD: usize = 20;
/// One data packet in this many is lost on a port that drops packets.
const LOSS_EVERY: u32 = 50;
/// The lossless queue's standing depth on a receiver's leaf port under the lab's incast.
const STANDING_QUEUE_BYTES: u64 = 40 * 1024;
/// RED's marking probability at Kmax (the lab's switches' WRED `max_p`).
const MAX_MARK_PROBABILITY: f64 = 0.2;
/// The NIC's `min_time_between_cnps` (the firmware default the lab's sysfs shows).
const CNP_INTERVAL_NS: u64 = 4_000;
/// A cable's propagation delay (5 m at 5 ns/m).
const CABLE_NS: u64 = 25;
/// A switch's forwarding latency (cut-through, port to port).
const SWITCH_NS: u64 = 600;
/// How long a NIC takes to answer a packet (ACK, NAK, CNP).
const RESPONSE_NS: u64 = 100;
/// The window's traffic starts this long after the lab did.
const WINDOW_START_NS: u64 = 1_000_000_000;
/// The clock of a lab that says nothing of when it started (unit tests): 2023-11-14T22:13:20Z.
const CLOCK_FALLBACK_NS: u64 = 1_700_000_000_000_000_000;

/// Answers a tcpdump command line.
pub(crate) fn render(hosts: &[LabHost], fabric: Option<&Fabric>, me: usize, args: &[String]) -> Output {
    let mut iface = None;
    let (mut count, mut snap) = (1_000usize, 262_144usize);
    let mut to_stdout = false;
    let mut nano = false;
    let mut words = args.iter();
    while let Some(w) = words.next() {
        match w.as_str() {
            "-i" => iface = words.next().cloned(),
            "-c" => count = words.next().and_then(|c| c.parse().ok()).unwrap_or(count),
            "-s" => {
                snap =
                    words.next().and_then(|s| s.parse().ok()).map_or(snap, |s: usize| if s == 0 { 262_144 } else { s })
            }
            "-w" => to_stdout = words.next().is_some_and(|f| f == "-"),
            "--nano" | "--time-stamp-precision=nano" => nano = true,
            "--time-stamp-precision" => nano = words.next().is_some_and(|p| p == "nano"),
            _ => {}
        }
    }
    let host = &hosts[me];
    let Some(nic) = iface.as_deref().and_then(|i| host.roce_nics().find(|n| n.netdev == i)) else {
        let name = iface.unwrap_or_default();
        return Output::fail(
            1,
            "",
            format!("tcpdump: {name}: No such device exists\n(SIOCGIFHWADDR: No such device)\n"),
        );
    };
    if !to_stdout {
        return Output::fail(1, "", "tcpdump: the lab writes captures to standard output only (-w -)\n");
    }
    let rail = host.roce_nics().position(|n| n.netdev == nic.netdev).unwrap_or(0);
    // Every host's captures show the same window of traffic, on the lab's clock: the sender's
    // and the receiver's views of a flow match packet for packet.
    let start = fabric.map(|f| f.started_unix_ns).filter(|&t| t > 0).unwrap_or(CLOCK_FALLBACK_NS) + WINDOW_START_NS;
    let peers = peers_of(hosts, me, rail);
    let per_conversation = count / (2 * peers.len()).max(1);
    let mut frames: Vec<(u64, Vec<u8>)> = Vec::new();
    for (k, &peer) in peers.iter().enumerate() {
        // What this port sends to the peer, as it leaves here...
        let out = Conversation::new(hosts, fabric, (me, peer), rail, k as u32);
        frames.extend(out.frames(per_conversation, start).into_iter().map(|s| (s.at_sender, s.as_sent)));
        // ...and what the peer sends here, as it arrives.
        let k_there = peers_of(hosts, peer, rail).iter().position(|&h| h == me).unwrap_or(0);
        let inbound = Conversation::new(hosts, fabric, (peer, me), rail, k_there as u32);
        frames.extend(
            inbound.frames(per_conversation, start).into_iter().filter_map(|s| Some((s.at_receiver?, s.as_received))),
        );
    }
    frames.sort_by_key(|(t, _)| *t);
    frames.truncate(count);
    let stderr = format!(
        "tcpdump: listening on {}, link-type EN10MB (Ethernet), snapshot length {snap} bytes\n{} packets captured\n",
        nic.netdev,
        frames.len()
    );
    Output::bytes(pcap(&frames, snap, nano), stderr)
}

/// The hosts whose same rail `me`'s rail exchanges traffic with, in host order.
fn peers_of(hosts: &[LabHost], me: usize, rail: usize) -> Vec<usize> {
    hosts
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != me)
        .filter(|(_, h)| h.roce_nics().nth(rail).is_some_and(|p| p.ipv4.is_some() && p.up))
        .map(|(i, _)| i)
        .collect()
}

/// The share of packets the leaf port toward `host`'s `rail` marks CE: RED between the queue's
/// Kmin and Kmax at the standing depth (the RoCE class's queue); 0 with marking off or no leaf.
fn ce_share(fabric: &Fabric, host: usize, rail: usize) -> f64 {
    let Some((switch, port)) = fabric.host_link(host, rail) else { return 0.0 };
    let queue = usize::from(fabric.design.roce().tc);
    let Some(ecn) = fabric.switches[switch].ports[port].ecn[queue] else { return 0.0 };
    let (min, max) = (ecn.min_bytes as f64, ecn.max_bytes as f64);
    let depth = STANDING_QUEUE_BYTES as f64;
    if depth <= min {
        0.0
    } else if depth >= max {
        1.0
    } else {
        (depth - min) / (max - min) * MAX_MARK_PROBABILITY
    }
}

/// One-way latency from `from`'s rail to `to`'s: each cable's propagation, each switch's
/// forwarding, and the standing queue on the receiver's leaf port drained at its link's rate.
/// One leaf between hosts of the same leaf (or of a lab without switches), leaf-spine-leaf else.
fn latency_ns(fabric: Option<&Fabric>, from: usize, to: usize, rail: usize, receiver_gbps: u32) -> u64 {
    let leaf = |h: usize| fabric.and_then(|f| f.host_link(h, rail)).map(|(s, _)| s);
    let switches = if leaf(from) == leaf(to) { 1 } else { 3 };
    let cables = switches + 1;
    let queue = STANDING_QUEUE_BYTES * 8 / u64::from(receiver_gbps.max(1));
    cables * CABLE_NS + switches * SWITCH_NS + queue
}

/// A WRITE stream from one host's rail to another's, and what comes back.
struct Conversation<'a> {
    nic: &'a LabNic,
    peer: &'a LabNic,
    /// The requester's QP (on the sender) and the responder's (on the receiver): unique to the
    /// sender and its `k`th peer.
    qps: (u32, u32),
    /// One data packet in [`LOSS_EVERY`] lost on the way.
    lossy: bool,
    /// The share of data packets marked CE on the way.
    ce_share: f64,
    /// The slower end's rate.
    gbps: u32,
    /// One-way latency.
    latency_ns: u64,
}

/// One frame of a conversation and when each end's port sees it.
struct Seen {
    at_sender: u64,
    /// `None`: lost on the way.
    at_receiver: Option<u64>,
    as_sent: Vec<u8>,
    /// The frame as it arrives (a switch may have marked it CE).
    as_received: Vec<u8>,
}

impl<'a> Conversation<'a> {
    /// The conversation from host `from` to host `to`, its `k`th peer, on `rail`.
    fn new(hosts: &'a [LabHost], fabric: Option<&Fabric>, (from, to): (usize, usize), rail: usize, k: u32) -> Self {
        let nic = hosts[from].roce_nics().nth(rail).expect("a peer of this rail");
        let peer = hosts[to].roce_nics().nth(rail).expect("a peer of this rail");
        let base = from as u32 * 0x40 + k * 2;
        Conversation {
            nic,
            peer,
            qps: (0x100 + base, 0x1000 + base),
            lossy: drops_packets(nic) || drops_packets(peer),
            ce_share: fabric.map_or(0.0, |f| ce_share(f, to, rail)),
            gbps: nic.rate_gbps.min(peer.rate_gbps).max(1),
            latency_ns: latency_ns(fabric, from, to, rail, peer.rate_gbps),
        }
    }

    /// Up to `packets` frames from `start` ns (the sender's clock).
    fn frames(&self, packets: usize, start: u64) -> Vec<Seen> {
        let Conversation { nic, peer, qps: (qp_here, qp_there), .. } = *self;
        let (Some(src), Some(dst)) = (nic.ipv4, peer.ipv4) else { return Vec::new() };
        let marking = |n: &LabNic| if on_priority_zero(n) { 0 } else { n.roce_dscp };
        let sport = udp_source_port(qp_here, qp_there);
        let np = peer.dcqcn.is_none_or(|d| d.np[usize::from(peer.roce_priority)]);
        let cnp_dscp = peer.dcqcn.map_or(48, |d| d.cnp_dscp);
        let latency = self.latency_ns;
        let mut out = Vec::new();
        // The sender's transmit clock: data takes the wire, what comes back does not.
        let mut t = start;
        let mut psn: u32 = 0;
        let mut sent: u32 = 0;
        let mut marks = 0.0;
        let mut last_cnp: Option<u64> = None;
        let mut last_arrival = t;
        // Each side marks what it sends with its own traffic class: the data the sender's, the
        // ACKs the receiver's, the CNPs the receiver's CNP DSCP.
        let mut ip = Ip { src, dst, dscp: marking(nic), ecn: ECT0, id: 0 };
        let mut back = Ip { src: dst, dst: src, dscp: marking(peer), ecn: ECT0, id: 0 };
        // A frame the receiver sends at `at` (its clock).
        let answer = |at: u64, frame: Vec<u8>| Seen {
            at_sender: at + latency,
            at_receiver: Some(at),
            as_sent: frame.clone(),
            as_received: frame,
        };
        while out.len() < packets {
            // One 4 KiB message: FIRST, MIDDLE, MIDDLE, LAST.
            let mut i = 0;
            while i < 4 {
                let opcode = [0x06, 0x07, 0x07, 0x08][i];
                sent += 1;
                let mut ext = Vec::new();
                if i == 0 {
                    ext.extend([0u8; 16]); // RETH: VA, R_Key, DMA length.
                    ext[12..16].copy_from_slice(&4096u32.to_be_bytes());
                }
                let as_sent = frame(nic.mac, peer.mac, &mut ip, sport, bth(opcode, qp_there, psn), &ext, PAYLOAD);
                let at = t;
                t += ((as_sent.len() + WIRE_OVERHEAD) * 8) as u64 / u64::from(self.gbps);
                let arrives = at + latency;
                if self.lossy && sent.is_multiple_of(LOSS_EVERY) {
                    // Lost on the way: the receiver NAKs the PSN it still expects when the next
                    // packet shows the gap, and the sender goes back to it (go-back-N) once the
                    // NAK is in.
                    out.push(Seen { at_sender: at, at_receiver: None, as_received: as_sent.clone(), as_sent });
                    let nak_at = arrives + (t - at);
                    let nak = frame(peer.mac, nic.mac, &mut back, sport, bth(0x11, qp_here, psn), &aeth(0x60, psn), 0);
                    out.push(answer(nak_at, nak));
                    t = t.max(nak_at + latency);
                    continue;
                }
                // RED marks a deterministic share on the way: whenever the running share passes 1.
                marks += self.ce_share;
                let ce = marks >= 1.0;
                if ce {
                    marks -= 1.0;
                }
                let mut as_received = as_sent.clone();
                if ce {
                    mark_ce(&mut as_received);
                }
                out.push(Seen { at_sender: at, at_receiver: Some(arrives), as_sent, as_received });
                last_arrival = arrives;
                if ce && np && last_cnp.is_none_or(|l| arrives - l >= CNP_INTERVAL_NS) {
                    last_cnp = Some(arrives);
                    let mut cnp_ip = Ip { dscp: cnp_dscp, ecn: NOT_ECT, ..back };
                    let cnp = frame(peer.mac, nic.mac, &mut cnp_ip, sport, bth(0x81, qp_here, 0), &[0; 16], 0);
                    back.id = cnp_ip.id;
                    out.push(answer(arrives + RESPONSE_NS, cnp));
                }
                psn = (psn + 1) & 0x00ff_ffff;
                i += 1;
            }
            let ack = frame(
                peer.mac,
                nic.mac,
                &mut back,
                sport,
                bth(0x11, qp_here, psn.wrapping_sub(1)),
                &aeth(0x1f, psn),
                0,
            );
            out.push(answer(last_arrival + RESPONSE_NS, ack));
        }
        out
    }
}

/// The UDP source port both directions of a QP pair use, as Linux computes it: the flow label
/// of the two QP numbers (`rdma_calc_flow_label`) folded into 14 bits above 0xC000
/// (`rdma_flow_label_to_udp_sport`, include/rdma/ib_verbs.h).
fn udp_source_port(local_qp: u32, remote_qp: u32) -> u16 {
    let mut v = u64::from(local_qp) * u64::from(remote_qp);
    v ^= v >> 20;
    v ^= v >> 40;
    let label = (v & 0xf_ffff) as u32;
    let low = (label & 0x3fff) ^ ((label & 0xf_c000) >> 14);
    (low | 0xc000) as u16
}

/// Marks an Ethernet/IPv4 frame CE, as a switch does, with the IP checksum updated.
fn mark_ce(frame: &mut [u8]) {
    frame[15] |= CE;
    frame[24..26].copy_from_slice(&[0, 0]);
    let mut header = [0u8; 20];
    header.copy_from_slice(&frame[14..34]);
    frame[24..26].copy_from_slice(&checksum(&header).to_be_bytes());
}

/// Whether the NIC's RoCE bytes move on priority 0 (the application's traffic class unset).
fn on_priority_zero(nic: &LabNic) -> bool {
    let rate = |name: &str| nic.ethtool_counters.get(name).map_or(0, |c| c.per_s);
    rate("tx_prio0_bytes") > rate(&format!("tx_prio{}_bytes", nic.roce_priority))
}

/// The IP header fields of one direction.
#[derive(Clone, Copy)]
struct Ip {
    src: std::net::Ipv4Addr,
    dst: std::net::Ipv4Addr,
    dscp: u8,
    ecn: u8,
    id: u16,
}

/// The IP header's ECN codepoints the lab sends.
const NOT_ECT: u8 = 0b00;
const ECT0: u8 = 0b10;
const CE: u8 = 0b11;

fn bth(opcode: u8, qp: u32, psn: u32) -> [u8; 12] {
    let q = qp.to_be_bytes();
    let p = psn.to_be_bytes();
    [opcode, 0, 0xff, 0xff, 0, q[1], q[2], q[3], 0x80, p[1], p[2], p[3]]
}

fn aeth(syndrome: u8, msn: u32) -> Vec<u8> {
    let m = msn.to_be_bytes();
    vec![syndrome, m[1], m[2], m[3]]
}

/// An Ethernet/IPv4/UDP frame of one RoCEv2 packet: BTH, extended headers, payload, ICRC.
fn frame(
    src_mac: [u8; 6],
    dst_mac: [u8; 6],
    ip: &mut Ip,
    sport: u16,
    bth: [u8; 12],
    ext: &[u8],
    payload: usize,
) -> Vec<u8> {
    let udp_len = 8 + 12 + ext.len() + payload + 4;
    let ip_len = 20 + udp_len;
    let mut f = Vec::with_capacity(14 + ip_len);
    f.extend(dst_mac);
    f.extend(src_mac);
    f.extend([0x08, 0x00]);
    let mut h = [0u8; 20];
    h[0] = 0x45;
    h[1] = (ip.dscp << 2) | ip.ecn;
    h[2..4].copy_from_slice(&(ip_len as u16).to_be_bytes());
    h[4..6].copy_from_slice(&ip.id.to_be_bytes());
    ip.id = ip.id.wrapping_add(1);
    h[6] = 0x40; // Don't fragment.
    h[8] = 64;
    h[9] = 17;
    h[12..16].copy_from_slice(&ip.src.octets());
    h[16..20].copy_from_slice(&ip.dst.octets());
    let sum = checksum(&h);
    h[10..12].copy_from_slice(&sum.to_be_bytes());
    f.extend(h);
    f.extend(sport.to_be_bytes());
    f.extend(ROCEV2.to_be_bytes());
    f.extend((udp_len as u16).to_be_bytes());
    f.extend([0, 0]); // No UDP checksum, as RoCEv2 NICs send.
    f.extend(bth);
    f.extend(ext);
    f.resize(f.len() + payload + 4, 0);
    f
}

/// The IPv4 header checksum.
fn checksum(h: &[u8; 20]) -> u16 {
    let mut sum: u32 = h.chunks(2).map(|w| u32::from(u16::from_be_bytes([w[0], w[1]]))).sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// A classic pcap (Ethernet) of `frames`, each cut to `snap` bytes, its timestamps in
/// microseconds as tcpdump writes by default, or nanoseconds (`--time-stamp-precision nano`).
fn pcap(frames: &[(u64, Vec<u8>)], snap: usize, nano: bool) -> Vec<u8> {
    let (magic, per_tick) = if nano { (0xa1b2_3c4du32, 1) } else { (0xa1b2_c3d4, 1000) };
    let mut out = Vec::new();
    out.extend(magic.to_le_bytes());
    out.extend(2u16.to_le_bytes());
    out.extend(4u16.to_le_bytes());
    out.extend([0u8; 8]);
    out.extend((snap as u32).to_le_bytes());
    out.extend(1u32.to_le_bytes());
    for (t, f) in frames {
        let kept = f.len().min(snap);
        out.extend(((t / 1_000_000_000) as u32).to_le_bytes());
        out.extend((((t % 1_000_000_000) / per_tick) as u32).to_le_bytes());
        out.extend((kept as u32).to_le_bytes());
        out.extend((f.len() as u32).to_le_bytes());
        out.extend(&f[..kept]);
    }
    out
}

/// The lab's captures read by tshark (Debian package `tshark`, which `.ci/run` installs), the
/// independent dissector: what the auditor reads must be what a real capture tool records.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::build_fabric;
    use crate::faults::{Fault, apply_to_fabric};
    use std::process::Command;

    /// Three hosts on one leaf and one spine, with `faults` (`DEVICE=FAULT[@PORT]`).
    fn fabric(faults: &[&str]) -> Fabric {
        let mut fabric = build_fabric(3, 1, 1);
        for f in faults {
            apply_to_fabric(&mut fabric, &f.parse::<Fault>().unwrap()).unwrap();
        }
        fabric
    }

    /// Host `me`'s capture of `ens1np0`: `tcpdump` with `args` after the interface.
    fn capture(fabric: &Fabric, me: usize, args: &str) -> Output {
        let words: Vec<String> = format!("-i ens1np0 -w - --time-stamp-precision nano {args}")
            .split_whitespace()
            .map(String::from)
            .collect();
        render(&fabric.hosts, Some(fabric), me, &words)
    }

    fn rail0(fabric: &Fabric, host: usize) -> String {
        fabric.hosts[host].roce_nics().next().unwrap().ipv4.unwrap().to_string()
    }

    /// One packet as tshark dissects it.
    #[derive(Debug)]
    struct Packet {
        opcode: String,
        /// The AETH syndrome, in decimal.
        syndrome: String,
        dscp: String,
        ecn: String,
        udp_len: String,
        src: String,
        dst: String,
        time: f64,
    }

    fn dissect(out: &Output) -> Vec<Packet> {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("lab.pcap");
        std::fs::write(&file, out.binary.as_ref().expect("a binary capture")).unwrap();
        let fields = [
            "infiniband.bth.opcode",
            "infiniband.aeth.syndrome",
            "ip.dsfield.dscp",
            "ip.dsfield.ecn",
            "udp.length",
            "ip.src",
            "ip.dst",
            "frame.time_relative",
        ];
        let mut cmd = Command::new("tshark");
        cmd.args([
            "-r",
            file.to_str().unwrap(),
            "-d",
            "udp.port==4791,infiniband",
            "-T",
            "fields",
            "-E",
            "separator=;",
        ]);
        for f in fields {
            cmd.args(["-e", f]);
        }
        let run = cmd.output().expect("tshark must be installed (Debian package tshark)");
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        String::from_utf8(run.stdout)
            .unwrap()
            .lines()
            .map(|l| {
                let v: Vec<&str> = l.split(';').collect();
                Packet {
                    opcode: v[0].into(),
                    syndrome: v[1].into(),
                    dscp: v[2].into(),
                    ecn: v[3].into(),
                    udp_len: v[4].into(),
                    src: v[5].into(),
                    dst: v[6].into(),
                    time: v[7].parse().unwrap(),
                }
            })
            .collect()
    }

    fn count(packets: &[Packet], opcode: &str) -> usize {
        packets.iter().filter(|p| p.opcode == opcode).count()
    }

    #[test]
    fn a_healthy_ports_capture_is_writes_and_acks_both_ways_on_dscp_26_at_line_rate() {
        let lab = fabric(&[]);
        let packets = dissect(&capture(&lab, 0, "-c 200 -s 128"));
        assert_eq!(packets.len(), 200);
        // 50 frames of each of four conversations (to and from each of two peers): 10 messages
        // of FIRST, MIDDLE, MIDDLE, LAST and an ACK.
        let counts = (count(&packets, "6"), count(&packets, "7"), count(&packets, "8"), count(&packets, "17"));
        assert_eq!(counts, (40, 80, 40, 40));
        assert!(packets.iter().all(|p| p.dscp == "26" && p.ecn == "2"), "ECT(0), no CE: {packets:?}");
        assert!(packets.iter().filter(|p| p.opcode == "17").all(|p| p.syndrome == "31"), "ACKs: {packets:?}");
        // The IP/UDP lengths keep the real size past the 128-byte snap length.
        assert!(packets.iter().filter(|p| p.opcode == "7").all(|p| p.udp_len == "1048"), "{packets:?}");
        let me = rail0(&lab, 0);
        let sent: std::collections::BTreeSet<&str> =
            packets.iter().filter(|p| p.opcode == "6" && p.src == me).map(|p| p.dst.as_str()).collect();
        let received = packets.iter().filter(|p| p.opcode == "6" && p.dst == me).count();
        assert_eq!((sent.len(), received), (2, 20), "{sent:?}");
        // 40 data frames to a peer back to back at 400 Gb/s: 1,066 bytes and 20 of overhead in
        // 21.7 ns each.
        let out: Vec<f64> = packets
            .iter()
            .filter(|p| p.src == me && p.dst == rail0(&lab, 1) && p.opcode != "17")
            .map(|p| p.time)
            .collect();
        let per_packet = (out[out.len() - 1] - out[0]) / (out.len() - 1) as f64;
        assert!((21.0e-9..22.5e-9).contains(&per_packet), "{per_packet}");
    }

    #[test]
    fn a_degraded_link_takes_twice_as_long_per_packet() {
        let per_packet = |lab: &Fabric| {
            let p = dissect(&capture(lab, 0, "-c 400"));
            let me = rail0(lab, 0);
            let out: Vec<f64> = p.iter().filter(|p| p.src == me && p.opcode != "17").map(|p| p.time).collect();
            let to_one: Vec<f64> = p
                .iter()
                .filter(|p| p.src == me && p.dst == rail0(lab, 1) && p.opcode != "17")
                .map(|p| p.time)
                .collect();
            assert!(!out.is_empty());
            (to_one[to_one.len() - 1] - to_one[0]) / (to_one.len() - 1) as f64
        };
        let (healthy, degraded) = (per_packet(&fabric(&[])), per_packet(&fabric(&["gpu001=link-degraded"])));
        assert!((1.95..2.05).contains(&(degraded / healthy)), "{healthy} {degraded}");
    }

    /// gpu001 and gpu002 on one leaf, gpu003 on the other (two leaves): each host's capture holds
    /// the same packets as its peer's, later by the way's latency: 2 cables and 1 switch to
    /// gpu002, 4 cables and 3 switches to gpu003, plus the 40 KiB standing queue at 400 Gb/s.
    #[test]
    fn the_receivers_capture_has_the_senders_packets_after_the_ways_latency() {
        let mut lab = build_fabric(4, 2, 1);
        lab.started_unix_ns = 1_800_000_000_000_000_000;
        let from0 = |packets: &[Packet], to: usize| -> Vec<f64> {
            packets
                .iter()
                .filter(|p| p.src == rail0(&lab, 0) && p.dst == rail0(&lab, to) && p.opcode != "17")
                .map(|p| p.time)
                .collect()
        };
        let epoch = |out: &Output| {
            let bytes = out.binary.as_ref().unwrap();
            u64::from(u32::from_le_bytes(bytes[24..28].try_into().unwrap())) * 1_000_000_000
                + u64::from(u32::from_le_bytes(bytes[28..32].try_into().unwrap()))
        };
        let (at0, at1, at2) = (capture(&lab, 0, "-c 600"), capture(&lab, 1, "-c 600"), capture(&lab, 2, "-c 600"));
        let (p0, p1, p2) = (dissect(&at0), dissect(&at1), dissect(&at2));
        let queue_ns = 40.0 * 1024.0 * 8.0 / 400.0;
        for (there, packets, out, ns) in
            [(1, &p1, &at1, 2.0 * 25.0 + 600.0 + queue_ns), (2, &p2, &at2, 4.0 * 25.0 + 3.0 * 600.0 + queue_ns)]
        {
            let (sent, received) = (from0(&p0, there), from0(packets, there));
            assert!(!sent.is_empty() && sent.len() == received.len(), "{} {}", sent.len(), received.len());
            // The captures' first packets differ: relate the two clocks through their starts.
            let offset = (epoch(out) as f64 - epoch(&at0) as f64) / 1e9;
            let delay = (received[0] + offset - sent[0]) * 1e9;
            assert!((delay - ns).abs() < 2.0, "gpu{:03}: {delay} ns, expected {ns}", there + 1);
        }
    }

    /// `leaf1=ecn-threshold@<the port toward gpu002>` (Kmin/Kmax 20/50 KB): RED at the 40 KB
    /// standing queue marks (40-20)/(50-20) × 0.2 = 13.3 % of what arrives at gpu002 CE, which
    /// gpu002's capture shows and gpu001's does not; gpu002 answers with CNPs on DSCP 48, one per
    /// 4 µs at most; with gpu002's notification point off, the same marks and no CNP; with its
    /// CNPs on DSCP 24, there.
    #[test]
    fn ecn_marks_at_a_low_threshold_bring_cnps_from_the_receiver() {
        let lab = fabric(&[]);
        let (leaf, port) = lab.host_link(1, 0).unwrap();
        let fault = format!("leaf1=ecn-threshold@{}", lab.switches[leaf].ports[port].name);
        let (me, gpu001) = (rail0(&lab, 1), rail0(&lab, 0));
        let marked = fabric(&[&fault]);
        let at_gpu002 = dissect(&capture(&marked, 1, "-c 4000"));
        let arriving: Vec<&Packet> = at_gpu002.iter().filter(|p| p.dst == me && p.opcode != "17").collect();
        let ce = arriving.iter().filter(|p| p.ecn == "3").count();
        let share = ce as f64 / arriving.len() as f64;
        assert!((0.12..0.14).contains(&share), "{share} ({ce} of {})", arriving.len());
        assert!(
            at_gpu002.iter().filter(|p| p.src == me).all(|p| p.ecn != "3"),
            "what gpu002 sends crosses no marking port"
        );
        let at_gpu001 = dissect(&capture(&marked, 0, "-c 4000"));
        assert!(at_gpu001.iter().all(|p| p.ecn != "3"), "the sender sees its packets before the mark");
        let cnps: Vec<&Packet> = at_gpu002.iter().filter(|p| p.opcode == "129").collect();
        assert!(!cnps.is_empty() && cnps.len() < ce, "{} CNPs for {ce} CE", cnps.len());
        assert!(cnps.iter().all(|p| p.dscp == "48" && p.src == me), "{cnps:?}");
        let to_gpu001: Vec<f64> = cnps.iter().filter(|p| p.dst == gpu001).map(|p| p.time).collect();
        assert!(to_gpu001.windows(2).all(|w| w[1] - w[0] >= 3.9e-6), "one CNP per 4 µs at most per QP");
        assert!(at_gpu001.iter().any(|p| p.opcode == "129" && p.src == me), "the CNPs reach the sender");

        let np_off = dissect(&capture(&fabric(&[&fault, "gpu002=dcqcn-np-off"]), 1, "-c 4000"));
        assert_eq!(count(&np_off, "129"), 0);
        assert_eq!(np_off.iter().filter(|p| p.ecn == "3").count(), ce);
        let moved = dissect(&capture(&fabric(&[&fault, "gpu002=cnp-dscp"]), 1, "-c 4000"));
        assert!(moved.iter().filter(|p| p.opcode == "129").all(|p| p.dscp == "24"));
        assert_eq!(count(&moved, "129"), cnps.len());
    }

    /// gpu002 drops (PFC off, out_of_buffer): one packet in 50 between it and a peer is lost on
    /// the way; the sender's capture has it and the NAK that comes back, the receiver's has
    /// neither the packet nor a PSN going back, only the NAK it sends and the packet sent again.
    #[test]
    fn a_dropping_port_loses_packets_both_ways_and_naks_come_back() {
        let lab = fabric(&["gpu002=pfc-off", "gpu002=out-of-buffer"]);
        let (gpu001, gpu002, gpu003) = (rail0(&lab, 0), rail0(&lab, 1), rail0(&lab, 2));
        let at_gpu001 = dissect(&capture(&lab, 0, "-c 2000"));
        let naks_from =
            |packets: &[Packet], from: &str| packets.iter().filter(|p| p.syndrome == "96" && p.src == from).count();
        let sent_to_gpu002 =
            at_gpu001.iter().filter(|p| p.src == gpu001 && p.dst == gpu002 && p.opcode != "17").count();
        assert_eq!(
            naks_from(&at_gpu001, &gpu002),
            sent_to_gpu002 / LOSS_EVERY as usize,
            "one loss in {LOSS_EVERY} to gpu002"
        );
        assert!(naks_from(&at_gpu001, &gpu001) > 0, "gpu001 NAKs what gpu002 lost on its way here");
        assert_eq!(naks_from(&at_gpu001, &gpu003), 0, "gpu003's flows lose nothing");
        let at_gpu002 = dissect(&capture(&lab, 1, "-c 2000"));
        let received = at_gpu002.iter().filter(|p| p.src == gpu001 && p.dst == gpu002 && p.opcode != "17").count();
        let lost = naks_from(&at_gpu002, &gpu002);
        assert!(lost > 0 && received > 0, "{lost} {received}");

        let shifted = dissect(&capture(&fabric(&["gpu002=roce-on-prio0"]), 1, "-c 200"));
        let from_gpu002 = |p: &&Packet| p.src == gpu002;
        assert!(shifted.iter().filter(from_gpu002).filter(|p| p.opcode != "17").all(|p| p.dscp == "0"), "{shifted:?}");
        assert!(shifted.iter().filter(from_gpu002).filter(|p| p.opcode == "17").all(|p| p.dscp == "0"), "its ACKs too");
        assert!(shifted.iter().filter(|p| !from_gpu002(p)).all(|p| p.dscp == "26"), "the peers' packets");
    }

    #[test]
    fn an_unknown_interface_is_tcpdumps_error() {
        let lab = fabric(&[]);
        let words: Vec<String> = ["-i", "eth9", "-w", "-"].map(String::from).to_vec();
        let out = render(&lab.hosts, Some(&lab), 0, &words);
        assert_eq!(out.status, 1);
        assert!(out.stderr.contains("eth9: No such device exists"));
    }
}
