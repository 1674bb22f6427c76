//! `fabcheck demo`: the readiness playbook against the built-in lab, exactly as against a real
//! cluster (the same `audit` and `bench` code paths over SSH): first a healthy lab measures the
//! cluster's baseline, then a lab with typical faults is audited and benchmarked pairwise, the
//! hosts' RoCE ports captured during the benchmark (`--capture`) so that flows are judged too.

use super::app::{DemoArgs, NcclArgs, SshArgs};
use super::bench;
use super::lab::Shape;
use crate::bench::baseline::Baseline;
use anyhow::Context;
use fabcheck_lab::Design;
use fabcheck_model::exit_codes;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The faults the demo injects: a lossless hop broken with drops growing, no GPUDirect on a
/// second host, a rail trained at half speed on a third (the straggler pairwise isolation finds),
/// and ECN thresholds out of range on one leaf port (one hop failing on the paths through it).
const DEMO_FAULTS: [&str; 5] =
    ["gpu002=pfc-off", "gpu002=out-of-buffer", "gpu004=peermem-missing", "gpu007=link-degraded", "leaf2=ecn-threshold"];

/// Runs the demo. Exits 0 when it ran: its findings are the point of the demo.
pub async fn run(args: DemoArgs) -> anyhow::Result<i32> {
    let baseline_file = measure_baseline(&args.out, &args.design).await?;
    let lab_dir = args.out.join("lab");
    let policy =
        crate::policy::library::resolve(std::path::Path::new(args.design.name)).map_err(|e| anyhow::anyhow!("{e}"))?;
    let faults: Vec<String> = DEMO_FAULTS
        .iter()
        .filter(|f| host_index(f) <= args.hosts && exists_in(f, &args.design) && judged_by(f, &policy))
        .map(|f| f.to_string())
        .collect();
    let lab = super::lab::start(
        Shape { hosts: args.hosts, leaves: 2, spines: 2, platforms: None, channels: None, design: args.design.clone() },
        &faults,
        &lab_dir,
    )
    .await?;
    eprintln!(
        "fabcheck: lab of {} simulated GPU hosts, 2 leaves and 2 spines on loopback, built to {}, faults: {}",
        args.hosts,
        args.design.name,
        faults.join(", ")
    );
    let bench = NcclArgs {
        out: args.out.clone(),
        pairwise: args.hosts >= 4,
        baseline: Some(baseline_file),
        max_bytes: "8G".into(),
        capture: true,
        policy: Some(PathBuf::from(args.design.name)),
        ..NcclArgs::defaults(lab.inventory_path(), lab_ssh_args(&lab, &lab_dir)?)
    };
    bench::run(bench).await?;
    Ok(exit_codes::CLEAN)
}

/// The cluster's own baseline, measured on a healthy two-host lab of the same design (pairs are
/// two hosts), audited by that design's policy.
async fn measure_baseline(out: &Path, design: &Design) -> anyhow::Result<PathBuf> {
    let dir = out.join("baseline-lab");
    let lab = super::lab::start(Shape { hosts: 2, design: design.clone(), ..Shape::default() }, &[], &dir).await?;
    let (result, _, unwritten) = bench::execute(NcclArgs {
        out: dir.join("report"),
        policy: Some(PathBuf::from(design.name)),
        ..NcclArgs::defaults(lab.inventory_path(), lab_ssh_args(&lab, &dir)?)
    })
    .await?;
    unwritten.say();
    report_quietly(&result, &dir.join("report"))?;
    let baseline = Baseline::from_runs(&result.started, &result.benchmarks)
        .context("the healthy lab's benchmark did not finish")?;
    let file = out.join("baseline.json");
    baseline.save(&file).map_err(|e| anyhow::anyhow!("{e}"))?;
    eprintln!("fabcheck: baseline measured on a healthy lab: {}", file.display());
    Ok(file)
}

fn report_quietly(result: &fabcheck_model::AuditResult, dir: &Path) -> anyhow::Result<()> {
    match fabcheck_report::write_all(result, dir).failed.into_iter().next() {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}

/// SSH settings for a lab: its own known_hosts, and no ~/.ssh/config (a ProxyJump on `Host *`
/// must not apply to loopback).
pub fn lab_ssh_args(lab: &fabcheck_lab::Lab, dir: &Path) -> anyhow::Result<SshArgs> {
    let empty = dir.join("ssh_config");
    std::fs::write(&empty, "").with_context(|| format!("writing {}", empty.display()))?;
    Ok(SshArgs {
        forks: 64,
        accept_new_hostkeys: false,
        known_hosts: vec![lab.known_hosts_path()],
        ssh_config: Some(empty),
        connect_timeout: Duration::from_secs(10),
        command_timeout: Duration::from_secs(30),
        device_timeout: Duration::from_secs(300),
        max_output: 4 << 20,
    })
}

/// Whether the demo fault `fault` exists in `design` (ECN thresholds do not where no queue
/// marks ECN): the demo plants only those.
fn exists_in(fault: &str, design: &Design) -> bool {
    fault.parse::<fabcheck_lab::Fault>().is_ok_and(|f| fabcheck_lab::faults::exists_in(f.kind, design).is_ok())
}

/// Whether the design's policy judges what demo fault `fault` breaks: a link trained down is a
/// finding only where the policy names a speed, which SONiC's and Cisco's designs leave to the
/// fleet (`fabcheck policy infer` writes the one it runs). The demo plants only what it can show.
fn judged_by(fault: &str, policy: &crate::policy::Policy) -> bool {
    !fault.ends_with("=link-degraded") || policy.nic.as_ref().is_some_and(|n| n.min_speed_gbps.is_some())
}

/// `gpu007=...` → 7.
fn host_index(fault: &str) -> usize {
    if !fault.starts_with("gpu") {
        return 0; // A switch fault: the demo always has its switches.
    }
    fault.trim_start_matches("gpu").split('=').next().and_then(|n| n.parse().ok()).unwrap_or(usize::MAX)
}
