//! Lossless in name only: a port that dropped RoCE packets on a lossless priority during the
//! window while no PFC pause frame moved on that priority in either direction. PFC that works
//! pauses before it drops; drops with no pause at all mean PFC is off or not in effect at the
//! port or its peer (not negotiated, the traffic on another priority than the one paused, a peer
//! that ignores pauses). Transmit-side drops (egress queue discards) and receive-side ones
//! (no-buffer discards on ingress) are told apart in the finding.

use crate::policy::Policy;
use fabcheck_model::facts::{SwitchCounterReads, SwitchFacts};
use fabcheck_model::switch::{PortCounters, canonical_interface};
use fabcheck_model::{Finding, Severity};
use std::collections::BTreeMap;

/// `switch.lossless_not_effective` for each port and lossless priority that dropped without a
/// pause.
pub fn not_effective(device: &str, facts: &SwitchFacts, policy: &Policy) -> Vec<Finding> {
    let Some(reads) = &facts.counters else { return Vec::new() };
    let lossless = policy.lossless_priorities().unwrap_or_default();
    let mut findings = Vec::new();
    let empty = PortCounters::default();
    for (port, after) in &reads.after.counters.ports {
        let before = reads.before.counters.ports.get(port).unwrap_or(&empty);
        let qos = facts.qos.ports.get(&canonical_interface(port));
        for &priority in &lossless {
            let queue = qos.and_then(|q| q.tc_to_queue.get(&priority).copied()).unwrap_or(priority);
            let grew = |m: fn(&PortCounters) -> &BTreeMap<u8, u64>, key: u8| {
                Some(m(after).get(&key)?.saturating_sub(*m(before).get(&key)?))
            };
            let (Some(paused_in), Some(paused_out)) = (grew(|c| &c.pfc_rx, priority), grew(|c| &c.pfc_tx, priority))
            else {
                continue;
            };
            let tx_drops = grew(|c| &c.queue_drops, queue).unwrap_or(0);
            let rx_drops = grew(|c| &c.rx_no_buffer, priority).unwrap_or(0);
            if paused_in + paused_out > 0 || tx_drops + rx_drops == 0 {
                continue;
            }
            let mut drops = Vec::new();
            if tx_drops > 0 {
                drops.push(format!("{tx_drops} transmit-side drops on egress queue {queue}"));
            }
            if rx_drops > 0 {
                drops.push(format!("{rx_drops} receive-side no-buffer discards"));
            }
            let mut f = Finding::new(
                "switch.lossless_not_effective",
                Severity::Critical,
                device,
                format!(
                    "{port} dropped RoCE packets on lossless priority {priority} during the window ({}) while no PFC pause frame was sent or received on it: PFC is off or not in effect at this port or its peer",
                    drops.join(", ")
                ),
            )
            .port(port)
            .expected_actual(
                format!("no drops on priority {priority}, or pause frames before them"),
                format!("{}; pause frames 0 received, 0 sent", drops.join(", ")),
            );
            for file in evidence(reads) {
                f = f.evidence(file);
            }
            findings.push(f);
        }
    }
    findings
}

fn evidence(reads: &SwitchCounterReads) -> Vec<String> {
    reads.before.files.iter().chain(&reads.after.files).cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use fabcheck_model::facts::CounterTable;
    use fabcheck_model::switch::SwitchCounters;

    fn facts(pauses: u64, tx_drops: u64, rx_drops: u64) -> SwitchFacts {
        let table = |scale: u64| {
            let mut port = PortCounters::default();
            port.pfc_rx.insert(3, 10 + pauses * scale);
            port.pfc_tx.insert(3, 10);
            port.queue_drops.insert(3, 5 + tx_drops * scale);
            port.rx_no_buffer.insert(3, rx_drops * scale);
            let mut counters = SwitchCounters::default();
            counters.ports.insert("swp2".into(), port);
            CounterTable { counters, files: vec![format!("spine1/roce_counters.swp2.t{scale}.txt")] }
        };
        SwitchFacts {
            counters: Some(SwitchCounterReads { before: table(0), after: table(1), ..Default::default() }),
            ..Default::default()
        }
    }

    fn policy() -> Policy {
        Policy::parse("pfc: { priorities: [3] }\n", "p.yaml").unwrap()
    }

    #[test]
    fn drops_on_both_sides_without_pauses_are_named_apart() {
        let f = not_effective("spine1", &facts(0, 7, 3), &policy());
        assert_eq!(f.len(), 1);
        assert_eq!(
            f[0].actual,
            "7 transmit-side drops on egress queue 3, 3 receive-side no-buffer discards; pause frames 0 received, 0 sent"
        );
        assert_eq!(f[0].evidence, ["spine1/roce_counters.swp2.t0.txt", "spine1/roce_counters.swp2.t1.txt"]);
    }

    #[test]
    fn drops_with_pauses_or_pauses_alone_are_not_this() {
        assert!(not_effective("spine1", &facts(4, 7, 0), &policy()).is_empty(), "PFC acted: congestion, not this");
        assert!(not_effective("spine1", &facts(0, 0, 0), &policy()).is_empty());
    }
}
