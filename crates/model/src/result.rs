use crate::{Finding, Severity};

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Process exit codes, shared by every subcommand (ripgrep's convention).
pub mod exit_codes {
    /// No finding at or above `--fail-on`.
    pub const CLEAN: i32 = 0;
    /// At least one finding at or above `--fail-on`.
    pub const FINDINGS: i32 = 1;
    /// The run itself could not be done: bad arguments, unreadable inventory or policy.
    pub const RUN_ERROR: i32 = 2;
}

/// The overall outcome of an audit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Nothing above `info`.
    Pass,
    /// Warnings, nothing worse.
    Warn,
    /// At least one error or critical finding.
    Fail,
}

impl Verdict {
    /// The verdict that a set of findings deserves.
    pub fn of(findings: &[Finding]) -> Verdict {
        match findings.iter().filter(|f| f.waived.is_none()).map(|f| f.severity).max() {
            Some(Severity::Critical | Severity::Error) => Verdict::Fail,
            Some(Severity::Warning) => Verdict::Warn,
            _ => Verdict::Pass,
        }
    }

    /// Lower-case name as in findings.json.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Warn => "warn",
            Verdict::Fail => "fail",
        }
    }
}

/// Counts shown at the top of every report.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// GPU hosts audited (reachable or not).
    pub hosts: usize,
    /// Switches audited.
    pub switches: usize,
    /// Devices that could not be reached or logged into.
    pub unreachable: usize,
    /// Findings by severity.
    pub critical: usize,
    /// Findings of severity `error`.
    pub error: usize,
    /// Findings of severity `warning`.
    pub warning: usize,
    /// Findings of severity `info`.
    pub info: usize,
    /// Findings a waiver accepts, counted apart from the four above.
    #[serde(default)]
    pub waived: usize,
}

impl Summary {
    /// Number of findings of one severity.
    pub fn count(&self, severity: Severity) -> usize {
        match severity {
            Severity::Critical => self.critical,
            Severity::Error => self.error,
            Severity::Warning => self.warning,
            Severity::Info => self.info,
        }
    }
}

/// One row of the per-device table in the reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct DeviceSummary {
    /// Inventory name.
    pub name: String,
    /// `host`, `leaf`, `spine`...
    pub role: String,
    /// Address fabcheck connected to (`10.0.0.1:22`, `local`).
    pub address: String,
    /// Whether every collector ran.
    pub reachable: bool,
    /// Interfaces or HCAs audited.
    pub nics: Vec<String>,
    /// Worst finding on this device, if any.
    pub worst: Option<Severity>,
    /// Number of findings on this device.
    pub findings: usize,
    /// GPUs as its `nvidia-smi topo -m` lists them (hosts; absent when not read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpus: Option<usize>,
    /// Commands run, and how many of them failed or could not be parsed completely.
    pub commands: usize,
    /// Commands whose output parsed only partly or not at all.
    pub parse_issues: usize,
    /// Those outputs, each with the lines that were not understood (empty when all were).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unread: Vec<OutputRead>,
}

/// How much of one command's output the facts stage understood (Batfish's parse status).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutputRead {
    /// Evidence file (`gpu01/mlnx_qos.ens1np0.txt`).
    pub evidence: String,
    /// The command that printed it.
    pub command: String,
    /// `complete`, `partial` or `failed`.
    pub status: ReadStatus,
    /// Why it failed (`failed`), or why only part of it arrived (`partial`: cut at
    /// `--max-output`, or cut short by a timeout or a lost connection).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Lines skipped (`partial`): number, text and why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<UnreadLine>,
}

/// How completely an output was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReadStatus {
    /// Every line understood.
    Complete,
    /// Read, with lines skipped.
    Partial,
    /// Not readable at all.
    Failed,
}

/// A line of an output that was not understood.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnreadLine {
    /// 1-based line number in the evidence file.
    pub line: usize,
    /// The line as printed (empty when the number is past the end).
    pub text: String,
    /// What the parser made of it.
    pub why: String,
}

/// One counter read twice, with its delta over the window (Prometheus and the reports show it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CounterSample {
    /// Inventory name.
    pub device: String,
    /// Interface or `hca/port`.
    pub port: String,
    /// Counter name as the device prints it (`rx_prio3_pause`).
    pub counter: String,
    /// Value at the second read.
    pub value: u64,
    /// Increase over the window; `None` when the counter went down (reset).
    pub delta: Option<u64>,
    /// Increase per second over the window; `None` when the window was zero or on reset.
    pub rate_per_s: Option<f64>,
}

/// An empty result: nothing audited, nothing found (a base for building one field by field).
impl Default for AuditResult {
    fn default() -> Self {
        AuditResult {
            fabcheck: String::new(),
            started: String::new(),
            duration_s: 0.0,
            policy: String::new(),
            verdict: Verdict::Pass,
            fail_on: default_fail_on(),
            metric_labels: BTreeMap::new(),
            metric_counters: None,
            summary: Summary::default(),
            findings: Vec::new(),
            devices: Vec::new(),
            counters: Vec::new(),
            checks: Vec::new(),
            paths: Vec::new(),
            paths_total: 0,
            benchmarks: Vec::new(),
            flows: Vec::new(),
            flows_total: 0,
            flows_failing: 0,
            job: None,
            since_last_run: None,
            config: crate::FabricConfig::default(),
            interrupted: false,
            incidents: Vec::new(),
            design_hint: None,
        }
    }
}

impl Incident {
    /// The incident of one root finding, before anything it explains is added.
    pub fn rooted_at(root: &Finding) -> Incident {
        Incident {
            id: root.base_id(),
            code: root.code.clone(),
            device: root.device.clone(),
            port: root.port.clone(),
            severity: root.severity,
            message: root.message.clone(),
            roots: vec![root.id.clone()],
            consequences: Vec::new(),
            kinds: BTreeMap::new(),
            devices: vec![root.device.clone()],
            evidence: root.evidence.clone(),
            waived: root.waived.is_some(),
            fixes: root.fix.iter().cloned().collect(),
        }
    }

    /// `2 paths, 20 flows, 1 benchmark`: what it broke, by kind, in that order; empty when the
    /// root explains nothing else.
    pub fn broke(&self) -> String {
        let parts: Vec<String> = ["paths", "counters", "flows", "benchmarks", "findings"]
            .into_iter()
            .filter_map(|kind| self.kinds.get(kind).map(|n| (kind, *n)))
            .map(|(kind, n)| match n {
                1 => format!("1 {}", kind.strip_suffix('s').unwrap_or(kind)),
                n => format!("{n} {kind}"),
            })
            .collect();
        parts.join(", ")
    }
}

/// `--fail-on`'s default, for results written before it was recorded.
fn default_fail_on() -> Severity {
    Severity::Error
}

/// Whether an inventory role (`fabcheck_role`) is a switch's: hosts and flow collectors are not.
pub fn is_switch_role(role: &str) -> bool {
    matches!(role, "leaf" | "spine" | "superspine")
}

/// Everything one audit produced: the input of every report format.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditResult {
    /// fabcheck version.
    pub fabcheck: String,
    /// RFC 3339 start time.
    pub started: String,
    /// Wall time of the run.
    pub duration_s: f64,
    /// Policy name.
    pub policy: String,
    /// Overall verdict.
    pub verdict: Verdict,
    /// The run's `--fail-on`: findings at or above it fail the run (exit 1) and its JUnit cases.
    #[serde(default = "default_fail_on")]
    pub fail_on: Severity,
    /// Labels every metric of the run carries (`--metrics-label cluster=NAME`), so that several
    /// clusters can share one textfile directory.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub metric_labels: BTreeMap<String, String>,
    /// The counters metrics.prom exports (the policy's `metrics.counters`); absent: all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric_counters: Option<Vec<String>>,
    /// Counts.
    pub summary: Summary,
    /// Every finding, sorted by severity (worst first), device, port, code.
    pub findings: Vec<Finding>,
    /// One row per device.
    pub devices: Vec<DeviceSummary>,
    /// Counter values and deltas.
    pub counters: Vec<CounterSample>,
    /// The check names that ran (JUnit test suites; a passing check still gets a testcase).
    #[serde(default)]
    pub checks: Vec<String>,
    /// GPU-to-GPU paths (as half-paths host NIC → leaf → spine), each hop marked; every failing
    /// path, and the passing ones too when there are few (see `paths_total`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<PathView>,
    /// How many paths there are in all.
    #[serde(default)]
    pub paths_total: usize,
    /// nccl-tests runs (`fabcheck bench`); empty for a plain audit.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub benchmarks: Vec<BenchRun>,
    /// The worst judged flows (`--flows`, `--capture`), those that broke a limit first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flows: Vec<FlowView>,
    /// How many data flows were judged.
    #[serde(default)]
    pub flows_total: usize,
    /// Of those, the flows that broke a limit.
    #[serde(default)]
    pub flows_failing: usize,
    /// The job the run was scoped to (`--nodelist`, `--limit`) or whose flows it judged: one
    /// verdict for it, and where to look first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job: Option<JobView>,
    /// What changed since the run kept in `--state`: findings new and fixed, configuration
    /// drift, counter rates; absent when there was no earlier run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since_last_run: Option<crate::Changes>,
    /// Every device's configuration values (flattened), written to `config.json` rather than
    /// here: they are large, and only comparisons read them.
    #[serde(skip)]
    pub config: crate::FabricConfig,
    /// The run was interrupted (SIGINT, SIGTERM) during its counter window, which then ended
    /// early: what was collected is judged, but the run is not the one asked for.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    /// The root causes, each with every finding it explains: every finding is in exactly one.
    /// Worst first, then the most findings.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub incidents: Vec<Incident>,
    /// Most ports fail one design check the same way: the fabric looks built to another design
    /// than the policy's. Said once, before the incidents; the findings are reported all the same.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub design_hint: Option<DesignHint>,
}

/// The fabric looks built to another design than the policy's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DesignHint {
    /// The hint in a sentence.
    pub message: String,
    /// Each widespread failure: `nic.pfc_mismatch on 8 of 8 host ports: PFC on priorities 3,4 (the policy: 3)`.
    pub widespread: Vec<String>,
    /// The reference designs the fabric matches (`--policy NAME`); empty when none does.
    pub matches: Vec<String>,
}

/// One root cause and what it broke: a finding nothing explains (findings of one code on one
/// hop are one root: an ECN threshold's Kmin and Kmax), and every finding whose preferred
/// explanation leads to it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Incident {
    /// The root's base id, `code@device:port`: the same incident's name in every run.
    pub id: String,
    /// The root findings' code.
    pub code: String,
    /// Where the root is.
    pub device: String,
    /// The root's port, when it is about one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<String>,
    /// The worst severity among its findings.
    pub severity: Severity,
    /// The (first) root finding's message.
    pub message: String,
    /// Ids of the root findings.
    pub roots: Vec<String>,
    /// Ids of the findings it explains, in the result's order.
    pub consequences: Vec<String>,
    /// How many consequences of each kind: `paths`, `counters`, `flows`, `benchmarks`, `findings`.
    pub kinds: BTreeMap<String, usize>,
    /// Every device it touches, the root's first.
    pub devices: Vec<String>,
    /// The root findings' evidence files.
    pub evidence: Vec<String>,
    /// What restores the policy at the root, one per distinct fix of its root findings: the
    /// commands to review and run, or what to inspect. Empty where fabcheck knows none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fixes: Vec<crate::Fix>,
    /// Whether every one of its findings is waived.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub waived: bool,
}

/// One flow as the report shows it; absent values were not measured (a sampled flow has no
/// completion times, a flow with no flow back no NAK count).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlowView {
    /// The sender: `gpu001:GPU0 (ens1np0)`, `gpu001:ens1np0`, or its address.
    pub from: String,
    /// The receiver, named the same way.
    pub to: String,
    /// `10.0.0.1:49152 → 10.0.0.2 qp 0x12`.
    pub flow: String,
    /// Packets seen (scaled by the sampling rate for a sampled flow).
    pub packets: u64,
    /// RDMA payload bytes.
    pub payload_bytes: Option<u64>,
    /// Payload throughput over the flow's life, in Gb/s.
    pub throughput_gbps: Option<f64>,
    /// NAKs of every kind the flow back carried.
    pub naks: Option<u64>,
    /// Data packets sent again (PSN going back).
    pub retransmits: Option<u64>,
    /// Packets marked CE.
    pub ce: u64,
    /// CNPs the receiver sent back.
    pub cnps_to_sender: Option<u64>,
    /// Message completion time, 99th percentile, in µs.
    pub fct_p99_us: Option<f64>,
    /// DSCP values of the flow's packets.
    pub dscp: Vec<u8>,
    /// The codes of the limits it broke.
    pub codes: Vec<String>,
}

/// A job's verdict: its hosts, GPUs and flows, and the findings on the hosts and the switch ports
/// its paths cross, the most implicated first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobView {
    /// How it was named: the Slurm node list, the `--limit` pattern, or `all hosts`.
    pub name: String,
    /// The worst of the findings on its hosts, its hops and its flows.
    pub verdict: Verdict,
    /// Its hosts, in inventory order.
    pub hosts: Vec<String>,
    /// GPUs on its hosts as `nvidia-smi topo -m` lists them; absent when no host's was read.
    pub gpus: Option<usize>,
    /// Switch ports its hosts' paths cross.
    pub hops: usize,
    /// Data flows judged.
    pub flows: usize,
    /// Of those, the flows that broke a limit.
    pub flows_failing: usize,
    /// What to look at first: the findings on its hosts and hops (worst first, then those on the
    /// paths of the most failing flows).
    pub causes: Vec<JobCause>,
    /// The sentence the report opens with.
    pub headline: String,
}

/// One finding on a job's host or hop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobCause {
    /// `device:port`, or the device.
    pub hop: String,
    /// The finding's code.
    pub code: String,
    /// The finding's severity.
    pub severity: Severity,
    /// The finding's actual value.
    pub actual: String,
    /// Flow findings whose path crosses it.
    pub flow_findings: usize,
    /// The consequences of its incident: what it explains (0 when it is no root).
    #[serde(default)]
    pub explains: usize,
}

/// One path and the state of each hop.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathView {
    /// The hops in order.
    pub hops: Vec<HopState>,
}

/// One hop of a path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HopState {
    /// `device:port`.
    pub hop: String,
    /// Whether it passed every check.
    pub ok: bool,
    /// Why not.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<String>,
}

/// One bus-bandwidth measurement.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BenchPoint {
    /// Message size in bytes.
    pub size_bytes: u64,
    /// Bus bandwidth in GB/s (the out-of-place figure, nccl-tests' yardstick).
    pub busbw_gbs: f64,
}

/// One nccl-tests run and what it showed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchRun {
    /// What the run was for: `all hosts`, `pair gpu001+gpu002 (round 1)`, `half 1 of 2`...
    pub label: String,
    /// `all_reduce_perf`...
    pub test: String,
    /// Hosts in the run.
    pub hosts: Vec<String>,
    /// The command line that launched it.
    pub command: String,
    /// Its output as saved, relative to the evidence directory (`_bench/...`): the whole of what
    /// the reports show only part of. Absent when nothing was saved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// Bus bandwidth by message size.
    pub rows: Vec<BenchPoint>,
    /// nccl-tests' `Avg bus bandwidth`.
    pub avg_busbw_gbs: Option<f64>,
    /// Bus bandwidth at the largest size.
    pub peak_busbw_gbs: Option<f64>,
    /// The floor it was judged against at the sizes the rule covers, in GB/s.
    pub expected_min_gbs: Option<f64>,
    /// Where that floor comes from (`policy`, `baseline 2026-11-29`, `reference: 400G port ≈ 45-50 GB/s`).
    pub expected_source: Option<String>,
    /// The saved baseline curve, when there is one.
    #[serde(default)]
    pub baseline: Vec<BenchPoint>,
    /// `IB`, `RoCE` or `Socket`, from NCCL_DEBUG.
    pub transport: Option<String>,
    /// HCAs NCCL used (`mlx5_0:1`).
    #[serde(default)]
    pub hcas: Vec<String>,
    /// GPUDirect RDMA in use.
    pub gdr: Option<bool>,
    /// Whether the run finished and passed its own checks.
    pub ok: bool,
    /// Wall time in seconds.
    pub duration_s: f64,
}

impl AuditResult {
    /// Sorts findings and derives the verdict and summary from them and the devices.
    pub fn finish(mut self) -> AuditResult {
        self.findings.sort_by(|a, b| {
            b.severity
                .cmp(&a.severity)
                .then_with(|| a.device.cmp(&b.device))
                .then_with(|| a.port.cmp(&b.port))
                .then_with(|| a.code.cmp(&b.code))
        });
        crate::assign_ids(&mut self.findings);
        self.verdict = Verdict::of(&self.findings);
        // A device's row counts every finding on it: its own checks', and the switch, path and
        // benchmark findings the fabric and correlate stages put on it.
        let mut per_device: std::collections::HashMap<&str, (usize, Option<Severity>)> =
            std::collections::HashMap::new();
        for f in &self.findings {
            let (count, worst) = per_device.entry(f.device.as_str()).or_default();
            *count += 1;
            if f.waived.is_none() {
                *worst = (*worst).max(Some(f.severity));
            }
        }
        for d in &mut self.devices {
            (d.findings, d.worst) = per_device.get(d.name.as_str()).copied().unwrap_or_default();
        }
        let mut s = Summary {
            hosts: self.devices.iter().filter(|d| d.role == "host").count(),
            switches: self.devices.iter().filter(|d| is_switch_role(&d.role)).count(),
            unreachable: self.devices.iter().filter(|d| !d.reachable).count(),
            ..Summary::default()
        };
        for f in &self.findings {
            if f.waived.is_some() {
                s.waived += 1;
                continue;
            }
            match f.severity {
                Severity::Critical => s.critical += 1,
                Severity::Error => s.error += 1,
                Severity::Warning => s.warning += 1,
                Severity::Info => s.info += 1,
            }
        }
        self.summary = s;
        self
    }

    /// Whether any finding is at or above `threshold` (the exit-code rule).
    pub fn fails_at(&self, threshold: Severity) -> bool {
        self.findings.iter().any(|f| f.severity >= threshold && f.waived.is_none())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdict_follows_the_worst_severity() {
        let f = |s| Finding::new("x.y", s, "h", "m");
        assert_eq!(Verdict::of(&[]), Verdict::Pass);
        assert_eq!(Verdict::of(&[f(Severity::Info)]), Verdict::Pass);
        assert_eq!(Verdict::of(&[f(Severity::Info), f(Severity::Warning)]), Verdict::Warn);
        assert_eq!(Verdict::of(&[f(Severity::Error)]), Verdict::Fail);
        assert_eq!(Verdict::of(&[f(Severity::Critical), f(Severity::Info)]), Verdict::Fail);
    }

    #[test]
    fn severity_names_round_trip() {
        for s in Severity::ALL {
            assert_eq!(Severity::from_name(s.as_str()), Some(s));
        }
        assert_eq!(Severity::from_name("fatal"), None);
    }
}
