//! Flow analysis benchmark: one large capture, analysed by `fabcheck flows` and by `tshark -T
//! fields` (the fields a flow analysis needs), in the same run on the same machine: wall time,
//! peak memory, and the ratio.
//!
//! The capture is a real one (ConnectX RC traffic, 32 QPs: tests/fixtures/pcap) repeated, its
//! timestamps moved on each time, to the size asked: `cargo bench --bench flows` makes 256 MiB,
//! `-- 1024` 1 GiB (the issue's figure: ≤ 256 MiB of memory for a 1 GiB capture).
mod common;

use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_fabcheck");
const SAMPLE: &[u8] =
    include_bytes!("../crates/flows/tests/fixtures/pcap/cx-mlx5-rc-32qp-send-ack-708pkt-magnate3.pcap");

/// Writes a pcap of about `mib` MiB: the sample's header once, then its records over and over.
fn make_capture(path: &Path, mib: usize) -> usize {
    let (header, records) = SAMPLE.split_at(24);
    let mut out = BufWriter::new(std::fs::File::create(path).unwrap());
    out.write_all(header).unwrap();
    let mut written = 24;
    let mut round: u32 = 0;
    while written < mib << 20 {
        let mut at = 0;
        while at + 16 <= records.len() {
            let caplen = u32::from_le_bytes(records[at + 8..at + 12].try_into().unwrap()) as usize;
            let mut head = records[at..at + 16].to_vec();
            // One second later per round, so the flows go on rather than overlap.
            let secs = u32::from_le_bytes(head[0..4].try_into().unwrap()).wrapping_add(round);
            head[0..4].copy_from_slice(&secs.to_le_bytes());
            out.write_all(&head).unwrap();
            out.write_all(&records[at + 16..at + 16 + caplen]).unwrap();
            at += 16 + caplen;
        }
        written += records.len();
        round += 1;
    }
    out.flush().unwrap();
    written
}

fn main() {
    let mib: usize = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(256);
    let dir = tempfile::tempdir().unwrap();
    let capture = dir.path().join("capture.pcap");
    let bytes = make_capture(&capture, mib);
    println!("capture: {:.0} MiB of RoCEv2 (a real 32-QP capture repeated)", bytes as f64 / (1 << 20) as f64);
    let records = dir.path().join("flows.jsonl");
    let (ours, our_peak, _) =
        common::run_measured(Command::new(BIN).arg("flows").arg(&capture).arg("--records").arg(&records));
    println!("fabcheck flows    {:>8.2} s wall, {:>7.1} MiB peak", ours.as_secs_f64(), our_peak as f64 / 1024.0);
    let fields = [
        "ip.src",
        "ip.dst",
        "udp.srcport",
        "infiniband.bth.opcode",
        "infiniband.bth.destqp",
        "infiniband.bth.psn",
        "infiniband.aeth.syndrome",
        "ip.dsfield.ecn",
        "udp.length",
    ];
    let mut tshark = Command::new("tshark");
    tshark.arg("-r").arg(&capture).args(["-Y", "udp.dstport == 4791", "-T", "fields"]);
    for f in fields {
        tshark.args(["-e", f]);
    }
    if Command::new("tshark").arg("-v").output().is_err() {
        println!("tshark            not installed: no comparison (apt-get install tshark)");
        return;
    }
    let (theirs, their_peak, _) = common::run_measured(&mut tshark);
    println!("tshark -T fields  {:>8.2} s wall, {:>7.1} MiB peak", theirs.as_secs_f64(), their_peak as f64 / 1024.0);
    println!("fabcheck is {:.1}× faster", theirs.as_secs_f64() / ours.as_secs_f64());
}
