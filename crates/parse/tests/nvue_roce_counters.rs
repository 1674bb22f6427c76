//! `nv show interface IF qos roce counters` on every real sample in
//! tests/fixtures/nvue_roce_counters (see SOURCES.md there).
use fabcheck_parse::nvue::convert::{RoceClasses, counters_to_port};
use fabcheck_parse::nvue::roce_counters::parse;

const SAMPLE: &str =
    include_str!("fixtures/nvue_roce_counters/cumulus-5.12-nv-show-interface-qos-roce-counters-docs.txt");

#[test]
fn cumulus_512_docs_swp16_discarding_roce() {
    let parsed = parse(SAMPLE).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let c = &parsed.value;
    assert_eq!(c.interface.as_deref(), Some("swp16"));
    assert_eq!(c.counters.len(), 33);
    let get = |k: &str| c.counters.get(k).copied();
    assert_eq!(get("rx-stats.rx-non-roce-stats.no-buffer-discard"), Some(55));
    assert_eq!(get("rx-stats.rx-non-roce-stats.buffer-max-usage"), Some(144));
    assert_eq!(get("rx-stats.rx-non-roce-stats.non-roce-bytes"), Some(59_265_516));
    assert_eq!(get("rx-stats.rx-non-roce-stats.non-roce-packets"), Some(462_975));
    assert_eq!(get("rx-stats.rx-pfc-stats.pause-packets"), Some(0));
    assert_eq!(get("tx-stats.tx-cnp-stats.buffer-max-usage"), Some(16_798_188));
    assert_eq!(get("tx-stats.tx-ecn-stats.ecn-marked-packets"), Some(693_777_677_344));
    // 92824.38 GB, binary units.
    assert_eq!(get("tx-stats.tx-roce-stats.roce-bytes"), Some(99_669_419_092_869));
    assert_eq!(get("tx-stats.tx-roce-stats.roce-packets"), Some(803_785_675_319));
    assert_eq!(get("tx-stats.tx-roce-stats.unicast-no-buffer-discard"), Some(663_060_754_115));
}

#[test]
fn counters_in_the_model() {
    let c = parse(SAMPLE).expect("parses").value;
    let port = counters_to_port(&c, &RoceClasses::default());
    assert_eq!(port.pfc_rx, [(3, 0)].into());
    assert_eq!(port.pfc_tx, [(3, 0)].into());
    assert_eq!(port.ecn_marked, [(3, 693_777_677_344)].into());
    assert_eq!(port.queue_drops, [(3, 663_060_754_115), (6, 0)].into());
    assert_eq!(port.queue_tx_packets, [(3, 803_785_675_319), (6, 0)].into());
    // RoCE and CNP on one traffic class add up.
    let same = RoceClasses { priority: 5, roce_tc: 5, cnp_tc: 5 };
    let port = counters_to_port(&c, &same);
    assert_eq!(port.queue_drops, [(5, 663_060_754_115)].into());
    assert_eq!(port.pfc_rx, [(5, 0)].into());
}

#[test]
fn json_names_follow_the_facts() {
    let json =
        fabcheck_parse::parse_to_json("nvue_roce_counters", SAMPLE).expect("known source").expect("parses").value;
    assert_eq!(json["interface"], "swp16");
    assert_eq!(json["counters"]["tx-stats.tx-pfc-stats.pause-packets"], 0);
}
