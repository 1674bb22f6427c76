//! `dell_os10_queuing` (`show queuing statistics interface ethernet 1/1/4`), on two real OS10
//! switches' sessions (fixtures/dell_os10_queuing/SOURCES.md), value by value.
use fabcheck_model::switch::SwitchCounters;
use fabcheck_parse::dell_os10::convert::add_queuing_statistics;
use fabcheck_parse::dell_os10::queuing_statistics::parse;

const HOUND: &str =
    include_str!("fixtures/dell_os10_queuing/os10-show-queuing-statistics-hound-dirt-drops-netdev-2022.txt");
const FOX: &str =
    include_str!("fixtures/dell_os10_queuing/os10-show-queuing-statistics-fox-dirt-drops-netdev-2022.txt");
const CLEARED: &str =
    include_str!("fixtures/dell_os10_queuing/os10-show-queuing-statistics-hound-dirt-cleared-netdev-2022.txt");

#[test]
fn a_real_port_that_dropped_on_queue_5() {
    let parsed = parse(HOUND).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let port = &parsed.value.ports[0];
    assert_eq!((port.port.as_str(), port.name.as_str()), ("ethernet1/1/4", "Ethernet1/1/4"));
    assert_eq!(port.queues.len(), 8);
    let q5 = port.queues[&5];
    assert_eq!(
        (q5.packets, q5.bytes, q5.dropped_packets, q5.dropped_bytes),
        (21377065, 191400217674, 1263665, 11321730380)
    );
    assert_eq!((port.queues[&1].packets, port.queues[&1].bytes), (9, 882));
    let fox = parse(FOX).expect("parses").value;
    let q = &fox.ports[0].queues;
    assert_eq!((q[&0].packets, q[&0].bytes, q[&1].packets, q[&5].dropped_packets), (10, 654, 6, 1192655));
}

/// The two reads a window takes, as the model has them: the queue's drops grew from zero.
#[test]
fn cleared_then_dropping_in_the_model() {
    let (mut before, mut after) = (SwitchCounters::default(), SwitchCounters::default());
    add_queuing_statistics(&mut before, &parse(CLEARED).unwrap().value);
    add_queuing_statistics(&mut after, &parse(HOUND).unwrap().value);
    let (b, a) = (&before.ports["Ethernet1/1/4"], &after.ports["Ethernet1/1/4"]);
    assert_eq!((b.queue_drops[&5], a.queue_drops[&5]), (0, 1263665));
    assert_eq!((b.queue_tx_packets[&5], a.queue_tx_packets[&5]), (0, 21377065));
    let json = fabcheck_parse::parse_to_json("dell_os10_queuing", HOUND).expect("known").expect("parses").value;
    assert_eq!(json["model"]["ports"]["Ethernet1/1/4"]["queue_drops"]["5"], 1263665);
}

#[test]
fn two_ports_a_bad_row_and_foreign_text() {
    let text = "Interface ethernet1/1/1\nQueue Packets Bytes Dropped-Packets Dropped-Bytes\n3 10 1000 2 200\n9 1 1 1 1\nInterface ethernet1/1/2\nQueue Packets Bytes Dropped-Packets Dropped-Bytes\n3 5 500 0\n3 5 500 0 0\n";
    let parsed = parse(text).expect("parses");
    assert_eq!(parsed.warnings.iter().map(|w| w.line).collect::<Vec<_>>(), [4, 7]);
    assert_eq!(parsed.value.ports.len(), 2);
    assert_eq!(parsed.value.ports[0].queues[&3].dropped_packets, 2);
    assert!(parse("").is_err());
    assert!(parse("Port  RxPfc  TxPfc\nEt1  0  0\n").is_err());
}
