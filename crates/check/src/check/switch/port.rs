//! One switch port against the policy: PFC on exactly the lossless priorities, DSCP → traffic
//! class for RoCE and CNP, ECN on the RoCE queue within the thresholds, a strict CNP queue, the
//! PFC watchdog, an MTU that carries the hosts' frames, and the port up at speed. Each failing
//! port gets a unified diff of its expected and actual normalized configuration.

use super::super::headroom;
use crate::policy::Policy;
use fabcheck_model::facts::SwitchFacts;
use fabcheck_model::switch::{PortQos, Scheduler, UndefinedReference, canonical_interface};
use fabcheck_model::{Finding, Severity};
use similar::TextDiff;

/// The checks of one switch port, each finding with the port's diff; `host_mtu` is the MTU of
/// the hosts whose frames cross it (the policy's when unknown).
pub fn check(device: &str, port: &str, s: &SwitchFacts, policy: &Policy, host_mtu: Option<u32>) -> Vec<Finding> {
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
    // A port that does not classify by DSCP never reads its DSCP map: the trust finding says it.
    let by_dscp = actual.trust.as_deref().and_then(classifies_by).is_none_or(|t| t == "dscp");
    for (what, dscp, tc) in expect.dscp_classes().filter(|_| by_dscp) {
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
    for (label, tc, must_mark) in expect.ecn_queues() {
        let q = queue_of(actual, tc);
        let ecn = actual.queues.get(&q).and_then(|q| q.ecn.clone());
        if must_mark == Some(true) && !ecn.as_ref().is_some_and(|e| e.enabled) {
            emit(
                "switch.ecn_disabled",
                Severity::Error,
                format!("ECN on queue {q}"),
                "off".into(),
                format!("no ECN marking on queue {q} ({label}): DCQCN gets no signal, PFC does all the work"),
            );
        } else if let Some(e) = ecn {
            for (name, value, range) in [("Kmin", e.min_bytes, expect.ecn_min), ("Kmax", e.max_bytes, expect.ecn_max)] {
                // A kilobyte the vendor leaves undefined is judged both ways: 1,024 bytes (how
                // the model reads it) and 1,000; a threshold is outside only if both are.
                let readings = match &e.uncertain_unit {
                    Some(_) => value.map(|v| vec![v, v * 1000 / 1024]),
                    None => value.map(|v| vec![v]),
                };
                if let (Some(readings), Some([lo, hi])) = (readings, range)
                    && readings.iter().all(|v| !(lo * 1024..=hi * 1024).contains(v))
                {
                    let v = readings[0];
                    let written = e.uncertain_unit.as_ref().map_or(String::new(), |w| {
                        format!(" (written `{w}`, a unit the vendor does not define as 1,000 or 1,024 bytes: outside either way)")
                    });
                    emit(
                        "switch.ecn_threshold",
                        Severity::Error,
                        format!("{name} {lo}-{hi} KB"),
                        format!("{name} {} KB", v / 1024),
                        format!("ECN {name} on queue {q} is {} KB, outside {lo}-{hi} KB{written}", v / 1024),
                    );
                }
            }
        }
    }
    if let Some(tc) = expect.cnp_strict {
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
    if expect.watchdog == Some(true) && watchdog_on(actual, s) == Some(false) {
        // Where the device-wide setting decides and the platform says why it is off (a
        // configuration without the line, read as the vendor's default), the finding says so.
        let why = match (actual.pfc_watchdog, s.qos.pfc_watchdog.as_ref().and_then(|w| w.note.as_deref())) {
            (None, Some(note)) => format!(" ({note})"),
            _ => String::new(),
        };
        emit(
            "switch.pfc_watchdog_disabled",
            Severity::Warning,
            "PFC watchdog on".into(),
            format!("off{why}"),
            format!("no PFC watchdog{why}: a PFC storm here can stall the fabric"),
        );
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
    let issues = trust_mismatch(&expect, actual)
        .into_iter()
        .chain(headroom_shortfalls(actual, s, policy))
        .chain(actual.undefined.iter().map(undefined_reference));
    for (code, severity, expected, got, message) in issues {
        emit(code, severity, expected, got, message);
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
        let diff = TextDiff::from_lines(expect.normalized(), normalized(actual, &expect, watchdog_on(actual, s)))
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

/// The settings the policy asks of this port that its facts do not show (the platform does not
/// print them, or the configuration leaves them to a default fabcheck cannot see): each is not
/// judged here, which [`super::unknown`] says once per device and setting, never silently.
pub fn unknown_settings(port: &str, s: &SwitchFacts, policy: &Policy, host_mtu: Option<u32>) -> Vec<&'static str> {
    let Some(actual) = s.qos.ports.get(&canonical_interface(port)) else { return Vec::new() };
    let expect = Expectation::from_policy(policy, host_mtu);
    let mut unknown = Vec::new();
    if expect.pfc.is_some() && actual.lossless_priorities.is_none() {
        unknown.push("PFC priorities");
    }
    if expect.watchdog == Some(true) && watchdog_on(actual, s).is_none() {
        unknown.push("PFC watchdog");
    }
    if let Some(tc) = expect.cnp_strict
        && actual.queues.get(&queue_of(actual, tc)).is_none_or(|q| q.scheduler.is_none())
    {
        unknown.push("CNP queue scheduler");
    }
    if expect.mtu.is_some() && actual.mtu.is_none() {
        unknown.push("MTU");
    }
    if expect.min_speed_mbps.is_some() && actual.oper_up != Some(false) && actual.speed_mbps.is_none() {
        unknown.push("speed");
    }
    unknown
}

/// Whether the port's PFC watchdog is on: its own setting, else the device's.
fn watchdog_on(p: &PortQos, s: &SwitchFacts) -> Option<bool> {
    p.pfc_watchdog.or(s.qos.pfc_watchdog.as_ref().map(|w| w.enabled))
}

/// A finding's code, severity, expected and actual values, and message.
type Issue = (&'static str, Severity, String, String, String);

/// How a port's trust mode classifies RoCE: `dscp` (SONiC, EOS, NX-OS, OS10 `dscp`; NVUE `l3`, or
/// `both`, which classifies IP packets by DSCP), `pcp` (SONiC's 802.1p map, EOS `cos`, NVUE `l2`),
/// or `untrusted`.
pub fn classifies_by(trust: &str) -> Option<&'static str> {
    match trust {
        "dscp" | "l3" | "both" => Some("dscp"),
        "pcp" | "cos" | "l2" | "dot1p" => Some("pcp"),
        "untrusted" => Some("untrusted"),
        _ => None,
    }
}

/// A port that classifies by something else than the policy's trust mode: RoCE marked by DSCP
/// lands in the default class, off the lossless priority.
fn trust_mismatch(expect: &Expectation, actual: &PortQos) -> Option<Issue> {
    let want = expect.trust?.as_str();
    let have = classifies_by(actual.trust.as_deref()?)?;
    (have != want).then(|| {
        (
            "switch.trust_mismatch",
            Severity::Critical,
            format!("trust {want}"),
            format!("trust {have}"),
            format!("the port classifies by {have}, not {want}: RoCE packets miss the lossless class here"),
        )
    })
}

/// A policy or map the port applies that is never defined: the switch applies nothing instead.
fn undefined_reference(u: &UndefinedReference) -> Issue {
    let hint = u.similar.as_ref().map_or(String::new(), |(name, kind)| format!("; `{kind} {name}` is (a typo?)"));
    (
        "switch.qos_policy_undefined",
        Severity::Error,
        format!("{} {} defined", u.kind, u.name),
        format!("{} {} applied, not defined", u.applied_as, u.name),
        format!(
            "the port applies `{} {}` but no `{} {}` is defined, so none takes effect{hint}",
            u.applied_as, u.name, u.kind, u.name
        ),
    )
}

/// Each lossless priority whose priority group's headroom (its buffer profile's xoff) is less
/// than the port's speed, cable (its own, else the policy's) and MTU need.
fn headroom_shortfalls(actual: &PortQos, s: &SwitchFacts, policy: &Policy) -> Vec<Issue> {
    let (Some(lossless), Some(speed), Some(mtu)) = (&actual.lossless_priorities, actual.speed_mbps, actual.mtu) else {
        return Vec::new();
    };
    let (cable, cable_from) = match actual.cable_length_m {
        Some(m) => (m, "the switch's CABLE_LENGTH"),
        None => (headroom::policy_cable_m(policy), "the policy's pfc.cable_length_m, or 5 m"),
    };
    let needed = headroom::xoff_needed(speed, cable, mtu);
    lossless
        .iter()
        .filter_map(|&prio| {
            let pg = actual.tc_to_pg.get(&prio).copied().unwrap_or(prio);
            let profile = actual.priority_groups.get(&pg)?;
            let xoff = s.qos.buffer_profiles.get(profile)?.xoff_bytes?;
            (xoff < needed).then(|| {
                // The formula is a NIC driver's: an ASIC sizing headroom in cells with smaller
                // response delays may need less. Short by a quarter or more is an error; closer,
                // a warning to check against the vendor's own sizing.
                let severity = if xoff * 4 < needed * 3 { Severity::Error } else { Severity::Warning };
                (
                    "switch.pfc_headroom_insufficient",
                    severity,
                    format!("xoff ≥ {needed} bytes"),
                    format!("xoff {xoff} bytes ({profile})"),
                    format!(
                        "priority {prio} (priority group {pg}, profile {profile}) has {xoff} bytes of headroom, less than the {needed} bytes a {} Gb/s port with {cable} m of cable ({cable_from}) and MTU {mtu} needs by the mlx5 driver's formula: frames in flight after a pause are dropped",
                        speed / 1000
                    ),
                )
            })
        })
        .collect()
}

/// A class a switch port must carry: DSCPs to a traffic class, and for a lossless class
/// whether its queue marks ECN (`Some(None)`: not said; `None`: not a lossless class).
struct ClassWant {
    label: String,
    dscps: Vec<u8>,
    tc: Option<u8>,
    ecn: Option<Option<bool>>,
}

/// What the policy asks of a switch port.
struct Expectation {
    pfc: Option<Vec<u8>>,
    /// Each class the port must map by DSCP.
    classes: Vec<ClassWant>,
    /// The CNP traffic class whose queue must be strict.
    cnp_strict: Option<u8>,
    ecn_min: Option<[u64; 2]>,
    ecn_max: Option<[u64; 2]>,
    watchdog: Option<bool>,
    mtu: Option<u32>,
    min_speed_mbps: Option<u64>,
    trust: Option<crate::policy::Trust>,
}

impl Expectation {
    fn from_policy(policy: &Policy, host_mtu: Option<u32>) -> Expectation {
        let class = |c: &crate::policy::TrafficClass, ecn| ClassWant {
            label: c.label().to_string(),
            dscps: c.dscps().to_vec(),
            tc: c.switch_tc(),
            ecn,
        };
        let lossless = policy.lossless_classes().into_iter().map(|c| class(c, Some(policy.class_ecn(c))));
        let cnp = policy.cnp.iter().map(|c| ClassWant { label: "CNP".into(), ..class(c, None) });
        Expectation {
            pfc: policy.lossless_priorities(),
            classes: lossless.chain(cnp).collect(),
            cnp_strict: policy.cnp_queue_strict(),
            ecn_min: policy.ecn.as_ref().and_then(|e| e.min_threshold_kb),
            ecn_max: policy.ecn.as_ref().and_then(|e| e.max_threshold_kb),
            watchdog: policy.pfc.as_ref().and_then(|p| p.watchdog),
            mtu: host_mtu.or(policy.nic.as_ref().and_then(|n| n.mtu)),
            min_speed_mbps: policy.nic.as_ref().and_then(|n| n.min_speed_gbps).map(|g| u64::from(g) * 1000),
            trust: policy.nic.as_ref().and_then(|n| n.trust),
        }
    }

    /// Each DSCP the policy names, with its class and the traffic class it must map to.
    fn dscp_classes(&self) -> impl Iterator<Item = (&str, u8, u8)> + '_ {
        self.classes
            .iter()
            .filter_map(|c| Some((c.label.as_str(), &c.dscps, c.tc?)))
            .flat_map(|(what, dscps, tc)| dscps.iter().map(move |d| (what, *d, tc)))
    }

    /// The lossless classes' queues judged for ECN: each label, traffic class, and whether
    /// marking must be on (`None`: not said, so only the thresholds of a marking queue are judged).
    fn ecn_queues(&self) -> impl Iterator<Item = (&str, u8, Option<bool>)> + '_ {
        self.classes
            .iter()
            .filter_map(|c| Some((c.label.as_str(), c.tc?, c.ecn?)))
            .filter(|(_, _, on)| *on != Some(false))
    }

    /// The expected configuration, in the same lines as [`normalized`].
    fn normalized(&self) -> String {
        let mut lines = Vec::new();
        if let Some(p) = &self.pfc {
            lines.push(format!("pfc priorities: {}", list(p)));
        }
        for (_, d, t) in self.dscp_classes() {
            lines.push(format!("dscp {d} -> tc {t}"));
        }
        for (_, tc, _) in self.ecn_queues().filter(|q| q.2 == Some(true)) {
            let range = |r: Option<[u64; 2]>| r.map_or("any".to_string(), |[lo, hi]| format!("{lo}-{hi} KB"));
            lines.push(format!("tc {tc} queue ecn: on, kmin {}, kmax {}", range(self.ecn_min), range(self.ecn_max)));
        }
        if let Some(tc) = self.cnp_strict {
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
fn normalized(p: &PortQos, e: &Expectation, watchdog: Option<bool>) -> String {
    let mut lines = Vec::new();
    if e.pfc.is_some() {
        lines.push(format!("pfc priorities: {}", p.lossless_priorities.as_deref().map_or("unknown".to_string(), list)));
    }
    for (_, d, _) in e.dscp_classes() {
        lines.push(format!("dscp {d} -> tc {}", p.dscp_to_tc.get(&d).map_or("none".to_string(), u8::to_string)));
    }
    for (_, tc, _) in e.ecn_queues().filter(|q| q.2 == Some(true)) {
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
    if let Some(tc) = e.cnp_strict {
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
        lines.push(format!("pfc watchdog: {}", watchdog.map_or("unknown", on_off)));
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

pub(crate) fn queue_of(p: &PortQos, tc: u8) -> u8 {
    p.tc_to_queue.get(&tc).copied().unwrap_or(tc)
}

fn on_off(b: bool) -> &'static str {
    if b { "on" } else { "off" }
}

fn list(p: &[u8]) -> String {
    if p.is_empty() { "none".into() } else { p.iter().map(u8::to_string).collect::<Vec<_>>().join(",") }
}
