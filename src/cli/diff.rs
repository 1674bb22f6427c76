//! `fabcheck diff BEFORE AFTER`: what changed between two runs, for the change that came in
//! between (post-change verification in CI).

use super::app::DiffArgs;
use super::audit::{load_policy, parse_fail_on};
use crate::out;
use fabcheck_model::exit_codes;

/// Compares the two runs, writes diff.md, diff.json and diff.junit.xml, prints the summary, and
/// exits 1 when the later run has a new finding at or above `--fail-on`.
pub fn run(args: &DiffArgs) -> anyhow::Result<i32> {
    let fail_on = parse_fail_on(&args.fail_on)?;
    let policy = load_policy(args.policy.as_deref())?;
    let _lock = super::lock::lock([args.out.as_path()])?;
    let before = crate::saved_run::load(&args.before, &policy)?;
    let after = crate::saved_run::load(&args.after, &policy)?;
    let changes = crate::run_comparison::compare(&before, &after);
    let mut unwritten = super::unwritten::Unwritten::default();
    unwritten.reports(fabcheck_report::write_diff(&changes, fail_on, &args.out));
    let failing = fabcheck_report::failing(&changes, fail_on).count();
    out!(
        "diff: {} new findings ({failing} at or above {fail_on}), {} fixed, {} configuration values changed, {} counters grew",
        changes.new_findings.len(),
        changes.fixed_findings.len(),
        changes.drift.len(),
        changes.rates.len()
    )?;
    for f in fabcheck_report::failing(&changes, fail_on).take(20) {
        let port = f.port.as_deref().map(|p| format!(" {p}")).unwrap_or_default();
        out!("  new {:<8} {:<28} {}{port}: {}", f.severity.as_str(), f.code, f.device, f.message)?;
    }
    for d in changes.drift.iter().take(20) {
        let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "(unset)".into());
        out!("  changed {} {}: {} -> {}", d.place(), d.setting, show(&d.before), show(&d.after))?;
    }
    if unwritten.is_empty() {
        out!("report: {}", args.out.join("diff.md").display())?;
    }
    Ok(unwritten.exit_code(if failing > 0 { exit_codes::FINDINGS } else { exit_codes::CLEAN }))
}
