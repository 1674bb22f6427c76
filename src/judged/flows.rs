//! Real captures analysed into flow records and judged by the flow verdicts.

use crate::check::flows::*;
use crate::policy::Policy;
use fabcheck_model::flow_record::FlowRecord;
use fabcheck_model::{Finding, Severity};

fn policy() -> Policy {
    Policy::parse(crate::policy::DEFAULT_POLICY, "default").unwrap()
}

fn analysed(name: &str) -> Vec<FlowRecord> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/flows/tests/fixtures/pcap").join(name);
    let mut flows = fabcheck_flows::flow::Flows::default();
    fabcheck_flows::analyse(std::fs::File::open(path).unwrap(), &mut flows).unwrap();
    let source =
        fabcheck_flows::record::Source { kind: "capture".into(), file: name.into(), point: None, sampling_rate: 1 };
    fabcheck_flows::record::records(&flows, &source)
}

/// A real ConnectX capture where one host marks its traffic DSCP 26 and the other does not
/// (sources: magnate3's ibdump captures): each direction's data and ACKs judged apart.
#[test]
fn real_traffic_off_the_lossless_class_is_named_in_both_directions() {
    let found = verdicts(&analysed("cx-mlx5-rc-send-write-ack-dscp26-ect0-magnate3.pcap"), &policy());
    let keys: Vec<(&str, &str, Severity, &str)> =
        found.iter().map(|f| (f.code.as_str(), f.device.as_str(), f.severity, f.actual.as_str())).collect();
    assert_eq!(
        keys,
        [
            ("flow.dscp_mismatch", "172.17.242.47", Severity::Error, "DSCP 0"),
            ("flow.dscp_mismatch", "172.17.242.56", Severity::Warning, "ACKs on DSCP 0"),
        ]
    );
}

/// A sampled flow is judged by the same limits, and its findings say they are estimates.
#[test]
fn a_sampled_flows_findings_say_they_are_estimates() {
    let mut records = analysed("cx-mlx5-rc-send-write-ack-dscp26-ect0-magnate3.pcap");
    for r in &mut records {
        r.estimated = Some(true);
        r.source.sampling_rate = 1000;
    }
    let found = verdicts(&records, &policy());
    assert_eq!(found.len(), 2);
    assert!(found.iter().all(|f| f.message.ends_with("(estimated from samples at 1 in 1000)")), "{found:?}");
    // A collector's record that does not say: sampled at 1 in 1000 is an estimate.
    for r in &mut records {
        r.estimated = None;
    }
    assert!(verdicts(&records, &policy()).iter().all(|f| f.message.ends_with("(estimated from samples at 1 in 1000)")));
}

/// The limits on a collector's records, which may carry only some fields: a NAK rate from
/// the PSN sequence errors alone, or from `nak_rate` alone; throughput and completion time
/// from the record's own figures, none when it has none (a sampled flow).
#[test]
fn each_limit_reads_the_fields_a_record_has() {
    let rules = "flows: { max_nak_rate: 0.001, max_fct_p99_us: 10, min_throughput_gbps: 100 }\n";
    let policy = Policy::parse(rules, "limits").unwrap();
    let base =
        analysed("cx-mlx5-rc-send-write-ack-dscp26-ect0-magnate3.pcap").into_iter().find(FlowRecord::is_data).unwrap();
    let judged = |edit: &dyn Fn(&mut FlowRecord)| {
        let mut r = base.clone();
        edit(&mut r);
        verdicts(&[r], &policy).into_iter().map(|f| f.code).collect::<Vec<_>>()
    };
    assert_eq!(judged(&|_| {}), Vec::<String>::new(), "the real flow is within every limit");
    let data = base.data_packets.unwrap();
    assert_eq!(judged(&|r| (r.naks_psn_seq, r.naks_other) = (Some(data), None)), ["flow.nak_rate"]);
    assert_eq!(judged(&|r| (r.naks_psn_seq, r.naks_other, r.nak_rate) = (None, None, Some(0.05))), ["flow.nak_rate"]);
    let slow = |r: &mut FlowRecord| (r.payload_bytes, r.throughput_bytes_per_s) = (Some(2 << 20), Some(1e9));
    assert_eq!(judged(&slow), ["flow.throughput_low"], "8 Gb/s below 100");
    assert_eq!(judged(&|r| (r.payload_bytes, r.throughput_bytes_per_s) = (Some(2 << 20), None)), Vec::<String>::new());
    let late = |r: &mut FlowRecord| {
        r.fct_ns = Some(fabcheck_flows::record::Fct { min: 1_000, p50: 5_000, p99: 20_000, max: 30_000 })
    };
    assert_eq!(judged(&late), ["flow.fct"], "20 µs above 10");
}

/// Every real capture judged: none has a NAK, retransmission or CE mark, so no such finding
/// (the limits bite on the lab's captures and constructed traffic). The NVMe-oF ones answer
/// READs and send their own requests on one flow: two PSN sequences, not one going back.
#[test]
fn real_captures_raise_no_loss_findings() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/flows/tests/fixtures/pcap");
    let mut judged = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if !name.ends_with(".pcap") {
            continue;
        }
        let found = verdicts(&analysed(&name), &policy());
        let loss: Vec<&Finding> = found
            .iter()
            .filter(|f| matches!(f.code.as_str(), "flow.retransmits" | "flow.nak_rate" | "flow.ecn_ce"))
            .collect();
        assert!(loss.is_empty(), "{name}: {loss:?}");
        judged += 1;
    }
    assert_eq!(judged, 18);
}
