//! `metrics.prom`: the audit as gauges, for node_exporter's textfile collector.

use crate::{ReportError, Reporter, rfc3339, view};
use fabcheck_model::{AuditResult, Severity, Verdict};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Writes `metrics.prom` in the classic Prometheus text format (0.0.4).
///
/// Cron runs an audit, writes this file into node_exporter's textfile directory, and Grafana
/// graphs drift and counter growth over time. Every metric is a gauge: each file is a complete
/// snapshot of one audit, not a running process's counters. By convention a gauge does not end in
/// `_total`; the one exception is `fabcheck_paths_total`, how many paths there are (prometheus-client
/// only rejects `_total` on counters it registers, and this file registers none). Series are sorted
/// by label values and metrics by name, so two runs over the same cluster diff cleanly; a series
/// that occurs twice in the input (same labels) is written once, with the last value.
#[derive(Debug, Clone, Copy, Default)]
pub struct PrometheusReporter;

impl Reporter for PrometheusReporter {
    fn file_name(&self) -> &'static str {
        "metrics.prom"
    }

    fn write(&self, result: &AuditResult, out: &mut dyn std::io::Write) -> Result<(), ReportError> {
        let run_labels: Vec<(&str, &str)> =
            result.metric_labels.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        encode(&families(result), &run_labels, out).map_err(|e| ReportError::render(self.file_name(), e))
    }
}

/// A sample value: counter values are integers and stay exact above 2^53.
#[derive(Debug, Clone, Copy)]
enum Value {
    Int(u64),
    Float(f64),
}

/// One metric: its label names, and its series with their label values, in the order they were
/// set until [`Family::sort`] sorts them (a list sorted once, not a map: counters come in already
/// sorted, and a map's insert compared label values at every level of its tree for each one).
#[derive(Debug)]
struct Family {
    name: &'static str,
    help: &'static str,
    labels: &'static [&'static str],
    series: Vec<(LabelValues, Value)>,
}

/// A series' label values, shared by the families that have the same series (a port counter's
/// value, increase and rate): the counter families are most of the file, and were most of a
/// 1,000-host audit's memory when each held its own copy.
type LabelValues = Arc<[Box<str>]>;

fn label_values(values: &[&str]) -> LabelValues {
    values.iter().map(|v| Box::from(*v)).collect()
}

impl Family {
    fn new(name: &'static str, help: &'static str, labels: &'static [&'static str]) -> Family {
        Family { name, help, labels, series: Vec::new() }
    }

    fn set(&mut self, values: &[&str], value: Value) {
        self.set_shared(label_values(values), value);
    }

    fn set_shared(&mut self, values: LabelValues, value: Value) {
        debug_assert_eq!(values.len(), self.labels.len(), "{}", self.name);
        self.series.push((values, value));
    }

    /// Sorts the series by label values; of a series set more than once, the last value stays.
    fn sort(&mut self) {
        // Most families are set in order, each series once (the counters come as the audit lists
        // them): found so in one pass, they spare the sort's pass and the dedup's.
        if self.series.windows(2).all(|w| w[0].0 < w[1].0) {
            return;
        }
        // Stable: the settings of one series stay in the order they were made.
        self.series.sort_by(|a, b| a.0.cmp(&b.0));
        self.series.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                kept.1 = later.1;
            }
            same
        });
    }
}

const COUNTER_LABELS: &[&str] = &["device", "port", "counter"];
/// A run's hosts, joined with `+`, its pairwise round (empty when not one), its scope (`all`,
/// `pair`, `intra_node`, `bisect`, `other`) and test: no free text, so a dashboard's series
/// stay the same from one run to the next.
const BENCH_LABELS: &[&str] = &["hosts", "round", "scope", "test"];
/// The label names fabcheck's own metrics use: a `--metrics-label` may not take one.
pub const RESERVED_LABELS: &[&str] =
    &["device", "port", "counter", "role", "severity", "code", "verdict", "hosts", "round", "scope", "test"];

/// Every metric of one audit, sorted by name.
fn families(r: &AuditResult) -> Vec<Family> {
    let mut duration = Family::new("fabcheck_audit_duration_seconds", "Wall time of the audit.", &[]);
    duration.set(&[], Value::Float(r.duration_s));
    let mut timestamp = Family::new(
        "fabcheck_audit_timestamp_seconds",
        "Unix time the audit started; alert when it stops advancing (the cron job is not running).",
        &[],
    );
    if let Some(t) = rfc3339::unix_seconds(&r.started) {
        timestamp.set(&[], Value::Float(t));
    }

    let mut value =
        Family::new("fabcheck_port_stat", "NIC or switch port statistic at the second read.", COUNTER_LABELS);
    let mut delta = Family::new(
        "fabcheck_port_stat_increase",
        "Increase of the port statistic over the audit window; absent when it was reset.",
        COUNTER_LABELS,
    );
    let mut rate = Family::new(
        "fabcheck_port_stat_increase_per_second",
        "Increase of the port statistic per second over the audit window; absent when unknown.",
        COUNTER_LABELS,
    );
    let exported = |name: &str| r.metric_counters.as_ref().is_none_or(|names| names.iter().any(|n| n == name));
    for c in r.counters.iter().filter(|c| exported(&c.counter)) {
        let labels = label_values(&[&c.device, &c.port, &c.counter]);
        if let Some(d) = c.delta {
            delta.set_shared(labels.clone(), Value::Int(d));
        }
        if let Some(per_s) = c.rate_per_s {
            rate.set_shared(labels.clone(), Value::Float(per_s));
        }
        value.set_shared(labels, Value::Int(c.value));
    }

    let mut up =
        Family::new("fabcheck_device_up", "1 if every collector reached the device, 0 if not.", &["device", "role"]);
    for d in &r.devices {
        up.set(&[&d.name, &d.role], Value::Int(u64::from(d.reachable)));
    }

    let mut per_device =
        Family::new("fabcheck_device_findings", "Findings on the device by severity.", &["device", "severity"]);
    let mut on_device: BTreeMap<(&str, &str), u64> = BTreeMap::new();
    for f in r.findings.iter().filter(|f| f.waived.is_none()) {
        *on_device.entry((&f.device, f.severity.as_str())).or_default() += 1;
    }
    for d in &r.devices {
        for s in Severity::ALL {
            per_device.set(
                &[&d.name, s.as_str()],
                Value::Int(on_device.get(&(d.name.as_str(), s.as_str())).copied().unwrap_or(0)),
            );
        }
    }

    let mut findings =
        Family::new("fabcheck_findings", "Findings of the audit by severity, waived ones apart.", &["severity"]);
    for s in Severity::ALL {
        findings.set(&[s.as_str()], Value::Int(r.summary.count(s) as u64));
    }
    let mut incidents = Family::new(
        "fabcheck_incidents",
        "Root causes found, by the worst severity among the findings each explains, waived ones apart.",
        &["severity"],
    );
    for s in Severity::ALL {
        let n = r.incidents.iter().filter(|i| i.severity == s && !i.waived).count();
        incidents.set(&[s.as_str()], Value::Int(n as u64));
    }
    let mut waived =
        Family::new("fabcheck_findings_waived", "Findings a waiver accepts (they do not fail the run).", &[]);
    waived.set(&[], Value::Int(r.summary.waived as u64));
    let mut by_code =
        Family::new("fabcheck_findings_by_code", "Findings of the audit by code and severity.", &["code", "severity"]);
    let mut counts: BTreeMap<(&str, &str), u64> = BTreeMap::new();
    for f in r.findings.iter().filter(|f| f.waived.is_none()) {
        *counts.entry((&f.code, f.severity.as_str())).or_default() += 1;
    }
    for ((code, severity), n) in counts {
        by_code.set(&[code, severity], Value::Int(n));
    }

    let mut verdict = Family::new(
        "fabcheck_verdict",
        "1 for the verdict of the audit (pass, warn, fail), 0 for the others.",
        &["verdict"],
    );
    for v in [Verdict::Pass, Verdict::Warn, Verdict::Fail] {
        verdict.set(&[v.as_str()], Value::Int(u64::from(v == r.verdict)));
    }

    let mut peak = Family::new(
        "fabcheck_nccl_busbw_bytes_per_second",
        "nccl-tests bus bandwidth at the largest message size, in bytes per second.",
        BENCH_LABELS,
    );
    let mut avg = Family::new(
        "fabcheck_nccl_avg_busbw_bytes_per_second",
        "nccl-tests average bus bandwidth over all message sizes, in bytes per second.",
        BENCH_LABELS,
    );
    for b in &r.benchmarks {
        let (hosts, round, scope) = (b.hosts.join("+"), bench_round(&b.label), bench_scope(&b.label));
        let labels = [hosts.as_str(), round, scope, &b.test];
        // GB/s as nccl-tests prints them (10^9 bytes), as whole bytes per second.
        let bytes = |gbs: f64| Value::Int((gbs * 1e9).round() as u64);
        if let Some(v) = view::peak(b).filter(|v| v.is_finite()) {
            peak.set(&labels, bytes(v));
        }
        if let Some(v) = view::avg(b).filter(|v| v.is_finite()) {
            avg.set(&labels, bytes(v));
        }
    }

    // Always present, 0 when no switch was audited: "no paths" is an answer a dashboard can show.
    let mut paths =
        Family::new("fabcheck_paths", "GPU paths checked hop by hop (half-paths host NIC to leaf to spine).", &[]);
    paths.set(&[], Value::Int(view::paths_total(r) as u64));
    let mut paths_failing = Family::new("fabcheck_paths_failing", "GPU paths with at least one failing hop.", &[]);
    paths_failing.set(&[], Value::Int(view::paths_failing(r) as u64));

    let mut all = vec![
        duration,
        timestamp,
        value,
        delta,
        rate,
        up,
        per_device,
        findings,
        incidents,
        waived,
        by_code,
        avg,
        peak,
        paths,
        paths_failing,
        verdict,
    ];
    if let Some(changes) = &r.since_last_run {
        all.extend(since_last_run(r, changes, &exported));
    }
    all.retain(|f| !f.series.is_empty());
    all.iter_mut().for_each(Family::sort);
    all.sort_by_key(|f| f.name);
    all
}

/// What changed since the run `--state` kept: findings new and fixed by severity, changed
/// configuration values per device (0 on every other device compared), counter growth per
/// second between the two runs.
fn since_last_run(r: &AuditResult, c: &fabcheck_model::Changes, exported: &dyn Fn(&str) -> bool) -> Vec<Family> {
    let by_severity = |name, help, list: &[fabcheck_model::Finding]| {
        let mut family = Family::new(name, help, &["severity"]);
        for s in Severity::ALL {
            let n = list.iter().filter(|f| f.severity == s).count();
            family.set(&[s.as_str()], Value::Int(n as u64));
        }
        family
    };
    let new = by_severity(
        "fabcheck_findings_new",
        "Findings this run has and the run kept in --state did not.",
        &c.new_findings,
    );
    let fixed = by_severity(
        "fabcheck_findings_fixed",
        "Findings the run kept in --state had and this run does not.",
        &c.fixed_findings,
    );
    let mut drift = Family::new(
        "fabcheck_config_changes",
        "Configuration values of the device changed since the run kept in --state.",
        &["device"],
    );
    let mut changed: BTreeMap<&str, u64> = BTreeMap::new();
    for name in r.config.devices.keys().filter(|d| !c.devices_not_compared.contains(d) && !c.devices_added.contains(d))
    {
        changed.insert(name, 0);
    }
    for d in &c.drift {
        *changed.entry(&d.device).or_default() += 1;
    }
    for (device, n) in changed {
        drift.set(&[device], Value::Int(n));
    }
    let mut rate = Family::new(
        "fabcheck_port_stat_increase_since_last_run_per_second",
        "Increase of the port statistic per second between the run kept in --state and this one.",
        COUNTER_LABELS,
    );
    for g in c.rates.iter().filter(|g| exported(&g.counter)) {
        if let Some(per_s) = g.per_second {
            rate.set(&[&g.device, &g.port, &g.counter], Value::Float(per_s));
        }
    }
    vec![new, fixed, drift, rate]
}

/// The pairwise round of a run labelled `pair gpu001+gpu002 (round 2)`, or empty.
fn bench_round(label: &str) -> &str {
    label.rsplit_once("(round ").and_then(|(_, r)| r.strip_suffix(')')).unwrap_or("")
}

/// What a run covered, from its label: `all hosts`, `pair A+B (round 1)`, `intra-node: HOST`,
/// a bisection's halves and pairs (`bisection 2: ...`, `pair A+B (bisection check)`).
fn bench_scope(label: &str) -> &'static str {
    if label.contains("bisection") {
        return "bisect";
    }
    match label.split([' ', ':']).next().unwrap_or("") {
        "all" => "all",
        "pair" => "pair",
        "intra-node" => "intra_node",
        _ => "other",
    }
}

/// Writes the families in the text exposition format (0.0.4), as prometheus-client's
/// `prometheus_text::encode` writes gauges, byte for byte (a test holds the two together): a
/// `# HELP` and a `# TYPE` line per family, then a line per series, the run's labels
/// (`--metrics-label`) first. Label values escape backslashes, `"` and line feeds, help text
/// backslashes and line feeds; integers are written whole, floats in their shortest form (`dtoa`, as
/// prometheus-client), `NaN`, `+Inf` and `-Inf` as the format spells them.
///
/// Written here rather than through prometheus-client's registry, whose encoders cost about 2,300
/// instructions a line, 5% of a 100-host lab audit (22,000 lines, three per counter); this takes
/// about 800. The text goes out a block at a time.
fn encode(families: &[Family], run_labels: &[(&str, &str)], out: &mut dyn std::io::Write) -> std::io::Result<()> {
    const BLOCK: usize = 64 * 1024;
    let mut text = Vec::with_capacity(BLOCK + 1024);
    for family in families {
        text.extend_from_slice(b"# HELP ");
        text.extend_from_slice(family.name.as_bytes());
        text.push(b' ');
        escaped(&mut text, family.help, false);
        text.extend_from_slice(b"\n# TYPE ");
        text.extend_from_slice(family.name.as_bytes());
        text.extend_from_slice(b" gauge\n");
        for (values, value) in &family.series {
            let own = family.labels.iter().copied().zip(values.iter().map(|v| &**v));
            sample(&mut text, family.name, run_labels.iter().copied().chain(own), *value);
            if text.len() >= BLOCK {
                out.write_all(&text)?;
                text.clear();
            }
        }
    }
    out.write_all(&text)
}

/// One series' line: `name{label="value",...} value`, without braces when it has no label.
fn sample<'a>(text: &mut Vec<u8>, name: &str, labels: impl Iterator<Item = (&'a str, &'a str)>, value: Value) {
    text.extend_from_slice(name.as_bytes());
    let mut labelled = false;
    for (name, value) in labels {
        text.push(if labelled { b',' } else { b'{' });
        labelled = true;
        text.extend_from_slice(name.as_bytes());
        text.extend_from_slice(b"=\"");
        escaped(text, value, true);
        text.push(b'"');
    }
    if labelled {
        text.push(b'}');
    }
    text.push(b' ');
    match value {
        Value::Int(v) => text.extend_from_slice(itoa::Buffer::new().format(v).as_bytes()),
        Value::Float(v) if v.is_finite() => text.extend_from_slice(dtoa::Buffer::new().format_finite(v).as_bytes()),
        Value::Float(v) if v.is_nan() => text.extend_from_slice(b"NaN"),
        Value::Float(v) => text.extend_from_slice(if v > 0.0 { b"+Inf" } else { b"-Inf" }),
    }
    text.push(b'\n');
}

/// `s` with backslashes and line feeds escaped, and double quotes too in a label value.
fn escaped(text: &mut Vec<u8>, s: &str, label_value: bool) {
    let mut last = 0;
    for (at, byte) in s.bytes().enumerate() {
        let escape: &[u8] = match byte {
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'"' if label_value => b"\\\"",
            _ => continue,
        };
        text.extend_from_slice(&s.as_bytes()[last..at]);
        text.extend_from_slice(escape);
        last = at + 1;
    }
    text.extend_from_slice(&s.as_bytes()[last..]);
}

#[cfg(test)]
mod tests;
