//! `nv show qos roce` on every real sample in tests/fixtures/nvue_roce (see SOURCES.md there).
use fabcheck_parse::nvue::convert::{RoceClasses, roce_to_model};
use fabcheck_parse::nvue::roce::parse;
use fabcheck_parse::switch::{Ecn, Scheduler};
use std::collections::BTreeMap;

const SAMPLE: &str = include_str!("fixtures/nvue_roce/cumulus-5.12-nv-show-qos-roce.txt");

#[test]
fn cumulus_512_docs_lossless_single_ipool() {
    let parsed = parse(SAMPLE).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let roce = &parsed.value;
    assert_eq!(roce.interface, None);
    assert_eq!(roce.enabled, Some(true));
    assert_eq!(roce.mode.as_deref(), Some("lossless-single-ipool"));
    assert_eq!(roce.pfc_priorities, [3]);
    assert_eq!((roce.pfc_rx, roce.pfc_tx), (Some(true), Some(true)));
    assert_eq!(roce.cable_length_m, Some(100));
    assert_eq!(roce.congestion_mode.as_deref(), Some("ECN"));
    assert_eq!(roce.ecn_traffic_classes, [0, 3]);
    // 146.48 KB and 1.43 MB, binary units: NVUE's rounding of 150,000 and 1,500,000 bytes.
    assert_eq!(roce.ecn_min_bytes, Some(149_996));
    assert_eq!(roce.ecn_max_bytes, Some(1_499_464));
    assert_eq!(roce.ecn_probability_percent, Some(100));
    assert_eq!(roce.trust.as_deref(), Some("pcp,dscp"));
    assert_eq!(roce.app_tlv_priority, Some(3));
    assert_eq!(roce.pcp_to_switch_priority, (0..8).map(|p| (p, p)).collect());
    assert_eq!(roce.dscp_to_switch_priority, (0..64).map(|d| (d, d / 8)).collect());
    let sp_to_tc: BTreeMap<u8, u8> = [(0, 0), (1, 0), (2, 0), (3, 3), (4, 0), (5, 0), (6, 6), (7, 0)].into();
    assert_eq!(roce.switch_priority_to_tc, sp_to_tc);
    let ets: BTreeMap<u8, Scheduler> =
        [(0, Scheduler::Weighted { weight: 50 }), (3, Scheduler::Weighted { weight: 50 }), (6, Scheduler::Strict)]
            .into();
    assert_eq!(roce.tc_scheduler, ets);
    // The pool table skips row 1 (no ingress RoCE pool in single-ipool mode).
    let pools: Vec<_> = roce.pools.iter().map(|p| (p.name.as_str(), p.size.as_deref())).collect();
    assert_eq!(
        pools,
        [
            ("lossy-default-ingress", Some("100%")),
            ("lossy-default-egress", Some("100%")),
            ("roce-reserved-egress", Some("inf")),
        ]
    );
    assert_eq!(roce.pools[0].switch_priorities, [0, 1, 2, 3, 4, 5, 6, 7]);
    assert_eq!(roce.pools[1].traffic_classes, [0, 6]);
    assert_eq!(roce.pools[2].traffic_classes, [3]);
    assert_eq!(roce.pools[2].size_bytes, None, "`inf` is no size");
    assert!(roce.exceptions.is_empty());
    assert!(roce.classes.is_empty());
}

#[test]
fn every_port_gets_the_roce_settings() {
    let roce = parse(SAMPLE).expect("parses").value;
    let model = roce_to_model(&roce, &["swp1".into(), "swp32".into()]);
    assert_eq!(model.ports.keys().collect::<Vec<_>>(), ["swp1", "swp32"]);
    let port = &model.ports["swp1"];
    assert_eq!(port.lossless_priorities, Some(vec![3]));
    assert_eq!(port.trust.as_deref(), Some("dscp"));
    assert_eq!((port.dscp_to_tc[&26], port.dscp_to_tc[&48], port.dscp_to_tc[&0]), (3, 6, 0));
    assert_eq!(port.dscp_to_tc.len(), 64);
    assert_eq!(port.tc_to_queue, [(0, 0), (3, 3), (6, 6)].into());
    let q3 = &port.queues[&3];
    assert_eq!(q3.scheduler, Some(Scheduler::Weighted { weight: 50 }));
    let ecn = Ecn {
        enabled: true,
        min_bytes: Some(149_996),
        max_bytes: Some(1_499_464),
        probability_percent: Some(100),
        uncertain_unit: None,
    };
    assert_eq!(q3.ecn, Some(ecn));
    assert_eq!(port.queues[&6].scheduler, Some(Scheduler::Strict));
    assert_eq!(port.queues[&6].ecn.as_ref().map(|e| e.enabled), Some(false));
    assert_eq!(port.queues[&0].ecn.as_ref().map(|e| e.enabled), Some(true));
    assert_eq!(port.mtu, None, "the RoCE view says nothing of the link");
    assert_eq!(RoceClasses::from_roce(&roce), RoceClasses { priority: 3, roce_tc: 3, cnp_tc: 6 });
}

#[test]
fn json_names_follow_the_facts() {
    let json = fabcheck_parse::parse_to_json("nvue_roce", SAMPLE).expect("known source").expect("parses").value;
    assert_eq!(json["mode"], "lossless-single-ipool");
    assert_eq!(json["pfc_priorities"][0], 3);
    assert_eq!(json["ecn_min_bytes"], 149_996);
    assert_eq!(json["tc_scheduler"]["6"], "strict");
    assert_eq!(json["tc_scheduler"]["3"]["weighted"]["weight"], 50);
}

/// Cumulus 5.4's layout: a description column, and `cable-length` at the top level (it moved
/// under `pfc` later).
#[test]
fn cumulus_54_docs_top_level_cable_length_and_descriptions() {
    let parsed = parse(include_str!("fixtures/nvue_roce/cumulus-5.4-nv-show-qos-roce-description-column-docs.txt"))
        .expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let roce = &parsed.value;
    assert_eq!((roce.enabled, roce.mode.as_deref(), roce.cable_length_m), (Some(true), Some("lossless"), Some(100)));
    assert_eq!((roce.pfc_priorities.as_slice(), roce.pfc_rx, roce.pfc_tx), (&[3][..], Some(true), Some(true)));
    assert_eq!(roce.ecn_traffic_classes, [0, 3]);
    assert_eq!(
        (roce.ecn_min_bytes, roce.ecn_max_bytes, roce.ecn_probability_percent),
        (Some(149_996), Some(1_499_464), None)
    );
    assert_eq!(roce.trust.as_deref(), Some("pcp,dscp"));
    assert_eq!(roce.dscp_to_switch_priority.len(), 64);
    assert_eq!(RoceClasses::from_roce(roce), RoceClasses { priority: 3, roce_tc: 3, cnp_tc: 6 });
}

/// Cumulus 5.9's docs, with trailing spaces after values.
#[test]
fn cumulus_59_docs_lossless() {
    let parsed =
        parse(include_str!("fixtures/nvue_roce/cumulus-5.9-nv-show-qos-roce-lossless-trailing-spaces-docs.txt"))
            .expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let roce = &parsed.value;
    assert_eq!((roce.mode.as_deref(), roce.pfc_priorities.as_slice()), (Some("lossless"), &[3][..]));
    assert_eq!(
        (roce.ecn_min_bytes, roce.ecn_max_bytes, roce.ecn_probability_percent),
        (Some(149_996), Some(1_499_464), Some(100))
    );
    assert_eq!(roce.pcp_to_switch_priority, (0..8).map(|p| (p, p)).collect());
    assert_eq!(RoceClasses::from_roce(roce), RoceClasses { priority: 3, roce_tc: 3, cnp_tc: 6 });
}

#[test]
fn cumulus_515_docs_lossy_multi_tc_with_extended_features() {
    let text = include_str!(
        "fixtures/nvue_roce/cumulus-5.15-nv-show-qos-roce-lossy-multi-tc-pfc-dash-extended-features-docs.txt"
    );
    let parsed = parse(text).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let roce = &parsed.value;
    assert_eq!(roce.mode.as_deref(), Some("lossy-multi-tc"));
    assert!(roce.pfc_priorities.is_empty(), "`pfc-priority -`: no lossless priority");
    assert_eq!(roce.ecn_traffic_classes, [1, 2, 3]);
    assert_eq!((roce.ecn_min_bytes, roce.ecn_max_bytes), (Some(166_912), Some(239_616)));
    assert_eq!(roce.ecn_probability_percent, Some(5));
    assert_eq!((roce.dscp_to_switch_priority[&5], roce.dscp_to_switch_priority[&6]), (3, 3));
    assert_eq!(roce.dscp_to_switch_priority[&26], 4);
    assert_eq!(roce.tc_scheduler[&3], Scheduler::Weighted { weight: 22 });
    assert_eq!(roce.extended_features, BTreeMap::from([("packet-trim".to_string(), "enabled".to_string())]));
}
