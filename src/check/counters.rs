//! Counter checks: each port's counters are read twice (`t0`, `t1`) around the window; the policy
//! judges the increase and its rate. A counter that goes down was reset (driver reload, port
//! flap): that is reported as `counter.reset`, never as a negative delta.

use super::outputs::Outputs;
use crate::collect::RdmaPort;
use crate::policy::Policy;
use fabcheck_model::{CounterSample, Finding, Severity};
use fabcheck_parse::linux::{ethtool_stats, hw_counters, ibstat, perfquery};
use std::collections::BTreeMap;

/// One read of a port's counters.
pub struct Read {
    /// Counter values by name.
    pub values: BTreeMap<String, u64>,
    /// When the read started, milliseconds since the epoch.
    pub started_ms: u64,
    /// The evidence files it came from.
    pub files: Vec<String>,
}

/// Judges every port's counter deltas; returns the findings and the samples for the reports.
pub fn check(out: &mut Outputs, ports: &[RdmaPort], policy: &Policy) -> (Vec<Finding>, Vec<CounterSample>) {
    let mut findings = Vec::new();
    let mut samples = Vec::new();
    let device = out.device().to_string();
    let (t0s, t1s) = (hw_reads(out, "t0"), hw_reads(out, "t1"));
    let cas = out.get("ibstat", None, ibstat::parse).map(|s| s.cas).unwrap_or_default();
    let active = |p: &RdmaPort| {
        cas.iter()
            .filter(|c| c.name == p.hca)
            .flat_map(|c| &c.ports)
            .find(|s| s.port == p.port)
            .is_none_or(|s| s.state == "Active")
    };
    // A port that is not Active carries no traffic and may not answer counter queries: the port
    // checks report it; its counters say nothing more.
    for port in ports.iter().filter(|p| active(p)) {
        let (Some(before), Some(after)) = (port_read(out, port, "t0", &t0s), port_read(out, port, "t1", &t1s)) else {
            continue;
        };
        let (f, s) = judge_port(&device, &port.label(), &before, &after, policy);
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
    before: &Read,
    after: &Read,
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

/// The RDMA hw_counters of one phase, per (hca, port).
fn hw_reads(out: &mut Outputs, phase: &str) -> Vec<hw_counters::HcaPort> {
    out.get(&format!("hw_counters.{phase}"), None, hw_counters::parse).map(|h| h.ports).unwrap_or_default()
}

/// A port's counters in one phase: ethtool -S (RoCE) or perfquery (IB), plus its hw_counters.
fn port_read(out: &mut Outputs, port: &RdmaPort, phase: &str, hw: &[hw_counters::HcaPort]) -> Option<Read> {
    let label = port.label();
    let key = match (&port.netdev, port.infiniband) {
        (Some(netdev), false) => format!("ethtool_stats.{netdev}.{phase}"),
        _ => format!("perfquery.{}.{phase}", port.hca),
    };
    let mut values = if port.infiniband {
        out.get(&key, Some(&label), perfquery::parse)?.counters
    } else {
        out.get(&key, Some(&label), ethtool_stats::parse)?.counters
    };
    let mut files = vec![out.file(&key)];
    if let Some(h) = hw.iter().find(|h| h.hca == port.hca && h.port == port.port) {
        values.extend(h.counters.iter().map(|(k, v)| (k.clone(), *v)));
        files.push(out.file(&format!("hw_counters.{phase}")));
    }
    Some(Read { values, started_ms: out.started_ms(&key)?, files })
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
