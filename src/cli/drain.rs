//! `--drain-list FILE`: the hosts whose findings reach `--fail-on`, as the `scontrol update`
//! commands that would drain them, one per host, for an operator (or a Slurm health check
//! wrapper) to review and run. fabcheck never runs them.
use anyhow::Context;
use fabcheck_model::{AuditResult, Finding};
use std::fmt::Write as _;
use std::path::Path;

/// Slurm keeps a node's reason short; the rest is in the report.
const REASON_CHARS: usize = 120;

/// Writes the drain commands of `result`'s hosts to `path` (an empty file when none); the
/// audit's own failures count only with `collect_failures`.
pub fn write(result: &AuditResult, path: &Path, collect_failures: bool) -> anyhow::Result<()> {
    std::fs::write(path, commands(result, collect_failures))
        .with_context(|| format!("writing the drain list {}", path.display()))
}

/// Findings of the node itself, which drain it: a `collect.*` finding is the audit's own
/// failure (a tool it could not run, an output it could not read), which says nothing of the
/// node's fabric, except the two that do: no snapshot came from it (its task failed), and it has
/// no RDMA device.
fn of_the_node(f: &Finding) -> bool {
    !f.code.starts_with("collect.") || matches!(f.code.as_str(), "collect.snapshot_missing" | "collect.no_rdma_ports")
}

/// One `scontrol update NodeName=... State=DRAIN Reason="..."` line per host with findings at
/// or above the run's `--fail-on`, in inventory order.
fn commands(result: &AuditResult, collect_failures: bool) -> String {
    let mut out = String::new();
    for host in result.devices.iter().filter(|d| d.role == "host") {
        let mut failing: Vec<&Finding> = result
            .findings
            .iter()
            .filter(|f| f.device == host.name && f.severity >= result.fail_on && f.waived.is_none())
            .filter(|f| collect_failures || of_the_node(f))
            .collect();
        if failing.is_empty() {
            continue;
        }
        failing.sort_by_key(|f| std::cmp::Reverse(f.severity));
        let worst = failing[0];
        let port = worst.port.as_deref().map(|p| format!(" on {p}")).unwrap_or_default();
        let more = match failing.len() - 1 {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        let reason = format!("fabcheck {} {}{port}{more}", worst.severity.as_str(), worst.code);
        let _ = writeln!(out, "scontrol update NodeName={} State=DRAIN Reason=\"{}\"", host.name, quotable(&reason));
    }
    out
}

/// The reason as Slurm and a shell take it inside double quotes: no quote, backslash, `$` or
/// backtick, no control character, at most [`REASON_CHARS`] characters.
fn quotable(reason: &str) -> String {
    reason.chars().filter(|c| !matches!(c, '"' | '\\' | '$' | '`') && !c.is_control()).take(REASON_CHARS).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use fabcheck_model::{DeviceSummary, Severity, Verdict};

    fn result(findings: Vec<Finding>) -> AuditResult {
        let device =
            |name: &str, role: &str| DeviceSummary { name: name.into(), role: role.into(), ..Default::default() };
        AuditResult {
            verdict: Verdict::Fail,
            findings,
            devices: vec![
                device("gpu1", "host"),
                device("gpu2", "host"),
                device("gpu3", "host"),
                device("leaf1", "leaf"),
            ],
            ..Default::default()
        }
    }

    #[test]
    fn hosts_at_or_above_fail_on_get_one_drain_command_each() {
        let r = result(vec![
            Finding::new("nic.mtu_mismatch", Severity::Error, "gpu2", "MTU").port("ens1np0"),
            Finding::new("counter.out_of_buffer", Severity::Critical, "gpu2", "drops").port("ens1np0"),
            Finding::new("host.irq_affinity_overlap", Severity::Warning, "gpu1", "below error"),
            Finding::new("switch.pfc_mismatch", Severity::Critical, "leaf1", "a switch is not a Slurm node"),
            Finding::new("collect.command_failed", Severity::Error, "gpu3", "a \"quoted\" $(rm -rf) `x` \\ reason"),
        ]);
        // Asked to (`--drain-on-collect-failure`), the audit's own failures drain too.
        assert_eq!(
            commands(&r, true),
            "scontrol update NodeName=gpu2 State=DRAIN Reason=\"fabcheck critical counter.out_of_buffer on ens1np0 and 1 more\"\n\
             scontrol update NodeName=gpu3 State=DRAIN Reason=\"fabcheck error collect.command_failed\"\n"
        );
        // Issue 39: by default a tool the audit could not run drains no node.
        assert_eq!(
            commands(&r, false),
            "scontrol update NodeName=gpu2 State=DRAIN Reason=\"fabcheck critical counter.out_of_buffer on ens1np0 and 1 more\"\n"
        );
        let at_warning = AuditResult { fail_on: Severity::Warning, ..r };
        assert!(commands(&at_warning, false).starts_with(
            "scontrol update NodeName=gpu1 State=DRAIN Reason=\"fabcheck warning host.irq_affinity_overlap\"\n"
        ));
    }

    /// A node that sent no snapshot, or has no RDMA device, is drained: that is the node's.
    #[test]
    fn a_node_without_snapshot_or_rdma_device_is_drained() {
        let r = result(vec![
            Finding::new("collect.snapshot_missing", Severity::Error, "gpu1", "no snapshot"),
            Finding::new("collect.no_rdma_ports", Severity::Error, "gpu3", "no RDMA device"),
        ]);
        assert_eq!(
            commands(&r, false),
            "scontrol update NodeName=gpu1 State=DRAIN Reason=\"fabcheck error collect.snapshot_missing\"\n\
             scontrol update NodeName=gpu3 State=DRAIN Reason=\"fabcheck error collect.no_rdma_ports\"\n"
        );
    }

    #[test]
    fn a_reason_cannot_break_out_of_its_quotes() {
        assert_eq!(quotable("a \"b\" $(c) `d` \\e\nf"), "a b (c) d ef");
        assert_eq!(quotable(&"x".repeat(500)).len(), REASON_CHARS);
    }
}
