//! `eos` (`show running-config`) on the real samples in tests/fixtures/eos (see SOURCES.md there:
//! AVD-generated configs, real EOS syntax, synthetic values).
use fabcheck_parse::eos::convert::to_model;
use fabcheck_parse::eos::running_config::{EosConfig, parse};
use fabcheck_parse::switch::{Ecn, QueueQos, Scheduler};

const QOS: &str = include_str!("fixtures/eos/arista-eos-avd-molecule-qos.cfg");
const INTERFACES: &str = include_str!("fixtures/eos/arista-eos-avd-molecule-ethernet-interfaces-pfc.cfg");

fn parsed(text: &str) -> (EosConfig, Vec<usize>) {
    let p = parse(text).expect("parses");
    let lines = p.warnings.iter().map(|w| w.line).collect();
    (p.value, lines)
}

#[test]
fn qos_profiles_pfc_watchdog_and_ecn_units() {
    let (cfg, warned) = parsed(QOS);
    let p = &cfg.profiles["test_with_pfc"];
    assert_eq!(p.pfc, Some(true));
    assert_eq!(p.pfc_no_drop.iter().map(|(k, v)| (*k, *v)).collect::<Vec<_>>(), [(0, true), (1, false)]);
    assert_eq!(p.pfc_watchdog, Some(true));
    assert_eq!(p.pfc_watchdog_port.action.as_deref(), Some("drop"));
    assert_eq!((p.pfc_watchdog_port.timeout_s, p.pfc_watchdog_port.recovery_time_s), (Some(0.05), Some(1.11)));
    assert_eq!(p.pfc_watchdog_port.polling_interval_s, None, "`polling-interval auto`");
    assert_eq!(p.service_policy.as_deref(), Some("pmap_test1"));
    assert_eq!((p.tx_queues[&1].bandwidth_percent, p.tx_queues[&5].strict), (Some(80), Some(false)));

    let t = &cfg.profiles["test"];
    assert_eq!((t.trust.as_deref(), t.default_dscp), (Some("dscp"), Some(46)));
    let q2 = &t.tx_queues[&2];
    let ecn = q2.ecn.as_ref().expect("queue 2 marks");
    assert_eq!(q2.strict, Some(true));
    assert_eq!((ecn.min.bytes, ecn.max.bytes, ecn.probability_percent), (Some(327_680), Some(327_680), Some(90)));
    // `segments` are buffer cells of a platform-dependent size: no bytes, a warning.
    let ecn = t.tx_queues[&4].ecn.as_ref().expect("queue 4 marks");
    assert_eq!((ecn.min.value, ecn.min.unit.as_str(), ecn.min.bytes, ecn.weight), (320.0, "segments", None, Some(10)));
    assert_eq!(t.tx_queues[&4].bandwidth_guaranteed_percent, Some(10));

    // `uc-tx-queue` is a unicast queue; thresholds in milliseconds need the port rate.
    let uc = &cfg.profiles["uc_mc_queues_test"];
    let ecn = uc.tx_queues[&1].ecn.as_ref().expect("uc queue 1 marks");
    assert_eq!((ecn.min.value, ecn.max.value, ecn.min.bytes, ecn.max.bytes), (3.0, 9.0, None, None));
    assert_eq!(uc.mc_tx_queues.keys().copied().collect::<Vec<_>>(), [1, 2, 4]);

    let wred = &cfg.profiles["wred_queues_test"];
    let drop = wred.tx_queues[&1].wred_drop.as_ref().expect("queue 1 drops");
    assert_eq!((drop.min.bytes, drop.max.bytes, drop.probability_percent), (Some(1024), Some(10_240), Some(100)));
    assert_eq!(wred.tx_queues[&2].wred_drop, None, "per-colour dropping is not modelled");
    assert_eq!(wred.tx_queues[&3].ecn.as_ref().and_then(|e| e.min.bytes), Some(327_680));

    assert_eq!((cfg.dscp_to_tc[&26], cfg.dscp_to_tc[&46], cfg.dscp_to_tc[&8]), (4, 5, 1));
    assert!(!cfg.dscp_to_tc.contains_key(&48) && !cfg.dscp_to_tc.contains_key(&0), "only configured lines");
    assert_eq!(cfg.cos_to_tc.iter().map(|(k, v)| (*k, *v)).collect::<Vec<_>>(), [(1, 2), (2, 2), (3, 3), (4, 2)]);
    assert_eq!(cfg.tc_to_queue.iter().map(|(k, v)| (*k, *v)).collect::<Vec<_>>(), [(6, 2)]);
    assert!(cfg.pfc_all_off);
    let wd = &cfg.pfc_watchdog;
    assert_eq!((wd.timeout_s, wd.recovery_time_s, wd.polling_interval_s), (Some(0.05), Some(1.22), Some(10.001)));
    assert_eq!(wd.action.as_deref(), Some("no-drop"));
    let names: Vec<&str> = cfg.interfaces.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names, ["Port-Channel3", "Ethernet1", "Ethernet3", "Ethernet4", "Ethernet6", "Ethernet7"]);
    assert_eq!(cfg.unmodelled_lines, 55);
    // Two thresholds each on the lines in segments, milliseconds and microseconds.
    assert_eq!(warned, [57, 57, 85, 85, 95, 95, 152, 152, 162, 162]);
}

#[test]
fn qos_model_resolves_service_profiles_under_pfc_all_off() {
    let model = to_model(&parsed(QOS).0);
    assert_eq!(model.hostname, None);
    let wd = model.pfc_watchdog.as_ref().expect("global watchdog");
    assert!(wd.enabled);
    assert_eq!((wd.detection_ms, wd.restoration_ms, wd.action.as_deref()), (Some(50), Some(1220), Some("no-drop")));
    let e1 = &model.ports["Ethernet1"];
    assert_eq!(e1.lossless_priorities, Some(vec![]), "priority-flow-control all off");
    assert_eq!((e1.trust.as_deref(), e1.mtu), (Some("dscp"), Some(1500)));
    assert_eq!(e1.dscp_to_tc.get(&26), Some(&4));
    let ecn = Ecn {
        enabled: true,
        min_bytes: Some(327_680),
        max_bytes: Some(327_680),
        probability_percent: Some(90),
        // Arista does not say whether a kbyte is 1,000 or 1,024 bytes.
        uncertain_unit: Some("320 kbytes / 320 kbytes".into()),
    };
    assert_eq!(e1.queues[&2], QueueQos { scheduler: Some(Scheduler::Strict), ecn: Some(ecn) });
    assert_eq!(e1.queues[&1].scheduler, Some(Scheduler::Weighted { weight: 50 }));
    // Profile `experiment`: `qos trust cos`, queue 3 round robin at 30 %.
    let e6 = &model.ports["Ethernet6"];
    assert_eq!(e6.trust.as_deref(), Some("pcp"));
    assert_eq!(e6.queues[&3].scheduler, Some(Scheduler::Weighted { weight: 30 }));
    assert!(model.ports.contains_key("Port-Channel3"));
    assert!(!model.ports.contains_key("Management1"));
}

#[test]
fn interface_settings_win_over_the_profile_priority_by_priority() {
    // The real sample with its global `all off` removed and one interface (written for this
    // test) that applies profile test_with_pfc and makes priority 1 no-drop too.
    let text = QOS.replace("priority-flow-control all off\n", "")
        + "interface Ethernet9\n   service-profile test_with_pfc\n   priority-flow-control priority 1 no-drop\n";
    let model = to_model(&parsed(&text).0);
    let e9 = &model.ports["Ethernet9"];
    assert_eq!(e9.lossless_priorities, Some(vec![0, 1]));
    assert_eq!(e9.pfc_watchdog, Some(true));
    assert_eq!(e9.queues[&5].scheduler, Some(Scheduler::Weighted { weight: 19 }));
    // Without the interface's own line, the profile alone: priority 0.
    let text =
        QOS.replace("priority-flow-control all off\n", "") + "interface Ethernet9\n   service-profile test_with_pfc\n";
    assert_eq!(to_model(&parsed(&text).0).ports["Ethernet9"].lossless_priorities, Some(vec![0]));
}

#[test]
fn interfaces_pfc_on_off_and_without_no_drop() {
    let (cfg, warned) = parsed(INTERFACES);
    // Only `service-profile QoS` (Ethernet7), which this file does not define.
    assert_eq!(warned, [200]);
    assert_eq!(cfg.interfaces.len(), 70);
    assert!(cfg.interfaces.iter().all(|i| !i.name.contains('.')), "sub-interfaces are not ports");
    let e1 = &cfg.interfaces[0];
    assert_eq!(
        (e1.mtu, e1.l2_mtu, e1.speed.as_deref(), e1.speed_mbps),
        (Some(1500), Some(8000), Some("forced 100gfull"), Some(100_000))
    );
    assert_eq!(e1.description.as_deref(), Some("P2P_LINK_TO_DC1-SPINE1_Ethernet1"));

    let model = to_model(&cfg);
    let port = |n: &str| &model.ports[n];
    // PFC on, priority 5 `drop`: lossless on nothing.
    assert_eq!(port("Ethernet1").lossless_priorities, Some(vec![]));
    assert_eq!(port("Ethernet2").lossless_priorities, Some(vec![5]));
    // `no priority-flow-control`.
    assert_eq!(port("Ethernet3").lossless_priorities, Some(vec![]));
    // PFC on without any no-drop priority: lossless on none, not "unknown".
    assert_eq!(port("Ethernet4").lossless_priorities, Some(vec![]));
    assert_eq!((port("Ethernet4").admin_up, port("Ethernet4").mtu), (Some(false), Some(9100)));
    assert_eq!((port("Ethernet5").admin_up, port("Ethernet5").mtu), (Some(true), Some(9100)));
    assert_eq!((port("Ethernet7").trust.as_deref(), port("Ethernet7").mtu), (Some("pcp"), Some(7000)));
    assert_eq!(port("Ethernet21").trust.as_deref(), Some("untrusted"));
    assert_eq!(port("Ethernet1").speed_mbps, Some(100_000));
    assert_eq!(model.pfc_watchdog, None);
}

#[test]
fn json_holds_facts_and_model() {
    let json = fabcheck_parse::parse_to_json("eos", INTERFACES).expect("known source").expect("parses").value;
    assert_eq!(json["model"]["ports"]["Ethernet2"]["lossless_priorities"], serde_json::json!([5]));
    assert_eq!(json["model"]["ports"]["Ethernet1"]["speed_mbps"], 100_000);
    assert_eq!(json["facts"]["interfaces"][1]["qos"]["pfc_no_drop"]["5"], true);
    let json = fabcheck_parse::parse_to_json("eos", QOS).expect("known").expect("parses").value;
    assert_eq!(json["model"]["ports"]["Ethernet1"]["queues"]["2"]["ecn"]["min_bytes"], 327_680);
    assert_eq!(json["model"]["ports"]["Ethernet1"]["queues"]["2"]["scheduler"], "strict");
    assert!(fabcheck_parse::sources().contains(&"eos"));
}

/// `show running-config all` of a 7260CX3 (EOS 4.22.3M): every default spelled out, among them
/// `no priority-flow-control priority N` and the watchdog's defaults, all understood.
#[test]
fn show_running_config_all_states_the_pfc_defaults() {
    let text = include_str!("fixtures/eos/batfish-eos-4.22.3M-7260cx3-show-run-all-interfaces-qos-defaults.cfg");
    let parsed = parse(text).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let model = to_model(&parsed.value);
    let p = &model.ports["Ethernet1/1"];
    assert_eq!(p.lossless_priorities.as_deref(), Some(&[][..]), "PFC off, no priority no-drop");
    assert_eq!(
        (p.trust.as_deref(), p.speed_mbps, p.mtu, p.pfc_watchdog),
        (Some("dscp"), Some(100_000), Some(9212), Some(true))
    );
    let weights: Vec<Option<Scheduler>> = (0..8).map(|q| p.queues[&q].scheduler.clone()).collect();
    assert_eq!(
        weights,
        [
            Some(Scheduler::Weighted { weight: 69 }),
            Some(Scheduler::Weighted { weight: 1 }),
            Some(Scheduler::Weighted { weight: 20 }),
            Some(Scheduler::Strict),
            Some(Scheduler::Weighted { weight: 10 }),
            Some(Scheduler::Strict),
            Some(Scheduler::Strict),
            Some(Scheduler::Strict),
        ]
    );
    assert!(p.queues.values().all(|q| q.ecn.is_none()));
}

/// AMD's RoCE guide for an Arista 7388: a QoS profile applied by `service-profile`, whose ECN
/// thresholds count buffer segments (kept without bytes, and said so).
#[test]
fn amd_guide_7388_service_profile_with_segment_thresholds() {
    let (cfg, lines) =
        parsed(include_str!("fixtures/eos/amd-rocm-docs-arista-7388-qos-profile-segments-ecn-service-profile.cfg"));
    assert_eq!(lines, [12, 12], "minimum and maximum thresholds in segments");
    let model = to_model(&cfg);
    assert_eq!(model.ports.keys().collect::<Vec<_>>(), ["Ethernet2/5/1", "Ethernet2/5/5"]);
    for port in model.ports.values() {
        assert_eq!((port.lossless_priorities.clone(), port.trust.as_deref()), (Some(vec![3]), Some("dscp")));
        assert_eq!((port.mtu, port.speed_mbps), (Some(9214), Some(200_000)));
        let ecn = port.queues[&3].ecn.as_ref().expect("ECN on queue 3");
        assert_eq!((ecn.enabled, ecn.min_bytes, ecn.max_bytes, ecn.probability_percent), (true, None, None, Some(20)));
    }
}
