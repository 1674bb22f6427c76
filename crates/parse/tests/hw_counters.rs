//! RDMA port counters on the real samples in tests/fixtures/hw_counters (see SOURCES.md there).

use fabcheck_parse::linux::hw_counters::parse;

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/hw_counters/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn show_counters_crlf_with_echoed_command_fault_counters() {
    let parsed =
        parse(&fixture("show_counters-mlx5_1-hw-counters-out_of_sequence-resp_cqe_error-magnate3.txt")).unwrap();
    assert_eq!(parsed.warnings, vec![]);
    let ports = parsed.value.ports;
    assert_eq!(ports.len(), 1);
    let p = &ports[0];
    assert_eq!((p.hca.as_str(), p.port), ("mlx5_1", 1));
    let c = &p.counters;
    assert_eq!(c.len(), 30);
    assert_eq!(c["out_of_sequence"], 132614);
    assert_eq!(c["resp_cqe_error"], 15360);
    assert_eq!(c["resp_cqe_flush_error"], 15353);
    assert_eq!(c["duplicate_request"], 2);
    assert_eq!(c["np_cnp_sent"], 10);
    assert_eq!(c["rp_cnp_handled"], 12);
    assert_eq!(c["roce_slow_restart_cnps"], 12);
    assert_eq!(c["out_of_buffer"], 0);
    assert_eq!(c["rx_icrc_encapsulated"], 76048016);
    assert_eq!(c["rx_write_requests"], 805950);
}

#[test]
fn sysfs_grep_excerpt_cut_mid_line() {
    let parsed =
        parse(&fixture("mlx5_0-hw_counters-grep-format-local_ack_timeout-np_cnp_sent-byteps-179-PARTIAL.txt")).unwrap();
    // The seventh line is cut after "/sys/class/infiniban": reported, not parsed.
    assert_eq!(parsed.warnings.len(), 1);
    assert_eq!(parsed.warnings[0].line, 7);
    let ports = parsed.value.ports;
    assert_eq!(ports.len(), 1);
    assert_eq!((ports[0].hca.as_str(), ports[0].port), ("mlx5_0", 1));
    let c = &ports[0].counters;
    assert_eq!(c.len(), 6);
    assert_eq!(c["local_ack_timeout_err"], 2705);
    assert_eq!(c["np_cnp_sent"], 1333);
    assert_eq!(c["np_ecn_marked_roce_packets"], 0);
    assert_eq!(c["lifespan"], 12);
}

/// Turns the ttar archive's `Path:`/`Lines: 1`/value records under `ports/` into the
/// `grep -H '' ...` lines the collector produces for the same files.
fn ttar_to_grep_lines(ttar: &str) -> String {
    let mut out = String::new();
    let mut lines = ttar.lines();
    while let Some(line) = lines.next() {
        let Some(path) = line.strip_prefix("Path: fixtures") else {
            continue;
        };
        if lines.next() != Some("Lines: 1") || !(path.contains("/counters/") || path.contains("/hw_counters/")) {
            continue;
        }
        let value = lines.next().unwrap_or_default();
        out.push_str(&format!("{path}:{value}\n"));
    }
    out
}

#[test]
fn procfs_ttar_sysfs_tree_counters_and_hw_counters() {
    let text = ttar_to_grep_lines(&fixture("procfs-fixture-mlx5_0-cx4lx-fw14.28-sysfs-counters-hw_counters.ttar"));
    assert_eq!(text.lines().count(), 46);
    let parsed = parse(&text).unwrap();
    assert_eq!(parsed.warnings, vec![]);
    let ports = parsed.value.ports;
    assert_eq!(ports.len(), 1);
    let c = &ports[0].counters;
    assert_eq!(c.len(), 46);
    assert_eq!(c["local_ack_timeout_err"], 131);
    assert_eq!(c["req_cqe_error"], 3481);
    assert_eq!(c["resp_cqe_error"], 8109);
    assert_eq!(c["roce_adp_retrans"], 99);
    assert_eq!(c["roce_slow_restart_cnps"], 131);
    assert_eq!(c["out_of_sequence"], 1);
    assert_eq!(c["packet_seq_err"], 1);
    assert_eq!(c["port_rcv_data"], 18126345378);
    assert_eq!(c["port_xmit_data"], 2880761508848);
    assert_eq!(c["rx_read_requests"], 175528982);
    assert!(!c.contains_key("np_cnp_sent"));
}
