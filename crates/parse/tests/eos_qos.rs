//! `eos_qos` (`show qos interfaces`) on the one published output found (tests/fixtures/eos_qos,
//! see SOURCES.md there: DISA STIG check text, PROVENANCE WEAK).
use fabcheck_parse::eos::convert::apply_qos_interfaces;
use fabcheck_parse::eos::qos_interfaces::{QueueFlag, parse};
use fabcheck_parse::switch::{Scheduler, SwitchQos};

const STIG: &str = include_str!("fixtures/eos_qos/arista-mls-eos-4.2x-stig-sh-qos-int-po33-PROVENANCE-WEAK.txt");

#[test]
fn trust_defaults_and_queue_table() {
    let parsed = parse(STIG).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let i = &parsed.value.interfaces[0];
    assert_eq!((i.port.as_str(), i.name.as_str()), ("Port-Channel33", "Port-Channel33"));
    assert_eq!((i.trust.as_deref(), i.default_cos, i.default_dscp), (Some("dscp"), Some(0), Some(0)));
    assert_eq!(i.port_shaping.as_deref(), Some("enabled"));
    assert_eq!(i.queues.len(), 8);
    let q3 = i.queue(3).expect("queue 3");
    assert_eq!((q3.bandwidth_percent, q3.strict, q3.ecn_wred), (Some(25), Some(true), Some(QueueFlag::Disabled)));
    let q2 = i.queue(2).expect("queue 2");
    assert_eq!((q2.bandwidth_percent, q2.strict), (Some(15), Some(false)));
    let q7 = i.queue(7).expect("queue 7");
    assert_eq!((q7.bandwidth_percent, q7.strict), (None, Some(true)));
    assert_eq!(i.queue(0).and_then(|q| q.bandwidth_percent), Some(20));
}

#[test]
fn operational_trust_and_scheduling_refine_the_model() {
    let config = "interface Port-Channel33\n   tx-queue 3\n      random-detect ecn minimum-threshold 100 kbytes maximum-threshold 1 mbytes\n";
    let cfg = fabcheck_parse::eos::running_config::parse(config).expect("parses").value;
    let mut model = fabcheck_parse::eos::convert::to_model(&cfg);
    apply_qos_interfaces(&mut model, &parse(STIG).expect("parses").value);
    let po = &model.ports["Port-Channel33"];
    assert_eq!(po.trust.as_deref(), Some("dscp"));
    assert_eq!(po.queues[&3].scheduler, Some(Scheduler::Strict));
    assert_eq!(po.queues[&1].scheduler, Some(Scheduler::Weighted { weight: 40 }));
    // The switch says ECN is off on queue 3 (`D`); the configured thresholds stay for the report.
    let ecn = po.queues[&3].ecn.as_ref().expect("ecn");
    assert_eq!((ecn.enabled, ecn.min_bytes, ecn.max_bytes), (false, Some(102_400), Some(1_048_576)));
    let mut empty = SwitchQos::default();
    apply_qos_interfaces(&mut empty, &parse(STIG).expect("parses").value);
    assert_eq!(empty.ports["Port-Channel33"].queues.len(), 8);
}

#[test]
fn json_holds_facts_and_model() {
    let json = fabcheck_parse::parse_to_json("eos_qos", STIG).expect("known").expect("parses").value;
    assert_eq!(json["facts"]["interfaces"][0]["trust"], "dscp");
    assert_eq!(json["model"]["ports"]["Port-Channel33"]["queues"]["7"]["scheduler"], "strict");
}
