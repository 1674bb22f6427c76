//! One switch port against the policy: PFC on exactly the lossless priorities, DSCP → traffic
//! class for RoCE and CNP, ECN on the RoCE queue within the thresholds, a strict CNP queue, the
//! PFC watchdog, an MTU that carries the hosts' frames, and the port up at speed. Each failing
//! port gets a unified diff of its expected and actual normalized configuration.

use crate::facts::SwitchFacts;
use crate::policy::Policy;
use fabcheck_model::switch::{PortQos, Scheduler, canonical_interface};
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
    for (what, dscp, tc) in expect.dscp_classes() {
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
    roce_dscp: Vec<u8>,
    roce_tc: Option<u8>,
    cnp_dscp: Vec<u8>,
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
            roce_dscp: policy.roce.as_ref().map(|c| c.dscps().to_vec()).unwrap_or_default(),
            roce_tc: tc(&policy.roce),
            cnp_dscp: policy.cnp.as_ref().map(|c| c.dscps().to_vec()).unwrap_or_default(),
            cnp_tc: tc(&policy.cnp),
            ecn_enabled: policy.ecn.as_ref().and_then(|e| e.enabled),
            ecn_min: policy.ecn.as_ref().and_then(|e| e.min_threshold_kb),
            ecn_max: policy.ecn.as_ref().and_then(|e| e.max_threshold_kb),
            watchdog: policy.pfc.as_ref().and_then(|p| p.watchdog),
            mtu: host_mtu.or(policy.nic.as_ref().and_then(|n| n.mtu)),
            min_speed_mbps: policy.nic.as_ref().and_then(|n| n.min_speed_gbps).map(|g| u64::from(g) * 1000),
        }
    }

    /// Each DSCP the policy names, with its class and the traffic class it must map to.
    fn dscp_classes(&self) -> impl Iterator<Item = (&'static str, u8, u8)> + '_ {
        [("RoCE", &self.roce_dscp, self.roce_tc), ("CNP", &self.cnp_dscp, self.cnp_tc)]
            .into_iter()
            .filter_map(|(what, dscps, tc)| Some((what, dscps, tc?)))
            .flat_map(|(what, dscps, tc)| dscps.iter().map(move |d| (what, *d, tc)))
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
    for (_, d, _) in e.dscp_classes() {
        lines.push(format!("dscp {d} -> tc {}", p.dscp_to_tc.get(&d).map_or("none".to_string(), u8::to_string)));
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
