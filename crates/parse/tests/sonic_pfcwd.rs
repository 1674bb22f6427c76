//! `sonic_pfcwd` (`pfcwd show config`, `pfcwd show stats`) on every sample in
//! tests/fixtures/sonic_pfcwd (see SOURCES.md there).
use fabcheck_parse::sonic::convert::add_pfcwd;
use fabcheck_parse::sonic::pfcwd::parse;
use fabcheck_parse::switch::{PfcWatchdog, SwitchQos};

const CONFIG: &str =
    include_str!("fixtures/sonic_pfcwd/pfcwd-show-config-forward-on-one-port-sonic-utilities-test-vectors.txt");
const STATS: &str = include_str!("fixtures/sonic_pfcwd/pfcwd-show-stats-stormed-sonic-utilities-test-vectors.txt");

#[test]
fn config_per_port_actions_and_timers() {
    let parsed = parse(CONFIG).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let v = &parsed.value;
    assert_eq!((v.poll_interval_ms, v.config_shown), (Some(600), true));
    let p: Vec<_> =
        v.ports.iter().map(|p| (p.port.as_str(), p.action.as_deref(), p.detection_ms, p.restoration_ms)).collect();
    assert_eq!(
        p,
        [
            ("Ethernet0", Some("forward"), Some(102), Some(101)),
            ("Ethernet4", Some("drop"), Some(600), Some(600)),
            ("Ethernet8", Some("drop"), Some(600), Some(600)),
        ]
    );
    assert_eq!(v.ports[0].history.as_deref(), Some("disable"));

    let mut m = SwitchQos::default();
    add_pfcwd(&mut m, v);
    assert!(m.ports.values().all(|p| p.pfc_watchdog == Some(true)));
    // Ethernet0 differs: no single device-wide timer or action.
    assert_eq!(
        m.pfc_watchdog,
        Some(PfcWatchdog { enabled: true, detection_ms: None, restoration_ms: None, action: None })
    );
}

#[test]
fn stats_storms_per_queue() {
    let parsed = parse(STATS).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let q = &parsed.value.queues;
    let got: Vec<_> = q
        .iter()
        .map(|q| (q.port.as_str(), q.queue, q.status.as_deref(), q.storms_detected, q.storms_restored))
        .collect();
    assert_eq!(
        got,
        [
            ("Ethernet0", 3, Some("stormed"), Some(1), Some(0)),
            ("Ethernet4", 3, Some("operational"), Some(2), Some(2)),
            ("Ethernet8", 4, Some("stormed"), Some(3), Some(2)),
        ]
    );
    assert_eq!((q[0].tx_ok, q[0].tx_drop, q[0].rx_ok, q[0].rx_drop), (Some(100), Some(300), Some(100), Some(300)));
    assert!(!parsed.value.config_shown);
}

#[test]
fn config_then_stats_in_one_capture() {
    let text = format!("{CONFIG}\n{STATS}");
    let parsed = parse(&text).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    assert_eq!((parsed.value.ports.len(), parsed.value.queues.len()), (3, 3));
    let json = fabcheck_parse::parse_to_json("sonic_pfcwd", &text).expect("known source").expect("parses").value;
    assert_eq!(json["ports"]["Ethernet8"]["pfc_watchdog"], true);
    assert_eq!(json["pfc_watchdog"]["enabled"], true);
}
