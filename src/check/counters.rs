//! Counter checks: each port's counters are read twice (`t0`, `t1`) around the window; the policy
//! judges the increase and its rate. A counter that goes down was reset (driver reload, port
//! flap): that is reported as `counter.reset`, never as a negative delta.

use crate::facts::{CounterRead, HostFacts};
use crate::policy::Policy;
use fabcheck_model::{CounterSample, Finding, Severity};

/// Judges every port's counter deltas; returns the findings and the samples for the reports.
pub fn check(device: &str, facts: &HostFacts, policy: &Policy) -> (Vec<Finding>, Vec<CounterSample>) {
    let mut findings = Vec::new();
    let mut samples = Vec::new();
    for port in &facts.counters {
        let (f, s) = judge_port(device, &port.label, &port.before, &port.after, policy);
        findings.extend(f);
        samples.extend(s);
    }
    (findings, samples)
}

/// Judges one port's two reads against the policy's counter rules: the same rules for a NIC and
/// for a switch port (whose counters carry NIC-style names: `rx_prio3_pause`).
pub fn judge_port(
    device: &str,
    label: &str,
    before: &CounterRead,
    after: &CounterRead,
    policy: &Policy,
) -> (Vec<Finding>, Vec<CounterSample>) {
    let mut findings = Vec::new();
    let mut samples = Vec::new();
    let seconds = after.started_ms.saturating_sub(before.started_ms) as f64 / 1000.0;
    for (name, &value) in &after.values {
        let Some(&old) = before.values.get(name) else {
            continue;
        };
        let delta = value.checked_sub(old);
        let rate = delta.filter(|_| seconds > 0.0).map(|d| d as f64 / seconds);
        let Some(d) = delta else {
            findings.push(
                Finding::new(
                    "counter.reset",
                    Severity::Info,
                    device,
                    format!("{name} went from {old} to {value}: the counter was reset during the window"),
                )
                .port(label)
                .expected_actual(format!("≥ {old}"), value.to_string())
                .evidence(after.files.join(", ")),
            );
            samples.push(sample(device, label, name, value, None, None));
            continue;
        };
        if let Some(rule) = policy.counters.get(name) {
            let breach = match (rule.max.filter(|m| d > *m), rule.max_per_s.zip(rate).filter(|(m, r)| r > m)) {
                (Some(m), _) => Some((format!("increase ≤ {m} over {seconds:.1} s"), format!("+{d}"))),
                (None, Some((m, r))) => Some((format!("≤ {m}/s"), format!("{r:.0}/s"))),
                (None, None) => None,
            };
            if let Some((expected, actual)) = breach {
                let mut f = Finding::new(
                    code_for(name),
                    rule.severity,
                    device,
                    format!("{name} grew by {d} in {seconds:.1} s on {label}{}", meaning(name)),
                )
                .port(label)
                .expected_actual(expected, actual);
                f.evidence = before.files.iter().chain(&after.files).cloned().collect();
                findings.push(f);
            }
        }
        if policy.counters.contains_key(name) || worth_exporting(name) {
            samples.push(sample(device, label, name, value, Some(d), rate));
        }
    }
    (findings, samples)
}

fn sample(device: &str, port: &str, name: &str, value: u64, delta: Option<u64>, rate: Option<f64>) -> CounterSample {
    CounterSample { device: device.into(), port: port.into(), counter: name.into(), value, delta, rate_per_s: rate }
}

/// The finding code for a counter, by what it counts.
fn code_for(name: &str) -> &'static str {
    let n = name.to_ascii_lowercase();
    if n.contains("out_of_buffer") {
        "counter.out_of_buffer"
    } else if n.contains("discard") || n.contains("drop") {
        "counter.rx_discards"
    } else if n.contains("seq_err") || n.contains("out_of_sequence") {
        "counter.seq_err"
    } else if n.contains("pause") {
        "counter.pause_storm"
    } else if n.contains("ecn") || n.contains("cnp") {
        "counter.ecn_marks"
    } else if n.contains("symbolerror") {
        "ib.symbol_errors"
    } else if n.contains("linkdowned") {
        "ib.link_downed"
    } else {
        "counter.threshold"
    }
}

/// What the growth means, from seeds/003's table of counters.
fn meaning(name: &str) -> &'static str {
    match code_for(name) {
        "counter.out_of_buffer" => {
            ": the NIC ran out of receive buffers and dropped RDMA packets, so the lossless chain is broken"
        }
        "counter.rx_discards" => ": packets were discarded at the port, the direct evidence of a lossy hop",
        "counter.seq_err" => ": packets were lost and retransmitted (go-back-N)",
        "counter.pause_storm" => ": PFC is pausing traffic often, a sign of congestion or a PFC storm",
        _ => "",
    }
}

/// Counters exported to Prometheus even when the policy has no rule for them.
fn worth_exporting(name: &str) -> bool {
    const KEEP: [&str; 9] =
        ["pause", "discard", "out_of_buffer", "seq_err", "out_of_sequence", "ecn", "cnp", "Error", "Downed"];
    KEEP.iter().any(|k| name.contains(k)) && !name.ends_with("_duration")
        || matches!(name, "rx_bytes" | "tx_bytes" | "PortXmitData" | "PortRcvData")
}
