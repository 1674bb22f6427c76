//! `fabcheck baseline save|compare`: the cluster's own bus-bandwidth baseline.

use super::app::BaselineCommand;
use crate::bench::baseline::{Baseline, peak};
use crate::out;
use anyhow::Context;
use fabcheck_model::{AuditResult, exit_codes};
use std::path::Path;

/// Saves or compares.
pub fn run(command: BaselineCommand) -> anyhow::Result<i32> {
    match command {
        BaselineCommand::Save { from, to } => {
            let result = read_result(&from)?;
            let baseline = Baseline::from_runs(&result.started, &result.benchmarks)
                .with_context(|| format!("{}: no finished benchmark run to save", from.display()))?;
            baseline.save(&to).map_err(|e| anyhow::anyhow!("{e}"))?;
            for run in &baseline.runs {
                out!("saved {} on {} hosts: peak {:.1} GB/s", run.test, run.hosts, peak(&run.rows))?;
            }
            out!("baseline: {}", to.display())?;
            Ok(exit_codes::CLEAN)
        }
        BaselineCommand::Compare { baseline, from, tolerance } => {
            let baseline = Baseline::load(&baseline).map_err(|e| anyhow::anyhow!("{e}"))?;
            let result = read_result(&from)?;
            let mut dropped = false;
            for run in &result.benchmarks {
                let Some(saved) = baseline.curve(&run.test, run.hosts.len()) else {
                    out!("{} ({}): no baseline for {} on {} hosts", run.label, run.test, run.test, run.hosts.len())?;
                    continue;
                };
                let (then, now) = (peak(&saved.rows), peak(&run.rows));
                let change = if then > 0.0 { (now - then) / then * 100.0 } else { 0.0 };
                let bad = change < -tolerance;
                dropped |= bad;
                out!(
                    "{} ({}): {now:.1} GB/s vs baseline {then:.1} GB/s ({change:+.1} %){}",
                    run.label,
                    run.test,
                    if bad { " DROP" } else { "" }
                )?;
            }
            Ok(if dropped { exit_codes::FINDINGS } else { exit_codes::CLEAN })
        }
    }
}

fn read_result(dir: &Path) -> anyhow::Result<AuditResult> {
    let path = dir.join("findings.json");
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{}: not a fabcheck findings.json", path.display()))
}
