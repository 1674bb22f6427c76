//! Verdicts on RoCEv2 flows (seeds/000: completion time, effective throughput, NAK rate) against
//! the policy's `flows:` limits, read from flow records (a capture's, or a collector's JSON
//! Lines): what the flow back said (NAKs, RNR NAKs, CNPs) is in the record when it was linked.
use crate::policy::Policy;
use fabcheck_flows::hops::Hop;
use fabcheck_flows::record::FlowRecord;
use fabcheck_model::{Finding, Severity};

/// A flow that moved less than this is too short to judge for throughput.
const THROUGHPUT_MIN_BYTES: u64 = 1 << 20;

/// The findings on the data flows among `records`.
pub fn verdicts(records: &[FlowRecord], policy: &Policy) -> Vec<Finding> {
    let Some(rules) = &policy.flows else { return Vec::new() };
    let roce: Vec<u8> = policy.roce.as_ref().map(|c| c.dscps().to_vec()).unwrap_or_default();
    let cnp: Vec<u8> = policy.cnp.as_ref().map(|c| c.dscps().to_vec()).unwrap_or_default();
    let mut out = Vec::new();
    for r in records.iter().filter(|r| r.is_data()) {
        let name = r.name();
        let data_packets = r.data_packets.unwrap_or(0);
        let data = data_packets as f64;
        let seconds = r.duration_ns as f64 / 1e9;
        let mut emit = |code: &str, severity, expected: String, actual: String, why: String| {
            // A sampled flow's counts are estimates: the message says so, the limits stay.
            let why = match (r.estimated, r.source.sampling_rate) {
                (Some(true), rate) => format!("{why} (estimated from sFlow samples at 1 in {rate})"),
                _ => why,
            };
            let mut finding = Finding::new(code, severity, &r.src_ip.to_string(), format!("flow {name}: {why}"))
                .expected_actual(expected, actual)
                .evidence(r.source.file.clone());
            finding.path = vec![r.src_ip.to_string(), r.dst_ip.to_string()];
            out.push(finding);
        };
        if let (Some(max), Some(psn), Some(other)) = (rules.max_nak_rate, r.naks_psn_seq, r.naks_other) {
            let naks = psn + other;
            let rate = naks as f64 / data;
            if rate > max {
                emit(
                    "flow.nak_rate",
                    Severity::Error,
                    format!("NAK rate ≤ {max}"),
                    format!("{rate:.4} ({naks} NAKs, {psn} PSN sequence errors, per {data_packets} data packets)"),
                    format!(
                        "{naks} NAKs for {data_packets} data packets: packets were lost on the way and the sender went back"
                    ),
                );
            }
        }
        if let (Some(max), Some(retransmits)) = (rules.max_retransmit_rate, r.retransmits) {
            let rate = retransmits as f64 / data;
            if rate > max {
                emit(
                    "flow.retransmits",
                    Severity::Error,
                    format!("retransmit rate ≤ {max}"),
                    format!("{rate:.4} ({retransmits} of {data_packets} data packets)"),
                    format!("{retransmits} data packets sent again (go-back-N)"),
                );
            }
        }
        let ce = r.ecn_packets.ce;
        if let Some(max) = rules.max_ce_fraction {
            let share = ce as f64 / r.packets as f64;
            if share > max {
                emit(
                    "flow.ecn_ce",
                    Severity::Warning,
                    format!("CE share ≤ {max}"),
                    format!("{share:.4} ({ce} of {} packets)", r.packets),
                    format!("{ce} packets marked CE: a queue on the path is congested"),
                );
            }
        }
        if let (Some(max), Some(cnps), true) = (rules.max_cnps_per_s, r.cnps_to_sender, seconds > 0.0) {
            let rate = cnps as f64 / seconds;
            if rate > max {
                emit(
                    "flow.ecn_ce",
                    Severity::Warning,
                    format!("CNPs ≤ {max}/s"),
                    format!("{rate:.0}/s ({cnps} CNPs)"),
                    format!("the receiver sent {cnps} CNPs: DCQCN is slowing the sender down"),
                );
            }
        }
        if let (Some(max_us), Some(fct)) = (rules.max_fct_p99_us, r.fct_ns)
            && fct.p99 as f64 > max_us * 1000.0
        {
            let p99_us = fct.p99 as f64 / 1000.0;
            emit(
                "flow.fct",
                Severity::Warning,
                format!("FCT p99 ≤ {max_us} µs"),
                format!("{p99_us:.1} µs over {} messages", r.messages.unwrap_or(0)),
                format!("messages take {p99_us:.1} µs at the 99th percentile"),
            );
        }
        if let (Some(min), Some(bytes)) = (rules.min_throughput_gbps, r.payload_bytes)
            && bytes >= THROUGHPUT_MIN_BYTES
            && seconds > 0.0
        {
            let gbps = bytes as f64 * 8.0 / seconds / 1e9;
            if gbps < min {
                emit(
                    "flow.throughput_low",
                    Severity::Warning,
                    format!("≥ {min} Gb/s"),
                    format!("{gbps:.2} Gb/s"),
                    format!("{bytes} bytes in {seconds:.3} s"),
                );
            }
        }
        if rules.lossless_dscp == Some(true) && !roce.is_empty() {
            let off: Vec<u8> = r.dscp.iter().copied().filter(|d| !roce.contains(d)).collect();
            if !off.is_empty() {
                emit(
                    "flow.dscp_mismatch",
                    Severity::Error,
                    format!("DSCP {}", list(&roce)),
                    format!("DSCP {}", list(&r.dscp)),
                    format!("its RDMA packets carry DSCP {}, outside the lossless class", list(&off)),
                );
            }
            let back: Vec<u8> =
                r.reverse_dscp.iter().flatten().copied().filter(|d| !roce.contains(d) && !cnp.contains(d)).collect();
            if !back.is_empty() {
                emit(
                    "flow.dscp_mismatch",
                    Severity::Warning,
                    format!("ACKs on DSCP {}", list(&roce)),
                    format!("ACKs on DSCP {}", list(&back)),
                    format!(
                        "its ACKs come back on DSCP {}, outside the lossless class: they can be dropped",
                        list(&back)
                    ),
                );
            }
        }
    }
    out
}

/// `flow.hop_latency` when one hop's 99th-percentile latency is above the policy's limit.
pub fn hop_verdict(from: &str, to: &str, hop: &Hop, policy: &Policy, evidence: &str) -> Option<Finding> {
    let max_us = policy.flows.as_ref()?.max_hop_latency_p99_us?;
    let p99 = hop.latency_ns.quantile(0.99)?;
    (p99 as f64 > max_us * 1000.0).then(|| {
        let mut f = Finding::new(
            "flow.hop_latency",
            Severity::Warning,
            to,
            format!(
                "hop {from} → {to}: packets take {:.1} µs at the 99th percentile ({} matched): a queue builds up on the way",
                p99 as f64 / 1000.0,
                hop.matched
            ),
        )
        .expected_actual(format!("p99 ≤ {max_us} µs"), format!("p99 {:.1} µs", p99 as f64 / 1000.0))
        .evidence(evidence);
        f.path = vec![from.to_string(), to.to_string()];
        f
    })
}

fn list(v: &[u8]) -> String {
    v.iter().map(u8::to_string).collect::<Vec<_>>().join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(found.iter().all(|f| f.message.ends_with("(estimated from sFlow samples at 1 in 1000)")), "{found:?}");
    }

    /// Every real capture of RC traffic judged: none has a NAK, retransmission or CE mark, so no
    /// such finding (the limits bite on constructed traffic: fabcheck_flows' flow tests).
    #[test]
    fn real_captures_raise_no_loss_findings() {
        for name in ["cx-mlx5-rc-32qp-send-ack-708pkt-magnate3.pcap", "rc-send-imm-srcport69-misdissect-oferby.pcap"] {
            let found = verdicts(&analysed(name), &policy());
            assert!(found.iter().all(|f| f.code == "flow.dscp_mismatch"), "{name}: {found:?}");
        }
    }
}
