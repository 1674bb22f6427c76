//! `tcpdump -i IF -w - [-c N] [-s SNAPLEN] [-U] udp dst port 4791`: a pcap of the RoCEv2 traffic
//! on one of a host's RoCE ports, as a NIC port capture records it (its transmitted data and the
//! ACKs it receives), consistent with the lab's state: RC RDMA WRITEs of 4 KiB messages (FIRST,
//! MIDDLE, MIDDLE, LAST with 1,024-byte payloads) to the same rail of each other host, each
//! message ACKed; marked DSCP 26 and ECT(0), or DSCP 0 when the NIC's RoCE traffic runs on
//! priority 0 (`roce-on-prio0`); where this port or the peer's drops packets (`pfc-off` with
//! `out-of-buffer`), one data packet in 50 is lost: the receiver NAKs the next (PSN sequence
//! error) and the sender goes back. Frames are cut to the snap length; the IP and UDP lengths
//! keep the packets' real sizes.
use super::nccl::drops_packets;
use crate::shell::Output;
use crate::state::{LabHost, LabNic};
use std::time::Duration;

/// RoCEv2's UDP destination port.
const ROCEV2: u16 = 4791;
/// Payload of one data packet (MTU 1024 of the RoCE path MTU enum).
const PAYLOAD: usize = 1024;
/// Nanoseconds between two packets of a flow.
const GAP_NS: u64 = 100;
/// One data packet in this many is lost on a port that drops packets.
const LOSS_EVERY: u32 = 50;

/// Answers a tcpdump command line.
pub(crate) fn render(hosts: &[LabHost], me: usize, args: &[String], elapsed: Duration) -> Output {
    let mut iface = None;
    let (mut count, mut snap) = (1_000usize, 262_144usize);
    let mut to_stdout = false;
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
    let peers: Vec<&LabNic> = hosts
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != me)
        .filter_map(|(_, h)| h.roce_nics().nth(rail))
        .filter(|p| p.ipv4.is_some() && p.up)
        .collect();
    let mut frames: Vec<(u64, Vec<u8>)> = Vec::new();
    let start = 1_700_000_000_000_000_000u64 + elapsed.as_nanos() as u64;
    let per_peer = count / peers.len().max(1);
    for (k, peer) in peers.iter().enumerate() {
        let lossy = drops_packets(nic) || drops_packets(peer);
        frames.extend(conversation(nic, peer, k as u32, per_peer, lossy, start + k as u64 * 37));
    }
    frames.sort_by_key(|(t, _)| *t);
    frames.truncate(count);
    let stderr = format!(
        "tcpdump: listening on {}, link-type EN10MB (Ethernet), snapshot length {snap} bytes\n{} packets captured\n",
        nic.netdev,
        frames.len()
    );
    Output::bytes(pcap(&frames, snap), stderr)
}

/// Up to `packets` frames of a WRITE stream from `nic` to `peer` and its ACKs, from `start` ns.
fn conversation(nic: &LabNic, peer: &LabNic, k: u32, packets: usize, lossy: bool, start: u64) -> Vec<(u64, Vec<u8>)> {
    let (Some(src), Some(dst)) = (nic.ipv4, peer.ipv4) else { return Vec::new() };
    let marking = |n: &LabNic| if on_priority_zero(n) { 0 } else { 26 };
    let (qp_here, qp_there) = (0x100 + k * 2, 0x200 + k * 2);
    let sport = 49_152 + k as u16;
    let mut out = Vec::new();
    let mut t = start;
    let mut psn: u32 = 0;
    let mut sent: u32 = 0;
    // Each side marks what it sends with its own traffic class: the data this port's, the ACKs
    // the peer's.
    let mut ip = Ip { src, dst, dscp: marking(nic), id: 0 };
    let mut back = Ip { src: dst, dst: src, dscp: marking(peer), id: 0 };
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
            out.push((t, frame(nic.mac, peer.mac, &mut ip, sport, bth(opcode, qp_there, psn), &ext, PAYLOAD)));
            t += GAP_NS;
            if lossy && sent.is_multiple_of(LOSS_EVERY) {
                // Lost after this port: the receiver NAKs the PSN it still expects, and the sender
                // goes back to it (go-back-N).
                let nak = frame(peer.mac, nic.mac, &mut back, sport, bth(0x11, qp_here, psn), &aeth(0x60, psn), 0);
                out.push((t, nak));
                t += GAP_NS;
                continue;
            }
            psn = (psn + 1) & 0x00ff_ffff;
            i += 1;
        }
        out.push((
            t,
            frame(peer.mac, nic.mac, &mut back, sport, bth(0x11, qp_here, psn.wrapping_sub(1)), &aeth(0x1f, psn), 0),
        ));
        t += GAP_NS;
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
    id: u16,
}

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
    h[1] = (ip.dscp << 2) | 0b10; // ECT(0)
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

/// A classic pcap (microseconds, Ethernet) of `frames`, each cut to `snap` bytes.
fn pcap(frames: &[(u64, Vec<u8>)], snap: usize) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend(0xa1b2_c3d4u32.to_le_bytes());
    out.extend(2u16.to_le_bytes());
    out.extend(4u16.to_le_bytes());
    out.extend([0u8; 8]);
    out.extend((snap as u32).to_le_bytes());
    out.extend(1u32.to_le_bytes());
    for (t, f) in frames {
        let kept = f.len().min(snap);
        out.extend(((t / 1_000_000_000) as u32).to_le_bytes());
        out.extend((((t % 1_000_000_000) / 1000) as u32).to_le_bytes());
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
    use crate::build::healthy_host;
    use crate::faults::{Fault, apply};
    use std::process::Command;

    fn hosts(faults: &[&str]) -> Vec<LabHost> {
        let mut hosts: Vec<LabHost> = (0..3).map(healthy_host).collect();
        for f in faults {
            apply(&mut hosts[1], &format!("gpu002={f}").parse::<Fault>().unwrap()).unwrap();
        }
        hosts
    }

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    /// tshark's (opcode, AETH syndrome in decimal, DSCP, UDP length, destination) per packet.
    fn dissect(out: &Output) -> Vec<(String, String, String, String, String)> {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("lab.pcap");
        std::fs::write(&file, out.binary.as_ref().expect("a binary capture")).unwrap();
        let fields = ["infiniband.bth.opcode", "infiniband.aeth.syndrome", "ip.dsfield.dscp", "udp.length", "ip.dst"];
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
            "-E",
            "occurrence=f",
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
                (v[0].into(), v[1].into(), v[2].into(), v[3].into(), v[4].into())
            })
            .collect()
    }

    #[test]
    fn a_healthy_ports_capture_is_writes_and_acks_on_dscp_26() {
        let out = render(&hosts(&[]), 0, &words("-i ens1np0 -w - -c 200 -s 128"), Duration::ZERO);
        let packets = dissect(&out);
        assert_eq!(packets.len(), 200);
        let count = |op: &str| packets.iter().filter(|p| p.0 == op).count();
        // 100 packets to each of two peers: 20 messages of FIRST, MIDDLE, MIDDLE, LAST and an ACK.
        assert_eq!((count("6"), count("7"), count("8"), count("17")), (40, 80, 40, 40));
        assert!(packets.iter().all(|p| p.2 == "26"), "{packets:?}");
        assert!(packets.iter().filter(|p| p.0 == "17").all(|p| p.1 == "31"), "ACK syndrome: {packets:?}");
        // The IP/UDP lengths keep the real size past the 128-byte snap length.
        assert!(packets.iter().filter(|p| p.0 == "7").all(|p| p.3 == "1048"), "{packets:?}");
        let peers: std::collections::BTreeSet<&str> =
            packets.iter().filter(|p| p.0 == "6").map(|p| p.4.as_str()).collect();
        assert_eq!(peers.len(), 2, "{peers:?}");
    }

    #[test]
    fn a_port_toward_a_dropping_peer_shows_naks_and_priority_zero_shows_dscp_0() {
        let lossy = dissect(&render(
            &hosts(&["pfc-off", "out-of-buffer"]),
            0,
            &words("-i ens1np0 -w - -c 1000"),
            Duration::ZERO,
        ));
        let naks: Vec<_> = lossy.iter().filter(|p| p.1 == "96").collect();
        assert!(!naks.is_empty(), "NAKs toward the dropping peer");
        let rail0 = |i: usize| hosts(&[])[i].roce_nics().next().unwrap().ipv4.unwrap().to_string();
        let (me, dropping) = (rail0(0), rail0(1));
        assert!(naks.iter().all(|p| p.4 == me), "the NAKs come back to the sender");
        let to_dropping = lossy.iter().filter(|p| p.4 == dropping && p.0 != "17").count();
        assert_eq!(naks.len(), to_dropping / (LOSS_EVERY as usize), "one loss in {LOSS_EVERY}");
        let shifted = dissect(&render(&hosts(&["roce-on-prio0"]), 1, &words("-i ens1np0 -w - -c 100"), Duration::ZERO));
        assert!(shifted.iter().filter(|p| p.0 != "17").all(|p| p.2 == "0"), "{shifted:?}");
        assert!(shifted.iter().filter(|p| p.0 == "17").all(|p| p.2 == "26"), "the peers' ACKs");
    }

    #[test]
    fn an_unknown_interface_is_tcpdumps_error() {
        let out = render(&hosts(&[]), 0, &words("-i eth9 -w -"), Duration::ZERO);
        assert_eq!(out.status, 1);
        assert!(out.stderr.contains("eth9: No such device exists"));
    }
}
