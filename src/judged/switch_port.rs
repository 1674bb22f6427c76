//! Real switch configurations read into the model and judged port by port.

use crate::check::switch::port::*;
use crate::facts::SwitchFacts;
use crate::policy::Policy;
use fabcheck_model::switch::PortQos;
use fabcheck_model::{Finding, Severity};

fn dell_s6000() -> SwitchFacts {
    let text = include_str!(
        "../../crates/parse/tests/fixtures/sonic/sonic-config-db-s6000-str-s6000-acs-14-pg_lossless_40000-counterpoll-test.json"
    );
    let db = fabcheck_parse::sonic::config_db::parse(text).expect("parses").value;
    SwitchFacts { qos: fabcheck_parse::sonic::convert::to_model(&db), ..SwitchFacts::default() }
}

fn headroom_findings(facts: &SwitchFacts, port: &str) -> Vec<Finding> {
    let policy = Policy::parse(crate::policy::DEFAULT_POLICY, "default").unwrap();
    check("s6000", port, facts, &policy, None)
        .into_iter()
        .filter(|f| f.code == "switch.pfc_headroom_insufficient")
        .collect()
}

/// A real Dell S6000 config DB (40G, MTU 9100): its 28 lossless ports, on 5 m and 40 m
/// cables with 55,120 bytes of xoff, have the headroom the formula asks (37,192 and 40,232).
#[test]
fn a_real_switchs_lossless_ports_have_their_headroom() {
    let facts = dell_s6000();
    let lossless: Vec<&String> = facts
        .qos
        .ports
        .iter()
        .filter(|(_, p)| p.lossless_priorities.as_ref().is_some_and(|l| !l.is_empty()))
        .map(|(n, _)| n)
        .collect();
    assert_eq!(lossless.len(), 28);
    for port in lossless {
        assert_eq!(headroom_findings(&facts, port), [], "{port}");
    }
}

/// Its 300 m ports have the same 55,120 bytes; were PFC on there, the formula's 62,712 would
/// make that a warning (within a quarter), not an error.
#[test]
fn a_long_cable_short_by_less_than_a_quarter_is_a_warning() {
    let mut facts = dell_s6000();
    facts.qos.ports.get_mut("Ethernet104").unwrap().lossless_priorities = Some(vec![3, 4]);
    let found = headroom_findings(&facts, "Ethernet104");
    let got: Vec<(Severity, &str, &str)> =
        found.iter().map(|f| (f.severity, f.expected.as_str(), f.actual.as_str())).collect();
    let actual = "xoff 55120 bytes (pg_lossless_40000_300m_profile)";
    assert_eq!(
        got,
        [(Severity::Warning, "xoff ≥ 62712 bytes", actual), (Severity::Warning, "xoff ≥ 62712 bytes", actual)]
    );
}

/// A port whose RoCE queue marks from `kmin` (as written in KB, read as 1,024 bytes each).
fn with_kmin(kb: u64, uncertain: bool) -> SwitchFacts {
    let ecn = fabcheck_model::switch::Ecn {
        enabled: true,
        min_bytes: Some(kb * 1024),
        max_bytes: Some(1500 * 1024),
        probability_percent: Some(100),
        uncertain_unit: uncertain.then(|| format!("{kb} kbytes / 1500 kbytes")),
    };
    let mut port = PortQos::default();
    port.queues.insert(3, fabcheck_model::switch::QueueQos { scheduler: None, ecn: Some(ecn) });
    let mut facts = SwitchFacts::default();
    facts.qos.ports.insert("Ethernet1/1".into(), port);
    facts
}

fn thresholds(facts: &SwitchFacts) -> Vec<String> {
    let policy = Policy::parse(crate::policy::DEFAULT_POLICY, "default").unwrap();
    check("leaf", "Ethernet1/1", facts, &policy, None)
        .into_iter()
        .filter(|f| f.code == "switch.ecn_threshold")
        .map(|f| f.message)
        .collect()
}

/// The policy's Kmin is 100-400 KB. A kilobyte the vendor leaves undefined is judged both
/// ways, and only a threshold outside under both readings is a finding.
#[test]
fn an_undefined_kilobyte_is_outside_only_if_both_readings_are() {
    assert_eq!(thresholds(&with_kmin(100, true)), Vec::<String>::new());
    let below = thresholds(&with_kmin(98, true));
    assert_eq!(below.len(), 1);
    assert!(below[0].contains("written `98 kbytes / 1500 kbytes`"), "{}", below[0]);
    assert_eq!(thresholds(&with_kmin(98, false)).len(), 1, "exact bytes: judged as they are");
    // 401 KB is above 400 read as 1,024 bytes, within it read as 1,000: not a finding.
    assert_eq!(thresholds(&with_kmin(401, true)), Vec::<String>::new());
    assert_eq!(thresholds(&with_kmin(401, false)).len(), 1);
}

/// A real NX-OS ToR's whole running-config has no watchdog line: each judged port's missing
/// watchdog is a warning saying why, and nothing is left unknown about it.
#[test]
fn a_real_nxos_config_without_a_watchdog_line_is_a_missing_watchdog() {
    let text = include_str!("../../crates/parse/tests/fixtures/nxos/cisco-nxos-93180yc-fx3-azurelocal-tor-full.cfg");
    let cfg = fabcheck_parse::nxos::running_config::parse(text).expect("parses").value;
    let facts = SwitchFacts { qos: fabcheck_parse::nxos::convert::to_model(&cfg), ..SwitchFacts::default() };
    let policy = Policy::parse(crate::policy::DEFAULT_POLICY, "default").unwrap();
    let found: Vec<Finding> = check("tor", "Ethernet1/1", &facts, &policy, None)
        .into_iter()
        .filter(|f| f.code == "switch.pfc_watchdog_disabled")
        .collect();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].severity, Severity::Warning);
    assert!(found[0].actual.contains("no `priority-flow-control watch-dog-interval on`"), "{}", found[0].actual);
    assert!(!unknown_settings("Ethernet1/1", &facts, &policy, None).contains(&"PFC watchdog"));
}

#[test]
fn trust_modes_of_every_vendor_are_read_alike() {
    for (t, by) in [("dscp", "dscp"), ("l3", "dscp"), ("both", "dscp"), ("pcp", "pcp"), ("cos", "pcp"), ("l2", "pcp")] {
        assert_eq!(classifies_by(t), Some(by), "{t}");
    }
    assert_eq!(classifies_by("mystery"), None);
}

/// EOS prints only the queue rows that moved: a linked port whose lossless class had no row
/// before the window and dropped during it is still counted from zero, and judged.
#[test]
fn eos_drops_that_first_appear_in_the_window_are_counted_from_zero() {
    use crate::evidence::testing::output;
    let header = "Egress Queue Counters\nPort               Traffic   DropPrec   DestType        OutEnqPkts      OutEnqOctets       OutDropPkts     OutDropOctets\n                    Class\n";
    let after = format!(
        "{header}Et1                    TC3      DP0-3         UC               100              9000                 7               630\n"
    );
    let lldp = "Interface Ethernet1 detected 1 LLDP neighbors:\n\n  Neighbor 001c.7300.0001/\"Ethernet1\", age 5 seconds\n  Discovered 1 day, 0:00:00 ago; last changed 1 day, 0:00:00 ago\n  - System Name: \"spine1\"\n  - Port ID     : \"Ethernet1\"\n";
    let record = crate::evidence::DeviceRecord {
        name: "leaf1".into(),
        role: "leaf".into(),
        platform: "eos".into(),
        address: "10.0.0.2:22".into(),
        nics: vec![],
        error: None,
        outputs: vec![
            output("lldp", lldp, 0),
            output("queue_counters.t0", header, 1_000),
            output("queue_counters.t1", &after, 2_000),
        ],
    };
    let facts = crate::facts::build(&record);
    let crate::facts::DeviceKind::Switch(switch) = &facts.kind else { panic!("{:?}", facts.kind) };
    let reads = switch.counters.as_ref().expect("counters read");
    assert_eq!(reads.before.counters.ports["Ethernet1"].queue_drops[&3], 0);
    assert_eq!(reads.after.counters.ports["Ethernet1"].queue_drops[&3], 7);
    assert_eq!(reads.after.counters.ports["Ethernet1"].queue_drops[&0], 0, "an idle class of a linked port");
}
