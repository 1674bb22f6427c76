//! fabcheck's decoding against tshark's, the independent dissector, on every real capture in
//! tests/fixtures/pcap (see SOURCES.md there): for every RoCEv2 packet (UDP destination port
//! 4791) the opcode, destination QP, PSN, AETH syndrome, DSCP and ECN agree, and per flow the
//! packet, payload byte and message counts agree with a computation from tshark's fields.
//! tshark (Debian package `tshark`) must be installed: `.ci/run` installs it.
mod common;

use fabcheck_flows::capture::for_each_frame;
use fabcheck_flows::decode::{Frame, RocePacket, frame};
use fabcheck_flows::flow::{FlowKey, Flows};
use std::collections::BTreeMap;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::process::Command;

const FIELDS: [&str; 16] = [
    "frame.number",
    "ip.src",
    "ip.dst",
    "udp.srcport",
    "infiniband.bth.opcode",
    "infiniband.bth.destqp",
    "infiniband.bth.psn",
    "infiniband.aeth.syndrome",
    "ip.dsfield.dscp",
    "ip.dsfield.ecn",
    "udp.length",
    "infiniband.bth.padcnt",
    "infiniband.reth.va",
    "infiniband.immdt",
    "infiniband.deth.q_key",
    "infiniband.aeth.msn",
];

/// One RoCEv2 packet as tshark dissects it.
#[derive(Debug, Clone)]
struct Dissected {
    frame: usize,
    src: IpAddr,
    dst: IpAddr,
    sport: u16,
    opcode: u8,
    dest_qp: u32,
    psn: u32,
    syndrome: Option<u8>,
    dscp: u8,
    ecn: u8,
    udp_len: usize,
    pad: usize,
    reth: bool,
    immdt: bool,
    deth: bool,
    aeth: bool,
}

fn captures() -> Vec<PathBuf> {
    common::captures("pcap", 18)
}

fn tshark(file: &Path) -> Vec<Dissected> {
    let mut cmd = Command::new("tshark");
    // One capture's requester uses UDP source port 69: without this tshark reads it as TFTP.
    cmd.args(["-r"]).arg(file).args([
        "--disable-protocol",
        "tftp",
        "-Y",
        "udp.dstport == 4791",
        "-T",
        "fields",
        "-E",
        "separator=|",
    ]);
    for f in FIELDS {
        cmd.args(["-e", f]);
    }
    let out = cmd.output().unwrap_or_else(|e| panic!("tshark is needed for this test (apt-get install tshark): {e}"));
    assert!(out.status.success(), "tshark on {}: {}", file.display(), String::from_utf8_lossy(&out.stderr));
    let num = |s: &str| -> u32 {
        let s = s.split(',').next().unwrap_or(s);
        match s.strip_prefix("0x") {
            Some(hex) => u32::from_str_radix(hex, 16).unwrap(),
            None => s.parse().unwrap_or_else(|_| panic!("number `{s}`")),
        }
    };
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let c: Vec<&str> = l.split('|').collect();
            Dissected {
                frame: num(c[0]) as usize,
                src: c[1].parse().unwrap(),
                dst: c[2].parse().unwrap(),
                sport: num(c[3]) as u16,
                opcode: num(c[4]) as u8,
                dest_qp: num(c[5]),
                psn: num(c[6]),
                syndrome: (!c[7].is_empty()).then(|| num(c[7]) as u8),
                dscp: num(c[8]) as u8,
                ecn: num(c[9]) as u8,
                udp_len: num(c[10]) as usize,
                pad: num(c[11]) as usize,
                reth: !c[12].is_empty(),
                immdt: !c[13].is_empty(),
                deth: !c[14].is_empty(),
                aeth: !c[15].is_empty(),
            }
        })
        .collect()
}

/// fabcheck's RoCEv2 packets by frame number.
fn fabcheck(file: &Path) -> BTreeMap<usize, RocePacket> {
    let mut out = BTreeMap::new();
    let mut n = 0;
    for_each_frame(std::fs::File::open(file).unwrap(), |c| {
        n += 1;
        if let (Some(link), true) = (c.link, true)
            && let Frame::RoceV2(p) = frame(link, c.data)
        {
            out.insert(n, p);
        }
    })
    .unwrap();
    out
}

#[test]
fn every_rocev2_packet_reads_as_tshark_reads_it() {
    let mut packets = 0;
    for file in captures() {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let theirs = tshark(&file);
        let ours = fabcheck(&file);
        assert_eq!(
            ours.keys().copied().collect::<Vec<_>>(),
            theirs.iter().map(|d| d.frame).collect::<Vec<_>>(),
            "{name}: the RoCEv2 frames"
        );
        for d in &theirs {
            let p = &ours[&d.frame];
            let b = &p.transport.bth;
            let syndrome = p.transport.syndrome.map(|_| ());
            assert_eq!(
                (p.src, p.dst, p.src_port, b.opcode, b.dest_qp, b.psn, p.dscp, p.ecn, usize::from(b.pad)),
                (d.src, d.dst, d.sport, d.opcode, d.dest_qp, d.psn, d.dscp, d.ecn, d.pad),
                "{name} frame {}",
                d.frame
            );
            // Mellanox's DC transport uses RD opcodes with headers of its own: fabcheck reads
            // no AETH there, while tshark applies RD's layout.
            if d.opcode >> 5 != 2 {
                assert_eq!(syndrome.is_some(), d.syndrome.is_some() && d.aeth, "{name} frame {}: AETH", d.frame);
                let theirs = d.syndrome.filter(|_| d.aeth).map(fabcheck_flows::bth::syndrome);
                assert_eq!(p.transport.syndrome, theirs, "{name} frame {}: syndrome", d.frame);
            }
            assert_eq!(p.udp_payload_len + 8, d.udp_len, "{name} frame {}: from the UDP length", d.frame);
            packets += 1;
        }
    }
    assert!(packets > 2_000, "{packets} RoCEv2 packets compared");
}

/// Payload bytes from tshark's fields: the UDP length less the UDP header, the BTH, the
/// extended headers tshark found, the pad and the ICRC.
fn payload(d: &Dissected) -> usize {
    let ext = 16 * usize::from(d.reth) + 4 * usize::from(d.aeth) + 4 * usize::from(d.immdt) + 8 * usize::from(d.deth);
    d.udp_len - 8 - 12 - ext - d.pad - 4
}

#[test]
fn per_flow_counts_agree_with_tsharks_fields() {
    for file in captures() {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let mut flows = Flows::default();
        fabcheck_flows::analyse(std::fs::File::open(&file).unwrap(), &mut flows).unwrap();
        // From tshark's fields: packets, data payload bytes, messages per flow.
        let mut want: BTreeMap<FlowKey, (u64, u64, u64, bool, bool)> = BTreeMap::new();
        for d in tshark(&file) {
            let key = FlowKey { src: d.src, dst: d.dst, src_port: d.sport, dest_qp: d.dest_qp, sampler: None };
            let e = want.entry(key).or_insert((0, 0, 0, false, true));
            e.0 += 1;
            let low = d.opcode & 0x1f;
            let transport = d.opcode >> 5;
            let data = matches!(low, 0x00..=0x0b | 0x0d..=0x10 | 0x16 | 0x17) && transport != 4 && d.dest_qp != 1;
            if data {
                if transport == 2 {
                    e.4 = false; // RD/DC: header layout not known, bytes not counted.
                }
                e.1 += payload(&d) as u64;
                let starts = matches!(low, 0x00 | 0x04 | 0x05 | 0x06 | 0x0a | 0x0b | 0x0d | 0x10 | 0x17);
                let ends = matches!(low, 0x02..=0x05 | 0x08..=0x0b | 0x0f | 0x10 | 0x16 | 0x17);
                if starts {
                    e.3 = true;
                }
                if ends && e.3 {
                    e.2 += 1;
                    e.3 = false;
                }
            }
        }
        assert_eq!(flows.flows.len(), want.len(), "{name}: flows");
        for (key, (packets, bytes, messages, _, bytes_known)) in &want {
            let f = &flows.flows[key];
            assert_eq!(f.packets, *packets, "{name} {key:?}: packets");
            if !f.cm {
                assert_eq!(f.messages, *messages, "{name} {key:?}: messages");
                assert_eq!(f.payload_bytes, bytes_known.then_some(*bytes), "{name} {key:?}: payload bytes");
            }
        }
    }
}
