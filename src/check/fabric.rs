//! The fabric: links from both ends' LLDP, each linked switch port checked against the policy,
//! both ends of each link compared, and every GPU path (half-paths host NIC → leaf → spine)
//! marked hop by hop. A failing hop gets a diff of its expected and actual normalized
//! configuration; each path through it gets a `path.inconsistent` naming where the lossless
//! chain breaks.

use super::switch::SwitchFacts;
use crate::policy::Policy;
use crate::topology::{self, End, LldpView, Topology};
use fabcheck_model::{Finding, HopState, PathView, Severity};
use fabcheck_model::switch::{LldpNeighbor, PortQos, Scheduler, canonical_interface};
use similar::TextDiff;
use std::collections::BTreeMap;

/// Paths up to this many are all listed in the report; beyond, only the failing ones.
const LIST_ALL_PATHS: usize = 256;

/// A host's side of the fabric.
#[derive(Debug, Clone, Default)]
pub struct HostFabric {
    /// LLDP neighbours of its NICs.
    pub lldp: Vec<LldpNeighbor>,
    /// LLDP evidence file.
    pub lldp_file: String,
    /// Per RoCE netdev: what it has.
    pub nics: Vec<HostNic>,
    /// The InfiniBand fabric's links as this host sees them, and the evidence file.
    pub iblinkinfo: Option<(fabcheck_parse::linux::iblinkinfo::Iblinkinfo, String)>,
}

/// What a host NIC brings to its link.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HostNic {
    /// Netdev.
    pub netdev: String,
    /// PFC priorities (mlnx_qos).
    pub pfc: Option<Vec<u8>>,
    /// Trust mode.
    pub trust: Option<String>,
    /// MTU.
    pub mtu: Option<u32>,
    /// Why the NIC's own checks failed (its `nic.*` findings).
    pub failing: Vec<String>,
}

/// One device's part.
#[derive(Debug, Clone)]
pub enum FabricFacts {
    /// A GPU host.
    Host(HostFabric),
    /// A switch.
    Switch(Box<SwitchFacts>),
}

/// What the fabric checks found.
#[derive(Debug, Default)]
pub struct FabricResult {
    /// Findings.
    pub findings: Vec<Finding>,
    /// Paths for the report.
    pub paths: Vec<PathView>,
    /// How many half-paths there are.
    pub paths_total: usize,
}

/// Checks the fabric formed by `devices` (name, role, facts).
pub fn check(devices: &[(String, String, FabricFacts)], policy: &Policy) -> FabricResult {
    let mut result = FabricResult::default();
    let views: Vec<LldpView> = devices
        .iter()
        .map(|(name, role, facts)| match facts {
            FabricFacts::Host(h) => LldpView {
                device: name.clone(),
                aliases: vec![],
                role: role.clone(),
                neighbors: h.lldp.clone(),
                evidence: h.lldp_file.clone(),
            },
            FabricFacts::Switch(s) => LldpView {
                device: name.clone(),
                aliases: s.qos.hostname.iter().cloned().collect(),
                role: role.clone(),
                neighbors: s.lldp.clone(),
                evidence: s.lldp_file.clone(),
            },
        })
        .collect();
    for (_, _, facts) in devices {
        if let FabricFacts::Host(HostFabric { iblinkinfo: Some((view, file)), .. }) = facts {
            result.findings.extend(super::ib_fabric::check(view, file, policy));
        }
    }
    let topo = topology::build(&views);
    if topo.links.is_empty() {
        result.findings.extend(topo.findings);
        return result;
    }
    let facts: BTreeMap<&str, &FabricFacts> = devices.iter().map(|(n, _, f)| (n.as_str(), f)).collect();
    let mut hops: BTreeMap<End, Vec<String>> = BTreeMap::new();
    let max_host_mtu = devices
        .iter()
        .filter_map(|(_, _, f)| if let FabricFacts::Host(h) = f { Some(h) } else { None })
        .flat_map(|h| h.nics.iter().filter_map(|n| n.mtu))
        .max();
    for link in &topo.links {
        for (here, there) in [(&link.a, &link.b), (&link.b, &link.a)] {
            match facts.get(here.device.as_str()) {
                Some(FabricFacts::Switch(s)) => {
                    let peer_mtu = match facts.get(there.device.as_str()) {
                        Some(FabricFacts::Host(h)) => {
                            h.nics.iter().find(|n| n.netdev == there.port).and_then(|n| n.mtu)
                        }
                        _ => max_host_mtu,
                    };
                    let found = port_findings(&here.device, &here.port, s, policy, peer_mtu);
                    let reasons = hops.entry(here.clone()).or_default();
                    reasons.extend(found.iter().map(|f| f.message.clone()));
                    result.findings.extend(found);
                }
                Some(FabricFacts::Host(h)) => {
                    if let Some(nic) = h.nics.iter().find(|n| n.netdev == here.port) {
                        hops.entry(here.clone()).or_default().extend(nic.failing.iter().cloned());
                    }
                }
                None => {}
            }
        }
        // Ends that disagree: the blame goes to an end that fails its own checks; when neither
        // does (the policy is silent on it), to both.
        let found = disagreements(link.a.clone(), link.b.clone(), &facts);
        let failing: Vec<End> =
            [&link.a, &link.b].into_iter().filter(|e| hops.get(*e).is_some_and(|r| !r.is_empty())).cloned().collect();
        for (end, reason) in found {
            if failing.is_empty() || failing.contains(&end) {
                hops.entry(end).or_default().push(reason);
            }
        }
    }
    result.findings.extend(topo.findings.iter().cloned());
    paths(&topo, &hops, &mut result);
    result
}

/// Marks every half-path and reports each failing one where its chain first breaks.
fn paths(topo: &Topology, hops: &BTreeMap<End, Vec<String>>, result: &mut FabricResult) {
    let half = topo.half_paths();
    result.paths_total = half.len();
    for path in &half {
        let states: Vec<HopState> = path
            .hops
            .iter()
            .map(|h| {
                let reasons = hops.get(h).cloned().unwrap_or_default();
                HopState { hop: h.hop(), ok: reasons.is_empty(), reasons }
            })
            .collect();
        if let Some(broken) = path.hops.iter().find(|h| hops.get(*h).is_some_and(|r| !r.is_empty())) {
            let reasons = &hops[broken];
            let mut f = Finding::new(
                "path.inconsistent",
                Severity::Error,
                &broken.device,
                format!(
                    "the lossless chain {} breaks at {}: {}",
                    path.names().join(" → "),
                    broken.hop(),
                    reasons.join("; ")
                ),
            )
            .port(broken.port.clone())
            .expected_actual("every hop lossless for the RoCE priority", format!("{} fails", broken.hop()));
            f.path = path.names();
            result.findings.push(f);
        }
        if half.len() <= LIST_ALL_PATHS || states.iter().any(|s| !s.ok) {
            result.paths.push(PathView { hops: states });
        }
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
fn disagreements(a: End, b: End, facts: &BTreeMap<&str, &FabricFacts>) -> Vec<(End, String)> {
    let (Some((pfc_a, speed_a)), Some((pfc_b, speed_b))) = (end_view(&a, facts), end_view(&b, facts)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if let (Some(x), Some(y)) = (&pfc_a, &pfc_b)
        && x != y
    {
        let both = format!("PFC priorities differ across the link: {:?} on {}, {:?} on {}", x, a.hop(), y, b.hop());
        out.push((a.clone(), both.clone()));
        out.push((b.clone(), both));
    }
    if let (Some(x), Some(y)) = (speed_a, speed_b)
        && x != y
    {
        let both = format!("the ends run at different speeds: {} Mb/s on {}, {} Mb/s on {}", x, a.hop(), y, b.hop());
        out.push((a, both.clone()));
        out.push((b, both));
    }
    out
}

/// The checks of one linked switch port, each finding with the hop's diff.
fn port_findings(device: &str, port: &str, s: &SwitchFacts, policy: &Policy, host_mtu: Option<u32>) -> Vec<Finding> {
    let Some(actual) = s.qos.ports.get(&canonical_interface(port)) else {
        let f = Finding::new(
            "path.unknown",
            Severity::Error,
            device,
            format!("{device}:{port} carries a fabric link but its configuration was not found"),
        )
        .port(port)
        .evidence(s.config_file.clone());
        return vec![f];
    };
    let expect = Expectation::from_policy(policy, host_mtu);
    let mut out = Vec::new();
    let mut emit = |code: &str, severity, expected: String, got: String, message: String| {
        out.push(
            Finding::new(code, severity, device, message)
                .port(port)
                .expected_actual(expected, got)
                .evidence(s.config_file.clone()),
        );
    };
    if let (Some(want), Some(have)) = (&expect.pfc, &actual.lossless_priorities)
        && want != have
    {
        emit(
            "switch.pfc_mismatch",
            Severity::Critical,
            list(want),
            list(have),
            format!(
                "PFC on priorities {} instead of {}: RoCE is dropped here under congestion",
                list(have),
                list(want)
            ),
        );
    }
    for (what, dscp, tc) in [("RoCE", expect.roce_dscp, expect.roce_tc), ("CNP", expect.cnp_dscp, expect.cnp_tc)] {
        if let (Some(dscp), Some(tc)) = (dscp, tc) {
            let have = actual.dscp_to_tc.get(&dscp).copied();
            if have != Some(tc) {
                let got = have.map_or("unmapped".to_string(), |t| format!("TC {t}"));
                emit(
                    "switch.dscp_map_mismatch",
                    Severity::Critical,
                    format!("DSCP {dscp} → TC {tc}"),
                    format!("DSCP {dscp} → {got}"),
                    format!("{what} traffic (DSCP {dscp}) goes to {got}, not TC {tc}"),
                );
            }
        }
    }
    if let Some(tc) = expect.roce_tc {
        let q = queue_of(actual, tc);
        let ecn = actual.queues.get(&q).and_then(|q| q.ecn.clone());
        if expect.ecn_enabled == Some(true) && !ecn.as_ref().is_some_and(|e| e.enabled) {
            emit(
                "switch.ecn_disabled",
                Severity::Error,
                format!("ECN on queue {q}"),
                "off".into(),
                format!("no ECN marking on queue {q}: DCQCN gets no signal, PFC does all the work"),
            );
        } else if let Some(e) = ecn.filter(|e| e.enabled) {
            for (name, value, range) in [("Kmin", e.min_bytes, expect.ecn_min), ("Kmax", e.max_bytes, expect.ecn_max)] {
                if let (Some(v), Some([lo, hi])) = (value, range)
                    && !(lo * 1024..=hi * 1024).contains(&v)
                {
                    emit(
                        "switch.ecn_threshold",
                        Severity::Error,
                        format!("{name} {lo}-{hi} KB"),
                        format!("{name} {} KB", v / 1024),
                        format!("ECN {name} on queue {q} is {} KB, outside {lo}-{hi} KB", v / 1024),
                    );
                }
            }
        }
    }
    if let Some(tc) = expect.cnp_tc {
        let q = queue_of(actual, tc);
        if let Some(Some(sched)) = actual.queues.get(&q).map(|q| &q.scheduler)
            && *sched != Scheduler::Strict
        {
            emit(
                "switch.cnp_queue_not_strict",
                Severity::Error,
                format!("queue {q} strict priority"),
                format!("{sched:?}"),
                format!("CNPs (TC {tc}) wait in weighted queue {q}: congestion notifications arrive late"),
            );
        }
    }
    if expect.watchdog == Some(true) {
        let on = actual.pfc_watchdog.or(s.qos.pfc_watchdog.as_ref().map(|w| w.enabled));
        if on == Some(false) {
            emit(
                "switch.pfc_watchdog_disabled",
                Severity::Warning,
                "PFC watchdog on".into(),
                "off".into(),
                "no PFC watchdog: a PFC storm here can stall the fabric".into(),
            );
        }
    }
    if let (Some(need), Some(have)) = (expect.mtu, actual.mtu)
        && have < need
    {
        emit(
            "switch.mtu_mismatch",
            Severity::Error,
            format!("MTU ≥ {need}"),
            format!("MTU {have}"),
            format!("MTU {have} is below the hosts' {need}: their frames are dropped here"),
        );
    }
    if actual.oper_up == Some(false) {
        emit("switch.port_down", Severity::Critical, "up".into(), "down".into(), "the port is down".into());
    } else if let (Some(min), Some(speed)) = (expect.min_speed_mbps, actual.speed_mbps)
        && speed < min
    {
        emit(
            "switch.link_degraded",
            Severity::Error,
            format!("≥ {} Gb/s", min / 1000),
            format!("{} Gb/s", speed / 1000),
            format!("the port runs at {} Gb/s instead of {} Gb/s", speed / 1000, min / 1000),
        );
    }
    if !out.is_empty() {
        let diff = TextDiff::from_lines(expect.normalized(), normalized(actual, &expect))
            .unified_diff()
            .context_radius(10)
            .header(&format!("expected {device}:{port}"), &format!("actual {device}:{port}"))
            .to_string();
        for f in &mut out {
            f.diff = Some(diff.clone());
        }
    }
    out
}

/// What the policy asks of a switch port.
struct Expectation {
    pfc: Option<Vec<u8>>,
    roce_dscp: Option<u8>,
    roce_tc: Option<u8>,
    cnp_dscp: Option<u8>,
    cnp_tc: Option<u8>,
    ecn_enabled: Option<bool>,
    ecn_min: Option<[u64; 2]>,
    ecn_max: Option<[u64; 2]>,
    watchdog: Option<bool>,
    mtu: Option<u32>,
    min_speed_mbps: Option<u64>,
}

impl Expectation {
    fn from_policy(policy: &Policy, host_mtu: Option<u32>) -> Expectation {
        let tc = |c: &Option<crate::policy::TrafficClass>| c.as_ref().and_then(|c| c.traffic_class.or(c.priority));
        Expectation {
            pfc: policy.pfc.as_ref().and_then(|p| p.priorities.clone()).map(|mut v| {
                v.sort_unstable();
                v.dedup();
                v
            }),
            roce_dscp: policy.roce.as_ref().and_then(|c| c.dscp),
            roce_tc: tc(&policy.roce),
            cnp_dscp: policy.cnp.as_ref().and_then(|c| c.dscp),
            cnp_tc: tc(&policy.cnp),
            ecn_enabled: policy.ecn.as_ref().and_then(|e| e.enabled),
            ecn_min: policy.ecn.as_ref().and_then(|e| e.min_threshold_kb),
            ecn_max: policy.ecn.as_ref().and_then(|e| e.max_threshold_kb),
            watchdog: policy.pfc.as_ref().and_then(|p| p.watchdog),
            mtu: host_mtu.or(policy.nic.as_ref().and_then(|n| n.mtu)),
            min_speed_mbps: policy.nic.as_ref().and_then(|n| n.min_speed_gbps).map(|g| u64::from(g) * 1000),
        }
    }

    /// The expected configuration, in the same lines as [`normalized`].
    fn normalized(&self) -> String {
        let mut lines = Vec::new();
        if let Some(p) = &self.pfc {
            lines.push(format!("pfc priorities: {}", list(p)));
        }
        for (dscp, tc) in [(self.roce_dscp, self.roce_tc), (self.cnp_dscp, self.cnp_tc)] {
            if let (Some(d), Some(t)) = (dscp, tc) {
                lines.push(format!("dscp {d} -> tc {t}"));
            }
        }
        if let (Some(tc), Some(true)) = (self.roce_tc, self.ecn_enabled) {
            let range = |r: Option<[u64; 2]>| r.map_or("any".to_string(), |[lo, hi]| format!("{lo}-{hi} KB"));
            lines.push(format!("tc {tc} queue ecn: on, kmin {}, kmax {}", range(self.ecn_min), range(self.ecn_max)));
        }
        if let Some(tc) = self.cnp_tc {
            lines.push(format!("tc {tc} queue scheduler: strict"));
        }
        if let Some(w) = self.watchdog {
            lines.push(format!("pfc watchdog: {}", on_off(w)));
        }
        if let Some(m) = self.mtu {
            lines.push(format!("mtu: >= {m}"));
        }
        lines.push("oper: up".into());
        if let Some(s) = self.min_speed_mbps {
            lines.push(format!("speed: >= {} Gb/s", s / 1000));
        }
        lines.join("\n") + "\n"
    }
}

/// The actual configuration of a port, line for line as [`Expectation::normalized`]; a value
/// inside the expected range prints as the expectation does, so the diff shows only what is off.
fn normalized(p: &PortQos, e: &Expectation) -> String {
    let mut lines = Vec::new();
    if e.pfc.is_some() {
        lines.push(format!("pfc priorities: {}", p.lossless_priorities.as_deref().map_or("unknown".to_string(), list)));
    }
    for (dscp, tc) in [(e.roce_dscp, e.roce_tc), (e.cnp_dscp, e.cnp_tc)] {
        if let (Some(d), Some(_)) = (dscp, tc) {
            lines.push(format!("dscp {d} -> tc {}", p.dscp_to_tc.get(&d).map_or("none".to_string(), u8::to_string)));
        }
    }
    if let (Some(tc), Some(true)) = (e.roce_tc, e.ecn_enabled) {
        let ecn = p.queues.get(&queue_of(p, tc)).and_then(|q| q.ecn.clone()).filter(|x| x.enabled);
        lines.push(match ecn {
            None => format!("tc {tc} queue ecn: off"),
            Some(x) => {
                let show = |v: Option<u64>, r: Option<[u64; 2]>| match (v, r) {
                    (Some(v), Some([lo, hi])) if (lo * 1024..=hi * 1024).contains(&v) => format!("{lo}-{hi} KB"),
                    (Some(v), _) => format!("{} KB", v / 1024),
                    (None, _) => "unset".to_string(),
                };
                format!(
                    "tc {tc} queue ecn: on, kmin {}, kmax {}",
                    show(x.min_bytes, e.ecn_min),
                    show(x.max_bytes, e.ecn_max)
                )
            }
        });
    }
    if let Some(tc) = e.cnp_tc {
        let s = p.queues.get(&queue_of(p, tc)).and_then(|q| q.scheduler.clone());
        lines.push(format!(
            "tc {tc} queue scheduler: {}",
            match s {
                Some(Scheduler::Strict) => "strict".to_string(),
                Some(Scheduler::Weighted { weight }) => format!("weighted {weight}"),
                None => "unknown".to_string(),
            }
        ));
    }
    if e.watchdog.is_some() {
        lines.push(format!("pfc watchdog: {}", p.pfc_watchdog.map_or("unknown", on_off)));
    }
    if let Some(need) = e.mtu {
        lines.push(match p.mtu {
            Some(m) if m >= need => format!("mtu: >= {need}"),
            Some(m) => format!("mtu: {m}"),
            None => "mtu: unknown".to_string(),
        });
    }
    lines.push(format!(
        "oper: {}",
        match p.oper_up {
            Some(false) => "down",
            _ => "up",
        }
    ));
    if let Some(min) = e.min_speed_mbps {
        lines.push(match p.speed_mbps {
            Some(s) if s >= min => format!("speed: >= {} Gb/s", min / 1000),
            Some(s) => format!("speed: {} Gb/s", s / 1000),
            None => "speed: unknown".to_string(),
        });
    }
    lines.join("\n") + "\n"
}

fn queue_of(p: &PortQos, tc: u8) -> u8 {
    p.tc_to_queue.get(&tc).copied().unwrap_or(tc)
}

fn on_off(b: bool) -> &'static str {
    if b { "on" } else { "off" }
}

fn list(p: &[u8]) -> String {
    if p.is_empty() { "none".into() } else { p.iter().map(u8::to_string).collect::<Vec<_>>().join(",") }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fabcheck_model::switch::{Ecn, QueueQos, SwitchQos};

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
        };
        p.queues.insert(3, QueueQos { scheduler: Some(Scheduler::Weighted { weight: 50 }), ecn: Some(ecn) });
        p.queues.insert(6, QueueQos { scheduler: Some(Scheduler::Strict), ecn: None });
        p
    }

    fn switch(ports: &[&str], lldp: Vec<LldpNeighbor>) -> FabricFacts {
        let qos = SwitchQos {
            ports: ports.iter().map(|p| (p.to_string(), healthy_port())).collect(),
            ..SwitchQos::default()
        };
        FabricFacts::Switch(Box::new(SwitchFacts {
            qos,
            lldp,
            config_file: "sw/config.txt".into(),
            lldp_file: "sw/lldp.txt".into(),
        }))
    }

    fn fabric() -> Vec<(String, String, FabricFacts)> {
        let host = HostFabric {
            lldp: vec![n("ens1np0", "leaf1", "Ethernet0")],
            lldp_file: "gpu001/lldp.txt".into(),
            nics: vec![HostNic {
                netdev: "ens1np0".into(),
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
            h.nics[0].failing.push("PFC is not enabled".into());
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
