//! Real PFC watchdog statistics read into the model and judged over the window.

use crate::check::switch::watchdog::*;
use crate::facts::{CounterTable, SwitchCounterReads};
use fabcheck_model::Severity;
use fabcheck_model::switch::{PortCounters, SwitchCounters, WatchdogStats};

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
        "../../crates/parse/tests/fixtures/sonic_pfcwd/sonic-z9332-pfcwd-stats-storm-sequence-issue-8483-PARTIAL.txt"
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
        "../../crates/parse/tests/fixtures/sonic_pfcwd/sonic-z9332-pfcwd-stats-stormed-operational-issue-9432.txt"
    );
    let window = SwitchCounterReads { before: read_of(text), after: read_of(text), ..Default::default() };
    let findings = storms("leaf1", &window);
    let found: Vec<(Option<&str>, Severity)> = findings.iter().map(|f| (f.port.as_deref(), f.severity)).collect();
    assert_eq!(found, [(Some("Ethernet4"), Severity::Warning), (Some("Ethernet6"), Severity::Critical)]);
}
