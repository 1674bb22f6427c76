//! `eos_queue_counters` (`show interfaces counters queue detail`), on a real Arista 7500's egress
//! table (fixtures/eos_queue_counters/SOURCES.md), value by value.
use fabcheck_model::switch::SwitchCounters;
use fabcheck_parse::eos::convert::add_queue_counters;
use fabcheck_parse::eos::queue_counters::parse;

const SAMPLE: &str = include_str!(
    "fixtures/eos_queue_counters/eos-7500-show-interfaces-counters-queue-detail-egress-ntc-templates-pr507.txt"
);

#[test]
fn a_real_7500s_egress_table_row_by_row() {
    let parsed = parse(SAMPLE).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let rows = &parsed.value.rows;
    assert_eq!(rows.len(), 20);
    let first = &rows[0];
    assert_eq!(
        (
            first.port.as_str(),
            first.name.as_str(),
            first.traffic_class,
            first.drop_precedence.as_str(),
            first.dest_type.as_str()
        ),
        ("Et3/1/1", "Ethernet3/1/1", 1, "DP0-3", "UC")
    );
    assert_eq!((first.enqueued, first.dropped), (67521, 0));
    let last = rows.last().unwrap();
    assert_eq!((last.port.as_str(), last.traffic_class, last.enqueued, last.dropped), ("Et4/4/1", 7, 0, 1));
    assert_eq!(rows.iter().map(|r| r.dropped).sum::<u64>(), 2);
    assert_eq!(rows.iter().filter(|r| r.port == "Et3/9/1").map(|r| r.enqueued).collect::<Vec<_>>(), [64978, 876430]);
}

#[test]
fn the_model_has_each_ports_queues_sent_and_dropped() {
    let mut c = SwitchCounters::default();
    add_queue_counters(&mut c, &parse(SAMPLE).unwrap().value, |_, tc| tc);
    assert_eq!(c.ports.len(), 18);
    let p = &c.ports["Ethernet3/1/1"];
    assert_eq!(p.queue_tx_packets.iter().map(|(q, v)| (*q, *v)).collect::<Vec<_>>(), [(1, 67521), (7, 633860)]);
    assert_eq!(p.queue_drops.iter().map(|(q, v)| (*q, *v)).collect::<Vec<_>>(), [(1, 0), (7, 0)]);
    assert_eq!(c.ports["Ethernet4/2/1"].queue_drops[&7], 1);
    let json = fabcheck_parse::parse_to_json("eos_queue_counters", SAMPLE).expect("known").expect("parses").value;
    assert_eq!(json["model"]["ports"]["Ethernet4/4/1"]["queue_drops"]["7"], 1);
}

/// Unicast and multicast rows of one class add up; an ingress section's lines are reported, not
/// read as egress rows; a row cut short is reported.
#[test]
fn classes_add_up_and_other_sections_are_reported() {
    let text = "leaf1#show interfaces counters queue detail\n\
                Ingress VOQ Counters\n\
                Port      Traffic   DestType   Pkts   Drops\n\
                Et1           TC3         UC      5       2\n\
                Egress Queue Counters\n\
                Port               Traffic   DropPrec   DestType        OutEnqPkts      OutEnqOctets       OutDropPkts     OutDropOctets\n\
                \x20                   Class\n\
                Et1                    TC3      DP0-3         UC               100              9000                 4               360\n\
                Et1                    TC3      DP0-3         MC                10               900                 1                90\n\
                Et2                    TC3      DP0-3         UC               100\n";
    let parsed = parse(text).expect("parses");
    let lines: Vec<usize> = parsed.warnings.iter().map(|w| w.line).collect();
    assert_eq!(lines, [2, 3, 4, 10], "{:?}", parsed.warnings);
    let mut c = SwitchCounters::default();
    add_queue_counters(&mut c, &parsed.value, |_, tc| tc);
    assert_eq!((c.ports["Ethernet1"].queue_drops[&3], c.ports["Ethernet1"].queue_tx_packets[&3]), (5, 110));
    assert!(parse("").is_err());
    assert!(parse("Port  RxPfc  TxPfc\nEt1  0  0\n").is_err());
    // The header alone: a switch none of whose queues moved yet, not foreign text.
    let idle = "Egress Queue Counters\nPort               Traffic   DropPrec   DestType        OutEnqPkts      OutEnqOctets       OutDropPkts     OutDropOctets\n                    Class\n";
    let parsed = parse(idle).expect("an idle switch");
    assert!(parsed.value.rows.is_empty() && parsed.warnings.is_empty(), "{:?}", parsed.warnings);
}

/// The table names traffic classes; each is counted on the queue the caller maps it to (a
/// switch's `qos map traffic-class 3 to tx-queue 5`).
#[test]
fn a_class_is_counted_on_the_queue_it_is_mapped_to() {
    let mut c = SwitchCounters::default();
    add_queue_counters(
        &mut c,
        &parse(SAMPLE).unwrap().value,
        |port, tc| if port == "Ethernet4/2/1" && tc == 7 { 5 } else { tc },
    );
    assert_eq!(c.ports["Ethernet4/2/1"].queue_drops.iter().map(|(q, v)| (*q, *v)).collect::<Vec<_>>(), [(5, 1)]);
    assert_eq!(c.ports["Ethernet4/4/1"].queue_drops[&7], 1);
}
