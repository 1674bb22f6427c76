//! `fabcheck policy`: the reference designs (list, show) and what a policy will check (check).

use super::app::{InferArgs, PolicyCommand};
use super::audit::{collect_options, say_host_key_notes};
use super::targets;
use crate::collect::Window;
use crate::evidence::visit_snapshots;
use crate::policy::infer::sample::DeviceSample;
use crate::policy::library::{self, Design, LIBRARY};
use fabcheck_model::exit_codes;
use std::io::Write;
use std::time::Duration;

/// Runs one `policy` subcommand; returns the exit code.
pub async fn run(command: PolicyCommand) -> anyhow::Result<i32> {
    match command {
        PolicyCommand::List => list(),
        PolicyCommand::Show { name } => show(&name),
        PolicyCommand::Check { policy } => check(&policy),
        PolicyCommand::Infer(args) => infer(*args).await,
    }
}

/// `policy list`: each design, what it is, and its sources.
fn list() -> anyhow::Result<i32> {
    let mut out = std::io::stdout().lock();
    for design in LIBRARY {
        writeln!(out, "{}\n  {}", design.name, design.summary())?;
        for source in design.sources() {
            writeln!(out, "  source: {source}")?;
        }
    }
    Ok(exit_codes::CLEAN)
}

/// `policy show NAME`: the design's file, comments and all.
fn show(name: &str) -> anyhow::Result<i32> {
    let design = Design::find(name)
        .ok_or_else(|| anyhow::anyhow!("no built-in policy named `{name}` (built-in: {})", Design::names()))?;
    std::io::stdout().lock().write_all(design.text.as_bytes())?;
    Ok(exit_codes::CLEAN)
}

/// `policy check POLICY`: exit 0 valid, 1 valid with warnings (or checking nothing), 2 invalid.
fn check(policy: &std::path::Path) -> anyhow::Result<i32> {
    let parsed = match library::resolve(policy) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("fabcheck: {e}");
            return Ok(exit_codes::RUN_ERROR);
        }
    };
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}: policy {}", policy.display(), parsed.display_name())?;
    let explained = parsed.explain();
    if explained.is_empty() {
        writeln!(out, "  sets no rule: nothing but reachability and reading will be checked")?;
    }
    let width = explained.iter().map(|(k, _)| k.chars().count()).max().unwrap_or(0);
    for (key, what) in &explained {
        writeln!(out, "  {key:<width$}  {what}")?;
    }
    let warnings = parsed.warnings();
    for w in &warnings {
        eprintln!("fabcheck: warning: {}: {w}", policy.display());
    }
    Ok(if warnings.is_empty() && !explained.is_empty() { exit_codes::CLEAN } else { exit_codes::FINDINGS })
}

/// `policy infer`: collects as `audit` does (or reads snapshots), then writes the policy the
/// fleet runs. Exit 1 when the fleet's own majority loses packets (the findings say how).
pub async fn infer(args: InferArgs) -> anyhow::Result<i32> {
    // Each device is read into facts as it comes: its outputs are not kept.
    let facts = if !args.snapshot.is_empty() {
        let mut facts = Vec::new();
        visit_snapshots(&args.snapshot, args.ssh.max_output, |record| facts.push(crate::facts::build(&record)))
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        facts
    } else {
        let targets = match &args.inventory {
            Some(inv) => targets::from_inventory(inv, args.limit.as_deref(), None, &args.ssh)?,
            None => vec![targets::local(None)?],
        };
        let options = collect_options(&args.ssh, Window::Sleep(Duration::ZERO), &targets)?;
        let bar = |name: &'static str| {
            let b = indicatif::ProgressBar::new(targets.len() as u64);
            b.set_prefix(name);
            b
        };
        let progress = crate::collect::Progress { collect: bar("collect"), counters: bar("counters") };
        let facts = crate::collect::collect_all(targets, &options, progress.clone(), |r| crate::facts::build(&r)).await;
        progress.collect.finish_and_clear();
        progress.counters.finish_and_clear();
        say_host_key_notes(&options);
        facts
    };
    for f in &facts {
        if let crate::facts::DeviceKind::Unreachable { code, message } = &f.kind {
            eprintln!("fabcheck: warning: {}: not read ({code}: {message}): it has no vote", f.name);
        }
    }
    let samples: Vec<_> = facts.iter().filter_map(DeviceSample::of).collect();
    if samples.is_empty() {
        anyhow::bail!("no host or switch could be read: there is nothing to infer a policy from");
    }
    let inference = crate::policy::infer::infer(&samples, &args.name).map_err(|e| anyhow::anyhow!("{e}"))?;
    match &args.out {
        Some(path) => std::fs::write(path, &inference.yaml)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?,
        None => std::io::stdout().lock().write_all(inference.yaml.as_bytes())?,
    }
    for key in &inference.left_out {
        eprintln!("fabcheck: left out {key}");
    }
    for f in &inference.findings {
        eprintln!("fabcheck: {} {}: {}", f.severity.as_str(), f.code, f.message);
    }
    if let Some(path) = &args.out {
        eprintln!("fabcheck: wrote {} (check it with `fabcheck policy check {}`)", path.display(), path.display());
    }
    Ok(if inference.findings.is_empty() { exit_codes::CLEAN } else { exit_codes::FINDINGS })
}
