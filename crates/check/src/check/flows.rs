//! Verdicts on RoCEv2 flows (completion time, effective throughput, NAK rate: what a flow's own packets say of the fabric) against
//! the policy's `flows:` limits, read from flow records (a capture's, or a collector's JSON
//! Lines): what the flow back said (NAKs, RNR NAKs, CNPs) is in the record when it was linked.
use crate::policy::Policy;
use fabcheck_model::flow_record::FlowRecord;
use fabcheck_model::{Finding, Severity};

/// A flow that moved less than this is too short to judge for throughput.
const THROUGHPUT_MIN_BYTES: u64 = 1 << 20;

/// The findings on the data flows among `records`.
pub fn verdicts(records: &[FlowRecord], policy: &Policy) -> Vec<Finding> {
    let Some(rules) = &policy.flows else { return Vec::new() };
    let roce: Vec<u8> = policy.lossless_dscps();
    let cnp: Vec<u8> = policy.cnp.as_ref().map(|c| c.dscps().to_vec()).unwrap_or_default();
    let mut out = Vec::new();
    for r in records.iter().filter(|r| r.is_data()) {
        let name = r.name();
        let data_packets = r.data_packets.unwrap_or(0);
        let data = data_packets as f64;
        let seconds = r.duration_ns as f64 / 1e9;
        let mut emit = |code: &str, severity, expected: String, actual: String, why: String| {
            // A sampled flow's counts are estimates: the message says so, the limits stay.
            // A record that does not say is an estimate when its packets were sampled.
            let estimated = r.estimated.unwrap_or(r.source.sampling_rate > 1);
            let why = if estimated {
                format!("{why} (estimated from samples at 1 in {})", r.source.sampling_rate)
            } else {
                why
            };
            let mut finding = Finding::new(code, severity, &r.src_ip.to_string(), format!("flow {name}: {why}"))
                .expected_actual(expected, actual)
                .evidence(r.source.file.clone());
            finding.path = vec![r.src_ip.to_string(), r.dst_ip.to_string()];
            out.push(finding);
        };
        // NAKs of every kind the record knows; a collector's record may carry only some counts,
        // or only the rate.
        let naks = match (r.naks_psn_seq, r.naks_other) {
            (None, None) => None,
            (psn, other) => Some((psn.unwrap_or(0), other.unwrap_or(0))),
        };
        let nak_rate = naks.map(|(psn, other)| (psn + other) as f64 / data).filter(|_| data_packets > 0).or(r.nak_rate);
        if let (Some(max), Some(rate)) = (rules.max_nak_rate, nak_rate) {
            let (psn, other) = naks.unwrap_or_default();
            let naks = psn + other;
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
        // The record's own throughput: a sampled record has none (its times are the collector's).
        if let (Some(min), Some(bytes), Some(per_s)) =
            (rules.min_throughput_gbps, r.payload_bytes, r.throughput_bytes_per_s)
            && bytes >= THROUGHPUT_MIN_BYTES
        {
            let gbps = per_s * 8.0 / 1e9;
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

/// `flow.hop_latency` when one hop's 99th-percentile latency (`p99_ns`, over the `matched`
/// packets seen at both of its ends) is above the policy's limit.
pub fn hop_verdict(
    from: &str,
    to: &str,
    p99_ns: Option<u64>,
    matched: u64,
    policy: &Policy,
    evidence: &str,
) -> Option<Finding> {
    let max_us = policy.flows.as_ref()?.max_hop_latency_p99_us?;
    let p99 = p99_ns?;
    (p99 as f64 > max_us * 1000.0).then(|| {
        let mut f = Finding::new(
            "flow.hop_latency",
            Severity::Warning,
            to,
            format!(
                "hop {from} → {to}: packets take {:.1} µs at the 99th percentile ({} matched): a queue builds up on the way",
                p99 as f64 / 1000.0,
                matched
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
