//! `fabcheck run PLAYBOOK -i INVENTORY`: a playbook's audit, and its benchmark when it has one.

use super::app::{AuditArgs, NcclArgs, RunArgs};
use super::duration::{parse_duration, parse_limit};
use crate::playbook::Playbook;
use std::time::Duration;

/// Runs the playbook and returns the exit code.
pub async fn run(args: RunArgs) -> anyhow::Result<i32> {
    let book = Playbook::load(&args.playbook).map_err(|e| anyhow::anyhow!("{e}"))?;
    // `parse`: `parse_duration` for the window, `parse_limit` for a limit (above zero).
    type Parse = fn(&str) -> Result<Duration, String>;
    let duration = |what: &str, v: &Option<String>, default: Duration, parse: Parse| -> anyhow::Result<Duration> {
        v.as_deref()
            .map_or(Ok(default), |s| parse(s).map_err(|e| anyhow::anyhow!("{}: {what}: {e}", args.playbook.display())))
    };
    eprintln!(
        "fabcheck: playbook {}{}",
        book.name,
        book.description.as_deref().map(|d| format!(": {d}")).unwrap_or_default()
    );
    // The command line's --policy, --fail-on and --window win over the playbook's.
    let policy = args.policy.or(book.policy);
    let fail_on = args.fail_on.unwrap_or(book.fail_on);
    let mut findings = args.findings.clone();
    findings.state = findings.state.or(book.state);
    match &book.bench {
        None => {
            let window = match args.window {
                Some(w) => w,
                None => duration("audit.window", &book.audit.window, Duration::from_secs(10), parse_duration)?,
            };
            super::audit::run(AuditArgs {
                inventory: Some(args.inventory),
                policy,
                out: args.out,
                limit: args.limit,
                nodelist: args.nodelist,
                findings: findings.clone(),
                fail_on,
                window,
                snapshot: Vec::new(),
                flows: Vec::new(),
                capture: false,
                local: false,
                local_name: None,
                expect_nodes: None,
                host_lldp: false,
                ssh: args.ssh,
            })
            .await
        }
        Some(bench) => {
            if args.window.is_some() {
                eprintln!(
                    "fabcheck: warning: --window is ignored: playbook {}'s benchmark is its counter window",
                    book.name
                );
            }
            let defaults = NcclArgs::defaults(args.inventory, args.ssh);
            super::bench::run(NcclArgs {
                policy,
                out: args.out,
                limit: args.limit,
                nodelist: args.nodelist,
                findings: findings.clone(),
                fail_on,
                test: if bench.tests.is_empty() { defaults.test.clone() } else { bench.tests.clone() },
                pairwise: bench.pairwise,
                bisect: bench.bisect,
                no_intra_node: !bench.intra_node,
                baseline: bench.baseline.clone(),
                timeout: duration("bench.timeout", &bench.timeout, defaults.timeout, parse_limit)?,
                max_bytes: bench.max_bytes.clone().unwrap_or(defaults.max_bytes.clone()),
                ..defaults
            })
            .await
        }
    }
}
