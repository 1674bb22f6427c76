//! `sonic_pfc_counters` (`show pfc counters`) on every sample in tests/fixtures/sonic_pfc_counters
//! (see SOURCES.md there).
use fabcheck_parse::sonic::convert::add_pfc_counters;
use fabcheck_parse::sonic::pfc_counters::parse;
use fabcheck_parse::switch::SwitchCounters;
use std::collections::BTreeMap;

fn prios(values: [u64; 8]) -> BTreeMap<u8, u64> {
    (0..8).zip(values).collect()
}

/// sonic-buildimage#5540: the counters read zero although the SDK counted 1234 PFC frames on
/// priority 3. The capture is cut in the Ethernet8 row, which is skipped.
#[test]
fn mellanox_pfcstat_all_zero_cut_mid_row() {
    let text =
        include_str!("fixtures/sonic_pfc_counters/sonic-mlnx-pfcstat-zero-despite-rx-pause-issue-5540-PARTIAL.txt");
    let parsed = parse(text).expect("parses");
    let v = &parsed.value;
    assert_eq!(v.last_cached.as_deref(), Some("2020-10-01 13:15:55.420247"));
    assert_eq!(v.ports.keys().collect::<Vec<_>>(), ["Ethernet0", "Ethernet4"]);
    for p in v.ports.values() {
        assert_eq!(p.rx, prios([0; 8]));
        assert!(p.tx.is_empty(), "the Tx table was not captured");
    }
    let w: Vec<(usize, bool)> = parsed.warnings.iter().map(|w| (w.line, w.message.contains("no line end"))).collect();
    assert_eq!(w, [(7, true)], "the `# pfcstat` prompt is not a warning");
}

#[test]
fn rx_and_tx_with_thousands_separators() {
    let text = include_str!("fixtures/sonic_pfc_counters/show-pfc-counters-sonic-utilities-pfcstat-test.txt");
    let parsed = parse(text).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let v = &parsed.value;
    assert_eq!(v.last_cached, None);
    assert_eq!(v.ports.len(), 3);
    assert_eq!(v.ports["Ethernet0"].rx, prios([1200, 201, 202, 203, 204, 205, 206, 207]));
    assert_eq!(v.ports["Ethernet0"].tx, prios([1210, 211, 212, 213, 214, 215, 216, 217]));
    assert_eq!(v.ports["Ethernet8"].rx[&3], 803);
    assert_eq!(v.ports["Ethernet8"].tx[&0], 1810);
}

#[test]
fn backplane_ports_and_not_available_counters() {
    let text =
        include_str!("fixtures/sonic_pfc_counters/show-pfc-counters-all-backplane-na-sonic-utilities-pfcstat-test.txt");
    let parsed = parse(text).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let v = &parsed.value;
    assert_eq!(v.ports.len(), 6);
    assert_eq!(v.ports["Ethernet-BP4"].rx, prios([1800, 801, 802, 803, 804, 805, 806, 807]));
    assert_eq!(v.ports["Ethernet-BP0"].tx[&7], 617);
    let na = &v.ports["Ethernet-BP260"];
    assert!(na.rx.is_empty() && na.tx.is_empty(), "N/A is no value, not zero");
}

#[test]
fn model_counters_per_port_and_priority() {
    let text = include_str!("fixtures/sonic_pfc_counters/show-pfc-counters-sonic-utilities-pfcstat-test.txt");
    let mut counters = SwitchCounters::default();
    add_pfc_counters(&mut counters, &parse(text).expect("parses").value);
    let p = &counters.ports["Ethernet4"];
    assert_eq!((p.pfc_rx[&3], p.pfc_tx[&3], p.pfc_rx[&0]), (403, 413, 1400));
    let json = fabcheck_parse::parse_to_json("sonic_pfc_counters", text).expect("known source").expect("parses").value;
    assert_eq!(json["ports"]["Ethernet4"]["pfc_rx"]["3"], 403);
    assert_eq!(json["ports"]["Ethernet4"]["pfc_tx"]["0"], 1410);
}

/// Two near misses of saved outputs: each error says what the output is instead of "not show
/// pfc counters output".
#[test]
fn grep_filtered_and_history_outputs_are_named() {
    let grepped = include_str!(
        "fixtures/sonic_pfc_counters/sonic-202405-dnx-show-pfc-count-grep-no-dashes-issue-20590-PARTIAL.txt"
    );
    let e = parse(grepped).expect_err("no dash line");
    assert_eq!(e.line, 1);
    assert!(e.message.contains("without the dash line under it (filtered through grep?)"), "{}", e.message);
    let history = include_str!("fixtures/sonic_pfc_counters/show-pfc-counters-history-sonic-utilities-test.txt");
    let e = parse(history).expect_err("another table");
    assert!(e.message.contains("`show pfc counters --history` output"), "{}", e.message);
}
