//! PFC storms, as the switch's PFC watchdog saw them (a NIC or port stuck sending
//! pause frames stalls every flow behind it, hop by hop: Guo et al., "RDMA over Commodity
//! Ethernet at Scale", SIGCOMM 2016, on PFC storms and the watchdog). The watchdog detects a queue paused
//! for longer than its detection time, drops its traffic to break the deadlock, and restores it:
//! SONiC counts storms detected and restored and the packets dropped; NVUE shows a traffic class
//! in `DEADLOCK` and counts deadlocks. A storm now, or one detected or dropping during the
//! window, is critical; storms only before the window (the counters are cumulative) are a
//! warning. The pause frames the port took and sent during the window are given with it.

use fabcheck_model::facts::SwitchCounterReads;
use fabcheck_model::switch::{PortCounters, WatchdogStats};
use fabcheck_model::{Finding, Severity};

/// `switch.pfc_storm` for each port and queue the watchdog acted on.
pub fn storms(device: &str, reads: &SwitchCounterReads) -> Vec<Finding> {
    let mut findings = Vec::new();
    let empty = PortCounters::default();
    for (port, after) in &reads.after.counters.ports {
        let before = reads.before.counters.ports.get(port).unwrap_or(&empty);
        for (queue, now) in &after.watchdog {
            let then = before.watchdog.get(queue).copied().unwrap_or_default();
            let Some(storm) = Storm::between(&then, now) else { continue };
            let pause = |m: &std::collections::BTreeMap<u8, u64>, b: &std::collections::BTreeMap<u8, u64>| {
                m.get(queue).zip(b.get(queue)).map(|(a, b)| a.saturating_sub(*b))
            };
            let (rx, tx) = (pause(&after.pfc_rx, &before.pfc_rx), pause(&after.pfc_tx, &before.pfc_tx));
            let pauses = match (rx, tx) {
                (None, None) => String::new(),
                (rx, tx) => format!(
                    "; during the window it took {} and sent {} pause frames on priority {queue}",
                    rx.map_or("?".into(), |v| v.to_string()),
                    tx.map_or("?".into(), |v| v.to_string())
                ),
            };
            let (severity, when) = if storm.active() {
                (Severity::Critical, "a PFC storm now or during the window")
            } else {
                (Severity::Warning, "PFC storms before the window (the counters are cumulative)")
            };
            let mut f = Finding::new(
                "switch.pfc_storm",
                severity,
                device,
                format!("{port} queue {queue}: {when}, the watchdog acting: {}{pauses}", storm.describe()),
            )
            .port(port)
            .expected_actual("no PFC storm", storm.describe());
            for file in &reads.after.files {
                f = f.evidence(file.clone());
            }
            findings.push(f);
        }
    }
    findings
}

/// What the watchdog counted, and how much of it in the window.
struct Storm {
    stormed: bool,
    detected: u64,
    detected_in_window: u64,
    restored: Option<u64>,
    drops: Option<u64>,
    drops_in_window: u64,
}

impl Storm {
    /// `None` when the watchdog never acted on the queue.
    fn between(then: &WatchdogStats, now: &WatchdogStats) -> Option<Storm> {
        let drops = |s: &WatchdogStats| match (s.tx_drop, s.rx_drop) {
            (None, None) => None,
            (tx, rx) => Some(tx.unwrap_or(0) + rx.unwrap_or(0)),
        };
        let detected = now.storms_detected.unwrap_or(0);
        let storm = Storm {
            stormed: now.stormed == Some(true),
            detected,
            detected_in_window: detected.saturating_sub(then.storms_detected.unwrap_or(0)),
            restored: now.storms_restored,
            drops: drops(now),
            drops_in_window: drops(now).unwrap_or(0).saturating_sub(drops(then).unwrap_or(0)),
        };
        (storm.stormed || storm.detected > 0 || storm.drops.unwrap_or(0) > 0).then_some(storm)
    }

    fn active(&self) -> bool {
        self.stormed || self.detected_in_window > 0 || self.drops_in_window > 0
    }

    fn describe(&self) -> String {
        let mut parts = vec![if self.stormed { "stormed now".to_string() } else { "not stormed now".to_string() }];
        parts.push(format!("{} storms detected (+{} in the window)", self.detected, self.detected_in_window));
        if let Some(r) = self.restored {
            parts.push(format!("{r} restored"));
        }
        if let Some(d) = self.drops {
            parts.push(format!("{d} packets dropped by the watchdog (+{} in the window)", self.drops_in_window));
        }
        parts.join(", ")
    }
}
