//! Verdicts on RoCEv2 flows (seeds/000: completion time, effective throughput, NAK rate) against
//! the policy's `flows:` limits. Each data flow (not RDMA-CM) is judged with the flow that
//! answers it, when the capture holds it: its NAKs, RNR NAKs and CNPs come back that way.
use crate::policy::Policy;
use fabcheck_flows::flow::{Flow, FlowKey, Flows};
use fabcheck_flows::hops::Hop;
use fabcheck_model::{Finding, Severity};

/// A flow that moved less than this is too short to judge for throughput.
const THROUGHPUT_MIN_BYTES: u64 = 1 << 20;

/// The flow findings of one capture (`evidence`: the capture file).
pub fn verdicts(flows: &Flows, policy: &Policy, evidence: &str) -> Vec<Finding> {
    let Some(rules) = &policy.flows else { return Vec::new() };
    let links = flows.links();
    let roce: Vec<u8> = policy.roce.as_ref().map(|c| c.dscps().to_vec()).unwrap_or_default();
    let cnp: Vec<u8> = policy.cnp.as_ref().map(|c| c.dscps().to_vec()).unwrap_or_default();
    let mut keys: Vec<(&FlowKey, &Flow)> = flows.flows.iter().filter(|(_, f)| !f.cm && f.data_packets > 0).collect();
    keys.sort_by_key(|(k, f)| (f.first_ns, **k));
    let mut out = Vec::new();
    for (key, f) in keys {
        let reverse = links.get(key).and_then(|r| flows.flows.get(r));
        let name = format!("{}:{} → {} qp {:#x}", key.src, key.src_port, key.dst, key.dest_qp);
        let data = f.data_packets as f64;
        let seconds = (f.last_ns - f.first_ns) as f64 / 1e9;
        let mut emit = |code: &str, severity, expected: String, actual: String, why: String| {
            let mut finding = Finding::new(code, severity, &key.src.to_string(), format!("flow {name}: {why}"))
                .expected_actual(expected, actual)
                .evidence(evidence);
            finding.path = vec![key.src.to_string(), key.dst.to_string()];
            out.push(finding);
        };
        if let (Some(max), Some(r)) = (rules.max_nak_rate, reverse) {
            let naks = r.naks_psn_seq + r.naks_other;
            let rate = naks as f64 / data;
            if rate > max {
                emit(
                    "flow.nak_rate",
                    Severity::Error,
                    format!("NAK rate ≤ {max}"),
                    format!(
                        "{rate:.4} ({naks} NAKs, {} PSN sequence errors, per {} data packets)",
                        r.naks_psn_seq, f.data_packets
                    ),
                    format!(
                        "{naks} NAKs for {} data packets: packets were lost on the way and the sender went back",
                        f.data_packets
                    ),
                );
            }
        }
        if let Some(max) = rules.max_retransmit_rate {
            let rate = f.retransmits as f64 / data;
            if rate > max {
                emit(
                    "flow.retransmits",
                    Severity::Error,
                    format!("retransmit rate ≤ {max}"),
                    format!("{rate:.4} ({} of {} data packets)", f.retransmits, f.data_packets),
                    format!("{} data packets sent again (go-back-N)", f.retransmits),
                );
            }
        }
        let ce = f.ecn[3];
        if let Some(max) = rules.max_ce_fraction {
            let share = ce as f64 / f.packets as f64;
            if share > max {
                emit(
                    "flow.ecn_ce",
                    Severity::Warning,
                    format!("CE share ≤ {max}"),
                    format!("{share:.4} ({ce} of {} packets)", f.packets),
                    format!("{ce} packets marked CE: a queue on the path is congested"),
                );
            }
        }
        if let (Some(max), Some(r), true) = (rules.max_cnps_per_s, reverse, seconds > 0.0) {
            let rate = r.cnps as f64 / seconds;
            if rate > max {
                emit(
                    "flow.ecn_ce",
                    Severity::Warning,
                    format!("CNPs ≤ {max}/s"),
                    format!("{rate:.0}/s ({} CNPs)", r.cnps),
                    format!("the receiver sent {} CNPs: DCQCN is slowing the sender down", r.cnps),
                );
            }
        }
        if let (Some(max_us), Some(p99)) = (rules.max_fct_p99_us, f.fct_ns.quantile(0.99))
            && p99 as f64 > max_us * 1000.0
        {
            emit(
                "flow.fct",
                Severity::Warning,
                format!("FCT p99 ≤ {max_us} µs"),
                format!("{:.1} µs over {} messages", p99 as f64 / 1000.0, f.messages),
                format!("messages take {:.1} µs at the 99th percentile", p99 as f64 / 1000.0),
            );
        }
        if let (Some(min), Some(bytes)) = (rules.min_throughput_gbps, f.payload_bytes)
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
            let off: Vec<u8> = f.dscp.iter().copied().filter(|d| !roce.contains(d)).collect();
            if !off.is_empty() {
                emit(
                    "flow.dscp_mismatch",
                    Severity::Error,
                    format!("DSCP {}", list(&roce)),
                    format!("DSCP {}", list(&f.dscp.iter().copied().collect::<Vec<_>>())),
                    format!("its RDMA packets carry DSCP {}, outside the lossless class", list(&off)),
                );
            }
            let back: Vec<u8> = reverse
                .map(|r| r.dscp.iter().copied().filter(|d| !roce.contains(d) && !cnp.contains(d)).collect())
                .unwrap_or_default();
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

    fn analysed(name: &str) -> Flows {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/flows/tests/fixtures/pcap").join(name);
        let mut flows = Flows::default();
        fabcheck_flows::analyse(std::fs::File::open(path).unwrap(), &mut flows).unwrap();
        flows
    }

    /// A real ConnectX capture where one host marks its traffic DSCP 26 and the other does not
    /// (sources: magnate3's ibdump captures): each direction's data and ACKs judged apart.
    #[test]
    fn real_traffic_off_the_lossless_class_is_named_in_both_directions() {
        let found = verdicts(&analysed("cx-mlx5-rc-send-write-ack-dscp26-ect0-magnate3.pcap"), &policy(), "cap.pcap");
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

    /// Every real capture of RC traffic judged: none has a NAK, retransmission or CE mark, so no
    /// such finding (the limits bite on constructed traffic: fabcheck_flows' flow tests).
    #[test]
    fn real_captures_raise_no_loss_findings() {
        for name in ["cx-mlx5-rc-32qp-send-ack-708pkt-magnate3.pcap", "rc-send-imm-srcport69-misdissect-oferby.pcap"] {
            let found = verdicts(&analysed(name), &policy(), name);
            assert!(found.iter().all(|f| f.code == "flow.dscp_mismatch"), "{name}: {found:?}");
        }
    }
}
