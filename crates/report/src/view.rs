//! The data the Markdown and HTML templates see.
//!
//! Both templates show the same things, so the decisions live here, in Rust, where they are
//! tested once: the wording of the verdict line, which counters are worth a row, how numbers are
//! written. The templates only lay the values out. Every optional value becomes a plain string (empty
//! when absent) because Tera 2 treats an undefined or null field as an error in most places.

use fabcheck_model::{AuditResult, CounterSample, Finding, Severity, Summary};
use serde::Serialize;

/// Above this many devices the Markdown report lists only devices that need attention: GitHub
/// refuses comments longer than 65,536 characters, and a table of a thousand healthy hosts buries
/// the three that matter. The HTML report always lists every device.
const COMPACT_DEVICES_ABOVE: usize = 50;

/// Everything a template renders.
#[derive(Debug, Serialize)]
pub(crate) struct View<'a> {
    pub fabcheck: &'a str,
    pub started: &'a str,
    pub duration: String,
    pub policy: &'a str,
    /// `pass`, `warn` or `fail`: CSS classes use it.
    pub verdict: &'static str,
    /// `PASS`, `WARN` or `FAIL`: what a reader sees first.
    pub verdict_label: String,
    /// The rest of the verdict line: "2 critical, 1 error on 3 hosts and 1 switch (1 unreachable)".
    pub headline: String,
    pub summary: &'a Summary,
    /// One entry per severity, worst first, zeros included.
    pub counts: Vec<Count>,
    /// Findings grouped by severity, worst first; severities without findings are left out.
    pub groups: Vec<Group<'a>>,
    pub devices: Vec<DeviceRow<'a>>,
    /// Too many devices for one table in a PR comment: list only those that need attention.
    pub compact_devices: bool,
    /// Devices that are reachable, parsed cleanly and have no findings.
    pub devices_clean: usize,
    /// Counters that moved, were reset or were named by a finding.
    pub counters: Vec<CounterRow<'a>>,
    /// Counters read but not shown because nothing happened to them.
    pub counters_quiet: usize,
    pub checks: &'a [String],
}

/// A severity and how many findings have it.
#[derive(Debug, Serialize)]
pub(crate) struct Count {
    pub severity: &'static str,
    pub count: usize,
}

/// The findings of one severity.
#[derive(Debug, Serialize)]
pub(crate) struct Group<'a> {
    pub severity: &'static str,
    pub title: &'static str,
    pub findings: Vec<FindingRow<'a>>,
}

/// One finding, with absent values as empty strings.
#[derive(Debug, Serialize)]
pub(crate) struct FindingRow<'a> {
    pub code: &'a str,
    pub severity: &'static str,
    pub device: &'a str,
    pub port: &'a str,
    pub path: &'a [String],
    pub expected: &'a str,
    pub actual: &'a str,
    pub message: &'a str,
    pub evidence: &'a [String],
    pub caused_by: &'a [String],
}

/// One device.
#[derive(Debug, Serialize)]
pub(crate) struct DeviceRow<'a> {
    pub name: &'a str,
    pub role: &'a str,
    pub address: &'a str,
    pub reachable: bool,
    pub nics: &'a [String],
    /// Worst severity, or empty.
    pub worst: &'static str,
    pub findings: usize,
    pub commands: usize,
    pub parse_issues: usize,
    /// Unreachable, with findings or with output that did not parse.
    pub attention: bool,
}

/// One counter, its numbers already formatted.
#[derive(Debug, Serialize)]
pub(crate) struct CounterRow<'a> {
    pub device: &'a str,
    pub port: &'a str,
    pub counter: &'a str,
    pub value: String,
    /// The increase, or `reset` when the counter went down.
    pub delta: String,
    /// Per second, or empty when unknown.
    pub rate: String,
    pub reset: bool,
    /// A counter finding on the same port names this counter.
    pub flagged: bool,
}

impl<'a> View<'a> {
    pub(crate) fn new(result: &'a AuditResult) -> View<'a> {
        let groups = Severity::ALL
            .into_iter()
            .map(|severity| Group {
                severity: severity.as_str(),
                title: title(severity),
                findings: result
                    .findings
                    .iter()
                    .filter(|f| f.severity == severity)
                    .map(FindingRow::new)
                    .collect(),
            })
            .filter(|g| !g.findings.is_empty())
            .collect();
        let counters: Vec<CounterRow> = result
            .counters
            .iter()
            .map(|c| CounterRow::new(c, &result.findings))
            .filter(CounterRow::worth_showing)
            .collect();
        View {
            fabcheck: &result.fabcheck,
            started: &result.started,
            duration: format!("{:.1} s", result.duration_s),
            policy: &result.policy,
            verdict: result.verdict.as_str(),
            verdict_label: result.verdict.as_str().to_uppercase(),
            headline: headline(&result.summary),
            summary: &result.summary,
            counts: Severity::ALL
                .into_iter()
                .map(|s| Count {
                    severity: s.as_str(),
                    count: result.summary.count(s),
                })
                .collect(),
            groups,
            devices: result.devices.iter().map(DeviceRow::new).collect(),
            compact_devices: result.devices.len() > COMPACT_DEVICES_ABOVE,
            devices_clean: result
                .devices
                .iter()
                .filter(|d| !DeviceRow::new(d).attention)
                .count(),
            counters_quiet: result.counters.len() - counters.len(),
            counters,
            checks: &result.checks,
        }
    }
}

impl<'a> FindingRow<'a> {
    fn new(f: &'a Finding) -> FindingRow<'a> {
        FindingRow {
            code: &f.code,
            severity: f.severity.as_str(),
            device: &f.device,
            port: f.port.as_deref().unwrap_or(""),
            path: &f.path,
            expected: &f.expected,
            actual: &f.actual,
            message: &f.message,
            evidence: &f.evidence,
            caused_by: &f.caused_by,
        }
    }
}

impl<'a> DeviceRow<'a> {
    fn new(d: &'a fabcheck_model::DeviceSummary) -> DeviceRow<'a> {
        DeviceRow {
            name: &d.name,
            role: &d.role,
            address: &d.address,
            reachable: d.reachable,
            nics: &d.nics,
            worst: d.worst.map_or("", Severity::as_str),
            findings: d.findings,
            commands: d.commands,
            parse_issues: d.parse_issues,
            attention: !d.reachable || d.findings > 0 || d.parse_issues > 0,
        }
    }
}

impl<'a> CounterRow<'a> {
    fn new(c: &'a CounterSample, findings: &[Finding]) -> CounterRow<'a> {
        CounterRow {
            device: &c.device,
            port: &c.port,
            counter: &c.counter,
            value: thousands(c.value),
            delta: c.delta.map_or_else(|| "reset".to_string(), thousands),
            rate: c.rate_per_s.map_or_else(String::new, rate),
            reset: c.delta.is_none(),
            flagged: findings.iter().any(|f| names_counter(f, c)),
        }
    }

    /// A counter that did not move is noise in a report about what went wrong; a cluster has
    /// thousands of them. Resets are shown because they hide whatever happened in the window.
    fn worth_showing(&self) -> bool {
        self.reset || self.flagged || self.delta != "0"
    }
}

/// Whether a finding is about this counter.
///
/// The model does not link a finding to the counter it judged, so this matches a `counter.*`
/// finding on the same device and port whose code, message, expected or actual value names the
/// counter.
fn names_counter(f: &Finding, c: &CounterSample) -> bool {
    f.category() == "counter"
        && f.device == c.device
        && f.port.as_deref() == Some(c.port.as_str())
        && (f.code.ends_with(&format!(".{}", c.counter))
            || [&f.message, &f.expected, &f.actual]
                .iter()
                .any(|s| s.contains(c.counter.as_str())))
}

/// The verdict line after the verdict itself, e.g. "2 critical, 1 error, 3 warnings on 3 hosts and
/// 1 switch (1 unreachable)". Zero counts are left out so the line stays short in a PR comment.
pub(crate) fn headline(s: &Summary) -> String {
    let counts: Vec<String> = Severity::ALL
        .into_iter()
        .filter(|&sev| s.count(sev) > 0)
        .map(|sev| {
            let n = s.count(sev);
            match sev {
                Severity::Error | Severity::Warning if n != 1 => format!("{n} {sev}s"),
                _ => format!("{n} {sev}"),
            }
        })
        .collect();
    let findings = if counts.is_empty() {
        "no findings".to_string()
    } else {
        counts.join(", ")
    };
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let devices = match (s.hosts, s.switches) {
        (h, 0) => plural(h, "host", "hosts"),
        (0, w) => plural(w, "switch", "switches"),
        (h, w) => format!(
            "{} and {}",
            plural(h, "host", "hosts"),
            plural(w, "switch", "switches")
        ),
    };
    let unreachable = if s.unreachable > 0 {
        format!(" ({} unreachable)", s.unreachable)
    } else {
        String::new()
    };
    format!("{findings} on {devices}{unreachable}")
}

fn title(s: Severity) -> &'static str {
    match s {
        Severity::Critical => "Critical",
        Severity::Error => "Error",
        Severity::Warning => "Warning",
        Severity::Info => "Info",
    }
}

/// `1234567` as `1,234,567`: counter values are long and read at a glance.
pub(crate) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// Rates keep two decimals below 100/s, where they matter, and none above.
fn rate(r: f64) -> String {
    if !r.is_finite() {
        String::new()
    } else if r.abs() >= 100.0 {
        thousands(r.round() as u64)
    } else {
        format!("{r:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture;

    #[test]
    fn headline_names_counts_devices_and_unreachable() {
        let r = fixture::audit_result();
        assert_eq!(
            headline(&r.summary),
            "2 critical, 2 errors, 3 warnings, 1 info on 3 hosts and 1 switch (1 unreachable)"
        );
        let clean = fixture::clean_result();
        assert_eq!(headline(&clean.summary), "no findings on 1 host");
    }

    #[test]
    fn quiet_counters_are_counted_not_shown() {
        let r = fixture::audit_result();
        let v = View::new(&r);
        let shown: Vec<&str> = v.counters.iter().map(|c| c.counter).collect();
        assert_eq!(
            shown,
            ["rx_prio3_pause", "out_of_buffer", "out_of_buffer"],
            "moved, reset, moved and flagged"
        );
        assert_eq!(v.counters_quiet, 3);
        assert!(v.counters[1].reset && v.counters[1].delta == "reset");
        assert!(v.counters[2].flagged);
        assert_eq!(v.counters[0].value, "5,000,000");
        assert_eq!(v.counters[0].rate, "20,000");
        assert_eq!(v.counters[2].rate, "25.38");
    }

    #[test]
    fn large_clusters_get_a_compact_device_list() {
        let mut r = fixture::audit_result();
        assert!(!View::new(&r).compact_devices);
        let healthy = r.devices[0].clone();
        for i in 0..60 {
            let mut d = healthy.clone();
            d.name = format!("gpu{:03}", 100 + i);
            d.findings = 0;
            d.worst = None;
            r.devices.push(d);
        }
        let v = View::new(&r);
        assert!(v.compact_devices);
        assert_eq!(v.devices_clean, 60);
        assert_eq!(v.devices.iter().filter(|d| d.attention).count(), 4);
    }

    #[test]
    fn thousands_separates_groups_of_three() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(u64::MAX), "18,446,744,073,709,551,615");
    }
}
