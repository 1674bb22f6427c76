//! `fabcheck bench nccl`: audit the hosts with the counter window spanning the benchmark, launch
//! nccl-tests, judge it, isolate stragglers, correlate, report.

use super::app::NcclArgs;
use super::audit::{collect_options, finish_evidence, load_policy, rfc3339, say_host_key_notes, stage_evidence};
use super::targets;
use super::unwritten::Unwritten;
use crate::audit::{assemble, collect_and_check};
use crate::bench::baseline::Baseline;
use crate::bench::env::NcclFacts;
use crate::bench::launch::TestArgs;
use crate::bench::run::{BenchOptions, Runner};
use crate::collect::{Gate, Window};
use crate::correlate::correlate;
use crate::correlate::flows::{self, address_book};
use anyhow::Context;
use fabcheck_model::AuditResult;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

/// Runs the benchmark, writes the reports, prints the verdict and returns the exit code.
pub async fn run(args: NcclArgs) -> anyhow::Result<i32> {
    let conclusion = super::conclude::Conclusion::new(&args.findings, &args.fail_on)?;
    let _locks = super::lock::lock([args.out.as_path()].into_iter().chain(args.findings.state.as_deref()))?;
    let out = args.out.clone();
    let (nodelist, limit) = (args.nodelist.clone(), args.limit.clone());
    let clock = Instant::now();
    let (result, bench_time, unwritten) = execute(args).await?;
    let benchmarks = result.benchmarks.len();
    let measured: f64 = result.benchmarks.iter().map(|r| r.duration_s).sum();
    let code = conclusion.finish(result, &out, nodelist.as_deref(), limit.as_deref(), unwritten)?;
    eprintln!(
        "fabcheck: {benchmarks} benchmark run(s) in {:.2} s ({measured:.2} s in nccl-tests); audit, counters, parsing and reports added {:.2} s",
        bench_time.as_secs_f64(),
        clock.elapsed().as_secs_f64() - bench_time.as_secs_f64()
    );
    Ok(code)
}

/// Audits and benchmarks; returns the result, the time spent in benchmark runs, and what of
/// its evidence could not be written.
pub async fn execute(args: NcclArgs) -> anyhow::Result<(AuditResult, Duration, Unwritten)> {
    let clock = Instant::now();
    let policy = load_policy(args.policy.as_deref())?;
    let baseline = args.baseline.as_deref().map(Baseline::load).transpose().map_err(|e| anyhow::anyhow!("{e}"))?;
    let options = BenchOptions {
        launcher: args.launcher,
        tests: args.test.clone(),
        gpus_per_host: args.gpus_per_host,
        args: TestArgs {
            min_bytes: args.min_bytes.clone(),
            max_bytes: args.max_bytes.clone(),
            factor: args.factor,
            gpus_per_process: 1,
            iters: args.iters,
            warmup: args.warmup,
            check: true,
        },
        // The policy's variables, then the command line's: the most specific wins.
        env: policy.nccl_env.clone().into_iter().chain(pairs(&args.env, "--env")?).collect(),
        mca: pairs(&args.mca, "--mca")?,
        timeout: args.timeout,
        pairwise: args.pairwise,
        bisect: args.bisect,
        intra_node: !args.no_intra_node,
        tolerance: args.tolerance / 100.0,
        baseline,
    };
    let started = rfc3339(SystemTime::now());
    // Every device is audited (switches too: their counters cover the run as well); the GPU hosts
    // run the benchmark.
    let targets = targets::from_inventory(&args.inventory, args.limit.as_deref(), args.nodelist.as_deref(), &args.ssh)?;
    if !targets.iter().any(|t| t.role == "host") {
        anyhow::bail!("{}: no GPU hosts to benchmark", args.inventory.display());
    }
    let gate = Gate::new(targets.len());
    let mut collect = collect_options(&args.ssh, Window::Gate(gate.clone()), &targets)?;
    collect.capture = args.capture;
    let staged = stage_evidence(&args.out)?;
    let snapshot = staged.dir().to_path_buf();
    let audit = {
        let (targets, collect, policy, snapshot, started) =
            (targets.clone(), collect.clone(), Arc::new(policy.clone()), snapshot.clone(), started.clone());
        tokio::spawn(async move { collect_and_check(targets, &collect, policy, &snapshot, &started, false).await })
    };
    // Every host has read its counters once; the benchmark runs; then they read them again.
    let first = gate.first_reads().await;
    // What NCCL must be told is known before the benchmark starts, from these first reads: the
    // audit's facts come only after the window, with the second reads. In inventory order, not
    // arrival order: on a tie the first host's NICs name NCCL_IB_HCA.
    let mut hosts: Vec<_> = first.into_iter().filter(|r| r.role == "host").collect();
    hosts.sort_by_key(|r| targets.iter().position(|t| t.name == r.name));
    let facts = NcclFacts::from_facts(&hosts.iter().map(crate::facts::build).collect::<Vec<_>>());
    let reachable: Vec<String> = targets
        .iter()
        .filter(|t| hosts.iter().any(|r| r.name == t.name && r.error.is_none()))
        .map(|t| t.name.clone())
        .collect();
    let runner = Runner::new(targets, collect.ssh.clone(), facts, policy.clone(), options, snapshot);
    let bench_clock = Instant::now();
    let (runs, bench_findings) =
        if reachable.is_empty() { (Vec::new(), Vec::new()) } else { runner.benchmark(reachable).await };
    let bench_time = bench_clock.elapsed();
    gate.open();
    let audited = audit.await.context("the audit task failed")?;
    let (audits, evidence_errors) = (audited.audits, audited.write_errors);
    say_host_key_notes(&collect);
    let mut unwritten = Unwritten::default();
    finish_evidence(staged, evidence_errors, &mut unwritten);
    let (book, captured) = (address_book(&audits), flows::captured(&audits));
    let mut result = assemble(audits, &policy, &started, clock);
    result.findings.extend(bench_findings);
    correlate(&mut result.findings);
    if !captured.is_empty() {
        result = super::flows::into_audit(&[], captured, &policy, &book, result, &args.out)?;
    }
    result.benchmarks = runs;
    result.duration_s = clock.elapsed().as_secs_f64();
    let result = result.finish();
    Ok((result, bench_time, unwritten))
}

/// `NAME=VALUE` arguments.
fn pairs(items: &[String], flag: &str) -> anyhow::Result<Vec<(String, String)>> {
    items
        .iter()
        .map(|item| {
            item.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .with_context(|| format!("{flag} {item}: expected NAME=VALUE"))
        })
        .collect()
}
