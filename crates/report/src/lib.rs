//! The reports of a fabcheck run: one [`AuditResult`] in, six files out (and, for two runs compared, three more: [`write_diff`]).
//!
//! This crate is the only place that writes reports. It sees nothing but
//! [`fabcheck_model::AuditResult`] (findings, devices, counters, checks, paths, benchmarks,
//! summary, verdict), so every format tells the same story, and a report can be rebuilt from a
//! saved result without the cluster.
//!
//! | file            | reporter               | for                                                  |
//! |-----------------|------------------------|------------------------------------------------------|
//! | `findings.json` | [`JsonReporter`]       | tools: the stable contract of docs/findings-json.md  |
//! | `report.md`     | [`MarkdownReporter`]   | a pull-request comment or CI job summary              |
//! | `report.html`   | [`HtmlReporter`]       | a person, offline, at 3 a.m. (busbw charts, paths)    |
//! | `junit.xml`     | [`JunitReporter`]      | CI test-result views after a network change           |
//! | `metrics.prom`  | [`PrometheusReporter`] | node_exporter's textfile collector, from cron         |
//! | `config.json`   | [`ConfigReporter`]     | `--state` and `fabcheck diff`: configuration values   |
//!
//! Each format is one module implementing [`Reporter`]; [`write_all`] renders them all and
//! replaces the files atomically. The Markdown and HTML layouts are Tera templates in the
//! workspace's `templates/`, compiled into the binary, so the reports need no files at run time.
//!
//! # Example
//!
//! ```
//! use fabcheck_model::{AuditResult, Finding, Severity};
//! use fabcheck_report::{MarkdownReporter, Reporter};
//!
//! let result = AuditResult {
//!     fabcheck: "0.1.0".into(),
//!     started: "2025-03-14T02:59:26Z".into(),
//!     duration_s: 4.2,
//!     policy: "roce-lossless-prio3".into(),
//!     findings: vec![Finding::new("nic.mtu_mismatch", Severity::Error, "gpu01", "MTU is 1500")
//!         .port("eth2")
//!         .expected_actual("4200", "1500")],
//!     checks: vec!["nic".into()],
//!     ..AuditResult::default()
//! }
//! .finish();
//!
//! let md = String::from_utf8(MarkdownReporter.render(&result)?).unwrap();
//! assert!(md.starts_with("**FAIL** — 1 error on 0 hosts"));
//!
//! let dir = std::env::temp_dir().join(format!("fabcheck-report-doc-{}", std::process::id()));
//! let written = fabcheck_report::write_all(&result, &dir);
//! assert_eq!(written.files.len(), 6);
//! assert!(written.failed.is_empty());
//! # std::fs::remove_dir_all(&dir).unwrap();
//! # Ok::<(), fabcheck_report::ReportError>(())
//! ```
//!
//! # Wire formats
//!
//! `findings.json`, `junit.xml` and `metrics.prom` are read by programs; what follows is their
//! contract. Fields and series are only ever added.
//!
//! ## `findings.json`
//!
//! One JSON object, pretty-printed, keys in this order:
//!
//! - `fabcheck` (string): the fabcheck version.
//! - `started` (string): RFC 3339 start time.
//! - `verdict` (string): `pass` (nothing above `info`), `warn` (warnings, nothing worse) or
//!   `fail` (at least one `error` or `critical`).
//! - `summary` (object): `hosts`, `switches`, `unreachable`, `critical`, `error`, `warning`,
//!   `info`, all integers.
//! - `findings` (array, worst first, then by device, port and code), each with `id` (the same
//!   fault's name in every run: `code@device:port`, with a `#` discriminator where that names
//!   several), `code` (stable, dotted, lower case), `severity` (`critical` | `error` | `warning` | `info`), `device`,
//!   `port` (absent when the finding is about the whole device), `path` (hops `device:port`,
//!   absent when empty), `expected`, `actual`, `message`, `evidence` (snapshot files),
//!   `caused_by` (codes of the findings that explain this one), `explained_by` (their ids) and
//!   `diff` (a unified diff of the
//!   expected and actual normalized configuration of the finding's hop, the same on every finding
//!   of that hop; absent when there is none).
//! - `duration_s` (number): wall time of the run.
//! - `policy` (string): the policy name.
//! - `devices` (array): `name`, `role`, `address`, `reachable`, `nics`, `worst` (a severity or
//!   null), `findings`, `commands`, `parse_issues`.
//! - `counters` (array): `device`, `port`, `counter`, `value`, `delta` and `rate_per_s`; `delta`
//!   and `rate_per_s` are null when the counter went down (a reset) or the window was empty.
//! - `benchmarks` (array, absent when no benchmark ran): one nccl-tests run each, as
//!   [`fabcheck_model::BenchRun`] serializes it: `label`, `test`, `hosts`, `command`, `rows`
//!   (`size_bytes`, `busbw_gbs`), `avg_busbw_gbs`, `peak_busbw_gbs`, `expected_min_gbs`,
//!   `expected_source`, `baseline` (like `rows`), `transport`, `hcas`, `gdr`, `ok`, `duration_s`;
//!   unknown numbers and strings are null.
//!
//! ## `junit.xml`
//!
//! - The root `<testsuites name="fabcheck">` carries the run's duration as `time`.
//! - One `<testsuite>` per check, named after it (`ssh`, `collect`, `nic`, `host`, `ib`, `switch`,
//!   `counter`, ...), in the order of [`AuditResult::checks`]. A finding whose category (the first
//!   segment of its code) is not a listed check gets a suite of its own, after the listed ones,
//!   so no finding is missing from the XML. Each suite has the properties `policy`, `started` and
//!   `fabcheck`.
//! - One `<testcase>` per (check, device), for every device of [`AuditResult::devices`] (then any
//!   device named only by findings): `name` is the device, followed by the failing findings'
//!   codes in brackets when it fails (`gpu01 [nic.pfc_mismatch, nic.mtu_mismatch]`), `classname`
//!   the check. A check that passes still has its test cases, so CI can show what was verified.
//! - A test case **fails** (`<failure>`) when the device has findings of that check at or above
//!   the run's `--fail-on` ([`AuditResult::fail_on`], `error` by default), as the exit status
//!   does. The failure's `message` lists their codes (`nic.pfc_mismatch,
//!   nic.mtu_mismatch`), its `type` is the worst severity, and its text has one block per
//!   finding: severity, code, device, port, message, then a `hop` line (`device:port`) for `switch`
//!   and `path` findings, then `expected`, `actual`, `path`, `caused by` and `evidence` lines.
//! - After the checks' suites, an `incidents` suite (when there are findings): one case per root
//!   cause, named `CODE on DEVICE:PORT`, failing when its worst finding is at or above
//!   `--fail-on` and not waived, its failure's `message` the root's message and what it broke
//!   (`…; broke 2 paths, 16 flows`), its text the root's block then one line per consequence
//!   (`[severity] code on device:port`).
//! - A test case is **skipped** when the device was unreachable and has no finding in that check:
//!   nothing was verified, and the `ssh` suite carries the failure.
//! - Otherwise it **passes**. Findings below `--fail-on` never fail a test case; they are
//!   listed, in the same block format, in the case's `<system-out>`.
//! - Characters that XML 1.0 cannot carry (control characters, ANSI escapes) are stripped from
//!   every value; everything else is escaped by the XML writer.
//!
//! ## `metrics.prom`
//!
//! The classic Prometheus text format (0.0.4), for node_exporter's textfile collector. All metrics
//! are gauges, sorted by name; series are sorted by label values; each series occurs once.
//!
//! | metric | labels | value |
//! |---|---|---|
//! | `fabcheck_audit_duration_seconds` | | wall time of the run |
//! | `fabcheck_audit_timestamp_seconds` | | Unix start time (absent if `started` is not RFC 3339) |
//! | `fabcheck_device_findings` | `device`, `severity` | findings on the device per severity, all four for every device |
//! | `fabcheck_device_up` | `device`, `role` | 1 reachable, 0 not |
//! | `fabcheck_findings` | `severity` | findings per severity, all four always present |
//! | `fabcheck_findings_by_code` | `code`, `severity` | findings per code (only codes that occur) |
//! | `fabcheck_incidents` | `severity` | root causes by the worst severity of the findings each explains, all four always present |
//! | `fabcheck_findings_new`, `fabcheck_findings_fixed` | `severity` | with `--state`: findings new and fixed since the run kept, all four severities |
//! | `fabcheck_config_changes` | `device` | with `--state`: configuration values changed since, 0 on every other device compared |
//! | `fabcheck_port_stat_increase_since_last_run_per_second` | `device`, `port`, `counter` | with `--state`: a counter's growth per second between the two runs (only counters that grew) |
//! | `fabcheck_nccl_avg_busbw_bytes_per_second` | `hosts`, `round`, `scope`, `test` | nccl-tests' average bus bandwidth (absent when unknown) |
//! | `fabcheck_nccl_busbw_bytes_per_second` | `hosts`, `round`, `scope`, `test` | bus bandwidth at the largest message size (absent when unknown) |
//! | `fabcheck_paths` | | GPU paths checked hop by hop (0 when no switch was audited) |
//! | `fabcheck_paths_failing` | | GPU paths with at least one failing hop |
//! | `fabcheck_port_stat` | `device`, `port`, `counter` | NIC or switch port statistic at the second read |
//! | `fabcheck_port_stat_increase` | `device`, `port`, `counter` | increase over the window (absent on reset) |
//! | `fabcheck_port_stat_increase_per_second` | `device`, `port`, `counter` | increase per second (absent when unknown) |
//! | `fabcheck_verdict` | `verdict` | 1 for the run's verdict, 0 for the other two |
//!
//! Every counter that was read is exported, moving or not; the HTML and Markdown reports show only
//! the counters that moved, were reset or are named by a finding. Labels carry no free text (a
//! run's hosts are joined with `+`, its round and scope are labels of their own), so series stay
//! the same from run to run; `--metrics-label NAME=VALUE` adds labels to every series (a
//! `cluster`, so several clusters share one textfile directory). No metric name says `counter`
//! or ends in `_total` (gauges): `promtool check metrics` passes, which the integration tests check.
#![deny(missing_docs)]

mod chart;
mod config;
mod error;
mod html;
mod json;
mod junit;
mod markdown;
mod prometheus;
mod rfc3339;
mod run_comparison;
mod view;
mod write;

#[cfg(test)]
#[path = "../tests/fixture/mod.rs"]
mod fixture;

pub use config::ConfigReporter;
pub use error::ReportError;
pub use html::HtmlReporter;
pub use json::JsonReporter;
pub use junit::JunitReporter;
pub use markdown::MarkdownReporter;
pub use prometheus::PrometheusReporter;
pub use prometheus::RESERVED_LABELS;
pub use rfc3339::unix_seconds;
pub use run_comparison::{diff_junit, diff_markdown, failing, write_diff};
pub use write::{Written, write_all, write_atomic};

use fabcheck_model::AuditResult;

/// One report format.
///
/// Rendering is pure (no I/O, no clock): the same result always gives the same bytes, which is
/// what makes reports diffable and testable. Writing to disk is [`write_all`]'s job.
pub trait Reporter {
    /// The file this format is written to, e.g. `report.html`.
    fn file_name(&self) -> &'static str;

    /// Writes the file's contents for `result` to `out` as they are made, so that the largest
    /// reports never sit whole in memory.
    ///
    /// # Errors
    ///
    /// [`ReportError::Render`] naming the file, when a template or encoder fails (a bug in
    /// fabcheck, not something the user can fix) or `out` fails.
    fn write(&self, result: &AuditResult, out: &mut dyn std::io::Write) -> Result<(), ReportError>;

    /// The file's contents for `result`, in memory (one format to stdout, tests).
    ///
    /// # Errors
    ///
    /// As for [`Reporter::write`].
    fn render(&self, result: &AuditResult) -> Result<Vec<u8>, ReportError> {
        let mut out = Vec::new();
        self.write(result, &mut out)?;
        Ok(out)
    }
}

/// Every format, in the order [`write_all`] writes them: the machine-readable contract first.
///
/// Use it to render a single format by name (`fabcheck ... --format md` to stdout).
pub fn reporters() -> Vec<Box<dyn Reporter>> {
    vec![
        Box::new(JsonReporter),
        Box::new(ConfigReporter),
        Box::new(JunitReporter),
        Box::new(PrometheusReporter),
        Box::new(MarkdownReporter),
        Box::new(HtmlReporter),
    ]
}
