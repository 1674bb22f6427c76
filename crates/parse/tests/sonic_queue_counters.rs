//! `sonic_queue_counters` (`show queue counters`) on every sample in
//! tests/fixtures/sonic_queue_counters (see SOURCES.md there).
use fabcheck_parse::sonic::convert::add_queue_counters;
use fabcheck_parse::sonic::queue_counters::parse;
use fabcheck_parse::switch::SwitchCounters;

#[test]
fn unicast_multicast_and_all_queues() {
    let text = include_str!(
        "fixtures/sonic_queue_counters/show-queue-counters-port-uc-mc-all-sonic-utilities-queue-counter-test.txt"
    );
    let parsed = parse(text).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let q = &parsed.value.queues;
    assert_eq!(q.len(), 30);
    assert!(q.iter().all(|r| r.port == "Ethernet8"));
    let uc3 = &q[3];
    assert_eq!((uc3.queue.as_str(), uc3.kind.as_str(), uc3.index), ("UC3", "UC", Some(3)));
    assert_eq!(
        (uc3.tx_packets, uc3.tx_bytes, uc3.drop_packets, uc3.drop_bytes),
        (Some(11), Some(97), Some(63), Some(72))
    );
    let mc13 = &q[13];
    assert_eq!((mc13.kind.as_str(), mc13.index, mc13.drop_packets), ("MC", Some(13), Some(72)));
    let all20 = &q[20];
    assert_eq!((all20.kind.as_str(), all20.index, all20.tx_packets), ("ALL", Some(20), None));

    let mut counters = SwitchCounters::default();
    add_queue_counters(&mut counters, &parsed.value);
    let p = &counters.ports["Ethernet8"];
    assert_eq!(p.queue_tx_packets.len(), 10, "UC0-UC9; MC and N/A rows are not per-queue values");
    assert_eq!((p.queue_tx_packets[&3], p.queue_drops[&3]), (11, 63));
    assert_eq!((p.queue_tx_packets[&9], p.queue_drops[&9]), (80, 91));
}

#[test]
fn voq_system_ports_and_the_credit_watchdog_column() {
    let text = include_str!(
        "fixtures/sonic_queue_counters/show-queue-counters-port-voq-sonic-utilities-queue-counter-test.txt"
    );
    let parsed = parse(text).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let q = &parsed.value.queues;
    assert_eq!(q.len(), 8);
    assert_eq!((q[7].port.as_str(), q[7].queue.as_str()), ("testsw|Ethernet0", "VOQ7"));
    assert_eq!((q[7].tx_packets, q[7].drop_bytes), (Some(40), Some(33)));
    assert_eq!(q[7].extra["Credit-WD-Del/pkts"], 73);
    let json =
        fabcheck_parse::parse_to_json("sonic_queue_counters", text).expect("known source").expect("parses").value;
    let p = &json["ports"]["testsw|Ethernet0"];
    assert_eq!((p["queue_tx_packets"]["1"].clone(), p["queue_drops"]["1"].clone()), (60.into(), 39.into()));
}

/// A multi-ASIC switch's cached counters (`Last cached time for asic0 was ...`), with heavy
/// drops on the two lossless queues.
#[test]
fn multi_asic_last_cached_line_and_lossless_queue_drops() {
    let parsed = parse(include_str!("fixtures/sonic_queue_counters/sonic-2405-dnx-show-queue-counter-nonzero-asic0-last-cached-issue-20913-PARTIAL.txt")).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let v = &parsed.value;
    assert_eq!(v.last_cached.get("Ethernet0").map(String::as_str), Some("2024-12-05T21:43:32.337031"));
    let mut counters = SwitchCounters::default();
    add_queue_counters(&mut counters, v);
    let p = &counters.ports["Ethernet0"];
    assert_eq!((p.queue_drops[&3], p.queue_drops[&4], p.queue_drops[&0]), (830_694_313, 830_694_125, 0));
    assert_eq!((p.queue_tx_packets[&3], p.queue_tx_packets[&7]), (3_609_147_049, 215));
}

/// Three VOQ tables, each after a `For namespace :` line: that line is not a row of the table
/// above it.
#[test]
fn voq_tables_of_each_namespace() {
    let text = include_str!(
        "fixtures/sonic_queue_counters/show-queue-counters-voq-all-sonic-utilities-queue-counter-test.txt"
    );
    let parsed = parse(text).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let q = &parsed.value.queues;
    assert_eq!(q.len(), 24);
    let ports: std::collections::BTreeSet<&str> = q.iter().map(|q| q.port.as_str()).collect();
    assert_eq!(ports, ["testsw|Ethernet0", "testsw|Ethernet4", "testsw|Ethernet8"].into());
    assert_eq!((q[8].port.as_str(), q[8].queue.as_str()), ("testsw|Ethernet4", "VOQ0"));
    assert_eq!((q[8].tx_packets, q[8].tx_bytes, q[8].drop_packets), (Some(54), Some(8), Some(93)));
    assert_eq!(q[16].extra["Credit-WD-Del/pkts"], 67);
}
