//! `perfquery` on the real samples in tests/fixtures/perfquery (see SOURCES.md there).
use fabcheck_parse::linux::perfquery::parse;

#[test]
fn extended_counters_all_zero() {
    let text = include_str!("fixtures/perfquery/perfquery-x-rhel75-zero-counters-infiniband-diags-16.txt");
    let parsed = parse(text).expect("parses");
    let v = &parsed.value;
    assert_eq!((v.lid, v.port, v.cap_mask.as_deref()), (Some(10), Some(1), Some("0x5300")));
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
