//! `perfquery` on the real samples in tests/fixtures/perfquery (see SOURCES.md there).
use fabcheck_parse::linux::perfquery::parse;

#[test]
fn extended_counters_all_zero() {
    let text = include_str!("fixtures/perfquery/perfquery-x-rhel75-zero-counters-infiniband-diags-16.txt");
    let parsed = parse(text).expect("parses");
    let v = &parsed.value;
    assert_eq!((v.lid, v.port, v.cap_mask.as_deref()), (Some(10), Some(1), Some("0x5300")));
    assert_eq!(v.cap_mask2.as_deref(), Some("0x0000002"));
    assert_eq!(v.counters.len(), 22);
    assert!(v.counters.values().all(|&c| c == 0));
    for name in ["PortXmitWait", "SymbolErrorCounter", "LinkDownedCounter", "QP1Dropped", "VL15Dropped"] {
        assert_eq!(v.counters.get(name), Some(&0), "{name}");
    }
    // Selectors are not counters.
    assert!(!v.counters.contains_key("CounterSelect") && !v.counters.contains_key("PortSelect"));
    // `# perfquery -x 10 1`.
    assert_eq!(parsed.warnings.iter().map(|w| w.line).collect::<Vec<_>>(), [1]);
}

#[test]
fn wrapped_header_and_cut_counter() {
    let text = include_str!("fixtures/perfquery/perfquery-e-x-lid21-netdata-2620-PARTIAL.txt");
    let parsed = parse(text).expect("parses");
    let v = &parsed.value;
    assert_eq!((v.lid, v.port, v.cap_mask.as_deref()), (Some(21), Some(1), Some("0x1600")));
    assert_eq!(v.counters.get("PortXmitData"), Some(&13_672_645_927));
    assert_eq!(v.counters.get("PortRcvData"), Some(&2_341_975_277_576));
    assert_eq!(v.counters.get("PortRcvPkts"), Some(&2_467_501_178));
    assert_eq!(v.counters.get("PortUnicastXmitPkts"), Some(&1_352_112_493));
    assert_eq!(v.counters.get("PortMulticastRcvPkts"), Some(&6779));
    assert_eq!(v.counters.get("ExcessiveBufferOverrunErrors"), Some(&0));
    assert_eq!(v.counters.len(), 19);
    assert!(!v.counters.contains_key("VL15Dropped"));
    // The wrapped `0x0000000)` line is understood; only the cut `VL15Dro` line is warned about.
    assert!(parsed.warnings.iter().all(|w| w.line == 25), "{:?}", parsed.warnings);
    assert!(parsed.warnings[0].message.contains("VL15Dro"));
}

#[test]
fn a_switch_port_with_errors() {
    let text = include_str!("fixtures/perfquery/switch-lid2052-xmitdiscards-linkdowned-infiniband-exporter.txt");
    let parsed = parse(text).expect("parses");
    let v = &parsed.value;
    assert_eq!((v.lid, v.port, v.cap_mask.as_deref()), (Some(2052), Some(1), Some("0x5300")));
    let counter = |name: &str| v.counters.get(name).copied();
    assert_eq!(counter("LinkDownedCounter"), Some(1));
    assert_eq!(counter("PortRcvSwitchRelayErrors"), Some(7));
    assert_eq!(counter("PortXmitDiscards"), Some(20046));
    assert_eq!(counter("PortXmitWait"), Some(41_864_608));
    assert_eq!(counter("PortXmitData"), Some(178_791_657_177_235));
    assert_eq!(counter("PortMulticastRcvPkts"), Some(6_694_940));
    assert_eq!(v.counters.len(), 22);
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
}

/// Two ports' blocks in one output (an exporter's loop over ports): the first port's counters
/// are read, never mixed with the second's, and the second block is warned about by name.
#[test]
fn a_second_port_block_is_not_mixed_in_and_is_named() {
    let text = include_str!("fixtures/perfquery/hca-lid1719-2port-loop-xmitwait-infiniband-exporter.txt");
    let parsed = parse(text).expect("parses");
    let v = &parsed.value;
    assert_eq!((v.lid, v.port), (Some(1719), Some(1)));
    assert_eq!(v.counters.get("PortXmitWait"), Some(&22_730_501));
    assert_eq!(v.counters.get("PortXmitData"), Some(&36_298_026_860_928));
    assert_eq!(v.counters.len(), 22);
    assert_eq!(parsed.warnings.len(), 1, "{:?}", parsed.warnings);
    assert_eq!(parsed.warnings[0].line, 27);
    assert!(parsed.warnings[0].message.contains("Lid 1719 port 2") && parsed.warnings[0].message.contains("port 1's"));
}

#[test]
fn receive_error_details_are_another_table() {
    // `perfquery -E`: its six counters are no port counters, so the output is refused.
    let text = include_str!("fixtures/perfquery/perfquery-E-rcv-error-details-lid1719-port2-infiniband-exporter.txt");
    let e = parse(text).expect_err("not perfquery -x");
    assert_eq!(e.line, 1);
    assert!(e.message.starts_with("`# PortRcvErrorDetails counters` is another perfquery table"), "{}", e.message);
}
