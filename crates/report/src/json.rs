//! `findings.json`: the machine-readable contract of design.md.

use crate::{ReportError, Reporter};
use fabcheck_model::{
    AuditResult, BenchRun, Changes, CounterSample, DesignHint, DeviceSummary, Finding, FlowView, Incident, JobView,
    PathView, Severity, Summary, Verdict,
};
use serde::Serialize;

/// Writes `findings.json`, pretty-printed.
///
/// The keys come in the order of design.md (`fabcheck`, `started`, `verdict`, `summary`,
/// `findings`) so that a human reading the file, or a `head` in a CI log, sees the verdict first.
/// `duration_s`, `policy`, `devices`, `counters`, after a benchmark `benchmarks`, when switches
/// were audited `paths` and `paths_total`, and for a job or judged flows `job`, `flows`,
/// `flows_total` and `flows_failing`, then `fail_on`, with `--state` `since_last_run`, `interrupted`,
/// `incidents` and `design_hint` follow;
/// consumers must ignore keys they do not know, as new ones are only ever added after these.
#[derive(Debug, Clone, Copy, Default)]
pub struct JsonReporter;

/// The file as serialized: `AuditResult` borrowed, in contract order.
#[derive(Serialize)]
struct Wire<'a> {
    fabcheck: &'a str,
    started: &'a str,
    verdict: Verdict,
    summary: &'a Summary,
    findings: &'a [Finding],
    duration_s: f64,
    policy: &'a str,
    devices: &'a [DeviceSummary],
    counters: &'a [CounterSample],
    /// Absent for a plain audit, as in the model's own serialization.
    #[serde(skip_serializing_if = "<[BenchRun]>::is_empty")]
    benchmarks: &'a [BenchRun],
    /// Absent when no switch was audited.
    #[serde(skip_serializing_if = "<[PathView]>::is_empty")]
    paths: &'a [PathView],
    /// How many paths there are (`paths` lists them all up to 256, else the failing ones).
    #[serde(skip_serializing_if = "is_zero")]
    paths_total: usize,
    /// The job's verdict: absent unless the run was scoped to a job or judged flows.
    #[serde(skip_serializing_if = "Option::is_none")]
    job: Option<&'a JobView>,
    /// The worst judged flows (absent when none were judged), and the counts of all.
    #[serde(skip_serializing_if = "<[FlowView]>::is_empty")]
    flows: &'a [FlowView],
    #[serde(skip_serializing_if = "is_zero")]
    flows_total: usize,
    #[serde(skip_serializing_if = "is_zero")]
    flows_failing: usize,
    /// The run's `--fail-on`.
    fail_on: Severity,
    /// What changed since the run `--state` kept: absent without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    since_last_run: Option<&'a Changes>,
    /// Present (true) when the run was interrupted during its counter window.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    interrupted: bool,
    /// The root causes with what each explains; absent when nothing was found.
    #[serde(skip_serializing_if = "<[Incident]>::is_empty")]
    incidents: &'a [Incident],
    /// The fabric looks built to another design than the policy's; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    design_hint: Option<&'a DesignHint>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Reporter for JsonReporter {
    fn file_name(&self) -> &'static str {
        "findings.json"
    }

    fn write(&self, r: &AuditResult, out: &mut dyn std::io::Write) -> Result<(), ReportError> {
        let wire = Wire {
            fabcheck: &r.fabcheck,
            started: &r.started,
            verdict: r.verdict,
            summary: &r.summary,
            findings: &r.findings,
            duration_s: r.duration_s,
            policy: &r.policy,
            devices: &r.devices,
            counters: &r.counters,
            benchmarks: &r.benchmarks,
            paths: &r.paths,
            paths_total: r.paths_total,
            job: r.job.as_ref(),
            flows: &r.flows,
            flows_total: r.flows_total,
            flows_failing: r.flows_failing,
            fail_on: r.fail_on,
            since_last_run: r.since_last_run.as_ref(),
            interrupted: r.interrupted,
            incidents: &r.incidents,
            design_hint: r.design_hint.as_ref(),
        };
        write_pretty(self.file_name(), &wire, out)
    }
}

/// Writes `value` as pretty JSON with a final newline (findings.json).
///
/// serde_json writes a few bytes at a time (a key, a quote, an indent): into a buffer of this
/// function's own type, each is a copy the compiler sees, where through `out` each was a call
/// through `dyn Write` (half a million of them on a 100-host audit).
pub(crate) fn write_pretty(
    file: &'static str,
    value: &impl Serialize,
    out: &mut dyn std::io::Write,
) -> Result<(), ReportError> {
    use std::io::Write;
    let mut buffered = std::io::BufWriter::with_capacity(64 * 1024, out);
    let mut serializer = serde_json::Serializer::with_formatter(&mut buffered, Pretty::default());
    value.serialize(&mut serializer).map_err(|e| ReportError::render(file, e))?;
    buffered.write_all(b"\n").map_err(|e| ReportError::render(file, e))?;
    buffered.flush().map_err(|e| ReportError::render(file, e))
}

/// serde_json's `PrettyFormatter` (two spaces a level), byte for byte (a test holds them
/// together), with each line's start written at once: `PrettyFormatter` writes the line feed,
/// then the indentation a level at a time, four writes for a key three levels down, and
/// findings.json has a line for each field of each of thousands of counters.
#[derive(Default)]
struct Pretty {
    depth: usize,
    has_value: bool,
}

impl Pretty {
    /// `,\n` and the spaces of the deepest level written at once; deeper ones write the rest.
    const LINE_STARTS: &'static [u8] = b",\n                                                                ";
    const LEVEL: &'static [u8] = b"  ";

    /// A line feed (after a comma unless `first`) and the indentation of the current depth.
    fn new_line<W: ?Sized + std::io::Write>(&self, writer: &mut W, first: bool) -> std::io::Result<()> {
        let from = usize::from(first);
        let spaces = Self::LEVEL.len() * self.depth;
        let end = (2 + spaces).min(Self::LINE_STARTS.len());
        writer.write_all(&Self::LINE_STARTS[from..end])?;
        for _ in (end - 2) / Self::LEVEL.len()..self.depth {
            writer.write_all(Self::LEVEL)?;
        }
        Ok(())
    }

    fn open<W: ?Sized + std::io::Write>(&mut self, writer: &mut W, bracket: &[u8]) -> std::io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        writer.write_all(bracket)
    }

    fn close<W: ?Sized + std::io::Write>(&mut self, writer: &mut W, bracket: &[u8]) -> std::io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            self.new_line(writer, true)?;
        }
        writer.write_all(bracket)
    }
}

impl serde_json::ser::Formatter for Pretty {
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.open(writer, b"[")
    }
    fn end_array<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.close(writer, b"]")
    }
    fn begin_array_value<W: ?Sized + std::io::Write>(&mut self, writer: &mut W, first: bool) -> std::io::Result<()> {
        self.new_line(writer, first)
    }
    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, _writer: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
    fn begin_object<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.open(writer, b"{")
    }
    fn end_object<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.close(writer, b"}")
    }
    fn begin_object_key<W: ?Sized + std::io::Write>(&mut self, writer: &mut W, first: bool) -> std::io::Result<()> {
        self.new_line(writer, first)
    }
    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        writer.write_all(b": ")
    }
    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, _writer: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture;
    use serde::Deserialize;

    /// What `Pretty` writes is what serde_json's `PrettyFormatter` writes: for a whole audit, and
    /// for nesting deeper than `Pretty::LINE_STARTS` holds, empty lists and maps among them.
    #[test]
    fn pretty_is_serde_jsons_pretty_formatter() {
        let deep = (0..40).fold(
            serde_json::json!([{"leaf": [1, [], {}], "n": null}]),
            |inner, depth| serde_json::json!({ "depth": depth, "list": [[], [depth]], "inner": inner }),
        );
        let results =
            [fixture::audit_result(), fixture::fabric_result(), fixture::bench_result(), fixture::large_result(3)];
        let audits = results.iter().map(|r| serde_json::to_value(r).unwrap());
        let edges = [deep, serde_json::json!([]), serde_json::json!({}), serde_json::json!("x")];
        for value in audits.chain(edges) {
            let mut ours = Vec::new();
            write_pretty("test.json", &value, &mut ours).unwrap();
            let theirs = serde_json::to_string_pretty(&value).unwrap() + "\n";
            assert_eq!(String::from_utf8(ours).unwrap(), theirs);
        }
    }

    /// What a consumer of the file would declare.
    #[derive(Deserialize, Debug, PartialEq)]
    struct Consumer {
        fabcheck: String,
        started: String,
        verdict: Verdict,
        summary: Summary,
        findings: Vec<Finding>,
        duration_s: f64,
        policy: String,
        devices: Vec<DeviceSummary>,
        counters: Vec<CounterSample>,
        #[serde(default)]
        benchmarks: Vec<BenchRun>,
    }

    fn render(r: &AuditResult) -> Vec<u8> {
        JsonReporter.render(r).unwrap()
    }

    #[test]
    fn round_trips_through_serde() {
        let r = fixture::audit_result();
        let back: Consumer = serde_json::from_slice(&render(&r)).unwrap();
        assert_eq!(
            back,
            Consumer {
                fabcheck: r.fabcheck.clone(),
                started: r.started.clone(),
                verdict: r.verdict,
                summary: r.summary.clone(),
                findings: r.findings.clone(),
                duration_s: r.duration_s,
                policy: r.policy.clone(),
                devices: r.devices.clone(),
                counters: r.counters.clone(),
                benchmarks: vec![],
            }
        );
        // A benchmark comes back whole.
        let r = fixture::bench_result();
        let bytes = render(&r);
        let back: Consumer = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(back.benchmarks, r.benchmarks);
        assert_eq!(back.findings, r.findings);
        let model: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(model["benchmarks"][2]["label"], "pair gpu04+gpu05 (round 1)");
        assert_eq!(model["benchmarks"][2]["rows"][30]["size_bytes"], 8u64 << 30);
        assert_eq!(model["benchmarks"][2]["peak_busbw_gbs"], 12.1);
    }

    /// Top-level keys are the only ones indented by exactly two spaces.
    fn top_level_keys(text: &str) -> Vec<&str> {
        text.lines().filter_map(|l| l.strip_prefix("  \"")).filter_map(|l| l.split('"').next()).collect()
    }

    #[test]
    fn top_level_keys_come_in_contract_order() {
        let text = String::from_utf8(render(&fixture::audit_result())).unwrap();
        let keys = top_level_keys(&text);
        assert_eq!(
            keys,
            [
                "fabcheck",
                "started",
                "verdict",
                "summary",
                "findings",
                "duration_s",
                "policy",
                "devices",
                "counters",
                "fail_on",
                "incidents",
                "design_hint"
            ]
        );
        assert!(text.ends_with("}\n"));
        // A benchmark adds its key after the contract's first keys, which do not move.
        let text = String::from_utf8(render(&fixture::bench_result())).unwrap();
        let with = top_level_keys(&text);
        assert_eq!(with[..9], keys[..9]);
        assert_eq!(with[9..], ["benchmarks", "fail_on", "incidents", "design_hint"]);
    }

    #[test]
    fn values_follow_the_contract() {
        let v: serde_json::Value = serde_json::from_slice(&render(&fixture::audit_result())).unwrap();
        assert_eq!(v["verdict"], "fail");
        assert_eq!(
            v["summary"],
            serde_json::json!({ "hosts": 3, "switches": 1, "unreachable": 1,
                                "critical": 2, "error": 2, "warning": 3, "info": 1, "waived": 0 })
        );
        let first = &v["findings"][0];
        assert_eq!(first["code"], "nic.pfc_mismatch");
        assert_eq!(first["port"], "mlx5_0");
        assert_eq!(first["severity"], "critical");
        assert_eq!(first["caused_by"], serde_json::json!([]));
        // A reset counter has no delta: null, not 0, so nobody mistakes it for "no traffic".
        let reset = v["counters"].as_array().unwrap().iter().find(|c| c["port"] == "mlx5_1").unwrap();
        assert!(reset["delta"].is_null() && reset["rate_per_s"].is_null());
    }
}
