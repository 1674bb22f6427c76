//! `nv show interface IF qos roce status` on every real sample in
//! tests/fixtures/nvue_roce_status (see SOURCES.md there).
use fabcheck_parse::nvue::convert::RoceClasses;
use fabcheck_parse::nvue::roce_status::{parse, parse_for};
use fabcheck_parse::switch::Scheduler;

const SAMPLE: &str = include_str!("fixtures/nvue_roce_status/cumulus-5.12-nv-show-interface-qos-roce-status.txt");

#[test]
fn cumulus_512_docs_swp16() {
    let parsed = parse(SAMPLE).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let s = &parsed.value;
    assert_eq!(s.interface.as_deref(), Some("swp16"));
    assert_eq!(s.mode.as_deref(), Some("lossless"));
    assert_eq!(s.congestion_mode.as_deref(), Some("ecn, absolute"));
    assert_eq!(s.ecn_traffic_classes, [0, 3]);
    assert_eq!((s.ecn_min_bytes, s.ecn_max_bytes), (Some(156_672), Some(1_499_464)));
    assert_eq!(s.ecn_probability_percent, Some(100));
    assert_eq!(s.app_tlv_priority, Some(3));
    assert_eq!(s.pfc_priorities, [3]);
    assert_eq!((s.pfc_rx, s.pfc_tx), (Some(true), Some(true)));
    assert_eq!(s.trust.as_deref(), Some("pcp,dscp"));
    let cnp = &s.classes["cnp"];
    assert_eq!((cnp.pcp, cnp.dscp.as_slice(), cnp.switch_priority), (Some(6), &[48][..], Some(6)));
    assert_eq!((cnp.traffic_class, cnp.scheduler.clone()), (Some(6), Some(Scheduler::Strict)));
    let roce = &s.classes["roce"];
    assert_eq!((roce.pcp, roce.dscp.as_slice(), roce.switch_priority), (Some(3), &[26][..], Some(3)));
    assert_eq!(roce.scheduler, Some(Scheduler::Weighted { weight: 50 }));
    let pools: Vec<_> = s.pools.iter().map(|p| (p.name.as_str(), p.pool_id)).collect();
    assert_eq!(
        pools,
        [
            ("lossy-default-ingress", Some(2)),
            ("roce-reserved-ingress", Some(3)),
            ("lossy-default-egress", Some(13)),
            ("roce-reserved-egress", Some(14)),
        ]
    );
    let ingress = &s.pools[1];
    assert_eq!(ingress.switch_priorities, [3]);
    assert_eq!(ingress.size_bytes, Some(15_896_412));
    assert_eq!((ingress.current_usage_bytes, ingress.max_usage_bytes), (Some(7_654_605), Some(8_283_750)));
    assert_eq!(s.pools[0].current_usage_bytes, Some(0));
    let egress = &s.pools[3];
    assert_eq!((egress.size.as_deref(), egress.size_bytes), (Some("inf"), None));
    assert_eq!((egress.current_usage_bytes, egress.max_usage_bytes), (Some(7_644_119), Some(14_124_319)));
    assert_eq!(RoceClasses::from_roce(s), RoceClasses { priority: 3, roce_tc: 3, cnp_tc: 6 });
}

#[test]
fn the_port_in_the_model() {
    let parsed = parse_for("swp16", SAMPLE).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let port = parsed.value;
    assert_eq!(port.lossless_priorities, Some(vec![3]));
    assert_eq!(port.trust.as_deref(), Some("dscp"));
    assert_eq!(port.dscp_to_tc, [(26, 3), (48, 6)].into(), "only the RoCE and CNP DSCPs are shown");
    assert_eq!(port.tc_to_queue, [(0, 0), (3, 3), (6, 6)].into());
    assert_eq!(port.queues[&6].scheduler, Some(Scheduler::Strict));
    assert_eq!(port.queues[&6].ecn.as_ref().map(|e| e.enabled), Some(false));
    let ecn = port.queues[&3].ecn.clone().expect("ecn");
    assert!(ecn.enabled);
    assert_eq!((ecn.min_bytes, ecn.max_bytes), (Some(156_672), Some(1_499_464)));
    assert_eq!(port.queues[&3].scheduler, Some(Scheduler::Weighted { weight: 50 }));
    assert_eq!(port.queues[&0].ecn.as_ref().map(|e| e.enabled), Some(true));
    assert_eq!(port.queues[&0].scheduler, None, "TC 0 is not listed in the port's ETS table");
}

#[test]
fn a_cut_status_keeps_what_was_printed() {
    let cut = &SAMPLE[..SAMPLE.find("RoCE SP->TC").expect("section") + 10];
    let parsed = parse(cut).expect("parses");
    assert_eq!(parsed.value.classes["roce"].dscp, [26]);
    assert!(parsed.value.switch_priority_to_tc.is_empty());
    let last = parsed.warnings.last().expect("cut warned");
    assert_eq!(last.line, cut.lines().count());
}

/// Cumulus 5.4's docs: a description column, `min-threshold 153.00 KB`, no LLDP application TLV.
#[test]
fn cumulus_54_docs_without_app_tlv() {
    let text =
        include_str!("fixtures/nvue_roce_status/cumulus-5.4-nv-show-interface-qos-roce-status-no-lldp-tlv-docs.txt");
    let parsed = parse(text).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let s = &parsed.value;
    assert_eq!((s.interface.as_deref(), s.mode.as_deref()), (Some("swp16"), Some("lossless")));
    assert_eq!((s.ecn_min_bytes, s.ecn_max_bytes), (Some(156_672), Some(1_499_464)));
    assert_eq!((s.pfc_priorities.as_slice(), s.pfc_rx, s.pfc_tx), (&[3][..], Some(true), Some(true)));
    assert_eq!(s.app_tlv_priority, None);
    let (cnp, roce) = (&s.classes["cnp"], &s.classes["roce"]);
    assert_eq!(
        (cnp.dscp.as_slice(), cnp.traffic_class, cnp.scheduler.clone()),
        (&[48][..], Some(6), Some(Scheduler::Strict))
    );
    assert_eq!((roce.dscp.as_slice(), roce.traffic_class), (&[26][..], Some(3)));
    assert_eq!(RoceClasses::from_roce(s), RoceClasses { priority: 3, roce_tc: 3, cnp_tc: 6 });
}
