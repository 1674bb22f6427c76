//! Round trips: every switch command the lab answers, parsed with fabcheck's own parsers, gives
//! back the lab's state with no warning, and each switch fault changes exactly what it should.
//!
//! The devices are reached through `shell::exec_on`, the function the SSH server runs for a
//! command, so what is parsed here is byte for byte what an auditor receives.

use fabcheck_lab::Design;
use fabcheck_lab::build::{build_fabric, build_fabric_on, build_fabric_with_platforms};
use fabcheck_lab::faults::apply_to_fabric;
use fabcheck_lab::shell::exec_on;
use fabcheck_lab::state::{Fabric, Peer, Platform};
use fabcheck_parse::switch::{Ecn, PortCounters, PortQos, Scheduler, SwitchCounters, SwitchQos, canonical_interface};
use fabcheck_parse::{ParseResult, Parsed, dell_os10, eos, lldp, nvue, nxos, sonic};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

const T: Duration = Duration::from_secs(5);

/// A 4-host lab with two leaves (SONiC, EOS) and two spines (NVUE, SONiC), faults applied.
fn lab(faults: &[&str]) -> Fabric {
    lab_of(4, 2, 2, faults)
}

fn lab_of(hosts: usize, leaves: usize, spines: usize, faults: &[&str]) -> Fabric {
    with_faults(build_fabric(hosts, leaves, spines), faults)
}

/// A 4-host lab whose leaves and spines run NX-OS and OS10: leaf1 and spine1 NX-OS, leaf2 and
/// spine2 OS10, faults applied.
fn cli_lab(faults: &[&str]) -> Fabric {
    let platforms = [Platform::Nxos, Platform::DellOs10];
    with_faults(build_fabric_with_platforms(4, &platforms, &platforms), faults)
}

fn with_faults(mut f: Fabric, faults: &[&str]) -> Fabric {
    for fault in faults {
        apply_to_fabric(&mut f, &fault.parse().unwrap()).unwrap_or_else(|e| panic!("{fault}: {e}"));
    }
    f
}

/// Runs `command` on the switch called `name`: its standard output, which must be a success.
fn run(f: &Fabric, name: &str, command: &str, at: Duration) -> String {
    let s = f.switch_index(name).unwrap_or_else(|| panic!("no switch {name}"));
    let out = exec_on(f, f.hosts.len() + s, command, at);
    assert_eq!((out.status, out.stderr.as_str()), (0, ""), "{name}: {command}");
    assert!(out.stdout.ends_with('\n'), "{name}: {command}");
    out.stdout
}

/// The parsed value, asserting it parsed without a warning.
fn clean<T>(what: &str, r: ParseResult<T>) -> T {
    let p = r.unwrap_or_else(|e| panic!("{what}: {e:?}"));
    assert!(p.warnings.is_empty(), "{what}: {:#?}", p.warnings);
    p.value
}

/// What the auditor's model of switch `name` is, from every configuration command it runs.
fn model(f: &Fabric, name: &str) -> SwitchQos {
    let s = &f.switches[f.switch_index(name).unwrap()];
    let run = |c: &str| run(f, name, c, T);
    match s.platform {
        Platform::Sonic => {
            let db = clean("config db", sonic::config_db::parse(&run("show runningconfiguration all")));
            let mut m = sonic::convert::to_model(&db);
            let status = clean("interfaces", sonic::interfaces_status::parse(&run("show interfaces status")));
            sonic::convert::add_interfaces(&mut m, &status);
            let wd = clean("pfcwd", sonic::pfcwd::parse(&run("pfcwd show config")));
            sonic::convert::add_pfcwd(&mut m, &wd);
            m
        }
        Platform::Eos => {
            let cfg = clean("running-config", eos::running_config::parse(&run("show running-config")));
            let mut m = eos::convert::to_model(&cfg);
            let status = clean("interfaces", eos::interfaces_status::parse(&run("show interfaces status")));
            eos::convert::apply_interfaces_status(&mut m, &status);
            let qos = clean("qos", eos::qos_interfaces::parse(&run("show qos interfaces")));
            eos::convert::apply_qos_interfaces(&mut m, &qos);
            m
        }
        Platform::Nvue => {
            let cfg = clean("nv config", nvue::config::parse(&run("nv config show -o yaml")));
            let m = nvue::convert::to_model(&cfg);
            assert!(m.warnings.is_empty(), "{:#?}", m.warnings);
            m.value
        }
        Platform::Nxos => {
            let cfg = clean("running-config", nxos::running_config::parse(&run("show running-config")));
            let mut m = nxos::convert::to_model(&cfg);
            let status = clean("interfaces", nxos::interfaces_status::parse(&run("show interface status")));
            nxos::convert::apply_interfaces_status(&mut m, &status);
            let pfc = clean("pfc", nxos::pfc::parse(&run("show interface priority-flow-control")));
            nxos::convert::apply_pfc(&mut m, &pfc);
            m
        }
        Platform::DellOs10 => {
            let cfg =
                clean("running-configuration", dell_os10::running_config::parse(&run("show running-configuration")));
            let mut m = dell_os10::convert::to_model(&cfg);
            let status = clean("interfaces", dell_os10::interfaces_status::parse(&run("show interface status")));
            dell_os10::convert::apply_interfaces_status(&mut m, &status);
            m
        }
    }
}

/// The switch's counters at `at`, as the auditor reads them.
fn counters(f: &Fabric, name: &str, at: Duration) -> SwitchCounters {
    let s = &f.switches[f.switch_index(name).unwrap()];
    let run = |c: &str| run(f, name, c, at);
    match s.platform {
        Platform::Sonic => {
            let mut c = SwitchCounters::default();
            let pfc = clean("pfc counters", sonic::pfc_counters::parse(&run("show pfc counters")));
            sonic::convert::add_pfc_counters(&mut c, &pfc);
            let q = clean("queue counters", sonic::queue_counters::parse(&run("show queue counters")));
            sonic::convert::add_queue_counters(&mut c, &q);
            c
        }
        Platform::Eos => eos::convert::to_counters(&clean(
            "pfc counters",
            eos::pfc_counters::parse(&run("show priority-flow-control counters detail")),
        )),
        Platform::Nvue => {
            let roce = clean("nv show qos roce", nvue::roce::parse(&run("nv show qos roce")));
            let classes = nvue::convert::RoceClasses::from_roce(&roce);
            let ports = s.ports.iter().map(|p| {
                let text = run(&format!("nv show interface {} qos roce counters", p.name));
                let counters = clean("roce counters", nvue::roce_counters::parse(&text));
                (p.name.clone(), nvue::convert::counters_to_port(&counters, &classes))
            });
            SwitchCounters { ports: ports.collect() }
        }
        Platform::Nxos => {
            nxos::convert::pfc_counters(&clean("pfc", nxos::pfc::parse(&run("show interface priority-flow-control"))))
        }
        Platform::DellOs10 => {
            panic!("{name}: the lab's OS10 answers no counters command (no published capture to copy)")
        }
    }
}

/// The LLDP neighbours of a device (host or switch) as the auditor parses them: local port →
/// (system name, port ID), both ports canonical (a port ID is the name the peer gives its port,
/// OS10's `ethernet1/1/1` included; the peer's own view names it canonically).
fn lldp_view(f: &Fabric, device: &str) -> BTreeMap<String, (String, String)> {
    let (index, command) = match f.host_index(device) {
        Some(h) => (h, "lldpctl"),
        None => {
            let s = f.switch_index(device).unwrap();
            let command = match f.switches[s].platform {
                Platform::Sonic => "show lldp neighbors",
                Platform::Eos => "show lldp neighbors detail",
                Platform::Nvue => "lldpcli show neighbors",
                Platform::Nxos | Platform::DellOs10 => "show lldp neighbors detail",
            };
            (f.hosts.len() + s, command)
        }
    };
    let out = exec_on(f, index, command, T);
    assert_eq!(out.status, 0, "{device}");
    let parsed = clean(device, lldp::parse(&out.stdout));
    parsed
        .neighbors
        .into_iter()
        .map(|n| {
            (n.local_port, (n.system_name.unwrap_or_default(), canonical_interface(&n.port_id.unwrap_or_default())))
        })
        .collect()
}

/// The healthy port: every linked port of every platform reads this way (the PFC watchdog:
/// OS10's is neither rendered nor read, so its model cannot say).
fn assert_healthy(name: &str, platform: Platform, port: &str, p: &PortQos) {
    let at = format!("{name} {port}");
    assert_eq!(p.lossless_priorities.as_deref(), Some(&[3u8][..]), "{at}");
    assert_eq!(p.trust.as_deref(), Some("dscp"), "{at}");
    assert_eq!((p.dscp_to_tc.get(&26), p.dscp_to_tc.get(&48)), (Some(&3), Some(&6)), "{at}");
    assert_eq!((p.tc_to_queue.get(&3), p.tc_to_queue.get(&6)), (Some(&3), Some(&6)), "{at}");
    let ecn = p.queues[&3].ecn.as_ref().unwrap_or_else(|| panic!("{at}: no ECN"));
    assert_eq!((ecn.enabled, ecn.min_bytes, ecn.max_bytes), (true, Some(153_600), Some(1_536_000)), "{at}");
    assert_eq!(p.queues[&3].scheduler, Some(Scheduler::Weighted { weight: 50 }), "{at}");
    assert_eq!(p.queues[&6].scheduler, Some(Scheduler::Strict), "{at}");
    let watchdog = if platform == Platform::DellOs10 { None } else { Some(true) };
    assert_eq!(p.pfc_watchdog, watchdog, "{at}");
    assert_eq!((p.mtu, p.speed_mbps, p.admin_up), (Some(9216), Some(400_000), Some(true)), "{at}");
    assert_ne!(p.oper_up, Some(false), "{at}");
}

#[test]
fn every_platform_renders_a_healthy_switch_that_parses_back() {
    let f = lab_of(6, 3, 3, &[]);
    let platforms: BTreeSet<&str> = f.switches.iter().map(|s| s.platform.name()).collect();
    assert_eq!(platforms.len(), 3);
    for s in &f.switches {
        let m = model(&f, &s.name);
        assert_eq!(m.hostname.as_deref(), Some(s.name.as_str()));
        let linked: BTreeSet<&str> = s.ports.iter().map(|p| p.name.as_str()).collect();
        let modelled: BTreeSet<&str> = m.ports.keys().map(String::as_str).filter(|p| !p.starts_with("Ma")).collect();
        assert_eq!(modelled, linked, "{}", s.name);
        for (port, p) in &m.ports {
            assert_healthy(&s.name, s.platform, port, p);
        }
        if s.platform != Platform::Nvue {
            let wd = m.pfc_watchdog.clone().expect("device watchdog");
            assert_eq!((wd.enabled, wd.detection_ms, wd.restoration_ms), (true, Some(200), Some(200)), "{}", s.name);
        }
    }
}

#[test]
fn nvue_show_qos_roce_reads_the_switch_wide_settings() {
    let f = lab(&[]);
    let roce = clean("roce", nvue::roce::parse(&run(&f, "spine1", "nv show qos roce", T)));
    assert_eq!((roce.enabled, roce.mode.as_deref()), (Some(true), Some("lossless")));
    assert_eq!(roce.pfc_priorities, [3]);
    assert_eq!(roce.ecn_traffic_classes, [0, 3]);
    // NVUE prints sizes to two decimals of KB/MB: 150.00 KB exactly, 1.46 MB within a KB.
    assert_eq!(roce.ecn_min_bytes, Some(153_600));
    assert!(roce.ecn_max_bytes.is_some_and(|b| b.abs_diff(1_536_000) < 10_240), "{:?}", roce.ecn_max_bytes);
    assert_eq!((roce.dscp_to_switch_priority[&26], roce.dscp_to_switch_priority[&48]), (3, 6));
    assert_eq!(roce.tc_scheduler[&6], Scheduler::Strict);
    let port = nvue::convert::status_to_port(&roce);
    assert_eq!(port.lossless_priorities.as_deref(), Some(&[3u8][..]));
    assert_eq!((port.dscp_to_tc[&26], port.dscp_to_tc[&48]), (3, 6));
    assert_eq!(port.trust.as_deref(), Some("dscp"));
}

#[test]
fn counters_parse_back_to_the_state_and_move() {
    let f = lab(&[]);
    for s in &f.switches {
        let (c1, c2) = (counters(&f, &s.name, T), counters(&f, &s.name, T + Duration::from_secs(10)));
        assert_eq!(c1.ports.len(), s.ports.len(), "{}", s.name);
        for p in &s.ports {
            let (a, b): (&PortCounters, &PortCounters) = (&c1.ports[&p.name], &c2.ports[&p.name]);
            let at = format!("{} {}", s.name, p.name);
            assert_eq!(a.pfc_rx[&3], p.counters.pfc_rx[3].at(T), "{at}");
            assert_eq!(a.pfc_tx[&3], p.counters.pfc_tx[3].at(T), "{at}");
            assert_eq!(b.pfc_rx[&3] - a.pfc_rx[&3], 1_200, "{at}: 120 pauses a second");
            assert_eq!(a.pfc_rx.get(&0).copied().unwrap_or(0), 0, "{at}");
            if s.platform == Platform::Eos {
                continue; // EOS's PFC counters are all its commands count.
            }
            assert_eq!(a.queue_tx_packets[&3], p.counters.queue_tx_packets[3].at(T), "{at}");
            assert!(b.queue_tx_packets[&3] > a.queue_tx_packets[&3], "{at}");
            assert_eq!(a.queue_drops.values().sum::<u64>(), 0, "{at}");
            if s.platform == Platform::Nvue {
                assert_eq!(b.ecn_marked[&3] - a.ecn_marked[&3], 400, "{at}: 40 marks a second");
            }
        }
    }
}

/// The LLDP links of a lab, as (device, port) pairs both ends agree on, each seen from both ends.
fn links(f: &Fabric) -> BTreeSet<((String, String), (String, String))> {
    let devices: Vec<String> =
        f.hosts.iter().map(|h| h.name.clone()).chain(f.switches.iter().map(|s| s.name.clone())).collect();
    let views: BTreeMap<&String, BTreeMap<String, (String, String)>> =
        devices.iter().map(|d| (d, lldp_view(f, d))).collect();
    let mut links = BTreeSet::new();
    for (device, view) in &views {
        for (local, (peer, peer_port)) in view {
            let back = views[peer].get(peer_port);
            assert_eq!(back, Some(&((*device).clone(), local.clone())), "{device} {local} → {peer} {peer_port}");
            let (a, b) = ((device.to_string(), local.clone()), (peer.clone(), peer_port.clone()));
            links.insert(if a < b { (a, b) } else { (b, a) });
        }
    }
    links
}

#[test]
fn lldp_from_both_ends_agrees_with_the_wiring() {
    let f = lab(&[]);
    let pair = |a: (&str, &str), b: (&str, &str)| {
        let (a, b) = ((a.0.to_string(), a.1.to_string()), (b.0.to_string(), b.1.to_string()));
        if a < b { (a, b) } else { (b, a) }
    };
    let expected: BTreeSet<_> = [
        pair(("gpu001", "ens1np0"), ("leaf1", "Ethernet0")),
        pair(("gpu001", "ens2np0"), ("leaf1", "Ethernet4")),
        pair(("gpu002", "ens1np0"), ("leaf1", "Ethernet8")),
        pair(("gpu002", "ens2np0"), ("leaf1", "Ethernet12")),
        pair(("gpu003", "ens1np0"), ("leaf2", "Ethernet1/1")),
        pair(("gpu003", "ens2np0"), ("leaf2", "Ethernet2/1")),
        pair(("gpu004", "ens1np0"), ("leaf2", "Ethernet3/1")),
        pair(("gpu004", "ens2np0"), ("leaf2", "Ethernet4/1")),
        pair(("leaf1", "Ethernet16"), ("spine1", "swp1")),
        pair(("leaf1", "Ethernet20"), ("spine2", "Ethernet0")),
        pair(("leaf2", "Ethernet5/1"), ("spine1", "swp2")),
        pair(("leaf2", "Ethernet6/1"), ("spine2", "Ethernet4")),
    ]
    .into();
    assert_eq!(links(&f), expected);
    assert_eq!(
        f.switches.iter().map(|s| (s.name.as_str(), s.platform.name())).collect::<Vec<_>>(),
        [("leaf1", "sonic"), ("leaf2", "eos"), ("spine1", "nvue"), ("spine2", "sonic")]
    );
}

#[test]
fn lldp_missing_is_one_sided() {
    for (device, port, peer, peer_port) in [
        ("leaf1", "Ethernet8", "gpu002", "ens1np0"),
        ("leaf2", "Ethernet5/1", "spine1", "swp2"),
        ("spine1", "swp1", "leaf1", "Ethernet16"),
    ] {
        let f = lab(&[&format!("{device}=lldp-missing@{port}")]);
        let mine = lldp_view(&f, device);
        assert!(!mine.contains_key(port), "{device} {port}");
        assert_eq!(mine.len(), f.switches[f.switch_index(device).unwrap()].ports.len() - 1);
        assert_eq!(lldp_view(&f, peer)[peer_port], (device.to_string(), port.to_string()));
    }
}

/// What a fault does to the faulted port's model.
fn expect(kind: &str, p: &mut PortQos) {
    match kind {
        "pfc-off" => p.lossless_priorities = Some(vec![]),
        "ecn-off" => {
            let q = p.queues.get_mut(&3).unwrap();
            q.ecn.as_mut().unwrap().enabled = false;
        }
        "ecn-threshold" => {
            let ecn = p.queues.get_mut(&3).unwrap().ecn.as_mut().unwrap();
            (ecn.min_bytes, ecn.max_bytes) = (Some(20 * 1024), Some(50 * 1024));
            // Where the unit is the vendor's undefined kilobyte, the text as written follows.
            if let Some(unit) = ecn.uncertain_unit.as_deref().and_then(|w| w.split_whitespace().nth(1)) {
                ecn.uncertain_unit = Some(format!("20 {unit} / 50 {unit}"));
            }
        }
        "cnp-queue" => {}
        "pfcwd-off" => p.pfc_watchdog = Some(false),
        "mtu-low" => p.mtu = Some(1500),
        "link-half-speed" => p.speed_mbps = Some(200_000),
        other => panic!("{other}"),
    }
}

#[test]
fn each_port_fault_changes_exactly_its_port_setting() {
    let ports = [("leaf1", "Ethernet8"), ("leaf2", "Ethernet3/1"), ("spine1", "swp2"), ("spine2", "Ethernet4")];
    assert_port_faults(lab, &ports);
}

#[test]
fn each_port_fault_changes_exactly_its_port_setting_on_nxos_and_os10() {
    let ports =
        [("leaf1", "Ethernet1/2"), ("leaf2", "ethernet1/1/3"), ("spine1", "Ethernet1/2"), ("spine2", "ethernet1/1/1")];
    assert_port_faults(cli_lab, &ports);
}

/// A lab builder: [`lab`] or [`cli_lab`], with these faults.
type LabWith = fn(&[&str]) -> Fabric;

/// Each port fault on each `(device, port)` of the lab `lab` builds changes that port's model as
/// [`expect`] says and nothing else.
fn assert_port_faults(lab: LabWith, ports: &[(&str, &str)]) {
    let healthy = lab(&[]);
    for kind in ["pfc-off", "ecn-off", "ecn-threshold", "cnp-queue", "pfcwd-off", "mtu-low", "link-half-speed"] {
        for &(device, port) in ports {
            let platform = healthy.switches[healthy.switch_index(device).unwrap()].platform;
            let before = model(&healthy, device);
            let f = lab(&[&format!("{device}={kind}@{port}")]);
            let after = model(&f, device);
            assert_eq!(after.ports.keys().collect::<Vec<_>>(), before.ports.keys().collect::<Vec<_>>());
            for (name, p) in &after.ports {
                let mut want = before.ports[name].clone();
                // OS10's PFC watchdog is neither rendered nor read: the fault cannot show there.
                let unseen = kind == "pfcwd-off" && platform == Platform::DellOs10;
                if *name == canonical_interface(port) && !unseen {
                    expect(kind, &mut want);
                    if kind == "cnp-queue" {
                        let q6 = p.queues[&6].scheduler.clone();
                        assert!(matches!(q6, Some(Scheduler::Weighted { .. })), "{device} {kind}: {q6:?}");
                        want.queues.get_mut(&6).unwrap().scheduler = q6;
                        if platform == Platform::Eos {
                            // EOS serves queues above the highest round-robin one in strict
                            // priority: with queue 6 round-robin, 4 and 5 are too.
                            for q in [4, 5] {
                                want.queues.get_mut(&q).unwrap().scheduler = Some(Scheduler::Weighted { weight: 0 });
                            }
                        }
                    }
                    if kind == "ecn-off" {
                        // Thresholds of a queue without marking are whatever the platform keeps.
                        let ecn = p.queues[&3].ecn.clone().unwrap_or_default();
                        assert!(!ecn.enabled, "{device} {kind}");
                        want.queues.get_mut(&3).unwrap().ecn = p.queues[&3].ecn.clone();
                    }
                }
                assert_eq!(p, &want, "{device} {kind} {name}");
            }
        }
    }
}

#[test]
fn dscp_map_on_a_switch_is_switch_wide() {
    let labs: [(LabWith, &str); 5] =
        [(lab, "leaf1"), (lab, "leaf2"), (lab, "spine1"), (cli_lab, "leaf1"), (cli_lab, "leaf2")];
    for (lab, device) in labs {
        let before = model(&lab(&[]), device);
        let after = model(&lab(&[&format!("{device}=dscp-map")]), device);
        for (name, p) in &after.ports {
            let mut want = before.ports[name].clone();
            want.dscp_to_tc.insert(26, 0);
            assert_eq!(p, &want, "{device} {name}");
        }
    }
    assert!(apply_to_fabric(&mut lab(&[]), &"leaf1=dscp-map@Ethernet0".parse().unwrap()).is_err());
}

/// SONiC without `PORT_QOS_MAP` (`qos-map-absent`): the config DB has no such table, so no port
/// has PFC or a classification map bound, while the maps, queues and buffers stay as they were;
/// the other platforms refuse the fault, and it takes no port.
#[test]
fn qos_map_absent_unbinds_every_port_of_a_sonic_switch() {
    for device in ["leaf1", "spine2"] {
        let (before, f) = (lab(&[]), lab(&[&format!("{device}=qos-map-absent")]));
        let config = run(&f, device, "show runningconfiguration all", T);
        assert!(!config.contains("PORT_QOS_MAP"), "{device}");
        assert!(config.contains("\"DSCP_TO_TC_MAP\"") && config.contains("\"BUFFER_PG\""), "{device}");
        let (was, now) = (model(&before, device), model(&f, device));
        assert_eq!(now.ports.keys().collect::<Vec<_>>(), was.ports.keys().collect::<Vec<_>>());
        for (name, p) in &now.ports {
            let mut want = was.ports[name].clone();
            want.lossless_priorities = Some(vec![]);
            want.trust = None;
            want.dscp_to_tc.clear();
            want.tc_to_queue.clear();
            want.tc_to_pg.clear();
            assert_eq!(p, &want, "{device} {name}");
        }
        // The other switches are untouched.
        let other = if device == "leaf1" { "spine2" } else { "leaf1" };
        assert_eq!(model(&f, other), model(&before, other));
    }
    let err = |fault: &str| apply_to_fabric(&mut lab(&[]), &fault.parse().unwrap()).unwrap_err();
    for device in ["leaf2", "spine1"] {
        assert_eq!(err(&format!("{device}=qos-map-absent")), "`qos-map-absent` is rendered on sonic switches only");
    }
    let err_cli = |fault: &str| apply_to_fabric(&mut cli_lab(&[]), &fault.parse().unwrap()).unwrap_err();
    assert_eq!(err_cli("leaf1=qos-map-absent"), "`qos-map-absent` is rendered on sonic switches only");
    assert_eq!(err_cli("leaf2=qos-map-absent"), "`qos-map-absent` is rendered on sonic switches only");
    assert!("leaf1=qos-map-absent@Ethernet0".parse::<fabcheck_lab::Fault>().is_err());
    assert!(err("gpu001=qos-map-absent").contains("switch fault"));
}

#[test]
fn half_speed_shows_on_both_ends() {
    // A spine port: the leaf's uplink runs at 200G too.
    let f = lab(&["spine1=link-half-speed"]);
    assert_eq!(model(&f, "spine1").ports["swp1"].speed_mbps, Some(200_000));
    assert_eq!(model(&f, "leaf1").ports["Ethernet16"].speed_mbps, Some(200_000));
    assert_eq!(model(&f, "leaf1").ports["Ethernet20"].speed_mbps, Some(400_000));
    // A leaf port: the host's NIC links at 200G.
    let f = lab(&["leaf2=link-half-speed@Et2/1"]);
    assert_eq!(model(&f, "leaf2").ports["Ethernet2/1"].speed_mbps, Some(200_000));
    let ethtool = |nic: &str| {
        let out = exec_on(&f, f.host_index("gpu003").unwrap(), &format!("ethtool {nic}"), T);
        clean("ethtool", fabcheck_parse::linux::ethtool_link::parse(&out.stdout)).speed_mbps
    };
    assert_eq!((ethtool("ens1np0"), ethtool("ens2np0")), (Some(400_000), Some(200_000)));
}

#[test]
fn a_pfc_storm_races_the_ports_pause_counter() {
    for device in ["leaf1", "leaf2", "spine1"] {
        let f = lab(&[&format!("{device}=pfc-storm")]);
        let first = f.switches[f.switch_index(device).unwrap()].ports[0].name.clone();
        let (a, b) = (counters(&f, device, T), counters(&f, device, T + Duration::from_secs(2)));
        for (name, pa) in &a.ports {
            let rate = (b.ports[name].pfc_rx[&3] - pa.pfc_rx[&3]) / 2;
            assert_eq!(rate, if *name == first { 50_000 } else { 120 }, "{device} {name}");
        }
    }
    let f = lab(&["leaf1=pfc-storm"]);
    let stats = clean("pfcwd stats", sonic::pfcwd::parse(&run(&f, "leaf1", "pfcwd show stats", T)));
    assert_eq!(stats.queues.iter().map(|q| q.port.as_str()).collect::<Vec<_>>(), ["Ethernet0"]);
}

#[test]
fn default_ports_and_bad_faults() {
    let f = lab(&["leaf1=mtu-low", "spine2=mtu-low"]);
    let mtu = |s: &str, p: usize| f.switches[f.switch_index(s).unwrap()].ports[p].mtu;
    assert_eq!((mtu("leaf1", 0), mtu("leaf1", 1)), (1500, 9216), "a leaf's first host-facing port");
    assert_eq!((mtu("spine2", 0), mtu("spine2", 1)), (1500, 9216), "a spine's first downlink");
    assert!(matches!(f.switches[3].ports[0].peer, Peer::Switch { switch: 0, .. }));
    let err = |fault: &str| apply_to_fabric(&mut lab(&[]), &fault.parse().unwrap()).unwrap_err();
    assert!(
        err("leaf1=pfc-off@Ethernet99").contains("its ports are Ethernet0 to Ethernet20"),
        "{}",
        err("leaf1=pfc-off@Ethernet99")
    );
    assert!(err("leaf1=sm-missing").contains("host fault"));
    assert!(err("gpu001=ecn-off").contains("switch fault"));
    assert!(err("leaf9=ecn-off").contains("no device"));
    // Host faults keep their meaning.
    let f = lab(&["gpu001=pfc-off", "leaf1=pfc-off@Ethernet4"]);
    assert!(!f.hosts[0].nics[0].pfc[3]);
    assert_eq!(model(&f, "leaf1").ports["Ethernet4"].lossless_priorities, Some(vec![]));
    assert_eq!(model(&f, "leaf1").ports["Ethernet0"].lossless_priorities, Some(vec![3]));
}

#[test]
fn unknown_commands_fail_as_each_platform_does() {
    let f = lab(&[]);
    let on = |name: &str, command: &str| exec_on(&f, f.hosts.len() + f.switch_index(name).unwrap(), command, T);
    let o = on("leaf1", "show foo");
    assert_eq!(
        (o.status, o.stderr.as_str()),
        (2, "Usage: show [OPTIONS] COMMAND [ARGS]...\nTry \"show -h\" for help.\n\nError: No such command \"foo\".\n")
    );
    assert_eq!(on("leaf1", "ibstat").stderr, "bash: ibstat: command not found\n");
    assert_eq!(on("leaf1", "sudo show interfaces status").status, 0);
    let o = on("leaf2", "show interfaces bogus");
    assert_eq!((o.status, o.stdout.as_str()), (1, "% Invalid input (at token 2: 'bogus')\n"));
    assert_eq!(on("leaf2", "bash ls").stdout, "% Invalid input (at token 0: 'bash')\n");
    assert_eq!(on("leaf2", "show lldp neighbors").stdout, "% Incomplete command\n");
    let o = on("spine1", "nv show interface swp99 qos roce counters");
    assert_eq!((o.status, o.stderr.as_str()), (1, "Error: The requested item does not exist.\n"));
    assert_eq!(on("spine1", "show runningconfiguration all").stderr, "bash: show: command not found\n");
    let o = exec_on(&f, 0, "lldpcli show chassis", T);
    assert_eq!(o.status, 1);
}

#[test]
fn hosts_on_no_switch_see_no_neighbour() {
    let f = lab_of(2, 0, 2, &[]);
    assert!(f.switches.is_empty());
    let out = exec_on(&f, 0, "lldpctl", T);
    assert_eq!(out.status, 0);
    assert!(clean("lldpctl", lldp::parse(&out.stdout)).neighbors.is_empty());
}

/// Its wiring only: how fast it is built is for a benchmark to measure, not a test (this one
/// asserted under 800 ms and failed on a loaded machine).
#[test]
fn a_thousand_hosts_on_forty_switches_are_wired_leaf_and_spine() {
    let f = build_fabric(1000, 32, 8);
    assert_eq!(f.switches.len(), 40);
    let leaf_ports: usize = f.switches[..32].iter().map(|s| s.ports.len()).sum();
    assert_eq!(leaf_ports, 2000 + 32 * 8);
    assert!(f.switches[32..].iter().all(|s| s.ports.len() == 32));
    assert!(f.host_links.iter().all(|l| l.len() == 2));
    // Hosts split in contiguous blocks of 31 or 32.
    let sizes: BTreeSet<usize> = f.switches[..32].iter().map(|s| (s.ports.len() - 8) / 2).collect();
    assert_eq!(sizes, [31, 32].into());
    // A big leaf's outputs still parse cleanly.
    let _ = Parsed { value: (), warnings: vec![] };
    for name in ["leaf1", "leaf2", "leaf3", "spine1"] {
        let m = model(&f, name);
        assert_eq!(m.ports.len(), f.switches[f.switch_index(name).unwrap()].ports.len());
    }
    let _ = Ecn::default();
}

/// A host with lldpd's defaults is seen by its leaf (SONiC's lldpctl layout and EOS's detail
/// alike) by the MAC of the port, which the host's own `ip -j link` gives; a host with no lldpd
/// is seen by nobody and has no `lldpctl`.
#[test]
fn host_lldp_modes_show_in_the_leaves_tables() {
    let f = lab(&["gpu002=lldp-mac", "gpu003=lldp-mac", "gpu004=lldpd-missing"]);
    let mac_of = |host: &str, netdev: &str| {
        let out = exec_on(&f, f.host_index(host).unwrap(), "ip -j link show", T);
        let links = clean(host, fabcheck_parse::linux::ip_link::parse(&out.stdout)).links;
        links.into_iter().find(|l| l.ifname == netdev).and_then(|l| l.address).unwrap()
    };
    let sonic = lldp_view(&f, "leaf1");
    assert_eq!(sonic["Ethernet0"], ("gpu001".to_string(), "ens1np0".to_string()), "ifname mode");
    assert_eq!(sonic["Ethernet8"], ("gpu002".to_string(), mac_of("gpu002", "ens1np0")));
    let eos = lldp_view(&f, "leaf2");
    assert_eq!(eos["Ethernet1/1"], ("gpu003".to_string(), mac_of("gpu003", "ens1np0")));
    assert!(!eos.contains_key("Ethernet3/1"), "gpu004 sends nothing: {eos:?}");
    let out = exec_on(&f, f.host_index("gpu004").unwrap(), "lldpctl", T);
    assert_eq!(out.status, 127);
}

#[test]
fn nxos_and_os10_render_healthy_switches_that_parse_back() {
    let f = cli_lab(&[]);
    let platforms: Vec<(&str, &str)> = f.switches.iter().map(|s| (s.name.as_str(), s.platform.name())).collect();
    assert_eq!(platforms, [("leaf1", "nxos"), ("leaf2", "dell_os10"), ("spine1", "nxos"), ("spine2", "dell_os10")]);
    for s in &f.switches {
        let m = model(&f, &s.name);
        assert_eq!(m.hostname.as_deref(), Some(s.name.as_str()));
        // OS10 names its ports `ethernet1/1/N`; the model, as every parser, `Ethernet1/1/N`.
        let linked: BTreeSet<String> = s.ports.iter().map(|p| canonical_interface(&p.name)).collect();
        assert_eq!(m.ports.keys().cloned().collect::<BTreeSet<_>>(), linked, "{}", s.name);
        for (port, p) in &m.ports {
            assert_healthy(&s.name, s.platform, port, p);
            assert_eq!(p.oper_up, Some(true), "{} {port}", s.name);
        }
        // NX-OS states the watchdog on, without timers; OS10's is not read.
        let wd = m.pfc_watchdog.map(|w| (w.enabled, w.detection_ms));
        let want = if s.platform == Platform::Nxos { Some((true, None)) } else { None };
        assert_eq!(wd, want, "{}", s.name);
    }
    // The two NX-OS switches write their no-drop class in the two generations' dialects: the
    // Nexus 3000/5000's `pause no-drop` on a qos-group reached by DSCP leaves the PFC
    // priorities to what the port runs, which the model then has as the Nexus 9000's does.
    let leaf1 = run(&f, "leaf1", "show running-config", T);
    let spine1 = run(&f, "spine1", "show running-config", T);
    assert!(leaf1.contains("    pause pfc-cos 3\n") && !leaf1.contains("pause no-drop"), "{leaf1}");
    assert!(spine1.contains("    pause no-drop\n") && !spine1.contains("pfc-cos"), "{spine1}");
    let configured = nxos::convert::to_model(&clean("running-config", nxos::running_config::parse(&spine1)));
    assert!(configured.ports.values().all(|p| p.lossless_priorities.is_none()), "the configuration does not say");
    assert!(model(&f, "spine1").ports.values().all(|p| p.lossless_priorities.as_deref() == Some(&[3][..])));
}

#[test]
fn nxos_pfc_counters_parse_back_to_the_state_and_move() {
    let f = cli_lab(&["leaf1=pfc-storm@Ethernet1/2"]);
    for name in ["leaf1", "spine1"] {
        let s = &f.switches[f.switch_index(name).unwrap()];
        let later = T + Duration::from_secs(10);
        let (c1, c2) = (counters(&f, name, T), counters(&f, name, later));
        assert_eq!(c1.ports.len(), s.ports.len(), "{name}");
        for p in &s.ports {
            let at = format!("{name} {}", p.name);
            let (a, b) = (&c1.ports[&p.name], &c2.ports[&p.name]);
            // The command counts all priorities together; PFC runs on priority 3 alone.
            assert_eq!((a.pfc_rx[&3], a.pfc_tx[&3]), (p.counters.pfc_rx[3].at(T), p.counters.pfc_tx[3].at(T)), "{at}");
            assert_eq!(a.pfc_rx.len(), 1, "{at}");
            let storm = name == "leaf1" && p.name == "Ethernet1/2";
            assert_eq!(b.pfc_rx[&3] - a.pfc_rx[&3], if storm { 500_000 } else { 1_200 }, "{at}");
        }
    }
    // PFC off on a port: the frames it counts belong to no priority.
    let f = cli_lab(&["leaf1=pfc-off@Ethernet1/1"]);
    let c = counters(&f, "leaf1", T);
    assert!(c.ports["Ethernet1/1"].pfc_rx.is_empty());
    assert_eq!(c.ports["Ethernet1/2"].pfc_rx.len(), 1);
}

#[test]
fn lldp_from_both_ends_agrees_with_the_wiring_on_nxos_and_os10() {
    let f = cli_lab(&[]);
    let pair = |a: (&str, &str), b: (&str, &str)| {
        let (a, b) = ((a.0.to_string(), a.1.to_string()), (b.0.to_string(), b.1.to_string()));
        if a < b { (a, b) } else { (b, a) }
    };
    let expected: BTreeSet<_> = [
        pair(("gpu001", "ens1np0"), ("leaf1", "Ethernet1/1")),
        pair(("gpu001", "ens2np0"), ("leaf1", "Ethernet1/2")),
        pair(("gpu002", "ens1np0"), ("leaf1", "Ethernet1/3")),
        pair(("gpu002", "ens2np0"), ("leaf1", "Ethernet1/4")),
        pair(("gpu003", "ens1np0"), ("leaf2", "Ethernet1/1/1")),
        pair(("gpu003", "ens2np0"), ("leaf2", "Ethernet1/1/2")),
        pair(("gpu004", "ens1np0"), ("leaf2", "Ethernet1/1/3")),
        pair(("gpu004", "ens2np0"), ("leaf2", "Ethernet1/1/4")),
        pair(("leaf1", "Ethernet1/5"), ("spine1", "Ethernet1/1")),
        pair(("leaf1", "Ethernet1/6"), ("spine2", "Ethernet1/1/1")),
        pair(("leaf2", "Ethernet1/1/5"), ("spine1", "Ethernet1/2")),
        pair(("leaf2", "Ethernet1/1/6"), ("spine2", "Ethernet1/1/2")),
    ]
    .into();
    assert_eq!(links(&f), expected);
    for (device, port, peer, peer_port) in
        [("leaf1", "Ethernet1/3", "gpu002", "ens1np0"), ("leaf2", "ethernet1/1/5", "spine1", "Ethernet1/2")]
    {
        let f = cli_lab(&[&format!("{device}=lldp-missing@{port}")]);
        let mine = lldp_view(&f, device);
        assert!(!mine.contains_key(&canonical_interface(port)), "{device} {port}");
        assert_eq!(mine.len(), f.switches[f.switch_index(device).unwrap()].ports.len() - 1);
        assert_eq!(lldp_view(&f, peer)[peer_port], (device.to_string(), canonical_interface(port)));
    }
}

#[test]
fn nxos_and_os10_reject_unknown_commands_as_their_clis_do() {
    let f = cli_lab(&[]);
    let on = |name: &str, command: &str| exec_on(&f, f.hosts.len() + f.switch_index(name).unwrap(), command, T);
    let o = on("leaf1", "show interface bogus");
    assert_eq!((o.status, o.stdout.as_str()), (1, "               ^\n% Invalid command at '^' marker.\n"));
    assert_eq!(on("leaf1", "show lldp").stdout, "          ^\n% Incomplete command at '^' marker.\n");
    assert_eq!(on("leaf1", "show running-configuration").stdout, "     ^\n% Invalid command at '^' marker.\n");
    let o = on("leaf2", "show running-config");
    assert_eq!((o.status, o.stdout.as_str()), (1, "% Error: Unrecognized command.\n"));
    assert_eq!(on("leaf2", "show interface").stdout, "% Error: Incomplete command.\n");
    assert_eq!(on("leaf2", "show interface priority-flow-control").stdout, "% Error: Unrecognized command.\n");
    assert_eq!(on("leaf2", "ls").status, 1);
}

/// Every platform writes every reference design: the model the auditor reads of each switch
/// carries the design's lossless priorities, the DSCPs of its classes on their traffic classes,
/// ECN on each lossless queue at the design's thresholds (or none), and the CNP queue strict or
/// weighted as the design says, all parsed without a warning.
#[test]
fn every_platform_renders_every_design() {
    for name in Design::names() {
        let design = Design::named(name).unwrap();
        let f = build_fabric_on(&design, 5, &(Platform::ALL.to_vec(), vec![Platform::Nvue]));
        for sw in &f.switches {
            let m = model(&f, &sw.name);
            for p in &sw.ports {
                let at = format!("{name}: {} {}", sw.name, p.name);
                let port = &m.ports[&canonical_interface(&p.name)];
                let priorities: Vec<u8> = design.pfc_priorities().iter().map(|&p| p as u8).collect();
                assert_eq!(port.lossless_priorities.as_ref(), Some(&priorities), "{at}");
                for class in &design.lossless {
                    for d in &class.dscps {
                        assert_eq!(port.dscp_to_tc.get(d), Some(&class.tc), "{at}: DSCP {d}");
                    }
                    let ecn = port.queues.get(&class.tc).and_then(|q| q.ecn.clone()).filter(|e| e.enabled);
                    match class.ecn {
                        Some(want) => {
                            let ecn = ecn.unwrap_or_else(|| panic!("{at}: no ECN on queue {}", class.tc));
                            let near =
                                |have: Option<u64>, want: u64| have.is_some_and(|h| h.abs_diff(want) * 100 <= want);
                            assert!(
                                near(ecn.min_bytes, want.min_bytes) && near(ecn.max_bytes, want.max_bytes),
                                "{at}: {ecn:?}"
                            );
                        }
                        None => assert_eq!(ecn, None, "{at}: queue {} marks", class.tc),
                    }
                }
                if let Some(cnp) = design.cnp {
                    assert_eq!(port.dscp_to_tc.get(&cnp.dscp), Some(&cnp.tc), "{at}: CNP DSCP");
                    let strict = port.queues.get(&cnp.tc).and_then(|q| q.scheduler.clone()) == Some(Scheduler::Strict);
                    assert_eq!(strict, cnp.strict, "{at}: CNP queue {}", cnp.tc);
                }
            }
        }
    }
}
