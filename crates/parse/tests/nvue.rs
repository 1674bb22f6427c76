//! `nv config show -o yaml` on every sample in tests/fixtures/nvue (see SOURCES.md there), and
//! on configurations written from the documented `nv set` commands (no real capture of a RoCE
//! configuration was found: those are marked as constructed).
use fabcheck_parse::nvue::config::parse;
use fabcheck_parse::nvue::convert::to_model;
use fabcheck_parse::switch::{Scheduler, SwitchQos};
use fabcheck_parse::{ParseWarning, Parsed};

fn model(text: &str) -> Parsed<SwitchQos> {
    let parsed = parse(text).expect("parses");
    let mut model = to_model(&parsed.value);
    model.warnings.splice(0..0, parsed.warnings);
    model
}

fn lines(warnings: &[ParseWarning]) -> Vec<usize> {
    warnings.iter().map(|w| w.line).collect()
}

#[test]
fn nvair_export_with_folded_port_keys() {
    let text = include_str!("fixtures/nvue/cl-5.15-vx-nv-config-show-o-yaml-swp-list-keys-nvair-PROVENANCE-WEAK.yaml");
    let config = parse(text).expect("parses").value;
    let header = config.header.clone().expect("header");
    assert_eq!(header.version.map(|v| v.value.0), Some(Some("Cumulus Linux 5.15.0".into())));
    assert_eq!(header.model.map(|v| v.value.0), Some(Some("vx".into())));
    let parsed = to_model(&config);
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let m = parsed.value;
    assert_eq!(m.hostname, None);
    // `swp2,6` and `swp3,7` stand for four ports; eth0 and vlan10 are not ports.
    assert_eq!(m.ports.keys().collect::<Vec<_>>(), ["swp2", "swp3", "swp6", "swp7"]);
    // No QoS configured: the platform defaults, PFC off everywhere.
    let port = &m.ports["swp6"];
    assert_eq!(port.lossless_priorities, Some(vec![]));
    assert_eq!(port.trust.as_deref(), Some("pcp"));
    assert_eq!(port.dscp_to_tc[&26], 3);
    assert_eq!(
        port.queues[&0].ecn.as_ref().map(|e| (e.enabled, e.min_bytes, e.max_bytes)),
        Some((true, Some(150_000), Some(1_500_000)))
    );
    assert_eq!(port.queues[&3].ecn.as_ref().map(|e| e.enabled), Some(false));
    assert_eq!(port.queues[&1].scheduler, Some(Scheduler::Weighted { weight: 13 }));
    assert_eq!(port.pfc_watchdog, Some(false));
    assert_eq!((port.mtu, port.speed_mbps, port.admin_up), (None, None, None));
    let wd = m.pfc_watchdog.expect("watchdog timers");
    assert_eq!((wd.enabled, wd.detection_ms, wd.restoration_ms), (false, Some(300), Some(100)));
}

#[test]
fn docs_config_find_bond1_keeps_on_as_text() {
    let text = include_str!("fixtures/nvue/cumulus-5.12-nv-config-find-bond1-docs.yaml");
    let parsed = model(text);
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    assert!(parsed.value.ports.is_empty(), "a bond is not a port");
}

#[test]
fn rest_api_applied_tree_with_explicit_defaults() {
    let text = include_str!("fixtures/nvue/cl-5.5.1-vx-nvue-api-rev-applied-json-air-workshop-PROVENANCE-WEAK.json");
    let config = parse(text).expect("parses").value;
    let version = config.header.clone().and_then(|h| h.version).map(|v| v.value.0);
    assert_eq!(version, Some(Some("Cumulus Linux 5.5.1".into())));
    let qos = config.set.qos.clone().expect("qos");
    let roce = qos.roce.expect("roce").enable.expect("enable");
    assert_eq!(roce.value.0.as_deref(), Some("off"));
    assert_eq!(qos.egress_scheduler.get("default-global").map(|p| p.traffic_class.0.len()), Some(8));
    let parsed = to_model(&config);
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    assert_eq!(parsed.value.hostname.as_deref(), Some("cumulus"));
    assert!(parsed.value.ports.is_empty(), "eth0 and lo only");
}

/// Constructed from the `nv set` commands of the Cumulus Linux 5.12 QoS and RoCE pages.
const ROCE_CONFIG: &str = "\
cumulus@leaf01:mgmt:~$ nv config show -o yaml
- header:
    model: SN5600
    nvue-api-version: nvue_v1
    rev-id: 1.0
    version: Cumulus Linux 5.12.0
- set:
    interface:
      swp1-4:
        link:
          mtu: 9216
          speed: 400G
        qos:
          pfc-watchdog: {}
        type: swp
      swp5:
        link:
          mtu: 4200
          state:
            down: {}
        qos:
          congestion-control:
            profile: my-red-profile
          pfc:
            profile: my_pfc_ports
        type: swp
      swp6,8:
        qos:
          egress-scheduler:
            profile: missing
          pfc-watchdog:
            state: disable
        type: swp
    qos:
      congestion-control:
        default-global:
          traffic-class:
            '3':
              max-threshold: 200000
              min-threshold: 40000
        my-red-profile:
          traffic-class:
            1,2:
              min-threshold-bytes: 40000
              probability: 10
      mapping:
        default-global:
          dscp:
            '10':
              switch-priority: 3
          trust: l3
      pfc:
        my_pfc_ports:
          switch-priority:
            3,5: {}
      pfc-watchdog:
        polling-interval: 200
        robustness: 5
      roce:
        enable: on
        mode: lossless
    system:
      hostname: leaf01
";

#[test]
fn roce_lossless_with_profiles_constructed() {
    let parsed = model(ROCE_CONFIG);
    let m = &parsed.value;
    assert_eq!(m.hostname.as_deref(), Some("leaf01"));
    let names: Vec<_> = m.ports.keys().map(String::as_str).collect();
    assert_eq!(names, ["swp1", "swp2", "swp3", "swp4", "swp5", "swp6", "swp8"]);
    let wd = m.pfc_watchdog.clone().expect("watchdog");
    assert_eq!((wd.detection_ms, wd.restoration_ms, wd.action.as_deref()), (Some(1000), Some(200), Some("drop")));

    let p = &m.ports["swp2"];
    assert_eq!(p.lossless_priorities, Some(vec![3]));
    assert_eq!(p.trust.as_deref(), Some("dscp"));
    assert_eq!((p.dscp_to_tc[&26], p.dscp_to_tc[&48], p.dscp_to_tc[&10], p.dscp_to_tc[&0]), (3, 6, 3, 0));
    assert_eq!((p.mtu, p.speed_mbps, p.pfc_watchdog), (Some(9216), Some(400_000), Some(true)));
    let ecn3 = p.queues[&3].ecn.clone().expect("ecn");
    assert_eq!(
        (ecn3.enabled, ecn3.min_bytes, ecn3.max_bytes, ecn3.probability_percent),
        (true, Some(40_000), Some(200_000), Some(100))
    );
    assert_eq!(p.queues[&6].scheduler, Some(Scheduler::Strict));
    assert_eq!(p.queues[&3].scheduler, Some(Scheduler::Weighted { weight: 50 }));
    assert_eq!(p.queues[&1].scheduler, None);

    let p = &m.ports["swp5"];
    assert_eq!(p.lossless_priorities, Some(vec![3, 5]));
    assert_eq!((p.mtu, p.admin_up, p.pfc_watchdog), (Some(4200), Some(false), Some(false)));
    assert_eq!(p.queues[&3].ecn.as_ref().map(|e| e.enabled), Some(false), "the port profile replaces TC 3");
    let ecn1 = p.queues[&1].ecn.clone().expect("ecn");
    assert_eq!(
        (ecn1.enabled, ecn1.min_bytes, ecn1.max_bytes, ecn1.probability_percent),
        (true, Some(40_000), None, Some(10))
    );

    // An undefined scheduler profile keeps the default one, and says so at the port's key.
    let p = &m.ports["swp8"];
    assert_eq!(p.pfc_watchdog, Some(false));
    assert_eq!(p.queues[&6].scheduler, Some(Scheduler::Strict));
    assert_eq!(lines(&parsed.warnings), [27, 27]);
    assert!(parsed.warnings[0].message.contains("`missing`"), "{:?}", parsed.warnings);
}

#[test]
fn lossy_rx_off_and_unreadable_values_constructed() {
    let text = "\
- set:
    interface:
      swp1:
        link:
          mtu: big
          speed: fast
        type: swp
      swp9-3:
        type: swp
    qos:
      pfc:
        default-global:
          rx: disable
          switch-priority:
            '4': {}
      roce:
        enable: on
        mode: lossy
";
    let parsed = model(text);
    let p = &parsed.value.ports["swp1"];
    assert_eq!(p.lossless_priorities, Some(vec![]), "pause frames not honoured: not lossless");
    assert_eq!((p.mtu, p.speed_mbps), (None, None));
    assert_eq!(lines(&parsed.warnings), [5, 6, 8]);
    assert_eq!(parsed.value.ports.len(), 1);
}

#[test]
fn json_is_the_model() {
    let json = fabcheck_parse::parse_to_json("nvue", ROCE_CONFIG).expect("known source").expect("parses").value;
    assert_eq!(json["hostname"], "leaf01");
    assert_eq!(json["ports"]["swp1"]["lossless_priorities"][0], 3);
    assert_eq!(json["ports"]["swp1"]["trust"], "dscp");
    assert_eq!(json["ports"]["swp1"]["queues"]["6"]["scheduler"], "strict");
    assert_eq!(json["warnings"], serde_json::Value::Null);
}
