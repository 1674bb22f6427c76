//! What explains what, by mechanism, in one place.
//!
//! A finding explains another when the way it breaks the fabric (its [`Mechanism`]) is one that
//! produces the other, and it sits where the other was seen: on its hop or the hop across the
//! link, on the path or flow it is about, or on (the paths of) the hosts of a benchmark. Being on
//! a flow's way is not enough: ECN thresholds out of range or a link trained at half speed make a
//! flow slow, never make it lose packets, so they do not explain its NAKs.
//!
//! The mechanisms are those the RoCE literature separates:
//! - **loss**: RoCEv2 recovers from a lost packet by going back N (the NIC's NAK, then
//!   retransmission: InfiniBand Architecture Specification vol. 1, 9.7.5.1), so a lossless
//!   class that is not lossless on one hop (PFC off or on another priority, a trust mode or DSCP
//!   map that sends RoCE to a lossy class, headroom too small for the cable) shows as drops there
//!   (`out_of_buffer`, discards), NAKs and retransmissions of the flows across it, and slow
//!   collectives on the hosts behind it (NVIDIA, "RoCE Configuration for Lossless Networks";
//!   Guo et al., "RDMA over Commodity Ethernet at Scale", SIGCOMM 2016, §2 and §4);
//! - **signalling**: ECN marking and DCQCN's CNPs slow senders before queues fill (Zhu et al.,
//!   "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015); marking off or at the
//!   wrong thresholds, DCQCN off, or CNPs in a slow class show as CE marks left unanswered, pause
//!   storms, slow completion and low throughput, not as loss;
//! - **capacity**: a link down or trained slower, an MTU below the frames, a missing RoCEv2 GID,
//!   a rail routed over another, interrupts piled on one core: less bandwidth, stragglers and
//!   NCCL falling back to another transport;
//! - **GPUDirect**: without peer memory NCCL stages every transfer through host memory
//!   (NVIDIA GPUDirect RDMA documentation): `nccl.gdr_disabled` and a slow host;
//! - **launch**: a benchmark that did not run as one collective (tests built without MPI, each
//!   process alone; NCCL errors; mismatched NCCL versions) explains its own low bandwidth and
//!   nothing of the fabric.
//!
//! Findings come in tiers, and only a lower tier explains a higher one, so explanations never
//! loop: configuration and state (tier 0), counters and other measured consequences that in
//! turn explain what crosses them, and what a benchmark says of its own transport (tier 1),
//! and paths, flows and benchmarks' bandwidth (tier 2). A finding
//! nothing explains is a root. Among several fitting explanations the first named is the one its
//! incident follows: configuration before counters (tier), then the nearest (the same hop, the
//! link's other end or the path, then only the same hosts), then the most severe, then by id.

use fabcheck_model::{AuditResult, Finding, Severity, hop_device};
use std::collections::{BTreeMap, BTreeSet};

/// How a finding breaks the fabric, or which breakage can produce it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mechanism {
    /// RoCE packets dropped on a hop.
    Loss,
    /// Congestion not signalled, or signals not answered.
    Signalling,
    /// Less bandwidth than the fabric is built for.
    Capacity,
    /// GPUDirect RDMA off on a host.
    GpuDirect,
    /// The benchmark did not run as a collective of the hosts it names (processes alone, NCCL
    /// errors, mismatched libraries): its figures say nothing of the fabric.
    Launch,
}

use Mechanism::{Capacity, GpuDirect, Launch, Loss, Signalling};

/// Where an explanation must sit, relative to the finding it explains.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    /// On the finding's hop, or on a hop next to it on a path (the link's other end, the other
    /// port of the switch on the way).
    Hop,
    /// On the hops of the finding's path (a path finding, a flow's route).
    Path,
    /// On the finding's hosts (a benchmark's device and `path`), or on the paths from them.
    Hosts,
}

/// One code's entry: its tier, the mechanism by which it breaks things (when it explains
/// others), and what can explain it, where.
struct Rule {
    code: &'static str,
    tier: u8,
    breaks: Option<Mechanism>,
    explained_by: &'static [Mechanism],
    scope: Scope,
}

const fn root(code: &'static str, breaks: Mechanism) -> Rule {
    Rule { code, tier: 0, breaks: Some(breaks), explained_by: &[], scope: Scope::Hop }
}

/// A root of its own: explains nothing (it breaks nothing) and nothing explains it.
const fn alone(code: &'static str) -> Rule {
    Rule { code, tier: 0, breaks: None, explained_by: &[], scope: Scope::Hop }
}

const fn measured(code: &'static str, breaks: Mechanism, explained_by: &'static [Mechanism], scope: Scope) -> Rule {
    Rule { code, tier: 1, breaks: Some(breaks), explained_by, scope }
}

const fn symptom(code: &'static str, explained_by: &'static [Mechanism], scope: Scope) -> Rule {
    Rule { code, tier: 2, breaks: None, explained_by, scope }
}

/// Every code that breaks something or can be explained. A code not listed (`ssh.*`,
/// `collect.*`, a firmware mismatch) is always its own root and explains nothing.
const RULES: &[Rule] = &[
    // Loss: the lossless class is not lossless on this hop.
    root("nic.pfc_mismatch", Loss),
    root("nic.trust_mismatch", Loss),
    root("nic.dscp_map_mismatch", Loss),
    root("nic.pfc_buffer_insufficient", Loss),
    root("nic.roce_wrong_priority", Loss),
    root("switch.pfc_mismatch", Loss),
    root("switch.trust_mismatch", Loss),
    root("switch.dscp_map_mismatch", Loss),
    root("switch.pfc_headroom_insufficient", Loss),
    root("switch.lossless_not_effective", Loss),
    root("switch.qos_policy_undefined", Loss),
    root("switch.pfc_watchdog_big_red_switch", Loss),
    // Signalling: congestion is not marked, or marks are not answered.
    root("switch.ecn_disabled", Signalling),
    root("switch.ecn_threshold", Signalling),
    root("switch.cnp_queue_not_strict", Signalling),
    root("switch.pfc_watchdog_disabled", Signalling),
    root("nic.dcqcn_disabled", Signalling),
    root("nic.cnp_mismatch", Signalling),
    // Capacity.
    root("nic.link_down", Capacity),
    root("nic.link_degraded", Capacity),
    root("nic.mtu_mismatch", Capacity),
    root("nic.rocev2_gid_missing", Capacity),
    root("switch.port_down", Capacity),
    root("switch.link_degraded", Capacity),
    root("switch.mtu_mismatch", Capacity),
    root("ib.port_down", Capacity),
    root("ib.link_degraded", Capacity),
    root("ib.sm_missing", Capacity),
    root("host.multirail_routing", Capacity),
    root("host.irq_affinity_overlap", Capacity),
    // GPUDirect.
    root("host.gdr_disabled", GpuDirect),
    // What a switch cannot show is not a fault of the fabric: it breaks nothing, so it explains
    // nothing, and no finding explains a platform's silence; it stands alone so the report says it.
    alone("switch.setting_unknown"),
    // Measured on a hop: the loss itself, and a loss seen there explains what crosses it.
    measured("counter.out_of_buffer", Loss, &[Loss], Scope::Hop),
    measured("counter.rx_discards", Loss, &[Loss], Scope::Hop),
    measured("counter.tx_discards", Loss, &[Loss], Scope::Hop),
    measured("counter.seq_err", Loss, &[Loss], Scope::Hop),
    measured("ib.symbol_errors", Loss, &[Capacity], Scope::Hop),
    measured("ib.link_downed", Capacity, &[Capacity], Scope::Hop),
    // Pauses pile up where the senders are not slowed (signalling) or a receiver drains slowly.
    measured("counter.pause_storm", Signalling, &[Signalling, Loss], Scope::Hop),
    measured("switch.pfc_storm", Signalling, &[Signalling, Loss], Scope::Hop),
    measured("counter.ecn_marks", Signalling, &[Signalling], Scope::Hop),
    measured("nic.dcqcn_inactive", Signalling, &[Signalling], Scope::Hop),
    // A host slow on its own, before the network: what slows it alone.
    measured("nccl.intra_node_slow", Capacity, &[GpuDirect, Capacity], Scope::Hosts),
    // What a benchmark run says of its own transport explains its bandwidth.
    measured("nccl.gdr_disabled", GpuDirect, &[GpuDirect], Scope::Hosts),
    measured("nccl.wrong_transport", Capacity, &[Capacity], Scope::Hosts),
    measured("nccl.wrong_hca", Capacity, &[Capacity], Scope::Hosts),
    measured("nccl.nic_shared", Capacity, &[Capacity], Scope::Hosts),
    measured("nccl.hca_mismatch", Capacity, &[Capacity], Scope::Hosts),
    measured("nccl.not_mpi", Launch, &[Launch], Scope::Hosts),
    measured("nccl.failed", Launch, &[Loss, Capacity], Scope::Hosts),
    measured("nccl.version_mismatch", Launch, &[Launch], Scope::Hosts),
    // NCCL's socket interface on loopback: no other host can reach its bootstrap or socket
    // transport there (NCCL's documentation, NCCL_SOCKET_IFNAME), a launch error of its own.
    measured("nccl.socket_loopback", Launch, &[Launch], Scope::Hosts),
    // Paths, flows and benchmarks.
    symptom("path.inconsistent", &[Loss, Signalling, Capacity], Scope::Hop),
    symptom("flow.nak_rate", &[Loss], Scope::Path),
    symptom("flow.retransmits", &[Loss], Scope::Path),
    symptom("flow.ecn_ce", &[Signalling], Scope::Path),
    symptom("flow.fct", &[Loss, Signalling, Capacity], Scope::Path),
    symptom("flow.throughput_low", &[Loss, Signalling, Capacity], Scope::Path),
    symptom("flow.hop_latency", &[Signalling, Capacity], Scope::Path),
    symptom("flow.dscp_mismatch", &[Loss], Scope::Path),
    symptom("nccl.straggler", &[Loss, Signalling, Capacity, GpuDirect, Launch], Scope::Hosts),
    symptom("nccl.busbw_low", &[Loss, Signalling, Capacity, GpuDirect, Launch], Scope::Hosts),
];

fn rule(code: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.code == code)
}

/// Whether a finding of code `cause` can explain one of code `symptom` by its mechanism, where
/// it sits apart: what a flow's message may name as found on its way.
pub fn fits(symptom: &str, cause: &str) -> bool {
    match (rule(symptom), rule(cause)) {
        (Some(s), Some(c)) => c.tier < s.tier && c.breaks.is_some_and(|m| s.explained_by.contains(&m)),
        _ => false,
    }
}

/// The hops next to each hop on the result's paths, and each host's hops on them.
struct Topology {
    neighbours: BTreeMap<String, BTreeSet<String>>,
    host_hops: BTreeMap<String, BTreeSet<String>>,
}

impl Topology {
    fn of(result: &AuditResult) -> Topology {
        let mut neighbours: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut host_hops: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for path in &result.paths {
            for pair in path.hops.windows(2) {
                let (a, b) = (&pair[0].hop, &pair[1].hop);
                neighbours.entry(a.clone()).or_default().insert(b.clone());
                neighbours.entry(b.clone()).or_default().insert(a.clone());
            }
            if let Some(first) = path.hops.first() {
                let hops = host_hops.entry(hop_device(&first.hop).to_string()).or_default();
                hops.extend(path.hops.iter().map(|h| h.hop.clone()));
            }
        }
        Topology { neighbours, host_hops }
    }

    /// How near `cause` is to `symptom` under `scope` (0 the same hop, 1 the link or the path,
    /// 2 the same hosts), or `None` when it is not where the symptom was seen.
    fn distance(&self, symptom: &Place, scope: Scope, cause: &Place) -> Option<u8> {
        let (at, hop) = (cause.hop.as_str(), symptom.hop.as_str());
        let device_wide = cause.finding.port.is_none();
        match scope {
            Scope::Hop if at == hop => Some(0),
            Scope::Hop if device_wide && cause.finding.device == symptom.finding.device => Some(0),
            Scope::Hop => self.neighbours.get(hop).is_some_and(|n| n.contains(at)).then_some(1),
            Scope::Path => {
                let on_path = symptom.finding.path.iter().any(|h| h == at || (device_wide && hop_device(h) == at));
                if at == hop { Some(0) } else { on_path.then_some(1) }
            }
            Scope::Hosts => {
                if symptom.hosts.contains(cause.finding.device.as_str()) {
                    return Some(if device_wide { 0 } else { 1 });
                }
                let behind = symptom.hosts.iter().any(|h| self.host_hops.get(*h).is_some_and(|hops| hops.contains(at)));
                behind.then_some(2)
            }
        }
    }
}

/// A finding with where it is, worked out once: explanations are sought among every pair of
/// findings, and a fabric of a thousand hosts has thousands of them.
struct Place<'a> {
    finding: &'a Finding,
    /// `device:port`, or the device.
    hop: String,
    /// The hosts a benchmark finding is about: its device and `path`.
    hosts: BTreeSet<&'a str>,
}

impl<'a> Place<'a> {
    fn of(finding: &'a Finding) -> Place<'a> {
        let hosts =
            std::iter::once(finding.device.as_str()).chain(finding.path.iter().map(|h| hop_device(h))).collect();
        Place { finding, hop: finding.hop(), hosts }
    }
}

/// Fills the `explained_by` (ids, the one its incident follows first) and `caused_by` (their
/// codes, in that order, each once) of every finding [`RULES`] lists, replacing what earlier
/// stages guessed from position; a finding nothing explains gets none. The others keep their
/// own. Findings must have their ids ([`AuditResult::finish`]).
pub fn explain(result: &mut AuditResult) {
    let topology = Topology::of(result);
    let places: Vec<Place> = result.findings.iter().map(Place::of).collect();
    let candidates: Vec<(&Place, &'static Rule)> = places
        .iter()
        .filter(|p| p.finding.severity >= Severity::Warning && p.finding.waived.is_none())
        .filter_map(|p| rule(&p.finding.code).filter(|r| r.breaks.is_some()).map(|r| (p, r)))
        .collect();
    let mut explained: Vec<Option<(Vec<String>, Vec<String>)>> = Vec::with_capacity(places.len());
    for symptom in &places {
        let Some(s) = rule(&symptom.finding.code) else {
            explained.push(None);
            continue;
        };
        let mut fitting: Vec<(u8, u8, std::cmp::Reverse<Severity>, &str, &str)> = candidates
            .iter()
            .filter(|(_, c)| fits(s.code, c.code))
            .filter_map(|(cause, c)| {
                let distance = topology.distance(symptom, s.scope, cause)?;
                let f = cause.finding;
                Some((c.tier, distance, std::cmp::Reverse(f.severity), f.id.as_str(), f.code.as_str()))
            })
            .collect();
        fitting.sort();
        let ids = fitting.iter().map(|c| c.3.to_string()).collect();
        let mut codes: Vec<String> = Vec::new();
        for c in &fitting {
            if !codes.iter().any(|k| k == c.4) {
                codes.push(c.4.to_string());
            }
        }
        explained.push(Some((ids, codes)));
    }
    for (f, explained) in result.findings.iter_mut().zip(explained) {
        if let Some((ids, codes)) = explained {
            f.explained_by = ids;
            f.caused_by = codes;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fabcheck_model::{HopState, PathView};

    fn at(code: &str, severity: Severity, hop: &str) -> Finding {
        let (device, port) = hop.split_once(':').map_or((hop, None), |(d, p)| (d, Some(p)));
        let f = Finding::new(code, severity, device, "m");
        match port {
            Some(p) => f.port(p),
            None => f,
        }
    }

    fn path(hops: &[&str]) -> PathView {
        PathView { hops: hops.iter().map(|h| HopState { hop: h.to_string(), ok: true, reasons: vec![] }).collect() }
    }

    fn explained(findings: Vec<Finding>, paths: Vec<PathView>) -> AuditResult {
        let mut result = AuditResult { findings, paths, ..AuditResult::default() }.finish();
        explain(&mut result);
        result
    }

    fn of<'a>(result: &'a AuditResult, code: &str, device: &str) -> &'a Finding {
        result.findings.iter().find(|f| f.code == code && f.device == device).unwrap()
    }

    #[test]
    fn a_flows_naks_are_explained_by_the_loss_on_its_way_not_by_ecn_or_a_slow_link_there() {
        let mut nak = at("flow.nak_rate", Severity::Error, "gpu001:ens1np0");
        nak.path =
            ["gpu001:ens1np0", "leaf1:Ethernet0", "leaf2:Ethernet1/1", "gpu002:ens1np0"].map(String::from).into();
        let mut slow = nak.clone();
        slow.code = "flow.fct".into();
        let result = explained(
            vec![
                nak,
                slow,
                at("nic.pfc_mismatch", Severity::Critical, "gpu002:ens1np0"),
                at("counter.out_of_buffer", Severity::Critical, "gpu002:ens1np0"),
                at("switch.ecn_threshold", Severity::Error, "leaf2:Ethernet1/1"),
                at("nic.link_degraded", Severity::Error, "gpu001:ens1np0"),
            ],
            vec![],
        );
        let nak = of(&result, "flow.nak_rate", "gpu001");
        assert_eq!(nak.caused_by, ["nic.pfc_mismatch", "counter.out_of_buffer"]);
        assert_eq!(nak.explained_by[0], "nic.pfc_mismatch@gpu002:ens1np0", "configuration first");
        let slow = of(&result, "flow.fct", "gpu001");
        assert_eq!(slow.caused_by[0], "nic.link_degraded", "the nearest first: the sender's own port");
        assert!(slow.caused_by.contains(&"switch.ecn_threshold".to_string()), "{:?}", slow.caused_by);
        let drops = of(&result, "counter.out_of_buffer", "gpu002");
        assert_eq!(drops.explained_by, ["nic.pfc_mismatch@gpu002:ens1np0"]);
        assert!(of(&result, "nic.pfc_mismatch", "gpu002").explained_by.is_empty(), "a root");
    }

    #[test]
    fn counters_are_explained_across_the_link_and_a_straggler_by_what_is_behind_its_host() {
        let mut straggler = at("nccl.straggler", Severity::Error, "gpu002");
        straggler.path = vec![];
        let result = explained(
            vec![
                at("switch.pfc_mismatch", Severity::Critical, "leaf1:Ethernet8"),
                at("counter.rx_discards", Severity::Error, "gpu002:ens1np0"),
                at("counter.ecn_marks", Severity::Warning, "gpu002:ens1np0"),
                straggler,
                at("host.gdr_disabled", Severity::Error, "gpu004"),
            ],
            vec![path(&["gpu002:ens1np0", "leaf1:Ethernet8", "leaf1:Ethernet32", "spine1:swp1"])],
        );
        assert_eq!(of(&result, "counter.rx_discards", "gpu002").explained_by, ["switch.pfc_mismatch@leaf1:Ethernet8"]);
        assert!(of(&result, "counter.ecn_marks", "gpu002").explained_by.is_empty(), "loss does not mark ECN");
        let straggler = of(&result, "nccl.straggler", "gpu002");
        assert_eq!(
            straggler.caused_by,
            ["switch.pfc_mismatch", "counter.rx_discards", "counter.ecn_marks"],
            "configuration, then the host's own counters; not gpu004's GPUDirect"
        );
    }

    #[test]
    fn every_listed_code_is_a_documented_code_once_and_only_lower_tiers_explain() {
        // The finding codes' tables: the audit's, the benchmark's, the flows'.
        let docs = [
            include_str!("../../../../docs/checks.md"),
            include_str!("../../../../docs/benchmarking.md"),
            include_str!("../../../../docs/flows-and-runs.md"),
        ];
        let mut seen = BTreeSet::new();
        for r in RULES {
            let listed = docs.iter().any(|d| d.contains(&format!("`{}`", r.code)));
            assert!(listed, "{} is in no table of docs/checks.md, benchmarking.md or flows-and-runs.md", r.code);
            assert!(seen.insert(r.code), "{} listed twice", r.code);
            assert!(r.tier == 0 || !r.explained_by.is_empty(), "{} can never be explained", r.code);
            assert!(!fits(r.code, r.code), "{} explains itself", r.code);
        }
    }
}
