//! `eos_pfc_counters` (`show priority-flow-control counters [detail]`). No capture of this
//! command has been published that we could find, so there is no fixture: these inputs are
//! written from the documented column names and from the eAPI JSON shape that published health
//! checks consume (`interfaces` → `priorities` → `rxFrames`/`txFrames`).
use fabcheck_parse::eos::convert::to_counters;
use fabcheck_parse::eos::pfc_counters::parse;

#[test]
fn per_interface_blocks_and_summary_rows() {
    let text = "leaf1#show priority-flow-control counters detail\nEthernet1/1\n   Priority   RxPfc   TxPfc\n   3          7       0\n   4          0       0\nEthernet1/2\n   Priority   RxPfc   TxPfc\n   3          0       120\n";
    let parsed = parse(text).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let c = to_counters(&parsed.value);
    assert_eq!((c.ports["Ethernet1/1"].pfc_rx[&3], c.ports["Ethernet1/1"].pfc_tx[&3]), (7, 0));
    assert_eq!(c.ports["Ethernet1/2"].pfc_tx[&3], 120);
    let summary = parse("Port        RxPfc      TxPfc\nEt1         5          9\n").expect("parses").value;
    assert_eq!((summary.ports[0].rx_total, summary.ports[0].tx_total), (Some(5), Some(9)));
    assert!(to_counters(&summary).ports["Ethernet1"].pfc_rx.is_empty(), "totals have no priority");
}

#[test]
fn json_detail() {
    let text = r#"{"interfaces": {"Ethernet3/1": {"priorities": {"3": {"rxFrames": 11, "txFrames": 4051}, "4": {"rxFrames": 0, "txFrames": 0}, "9": {"rxFrames": 1}}}}}"#;
    let parsed = parse(text).expect("parses");
    assert_eq!(parsed.warnings.len(), 1, "priority 9 is not a priority");
    let c = to_counters(&parsed.value);
    let p = &c.ports["Ethernet3/1"];
    assert_eq!((p.pfc_rx[&3], p.pfc_tx[&3], p.pfc_tx[&4]), (11, 4051, 0));
    let json = fabcheck_parse::parse_to_json("eos_pfc_counters", text).expect("known").expect("parses").value;
    assert_eq!(json["model"]["ports"]["Ethernet3/1"]["pfc_tx"]["3"], 4051);
}
