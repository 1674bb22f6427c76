//! `fabcheck policy infer`: the policy a running fleet follows, setting by setting, from what
//! its hosts and switches run. Each key is the value a clear majority holds (see [`tally`]),
//! written with a comment saying how many of how many run it and which do not; a setting with no
//! clear majority is left out with a comment naming the split. A majority that itself loses
//! packets (RoCE on a priority without PFC, hosts and switches disagreeing on what is lossless,
//! ECN off where DCQCN waits for it, CNPs queued with best-effort traffic) is never written: it
//! is a finding, and the key is left for the operator to decide.

mod doc;
pub mod hint;
pub mod sample;
pub mod tally;

use super::{Policy, PolicyError};
use doc::{Doc, said};
use fabcheck_model::{Finding, Severity};
use sample::{DeviceSample, PortSample};
use std::collections::{BTreeMap, BTreeSet};
use tally::{Decision, Tally, majority_range};

/// The device findings about the fleet's design are filed under.
pub const FLEET: &str = "fleet";

/// What `infer` decided.
#[derive(Debug, Clone)]
pub struct Inference {
    /// The policy, as commented YAML.
    pub yaml: String,
    /// The same, parsed.
    pub policy: Policy,
    /// Each key left out, with why (no clear majority, a lossy majority).
    pub left_out: Vec<String>,
    /// The designs that lose packets, found in the majority itself.
    pub findings: Vec<Finding>,
}

/// A port and who it is (`device:port`).
type Voter<'a> = (String, &'a PortSample);

/// Infers the policy `samples` follow, named `name`.
pub fn infer(samples: &[DeviceSample], name: &str) -> Result<Inference, PolicyError> {
    let ports = |switch: bool| -> Vec<Voter> {
        samples
            .iter()
            .filter(|d| d.switch == switch)
            .flat_map(|d| d.ports.iter().map(move |p| (format!("{}:{}", d.name, p.port), p)))
            .collect()
    };
    let (hosts, switches) = (ports(false), ports(true));
    let mut fleet = Fleet { hosts, switches, doc: Doc::default(), findings: Vec::new() };
    let (host_count, switch_count) =
        (samples.iter().filter(|d| !d.switch).count(), samples.iter().filter(|d| d.switch).count());
    fleet.doc.comment(0, &format!(
        "Inferred by `fabcheck policy infer` from {host_count} hosts ({} RoCE ports) and {switch_count} switches ({} ports).",
        fleet.hosts.len(),
        fleet.switches.len()
    ));
    fleet.doc.comment(
        0,
        "Each key is what at least two thirds of the ports (or hosts) that have the setting run; the comment",
    );
    fleet.doc.comment(
        0,
        "above it says how many of how many, and which do not. Keys without a clear majority are left out.",
    );
    fleet.doc.line(0, &format!("name: {name}"));
    let lossless = fleet.lossless_priorities();
    let classes: Vec<Class> = lossless.iter().flatten().filter_map(|&p| fleet.class(p)).collect();
    let dcqcn = fleet.dcqcn(&classes);
    fleet.classes(&classes, dcqcn == Some(true));
    fleet.cnp(&classes, dcqcn);
    fleet.pfc(lossless.as_deref());
    fleet.nic(dcqcn, &classes);
    fleet.host(samples);
    fleet.ecn(&classes, dcqcn == Some(true));
    fleet.infiniband(samples);
    fleet.counters(lossless.as_deref(), &classes);
    let Fleet { doc, findings, .. } = fleet;
    let (yaml, left_out) = doc.finish();
    let policy = Policy::parse(&yaml, "the inferred policy")?;
    Ok(Inference { yaml, policy, left_out, findings })
}

/// A lossless class the fleet runs.
#[derive(Debug, Clone)]
struct Class {
    priority: u8,
    traffic_class: u8,
    dscps: Vec<u8>,
    /// How the DSCPs were found, for the comment.
    how: String,
    /// ECN marking on the class's switch queue.
    ecn: Decision<bool>,
    /// The Kmin and Kmax (KB) of the queues that mark.
    min_kb: Vec<u64>,
    max_kb: Vec<u64>,
}

struct Fleet<'a> {
    hosts: Vec<Voter<'a>>,
    switches: Vec<Voter<'a>>,
    doc: Doc,
    findings: Vec<Finding>,
}

/// Votes of `voters` on the setting `read` gives (`None`: no vote).
fn tally<'a, T: Ord + Clone>(voters: &[Voter<'a>], read: impl Fn(&'a PortSample) -> Option<T>) -> Tally<T> {
    let mut t = Tally::default();
    for (who, p) in voters {
        if let Some(v) = read(p) {
            t.vote(who.clone(), v);
        }
    }
    t
}

fn list(v: &[u8]) -> String {
    if v.is_empty() { "none".into() } else { v.iter().map(u8::to_string).collect::<Vec<_>>().join(",") }
}

impl<'a> Fleet<'a> {
    fn lossy(&mut self, message: String, expected: &str, actual: String) {
        self.findings.push(
            Finding::new("infer.lossy_design", Severity::Critical, FLEET, message).expected_actual(expected, actual),
        );
    }

    /// The priorities PFC is on, when hosts and switches agree and it is not none.
    fn lossless_priorities(&mut self) -> Option<Vec<u8>> {
        let host = tally(&self.hosts, |p| p.pfc.clone()).decide();
        let switch = tally(&self.switches, |p| p.pfc.clone()).decide();
        let (h, s) = (host.value().cloned(), switch.value().cloned());
        self.doc.note(
            "pfc.priorities",
            &format!(
                "hosts: {}; switches: {}",
                said(&host, "host ports", |v| list(v)),
                said(&switch, "switch ports", |v| list(v))
            ),
        );
        for (side, value) in [("hosts", &h), ("switches", &s)] {
            if value.as_ref().is_some_and(Vec::is_empty) {
                self.lossy(
                    format!("the {side} run RoCE with PFC on no priority: it is dropped under congestion; pfc.priorities is left for you to decide"),
                    "PFC on the RoCE priority",
                    "PFC on no priority".into(),
                );
                self.doc.leave_out("pfc.priorities", &format!("the {side} have PFC on no priority (a lossy design)"));
                return None;
            }
        }
        match (h, s) {
            (Some(h), Some(s)) if h != s => {
                self.lossy(
                    format!("hosts are lossless on priorities {} and switches on {}: RoCE is lossless on one side only; pfc.priorities is left for you to decide", list(&h), list(&s)),
                    "the same lossless priorities on hosts and switches",
                    format!("hosts {}, switches {}", list(&h), list(&s)),
                );
                self.doc.leave_out("pfc.priorities", "hosts and switches disagree");
                None
            }
            (Some(v), _) | (None, Some(v)) => Some(v),
            (None, None) => {
                self.doc.leave_out("pfc.priorities", "no clear majority");
                None
            }
        }
    }

    /// The traffic class a clear majority of the switch ports whose DSCP map was read send
    /// `dscp` to. A port that leaves it unmapped (EOS, NX-OS and OS10 map only the DSCPs they are
    /// told to) votes "unmapped", not nothing: else the few platforms that map every DSCP would
    /// decide for all.
    fn switch_class(&self, dscp: u8) -> Decision<u8> {
        let maps: Vec<Voter> = self.switches.iter().filter(|(_, p)| !p.dscp_map.is_empty()).cloned().collect();
        tally(&maps, |p| Some(p.dscp_map.get(&dscp).copied())).decide().flatten()
    }

    /// The class on lossless priority `priority`: the DSCPs a clear majority of hosts map to it
    /// and switches map to its traffic class (both, where both were read).
    fn class(&mut self, priority: u8) -> Option<Class> {
        let host_maps: Vec<Voter> = self.hosts.iter().filter(|(_, p)| !p.dscp_map.is_empty()).cloned().collect();
        let switch_maps: Vec<Voter> = self.switches.iter().filter(|(_, p)| !p.dscp_map.is_empty()).cloned().collect();
        let on_hosts: BTreeSet<u8> = (0..64u8)
            .filter(|d| {
                tally(&host_maps, |p| Some(p.dscp_map.get(d) == Some(&priority))).decide().value() == Some(&true)
            })
            .collect();
        let switch_tc: BTreeMap<u8, u8> = (0..64u8).filter_map(|d| Some((d, *self.switch_class(d).value()?))).collect();
        // The switches' class for this priority: the traffic class of the same number when
        // some of the hosts' DSCPs for it go there (switches name lossless classes by their PFC
        // priority), else where most of them go, else the priority itself.
        let mut votes: Tally<u8> = Tally::default();
        for d in &on_hosts {
            if let Some(tc) = switch_tc.get(d) {
                votes.vote(d.to_string(), *tc);
            }
        }
        let same_number = on_hosts.iter().any(|d| switch_tc.get(d) == Some(&priority));
        let traffic_class = if same_number { priority } else { votes.decide().value().copied().unwrap_or(priority) };
        let on_switches: BTreeSet<u8> =
            switch_tc.iter().filter(|(_, tc)| **tc == traffic_class).map(|(d, _)| *d).collect();
        let (dscps, how): (Vec<u8>, String) = match (host_maps.is_empty(), switch_maps.is_empty()) {
            (false, false) => (
                on_hosts.intersection(&on_switches).copied().collect(),
                format!(
                    "mapped to priority {priority} on {} host ports and to TC {traffic_class} on {} switch ports",
                    host_maps.len(),
                    switch_maps.len()
                ),
            ),
            (false, true) => (
                on_hosts.into_iter().collect(),
                format!("mapped to priority {priority} on {} host ports", host_maps.len()),
            ),
            (true, false) => (
                on_switches.into_iter().collect(),
                format!("mapped to TC {traffic_class} on {} switch ports", switch_maps.len()),
            ),
            (true, true) => (Vec::new(), String::new()),
        };
        if dscps.is_empty() {
            self.doc.leave_out(
                &format!("class on priority {priority}"),
                "no DSCP maps to it on a clear majority of hosts and switches",
            );
            return None;
        }
        let queues: Vec<Voter> = self.switches.iter().filter(|(_, p)| !p.ecn.is_empty()).cloned().collect();
        let ecn = tally(&queues, |p| p.ecn.get(&traffic_class).map(|e| e.enabled)).decide();
        let marking = queues.iter().filter_map(|(_, p)| p.ecn.get(&traffic_class)).filter(|e| e.enabled);
        let (min_kb, max_kb) = marking.map(|e| (e.min_kb, e.max_kb)).unzip::<_, _, Vec<_>, Vec<_>>();
        Some(Class {
            priority,
            traffic_class,
            dscps,
            how,
            ecn,
            min_kb: min_kb.into_iter().flatten().collect(),
            max_kb: max_kb.into_iter().flatten().collect(),
        })
    }

    /// Whether the NICs run DCQCN on every lossless class's priority.
    fn dcqcn(&mut self, classes: &[Class]) -> Option<bool> {
        let priorities: Vec<u8> = classes.iter().map(|c| c.priority).collect();
        let decision = tally(&self.hosts, |p| {
            let d = p.dcqcn.as_ref()?;
            let on = |m: &sample::SmallMap<bool>, prio: &u8| m.get(prio).copied();
            priorities
                .iter()
                .map(|prio| Some(on(&d.rp, prio)? && on(&d.np, prio)?))
                .collect::<Option<Vec<bool>>>()
                .map(|v| v.iter().all(|b| *b))
        })
        .decide();
        self.doc.note("nic.dcqcn", &said(&decision, "host ports", |on| if *on { "on".into() } else { "off".into() }));
        if priorities.is_empty() {
            return None;
        }
        decision.value().copied()
    }

    fn classes(&mut self, classes: &[Class], dcqcn: bool) {
        let several = classes.len() > 1;
        let all_same_ecn = classes.windows(2).all(|w| w[0].ecn.value() == w[1].ecn.value());
        if several {
            self.doc.line(0, "lossless:");
        }
        for c in classes {
            let dscps = c.dscps.iter().map(u8::to_string).collect::<Vec<_>>().join(", ");
            let mut fields = vec![];
            if several {
                fields.push(format!("name: RoCE-{}", c.priority));
            }
            fields.push(format!("dscp: [{dscps}]"));
            fields.push(format!("priority: {}", c.priority));
            fields.push(format!("traffic_class: {}", c.traffic_class));
            // ECN per class only where classes differ; the `ecn` section says it otherwise.
            if several
                && !all_same_ecn
                && let Some(on) = c.ecn.value()
                && (*on || !dcqcn)
            {
                fields.push(format!("ecn: {on}"));
            }
            let note = format!("DSCP {dscps} {}", c.how);
            if several {
                self.doc.comment(2, &note);
                self.doc.line(2, &format!("- {{ {} }}", fields.join(", ")));
            } else {
                self.doc.comment(0, &note);
                self.doc.line(0, &format!("roce: {{ {} }}", fields.join(", ")));
            }
        }
    }

    /// The CNP class: the DSCP and priority the NICs mark CNPs with, the switches' class for
    /// that DSCP and whether its queue is strict.
    fn cnp(&mut self, classes: &[Class], dcqcn: Option<bool>) {
        if dcqcn == Some(false) {
            // A NIC whose notification point is off sends no CNP: its CNP marking is unused.
            self.doc.leave_out("cnp", "the NICs run without DCQCN, so no CNP is sent");
            return;
        }
        let dscp = tally(&self.hosts, |p| p.dcqcn.as_ref()?.cnp_dscp).decide();
        let priority = tally(&self.hosts, |p| p.dcqcn.as_ref()?.cnp_priority).decide();
        let Some(&d) = dscp.value() else {
            self.doc.leave_out("cnp", &format!("the NICs' CNP DSCP: {}", said(&dscp, "host ports", u8::to_string)));
            return;
        };
        let (tc, best_effort) = (self.switch_class(d), self.switch_class(0));
        let strict = tc.value().map(|t| tally(&self.switches, |p| p.strict.get(t).copied()).decide());
        let lossless_tcs: Vec<u8> = classes.iter().map(|c| c.traffic_class).collect();
        let lossless_prios: Vec<u8> = classes.iter().map(|c| c.priority).collect();
        let paused = tc.value().is_some_and(|t| lossless_tcs.contains(t))
            || priority.value().is_some_and(|p| lossless_prios.contains(p));
        let with_bulk = tc.value().is_some()
            && tc.value() == best_effort.value()
            && strict.as_ref().and_then(|s| s.value().copied()) != Some(true);
        if paused || with_bulk {
            let why = if paused {
                "in a lossless class: CNPs are paused with the data they should slow down"
            } else {
                "in the best-effort class (DSCP 0's) with a weighted queue: CNPs wait behind bulk traffic"
            };
            self.lossy(
                format!("CNPs (DSCP {d}) travel {why}; cnp is left for you to decide"),
                "CNPs in a class of their own",
                format!("DSCP {d} → TC {}", tc.value().map_or("?".into(), u8::to_string)),
            );
            self.doc.leave_out("cnp", "CNPs are not prioritised (a finding says how)");
            return;
        }
        let mut fields = vec![format!("dscp: {d}")];
        if let Some(p) = priority.value() {
            fields.push(format!("priority: {p}"));
        }
        if let Some(t) = tc.value() {
            fields.push(format!("traffic_class: {t}"));
        }
        if let Some(s) = strict.as_ref().and_then(|s| s.value()) {
            fields.push(format!("queue: {}", if *s { "strict" } else { "weighted" }));
        }
        self.doc.comment(
            0,
            &format!(
                "CNP DSCP: {}; priority: {}; switch TC: {}; strict queue: {}",
                said(&dscp, "host ports", u8::to_string),
                said(&priority, "host ports", u8::to_string),
                said(&tc, "switch ports", u8::to_string),
                strict.as_ref().map_or("not read".into(), |s| said(s, "switch ports", |b| b.to_string()))
            ),
        );
        self.doc.line(0, &format!("cnp: {{ {} }}", fields.join(", ")));
    }

    fn pfc(&mut self, lossless: Option<&[u8]>) {
        let watchdog = tally(&self.switches, |p| p.watchdog).decide();
        let mut fields = Vec::new();
        if let Some(l) = lossless {
            fields.push(format!("priorities: [{}]", l.iter().map(u8::to_string).collect::<Vec<_>>().join(", ")));
        }
        self.doc.note("pfc.watchdog", &said(&watchdog, "switch ports", |b| b.to_string()));
        if let Some(w) = watchdog.value() {
            fields.push(format!("watchdog: {w}"));
        }
        self.doc.flush_notes(0, "pfc.");
        if !fields.is_empty() {
            self.doc.line(0, &format!("pfc: {{ {} }}", fields.join(", ")));
        }
    }

    fn nic(&mut self, dcqcn: Option<bool>, classes: &[Class]) {
        let all: Vec<Voter> = self.hosts.iter().chain(self.switches.iter()).cloned().collect();
        let trust = tally(&all, |p| p.trust).decide();
        let mtu = tally(&self.hosts, |p| p.mtu).decide();
        let speed = tally(&self.hosts, |p| p.speed_mbps).decide();
        let gid = tally(&self.hosts, |p| p.rocev2_gid).decide();
        let mut fields = Vec::new();
        for (key, text, value) in [
            ("nic.trust", said(&trust, "ports", |t| t.to_string()), trust.value().map(|t| format!("trust: {t}"))),
            ("nic.mtu", said(&mtu, "host ports", u32::to_string), mtu.value().map(|m| format!("mtu: {m}"))),
            (
                "nic.min_speed_gbps",
                said(&speed, "host ports", |s| format!("{} Gb/s", s / 1000)),
                speed.value().filter(|s| **s >= 1000).map(|s| format!("min_speed_gbps: {}", s / 1000)),
            ),
            (
                "nic.rocev2_gid",
                said(&gid, "host ports", |g| if *g { "present".into() } else { "absent".into() }),
                (gid.value() == Some(&true)).then(|| "rocev2_gid: required".to_string()),
            ),
        ] {
            self.doc.note(key, &text);
            match value {
                Some(v) => fields.push(v),
                None => self.doc.leave_out(key, "no clear majority"),
            }
        }
        let ecn_off = classes.iter().any(|c| c.ecn.value() == Some(&false));
        match dcqcn {
            Some(true) if ecn_off => {
                self.lossy(
                    "the NICs run DCQCN but the switches do not mark ECN on a lossless class's queue: the NICs wait for CNPs no switch causes, so PFC does all the work; nic.dcqcn and ecn are left for you to decide".into(),
                    "ECN marking where DCQCN runs",
                    "DCQCN on, ECN off".into(),
                );
                self.doc.leave_out("nic.dcqcn", "ECN is off where DCQCN is on (a finding says so)");
            }
            Some(true) => fields.push("dcqcn: required".into()),
            Some(false) => fields.push("dcqcn: ignore".into()),
            None => {}
        }
        self.doc.flush_notes(0, "nic.");
        if !fields.is_empty() {
            self.doc.line(0, &format!("nic: {{ {} }}", fields.join(", ")));
        }
    }

    fn host(&mut self, samples: &[DeviceSample]) {
        let mut gdr = Tally::default();
        for d in samples.iter().filter(|d| !d.switch) {
            if let Some(g) = d.gdr {
                gdr.vote(d.name.clone(), g);
            }
        }
        let gdr = gdr.decide();
        self.doc.note(
            "host.gdr",
            &said(&gdr, "hosts", |g| if *g { "nvidia_peermem loaded".into() } else { "not loaded".into() }),
        );
        self.doc.flush_notes(0, "host.");
        if gdr.value() == Some(&true) {
            self.doc.line(0, "host: { gdr: required }");
        }
    }

    fn ecn(&mut self, classes: &[Class], dcqcn: bool) {
        let marking: Vec<&Class> = classes.iter().filter(|c| c.ecn.value() == Some(&true)).collect();
        for c in classes {
            self.doc.note(
                &format!("ECN on TC {}", c.traffic_class),
                &said(&c.ecn, "switch ports", |b| if *b { "on".into() } else { "off".into() }),
            );
        }
        if marking.is_empty() {
            self.doc.flush_notes(0, "ECN on");
            return;
        }
        let mut min: Vec<u64> = marking.iter().flat_map(|c| c.min_kb.iter().copied()).collect();
        let mut max: Vec<u64> = marking.iter().flat_map(|c| c.max_kb.iter().copied()).collect();
        let mut fields = Vec::new();
        if marking.len() == classes.len() && (dcqcn || !classes.is_empty()) {
            fields.push("enabled: true".to_string());
        }
        for (key, values) in [("min_threshold_kb", &mut min), ("max_threshold_kb", &mut max)] {
            if let Some([lo, hi]) = majority_range(values) {
                self.doc.note(
                    &format!("ecn.{key}"),
                    &format!(
                        "the range holds {} of the {} marking queues read",
                        values.iter().filter(|v| (lo..=hi).contains(v)).count(),
                        values.len()
                    ),
                );
                fields.push(format!("{key}: [{lo}, {hi}]"));
            }
        }
        self.doc.flush_notes(0, "ECN on");
        self.doc.flush_notes(0, "ecn.");
        if !fields.is_empty() {
            self.doc.line(0, &format!("ecn: {{ {} }}", fields.join(", ")));
        }
    }

    fn infiniband(&mut self, samples: &[DeviceSample]) {
        let (mut rate, mut width, mut sm) = (Tally::default(), Tally::default(), Tally::default());
        for d in samples.iter().filter(|d| !d.switch) {
            for (i, ib) in d.ib.iter().enumerate() {
                if let Some(r) = ib.rate_gbps {
                    rate.vote(format!("{}#{i}", d.name), (r * 10.0).round() as u64);
                }
                if let Some(w) = &ib.width {
                    width.vote(format!("{}#{i}", d.name), w.clone());
                }
            }
            if let Some(answered) = d.sm {
                sm.vote(d.name.clone(), answered);
            }
        }
        if rate.total() + width.total() + sm.total() == 0 {
            return;
        }
        let (rate, width, sm) = (rate.decide(), width.decide(), sm.decide());
        self.doc.note("infiniband.rate_gbps", &said(&rate, "IB ports", |r| format!("{} Gb/s", *r as f64 / 10.0)));
        self.doc.note("infiniband.width", &said(&width, "IB ports", String::clone));
        self.doc.note(
            "infiniband.subnet_manager",
            &said(&sm, "hosts", |b| if *b { "answered".into() } else { "no answer".into() }),
        );
        let mut fields = Vec::new();
        if let Some(r) = rate.value() {
            fields.push(format!("rate_gbps: {}", *r as f64 / 10.0));
        }
        if let Some(w) = width.value() {
            fields.push(format!("width: {w}"));
        }
        if sm.value() == Some(&true) {
            fields.push("subnet_manager: required".into());
        }
        self.doc.flush_notes(0, "infiniband.");
        if !fields.is_empty() {
            self.doc.line(0, &format!("infiniband: {{ {} }}", fields.join(", ")));
        }
    }

    /// What a lossless design must not see, on the priorities and queues found above: these are
    /// not inferred (a counter has no majority) but follow from the design.
    fn counters(&mut self, lossless: Option<&[u8]>, classes: &[Class]) {
        self.doc
            .comment(0, "Counters: what a lossless design must not see, on the lossless priorities and queues above.");
        self.doc.line(0, "counters:");
        for line in [
            "out_of_buffer:   { max: 0, severity: critical }",
            "rx_discards_phy: { max: 0, severity: critical }",
            "packet_seq_err:  { max: 0, severity: error }",
        ] {
            self.doc.line(2, line);
        }
        for p in lossless.into_iter().flatten() {
            for side in ["rx", "tx"] {
                self.doc.line(2, &format!("{side}_prio{p}_pause: {{ max_per_s: 10000, severity: warning }}"));
            }
        }
        for c in classes {
            self.doc.line(2, &format!("queue{}_drops: {{ max: 0, severity: critical }}", c.traffic_class));
        }
    }
}

#[cfg(test)]
mod tests;
