//! Switches and paths against the lab: 4 hosts, two leaves (SONiC leaf1, EOS leaf2), two spines
//! (NVUE spine1, SONiC spine2). A fault on one switch port must be reported at exactly that hop,
//! on exactly the paths through it, and nowhere else.

use crate::util::{Run, RunningLab, audit, key, start_fabric, start_platforms};
use fabcheck_model::Severity;
use std::collections::BTreeSet;

type Key = (String, String, Option<String>);

/// Audits a 4-host 2+2 fabric with `faults`; the lab (and the report directory in it) lives as
/// long as the first value.
fn fabric(faults: &[&str]) -> (RunningLab, Run) {
    let lab = start_fabric(4, 2, 2, faults);
    let run = audit(&lab, &[]);
    (lab, run)
}

/// The paths (hop lists) the report lists that go through `hop`.
fn paths_through(run: &Run, hop: &str) -> BTreeSet<Vec<String>> {
    run.json()["paths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            p["hops"].as_array().unwrap().iter().map(|h| h["hop"].as_str().unwrap().to_string()).collect::<Vec<_>>()
        })
        .filter(|hops| hops.iter().any(|h| h == hop))
        .collect()
}

/// Asserts the findings other than `path.inconsistent` are exactly `expected`, and that
/// `path.inconsistent` names `device:port` on exactly the paths through it.
fn expect_hop(run: &Run, device: &str, port: &str, expected: &[Key]) {
    let findings = run.findings();
    let others: BTreeSet<Key> = run.keys().into_iter().filter(|(code, ..)| code != "path.inconsistent").collect();
    assert_eq!(others, expected.iter().cloned().collect(), "{}", run.stdout);
    let path_findings: Vec<_> = findings.iter().filter(|f| f.code == "path.inconsistent").collect();
    assert!(!path_findings.is_empty(), "no path.inconsistent: {}", run.stdout);
    for f in &path_findings {
        assert_eq!((f.device.as_str(), f.port.as_deref()), (device, Some(port)), "{}", f.message);
    }
    let named: BTreeSet<Vec<String>> = path_findings.iter().map(|f| f.path.clone()).collect();
    let hop = format!("{device}:{port}");
    assert_eq!(named, paths_through(run, &hop), "exactly the paths through {hop}");
    assert_eq!(named.len(), path_findings.len(), "one finding per path");
}

#[test]
fn a_clean_fabric_passes_on_every_path() {
    let (_lab, run) = fabric(&[]);
    assert_eq!(run.keys(), BTreeSet::new(), "{}", run.stdout);
    let json = run.json();
    assert_eq!(json["verdict"], "pass");
    assert_eq!(json["summary"]["switches"], 4);
    assert_eq!(json["paths_total"], 16, "4 hosts × 2 rails × 2 spines");
    assert!(
        json["paths"].as_array().unwrap().iter().all(|p| p["hops"].as_array().unwrap().iter().all(|h| h["ok"] == true))
    );
    assert!(run.stdout.contains("paths: 16 GPU paths"), "{}", run.stdout);
}

#[test]
fn pfc_off_on_a_leaf_host_port() {
    let (_lab, run) = fabric(&["leaf1=pfc-off@Ethernet8"]);
    expect_hop(&run, "leaf1", "Ethernet8", &[key("switch.pfc_mismatch", "leaf1", Some("Ethernet8"))]);
    let diff = run.findings().into_iter().find(|f| f.code == "switch.pfc_mismatch").unwrap().diff.unwrap();
    assert!(diff.contains("-pfc priorities: 3") && diff.contains("+pfc priorities: none"), "{diff}");
    assert_eq!(paths_through(&run, "leaf1:Ethernet8").len(), 2, "gpu002's first rail, through each spine");
}

#[test]
fn pfc_off_on_a_host_is_caught_from_the_host_side() {
    let (_lab, run) = fabric(&["gpu002=pfc-off"]);
    expect_hop(&run, "gpu002", "ens1np0", &[key("nic.pfc_mismatch", "gpu002", Some("ens1np0"))]);
}

#[test]
fn ecn_off_on_an_eos_leaf_port() {
    let (_lab, run) = fabric(&["leaf2=ecn-off@Ethernet3/1"]);
    expect_hop(&run, "leaf2", "Ethernet3/1", &[key("switch.ecn_disabled", "leaf2", Some("Ethernet3/1"))]);
}

#[test]
fn ecn_thresholds_on_an_nvue_spine_port() {
    let (_lab, run) = fabric(&["spine1=ecn-threshold@swp2"]);
    expect_hop(&run, "spine1", "swp2", &[key("switch.ecn_threshold", "spine1", Some("swp2"))]);
    assert_eq!(paths_through(&run, "spine1:swp2").len(), 4, "the two hosts of leaf2, two rails each");
}

#[test]
fn cnp_in_a_weighted_queue_on_a_leaf_uplink() {
    let (_lab, run) = fabric(&["leaf1=cnp-queue@Ethernet16"]);
    expect_hop(&run, "leaf1", "Ethernet16", &[key("switch.cnp_queue_not_strict", "leaf1", Some("Ethernet16"))]);
}

/// A missing watchdog is a warning at its port: the chain is still lossless, so no path breaks
/// and the run does not fail.
#[test]
fn pfc_watchdog_off_on_a_sonic_spine_port_is_a_warning_that_breaks_no_path() {
    let (_lab, run) = fabric(&["spine2=pfcwd-off@Ethernet4"]);
    assert_eq!(
        run.keys(),
        BTreeSet::from([key("switch.pfc_watchdog_disabled", "spine2", Some("Ethernet4"))]),
        "{}",
        run.stdout
    );
    assert_eq!(run.json()["verdict"], "warn");
    assert!(run.stdout.contains("0 failing"), "{}", run.stdout);
    assert_eq!(run.code, 0, "a warning is below --fail-on error");
}

#[test]
fn mtu_below_the_hosts_on_a_leaf_port() {
    let (_lab, run) = fabric(&["leaf2=mtu-low@Ethernet1/1"]);
    expect_hop(&run, "leaf2", "Ethernet1/1", &[key("switch.mtu_mismatch", "leaf2", Some("Ethernet1/1"))]);
}

#[test]
fn a_dscp_map_wrong_on_a_whole_switch_breaks_every_path_through_it() {
    let (_lab, run) = fabric(&["leaf2=dscp-map"]);
    let others: BTreeSet<Key> = run.keys().into_iter().filter(|(code, ..)| code != "path.inconsistent").collect();
    assert!(
        !others.is_empty()
            && others.iter().all(|(code, device, _)| code == "switch.dscp_map_mismatch" && device == "leaf2"),
        "{others:?}"
    );
    let path_findings: Vec<_> = run.findings().into_iter().filter(|f| f.code == "path.inconsistent").collect();
    assert_eq!(path_findings.len(), 8, "every path of leaf2's two hosts");
    assert!(path_findings.iter().all(|f| f.device == "leaf2"));
}

#[test]
fn a_half_speed_uplink_is_reported_at_both_of_its_ends() {
    let (_lab, run) = fabric(&["leaf1=link-half-speed@Ethernet16"]);
    let others: BTreeSet<Key> = run.keys().into_iter().filter(|(code, ..)| code != "path.inconsistent").collect();
    let ends: BTreeSet<(String, String)> = others
        .iter()
        .filter(|(c, ..)| c == "switch.link_degraded")
        .map(|(_, d, p)| (d.clone(), p.clone().unwrap()))
        .collect();
    assert!(ends.contains(&("leaf1".into(), "Ethernet16".into())), "{others:?}");
    assert_eq!(ends.len(), 2, "the leaf's end and the spine's: {others:?}");
    assert!(others.iter().all(|(c, ..)| c == "switch.link_degraded"), "{others:?}");
    assert!(
        run.findings()
            .iter()
            .filter(|f| f.code == "path.inconsistent")
            .all(|f| f.device == "leaf1" && f.port.as_deref() == Some("Ethernet16"))
    );
}

#[test]
fn a_one_sided_lldp_view_is_path_unknown() {
    let (_lab, run) = fabric(&["leaf1=lldp-missing@Ethernet8"]);
    assert_eq!(run.keys(), BTreeSet::from([key("path.unknown", "gpu002", Some("ens1np0"))]), "{}", run.stdout);
    let f = run.findings().into_iter().find(|f| f.code == "path.unknown").unwrap();
    assert_eq!(f.evidence, ["gpu002/lldp.txt", "leaf1/lldp.txt"]);
}

/// A storm is a pause-frame rate at its port on every platform, and a watchdog finding where
/// the switch counts storms: SONiC (`pfcwd show stats`) and NVUE (`qos pfc-watchdog`); EOS's
/// watchdog statistics are not read.
#[test]
fn a_pfc_storm_is_a_counter_finding_and_the_watchdogs_at_that_port() {
    let (_lab, run) = fabric(&["leaf1=pfc-storm@Ethernet8", "spine1=pfc-storm@swp2", "leaf2=pfc-storm@Ethernet3/1"]);
    assert_eq!(
        run.keys(),
        BTreeSet::from([
            key("counter.pause_storm", "leaf1", Some("Ethernet8")),
            key("counter.pause_storm", "spine1", Some("swp2")),
            key("counter.pause_storm", "leaf2", Some("Ethernet3/1")),
            key("switch.pfc_storm", "leaf1", Some("Ethernet8")),
            key("switch.pfc_storm", "spine1", Some("swp2")),
        ]),
        "{}",
        run.stdout
    );
    let storms: Vec<_> = run.findings().into_iter().filter(|f| f.code == "switch.pfc_storm").collect();
    assert!(storms.iter().all(|f| f.severity == Severity::Critical), "{storms:?}");
    let sonic = storms.iter().find(|f| f.device == "leaf1").unwrap();
    assert!(sonic.message.contains("pause frames on priority 3"), "{}", sonic.message);
    assert!(sonic.evidence.iter().any(|e| e.contains("pfcwd_stats.t1")), "{:?}", sonic.evidence);
}

/// Drops on a lossless queue with no pause frame either way, on SONiC, EOS and NVUE (whose drop
/// counters are read): named as transmit-side drops, and as lossless not in effect.
#[test]
fn drops_without_pauses_are_lossless_not_in_effect() {
    let (_lab, run) =
        fabric(&["leaf1=lossless-drops@Ethernet8", "leaf2=lossless-drops@Ethernet3/1", "spine1=lossless-drops@swp2"]);
    assert_eq!(
        run.keys(),
        BTreeSet::from([
            key("counter.tx_discards", "leaf1", Some("Ethernet8")),
            key("switch.lossless_not_effective", "leaf1", Some("Ethernet8")),
            key("counter.tx_discards", "leaf2", Some("Ethernet3/1")),
            key("switch.lossless_not_effective", "leaf2", Some("Ethernet3/1")),
            key("counter.tx_discards", "spine1", Some("swp2")),
            key("switch.lossless_not_effective", "spine1", Some("swp2")),
        ]),
        "{}",
        run.stdout
    );
    for f in run.findings().into_iter().filter(|f| f.code == "switch.lossless_not_effective") {
        assert!(f.actual.contains("transmit-side drops on egress queue 3"), "{}", f.actual);
        assert!(f.actual.ends_with("pause frames 0 received, 0 sent"), "{}", f.actual);
    }
    let eos = run.findings().into_iter().find(|f| f.device == "leaf2" && f.code == "counter.tx_discards").unwrap();
    assert!(eos.evidence.iter().any(|e| e.contains("queue_counters.t1")), "{:?}", eos.evidence);
}

/// Every host of the 4-host fabric with `mode` (`lldp-mac`, `lldpd-missing`), and `faults`.
fn hosts_with(mode: &str, faults: &[&str]) -> Vec<String> {
    (1..=4).map(|i| format!("gpu{i:03}={mode}")).chain(faults.iter().map(|f| f.to_string())).collect()
}

fn fabric_of(faults: &[String]) -> (RunningLab, Run) {
    let faults: Vec<&str> = faults.iter().map(String::as_str).collect();
    fabric(&faults)
}

/// Switch-port faults on each platform, and the finding each must give at its port.
const PORT_FAULTS: [(&str, &str, &str, &str); 6] = [
    ("leaf1=pfc-off@Ethernet8", "switch.pfc_mismatch", "leaf1", "Ethernet8"),
    ("leaf2=ecn-off@Ethernet3/1", "switch.ecn_disabled", "leaf2", "Ethernet3/1"),
    ("spine1=ecn-threshold@swp2", "switch.ecn_threshold", "spine1", "swp2"),
    ("leaf1=pfcwd-off@Ethernet0", "switch.pfc_watchdog_disabled", "leaf1", "Ethernet0"),
    ("leaf2=cnp-queue@Ethernet1/1", "switch.cnp_queue_not_strict", "leaf2", "Ethernet1/1"),
    ("spine2=mtu-low@Ethernet4", "switch.mtu_mismatch", "spine2", "Ethernet4"),
];

/// A leaf port classifying by 802.1p (SONiC's dot1p map, EOS `qos trust cos`) where the policy
/// trusts DSCP, and a SONiC port whose lossless priority group has too little headroom: each
/// named at its port, alone (the DSCP map a PCP port never reads is not judged).
#[test]
fn trust_and_headroom_are_found_at_their_ports() {
    let (_lab, run) =
        fabric(&["leaf1=trust-pcp@Ethernet8", "leaf2=trust-pcp@Ethernet3/1", "leaf1=headroom-small@Ethernet12"]);
    let switch: BTreeSet<_> = run.keys().into_iter().filter(|(code, ..)| code.starts_with("switch.")).collect();
    assert_eq!(
        switch,
        BTreeSet::from([
            key("switch.trust_mismatch", "leaf1", Some("Ethernet8")),
            key("switch.trust_mismatch", "leaf2", Some("Ethernet3/1")),
            key("switch.pfc_headroom_insufficient", "leaf1", Some("Ethernet12")),
        ]),
        "{}",
        run.stdout
    );
    let headroom = run.findings().into_iter().find(|f| f.code == "switch.pfc_headroom_insufficient").unwrap();
    assert_eq!(
        (headroom.expected.as_str(), headroom.actual.as_str()),
        ("xoff ≥ 149467 bytes", "xoff 65536 bytes (pg_lossless_400000_5m_profile_xoff65536)")
    );
}

/// SONiC's PFC watchdog BIG_RED_SWITCH left on (config DB and `pfcwd show config`): one
/// critical finding on the switch, none on its ports, whose PFC configuration is intact.
#[test]
fn the_big_red_switch_is_found_on_its_switch() {
    let (_lab, run) = fabric(&["leaf1=big-red-switch"]);
    assert_eq!(
        run.keys(),
        BTreeSet::from([key("switch.pfc_watchdog_big_red_switch", "leaf1", None)]),
        "{}",
        run.stdout
    );
    let f = run.findings().into_iter().find(|f| f.code == "switch.pfc_watchdog_big_red_switch").unwrap();
    assert_eq!(
        (f.severity, f.expected.as_str(), f.actual.as_str()),
        (Severity::Critical, "BIG_RED_SWITCH disable", "enable")
    );
}

/// lldpd's default advertises each host port by MAC (`PortID: mac ...`, `PortDescr: ens1np0`):
/// the switches' views resolve to the hosts' netdevs through their `ip link` MACs.
#[test]
fn hosts_advertising_mac_port_ids_give_every_path_and_no_unknown_link() {
    let (_lab, run) = fabric_of(&hosts_with("lldp-mac", &[]));
    assert_eq!(run.keys(), BTreeSet::new(), "{}", run.stdout);
    assert_eq!(run.json()["paths_total"], 16, "4 hosts × 2 rails × 2 spines");
}

#[test]
fn with_mac_port_ids_every_switch_port_fault_is_found_at_its_port() {
    let faults: Vec<&str> = PORT_FAULTS.iter().map(|(f, ..)| *f).collect();
    let (_lab, run) = fabric_of(&hosts_with("lldp-mac", &faults));
    let keys = run.keys();
    for (_, code, device, port) in PORT_FAULTS {
        assert!(keys.contains(&key(code, device, Some(port))), "{code} at {device}:{port}: {}", run.stdout);
    }
    assert!(keys.iter().all(|(code, ..)| code != "path.unknown"), "{}", run.stdout);
    let broken: BTreeSet<String> = run
        .findings()
        .iter()
        .filter(|f| f.code == "path.inconsistent")
        .map(|f| format!("{}:{}", f.device, f.port.clone().unwrap_or_default()))
        .collect();
    assert_eq!(
        broken,
        BTreeSet::from([
            "leaf1:Ethernet8".into(),
            "leaf2:Ethernet1/1".into(),
            "leaf2:Ethernet3/1".into(),
            "spine1:swp2".into(),
            "spine2:Ethernet4".into()
        ]),
        "the watchdog warning breaks no path"
    );
}

/// Hosts that run no LLDP at all: no host link is known, yet every leaf port with a
/// configuration is judged, so a host port with PFC off and one with no watchdog are reported.
#[test]
fn leaf_port_faults_are_found_when_the_hosts_run_no_lldp() {
    let (_lab, run) =
        fabric_of(&hosts_with("lldpd-missing", &["leaf1=pfc-off@Ethernet8", "leaf2=pfcwd-off@Ethernet1/1"]));
    let switch_findings: BTreeSet<Key> =
        run.keys().into_iter().filter(|(code, ..)| code.starts_with("switch.")).collect();
    assert_eq!(
        switch_findings,
        BTreeSet::from([
            key("switch.pfc_mismatch", "leaf1", Some("Ethernet8")),
            key("switch.pfc_watchdog_disabled", "leaf2", Some("Ethernet1/1")),
        ]),
        "{}",
        run.stdout
    );
    let missing: BTreeSet<Key> = run.keys().into_iter().filter(|(code, ..)| code == "collect.tool_missing").collect();
    assert_eq!(missing.len(), 4, "each host says lldpctl is missing: {missing:?}");
    assert!(run.keys().iter().all(|(code, ..)| code != "path.unknown"), "nobody claims a host link: {}", run.stdout);
}

/// Leaves running Cisco NX-OS (leaf1) and Dell OS10 (leaf2) under SONiC and EOS spines, audited
/// over SSH like the others.
fn cli_fabric(faults: &[&str]) -> (RunningLab, Run) {
    use fabcheck_lab::Platform;
    let lab = start_platforms(4, &[Platform::Nxos, Platform::DellOs10], &[Platform::Sonic, Platform::Eos], faults);
    let run = audit(&lab, &[]);
    (lab, run)
}

#[test]
fn nxos_and_os10_leaves_are_audited_and_pass_when_healthy() {
    let (_lab, run) = cli_fabric(&[]);
    assert_eq!(run.keys(), BTreeSet::new(), "{}", run.stdout);
    let json = run.json();
    assert_eq!(json["paths_total"], 16, "4 hosts × 2 rails × 2 spines: {}", run.stdout);
    assert_eq!(json["summary"]["switches"], 4);
    // OS10 shows no PFC watchdog: said once for the switch, at info, with how many ports.
    let unknown: Vec<_> = run.findings().into_iter().filter(|f| f.code == "switch.setting_unknown").collect();
    let said: Vec<(&str, Option<&str>, &str)> =
        unknown.iter().map(|f| (f.device.as_str(), f.port.as_deref(), f.actual.as_str())).collect();
    assert_eq!(said, [("leaf2", None, "unknown on 6 of 6 judged ports")], "{}", run.stdout);
    assert_eq!(unknown[0].severity, Severity::Info);
    assert!(unknown[0].message.contains("PFC watchdog"), "{}", unknown[0].message);
    // NX-OS 10.x's LLDP detail (VLAN-name and link-aggregation TLVs) is read whole.
    let nxos = json["devices"].as_array().unwrap().iter().find(|d| d["name"] == "leaf1").unwrap();
    let unread: Vec<&serde_json::Value> = nxos["unread"]
        .as_array()
        .map(|u| u.iter().filter(|o| o["evidence"] == "leaf1/lldp.txt").collect())
        .unwrap_or_default();
    assert!(unread.is_empty(), "{unread:#?}");
    let lldp = std::fs::read_to_string(run.out.join("evidence/leaf1/lldp.txt")).unwrap();
    assert!(lldp.contains("Vlan Name TLV:\n[Vlan ID: Vlan Name]  not advertised\nLink Aggregation TLV: "), "{lldp}");
}

/// An NX-OS leaf whose running-config has no watchdog line at all: the watchdog was never
/// configured, a warning on each judged port saying why, breaking no path.
#[test]
fn an_nxos_leaf_without_any_watchdog_line_has_no_watchdog() {
    let (_lab, run) = cli_fabric(&["leaf1=pfcwd-unset"]);
    let keys = run.keys();
    assert_eq!(keys.len(), 6, "every judged port of leaf1: {}", run.stdout);
    assert!(
        keys.iter()
            .all(|(code, device, port)| code == "switch.pfc_watchdog_disabled" && device == "leaf1" && port.is_some())
    );
    let f = run.findings().into_iter().find(|f| f.code == "switch.pfc_watchdog_disabled").unwrap();
    assert_eq!(f.severity, Severity::Warning);
    assert!(
        f.message.contains("no `priority-flow-control watch-dog-interval on` in the running-config"),
        "{}",
        f.message
    );
    assert!(run.findings().iter().all(|f| f.code != "switch.setting_unknown" || f.device != "leaf1"));
}

#[test]
fn pfc_off_on_an_nxos_leaf_port() {
    let (_lab, run) = cli_fabric(&["leaf1=pfc-off@Ethernet1/3"]);
    expect_hop(&run, "leaf1", "Ethernet1/3", &[key("switch.pfc_mismatch", "leaf1", Some("Ethernet1/3"))]);
}

#[test]
fn ecn_off_on_an_os10_leaf_port() {
    let (_lab, run) = cli_fabric(&["leaf2=ecn-off@ethernet1/1/1"]);
    expect_hop(&run, "leaf2", "ethernet1/1/1", &[key("switch.ecn_disabled", "leaf2", Some("ethernet1/1/1"))]);
}

/// Drops on an OS10 leaf's lossless queue are read from each port's `show queuing statistics`
/// and judged, named as OS10 prints the port; OS10's pause counters are not read, so the drops
/// are not judged against them (no `switch.lossless_not_effective`).
#[test]
fn drops_on_an_os10_leaf_queue_are_found_at_its_port() {
    let (_lab, run) = cli_fabric(&["leaf2=lossless-drops@ethernet1/1/1"]);
    assert_eq!(
        run.keys(),
        BTreeSet::from([key("counter.tx_discards", "leaf2", Some("ethernet1/1/1"))]),
        "{}",
        run.stdout
    );
    let f = run.findings().into_iter().find(|f| f.code == "counter.tx_discards").unwrap();
    assert!(f.evidence.iter().any(|e| e.ends_with("queuing.ethernet1-1-1.t1.txt")), "{:?}", f.evidence);
}

/// A finding on an OS10 port names it as OS10 prints it (`ethernet1/1/2`), in the finding, the
/// paths through it and the diff; canonical names are for matching only.
#[test]
fn pfc_off_on_an_os10_leaf_port_is_named_as_os10_prints_it() {
    let (_lab, run) = cli_fabric(&["leaf2=pfc-off@ethernet1/1/2"]);
    expect_hop(&run, "leaf2", "ethernet1/1/2", &[key("switch.pfc_mismatch", "leaf2", Some("ethernet1/1/2"))]);
    let f = run.findings().into_iter().find(|f| f.code == "switch.pfc_mismatch").unwrap();
    assert!(f.diff.as_deref().unwrap().contains("actual leaf2:ethernet1/1/2"), "{:?}", f.diff);
    let hops = paths_through(&run, "leaf2:ethernet1/1/2");
    assert!(!hops.is_empty(), "{}", run.stdout);
    assert!(!run.stdout.contains("Ethernet1/1/"), "no canonical OS10 name reaches the report: {}", run.stdout);
}

/// An EOS leaf answers `show interfaces status` and `show lldp neighbors detail` as eAPI JSON,
/// which fabcheck asks for first; a leaf whose CLI refuses `| json` is read as text: the same
/// verdict either way, and the evidence says which form was read and why.
#[test]
fn eos_is_read_as_json_where_it_answers_and_as_text_where_it_refuses() {
    let commands = |run: &Run| -> serde_json::Value {
        let text = std::fs::read_to_string(run.out.join("evidence/leaf2/commands.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    };
    let of = |c: &serde_json::Value, key: &str| -> serde_json::Value {
        c.as_array().unwrap().iter().find(|e| e["key"] == key).unwrap_or_else(|| panic!("{key}: {c}")).clone()
    };
    let (_lab, json) = fabric(&[]);
    assert_eq!(json.keys(), BTreeSet::new(), "{}", json.stdout);
    let c = commands(&json);
    assert_eq!(of(&c, "interfaces")["command"], "show interfaces status | json");
    assert_eq!(of(&c, "lldp")["command"], "show lldp neighbors detail | json");
    assert!(of(&c, "lldp").get("json_refused").is_none());
    let (_lab, text) = fabric(&["leaf2=json-refused"]);
    assert_eq!(text.keys(), BTreeSet::new(), "{}", text.stdout);
    assert_eq!(text.json()["paths_total"], json.json()["paths_total"]);
    let c = commands(&text);
    let lldp = of(&c, "lldp");
    assert_eq!(lldp["command"], "show lldp neighbors detail");
    assert!(lldp["json_refused"].as_str().unwrap().contains("This is an unconverted command"), "{lldp}");
}

/// An OS10 port applying its PFC policy by a misspelt name: the undefined policy, with the
/// defined one it resembles, and the PFC it leaves off.
#[test]
fn a_misspelt_policy_on_an_os10_leaf_port() {
    let (_lab, run) = cli_fabric(&["leaf2=qos-policy-typo@ethernet1/1/1"]);
    let port = Some("ethernet1/1/1");
    expect_hop(
        &run,
        "leaf2",
        "ethernet1/1/1",
        &[key("switch.qos_policy_undefined", "leaf2", port), key("switch.pfc_mismatch", "leaf2", port)],
    );
    let f = run.findings().into_iter().find(|f| f.code == "switch.qos_policy_undefined").unwrap();
    assert_eq!(f.actual, "service-policy input type network-qos ROCE-PFC-3 applied, not defined");
    assert!(f.message.contains("`policy-map type network-qos ROCE_PFC_3` is"), "{}", f.message);
}

/// Switches mark ECN on the hosts' paths during a 3 s window (NVUE counts the marks: leaf1 and
/// spine1 run it): a host whose notification point is off sends no CNP, one whose reaction point
/// is off handles none, and each is named on its side of the loop.
#[test]
fn ecn_marks_without_cnps_name_the_host_side_that_does_not_close_the_loop() {
    use fabcheck_lab::Platform;
    let faults = ["gpu001=dcqcn-np-off", "gpu002=dcqcn-rp-off@mlx5_1"];
    let lab = start_platforms(4, &[Platform::Nvue, Platform::Sonic], &[Platform::Nvue], &faults);
    let run = audit(&lab, &["--window", "3s"]);
    let open: BTreeSet<Key> = run.keys().into_iter().filter(|(code, ..)| code == "nic.dcqcn_inactive").collect();
    assert_eq!(
        open,
        BTreeSet::from([
            key("nic.dcqcn_inactive", "gpu001", Some("ens1np0")),
            key("nic.dcqcn_inactive", "gpu002", Some("ens2np0"))
        ]),
        "{}",
        run.stdout
    );
    let findings = run.findings();
    let np = findings.iter().find(|f| f.code == "nic.dcqcn_inactive" && f.device == "gpu001").unwrap();
    assert!(np.message.contains("NP side") && np.actual == "np_cnp_sent +0", "{}", np.message);
    assert_eq!(np.caused_by, ["nic.dcqcn_disabled"]);
    let rp = findings.iter().find(|f| f.code == "nic.dcqcn_inactive" && f.device == "gpu002").unwrap();
    assert!(rp.message.contains("RP side") && rp.message.contains("leaf1:swp5"), "{}", rp.message);
    // The healthy hosts close the loop: nothing on gpu003 and gpu004.
    assert!(run.keys().iter().all(|(_, device, _)| device == "gpu001" || device == "gpu002"), "{}", run.stdout);
}

/// A SONiC switch whose config DB has no `PORT_QOS_MAP` (`qos-map-absent`: QoS maps defined,
/// bound to no port): every linked port has PFC on no priority and classifies neither the RoCE
/// nor the CNP DSCP, each said at its port; the paths through the switch break at their first
/// hop on it, and nothing else is found.
#[test]
fn a_sonic_switch_without_port_qos_map_breaks_every_port() {
    for (switch, ports) in [
        ("leaf1", &["Ethernet0", "Ethernet4", "Ethernet8", "Ethernet12", "Ethernet16", "Ethernet20"][..]),
        ("spine2", &["Ethernet0", "Ethernet4"][..]),
    ] {
        let (_lab, run) = fabric(&[&format!("{switch}=qos-map-absent")]);
        let findings = run.findings();
        let seen: BTreeSet<(String, String, String, String, String)> = findings
            .iter()
            .filter(|f| f.code != "path.inconsistent")
            .map(|f| {
                let port = f.port.clone().unwrap_or_default();
                (f.code.clone(), f.device.clone(), port, f.expected.clone(), f.actual.clone())
            })
            .collect();
        let mut want = BTreeSet::new();
        for port in ports {
            let at = |code: &str, expected: &str, actual: &str| {
                (code.to_string(), switch.to_string(), port.to_string(), expected.to_string(), actual.to_string())
            };
            want.insert(at("switch.pfc_mismatch", "3", "none"));
            want.insert(at("switch.dscp_map_mismatch", "DSCP 26 → TC 3", "DSCP 26 → unmapped"));
            want.insert(at("switch.dscp_map_mismatch", "DSCP 48 → TC 6", "DSCP 48 → unmapped"));
        }
        assert_eq!(seen, want, "{switch}: {}", run.stdout);
        assert!(
            findings.iter().filter(|f| f.code != "path.inconsistent").all(|f| f.severity == Severity::Critical),
            "{switch}"
        );
        // Each path through the switch breaks once, at its first hop there.
        let broken: Vec<_> = findings.iter().filter(|f| f.code == "path.inconsistent").collect();
        let named: BTreeSet<Vec<String>> = broken.iter().map(|f| f.path.clone()).collect();
        let through: BTreeSet<Vec<String>> =
            ports.iter().flat_map(|p| paths_through(&run, &format!("{switch}:{p}"))).collect();
        assert_eq!(named, through, "{switch}");
        assert_eq!(broken.len(), named.len(), "{switch}: one finding per path");
        for f in &broken {
            let first = f.path.iter().find(|h| h.starts_with(&format!("{switch}:"))).unwrap();
            assert_eq!(format!("{}:{}", f.device, f.port.clone().unwrap_or_default()), *first, "{}", f.message);
        }
        assert_eq!(run.json()["paths_total"], 16);
    }
}
