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

/// PFC frames of the NIC of each driver under the canonical names the policy's rules use.
fn pause_frames(s: &EthtoolStats) -> Vec<(String, u64)> {
    let mut pauses: Vec<(String, u64)> = s
        .counters
        .iter()
        .filter_map(|(name, v)| Some((fabcheck_model::counters::canonical(name)?, *v)))
        .filter(|(name, _)| name.starts_with("pause_"))
        .collect();
    pauses.sort();
    pauses
}

#[test]
fn broadcom_bnxt_en_per_ring_counters_and_pfc_frames() {
    let s = clean("bnxt_en-ethtool-S-ethq-fixture.txt");
    let c = &s.counters;
    assert_eq!(c.len(), 499);
    assert_eq!(c["[0]: rx_ucast_packets"], 10_198_513_532);
    assert_eq!(c["[0]: rx_discards"], 11_763_190);
    assert_eq!(c["rx_total_ring_discards"], 655_430_134);
    assert_eq!(c["rx_stat_discard"], 49_337);
    let pauses = pause_frames(&s);
    assert_eq!(pauses.len(), 16, "rx and tx, 8 priorities: {pauses:?}");
    assert!(pauses.contains(&("pause_rx3".to_string(), 0)) && pauses.contains(&("pause_tx7".to_string(), 0)));
}

#[test]
fn intel_ice_e810_counters_and_pfc_frames() {
    let s = clean("ice-e810-ethtool-S-ethq-fixture.txt");
    let c = &s.counters;
    assert_eq!(c.len(), 602);
    assert_eq!(c["rx_bytes.nic"], 848_255_752);
    assert_eq!(c["rx_dropped.nic"], 0);
    let pauses = pause_frames(&s);
    assert_eq!(pauses.len(), 16, "XOFF frames, rx and tx, 8 priorities (XON ones are not pauses): {pauses:?}");
    assert!(pauses.contains(&("pause_tx3".to_string(), 0)));
}
