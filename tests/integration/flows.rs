//! Per-hop latency on a real capture taken as the upstream point and the same packets delayed
//! into a downstream capture (what a second capture point on the path records): the library's
//! matching, and `fabcheck flows --at` with its verdict.
use crate::util::fabcheck;
use fabcheck_flows::hops::{hop, index};
use std::io::Cursor;

const UPSTREAM: &[u8] =
    include_bytes!("../../crates/flows/tests/fixtures/pcap/cx-mlx5-rc-32qp-send-ack-708pkt-magnate3.pcap");

/// The upstream capture's records, each `delay_us(i)` later, every `drop`-th one left out.
fn downstream(delay_us: impl Fn(usize) -> u32, drop: usize) -> Vec<u8> {
    let (header, mut rest) = UPSTREAM.split_at(24);
    let mut out = header.to_vec();
    let mut i = 0;
    while rest.len() >= 16 {
        let caplen = u32::from_le_bytes(rest[8..12].try_into().unwrap()) as usize;
        let (record, tail) = rest.split_at(16 + caplen);
        rest = tail;
        i += 1;
        if i % drop == 0 {
            continue;
        }
        let mut head = record[..16].to_vec();
        let (sec, usec) =
            (u32::from_le_bytes(head[0..4].try_into().unwrap()), u32::from_le_bytes(head[4..8].try_into().unwrap()));
        let usec = usec + delay_us(i);
        head[0..4].copy_from_slice(&(sec + usec / 1_000_000).to_le_bytes());
        head[4..8].copy_from_slice(&(usec % 1_000_000).to_le_bytes());
        out.extend(head);
        out.extend(&record[16..]);
    }
    out
}

#[test]
fn delays_between_two_points_per_packet() {
    let up = index(Cursor::new(UPSTREAM.to_vec())).unwrap();
    assert_eq!(up.len(), 708, "every packet of the capture is distinct");
    // 3 to 7 µs of delay, one packet in ten lost on the way.
    let down = downstream(|i| 3 + (i % 5) as u32, 10);
    let h = hop(&up, Cursor::new(down)).unwrap();
    assert_eq!((h.matched, h.unmatched, h.negative), (708 - 70, 0, 0));
    assert_eq!((h.latency_ns.min(), h.latency_ns.max()), (Some(3_000), Some(7_000)));
    let kept: Vec<u64> = (1..=708u64).filter(|i| i % 10 != 0).map(|i| 3_000 + (i % 5) * 1_000).collect();
    assert_eq!(h.mean_ns(), Some(kept.iter().sum::<u64>() / kept.len() as u64));
    let p99 = h.latency_ns.quantile(0.99).unwrap();
    assert!((7_000..=7_000 + 7_000 / 16).contains(&p99), "{p99}");
}

#[test]
fn a_downstream_clock_behind_is_counted_not_averaged() {
    let up = index(Cursor::new(UPSTREAM.to_vec())).unwrap();
    // The same capture as downstream: every delay 0; then a capture with no packet in common.
    let same = hop(&up, Cursor::new(UPSTREAM.to_vec())).unwrap();
    assert_eq!((same.matched, same.negative, same.mean_ns()), (708, 0, Some(0)));
    let other = include_bytes!("../../crates/flows/tests/fixtures/pcap/rc-send-imm-srcport69-misdissect-oferby.pcap");
    let h = hop(&up, Cursor::new(other.to_vec())).unwrap();
    assert_eq!((h.matched, h.unmatched), (0, 105));
    assert_eq!(h.mean_ns(), None);
}

/// Two capture points 60 to 64 µs apart, past the built-in policy's 50 µs: the hop's latency on
/// the terminal and `flow.hop_latency` on the downstream point.
#[test]
fn flows_at_two_points_give_the_hops_latency_and_its_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let (up, down) = (dir.path().join("leaf1.pcap"), dir.path().join("spine1.pcap"));
    std::fs::write(&up, UPSTREAM).unwrap();
    std::fs::write(&down, downstream(|i| 60 + (i % 5) as u32, 1_000)).unwrap();
    let records = dir.path().join("flows.jsonl");
    let run = fabcheck(&[
        "flows",
        "--at",
        &format!("leaf1={}", up.display()),
        "--at",
        &format!("spine1={}", down.display()),
        "--records",
        records.to_str().unwrap(),
    ]);
    assert!(
        run.stdout.contains("hop leaf1 → spine1: 708 packets matched, 0 not seen upstream, 0 arriving before they left (clocks apart); latency min 60.0 µs"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("warning   flow.hop_latency"), "{}", run.stdout);
    // The capture's 32 DSCP findings (16 flows, each way) once, not once per point, and the hop's.
    assert!(run.stdout.contains("\n33 flow findings"), "{}", run.stdout);
    // Both points' flows are recorded, each with its point.
    let text = std::fs::read_to_string(&records).unwrap();
    assert!(text.contains("\"point\":\"leaf1\"") && text.contains("\"point\":\"spine1\""));
    let bad = fabcheck(&["flows", "--at", "leaf1"]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(bad.stderr.contains("expected POINT=FILE"), "{}", bad.stderr);
}

/// A real ConnectX capture (one host marks DSCP 26, its peer nothing) with its two addresses
/// rewritten to the lab's gpu001 and gpu002 first rails (the IP checksums are not recomputed;
/// fabcheck does not read them): `audit --flows` places the flow findings on the hosts' ports and
/// names what the audit found on the flow's way, here the leaf port toward gpu002 with PFC off.
#[test]
fn audit_with_flows_joins_each_flow_finding_with_its_path() {
    let real =
        include_bytes!("../../crates/flows/tests/fixtures/pcap/cx-mlx5-rc-send-write-ack-dscp26-ect0-magnate3.pcap");
    let mut bytes = real.to_vec();
    for (from, to) in [([172, 17, 242, 47], [10, 100, 0, 1]), ([172, 17, 242, 56], [10, 100, 0, 2])] {
        let mut at = 0;
        while let Some(i) = bytes[at..].windows(4).position(|w| w == from) {
            bytes[at + i..at + i + 4].copy_from_slice(&to);
            at += i + 4;
        }
    }
    let lab = crate::util::start_fabric(4, 2, 2, &["leaf1=pfc-off@Ethernet8"]);
    let capture = lab.dir.path().join("gpu001-gpu002.pcap");
    std::fs::write(&capture, bytes).unwrap();
    let run = crate::util::audit(&lab, &["--flows", capture.to_str().unwrap()]);
    let findings = run.findings();
    let flows: Vec<_> = findings.iter().filter(|f| f.code == "flow.dscp_mismatch").collect();
    assert_eq!(flows.len(), 2, "{}", run.stdout);
    let data = flows.iter().find(|f| f.severity == fabcheck_model::Severity::Error).unwrap();
    assert_eq!((data.device.as_str(), data.port.as_deref()), ("gpu001", Some("ens1np0")));
    assert!(data.caused_by.contains(&"switch.pfc_mismatch".to_string()), "{data:?}");
    assert!(data.message.contains("leaf1:Ethernet8 switch.pfc_mismatch"), "{}", data.message);
    assert_eq!(data.path.first().map(String::as_str), Some("gpu001:ens1np0"));
    assert_eq!(data.path.last().map(String::as_str), Some("gpu002:ens1np0"));
    assert!(run.out.join("flows.jsonl").exists());
}

/// Records written by one run, read back from a directory with a line that is not a record:
/// the same records and the same findings, the bad line named.
#[test]
fn flow_records_read_back_are_judged_as_the_capture_was() {
    let dir = tempfile::tempdir().unwrap();
    let capture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("crates/flows/tests/fixtures/pcap/cx-mlx5-rc-send-write-ack-dscp26-ect0-magnate3.pcap");
    let first = dir.path().join("first.jsonl");
    let live = fabcheck(&["flows", capture.to_str().unwrap(), "--records", first.to_str().unwrap()]);
    let drop = dir.path().join("collector");
    std::fs::create_dir(&drop).unwrap();
    let mut text = std::fs::read_to_string(&first).unwrap();
    text.push_str("{\"schema\": \"something else\"}\n");
    std::fs::write(drop.join("part1.jsonl"), &text).unwrap();
    let second = dir.path().join("second.jsonl");
    let again = fabcheck(&["flows", drop.to_str().unwrap(), "--records", second.to_str().unwrap()]);
    assert_eq!(again.code, live.code, "{}", again.stderr);
    assert!(again.stderr.contains("part1.jsonl:5: not an rdma-flow-record/1 line"), "{}", again.stderr);
    assert_eq!(std::fs::read_to_string(&second).unwrap(), std::fs::read_to_string(&first).unwrap());
    let findings = |run: &crate::util::Run| {
        run.stdout.lines().filter(|l| l.contains("flow.")).map(String::from).collect::<Vec<_>>()
    };
    assert_eq!(findings(&again), findings(&live));
    assert_eq!(findings(&live).len(), 2);
}

/// `audit --capture`: each host's RoCE ports captured over SSH with the inventory's
/// `fabcheck_capture_command` while the counters are sampled. The clean lab's flows pass; with
/// gpu002 dropping (PFC off, out_of_buffer growing) and gpu003's RoCE traffic on priority 0, the
/// flows say so and name the host findings that explain them.
#[test]
fn audit_with_capture_judges_the_hosts_own_traffic() {
    let clean = crate::util::start_lab(3, &[]);
    let run = crate::util::audit(&clean, &["--capture"]);
    assert_eq!(run.keys(), std::collections::BTreeSet::new(), "{}", run.stdout);
    let records = std::fs::read_to_string(run.out.join("flows.jsonl")).unwrap();
    // Three hosts, two RoCE rails each, a flow to each of the two other hosts and its ACKs back.
    assert_eq!(records.lines().count(), 3 * 2 * 2 * 2, "{records}");

    let lab = crate::util::start_lab(3, &["gpu002=pfc-off", "gpu002=out-of-buffer", "gpu003=roce-on-prio0"]);
    let run = crate::util::audit(&lab, &["--capture"]);
    let findings = run.findings();
    let flow_keys: std::collections::BTreeSet<_> = findings
        .iter()
        .filter(|f| f.code.starts_with("flow."))
        .map(|f| (f.code.as_str(), f.device.as_str(), f.port.as_deref()))
        .collect();
    let rail0 = Some("ens1np0");
    let want = std::collections::BTreeSet::from([
        ("flow.nak_rate", "gpu001", rail0),
        ("flow.retransmits", "gpu001", rail0),
        ("flow.nak_rate", "gpu002", rail0),
        ("flow.retransmits", "gpu002", rail0),
        ("flow.nak_rate", "gpu003", rail0),
        ("flow.retransmits", "gpu003", rail0),
        ("flow.dscp_mismatch", "gpu003", rail0),
        ("flow.dscp_mismatch", "gpu001", rail0),
        ("flow.dscp_mismatch", "gpu002", rail0),
    ]);
    assert_eq!(flow_keys, want, "{}", run.stdout);
    let nak = findings.iter().find(|f| f.code == "flow.nak_rate" && f.device == "gpu001").unwrap();
    assert!(nak.caused_by.contains(&"counter.out_of_buffer".to_string()), "{nak:?}");
    // gpu002 drops: every flow it sends breaks the limit, one finding names them all, by the GPUs
    // next to the ports (`nvidia-smi topo -m`: GPU0 sits behind mlx5_0's PCIe switch).
    let from_gpu002 = findings.iter().find(|f| f.code == "flow.nak_rate" && f.device == "gpu002").unwrap();
    assert!(
        from_gpu002.message.starts_with(
            "2 flows from gpu002:GPU0 (ens1np0) to gpu001:GPU0 (ens1np0), gpu003:GPU0 (ens1np0), the first "
        ),
        "{}",
        from_gpu002.message
    );
    assert!(nak.caused_by.contains(&"nic.pfc_mismatch".to_string()), "{nak:?}");
    let dscp = findings.iter().find(|f| f.code == "flow.dscp_mismatch" && f.device == "gpu003").unwrap();
    assert!(dscp.caused_by.contains(&"nic.roce_wrong_priority".to_string()), "{dscp:?}");
}

/// A capture command that fails (here tcpdump on an interface that does not exist) is a
/// `collect.command_failed` on that host's port, with tcpdump's message; the rest is judged.
#[test]
fn a_failing_capture_is_a_finding_on_the_port() {
    let lab = crate::util::start_lab(2, &[]);
    let inventory = lab.lab.inventory_path();
    let text = std::fs::read_to_string(&inventory).unwrap();
    std::fs::write(&inventory, text.replace("-i {netdev} ", "-i {netdev}x ")).unwrap();
    let run = crate::util::audit(&lab, &["--capture"]);
    let want: std::collections::BTreeSet<_> = ["gpu001", "gpu002"]
        .iter()
        .flat_map(|h| ["ens1np0", "ens2np0"].map(|p| crate::util::key("collect.command_failed", h, Some(p))))
        .collect();
    assert_eq!(run.keys(), want, "{}", run.stdout);
    let failed = run.findings().into_iter().find(|f| f.port.as_deref() == Some("ens1np0")).unwrap();
    assert!(failed.message.contains("-i ens1np0x") && failed.message.contains("No such device"), "{}", failed.message);
}

/// ECN thresholds too low on the leaf port toward gpu002 (`leaf1=ecn-threshold@Ethernet8`):
/// the captures of the hosts sending to gpu002 hold CE marks and gpu002's CNPs, judged
/// `flow.ecn_ce` on each sender's port with the leaf port's ECN finding as its cause.
#[test]
fn ecn_marks_on_a_leaf_port_show_in_the_senders_flows() {
    let lab = crate::util::start_fabric(3, 1, 1, &["leaf1=ecn-threshold@Ethernet8"]);
    let run = crate::util::audit(&lab, &["--capture"]);
    let findings = run.findings();
    let ce: std::collections::BTreeSet<_> = findings
        .iter()
        .filter(|f| f.code.starts_with("flow."))
        .map(|f| (f.code.as_str(), f.device.as_str(), f.port.as_deref()))
        .collect();
    let rail0 = Some("ens1np0");
    assert_eq!(
        ce,
        std::collections::BTreeSet::from([("flow.ecn_ce", "gpu001", rail0), ("flow.ecn_ce", "gpu003", rail0)]),
        "{}",
        run.stdout
    );
    for f in findings.iter().filter(|f| f.code == "flow.ecn_ce") {
        assert!(f.message.contains("leaf1:Ethernet8 switch.ecn_threshold"), "{}", f.message);
        assert_eq!(f.path.last().map(String::as_str), Some("gpu002:ens1np0"), "{f:?}");
    }
}

/// Hop latency from the lab's topology: gpu001 and gpu003 sit on different leaves, so what
/// gpu001 sends reaches gpu003 through leaf, spine and leaf (4 cables at 25 ns, 3 switches at
/// 600 ns, and the 40 KiB standing queue of gpu003's leaf port at 400 Gb/s: 2,719 ns). Both
/// hosts' captures, taken over SSH with the lab's tcpdump, give that latency through
/// `fabcheck flows --at`; what gpu003 sends back arrives at gpu001 "before it left" gpu003 in
/// path order, and is counted as such, never averaged.
#[test]
fn two_hosts_captures_give_the_fabrics_latency() {
    let lab = crate::util::start_fabric(4, 2, 1, &[]);
    let dir = tempfile::tempdir().unwrap();
    let mut points = Vec::new();
    for (host, name) in [(0, "gpu001"), (2, "gpu003")] {
        let out = fabcheck_lab::shell::exec_on(
            &lab.lab.fabric(),
            host,
            "timeout 10 tcpdump -U -i ens1np0 --time-stamp-precision nano -w - -c 3000 -s 128 udp dst port 4791",
            std::time::Duration::ZERO,
        );
        let file = dir.path().join(format!("{name}.pcap"));
        std::fs::write(&file, out.binary.expect("a capture")).unwrap();
        points.push(format!("{name}={}", file.display()));
    }
    let records = dir.path().join("flows.jsonl");
    let run = fabcheck(&["flows", "--at", &points[0], "--at", &points[1], "--records", records.to_str().unwrap()]);
    let hop =
        run.stdout.lines().find(|l| l.starts_with("hop gpu001 → gpu003:")).unwrap_or_else(|| panic!("{}", run.stdout));
    assert!(hop.contains("latency min 2.7 µs"), "{hop}");
    assert!(hop.contains("max 2.7 µs"), "{hop}");
    assert!(!hop.contains(" 0 arriving before they left"), "gpu003's own packets: {hop}");
}

/// Issue 34: a pcapng block of length 0 put 196 KB on stderr (pcap-parser's error prints the
/// buffer it holds); `fabcheck flows` names the file, the offset and what is wrong in one short
/// line, and with no other input exits 2.
#[test]
fn r34_a_malformed_pcapng_block_is_one_short_line_on_stderr() {
    // A little-endian section header, one Ethernet interface, then a packet block of length 0
    // followed by 200 KB that a reader must not print.
    const HEAD: &[u8] =
        b"\x0a\x0d\x0d\x0a\x1c\0\0\0\x4d\x3c\x2b\x1a\x01\0\0\0\xff\xff\xff\xff\xff\xff\xff\xff\x1c\0\0\0\
                          \x01\0\0\0\x14\0\0\0\x01\0\0\0\0\0\0\0\x14\0\0\0\
                          \x06\0\0\0\0\0\0\0";
    let dir = tempfile::tempdir().unwrap();
    let capture = dir.path().join("zero.pcapng");
    let mut bytes = HEAD.to_vec();
    bytes.extend((0..200_000u32).map(|i| (i % 251) as u8));
    std::fs::write(&capture, bytes).unwrap();
    let records = dir.path().join("r.jsonl");
    let run = fabcheck(&["flows", capture.to_str().unwrap(), "--records", records.to_str().unwrap()]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    let said = format!(
        "fabcheck: error: {}: unreadable block at byte 48: a malformed pcapng block (type 0x6, length 0: shorter than the 12 bytes of a block's frame)",
        capture.display()
    );
    assert!(run.stderr.lines().any(|l| l == said), "{}", run.stderr);
    assert!(run.stderr.len() < 1024, "{} bytes on stderr", run.stderr.len());
}

/// Issue 34: JSON Lines of which no line is a record were read as an input of no flows (exit 0);
/// they are an input that cannot be read, named with the first bad line, and with no other
/// input the exit status is 2. A file with some records still reads, its bad lines named.
#[test]
fn r34_flow_records_of_which_no_line_is_one_cannot_be_read() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"not\": \"a record\"}\n\n{\"schema\": \"other/1\"}\n").unwrap();
    let records = dir.path().join("r.jsonl");
    let run = fabcheck(&["flows", bad.to_str().unwrap(), "--records", records.to_str().unwrap()]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    let said = format!(
        "fabcheck: error: {}: none of its 2 lines is an rdma-flow-record/1 record (line 1: no `schema` (expected rdma-flow-record/1))",
        bad.display()
    );
    assert!(run.stderr.lines().any(|l| l == said), "{}", run.stderr);
    assert!(run.stderr.contains("no input could be read"), "{}", run.stderr);
}

/// Issue 34: an `audit --flows` input that could not be read was said on stderr only, so the
/// reports judged the flows as if it held none. Each such input (no capture, missing, JSON Lines
/// without a record) is now a `collect.parse_error` finding on the file, in findings.json and
/// report.html, and the audit of the (clean) lab goes on.
#[test]
fn r34_an_unreadable_flows_input_is_a_finding_in_the_reports() {
    let lab = crate::util::start_lab(1, &[]);
    let junk = lab.dir.path().join("junk.pcap");
    std::fs::write(&junk, "not a capture").unwrap();
    let missing = lab.dir.path().join("missing.pcap");
    let bad = lab.dir.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"schema\": \"other/1\"}\n").unwrap();
    let paths = [junk.display().to_string(), missing.display().to_string(), bad.display().to_string()];
    let run = crate::util::audit(&lab, &["--flows", &paths[0], &paths[1], &paths[2]]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let want: std::collections::BTreeSet<_> =
        paths.iter().map(|p| ("collect.parse_error".to_string(), p.clone(), None)).collect();
    assert_eq!(run.keys(), want, "{}", run.stdout);
    let findings = run.findings();
    let on_junk = findings.iter().find(|f| f.device == paths[0]).unwrap();
    assert_eq!(
        on_junk.message,
        format!(
            "{}: not a pcap or pcapng capture: Header not recognized as PCAP or PCAPNG: its flows are not judged",
            paths[0]
        )
    );
    let html = std::fs::read_to_string(run.out.join("report.html")).unwrap();
    assert!(html.contains("missing.pcap") && html.contains("bad.jsonl") && html.contains("junk.pcap"));
}
