//! `tcpdump -i IF -w - [-c N] [-s SNAPLEN] [-U] udp dst port 4791`: a pcap of the RoCEv2 traffic
//! on one of a host's RoCE ports, as a NIC port capture records it (its transmitted data and what
//! comes back), consistent with the lab's state:
//! - RC RDMA WRITEs of 4 KiB messages (FIRST, MIDDLE, MIDDLE, LAST with 1,024-byte payloads) to
//!   the same rail of each other host, each message ACKed, back to back at the slower end's line
//!   rate (a degraded link halves the throughput);
//! - marked DSCP 26 and ECT(0), or DSCP 0 when the NIC's RoCE traffic runs on priority 0
//!   (`roce-on-prio0`);
//! - where this port or the peer's drops packets (`pfc-off` with `out-of-buffer`), one data
//!   packet in 50 is lost: the receiver NAKs the next (PSN sequence error) and the sender goes back;
//! - the leaf port toward the peer marks CE as RED would at the standing queue an incast leaves
//!   there ([`STANDING_QUEUE_BYTES`]): nothing below Kmin (the healthy 150 KB), every packet
//!   above Kmax, in between a share rising to [`MAX_MARK_PROBABILITY`]; the peer answers each CE
//!   with a CNP to the sender's QP (on its CNP DSCP, at most one per 4 µs per QP, none when its
//!   notification point is off).
//!
//! Frames are cut to the snap length; the IP and UDP lengths keep the packets' real sizes.
//! Timestamps are microseconds, as tcpdump writes them, unless `--time-stamp-precision nano`
//! (or `--nano`) asks for nanoseconds: at 400 Gb/s a packet takes 21 ns.
use super::nccl::drops_packets;
use crate::shell::Output;
use crate::state::{Fabric, LabHost, LabNic};
use std::time::Duration;

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
/// The traffic class RoCE's DCQCN settings are judged on.
const ROCE_PRIORITY: usize = 3;

/// Answers a tcpdump command line.
pub(crate) fn render(
    hosts: &[LabHost],
    fabric: Option<&Fabric>,
    me: usize,
    args: &[String],
    elapsed: Duration,
) -> Output {
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
    let peers: Vec<(usize, &LabNic)> = hosts
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != me)
        .filter_map(|(i, h)| Some((i, h.roce_nics().nth(rail)?)))
        .filter(|(_, p)| p.ipv4.is_some() && p.up)
        .collect();
    let mut frames: Vec<(u64, Vec<u8>)> = Vec::new();
    let start = 1_700_000_000_000_000_000u64 + elapsed.as_nanos() as u64;
    let per_peer = count / peers.len().max(1);
    for (k, (peer_index, peer)) in peers.iter().enumerate() {
        let path = Path {
            lossy: drops_packets(nic) || drops_packets(peer),
            ce_share: fabric.map_or(0.0, |f| ce_share(f, *peer_index, rail)),
            gbps: nic.rate_gbps.min(peer.rate_gbps).max(1),
        };
        let ends = Ends { nic, peer, k: k as u32 };
        frames.extend(conversation(&ends, &path, per_peer, start + u64::from(ends.k) * 37));
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

/// The share of packets the leaf port toward `host`'s `rail` marks CE: RED between the queue's
/// Kmin and Kmax at the standing depth; 0 with marking off or no leaf.
fn ce_share(fabric: &Fabric, host: usize, rail: usize) -> f64 {
    let Some((switch, port)) = fabric.host_link(host, rail) else { return 0.0 };
    let Some(ecn) = fabric.switches[switch].ports[port].ecn else { return 0.0 };
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

/// The two ends of a conversation: the captured port and its peer, the `k`th.
struct Ends<'a> {
    nic: &'a LabNic,
    peer: &'a LabNic,
    k: u32,
}

/// What the way between them does to packets.
struct Path {
    /// One data packet in [`LOSS_EVERY`] lost.
    lossy: bool,
    /// The share of data packets marked CE.
    ce_share: f64,
    /// The slower end's rate.
    gbps: u32,
}

/// Up to `packets` frames of a WRITE stream from `nic` to `peer` and what comes back, from
/// `start` ns.
fn conversation(ends: &Ends, path: &Path, packets: usize, start: u64) -> Vec<(u64, Vec<u8>)> {
    let Ends { nic, peer, k } = *ends;
    let (Some(src), Some(dst)) = (nic.ipv4, peer.ipv4) else { return Vec::new() };
    let marking = |n: &LabNic| if on_priority_zero(n) { 0 } else { 26 };
    let (qp_here, qp_there) = (0x100 + k * 2, 0x200 + k * 2);
    let sport = 49_152 + k as u16;
    let np = peer.dcqcn.is_none_or(|d| d.np[ROCE_PRIORITY]);
    let cnp_dscp = peer.dcqcn.map_or(48, |d| d.cnp_dscp);
    let mut out = Vec::new();
    let mut t = start;
    let mut psn: u32 = 0;
    let mut sent: u32 = 0;
    let mut marks = 0.0;
    let mut last_cnp: Option<u64> = None;
    // Each side marks what it sends with its own traffic class: the data this port's, the ACKs
    // the peer's, the CNPs the peer's CNP DSCP.
    let mut ip = Ip { src, dst, dscp: marking(nic), ecn: ECT0, id: 0 };
    let mut back = Ip { src: dst, dst: src, dscp: marking(peer), ecn: ECT0, id: 0 };
    let wire = |t: &mut u64, frame: Vec<u8>| {
        let at = *t;
        *t += ((frame.len() + WIRE_OVERHEAD) * 8) as u64 / u64::from(path.gbps);
        (at, frame)
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
            // RED marks a deterministic share: a packet whenever the running share passes 1.
            marks += path.ce_share;
            let ce = marks >= 1.0;
            if ce {
                marks -= 1.0;
            }
            ip.ecn = if ce { CE } else { ECT0 };
            out.push(wire(&mut t, frame(nic.mac, peer.mac, &mut ip, sport, bth(opcode, qp_there, psn), &ext, PAYLOAD)));
            if ce && np && last_cnp.is_none_or(|l| t - l >= CNP_INTERVAL_NS) {
                last_cnp = Some(t);
                let mut cnp_ip = Ip { dscp: cnp_dscp, ecn: NOT_ECT, ..back };
                let cnp = frame(peer.mac, nic.mac, &mut cnp_ip, sport, bth(0x81, qp_here, 0), &[0; 16], 0);
                back.id = cnp_ip.id;
                out.push(wire(&mut t, cnp));
            }
            if path.lossy && sent.is_multiple_of(LOSS_EVERY) {
                // Lost after this port: the receiver NAKs the PSN it still expects, and the sender
                // goes back to it (go-back-N).
                let nak = frame(peer.mac, nic.mac, &mut back, sport, bth(0x11, qp_here, psn), &aeth(0x60, psn), 0);
                out.push(wire(&mut t, nak));
                continue;
            }
            psn = (psn + 1) & 0x00ff_ffff;
            i += 1;
        }
        let ack =
            frame(peer.mac, nic.mac, &mut back, sport, bth(0x11, qp_here, psn.wrapping_sub(1)), &aeth(0x1f, psn), 0);
        out.push(wire(&mut t, ack));
    }
    out
}

/// Whether the NIC's RoCE bytes move on priority 0 (the application's traffic class unset).
fn on_priority_zero(nic: &LabNic) -> bool {
    let rate = |name: &str| nic.ethtool_counters.get(name).map_or(0, |c| c.per_s);
    rate("tx_prio0_bytes") > rate("tx_prio3_bytes")
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
        render(&fabric.hosts, Some(fabric), me, &words, Duration::ZERO)
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
                    dst: v[5].into(),
                    time: v[6].parse().unwrap(),
                }
            })
            .collect()
    }

    fn count(packets: &[Packet], opcode: &str) -> usize {
        packets.iter().filter(|p| p.opcode == opcode).count()
    }

    #[test]
    fn a_healthy_ports_capture_is_writes_and_acks_on_dscp_26_at_line_rate() {
        let lab = fabric(&[]);
        let packets = dissect(&capture(&lab, 0, "-c 200 -s 128"));
        assert_eq!(packets.len(), 200);
        // 100 packets to each of two peers: 20 messages of FIRST, MIDDLE, MIDDLE, LAST and an ACK.
        assert_eq!(
            (count(&packets, "6"), count(&packets, "7"), count(&packets, "8"), count(&packets, "17")),
            (40, 80, 40, 40)
        );
        assert!(packets.iter().all(|p| p.dscp == "26" && p.ecn == "2"), "ECT(0), no CE: {packets:?}");
        assert!(packets.iter().filter(|p| p.opcode == "17").all(|p| p.syndrome == "31"), "ACKs: {packets:?}");
        // The IP/UDP lengths keep the real size past the 128-byte snap length.
        assert!(packets.iter().filter(|p| p.opcode == "7").all(|p| p.udp_len == "1048"), "{packets:?}");
        let peers: std::collections::BTreeSet<&str> =
            packets.iter().filter(|p| p.opcode == "6").map(|p| p.dst.as_str()).collect();
        assert_eq!(peers.len(), 2, "{peers:?}");
        // 100 frames a peer, back to back at 400 Gb/s: about 1,064 bytes in 21.6 ns each.
        let span = packets.last().unwrap().time - packets.first().unwrap().time;
        assert!((1.0e-6..4.0e-6).contains(&span), "{span}");
    }

    #[test]
    fn a_degraded_link_takes_twice_as_long() {
        let span = |lab: &Fabric| {
            let p = dissect(&capture(lab, 0, "-c 400"));
            p.last().unwrap().time - p.first().unwrap().time
        };
        let (healthy, degraded) = (span(&fabric(&[])), span(&fabric(&["gpu001=link-degraded"])));
        assert!((1.8..2.2).contains(&(degraded / healthy)), "{healthy} {degraded}");
    }

    #[test]
    fn a_port_toward_a_dropping_peer_shows_naks_and_priority_zero_shows_dscp_0() {
        let lab = fabric(&["gpu002=pfc-off", "gpu002=out-of-buffer"]);
        let lossy = dissect(&capture(&lab, 0, "-c 1000"));
        let naks: Vec<_> = lossy.iter().filter(|p| p.syndrome == "96").collect();
        assert!(!naks.is_empty(), "NAKs toward the dropping peer");
        assert!(naks.iter().all(|p| p.dst == rail0(&lab, 0)), "the NAKs come back to the sender");
        let to_dropping = lossy.iter().filter(|p| p.dst == rail0(&lab, 1) && p.opcode != "17").count();
        assert_eq!(naks.len(), to_dropping / (LOSS_EVERY as usize), "one loss in {LOSS_EVERY}");
        let shifted = dissect(&capture(&fabric(&["gpu002=roce-on-prio0"]), 1, "-c 100"));
        assert!(shifted.iter().filter(|p| p.opcode != "17").all(|p| p.dscp == "0"), "{shifted:?}");
        assert!(shifted.iter().filter(|p| p.opcode == "17").all(|p| p.dscp == "26"), "the peers' ACKs");
    }

    /// `leaf1=ecn-threshold@Ethernet4` (Kmin/Kmax 20/50 KB on the port toward gpu002): RED at
    /// the 40 KB standing queue marks (40-20)/(50-20) × 0.2 = 13.3 % of gpu001's packets to
    /// gpu002 CE, and gpu002 answers with CNPs on DSCP 48, one per 4 µs at most; with gpu002's
    /// notification point off, the same marks and no CNP; with its CNPs on DSCP 24, there.
    #[test]
    fn ecn_marks_at_a_low_threshold_bring_cnps_from_the_receiver() {
        let lab = fabric(&[]);
        let (leaf, port) = lab.host_link(1, 0).unwrap();
        let port = lab.switches[leaf].ports[port].name.clone();
        let fault = format!("leaf1=ecn-threshold@{port}");
        let packets = dissect(&capture(&fabric(&[&fault]), 0, "-c 2000"));
        let to_gpu002: Vec<_> = packets.iter().filter(|p| p.dst == rail0(&fabric(&[]), 1)).collect();
        let ce = to_gpu002.iter().filter(|p| p.ecn == "3").count();
        let share = ce as f64 / to_gpu002.len() as f64;
        assert!((0.12..0.14).contains(&share), "{share} ({ce} of {})", to_gpu002.len());
        assert!(
            packets.iter().filter(|p| p.dst == rail0(&fabric(&[]), 2)).all(|p| p.ecn != "3"),
            "the healthy port marks none"
        );
        let cnps: Vec<_> = packets.iter().filter(|p| p.opcode == "129").collect();
        assert!(!cnps.is_empty() && cnps.len() < ce, "{} CNPs for {ce} CE", cnps.len());
        assert!(cnps.iter().all(|p| p.dscp == "48" && p.dst == rail0(&fabric(&[]), 0)), "{cnps:?}");
        let gaps = cnps.windows(2).map(|w| w[1].time - w[0].time);
        assert!(gaps.into_iter().all(|g| g >= 3.9e-6), "one CNP per 4 µs at most");

        let np_off = dissect(&capture(&fabric(&[&fault, "gpu002=dcqcn-np-off"]), 0, "-c 2000"));
        assert_eq!(count(&np_off, "129"), 0);
        assert_eq!(np_off.iter().filter(|p| p.ecn == "3").count(), ce);
        let moved = dissect(&capture(&fabric(&[&fault, "gpu002=cnp-dscp"]), 0, "-c 2000"));
        assert!(moved.iter().filter(|p| p.opcode == "129").all(|p| p.dscp == "24"));
        assert_eq!(count(&moved, "129"), cnps.len());
    }

    #[test]
    fn an_unknown_interface_is_tcpdumps_error() {
        let lab = fabric(&[]);
        let words: Vec<String> = ["-i", "eth9", "-w", "-"].map(String::from).to_vec();
        let out = render(&lab.hosts, Some(&lab), 0, &words, Duration::ZERO);
        assert_eq!(out.status, 1);
        assert!(out.stderr.contains("eth9: No such device exists"));
    }
}
