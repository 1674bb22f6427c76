//! `fabcheck bench judge LOG...`: saved nccl-tests output judged as a live run is (the same
//! judge, floors and correlation), for logs from a job scheduler, a colleague or an old incident.
//! With `-i`, the hosts are audited first, so each run is held against what they have.

use super::app::JudgeArgs;
use super::audit::{
    collect_options, exit_code, finish_evidence, load_policy, parse_fail_on, report, rfc3339, say_host_key_notes,
    stage_evidence,
};
use super::targets;
use super::unwritten::Unwritten;
use crate::audit::{assemble, collect_and_check};
use crate::bench::baseline::Baseline;
use crate::bench::env::NcclFacts;
use crate::bench::judge::{Context, on_one_host};
use crate::bench::run::{floor, intra_node_floor, judge_output, new_run, save_output};
use crate::check::DeviceAudit;
use crate::collect::Window;
use crate::correlate::correlate;
use crate::evidence::EvidenceError;
use anyhow::Context as _;
use fabcheck_model::{BenchRun, Finding, Severity};
use fabcheck_parse::nccl::nccl_tests;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

/// Judges every log, writes the reports, prints the verdict and returns the exit code.
pub async fn run(args: JudgeArgs) -> anyhow::Result<i32> {
    let fail_on = parse_fail_on(&args.fail_on)?;
    let clock = Instant::now();
    let policy = load_policy(args.policy.as_deref())?;
    let _lock = super::lock::lock([args.out.as_path()])?;
    let baseline = args.baseline.as_deref().map(Baseline::load).transpose().map_err(|e| anyhow::anyhow!("{e}"))?;
    let started = rfc3339(SystemTime::now());
    let staged = stage_evidence(&args.out)?;
    let snapshot = staged.dir().to_path_buf();
    let (audits, audited, evidence_errors) = match &args.inventory {
        Some(inventory) => {
            let (audits, facts, errors) = audit(&args, inventory, &policy, &snapshot, &started).await?;
            (audits, Some(facts), errors)
        }
        None => (Vec::new(), None, Vec::new()),
    };
    let mut runs = Vec::new();
    let mut findings = Vec::new();
    for log in &args.logs {
        let (run, found) =
            judge_log(log, &snapshot, audited.as_ref(), &policy, baseline.as_ref(), args.tolerance / 100.0);
        runs.push(run);
        findings.extend(found);
    }
    let mut unwritten = Unwritten::default();
    finish_evidence(staged, evidence_errors, &mut unwritten);
    let mut result = assemble(audits, &policy, &started, clock);
    result.findings.extend(findings);
    correlate(&mut result.findings);
    result.benchmarks = runs;
    result.duration_s = clock.elapsed().as_secs_f64();
    result.fail_on = fail_on;
    let mut result = result.finish();
    crate::correlate::root_causes(&mut result);
    report(&result, &args.out, &mut unwritten)?;
    Ok(unwritten.exit_code(exit_code(&result)))
}

/// Audits the inventory's devices (no counter window) and derives what NCCL should use from
/// the hosts' facts, as `bench nccl` does before it launches.
async fn audit(
    args: &JudgeArgs,
    inventory: &Path,
    policy: &crate::policy::Policy,
    snapshot: &Path,
    started: &str,
) -> anyhow::Result<(Vec<DeviceAudit>, NcclFacts, Vec<EvidenceError>)> {
    let targets = targets::from_inventory(inventory, args.limit.as_deref(), None, &args.ssh)?;
    let collect = collect_options(&args.ssh, Window::Sleep(Duration::ZERO), &targets)?;
    let audited = collect_and_check(targets, &collect, Arc::new(policy.clone()), snapshot, started, true).await;
    say_host_key_notes(&collect);
    // The hosts' facts are the audit's own, read once.
    Ok((audited.audits, NcclFacts::from_facts(&audited.host_facts), audited.write_errors))
}

/// One saved log: copied next to the evidence (so the report links it), parsed and judged. A
/// log that cannot be read or understood is an `nccl.failed` finding naming the file; the other
/// logs are still judged.
fn judge_log(
    log: &Path,
    snapshot: &Path,
    audited: Option<&NcclFacts>,
    policy: &crate::policy::Policy,
    baseline: Option<&Baseline>,
    tolerance: f64,
) -> (BenchRun, Vec<Finding>) {
    let name = log.file_name().map_or_else(|| "log".to_string(), |n| n.to_string_lossy().into_owned());
    let evidence = format!("_bench/{name}");
    let label = format!("log {name}");
    let text = std::fs::read(log)
        .with_context(|| format!("reading {}", log.display()))
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned());
    let saved = text.as_ref().is_ok_and(|text| save_output(snapshot, &evidence, text));
    let output = saved.then(|| evidence.clone());
    let parsed = text
        .and_then(|t| nccl_tests::parse(&t).map(|p| p.value).map_err(|e| anyhow::anyhow!("{}: {e}", log.display())));
    let parsed = match parsed {
        Ok(p) => p,
        Err(e) => {
            let finding = Finding::new(
                "nccl.failed",
                Severity::Critical,
                &name,
                format!("{label}: the saved output cannot be judged: {e:#}"),
            )
            .expected_actual("a readable nccl-tests output", "unreadable")
            .evidence(evidence.clone());
            let run = BenchRun { output, ..new_run(&label, "nccl-tests", std::slice::from_ref(&name), None, None) };
            return (run, vec![finding]);
        }
    };
    let hosts: Vec<String> =
        if parsed.hosts.is_empty() { vec![name.clone()] } else { parsed.hosts.keys().cloned().collect() };
    // Without an audit the log is held against itself: the IB or RoCE fabric it ran on.
    let from_log = NcclFacts { infiniband: parsed.transport.as_deref() == Some("IB"), ..NcclFacts::default() };
    let facts = audited.unwrap_or(&from_log);
    let test = parsed.test.clone().unwrap_or_else(|| "nccl-tests".to_string());
    let intra_node = on_one_host(&parsed);
    let floor = match intra_node {
        true => intra_node_floor(facts, baseline, tolerance, &test),
        false => floor(policy, facts, baseline, tolerance, &test, hosts.len()),
    };
    let ctx = Context { label: &label, hosts: &hosts, facts, floor: floor.as_ref(), evidence: &evidence, intra_node };
    let mut run = new_run(&label, &test, &hosts, floor.as_ref(), baseline);
    run.command = parsed.command.clone().unwrap_or_default();
    run.output = output;
    judge_output(run, &parsed, &ctx)
}
