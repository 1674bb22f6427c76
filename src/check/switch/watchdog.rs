//! PFC storms, as the switch's PFC watchdog saw them (a NIC or port stuck sending
//! pause frames stalls every flow behind it, hop by hop: Guo et al., "RDMA over Commodity
//! Ethernet at Scale", SIGCOMM 2016, on PFC storms and the watchdog). The watchdog detects a queue paused
//! for longer than its detection time, drops its traffic to break the deadlock, and restores it:
//! SONiC counts storms detected and restored and the packets dropped; NVUE shows a traffic class
//! in `DEADLOCK` and counts deadlocks. A storm now, or one detected or dropping during the
//! window, is critical; storms only before the window (the counters are cumulative) are a
//! warning. The pause frames the port took and sent during the window are given with it.

use crate::facts::SwitchCounterReads;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::CounterTable;
    use fabcheck_model::switch::SwitchCounters;

    fn reads(then: Option<WatchdogStats>, now: WatchdogStats) -> SwitchCounterReads {
        let table = |wd: Option<WatchdogStats>, pfc: u64| {
            let mut port = PortCounters::default();
            if let Some(wd) = wd {
                port.watchdog.insert(3, wd);
            }
            port.pfc_rx.insert(3, pfc);
            port.pfc_tx.insert(3, 0);
            let mut counters = SwitchCounters::default();
            counters.ports.insert("Ethernet8".into(), port);
            CounterTable { counters, files: vec!["leaf1/pfcwd_stats.t1.txt".into()] }
        };
        SwitchCounterReads { before: table(then, 100), after: table(Some(now), 50_100), ..Default::default() }
    }

    fn stats(stormed: bool, detected: u64, drops: u64) -> WatchdogStats {
        WatchdogStats {
            stormed: Some(stormed),
            storms_detected: Some(detected),
            storms_restored: Some(detected - u64::from(stormed)),
            tx_drop: Some(drops),
            rx_drop: Some(0),
        }
    }

    #[test]
    fn a_storm_in_the_window_is_critical_with_its_pause_frames() {
        let f = storms("leaf1", &reads(None, stats(true, 1, 300)));
        assert_eq!(f.len(), 1);
        assert_eq!((f[0].severity, f[0].port.as_deref()), (Severity::Critical, Some("Ethernet8")));
        assert!(f[0].message.contains("took 50000 and sent 0 pause frames on priority 3"), "{}", f[0].message);
        assert_eq!(
            f[0].actual,
            "stormed now, 1 storms detected (+1 in the window), 0 restored, 300 packets dropped by the watchdog (+300 in the window)"
        );
    }

    #[test]
    fn old_storms_are_a_warning_and_a_quiet_watchdog_nothing() {
        let old = stats(false, 2, 400);
        let f = storms("leaf1", &reads(Some(old), old));
        assert_eq!(f.iter().map(|f| f.severity).collect::<Vec<_>>(), [Severity::Warning]);
        let quiet = WatchdogStats { stormed: Some(false), storms_detected: Some(0), ..Default::default() };
        assert!(storms("leaf1", &reads(Some(quiet), quiet)).is_empty());
    }

    fn read_of(text: &str) -> CounterTable {
        let wd = fabcheck_parse::sonic::pfcwd::parse(text).expect("parses").value;
        let mut counters = SwitchCounters::default();
        fabcheck_parse::sonic::convert::add_pfcwd_stats(&mut counters, &wd);
        CounterTable { counters, files: vec!["leaf1/pfcwd_stats.txt".into()] }
    }

    /// sonic-net/sonic-buildimage#8483: the first and third of three reads of a Z9332's queue,
    /// as the window's two reads: a second storm detected in between.
    #[test]
    fn a_real_second_storm_between_two_reads_is_critical() {
        let text = include_str!(
            "../../../crates/parse/tests/fixtures/sonic_pfcwd/sonic-z9332-pfcwd-stats-storm-sequence-issue-8483-PARTIAL.txt"
        );
        let reads: Vec<&str> = text.split("root@sonic-10431:~# show pfcwd stats\n").filter(|r| !r.is_empty()).collect();
        assert_eq!(reads.len(), 3);
        let window = SwitchCounterReads { before: read_of(reads[0]), after: read_of(reads[2]), ..Default::default() };
        let f = storms("leaf1", &window);
        assert_eq!(f.len(), 1);
        assert_eq!((f[0].severity, f[0].port.as_deref()), (Severity::Critical, Some("Ethernet4")));
        assert_eq!(
            f[0].actual,
            "stormed now, 2 storms detected (+1 in the window), 1 restored, 46497254 packets dropped by the watchdog (+4989828 in the window)"
        );
    }

    /// sonic-net/sonic-buildimage#9432 read twice unchanged: the stormed queue is critical, the
    /// restored one a warning.
    #[test]
    fn a_real_stormed_queue_and_a_restored_one() {
        let text = include_str!(
            "../../../crates/parse/tests/fixtures/sonic_pfcwd/sonic-z9332-pfcwd-stats-stormed-operational-issue-9432.txt"
        );
        let window = SwitchCounterReads { before: read_of(text), after: read_of(text), ..Default::default() };
        let findings = storms("leaf1", &window);
        let found: Vec<(Option<&str>, Severity)> = findings.iter().map(|f| (f.port.as_deref(), f.severity)).collect();
        assert_eq!(found, [(Some("Ethernet4"), Severity::Warning), (Some("Ethernet6"), Severity::Critical)]);
    }
}
