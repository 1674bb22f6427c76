//! What changed between two runs, as the reports show it: a section of report.md and
//! report.html when `--state` kept an earlier run, and the whole of `fabcheck diff`'s
//! `diff.md`, `diff.json` and `diff.junit.xml`.

use crate::ReportError;
use crate::markdown::{md_code, md_text};
use crate::view::{rate, thousands};
use crate::write::{Render, Written, write_set};
use fabcheck_model::{Changes, ConfigChange, CounterRate, Finding, Incident, Severity};
use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
use serde::Serialize;
use std::io::Write;
use std::path::Path;
use tera::{Context, Kwargs, State, Tera};

const PARTIAL: &str = include_str!("../../../templates/changes.md.tera");
const DIFF: &str = include_str!("../../../templates/diff.md.tera");

/// Rows of each table a report shows (new, fixed, drift, counters); the JSON has them all.
pub(crate) const ROWS: usize = 25;

/// The changes with each list cut to `rows` and values formatted.
#[derive(Debug, Serialize)]
pub(crate) struct ChangesView<'a> {
    pub before: &'a str,
    pub after: &'a str,
    /// `3 h 12 min`; empty when unknown.
    pub interval: String,
    pub empty: bool,
    pub new_count: usize,
    pub new: Vec<FindingRow<'a>>,
    pub new_more: usize,
    pub fixed_count: usize,
    pub fixed: Vec<FindingRow<'a>>,
    pub fixed_more: usize,
    pub drift_count: usize,
    pub drift_devices: usize,
    pub drift: Vec<DriftRow<'a>>,
    pub drift_more: usize,
    pub rates_count: usize,
    pub rates: Vec<RateRow<'a>>,
    pub rates_more: usize,
    pub added: &'a [String],
    pub added_more: usize,
    pub removed: &'a [String],
    pub removed_more: usize,
    pub not_compared: &'a [String],
    pub not_compared_more: usize,
    /// Root causes new and fixed, as `code on device:port`, each list cut to the rows shown.
    pub incidents_new: Vec<String>,
    pub incidents_new_count: usize,
    pub incidents_fixed: Vec<String>,
    pub incidents_fixed_count: usize,
}

/// A finding as the tables of changes show it. Every field is present, where a [`Finding`]
/// leaves out what it lacks (a finding about a whole device has no port): a template reading a
/// field that is absent fails, and with it the report.
#[derive(Debug, Serialize)]
pub(crate) struct FindingRow<'a> {
    pub severity: &'static str,
    pub device: &'a str,
    /// Empty when the finding is about the whole device.
    pub port: &'a str,
    pub code: &'a str,
    pub message: &'a str,
    pub waived: bool,
}

impl<'a> FindingRow<'a> {
    fn new(f: &'a Finding) -> FindingRow<'a> {
        FindingRow {
            severity: f.severity.as_str(),
            device: &f.device,
            port: f.port.as_deref().unwrap_or(""),
            code: &f.code,
            message: &f.message,
            waived: f.waived.is_some(),
        }
    }
}

#[derive(Debug, Serialize)]
pub(crate) struct DriftRow<'a> {
    pub device: &'a str,
    pub port: &'a str,
    pub setting: &'a str,
    pub before: &'a str,
    pub after: &'a str,
}

#[derive(Debug, Serialize)]
pub(crate) struct RateRow<'a> {
    pub device: &'a str,
    pub port: &'a str,
    pub counter: &'a str,
    pub increase: String,
    pub rate: String,
    pub unit: &'static str,
}

impl<'a> ChangesView<'a> {
    pub(crate) fn new(c: &'a Changes, rows: usize) -> ChangesView<'a> {
        let cut = |n: usize| n.saturating_sub(rows);
        let head = |list: &'a [String]| &list[..list.len().min(rows)];
        let mut drift_devices: Vec<&str> = c.drift.iter().map(|d| d.device.as_str()).collect();
        drift_devices.dedup();
        ChangesView {
            before: &c.before,
            after: &c.after,
            interval: c.seconds.map(interval).unwrap_or_default(),
            empty: c.is_empty(),
            new_count: c.new_findings.len(),
            new: c.new_findings.iter().take(rows).map(FindingRow::new).collect(),
            new_more: cut(c.new_findings.len()),
            fixed_count: c.fixed_findings.len(),
            fixed: c.fixed_findings.iter().take(rows).map(FindingRow::new).collect(),
            fixed_more: cut(c.fixed_findings.len()),
            drift_count: c.drift.len(),
            drift_devices: drift_devices.len(),
            drift: c.drift.iter().take(rows).map(DriftRow::new).collect(),
            drift_more: cut(c.drift.len()),
            rates_count: c.rates.len(),
            rates: c.rates.iter().take(rows).map(RateRow::new).collect(),
            rates_more: cut(c.rates.len()),
            added: head(&c.devices_added),
            added_more: cut(c.devices_added.len()),
            removed: head(&c.devices_removed),
            removed_more: cut(c.devices_removed.len()),
            not_compared: head(&c.devices_not_compared),
            not_compared_more: cut(c.devices_not_compared.len()),
            incidents_new: c.new_incidents.iter().take(rows).map(incident_line).collect(),
            incidents_new_count: c.new_incidents.len(),
            incidents_fixed: c.fixed_incidents.iter().take(rows).map(incident_line).collect(),
            incidents_fixed_count: c.fixed_incidents.len(),
        }
    }
}

impl ChangesView<'_> {
    /// Cuts each table to `rows`; `false` when none was longer.
    pub(crate) fn shrink_to(&mut self, rows: usize) -> bool {
        let longer = [self.new.len(), self.fixed.len(), self.drift.len(), self.rates.len()].iter().any(|n| *n > rows);
        self.new_more += self.new.len().saturating_sub(rows);
        self.new.truncate(rows);
        self.fixed_more += self.fixed.len().saturating_sub(rows);
        self.fixed.truncate(rows);
        self.drift_more += self.drift.len().saturating_sub(rows);
        self.drift.truncate(rows);
        self.rates_more += self.rates.len().saturating_sub(rows);
        self.rates.truncate(rows);
        longer
    }
}

impl<'a> DriftRow<'a> {
    fn new(d: &'a ConfigChange) -> DriftRow<'a> {
        DriftRow {
            device: &d.device,
            port: d.port.as_deref().unwrap_or(""),
            setting: &d.setting,
            before: d.before.as_deref().unwrap_or(""),
            after: d.after.as_deref().unwrap_or(""),
        }
    }
}

impl<'a> RateRow<'a> {
    fn new(r: &'a CounterRate) -> RateRow<'a> {
        let unit = fabcheck_model::counters::unit(&r.counter);
        RateRow {
            device: &r.device,
            port: &r.port,
            counter: &r.counter,
            increase: thousands(unit.count(r.increase)),
            rate: r.per_second.map(|p| rate(unit.rate(p))).unwrap_or_default(),
            unit: unit.name,
        }
    }
}

/// `nic.pfc_mismatch on gpu002:ens1np0 (critical)`.
fn incident_line(i: &Incident) -> String {
    let place = i.port.as_deref().map_or_else(|| i.device.clone(), |p| format!("{}:{p}", i.device));
    format!("{} on {place} ({})", i.code, i.severity)
}

/// `2 d 3 h`, `3 h 12 min`, `4 min 10 s`, `12 s`: the two largest units.
fn interval(seconds: f64) -> String {
    let s = seconds.round() as u64;
    let (d, h, m, s) = (s / 86_400, s % 86_400 / 3600, s % 3600 / 60, s % 60);
    match (d, h, m) {
        (0, 0, 0) => format!("{s} s"),
        (0, 0, _) => format!("{m} min {s} s"),
        (0, _, _) => format!("{h} h {m} min"),
        _ => format!("{d} d {h} h"),
    }
}

/// A Tera with the Markdown filters and the changes partial (as `changes.md`) registered.
pub(crate) fn markdown_tera() -> Result<Tera, tera::Error> {
    let mut tera = Tera::new();
    tera.register_filter("md", |s: &str, _: Kwargs, _: &State| md_text(s));
    tera.register_filter("code", |s: &str, _: Kwargs, _: &State| md_code(s));
    tera.add_raw_template("changes.md", PARTIAL)?;
    Ok(tera)
}

/// The new findings that fail a comparison: unwaived, at or above `fail_on`.
pub fn failing(changes: &Changes, fail_on: Severity) -> impl Iterator<Item = &Finding> {
    changes.new_findings.iter().filter(move |f| f.severity >= fail_on && f.waived.is_none())
}

/// `diff.md`: the verdict line (does the later run add findings at or above `fail_on`), then
/// the changes, within a pull-request comment's size.
pub fn diff_markdown(changes: &Changes, fail_on: Severity) -> Result<String, ReportError> {
    let err = |e| ReportError::render("diff.md", e);
    let mut tera = markdown_tera().map_err(err)?;
    tera.add_raw_template("diff.md", DIFF).map_err(err)?;
    let failing = failing(changes, fail_on).count();
    let headline = if failing > 0 {
        format!("{failing} new finding{} at or above {fail_on}", if failing == 1 { "" } else { "s" })
    } else {
        format!("no new finding at or above {fail_on}")
    };
    let mut rows = ROWS;
    loop {
        let mut context = Context::new();
        context.insert("c", &ChangesView::new(changes, rows));
        context.insert("verdict_label", if failing > 0 { "FAIL" } else { "PASS" });
        context.insert("headline", &headline);
        context.insert("fail_on", fail_on.as_str());
        let text = tera.render("diff.md", &context).map_err(err)?;
        if text.chars().count() <= crate::markdown::COMMENT_CHARS || rows <= 5 {
            return Ok(text);
        }
        rows /= 2;
    }
}

/// `diff.junit.xml`: one case per new finding (failing at or above `fail_on`, as the exit
/// status does), one per fixed finding and one per device whose configuration drifted (passing,
/// the changes in its output: a change is what a post-change run expects to see).
pub fn diff_junit(changes: &Changes, fail_on: Severity) -> Result<Vec<u8>, ReportError> {
    let mut report = Report::new("fabcheck diff");
    let name = |f: &Finding| match &f.port {
        Some(p) => format!("{} {}:{p}", f.code, f.device),
        None => format!("{} {}", f.code, f.device),
    };
    let mut new = TestSuite::new("new findings");
    for f in &changes.new_findings {
        let status = if f.severity >= fail_on && f.waived.is_none() {
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
            s.set_message(format!("{}: {}", f.severity, f.message));
            s.set_type(f.code.as_str());
            s
        } else {
            TestCaseStatus::success()
        };
        let mut case = TestCase::new(name(f), status);
        case.set_classname(f.device.as_str());
        case.set_system_out(format!("{} {}: {}", f.severity, f.code, f.message));
        new.add_test_case(case);
    }
    let mut fixed = TestSuite::new("fixed findings");
    for f in &changes.fixed_findings {
        let mut case = TestCase::new(name(f), TestCaseStatus::success());
        case.set_classname(f.device.as_str());
        case.set_system_out(format!("fixed: {} {}: {}", f.severity, f.code, f.message));
        fixed.add_test_case(case);
    }
    let mut drift = TestSuite::new("configuration drift");
    let mut by_device: std::collections::BTreeMap<&str, Vec<&ConfigChange>> = Default::default();
    for d in &changes.drift {
        by_device.entry(&d.device).or_default().push(d);
    }
    for (device, list) in by_device {
        let lines: Vec<String> = list
            .iter()
            .map(|d| {
                let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "(unset)".into());
                format!("{} {}: {} -> {}", d.place(), d.setting, show(&d.before), show(&d.after))
            })
            .collect();
        let mut case = TestCase::new(format!("{device}: {} values changed", list.len()), TestCaseStatus::success());
        case.set_classname(device);
        case.set_system_out(lines.join("\n"));
        drift.add_test_case(case);
    }
    report.add_test_suites([new, fixed, drift]);
    let mut out = Vec::new();
    report.serialize(&mut out).map_err(|e| ReportError::render("diff.junit.xml", e))?;
    Ok(out)
}

/// Writes `diff.md`, `diff.json` and `diff.junit.xml` into `dir`, each on its own and
/// atomically, as [`crate::write_all`] writes a run's reports.
pub fn write_diff(changes: &Changes, fail_on: Severity, dir: &Path) -> Written {
    let set: Vec<Render> = vec![
        (
            "diff.md",
            Box::new(move |out: &mut dyn Write| put("diff.md", out, diff_markdown(changes, fail_on)?.as_bytes())),
        ),
        (
            "diff.json",
            Box::new(move |out: &mut dyn Write| {
                serde_json::to_writer_pretty(out, changes).map_err(|e| ReportError::render("diff.json", e))
            }),
        ),
        (
            "diff.junit.xml",
            Box::new(move |out: &mut dyn Write| put("diff.junit.xml", out, &diff_junit(changes, fail_on)?)),
        ),
    ];
    write_set(dir, set)
}

/// Writes rendered bytes; an I/O error is kept by the writer and named by [`write_set`].
fn put(file: &'static str, out: &mut dyn Write, bytes: &[u8]) -> Result<(), ReportError> {
    out.write_all(bytes).map_err(|e| ReportError::render(file, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Reporter;
    use crate::fixture;

    #[test]
    fn the_audit_report_says_what_changed_since_the_last_run() {
        let mut r = fixture::audit_result();
        r.since_last_run = Some(fixture::changes());
        let md = String::from_utf8(crate::MarkdownReporter.render(&r).unwrap()).unwrap();
        assert!(md.contains(
            "### Since the last run\n\nSince the run of 2025-03-14T01:00:00Z (1 h 59 min earlier): **1 new finding**, 1 fixed, 2 configuration values changed on 2 devices.\n"
        ), "{md}");
        assert!(md.contains("Devices added: `gpu09`."), "{md}");
        assert!(md.contains("| gpu01 | `mlx5_0` | `mlnx_qos.pfc_enabled` | `[3]` | `[]` |\n"), "{md}");
        assert!(md.contains("| leaf1 |  | `hostname` | *unset* | `leaf\\|1` |\n"), "a pipe stays in its cell: {md}");
        assert!(md.contains("| gpu02 | `mlx5_0` | `out_of_buffer` | 1,523 | 0.21 | packets |\n"), "{md}");
        let html = String::from_utf8(crate::HtmlReporter.render(&r).unwrap()).unwrap();
        assert!(html.contains("<td><code>leaf|1</code></td>"), "{html}");
        assert!(html.contains("<h3>Fixed findings (1)</h3>"), "{html}");
        let prom = String::from_utf8(crate::PrometheusReporter.render(&r).unwrap()).unwrap();
        assert!(prom.contains("fabcheck_findings_new{severity=\"critical\"} 1\n"), "{prom}");
        assert!(prom.contains("fabcheck_findings_fixed{severity=\"warning\"} 1\n"), "{prom}");
        assert!(prom.contains(
            "fabcheck_port_stat_increase_since_last_run_per_second{device=\"gpu02\",port=\"mlx5_0\",counter=\"out_of_buffer\"} 0.2125\n"
        ), "{prom}");
    }

    #[test]
    fn the_diff_fails_on_new_findings_at_or_above_fail_on_only() {
        let c = fixture::changes();
        let md = diff_markdown(&c, Severity::Error).unwrap();
        assert!(md.starts_with("**FAIL** — 1 new finding at or above error\n"), "{md}");
        let xml = String::from_utf8(diff_junit(&c, Severity::Error).unwrap()).unwrap();
        assert_eq!(xml.matches("<failure").count(), 1, "{xml}");
        assert!(xml.contains("gpu01: 1 values changed"), "{xml}");
        let mut only_warnings = c.clone();
        only_warnings.new_findings.iter_mut().for_each(|f| f.severity = Severity::Warning);
        assert!(diff_markdown(&only_warnings, Severity::Error).unwrap().starts_with("**PASS** — no new finding"));
        assert!(!String::from_utf8(diff_junit(&only_warnings, Severity::Error).unwrap()).unwrap().contains("<failure"));
    }

    #[test]
    fn a_diff_of_a_whole_cluster_fits_a_pull_request_comment() {
        let mut c = fixture::changes();
        let one = c.drift[0].clone();
        c.drift = (0..100_000).map(|i| ConfigChange { device: format!("gpu{i:05}"), ..one.clone() }).collect();
        c.new_findings = (0..10_000).map(|_| c.new_findings[0].clone()).collect();
        let md = diff_markdown(&c, Severity::Error).unwrap();
        assert!(md.chars().count() <= crate::markdown::COMMENT_CHARS, "{}", md.chars().count());
        assert!(md.contains("and 99975 more values."), "{md}");
        let mut r = fixture::audit_result();
        r.since_last_run = Some(c);
        let report = String::from_utf8(crate::MarkdownReporter.render(&r).unwrap()).unwrap();
        assert!(report.chars().count() <= crate::markdown::COMMENT_CHARS);
    }
}
