//! What each key of a policy will check, in a sentence: what `fabcheck policy check` prints, so
//! an operator reads a policy as the checks will read it (which classes, which priorities, which
//! ranges), not as YAML.

use super::{Policy, Requirement, Scheduling, TrafficClass};

impl Policy {
    /// Each key the policy sets, with what it makes fabcheck check; keys absent check nothing
    /// and are not listed.
    pub fn explain(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = Vec::new();
        let mut say = |key: &str, what: String| out.push((key.to_string(), what));
        let keyed: Vec<(String, &TrafficClass)> = if self.lossless.is_empty() {
            self.roce.iter().map(|c| ("roce".to_string(), c)).collect()
        } else {
            self.lossless.iter().enumerate().map(|(i, c)| (format!("lossless[{i}]"), c)).collect()
        };
        for (key, class) in keyed {
            say(&key, class_sentence(class, class.label()));
            match self.class_ecn(class) {
                Some(true) => say(
                    &format!("{key} ECN"),
                    format!(
                        "the switch queue of TC {} marks ECN{}; hosts run DCQCN on priority {} when nic.dcqcn is required",
                        opt(class.switch_tc()),
                        self.ecn_ranges(),
                        opt(class.priority)
                    ),
                ),
                Some(false) => say(&format!("{key} ECN"), "ECN and DCQCN are not asked for on this class".into()),
                None => {}
            }
        }
        if let Some(cnp) = &self.cnp {
            say("cnp", class_sentence(cnp, "CNP"));
            if let Some(tc) = cnp.switch_tc() {
                say(
                    "cnp.queue",
                    match cnp.queue {
                        Some(Scheduling::Weighted) => {
                            format!("queue of TC {tc} may be weighted: its scheduling is not judged")
                        }
                        _ => format!(
                            "queue of TC {tc} is strict priority on every switch port (switch.cnp_queue_not_strict)"
                        ),
                    },
                );
            }
        }
        if let Some(p) = self.lossless_priorities() {
            say(
                "pfc.priorities",
                format!(
                    "PFC on exactly priorities {} on every host NIC and switch port of a path (nic.pfc_mismatch, switch.pfc_mismatch); drops without pauses there are switch.lossless_not_effective",
                    list(&p)
                ),
            );
        }
        if let Some(pfc) = &self.pfc {
            if let Some(w) = pfc.watchdog {
                say(
                    "pfc.watchdog",
                    format!("PFC watchdog {} on switch ports", if w { "required" } else { "not required" }),
                );
            }
            if let Some(m) = pfc.cable_length_m {
                say("pfc.cable_length_m", format!("lossless headroom sized for {m} m of cable per hop"));
            }
        }
        if let Some(nic) = &self.nic {
            if let Some(t) = nic.trust {
                say("nic.trust", format!("NICs and switch ports classify by {}", t.as_str()));
            }
            if let Some(m) = nic.mtu {
                say("nic.mtu", format!("host netdev MTU {m}, and switch ports on the path at least that"));
            }
            if let Some(s) = nic.min_speed_gbps {
                say("nic.min_speed_gbps", format!("host and switch links at {s} Gb/s or more"));
            }
            if nic.rocev2_gid == Some(Requirement::Required) {
                say("nic.rocev2_gid", "each RoCE port has a RoCEv2 GID with an IPv4 address".into());
            }
            match nic.dcqcn {
                Some(Requirement::Required) => say(
                    "nic.dcqcn",
                    "DCQCN reaction and notification points on for each ECN class's priority; CNPs marked as cnp says"
                        .into(),
                ),
                Some(Requirement::Ignore) => say("nic.dcqcn", "DCQCN is not checked (a design without it)".into()),
                None => {}
            }
        }
        if let Some(host) = &self.host {
            if host.gdr == Some(Requirement::Required) {
                say("host.gdr", "GPUDirect RDMA: nvidia_peermem (or nv_peer_mem) loaded".into());
            }
            if host.irq_affinity == Some(super::IrqAffinity::Exclusive) {
                say("host.irq_affinity", "no CPU serves the interrupts of two RDMA NICs".into());
            }
        }
        if let Some(ecn) = &self.ecn
            && ecn.enabled == Some(false)
        {
            say("ecn.enabled", "ECN marking is not asked for".into());
        }
        if let Some(ib) = &self.infiniband {
            let mut parts = Vec::new();
            if let Some(r) = ib.rate_gbps {
                parts.push(format!("rate {r} Gb/s"));
            }
            if let Some(w) = &ib.width {
                parts.push(format!("width {w}"));
            }
            if ib.subnet_manager == Some(Requirement::Required) {
                parts.push("a reachable subnet manager".into());
            }
            say("infiniband", format!("InfiniBand ports: {}", parts.join(", ")));
        }
        for (name, rule) in &self.counters {
            let limit = match (rule.max, rule.max_per_s) {
                (Some(m), _) => format!("grows by at most {m} over the window"),
                (None, Some(r)) => format!("grows by at most {r}/s"),
                (None, None) => "unlimited".into(),
            };
            say(&format!("counters.{name}"), format!("{limit}, else a finding at {}", rule.severity.as_str()));
        }
        for rule in &self.nccl {
            say(
                "nccl",
                format!(
                    "{} bus bandwidth at least {} GB/s{}",
                    rule.test,
                    rule.min_busbw_gbs.map_or("(no floor)".into(), |g| g.to_string()),
                    rule.min_bytes.as_ref().map_or(String::new(), |b| format!(" from {b} messages"))
                ),
            );
        }
        if self.flows.is_some() {
            say("flows", "RoCEv2 flows (fabcheck flows) within the flows: limits".into());
        }
        out
    }

    /// The ECN ranges, as a clause.
    fn ecn_ranges(&self) -> String {
        let Some(e) = &self.ecn else { return String::new() };
        let range = |name: &str, r: Option<[u64; 2]>| r.map(|[lo, hi]| format!("{name} {lo}-{hi} KB"));
        let parts: Vec<String> =
            [range("Kmin", e.min_threshold_kb), range("Kmax", e.max_threshold_kb)].into_iter().flatten().collect();
        if parts.is_empty() { String::new() } else { format!(" with {}", parts.join(" and ")) }
    }
}

/// What a class asks: its DSCPs to its priority on hosts and its traffic class on switches.
fn class_sentence(class: &TrafficClass, label: &str) -> String {
    let dscps: Vec<String> = class.dscps().iter().map(u8::to_string).collect();
    let dscps = if dscps.is_empty() { "no DSCP named".to_string() } else { format!("DSCP {}", dscps.join(", ")) };
    format!(
        "{label}: {dscps} → priority {} on host NICs and TC {} on switch ports (nic.dscp_map_mismatch, switch.dscp_map_mismatch)",
        opt(class.priority),
        opt(class.switch_tc())
    )
}

fn opt(v: Option<u8>) -> String {
    v.map_or("(not checked)".into(), |v| v.to_string())
}

fn list(v: &[u8]) -> String {
    if v.is_empty() { "none".into() } else { v.iter().map(u8::to_string).collect::<Vec<_>>().join(",") }
}

#[cfg(test)]
mod tests {
    use super::super::library::Design;

    #[test]
    fn every_key_of_a_design_is_explained_in_the_designs_terms() {
        let sonic = Design::find("sonic-lossless-3-4").unwrap().policy().unwrap();
        let text: Vec<String> = sonic.explain().into_iter().map(|(k, v)| format!("{k}: {v}")).collect();
        let text = text.join("\n");
        for says in [
            "lossless[0]: RoCE-3: DSCP 3 → priority 3 on host NICs and TC 3 on switch ports",
            "lossless[1]: RoCE-4: DSCP 4 → priority 4",
            "lossless[1] ECN: the switch queue of TC 4 marks ECN with Kmin 512-2048 KB and Kmax 1024-4096 KB",
            "cnp.queue: queue of TC 6 may be weighted",
            "pfc.priorities: PFC on exactly priorities 3,4",
            "counters.queue4_drops: grows by at most 0 over the window, else a finding at critical",
        ] {
            assert!(text.contains(says), "{says} missing from:\n{text}");
        }
    }
}
