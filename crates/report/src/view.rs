//! The data the Markdown and HTML templates see.
//!
//! Both templates show the same things, so the decisions live here, in Rust, where they are
//! tested once: the wording of the verdict line, which counters are worth a row, how numbers are
//! written. The templates only lay the values out. Every optional value becomes a plain string (empty
//! when absent) because Tera 2 treats an undefined or null field as an error in most places.

mod flows;
mod paths;

pub(crate) use paths::{failing as paths_failing, total as paths_total};

use crate::chart::{Chart, MAX_DOTS, truncate};
use fabcheck_model::{AuditResult, BenchRun, CounterSample, Finding, Severity, Summary};
use flows::{FlowRow, JobRow};
use paths::Paths;
use serde::Serialize;
use std::borrow::Cow;

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
    /// Half-paths and their hops, and the diff of each failing hop (no section when `total` is 0).
    pub paths: Paths<'a>,
    pub devices: Vec<DeviceRow<'a>>,
    /// Too many devices for one table in a PR comment: list only those that need attention.
    pub compact_devices: bool,
    /// Devices that are reachable, parsed cleanly and have no findings.
    pub devices_clean: usize,
    /// Outputs that were not understood completely, device by device, with the lines skipped.
    pub unread: Vec<UnreadRow<'a>>,
    /// Counters that moved, were reset or were named by a finding.
    pub counters: Vec<CounterRow<'a>>,
    /// Counters read but not shown because nothing happened to them.
    pub counters_quiet: usize,
    /// Rows of `counters`, `unread` and `devices` left out to fit the Markdown report (see
    /// [`View::shrink`]).
    pub counters_more: usize,
    pub unread_more: usize,
    pub devices_more: usize,
    pub checks: &'a [String],
    /// Every nccl-tests run, in the order they ran (the Markdown table; the HTML cards of the
    /// runs that are not pairs).
    pub benchmarks: Vec<BenchCard<'a>>,
    /// The pairs of pairwise isolation, one group per test: a table and one chart each.
    pub pairwise: Vec<PairwiseGroup<'a>>,
    /// Straggler findings that name the hosts of no run: shown at the top of the section.
    pub stragglers_unlinked: Vec<Straggler<'a>>,
    /// The job's verdict (`--nodelist`, `--limit`, or judged flows): empty or one.
    pub job: Vec<JobRow<'a>>,
    /// The worst judged flows; how many were judged and broke a limit.
    pub flows: Vec<FlowRow<'a>>,
    pub flows_total: usize,
    pub flows_failing: usize,
    /// What changed since the run `--state` kept (absent without one).
    pub changes: Option<crate::run_comparison::ChangesView<'a>>,
    /// The run was interrupted during its counter window.
    pub interrupted: bool,
    /// The root causes worth reading (a warning or worse, not waived), worst first.
    pub incidents: Vec<IncidentRow<'a>>,
    /// The fabric looks built to another design than the policy's: empty or one.
    pub design_hint: Vec<&'a fabcheck_model::DesignHint>,
}

/// One incident as the reports open with it.
#[derive(Debug, Serialize)]
pub(crate) struct IncidentRow<'a> {
    pub severity: &'static str,
    pub code: &'a str,
    /// `device:port`, or the device.
    pub place: String,
    /// Root findings of this code on this hop (an ECN threshold's Kmin and Kmax: 2).
    pub roots: usize,
    /// `2 paths, 16 flows, 1 benchmark`; empty when it broke nothing else.
    pub broke: String,
    pub message: &'a str,
    /// Every finding in it, the roots first.
    pub findings: usize,
    /// The commands that restore the policy at the root, to review and run.
    pub commands: Vec<&'a str>,
    /// What to inspect where no command restores it.
    pub inspect: Vec<&'a str>,
}

impl<'a> IncidentRow<'a> {
    fn all(result: &'a AuditResult) -> Vec<IncidentRow<'a>> {
        result
            .incidents
            .iter()
            .filter(|i| i.severity >= fabcheck_model::Severity::Warning && !i.waived)
            .map(|i| IncidentRow {
                severity: i.severity.as_str(),
                code: &i.code,
                place: i.port.as_deref().map_or_else(|| i.device.clone(), |p| format!("{}:{p}", i.device)),
                roots: i.roots.len(),
                broke: i.broke(),
                message: &i.message,
                findings: i.roots.len() + i.consequences.len(),
                commands: i.fixes.iter().flat_map(|f| f.commands.iter().map(String::as_str)).collect(),
                inspect: i.fixes.iter().map(|f| f.inspect.as_str()).filter(|s| !s.is_empty()).collect(),
            })
            .collect()
    }
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
    /// Findings of this severity (more than `findings` has rows when some are folded).
    pub count: usize,
    pub findings: Vec<FindingRow<'a>>,
    /// Rows left out to fit the Markdown report into a pull-request comment.
    pub more: usize,
}

/// One finding, with absent values as empty strings; or the `path.inconsistent` findings of one
/// hop folded into one row (`count` > 1, their paths in `paths`).
#[derive(Debug, Serialize)]
pub(crate) struct FindingRow<'a> {
    pub code: &'a str,
    pub severity: &'static str,
    pub device: &'a str,
    pub port: &'a str,
    pub path: &'a [String],
    pub expected: &'a str,
    pub actual: &'a str,
    pub message: Cow<'a, str>,
    pub evidence: Vec<&'a str>,
    pub caused_by: Vec<&'a str>,
    /// The `id` of the diff block of the finding's hop in report.html, or empty.
    pub diff: String,
    /// How many findings the row stands for.
    pub count: usize,
    /// The paths of folded findings, the first few.
    pub paths: Vec<&'a [String]>,
    /// Folded paths not listed.
    pub paths_more: usize,
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

/// One output not understood completely.
#[derive(Debug, Serialize)]
pub(crate) struct UnreadRow<'a> {
    pub device: &'a str,
    pub evidence: &'a str,
    pub command: &'a str,
    /// `partial` or `failed`.
    pub status: fabcheck_model::ReadStatus,
    /// Why the output failed or is incomplete; empty when only lines were skipped. Every field
    /// is always present: an absent key is an error in a Tera template.
    pub reason: &'a str,
    pub lines: &'a [fabcheck_model::UnreadLine],
}

/// One counter, its numbers already formatted.
#[derive(Debug, Serialize)]
pub(crate) struct CounterRow<'a> {
    pub device: &'a str,
    pub port: &'a str,
    pub counter: &'a str,
    /// In `unit` (perfquery's 4-byte words as bytes).
    pub value: String,
    /// The increase, or `reset` when the counter went down.
    pub delta: String,
    /// Per second, or empty when unknown.
    pub rate: String,
    /// What the numbers count: `bytes`, `packets`, `frames`...
    pub unit: &'static str,
    pub reset: bool,
    /// A counter finding on the same port names this counter.
    pub flagged: bool,
}

/// One nccl-tests run, its numbers formatted, absent values empty.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct BenchCard<'a> {
    pub label: &'a str,
    pub test: &'a str,
    pub hosts: &'a [String],
    /// A few hosts and a count of the rest, for a table cell.
    pub hosts_text: String,
    /// The launch command, cut at [`COMMAND_CHARS`] (it comes from the log when one is judged).
    pub command: String,
    /// The run's saved output under `evidence/`, or empty.
    pub output: &'a str,
    /// How many measurements the run has, and whether the chart draws only some of them.
    pub measured: usize,
    pub thinned: bool,
    /// `RoCE`, `IB`, `Socket` or empty.
    pub transport: &'a str,
    pub hcas: &'a [String],
    /// `on`, `off` or empty when NCCL did not say.
    pub gdr: &'static str,
    /// GB/s with two decimals, or empty.
    pub avg: String,
    pub peak: String,
    pub expected: String,
    pub expected_source: &'a str,
    /// `pass`, `fail`, or `none` when there was no floor to judge against: CSS classes use it.
    pub status: &'static str,
    /// `ok`, `below expected`, `failed`, `no floor`...
    pub verdict: &'static str,
    pub ok: bool,
    pub duration: String,
    /// Part of a pairwise isolation (the label starts with `pair`).
    pub pair: bool,
    /// `nccl.straggler` findings that name every host of this run.
    pub stragglers: Vec<Straggler<'a>>,
    /// The SVG chart (inline markup); empty for pairs, which share their group's chart.
    pub chart: String,
}

/// The pairs of one test in a pairwise isolation.
#[derive(Debug, Serialize)]
pub(crate) struct PairwiseGroup<'a> {
    pub test: &'a str,
    pub rows: Vec<BenchCard<'a>>,
    /// How many pairs are below their floor or failed.
    pub failing: usize,
    pub expected: String,
    pub expected_source: &'a str,
    /// The straggler findings of its pairs, each once.
    pub stragglers: Vec<Straggler<'a>>,
    /// Every pair's curve and the baseline, in one SVG.
    pub chart: String,
}

/// A straggler finding, next to the run that exposed it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Straggler<'a> {
    pub device: &'a str,
    pub severity: &'static str,
    pub message: &'a str,
}

impl<'a> View<'a> {
    pub(crate) fn new(result: &'a AuditResult) -> View<'a> {
        let paths = Paths::new(result);
        let groups = Severity::ALL
            .into_iter()
            .map(|severity| {
                let findings: Vec<&Finding> = result.findings.iter().filter(|f| f.severity == severity).collect();
                Group {
                    severity: severity.as_str(),
                    title: title(severity),
                    count: findings.len(),
                    findings: paths::finding_rows(&findings, result, &paths),
                    more: 0,
                }
            })
            .filter(|g| g.count > 0)
            .collect();
        // The counter findings by device and port, so that each counter looks at its own: a
        // cluster has a counter row per port and counter, and as many findings.
        let mut counter_findings: std::collections::HashMap<(&str, &str), Vec<&Finding>> =
            std::collections::HashMap::new();
        for f in result.findings.iter().filter(|f| f.category() == "counter") {
            if let Some(port) = f.port.as_deref() {
                counter_findings.entry((f.device.as_str(), port)).or_default().push(f);
            }
        }
        let counters: Vec<CounterRow> = result
            .counters
            .iter()
            .filter_map(|c| {
                let near = counter_findings.get(&(c.device.as_str(), c.port.as_str())).map_or(&[][..], Vec::as_slice);
                CounterRow::if_worth_showing(c, near)
            })
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
                .map(|s| Count { severity: s.as_str(), count: result.summary.count(s) })
                .collect(),
            groups,
            paths,
            devices: result.devices.iter().map(DeviceRow::new).collect(),
            compact_devices: result.devices.len() > COMPACT_DEVICES_ABOVE,
            devices_clean: result.devices.iter().filter(|d| !DeviceRow::new(d).attention).count(),
            unread: result
                .devices
                .iter()
                .flat_map(|d| {
                    d.unread.iter().map(move |output| UnreadRow {
                        device: &d.name,
                        evidence: &output.evidence,
                        command: &output.command,
                        status: output.status,
                        reason: output.error.as_deref().unwrap_or(""),
                        lines: &output.lines,
                    })
                })
                .collect(),
            counters_quiet: result.counters.len() - counters.len(),
            counters_more: 0,
            unread_more: 0,
            devices_more: 0,
            counters,
            checks: &result.checks,
            benchmarks: result.benchmarks.iter().map(|b| BenchCard::new(b, &result.findings)).collect(),
            pairwise: PairwiseGroup::all(result),
            stragglers_unlinked: stragglers(&result.findings)
                .filter(|f| !result.benchmarks.iter().any(|b| names_hosts(f, &b.hosts)))
                .map(Straggler::new)
                .collect(),
            job: JobRow::of(result),
            flows: result.flows.iter().map(FlowRow::new).collect(),
            flows_total: result.flows_total,
            flows_failing: result.flows_failing,
            changes: result
                .since_last_run
                .as_ref()
                .map(|c| crate::run_comparison::ChangesView::new(c, crate::run_comparison::ROWS)),
            interrupted: result.interrupted,
            incidents: IncidentRow::all(result),
            design_hint: result.design_hint.iter().collect(),
        }
    }
}

impl View<'_> {
    /// Table rows the Markdown report would have: each takes a few dozen characters at least.
    /// Right once [`View::leave_out_clean_devices`] has run (the HTML report keeps every device,
    /// so `new` cannot do it).
    pub(crate) fn rows(&self) -> usize {
        let findings: usize = self.groups.iter().map(|g| g.findings.len()).sum();
        let changes = self.changes.as_ref().map_or(0, |c| c.new.len() + c.fixed.len() + c.drift.len() + c.rates.len());
        self.counters.len() + self.unread.len() + self.flows.len() + findings + self.devices.len() + changes
    }

    /// Characters the Markdown report's counters table has at least: each row's cells, its
    /// separators and its two code spans' backticks (`templates/report.md.tera`), escaping aside.
    pub(crate) fn counter_chars_at_least(&self) -> usize {
        const SEPARATORS: usize = "| ".len() + 6 * " | ".len() + " |\n".len();
        let code_span = |s: &str| if s.is_empty() { 0 } else { s.chars().count() + "``".len() };
        let row = |c: &CounterRow| {
            SEPARATORS
                + c.device.chars().count()
                + code_span(c.port)
                + code_span(c.counter)
                + c.value.len()
                + c.delta.len()
                + c.rate.len()
                + c.unit.len()
        };
        self.counters.iter().map(row).sum()
    }

    /// Leaves out what a pull-request comment can do without, each time it is called, for a
    /// report `ratio` times as long as it may be: first the counters and unread outputs (kept
    /// to 20 rows), the flows and each table of changes since the last run (10); then the findings of each severity, cut in proportion
    /// (at least by half, down to 5 rows each); then the devices (the first 20 that need
    /// attention). `false` when nothing is left to leave out. The verdict, the job and the
    /// summary always stay; the HTML report and findings.json have everything.
    pub(crate) fn shrink(&mut self, ratio: f64) -> bool {
        const TABLE: usize = 20;
        const FINDINGS: usize = 5;
        let changes_cut = self.changes.as_mut().is_some_and(|c| c.shrink_to(10));
        if changes_cut || self.counters.len() > TABLE || self.unread.len() > TABLE || self.flows.len() > 10 {
            self.counters_more += self.counters.len().saturating_sub(TABLE);
            self.counters.truncate(TABLE);
            self.unread_more += self.unread.len().saturating_sub(TABLE);
            self.unread.truncate(TABLE);
            self.flows.truncate(10);
            return true;
        }
        let mut shrunk = false;
        for g in &mut self.groups {
            if g.findings.len() > FINDINGS {
                let proportional = (g.findings.len() as f64 * ratio.clamp(0.0, 0.5)) as usize;
                let keep = proportional.max(FINDINGS);
                g.more += g.findings.len() - keep;
                g.findings.truncate(keep);
                shrunk = true;
            }
        }
        if shrunk {
            return true;
        }
        // The devices that need attention, the first 20.
        self.compact_devices = true;
        self.leave_out_clean_devices();
        if self.devices.len() > TABLE {
            self.devices_more += self.devices.len() - TABLE;
            self.devices.truncate(TABLE);
            return true;
        }
        false
    }

    /// When `compact_devices`, keeps only the rows of devices that need attention: the Markdown
    /// report lists no others, and a thousand healthy rows put into its template only to be
    /// skipped there cost as much as the rest of the report.
    pub(crate) fn leave_out_clean_devices(&mut self) {
        if self.compact_devices {
            self.devices.retain(|d| d.attention);
        }
    }
}

/// The most of a launch command a report shows: a saved log's "command" is whatever line it
/// echoed, which may be any length; the whole is in the run's output.
const COMMAND_CHARS: usize = 2000;

/// Pairwise isolation labels its runs `pair gpu001+gpu002 (round 1)`.
fn is_pair(b: &BenchRun) -> bool {
    b.label.starts_with("pair ")
}

impl<'a> BenchCard<'a> {
    fn new(b: &'a BenchRun, findings: &'a [Finding]) -> BenchCard<'a> {
        let peak = peak(b);
        let floor = floor(b);
        let (status, verdict) = if !b.ok {
            ("fail", "failed")
        } else {
            match (peak, floor) {
                (Some(p), Some(min)) if p < min => ("fail", "below expected"),
                (Some(_), Some(_)) => ("pass", "ok"),
                (None, Some(_)) => ("fail", "no measurement"),
                (_, None) => ("none", "no floor"),
            }
        };
        let pair = is_pair(b);
        let chart = if pair {
            String::new()
        } else {
            Chart {
                title: format!("{}: {}", b.test, b.label),
                runs: vec![(b.label.as_str(), b.rows.as_slice())],
                baseline: &b.baseline,
                floor: floor.map(|min| (min, b.expected_source.as_deref().unwrap_or(""))),
            }
            .svg()
        };
        BenchCard {
            label: &b.label,
            test: &b.test,
            hosts: &b.hosts,
            hosts_text: hosts_text(&b.hosts),
            command: truncate(&b.command, COMMAND_CHARS),
            output: b.output.as_deref().unwrap_or(""),
            measured: b.rows.len(),
            thinned: b.rows.len() > MAX_DOTS,
            transport: b.transport.as_deref().unwrap_or(""),
            hcas: &b.hcas,
            gdr: match b.gdr {
                Some(true) => "on",
                Some(false) => "off",
                None => "",
            },
            avg: gbs(avg(b)),
            peak: gbs(peak),
            expected: gbs(floor),
            expected_source: b.expected_source.as_deref().unwrap_or(""),
            status,
            verdict,
            ok: b.ok,
            duration: format!("{:.1} s", b.duration_s),
            pair,
            stragglers: stragglers(findings).filter(|f| names_hosts(f, &b.hosts)).map(Straggler::new).collect(),
            chart,
        }
    }
}

impl<'a> PairwiseGroup<'a> {
    /// One group per test that has pairs, in the order the tests first ran.
    fn all(result: &'a AuditResult) -> Vec<PairwiseGroup<'a>> {
        let mut tests: Vec<&str> = Vec::new();
        for b in result.benchmarks.iter().filter(|b| is_pair(b)) {
            if !tests.contains(&b.test.as_str()) {
                tests.push(&b.test);
            }
        }
        tests
            .into_iter()
            .map(|test| {
                let runs: Vec<&BenchRun> = result.benchmarks.iter().filter(|b| is_pair(b) && b.test == test).collect();
                let with_floor = runs.iter().find(|b| floor(b).is_some());
                let floor_of = with_floor.and_then(|b| floor(b));
                let source = with_floor.and_then(|b| b.expected_source.as_deref()).unwrap_or("");
                let baseline = runs.iter().find(|b| !b.baseline.is_empty()).map_or(&[][..], |b| b.baseline.as_slice());
                let chart = Chart {
                    title: format!("{test}: pairwise isolation"),
                    runs: runs.iter().map(|b| (b.label.as_str(), b.rows.as_slice())).collect(),
                    baseline,
                    floor: floor_of.map(|min| (min, source)),
                }
                .svg();
                let rows: Vec<BenchCard> = runs.iter().map(|b| BenchCard::new(b, &result.findings)).collect();
                let mut found: Vec<Straggler> = Vec::new();
                for s in rows.iter().flat_map(|r| &r.stragglers) {
                    if !found.iter().any(|f| f.device == s.device && f.message == s.message) {
                        found.push(s.clone());
                    }
                }
                PairwiseGroup {
                    test,
                    stragglers: found,
                    failing: rows.iter().filter(|r| r.status == "fail").count(),
                    rows,
                    expected: gbs(floor_of),
                    expected_source: source,
                    chart,
                }
            })
            .collect()
    }
}

impl<'a> Straggler<'a> {
    fn new(f: &'a Finding) -> Straggler<'a> {
        Straggler { device: &f.device, severity: f.severity.as_str(), message: &f.message }
    }
}

fn stragglers(findings: &[Finding]) -> impl Iterator<Item = &Finding> {
    findings.iter().filter(|f| f.code == "nccl.straggler")
}

/// Whether a finding is about a run: a pair that includes the finding's device (a straggler is
/// shown next to every pair it was in), or a run whose every host is in the finding's path
/// (`host` or `host:port`). Words of the message are not read: any word ("s" in "GB/s") could be
/// a host name.
fn names_hosts(f: &Finding, hosts: &[String]) -> bool {
    let in_path: Vec<&str> = f.path.iter().map(|hop| hop.split(':').next().unwrap_or(hop)).collect();
    !hosts.is_empty()
        && ((hosts.len() <= 2 && hosts.contains(&f.device)) || hosts.iter().all(|h| in_path.contains(&h.as_str())))
}

/// The bandwidth at the largest size: the model's figure, or the last row's when it has none.
pub(crate) fn peak(b: &BenchRun) -> Option<f64> {
    b.peak_busbw_gbs
        .or_else(|| b.rows.iter().max_by_key(|p| p.size_bytes).map(|p| p.busbw_gbs))
        .filter(|v| v.is_finite())
}

/// nccl-tests' average bus bandwidth, when it printed a number.
pub(crate) fn avg(b: &BenchRun) -> Option<f64> {
    b.avg_busbw_gbs.filter(|v| v.is_finite())
}

fn floor(b: &BenchRun) -> Option<f64> {
    b.expected_min_gbs.filter(|v| v.is_finite())
}

/// GB/s with two decimals, or empty.
fn gbs(v: Option<f64>) -> String {
    v.map_or_else(String::new, |v| format!("{v:.2}"))
}

/// `gpu01, gpu02` or, for a large run, `gpu001, gpu002, gpu003, gpu004 and 60 more`.
fn hosts_text(hosts: &[String]) -> String {
    const SHOWN: usize = 4;
    if hosts.len() <= SHOWN + 1 {
        hosts.join(", ")
    } else {
        format!("{} and {} more", hosts[..SHOWN].join(", "), hosts.len() - SHOWN)
    }
}

impl<'a> FindingRow<'a> {
    /// `diff` is the anchor of its hop's diff block, or empty.
    fn new(f: &'a Finding, diff: String) -> FindingRow<'a> {
        FindingRow {
            code: &f.code,
            severity: f.severity.as_str(),
            device: &f.device,
            port: f.port.as_deref().unwrap_or(""),
            path: &f.path,
            expected: &f.expected,
            actual: &f.actual,
            // A waived finding says so first: it is shown, and it does not count.
            message: match &f.waived {
                Some(why) => Cow::Owned(format!("WAIVED: {why}. {}", f.message)),
                None => Cow::Borrowed(&f.message),
            },
            evidence: f.evidence.iter().map(String::as_str).collect(),
            caused_by: f.caused_by.iter().map(String::as_str).collect(),
            diff,
            count: 1,
            paths: Vec::new(),
            paths_more: 0,
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
    /// The row of `c`, if it is worth showing; `findings`: the counter findings on its device and
    /// port. A counter that did not move is noise in a report about what went wrong (a cluster has
    /// thousands of them), so it is left out before any number is formatted; resets are shown
    /// because they hide whatever happened in the window, and flagged counters whatever they did.
    fn if_worth_showing(c: &'a CounterSample, findings: &[&Finding]) -> Option<CounterRow<'a>> {
        let flagged = findings.iter().any(|f| names_counter(f, c));
        if c.delta == Some(0) && !flagged {
            return None;
        }
        let unit = fabcheck_model::counters::unit(&c.counter);
        Some(CounterRow {
            device: &c.device,
            port: &c.port,
            counter: &c.counter,
            value: thousands(unit.count(c.value)),
            delta: c.delta.map_or_else(|| "reset".to_string(), |d| thousands(unit.count(d))),
            rate: c.rate_per_s.map_or_else(String::new, |r| rate(unit.rate(r))),
            unit: unit.name,
            reset: c.delta.is_none(),
            flagged,
        })
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
            || [&f.message, &f.expected, &f.actual].iter().any(|s| s.contains(c.counter.as_str())))
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
    let findings = if counts.is_empty() { "no findings".to_string() } else { counts.join(", ") };
    let plural = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let devices = match (s.hosts, s.switches) {
        (h, 0) => plural(h, "host", "hosts"),
        (0, w) => plural(w, "switch", "switches"),
        (h, w) => format!("{} and {}", plural(h, "host", "hosts"), plural(w, "switch", "switches")),
    };
    let unreachable = if s.unreachable > 0 { format!(" ({} unreachable)", s.unreachable) } else { String::new() };
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

/// `1234567` as `1,234,567`: counter values are long and read at a glance. The digits come
/// from `itoa` and are grouped by slices of three (a report formats thousands of counters, and
/// `to_string` and a character at a time cost several times the rest of a row).
pub(crate) fn thousands(n: u64) -> String {
    let mut buffer = itoa::Buffer::new();
    let digits = buffer.format(n);
    // The first group is what the groups of three leave: one to three digits.
    let (first, rest) = digits.split_at((digits.len() - 1) % 3 + 1);
    let mut out = String::with_capacity(digits.len() + rest.len() / 3);
    out.push_str(first);
    for at in (0..rest.len()).step_by(3) {
        out.push(',');
        out.push_str(&rest[at..at + 3]);
    }
    out
}

/// Rates keep two decimals below 100/s, where they matter, and none above.
pub(crate) fn rate(r: f64) -> String {
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
        assert_eq!(shown, ["rx_prio3_pause", "out_of_buffer", "out_of_buffer"], "moved, reset, moved and flagged");
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
        let mut v = View::new(&r);
        assert!(v.compact_devices);
        assert_eq!(v.devices_clean, 60);
        assert_eq!(v.devices.len(), 64, "the HTML report lists every device");
        v.leave_out_clean_devices();
        let listed: Vec<&str> = v.devices.iter().map(|d| d.name).collect();
        assert_eq!(listed.len(), 4, "{listed:?}");
        assert!(v.devices.iter().all(|d| d.attention));
    }

    #[test]
    fn benchmark_runs_are_judged_and_pairs_grouped() {
        let r = fixture::bench_result();
        let v = View::new(&r);
        assert_eq!(v.benchmarks.len(), 5);
        let all = &v.benchmarks[0];
        assert!(!all.pair && !all.chart.is_empty());
        assert_eq!((all.status, all.verdict), ("fail", "below expected"));
        assert_eq!((all.peak.as_str(), all.avg.as_str()), ("24.50", "11.87"));
        assert_eq!(all.expected, "40.00");
        assert_eq!(all.gdr, "on");
        assert!(all.stragglers.is_empty(), "the finding does not name gpu01");
        assert!(v.benchmarks[1..].iter().all(|b| b.pair && b.chart.is_empty()));

        assert_eq!(v.pairwise.len(), 1);
        let g = &v.pairwise[0];
        assert_eq!((g.test, g.rows.len(), g.failing), ("all_reduce_perf", 4, 2));
        assert_eq!(g.stragglers.len(), 1, "once, though two pairs name it");
        let flagged: Vec<&str> = g.rows.iter().filter(|b| !b.stragglers.is_empty()).map(|b| b.label).collect();
        assert_eq!(flagged, ["pair gpu04+gpu05 (round 1)", "pair gpu01+gpu05 (round 2)"]);
        assert!(v.stragglers_unlinked.is_empty());
    }

    #[test]
    fn verdicts_without_floor_or_result() {
        let mut b = fixture::bench_run("x", &["a"], 45.0);
        let card = |b: &BenchRun| {
            let c = BenchCard::new(b, &[]);
            (c.status, c.verdict)
        };
        assert_eq!(card(&b), ("pass", "ok"));
        b.expected_min_gbs = Some(f64::NAN);
        assert_eq!(card(&b), ("none", "no floor"));
        b.expected_min_gbs = Some(40.0);
        b.peak_busbw_gbs = None;
        assert_eq!(peak(&b), Some(45.0), "the largest size's row");
        b.rows.clear();
        assert_eq!(peak(&b), None);
        assert_eq!(card(&b), ("fail", "no measurement"));
        b.ok = false;
        assert_eq!(card(&b), ("fail", "failed"));
    }

    #[test]
    fn a_straggler_goes_with_the_runs_whose_hosts_it_names() {
        let f = |message: &str, path: &[&str]| {
            let mut f = Finding::new("nccl.straggler", Severity::Error, "gpu05", message);
            f.path = path.iter().map(|p| p.to_string()).collect();
            f
        };
        let hosts = |h: &[&str]| h.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let pair = hosts(&["gpu04", "gpu05"]);
        assert!(names_hosts(&f("slow", &["gpu05", "gpu04"]), &pair));
        assert!(names_hosts(&f("slow", &["gpu04:mlx5_0", "leaf1:Ethernet8"]), &pair));
        assert!(names_hosts(&f("slow", &[]), &pair), "the pair includes the finding's device");
        assert!(!names_hosts(&f("slow", &[]), &hosts(&["gpu04", "gpu05", "gpu06"])), "a whole run needs the path");
        let others = hosts(&["gpu01", "gpu02"]);
        assert!(!names_hosts(&f("slow with gpu01+gpu02", &[]), &others), "the message is not read");
        assert!(!names_hosts(&f("slow", &["gpu010"]), &others));
        assert!(!names_hosts(&f("gpu05", &[]), &[]));
        assert!(names_hosts(&f("slow", &["gpu01", "gpu02"]), &others));
    }

    #[test]
    fn thousands_separates_groups_of_three() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(7), "7");
        assert_eq!(thousands(12_345), "12,345");
        assert_eq!(thousands(123_456), "123,456");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(u64::MAX), "18,446,744,073,709,551,615");
    }
}
