//! `ethtool -S IF` on the real samples in tests/fixtures/ethtool_stats (see SOURCES.md there).

use fabcheck_parse::linux::ethtool_stats::{EthtoolStats, parse};

fn clean(name: &str) -> EthtoolStats {
    let path = format!("{}/tests/fixtures/ethtool_stats/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let parsed = parse(&text).unwrap();
    assert_eq!(parsed.warnings, vec![], "{name}");
    parsed.value
}

#[test]
fn cx4lx_fw14_23_full_dump_without_indentation() {
    let s = clean("cx4lx-fw14.23-mlx5-ubuntu1804-k4.15-ethtool-S-ethq-fixture-noindent.txt");
    let c = &s.counters;
    assert_eq!(c.len(), 751);
    assert_eq!(c["rx_packets"], 845320277);
    assert_eq!(c["tx_bytes"], 2655285206479);
    assert_eq!(c["rx_out_of_buffer"], 0);
    assert_eq!(c["rx_discards_phy"], 0);
    assert_eq!(c["rx_prio0_bytes"], 2202570777997);
    assert_eq!(c["rx_prio0_packets"], 845715962);
    assert_eq!(c["rx_prio3_bytes"], 0);
    assert_eq!(c["tx15_xmit_more"], 5530);
    // This driver version prints no per-priority pause counters.
    assert!(!c.contains_key("rx_prio3_pause"));
}

#[test]
fn cx4lx_ubuntu1604_old_counter_names_indented() {
    let s = clean("cx4lx-mlx5-ubuntu1604-ethtool-S-ethq-fixture-v1.txt");
    let c = &s.counters;
    assert_eq!(c.len(), 309);
    assert_eq!(c["rx_packets"], 5487361);
    assert_eq!(c["rx_bytes"], 1063043816);
    assert_eq!(c["tx_bytes"], 5813725708);
    assert_eq!(c["pause_ctrl_rx"], 0);
    assert_eq!(c["tx15_0_nop"], 7392);
}

#[test]
fn grep_prio_excerpt_all_traffic_on_prio0() {
    let s = clean("mlx5-enp178s0f0-grep-prio-all-traffic-on-prio0-byteps-179-2to1.txt");
    let c = &s.counters;
    assert_eq!(c.len(), 32);
    assert_eq!(c["rx_prio0_bytes"], 88178050405854);
    assert_eq!(c["rx_prio0_packets"], 420006709813);
    assert_eq!(c["tx_prio0_bytes"], 14056302074308);
    assert_eq!(c["tx_prio0_packets"], 40316741528);
    assert_eq!(c["rx_prio3_bytes"], 0);
    assert_eq!(c["tx_prio7_packets"], 0);
}
