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
        Some(PfcWatchdog {
            enabled: true,
            detection_ms: None,
            restoration_ms: None,
            action: None,
            big_red_switch: None,
            note: None
        })
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

/// (port, queue, status, detected, restored, tx drop, rx drop) of one queue.
type QueueRow = (String, u8, Option<String>, Option<u64>, Option<u64>, Option<u64>, Option<u64>);

/// Every queue's row, and the lines warned about.
fn stats_of(text: &str) -> (Vec<QueueRow>, Vec<usize>) {
    let parsed = parse(text).expect("parses");
    let rows = parsed
        .value
        .queues
        .iter()
        .map(|q| {
            (q.port.clone(), q.queue, q.status.clone(), q.storms_detected, q.storms_restored, q.tx_drop, q.rx_drop)
        })
        .collect();
    (rows, parsed.warnings.iter().map(|w| w.line).collect())
}

fn row(port: &str, queue: u8, status: Option<&str>, counts: [u64; 4]) -> QueueRow {
    let [d, r, tx, rx] = counts;
    (port.into(), queue, status.map(String::from), Some(d), Some(r), Some(tx), Some(rx))
}

/// Storms on real switches (Dell Z9332F, Celestica DX010), and the `N/A` status after
/// `pfcwd stop`; the prompt lines around the tables are warnings.
#[test]
fn storms_on_real_switches() {
    let (rows, warned) =
        stats_of(include_str!("fixtures/sonic_pfcwd/sonic-z9332-pfcwd-stats-stormed-operational-issue-9432.txt"));
    assert_eq!(
        rows,
        [
            row("Ethernet4", 3, Some("operational"), [1, 1, 1_311_393, 1_310_456]),
            row("Ethernet6", 3, Some("stormed"), [1, 0, 90_769, 89_758]),
        ]
    );
    assert_eq!(warned, [6], "the echoed command is known; the bare prompt after the table is not");
    let (rows, _) =
        stats_of(include_str!("fixtures/sonic_pfcwd/sonic-z9332-pfcwd-stats-rx-drops-issue-9430-PARTIAL.txt"));
    assert_eq!(rows[1], row("Ethernet6", 3, Some("operational"), [2, 2, 46_416, 361_565]));
    let (rows, _) =
        stats_of(include_str!("fixtures/sonic_pfcwd/sonic-dx010-pfcwd-stats-stormed-zero-drops-issue-5898.txt"));
    assert_eq!(rows, [row("Ethernet44", 4, Some("stormed"), [1, 0, 0, 0])]);
    let (rows, _) = stats_of(include_str!("fixtures/sonic_pfcwd/sonic-pfcwd-stats-NA-status-after-stop-pr-682.txt"));
    assert_eq!(rows[2], row("Ethernet96", 4, None, [5, 5, 400, 300]));
    let (rows, _) =
        stats_of(include_str!("fixtures/sonic_pfcwd/sonic-pfcwd-stats-operational-then-NA-after-stop-pr-682.txt"));
    assert_eq!(rows[0], row("Ethernet36", 4, Some("operational"), [1, 1, 100, 100]));
    // A header the user trimmed (misaligned with its dashes) reads the same.
    let (rows, _) = stats_of(include_str!("fixtures/sonic_pfcwd/sonic-pfcwd-stats-misaligned-header-swss-3925.txt"));
    assert_eq!(rows, [row("Ethernet16", 4, Some("stormed"), [1, 0, 0, 0])]);
}

/// Three reads of one queue, the STATUS column narrower when only `stormed` rows are shown: one
/// table per read.
#[test]
fn a_storm_sequence_in_three_reads() {
    let (rows, _) =
        stats_of(include_str!("fixtures/sonic_pfcwd/sonic-z9332-pfcwd-stats-storm-sequence-issue-8483-PARTIAL.txt"));
    assert_eq!(
        rows,
        [
            row("Ethernet4", 3, Some("stormed"), [1, 0, 41_507_426, 0]),
            row("Ethernet4", 3, Some("operational"), [1, 1, 45_830_961, 0]),
            row("Ethernet4", 3, Some("stormed"), [2, 1, 46_497_254, 0]),
        ]
    );
}

#[test]
fn multi_asic_config_with_the_big_red_switch_on() {
    let text = include_str!("fixtures/sonic_pfcwd/pfcwd-show-config-multi-asic-all-sonic-utilities-test-vectors.txt");
    let parsed = parse(text).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let v = &parsed.value;
    assert_eq!((v.poll_interval_ms, v.big_red_switch.as_deref()), (Some(199), Some("enable")));
    let ports: Vec<&str> = v.ports.iter().map(|p| p.port.as_str()).collect();
    assert_eq!(ports, ["Ethernet0", "Ethernet4", "Ethernet-BP0", "Ethernet-BP4", "Ethernet-BP256", "Ethernet-BP260"]);
    assert!(v.ports.iter().all(|p| p.action.as_deref() == Some("drop") && p.detection_ms == Some(200)));
    let mut m = SwitchQos::default();
    add_pfcwd(&mut m, v);
    assert_eq!(
        m.pfc_watchdog,
        Some(PfcWatchdog {
            enabled: true,
            detection_ms: Some(200),
            restoration_ms: Some(200),
            action: Some("drop".into()),
            big_red_switch: Some(true),
            note: None,
        })
    );
}
