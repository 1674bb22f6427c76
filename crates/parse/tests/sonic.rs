//! `sonic` (the config DB as JSON) on every real sample in tests/fixtures/sonic (see SOURCES.md
//! there): the typed facts, then the vendor-neutral model they convert into.
use fabcheck_parse::sonic::config_db::{ConfigDb, parse};
use fabcheck_parse::sonic::convert::to_model;
use fabcheck_parse::switch::{Ecn, PortQos, Scheduler, SwitchQos};
use std::collections::BTreeMap;

fn read(text: &str) -> (ConfigDb, SwitchQos) {
    let parsed = parse(text).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let model = to_model(&parsed.value);
    (parsed.value, model)
}

fn ecn(min: u64, max: u64) -> Option<Ecn> {
    Some(Ecn {
        enabled: true,
        min_bytes: Some(min),
        max_bytes: Some(max),
        probability_percent: Some(5),
        uncertain_unit: None,
    })
}

fn weighted(weight: u32) -> Option<Scheduler> {
    Some(Scheduler::Weighted { weight })
}

/// Every port's queue `q`: (scheduler, ECN).
fn queue(p: &PortQos, q: u8) -> (Option<Scheduler>, Option<Ecn>) {
    let queue = &p.queues[&q];
    (queue.scheduler.clone(), queue.ecn.clone())
}

#[test]
fn mellanox4600c_uplinks_and_downlinks_differ() {
    let (db, m) = read(include_str!("fixtures/sonic/sonic-cfggen-qos-mellanox4600c-c64.json"));
    assert_eq!(m.ports.len(), 28);
    assert_eq!(db.dscp_to_tc_maps.len(), 2);
    assert_eq!(db.wred_profiles["AZURE_LOSSLESS"].ecn.as_deref(), Some("ecn_all"));
    // Uplinks (AZURE_UPLINK): PFC 3,4; DSCP 2 and 6 to TC 1.
    let up = &m.ports["Ethernet0"];
    assert_eq!(up.lossless_priorities, Some(vec![3, 4]));
    assert_eq!(up.trust.as_deref(), Some("dscp"));
    assert_eq!(up.dscp_to_tc.len(), 64);
    let dscp = |p: &PortQos, d: u8| p.dscp_to_tc[&d];
    assert_eq!([dscp(up, 3), dscp(up, 4), dscp(up, 2), dscp(up, 6), dscp(up, 46), dscp(up, 48)], [3, 4, 1, 1, 5, 7]);
    assert_eq!(up.tc_to_queue, (0..8).map(|t| (t, t)).collect::<BTreeMap<u8, u8>>());
    assert_eq!(queue(up, 3), (weighted(15), ecn(2_000_000, 10_000_000)));
    assert_eq!(queue(up, 4), (weighted(15), ecn(2_000_000, 10_000_000)));
    assert_eq!(queue(up, 2), (weighted(14), None));
    assert_eq!(queue(up, 6), (weighted(14), None));
    assert_eq!(up.queues.len(), 8);
    // Downlinks (AZURE): PFC 2,3,4,6, lossless queues 2 and 6 with ECN too.
    let down = &m.ports["Ethernet136"];
    assert_eq!(down.lossless_priorities, Some(vec![2, 3, 4, 6]));
    assert_eq!([dscp(down, 2), dscp(down, 6), dscp(down, 48)], [2, 6, 7]);
    assert_eq!(queue(down, 2), (weighted(15), ecn(2_000_000, 10_000_000)));
    assert_eq!(queue(down, 6), (weighted(15), ecn(2_000_000, 10_000_000)));
    // No DEVICE_METADATA, PORT or PFC_WD in a template rendering: those stay unknown.
    assert_eq!((m.hostname.clone(), m.pfc_watchdog.clone()), (None, None));
    assert_eq!((up.mtu, up.speed_mbps, up.admin_up, up.pfc_watchdog), (None, None, None, None));
    assert_eq!(db.port_qos_maps["Ethernet0"].pfcwd_sw_enable, Some(vec![3, 4]));
}

#[test]
fn arista7050_wred_in_bytes() {
    let (db, m) = read(include_str!("fixtures/sonic/sonic-cfggen-qos-arista7050.json"));
    assert_eq!(m.ports.len(), 28);
    assert!(!m.ports.contains_key("Ethernet0"), "the sample starts at Ethernet4");
    for p in m.ports.values() {
        assert_eq!(p.lossless_priorities, Some(vec![3, 4]));
        assert_eq!(queue(p, 3), (weighted(15), ecn(1_048_576, 2_097_152)));
        assert_eq!(queue(p, 0), (weighted(14), None));
        assert_eq!(p.dscp_to_tc[&5], 2);
    }
    let w = &db.wred_profiles["AZURE_LOSSLESS"];
    assert_eq!((w.yellow.min_bytes, w.red.max_bytes, w.green.enabled), (Some(1_048_576), Some(2_097_152), Some(true)));
}

#[test]
fn arista7060x6_per_queue_wred_and_ports_without_pfc() {
    let (db, m) = read(include_str!("fixtures/sonic/sonic-cfggen-qos-arista7060x6.json"));
    assert_eq!(m.ports.len(), 130);
    assert_eq!(db.schedulers.len(), 5);
    assert_eq!(db.queues.values().map(|q| q.len()).sum::<usize>(), 1040);
    let p = &m.ports["Ethernet0"];
    assert_eq!(p.lossless_priorities, Some(vec![3, 4]));
    assert_eq!(queue(p, 3), (weighted(20), ecn(131_072, 262_144)));
    assert_eq!(queue(p, 4), (weighted(10), ecn(131_072, 262_144)));
    assert_eq!(queue(p, 6), (weighted(70), None));
    assert_eq!(queue(p, 1), (weighted(10), None));
    assert_eq!((queue(p, 0).0, queue(p, 7).0), (weighted(10), weighted(10)));
    assert_eq!([p.dscp_to_tc[&44], p.dscp_to_tc[&46], p.dscp_to_tc[&47], p.dscp_to_tc[&26]], [6, 5, 1, 0]);
    // Two ports have no pfc_enable while PORT_QOS_MAP exists: PFC is off on them.
    for name in ["Ethernet512", "Ethernet513"] {
        let p = &m.ports[name];
        assert_eq!(p.lossless_priorities, Some(vec![]), "{name}");
        assert_eq!(queue(p, 3), (weighted(20), ecn(131_072, 262_144)), "{name}");
    }
    let with_pfc = m.ports.values().filter(|p| p.lossless_priorities == Some(vec![3, 4])).count();
    assert_eq!(with_pfc, 128);
}

#[test]
fn dell9332_three_schedulers() {
    let (_, m) = read(include_str!("fixtures/sonic/sonic-cfggen-qos-dell9332.json"));
    assert_eq!(m.ports.len(), 32);
    let p = &m.ports["Ethernet248"];
    assert_eq!(p.lossless_priorities, Some(vec![3, 4]));
    assert_eq!(queue(p, 3), (weighted(1), ecn(1_048_576, 2_097_152)));
    assert_eq!(queue(p, 4), (weighted(100), ecn(1_048_576, 2_097_152)));
    assert_eq!(queue(p, 0), (weighted(1), None));
    assert!(!p.queues.contains_key(&7));
}

#[test]
fn arista7050cx3_dualtor_uplinks_use_their_own_maps() {
    let (db, m) = read(include_str!("fixtures/sonic/sonic-cfggen-qos-arista7050cx3-dualtor.json"));
    assert_eq!(m.ports.len(), 32);
    assert_eq!(db.tc_to_dscp_maps["AZURE_TUNNEL"][&8], 33);
    assert_eq!(db.tc_to_pg_maps.len(), 2);
    let down = &m.ports["Ethernet0"];
    assert_eq!(down.lossless_priorities, Some(vec![3, 4]));
    assert_eq!((down.dscp_to_tc[&33], down.dscp_to_tc[&48]), (8, 7));
    assert_eq!((down.tc_to_queue[&2], down.tc_to_queue[&6], down.tc_to_queue[&8]), (1, 1, 1));
    let up = &m.ports["Ethernet24"];
    assert_eq!(up.lossless_priorities, Some(vec![2, 3, 4, 6]));
    assert_eq!((up.dscp_to_tc[&2], up.dscp_to_tc[&6]), (2, 6));
    assert_eq!((up.tc_to_queue[&2], up.tc_to_queue[&6], up.tc_to_queue[&8]), (2, 6, 1));
    assert_eq!(queue(up, 6), (weighted(15), ecn(1_048_576, 2_097_152)));
    assert_eq!(queue(down, 6), (weighted(14), None));
}

/// The VOQ chassis rendering without port configuration: queues of other line cards' system
/// ports, no per-port PFC. Those ports' PFC is configured on their own line card, so it is
/// unknown here (`None`), not off: see `convert`'s doc.
#[test]
fn no_config_voq_system_ports_leave_pfc_unknown() {
    let (db, m) = read(include_str!("fixtures/sonic/sonic-cfggen-qos-no-config.json"));
    assert_eq!(db.port_qos_maps.keys().collect::<Vec<_>>(), ["global"]);
    assert_eq!(m.ports.len(), 144);
    let p = &m.ports["sonic3|asic0|Ethernet0"];
    assert_eq!(p.lossless_priorities, None);
    assert_eq!((p.trust.clone(), p.dscp_to_tc.len(), p.pfc_watchdog), (None, 0, None));
    assert_eq!(queue(p, 3), (None, ecn(2_000_000, 10_000_000)));
    assert_eq!(queue(p, 4), (None, ecn(2_000_000, 10_000_000)));
    assert_eq!(p.queues.len(), 2);
    assert!(m.ports.keys().all(|k| k.starts_with("sonic")));
}

#[test]
fn no_config_with_a_hostname_makes_its_own_system_ports_local() {
    let text = include_str!("fixtures/sonic/sonic-cfggen-qos-no-config.json");
    let mut db = parse(text).expect("parses").value;
    db.device.hostname = Some("sonic3".to_string());
    let m = to_model(&db);
    assert_eq!(m.ports.len(), 144, "sonic3's 36 system ports become its 36 local ports");
    assert!(!m.ports.contains_key("sonic3|asic1|Ethernet144") && m.ports.contains_key("Ethernet144"));
    assert_eq!(m.ports["sonic1|asic0|Ethernet0"].lossless_priorities, None);
    let local = &m.ports["Ethernet0"];
    // PORT_QOS_MAP exists (only `global`): PFC is off on the local port; the global map applies.
    assert_eq!(local.lossless_priorities, Some(vec![]));
    assert_eq!((local.trust.as_deref(), local.dscp_to_tc[&3]), (Some("dscp"), 3));
    assert_eq!(queue(local, 3), (None, ecn(2_000_000, 10_000_000)));
}

#[test]
fn buffers_static_profiles_pools_and_queues() {
    let (db, m) = read(include_str!("fixtures/sonic/sonic-cfggen-buffers-mellanox4600c-t1.json"));
    assert!(m.ports.is_empty(), "buffer tables alone describe no port QoS");
    assert_eq!(m.buffer_profiles.len(), 9);
    let p = &m.buffer_profiles["egress_lossy_profile"];
    assert_eq!((p.pool.as_deref(), p.size_bytes, p.xoff_bytes), (Some("egress_lossy_pool"), Some(9216), None));
    assert_eq!(db.buffer_profiles["ingress_lossless_profile"].dynamic_th, Some(7));
    assert_eq!(db.buffer_profiles["ingress_lossless_zero_profile"].dynamic_th, Some(-8));
    assert_eq!(db.buffer_profiles["ingress_lossy_pg_zero_profile"].static_th, Some(0));
    let pool = &db.buffer_pools["ingress_lossless_pool"];
    assert_eq!(
        (pool.size_bytes, pool.xoff_bytes, pool.mode.as_deref()),
        (Some(44_130_304), Some(8_790_016), Some("dynamic"))
    );
    assert_eq!(db.buffer_pgs.len(), 64);
    assert_eq!(db.buffer_pgs["Ethernet0"], BTreeMap::from([(0, "ingress_lossy_profile".to_string())]));
    assert_eq!(db.buffer_pgs["Ethernet8"][&0], "ingress_lossy_pg_zero_profile");
    let q0 = &db.buffer_queues["Ethernet0"];
    assert_eq!(q0.len(), 8);
    assert_eq!(
        (q0[&0].as_str(), q0[&3].as_str(), q0[&4].as_str(), q0[&7].as_str()),
        ("q_lossy_profile", "egress_lossless_profile", "egress_lossless_profile", "q_lossy_profile")
    );
    assert_eq!(db.buffer_queues["Ethernet8"][&3], "egress_lossless_zero_profile");
    assert_eq!(db.egress_profile_lists["Ethernet8"], ["egress_lossless_zero_profile", "egress_lossy_zero_profile"]);
    assert_eq!(db.ingress_profile_lists["Ethernet0"], ["ingress_lossless_profile"]);
    assert_eq!(db.cable_lengths.len(), 64);
    let len = |p: &str| db.cable_lengths[p].as_str();
    assert_eq!([len("Ethernet0"), len("Ethernet8"), len("Ethernet136")], ["300m", "5m", "40m"]);
    assert!(db.unused_tables.is_empty());
}

#[test]
fn buffers_dynamic_model_null_profiles() {
    let (db, m) = read(include_str!("fixtures/sonic/sonic-cfggen-buffers-mellanox4600c-t1-dynamic.json"));
    assert_eq!(m.buffer_profiles.len(), 5);
    assert_eq!(db.buffer_pools["ingress_lossless_pool"].size_bytes, None, "the dynamic model sizes it");
    assert_eq!(db.buffer_pools["egress_lossless_pool"].size_bytes, Some(60_817_392));
    let pgs = &db.buffer_pgs["Ethernet0"];
    assert_eq!((pgs[&3].as_str(), pgs[&4].as_str(), pgs[&0].as_str()), ("NULL", "NULL", "ingress_lossy_profile"));
    let pgs = &db.buffer_pgs["Ethernet136"];
    assert_eq!(pgs.keys().copied().collect::<Vec<u8>>(), [0, 2, 3, 4, 6]);
    let nulls: usize = db.buffer_pgs.values().map(|p| p.values().filter(|v| *v == "NULL").count()).sum();
    assert_eq!(nulls, 44 * 2 + 20 * 4);
    assert_eq!(db.unused_tables, ["DEFAULT_LOSSLESS_BUFFER_PARAMETER", "LOSSLESS_TRAFFIC_PATTERN"]);
    assert_eq!(db.tables["BUFFER_QUEUE"], 232);
}

#[test]
fn json_is_the_model() {
    let text = include_str!("fixtures/sonic/sonic-cfggen-qos-mellanox4600c-c64.json");
    let json = fabcheck_parse::parse_to_json("sonic", text).expect("known source").expect("parses").value;
    let port = &json["ports"]["Ethernet0"];
    assert_eq!(port["lossless_priorities"], serde_json::json!([3, 4]));
    assert_eq!(port["trust"], "dscp");
    assert_eq!(port["dscp_to_tc"]["48"], 7);
    assert_eq!(port["queues"]["3"]["ecn"]["min_bytes"], 2_000_000);
    assert_eq!(port["queues"]["3"]["scheduler"]["weighted"]["weight"], 15);
}

/// `PORT_QOS_MAP: {}` and `QUEUE: {}` beside buffer tables that name every port: PFC off on each
/// port (not unknown), no queue setting, the cable length and the lossy priority group kept.
#[test]
fn nothing_applied_means_pfc_off_on_every_port() {
    let (_, m) =
        read(include_str!("fixtures/sonic/sonic-utilities-config-qos-reload-dryrun-empty-PORT_QOS_MAP-QUEUE.json"));
    assert_eq!(m.ports.len(), 32);
    let p = &m.ports["Ethernet0"];
    assert_eq!(p.lossless_priorities, Some(vec![]));
    assert!(p.queues.is_empty());
    assert_eq!(
        (p.cable_length_m, p.priority_groups.get(&0).map(String::as_str)),
        (Some(300), Some("ingress_lossy_profile"))
    );
    assert_eq!(p.trust, None, "no map applied to any port");
    assert_eq!(m.dscp_to_tc_maps["AZURE"].get(&46), Some(&5));
}

/// A storage back-end template that classifies by 802.1p only: the maps, WRED profile and
/// schedulers it defines are in the model even though no port applies them.
#[test]
fn a_dot1p_only_template_keeps_its_definitions() {
    let (_, m) = read(include_str!("fixtures/sonic/sonic-cfggen-qos-arista7050-t0-storage-backend.json"));
    assert!(m.dscp_to_tc_maps.is_empty());
    assert_eq!(m.dot1p_to_tc_maps["AZURE"].get(&3), Some(&3));
    assert!(m.ecn_profiles["AZURE_LOSSLESS"].enabled);
    assert_eq!(m.schedulers.len(), 2);
    assert!(m.ports.is_empty(), "a template names no port");
}

/// A whole config DB of a Dell S6000: lossless priority groups 3-4 with their profiles, the
/// cable length of each port, and the profiles' headroom.
#[test]
fn buffers_and_cable_lengths_of_a_real_config_db() {
    let (_, m) = read(include_str!(
        "fixtures/sonic/sonic-config-db-s6000-str-s6000-acs-14-pg_lossless_40000-counterpoll-test.json"
    ));
    let p = &m.ports["Ethernet112"];
    assert_eq!(p.lossless_priorities, Some(vec![3, 4]));
    assert_eq!(p.cable_length_m, Some(40));
    assert_eq!(p.priority_groups.get(&3).map(String::as_str), Some("pg_lossless_40000_40m_profile"));
    assert_eq!(p.tc_to_pg.get(&3), Some(&3));
    assert_eq!((p.speed_mbps, p.mtu), (Some(40_000), Some(9100)));
    assert_eq!(m.buffer_profiles["pg_lossless_40000_300m_profile"].xoff_bytes, Some(55_120));
    // Lossless priority groups on a port with no PORT_QOS_MAP entry: PFC is off there.
    let q = &m.ports["Ethernet104"];
    assert_eq!((q.lossless_priorities.clone(), q.cable_length_m), (Some(vec![]), Some(300)));
    assert_eq!(q.priority_groups.get(&4).map(String::as_str), Some("pg_lossless_40000_300m_profile"));
}

/// NVIDIA's SONiC 202012 guide's PFC example: PFC on 3 and 4, the AZURE DSCP map (which sends
/// DSCP 26 to the lossy TC 1), DWRR schedulers.
#[test]
fn nvidia_docs_pfc_on_3_and_4_with_dscp_26_lossy() {
    let (_, model) = read(include_str!("fixtures/sonic/nvidia-sonic-202012-docs-new_cfg-pfc-dscp26-to-tc1.json"));
    let e0 = &model.ports["Ethernet0"];
    assert_eq!((e0.lossless_priorities.as_deref(), e0.trust.as_deref()), (Some(&[3, 4][..]), Some("dscp")));
    assert_eq!(e0.dscp_to_tc.len(), 64);
    let tc = |d: u8| e0.dscp_to_tc[&d];
    assert_eq!((tc(26), tc(3), tc(4), tc(46), tc(48), tc(8)), (1, 3, 4, 5, 6, 0));
    assert_eq!((e0.tc_to_pg[&3], e0.tc_to_pg[&4], e0.tc_to_pg[&1]), (3, 4, 0));
    assert_eq!(e0.tc_to_queue.iter().filter(|(t, q)| t == q).count(), 8);
    assert_eq!(model.schedulers["scheduler.0"], Scheduler::Weighted { weight: 14 });
    assert_eq!(model.schedulers["scheduler.1"], Scheduler::Weighted { weight: 15 });
}

/// A config DB published with typographic quotes is an error naming its line, not a guess.
#[test]
fn typographic_quotes_are_an_error_at_their_line() {
    let err = parse(include_str!("fixtures/sonic/nvidia-sonic-202012-docs-shared-headroom-smart-quotes-INVALID.json"))
        .expect_err("not JSON");
    assert_eq!(err.line, 6);
    assert!(err.message.contains("cut or malformed"), "{}", err.message);
}

/// Issue 37: a port SONiC runs without PFC, whichever way its config DB says it — the field
/// empty, the port absent from `PORT_QOS_MAP`, the table absent — is PFC on no priority, not
/// unknown (qosorch enables PFC only where `pfc_enable` says), while its neighbours keep theirs.
/// The whole config DB of a real S6000 (`show runningconfiguration all`), changed each way here.
#[test]
fn a_port_without_pfc_enable_has_pfc_off_whichever_way_it_is_missing() {
    let text =
        include_str!("fixtures/sonic/sonic-config-db-s6000-str-s6000-acs-14-pg_lossless_40000-counterpoll-test.json");
    let whole: serde_json::Value = serde_json::from_str(text).unwrap();
    let lossless = |db: &serde_json::Value, port: &str| read(&db.to_string()).1.ports[port].lossless_priorities.clone();
    assert_eq!(lossless(&whole, "Ethernet8"), Some(vec![3, 4]));
    let mut empty = whole.clone();
    empty["PORT_QOS_MAP"]["Ethernet8"]["pfc_enable"] = "".into();
    let mut absent_port = whole.clone();
    absent_port["PORT_QOS_MAP"].as_object_mut().unwrap().remove("Ethernet8");
    let mut absent_table = whole.clone();
    absent_table.as_object_mut().unwrap().remove("PORT_QOS_MAP");
    for (how, db) in [("empty field", &empty), ("absent port", &absent_port), ("absent table", &absent_table)] {
        assert_eq!(lossless(db, "Ethernet8"), Some(vec![]), "{how}");
    }
    assert_eq!(lossless(&empty, "Ethernet4"), Some(vec![3, 4]));
    assert_eq!(lossless(&absent_port, "Ethernet4"), Some(vec![3, 4]));
}
