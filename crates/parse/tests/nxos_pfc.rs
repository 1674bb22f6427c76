//! `nxos_pfc` (Cisco NX-OS `show interface priority-flow-control`) on the real sample in
//! tests/fixtures/nxos_pfc (see SOURCES.md there: a Nexus 5000 whose FCoE ports have PFC off
//! after a failed DCBX negotiation).
use fabcheck_parse::nxos::convert::{apply_pfc, pfc_counters};
use fabcheck_parse::nxos::pfc::parse;
use fabcheck_parse::switch::SwitchQos;

const SAMPLE: &str =
    include_str!("fixtures/nxos_pfc/nexus5k-show-interface-priority-flow-control-keepingitclassless-PARTIAL.txt");

#[test]
fn nexus_5k_ports_with_pfc_negotiated_off() {
    let parsed = parse(SAMPLE).expect("parses");
    // The prompt line is skipped; the last line has no line end but is whole.
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let p = &parsed.value.ports;
    let rows: Vec<(&str, &str, bool, u64, u64)> =
        p.iter().map(|p| (p.name.as_str(), p.mode.as_str(), p.oper_on, p.rx_frames, p.tx_frames)).collect();
    assert_eq!(
        rows,
        [
            ("Ethernet1/47", "Auto", false, 7316, 762_946),
            ("Ethernet1/48", "Auto", false, 7428, 761_362),
            ("Ethernet4/15", "Auto", false, 0, 0),
            ("Ethernet4/16", "Auto", false, 0, 0),
        ]
    );
    assert!(p.iter().all(|p| p.priorities.is_empty() && p.vl_bitmap.is_none()));
}

#[test]
fn pfc_off_is_lossless_on_no_priority_and_its_frames_have_no_priority() {
    let pfc = parse(SAMPLE).expect("parses").value;
    let mut model = SwitchQos::default();
    apply_pfc(&mut model, &pfc);
    assert_eq!(model.ports["Ethernet1/47"].lossless_priorities, Some(vec![]), "`Auto Off`: DCBX left PFC off");
    let c = pfc_counters(&pfc);
    assert_eq!(c.ports.len(), 4);
    assert!(c.ports["Ethernet1/47"].pfc_rx.is_empty(), "7316 frames, but PFC runs on no priority to give them to");
}

#[test]
fn one_operational_priority_takes_the_ports_frames() {
    let text = "Port               Mode Oper(VL bmap)  RxPPP      TxPPP\nEthernet1/1        On   On  (8)       4885       3709920\nEthernet1/2        Auto On  (18)      3          4\n";
    let pfc = parse(text).expect("parses").value;
    let mut model = SwitchQos::default();
    apply_pfc(&mut model, &pfc);
    assert_eq!(model.ports["Ethernet1/1"].lossless_priorities, Some(vec![3]));
    assert_eq!(model.ports["Ethernet1/2"].lossless_priorities, Some(vec![3, 4]));
    let c = pfc_counters(&pfc);
    assert_eq!((c.ports["Ethernet1/1"].pfc_rx[&3], c.ports["Ethernet1/1"].pfc_tx[&3]), (4885, 3_709_920));
    assert!(c.ports["Ethernet1/2"].pfc_rx.is_empty(), "two priorities: the split is not printed");
    let json = fabcheck_parse::parse_to_json("nxos_pfc", text).expect("known").expect("parses").value;
    assert_eq!(json["model"]["counters"]["ports"]["Ethernet1/1"]["pfc_tx"]["3"], 3_709_920);
    assert_eq!(json["model"]["qos"]["ports"]["Ethernet1/2"]["lossless_priorities"], serde_json::json!([3, 4]));
}
