//! The fabric checks, once every device is in: links from both ends' LLDP, every switch port
//! with a configuration judged against the policy (whether or not LLDP pairs it: LLDP decides
//! paths and link-end comparisons only), both ends of each link compared, and the InfiniBand
//! fabric's links from iblinkinfo. What breaks the lossless chain at each hop goes to the
//! correlate stage, which marks paths and places blame ([`crate::correlate::paths`]).

use super::switch::unknown::Unknown;
use super::switch::{judged_ports, port};
use crate::correlate::paths::{Disagreement, HopProblem, Hops};
use crate::policy::Policy;
use crate::topology::{self, End, Interface, LldpView, Topology};
use fabcheck_model::Finding;
use fabcheck_model::Severity;
use fabcheck_model::facts::SwitchFacts;
use fabcheck_model::host::iblinkinfo::Iblinkinfo;
use fabcheck_model::switch::{LldpNeighbor, canonical_interface};
use std::collections::BTreeMap;

/// A host's side of the fabric.
#[derive(Debug, Clone, Default)]
pub struct HostFabric {
    /// LLDP neighbours of its NICs; `None`: its LLDP could not be read.
    pub lldp: Option<Vec<LldpNeighbor>>,
    /// LLDP evidence file.
    pub lldp_file: String,
    /// Per RoCE netdev: what it has.
    pub nics: Vec<HostNic>,
    /// The InfiniBand fabric's links as this host sees them, and the evidence file.
    pub iblinkinfo: Option<(Iblinkinfo, String)>,
}

/// What a host NIC brings to its link.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HostNic {
    /// Netdev.
    pub netdev: String,
    /// Its MAC address (lldpd advertises it as the port ID by default).
    pub mac: Option<String>,
    /// PFC priorities (mlnx_qos).
    pub pfc: Option<Vec<u8>>,
    /// Trust mode.
    pub trust: Option<String>,
    /// MTU.
    pub mtu: Option<u32>,
    /// The NIC's own `nic.*` findings: severity and message.
    pub failing: Vec<(Severity, String)>,
}

/// One device's part.
#[derive(Debug, Clone)]
pub enum FabricFacts {
    /// A GPU host.
    Host(HostFabric),
    /// A switch.
    Switch(Box<SwitchFacts>),
}

/// What the fabric checks found, for the correlate stage.
#[derive(Debug, Default)]
pub struct FabricChecks {
    /// Findings (switch ports, `path.unknown`, InfiniBand links).
    pub findings: Vec<Finding>,
    /// Links and the paths over them.
    pub topology: Topology,
    /// What breaks the lossless chain at each hop.
    pub hops: Hops,
    /// Links whose two ends disagree.
    pub disagreements: Vec<Disagreement>,
}

/// Checks the fabric formed by `devices` (name, role, facts).
pub fn check(devices: &[(String, String, FabricFacts)], policy: &Policy) -> FabricChecks {
    let mut result = FabricChecks::default();
    for (_, _, facts) in devices {
        if let FabricFacts::Host(HostFabric { iblinkinfo: Some((view, file)), .. }) = facts {
            result.findings.extend(super::ib_fabric::check(view, file, policy));
        }
    }
    let views: Vec<LldpView> = devices.iter().map(|(name, role, facts)| lldp_view(name, role, facts)).collect();
    let topo = topology::build(&views);
    let facts: BTreeMap<&str, &FabricFacts> = devices.iter().map(|(n, _, f)| (n.as_str(), f)).collect();
    let max_host_mtu = devices
        .iter()
        .filter_map(|(_, _, f)| if let FabricFacts::Host(h) = f { Some(h) } else { None })
        .flat_map(|h| h.nics.iter().filter_map(|n| n.mtu))
        .max();
    // The far end of each linked port: its MTU bounds what the port must carry.
    let mut peers: BTreeMap<End, End> = BTreeMap::new();
    for link in &topo.links {
        peers.insert(link.a.clone(), link.b.clone());
        peers.insert(link.b.clone(), link.a.clone());
    }
    for (name, _, f) in devices {
        match f {
            FabricFacts::Switch(s) => {
                let linked: Vec<String> = peers.keys().filter(|e| &e.device == name).map(|e| e.port.clone()).collect();
                let mut unknown = Unknown::default();
                for port_name in judged_ports(s, &linked) {
                    let here = End { device: name.clone(), port: port_name.to_string() };
                    let peer_mtu = match peers.get(&here).map(|there| (there, facts.get(there.device.as_str()))) {
                        Some((there, Some(FabricFacts::Host(h)))) => {
                            h.nics.iter().find(|n| n.netdev == there.port).and_then(|n| n.mtu)
                        }
                        _ => max_host_mtu,
                    };
                    unknown.add(port_name, port::unknown_settings(port_name, s, policy, peer_mtu));
                    let mut found = port::check(name, port_name, s, policy, peer_mtu);
                    super::fixes::attach_switch(&mut found, s, policy);
                    let problems = result.hops.entry(here).or_default();
                    problems
                        .extend(found.iter().map(|f| HopProblem { severity: f.severity, reason: f.message.clone() }));
                    result.findings.extend(found);
                }
                // An unread configuration is its own `collect.*` finding: nothing more to say.
                if !s.config_unread {
                    result.findings.extend(unknown.findings(name, s.platform, &s.config_file));
                }
            }
            FabricFacts::Host(h) => {
                for nic in &h.nics {
                    let here = End { device: name.clone(), port: nic.netdev.clone() };
                    let problems = result.hops.entry(here).or_default();
                    problems.extend(
                        nic.failing
                            .iter()
                            .map(|(severity, reason)| HopProblem { severity: *severity, reason: reason.clone() }),
                    );
                }
            }
        }
    }
    for link in &topo.links {
        result.disagreements.extend(disagreements(&link.a, &link.b, &facts));
    }
    result.findings.extend(topo.findings.iter().cloned());
    result.topology = topo;
    result
}

/// What a device's LLDP says, and the names its ports answer to.
fn lldp_view(name: &str, role: &str, facts: &FabricFacts) -> LldpView {
    match facts {
        FabricFacts::Host(h) => LldpView {
            device: name.to_string(),
            aliases: vec![],
            role: role.to_string(),
            neighbors: h.lldp.clone().unwrap_or_default(),
            read: h.lldp.is_some(),
            interfaces: h
                .nics
                .iter()
                .map(|n| Interface { name: n.netdev.clone(), alias: None, mac: n.mac.clone() })
                .collect(),
            evidence: h.lldp_file.clone(),
        },
        FabricFacts::Switch(s) => LldpView {
            device: name.to_string(),
            aliases: s.qos.hostname.iter().cloned().collect(),
            role: role.to_string(),
            neighbors: s.lldp.clone(),
            read: true,
            interfaces: s
                .qos
                .ports
                .iter()
                .map(|(port, q)| Interface {
                    name: q.name.clone().unwrap_or_else(|| port.clone()),
                    alias: q.alias.clone(),
                    mac: None,
                })
                .collect(),
            evidence: s.lldp_file.clone(),
        },
    }
}

/// What one end of a link says: its lossless priorities, and its speed (a host NIC's speed is
/// judged by the NIC's own checks).
type EndView = (Option<Vec<u8>>, Option<u64>);

fn end_view(e: &End, facts: &BTreeMap<&str, &FabricFacts>) -> Option<EndView> {
    match facts.get(e.device.as_str())? {
        FabricFacts::Host(h) => h.nics.iter().find(|n| n.netdev == e.port).map(|n| (n.pfc.clone(), None)),
        FabricFacts::Switch(s) => {
            s.qos.ports.get(&canonical_interface(&e.port)).map(|p| (p.lossless_priorities.clone(), p.speed_mbps))
        }
    }
}

/// The two ends of a link must agree on what the lossless chain needs.
fn disagreements(a: &End, b: &End, facts: &BTreeMap<&str, &FabricFacts>) -> Vec<Disagreement> {
    let (Some((pfc_a, speed_a)), Some((pfc_b, speed_b))) = (end_view(a, facts), end_view(b, facts)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if let (Some(x), Some(y)) = (&pfc_a, &pfc_b)
        && x != y
    {
        let reason = format!("PFC priorities differ across the link: {:?} on {}, {:?} on {}", x, a.hop(), y, b.hop());
        out.push(Disagreement { a: a.clone(), b: b.clone(), reason });
    }
    if let (Some(x), Some(y)) = (speed_a, speed_b)
        && x != y
    {
        let reason = format!("the ends run at different speeds: {} Mb/s on {}, {} Mb/s on {}", x, a.hop(), y, b.hop());
        out.push(Disagreement { a: a.clone(), b: b.clone(), reason });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use fabcheck_model::switch::{Ecn, PortQos, QueueQos, Scheduler, SwitchQos};

    fn n(local: &str, system: &str, port: &str) -> LldpNeighbor {
        crate::topology::neighbor(local, system, port)
    }

    fn healthy_port() -> PortQos {
        let mut p = PortQos {
            lossless_priorities: Some(vec![3]),
            trust: Some("dscp".into()),
            pfc_watchdog: Some(true),
            mtu: Some(9216),
            speed_mbps: Some(400_000),
            oper_up: Some(true),
            admin_up: Some(true),
            ..PortQos::default()
        };
        p.dscp_to_tc.insert(26, 3);
        p.dscp_to_tc.insert(48, 6);
        let ecn = Ecn {
            enabled: true,
            min_bytes: Some(150 * 1024),
            max_bytes: Some(1500 * 1024),
            probability_percent: Some(10),
            uncertain_unit: None,
        };
        p.queues.insert(3, QueueQos { scheduler: Some(Scheduler::Weighted { weight: 50 }), ecn: Some(ecn) });
        p.queues.insert(6, QueueQos { scheduler: Some(Scheduler::Strict), ecn: None });
        p
    }

    /// The fabric checks and the path marking, as an audit runs them.
    fn check(devices: &[(String, String, FabricFacts)], policy: &Policy) -> crate::correlate::paths::Marked {
        let checks = super::check(devices, policy);
        crate::correlate::paths::mark(checks)
    }

    fn switch(ports: &[&str], lldp: Vec<LldpNeighbor>) -> FabricFacts {
        let qos = SwitchQos {
            ports: ports.iter().map(|p| (p.to_string(), healthy_port())).collect(),
            ..SwitchQos::default()
        };
        FabricFacts::Switch(Box::new(SwitchFacts {
            platform: "sonic",
            qos,
            lldp,
            config_file: "sw/config.txt".into(),
            lldp_file: "sw/lldp.txt".into(),
            counters: None,
            config_unread: false,
        }))
    }

    fn fabric() -> Vec<(String, String, FabricFacts)> {
        let host = HostFabric {
            lldp: Some(vec![n("ens1np0", "leaf1", "Ethernet0")]),
            lldp_file: "gpu001/lldp.txt".into(),
            nics: vec![HostNic {
                netdev: "ens1np0".into(),
                mac: Some("0c:42:a1:00:00:01".into()),
                pfc: Some(vec![3]),
                trust: Some("dscp".into()),
                mtu: Some(4200),
                failing: vec![],
            }],
            iblinkinfo: None,
        };
        vec![
            ("gpu001".into(), "host".into(), FabricFacts::Host(host)),
            (
                "leaf1".into(),
                "leaf".into(),
                switch(
                    &["Ethernet0", "Ethernet48"],
                    vec![n("Ethernet0", "gpu001", "ens1np0"), n("Ethernet48", "spine1", "swp1")],
                ),
            ),
            ("spine1".into(), "spine".into(), switch(&["swp1"], vec![n("swp1", "leaf1", "Ethernet48")])),
        ]
    }

    fn policy() -> Policy {
        Policy::parse(crate::policy::DEFAULT_POLICY, "default").unwrap()
    }

    #[test]
    fn a_healthy_fabric_has_one_passing_path() {
        let r = check(&fabric(), &policy());
        assert!(r.findings.is_empty(), "{:#?}", r.findings);
        assert_eq!(r.paths_total, 1);
        let hops: Vec<(&str, bool)> = r.paths[0].hops.iter().map(|h| (h.hop.as_str(), h.ok)).collect();
        assert_eq!(
            hops,
            [("gpu001:ens1np0", true), ("leaf1:Ethernet0", true), ("leaf1:Ethernet48", true), ("spine1:swp1", true)]
        );
    }

    #[test]
    fn pfc_off_on_an_uplink_breaks_the_path_there_with_a_diff() {
        let mut devices = fabric();
        if let FabricFacts::Switch(s) = &mut devices[1].2 {
            s.qos.ports.get_mut("Ethernet48").unwrap().lossless_priorities = Some(vec![]);
        }
        let r = check(&devices, &policy());
        let keys: Vec<(&str, &str, Option<&str>)> =
            r.findings.iter().map(|f| (f.code.as_str(), f.device.as_str(), f.port.as_deref())).collect();
        assert_eq!(
            keys,
            [("switch.pfc_mismatch", "leaf1", Some("Ethernet48")), ("path.inconsistent", "leaf1", Some("Ethernet48")),],
            "the spine's end disagrees too, but its own configuration is right: {:#?}",
            r.findings
        );
        let diff = r.findings[0].diff.as_deref().unwrap();
        assert!(diff.contains("-pfc priorities: 3\n+pfc priorities: none\n"), "{diff}");
        assert!(!diff.contains("+dscp"), "only what is off differs: {diff}");
        assert_eq!(r.findings[1].path, ["gpu001:ens1np0", "leaf1:Ethernet0", "leaf1:Ethernet48", "spine1:swp1"]);
        let failing: Vec<&str> = r.paths[0].hops.iter().filter(|h| !h.ok).map(|h| h.hop.as_str()).collect();
        assert_eq!(failing, ["leaf1:Ethernet48"], "the spine's end is right: the disagreement is the leaf's");
    }

    #[test]
    fn a_host_nic_that_fails_its_own_checks_breaks_its_paths_at_the_host() {
        let mut devices = fabric();
        if let FabricFacts::Host(h) = &mut devices[0].2 {
            h.nics[0].failing.push((Severity::Critical, "PFC is not enabled".into()));
            h.nics[0].pfc = Some(vec![]);
        }
        let r = check(&devices, &policy());
        let path: Vec<_> = r.findings.iter().filter(|f| f.code == "path.inconsistent").collect();
        assert_eq!(path.len(), 1);
        assert_eq!((path[0].device.as_str(), path[0].port.as_deref()), ("gpu001", Some("ens1np0")));
    }

    #[test]
    fn ecn_thresholds_outside_the_ranges_and_a_weighted_cnp_queue_are_named() {
        let mut devices = fabric();
        if let FabricFacts::Switch(s) = &mut devices[2].2 {
            let p = s.qos.ports.get_mut("swp1").unwrap();
            p.queues.get_mut(&3).unwrap().ecn.as_mut().unwrap().min_bytes = Some(20 * 1024);
            p.queues.get_mut(&6).unwrap().scheduler = Some(Scheduler::Weighted { weight: 10 });
        }
        let r = check(&devices, &policy());
        let codes: Vec<&str> = r.findings.iter().filter(|f| f.device == "spine1").map(|f| f.code.as_str()).collect();
        assert_eq!(codes, ["switch.ecn_threshold", "switch.cnp_queue_not_strict", "path.inconsistent"]);
    }
}
