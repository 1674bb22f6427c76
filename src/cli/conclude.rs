//! The end every judging run shares (audit, bench nccl, run): waivers, the job's verdict, the
//! comparison with the run `--state` kept, the reports, the drain list, the new state, and the
//! exit status. The arguments are checked before the run starts, so a typo in a waiver file
//! or a metric label costs seconds, not a whole counter window.

use super::app::FindingsArgs;
use super::audit::{exit_code, metric_labels, parse_fail_on, report, waive, with_job};
use super::unwritten::Unwritten;
use crate::waivers::Waiver;
use fabcheck_model::{AuditResult, Severity};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The run's `--fail-on` and [`FindingsArgs`], checked.
pub struct Conclusion {
    fail_on: Severity,
    labels: BTreeMap<String, String>,
    waivers: Option<(String, Vec<Waiver>)>,
    drain_list: Option<PathBuf>,
    drain_on_collect_failure: bool,
    state: Option<PathBuf>,
}

impl Conclusion {
    /// Checks the arguments (labels, waiver file, `--fail-on`) before anything runs.
    pub fn new(findings: &FindingsArgs, fail_on: &str) -> anyhow::Result<Conclusion> {
        Ok(Conclusion {
            fail_on: parse_fail_on(fail_on)?,
            labels: metric_labels(&findings.metrics_labels)?,
            waivers: findings.waivers.as_deref().map(crate::waivers::load).transpose()?,
            drain_list: findings.drain_list.clone(),
            drain_on_collect_failure: findings.drain_on_collect_failure,
            state: findings.state.clone(),
        })
    }

    /// Finishes `result` (scoped to `nodelist` or `limit` when given), writes everything into
    /// `out`, and returns the exit code. Each file is written on its own: one that cannot be
    /// written is added to what the run already lost (`unwritten`) and makes the exit status 2,
    /// never costs the others.
    pub fn finish(
        self,
        result: AuditResult,
        out: &Path,
        nodelist: Option<&str>,
        limit: Option<&str>,
        mut unwritten: Unwritten,
    ) -> anyhow::Result<i32> {
        let mut result = waive(result, self.waivers.as_ref());
        crate::correlate::root_causes(&mut result);
        with_job(&mut result, nodelist, limit);
        result.fail_on = self.fail_on;
        result.metric_labels = self.labels;
        if let Some(state) = &self.state
            && let Some(before) = crate::saved_run::previous(state)
        {
            result.since_last_run = Some(crate::run_comparison::compare(&before, &result));
        }
        report(&result, out, &mut unwritten)?;
        if let Some(changes) = &result.since_last_run {
            unwritten.reports(fabcheck_report::write_diff(changes, result.fail_on, out));
        }
        if let Some(file) = &self.drain_list
            && let Err(e) = super::drain::write(&result, file, self.drain_on_collect_failure)
        {
            unwritten.push(e);
        }
        // An interrupted run is not the run asked for: it is not kept as the next one's "before",
        // and it exits 2 whatever it found, so no scheduler takes it for a pass.
        if result.interrupted {
            eprintln!("fabcheck: the run was interrupted: its reports are written, its exit status is 2");
            return Ok(unwritten.exit_code(fabcheck_model::exit_codes::RUN_ERROR));
        }
        // The state is the run's result, which is whole even when a report of it was not
        // written: the next run is compared with it, so one bad night does not repeat.
        if let Some(state) = &self.state
            && let Err(e) = crate::saved_run::keep(state, &result)
        {
            unwritten.push(e);
        }
        Ok(unwritten.exit_code(exit_code(&result)))
    }
}
