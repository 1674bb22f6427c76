//! `fabcheck audit`: collect (SSH, local) or re-read a snapshot, check, report, exit code.

use super::app::{AuditArgs, SshArgs};
use super::stdout::paint;
use super::targets;
use super::unwritten::Unwritten;
use crate::audit::{assemble, check_record, collect_and_check};
use crate::collect::{CollectOptions, DeviceTarget, Reach, Window};
use crate::evidence::{EvidenceError, StagedEvidence, visit_snapshots};
use crate::out;
use crate::policy::{DEFAULT_POLICY, Policy};
use crate::transport::{HostKeyStores, SshOptions};
use anyhow::Context;
use fabcheck_model::{AuditResult, Severity, exit_codes};
use std::path::Path;
use std::sync::Arc;
use std::time::{Instant, SystemTime};

/// Runs the audit and returns the exit code.
pub async fn run(args: AuditArgs) -> anyhow::Result<i32> {
    let clock = Instant::now();
    let conclusion = super::conclude::Conclusion::new(&args.findings, &args.fail_on)?;
    let policy = load_policy(args.policy.as_deref())?;
    let _locks = super::lock::lock([args.out.as_path()].into_iter().chain(args.findings.state.as_deref()))?;
    let started = rfc3339(SystemTime::now());
    let mut interrupted = false;
    let mut unwritten = Unwritten::default();
    let audits = if !args.snapshot.is_empty() {
        let expected = match &args.expect_nodes {
            Some(list) => {
                fabcheck_inventory::hostlist::expand(list).map_err(|e| anyhow::anyhow!("--expect-nodes {list}: {e}"))?
            }
            None => Vec::new(),
        };
        // One device's outputs in memory at a time: each is judged as it is read.
        let (mut audits, mut present) = (Vec::new(), std::collections::HashSet::new());
        visit_snapshots(&args.snapshot, args.ssh.max_output, |record| {
            audits.push(check_record(&record, &policy));
            present.insert(record.name);
        })
        .map_err(|e| anyhow::anyhow!("{e}"))?;
        audits.extend(crate::audit::missing_nodes(&expected, &present));
        audits
    } else {
        let targets = match &args.inventory {
            Some(inv) => targets::from_inventory(inv, args.limit.as_deref(), args.nodelist.as_deref(), &args.ssh)?,
            None => vec![targets::local(args.local_name.as_deref())?],
        };
        let mut options = collect_options(&args.ssh, Window::Sleep(args.window), &targets)?;
        options.capture = args.capture;
        options.host_lldp |= args.host_lldp;
        let listener = listen_for_interrupts(options.interrupt.clone());
        let staged = stage_evidence(&args.out)?;
        let audited =
            collect_and_check(targets, &options, Arc::new(policy.clone()), staged.dir(), &started, false).await;
        say_host_key_notes(&options);
        listener.abort();
        interrupted = options.interrupt.fired();
        finish_evidence(staged, audited.write_errors, &mut unwritten);
        audited.audits
    };
    let book = crate::correlate::flows::address_book(&audits);
    let captured = crate::correlate::flows::captured(&audits);
    let mut result = assemble(audits, &policy, &started, clock);
    if !args.flows.is_empty() || !captured.is_empty() {
        result = super::flows::into_audit(&args.flows, captured, &policy, &book, result, &args.out)?;
    }
    result.interrupted = interrupted;
    conclusion.finish(result, &args.out, args.nodelist.as_deref(), args.limit.as_deref(), unwritten)
}

/// The first SIGINT or SIGTERM stops the collection: the counter window ends (each device
/// through its first read makes its second within a short grace), and the connects and first
/// reads in flight are cancelled; what was collected is judged and the reports say the run was
/// interrupted. A second one stops fabcheck at once. The handlers are registered before this
/// returns, so a signal that comes as soon as the run's evidence directory exists is never the
/// default action's (death without reports).
fn listen_for_interrupts(interrupt: crate::collect::Interrupt) -> tokio::task::JoinHandle<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut int)) = (signal(SignalKind::terminate()), signal(SignalKind::interrupt())) else {
        eprintln!(
            "fabcheck: warning: cannot listen for SIGINT and SIGTERM: an interrupt stops the run without reports"
        );
        return tokio::spawn(async {});
    };
    tokio::spawn(async move {
        let mut signals = 0;
        loop {
            tokio::select! {
                _ = int.recv() => {}
                _ = term.recv() => {}
            }
            signals += 1;
            if signals > 1 {
                eprintln!("fabcheck: interrupted again: stopping without reports");
                std::process::exit(exit_codes::RUN_ERROR);
            }
            eprintln!(
                "fabcheck: interrupted: ending the counter window now and cancelling what is still connecting or reading; what was collected is judged and the reports say so (interrupt again to stop at once)"
            );
            interrupt.fire();
        }
    })
}

/// The result with the waivers applied (on the run's start date) and its verdict recomputed.
pub fn waive(mut result: AuditResult, waivers: Option<&(String, Vec<crate::waivers::Waiver>)>) -> AuditResult {
    let Some((file, list)) = waivers else { return result };
    let today = result.started.get(..10).unwrap_or("").to_string();
    crate::waivers::apply(&mut result.findings, list, &today, file);
    result.finish()
}

/// The job's verdict, when the run was scoped to a job (`--nodelist`, `--limit`) or judged
/// flows: named by the host list, else the pattern, else `all hosts`.
pub fn with_job(result: &mut AuditResult, nodelist: Option<&str>, limit: Option<&str>) {
    if nodelist.is_none() && limit.is_none() && result.flows_total == 0 {
        return;
    }
    let name = nodelist.or(limit).unwrap_or("all hosts");
    result.job = Some(crate::correlate::job::view(result, name));
}

/// `--metrics-label NAME=VALUE`s: Prometheus label names, none of fabcheck's own, each once.
pub fn metric_labels(items: &[String]) -> anyhow::Result<std::collections::BTreeMap<String, String>> {
    let mut labels = std::collections::BTreeMap::new();
    for item in items {
        let (name, value) =
            item.split_once('=').with_context(|| format!("--metrics-label {item}: expected NAME=VALUE"))?;
        let valid = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with("__");
        if !valid {
            anyhow::bail!(
                "--metrics-label {item}: `{name}` is not a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*, not __...)"
            );
        }
        if fabcheck_report::RESERVED_LABELS.contains(&name) {
            anyhow::bail!("--metrics-label {item}: `{name}` is a label of fabcheck's own metrics");
        }
        if labels.insert(name.to_string(), value.to_string()).is_some() {
            anyhow::bail!("--metrics-label {item}: `{name}` given twice");
        }
    }
    Ok(labels)
}

/// `--fail-on`.
pub fn parse_fail_on(name: &str) -> anyhow::Result<Severity> {
    Severity::from_name(name).with_context(|| format!("--fail-on {name}: expected critical, error, warning or info"))
}

/// The exit code of a finished run (design.md): 1 when a finding reaches its `--fail-on`.
pub fn exit_code(result: &AuditResult) -> i32 {
    if result.fails_at(result.fail_on) { exit_codes::FINDINGS } else { exit_codes::CLEAN }
}

/// The run's evidence directory, written under a name of its own until [`StagedEvidence::commit`].
pub fn stage_evidence(out: &Path) -> anyhow::Result<StagedEvidence> {
    StagedEvidence::begin(out).map_err(|e| anyhow::anyhow!("{e}"))
}

/// Says which files this run recorded new host keys in (trusted on first use), as ssh says
/// "Permanently added": once per file, with how many; and which `KnownHostsCommand` could not
/// be started (its hosts judged by their files alone), once per line.
pub fn say_host_key_notes(options: &CollectOptions) {
    for (file, n) in options.ssh.host_keys.recorded() {
        let keys = if n == 1 { "key" } else { "keys" };
        eprintln!("fabcheck: warning: recorded {n} new host {keys} in {} (trusted on first use)", file.display());
    }
    for (at, why, n) in options.ssh.host_keys.unstarted_commands() {
        let calls = if n == 1 { "call" } else { "calls" };
        eprintln!(
            "fabcheck: warning: {at}: KnownHostsCommand gave no keys ({why}; {n} {calls}): as ssh, its hosts were judged by their known_hosts files alone"
        );
    }
}

/// Makes the run's evidence `OUT/evidence` when every device's outputs and the manifest were
/// written. Otherwise (a full disk, no file handles left) this run's evidence is discarded and
/// the previous snapshot kept whole, and the loss is recorded in `unwritten`: a snapshot that
/// lacks devices would be re-judged later as if they had never been there.
pub fn finish_evidence(staged: StagedEvidence, errors: Vec<EvidenceError>, unwritten: &mut Unwritten) {
    let target = staged.target();
    let Some(first) = errors.first() else {
        if let Err(e) = staged.commit() {
            unwritten.push(anyhow::anyhow!("{e}: the previous snapshot is kept"));
        }
        return;
    };
    let more = match errors.len() - 1 {
        0 => String::new(),
        n => format!(", and {n} more"),
    };
    unwritten.push(anyhow::anyhow!(
        "{}: this run's evidence is incomplete ({first}{more}): it is discarded and the previous snapshot, if any, is kept",
        target.display()
    ));
    staged.discard();
}

/// How to reach devices, from the SSH arguments: known_hosts loaded, the open-file limit raised.
/// `targets` decide whether hosts' LLDP is read (only when switches are audited too).
pub fn collect_options(ssh: &SshArgs, window: Window, targets: &[DeviceTarget]) -> anyhow::Result<CollectOptions> {
    raise_fd_limit();
    let host_keys = HostKeyStores::default();
    for target in targets {
        let Reach::Ssh(device) = &target.reach else { continue };
        // The device and every jump host it is reached through.
        for hop in std::iter::successors(Some(&**device), |hop| hop.proxy_jump.as_deref()) {
            for skipped in host_keys.preload(&hop.host_keys.files).context("reading known_hosts")? {
                eprintln!("fabcheck: warning: known_hosts line skipped: {skipped}");
            }
        }
    }
    Ok(CollectOptions {
        ssh: SshOptions {
            connect_timeout: ssh.connect_timeout,
            auth_timeout: ssh.connect_timeout,
            command_timeout: ssh.command_timeout,
            max_output: ssh.max_output,
            channels: 8,
            retries: 3,
            use_agent: true,
            host_keys: Arc::new(host_keys),
            handshakes: Arc::default(),
            keys: Arc::default(),
        },
        forks: ssh.forks,
        window,
        host_lldp: targets.iter().any(|t| fabcheck_model::is_switch_role(&t.role)),
        capture: false,
        device_timeout: ssh.device_timeout,
        interrupt: crate::collect::Interrupt::default(),
    })
}

/// Reads `--policy` (a file or a reference design's name), or the built-in one. A policy that
/// asks for nothing is a warning: every device would pass, which is not what whoever wrote the
/// file meant.
pub fn load_policy(path: Option<&Path>) -> anyhow::Result<Policy> {
    match path {
        Some(p) => {
            let policy = crate::policy::library::resolve(p).map_err(|e| anyhow::anyhow!("{e}"))?;
            if policy.checks_nothing() {
                eprintln!(
                    "fabcheck: warning: {}: the policy sets no rule (no roce, pfc, nic, ecn, counters...): nothing will be checked but reachability and reading",
                    p.display()
                );
            }
            Ok(policy)
        }
        None => Policy::parse(DEFAULT_POLICY, "built-in policy").map_err(|e| anyhow::anyhow!("{e}")),
    }
}

/// Writes every report and prints the verdict and the report's path on stdout. A report that
/// cannot be written is recorded in `unwritten`; the verdict is printed all the same.
pub fn report(result: &AuditResult, out: &Path, unwritten: &mut Unwritten) -> anyhow::Result<()> {
    let written = fabcheck_report::write_all(result, out);
    let is_written = |name: &str| written.files.iter().any(|f| f.ends_with(name));
    let (markdown, html) = (is_written("report.md"), is_written("report.html"));
    unwritten.reports(written);
    if markdown && let Some(summary) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|s| !s.is_empty()) {
        append_job_summary(&out.join("report.md"), Path::new(&summary));
    }
    let s = &result.summary;
    out!(
        "verdict: {} ({} critical, {} error, {} warning, {} info) on {}{}, {} unreachable",
        paint(&result.verdict.as_str().to_uppercase(), result.verdict.as_str()),
        s.critical,
        s.error,
        s.warning,
        s.info,
        counted(s.hosts, "host"),
        if s.switches > 0 { format!(" and {}", counted(s.switches, "switch")) } else { String::new() },
        s.unreachable
    )?;
    let worth = |f: &&fabcheck_model::Finding| f.severity >= Severity::Warning && f.waived.is_none();
    let findings = result.findings.iter().filter(worth).count();
    if result.incidents.is_empty() {
        // A result judged without correlation (none yet): its findings, worst first.
        for f in result.findings.iter().filter(worth).take(SHOWN) {
            let port = f.port.as_deref().map(|p| format!(" {p}")).unwrap_or_default();
            let severity = paint(&format!("{:<8}", f.severity.as_str()), f.severity.as_str());
            out!("  {severity} {:<28} {}{port}: {}", f.code, f.device, f.message)?;
        }
        if findings > SHOWN {
            out!("  ... and {} more in the report", findings - SHOWN)?;
        }
    } else {
        say_incidents(result, findings)?;
    }
    if result.paths_total > 0 {
        let failing = result.paths.iter().filter(|p| p.hops.iter().any(|h| !h.ok)).count();
        out!("paths: {} GPU paths (host NIC → leaf → spine), {failing} failing", result.paths_total)?;
    }
    if result.flows_total > 0 {
        out!("flows: {} judged, {} broke a limit (records in flows.jsonl)", result.flows_total, result.flows_failing)?;
    }
    if let Some(job) = &result.job {
        out!("job {}: {}", job.name, job.headline)?;
    }
    if s.waived > 0 {
        out!("waived: {} findings accepted by waivers (shown in the report, not failing the run)", s.waived)?;
    }
    if html {
        out!("report: {}", out.join("report.html").display())?;
    }
    Ok(())
}

/// Lines of findings or incidents the terminal shows; the reports have them all.
const SHOWN: usize = 20;

/// `1 host`, `4 hosts`, `1 switch`, `2 switches`.
fn counted(n: usize, what: &str) -> String {
    match (n, what.ends_with("ch")) {
        (1, _) => format!("1 {what}"),
        (_, true) => format!("{n} {what}es"),
        _ => format!("{n} {what}s"),
    }
}

/// The root causes, worst first, each with where it is and what it broke, then its message:
/// what an operator reads first. Incidents of waived or info findings only are left to the
/// reports.
fn say_incidents(result: &AuditResult, findings: usize) -> anyhow::Result<()> {
    if let Some(hint) = &result.design_hint {
        out!("{}: {}", paint("another design?", "warning"), hint.message)?;
        for w in &hint.widespread {
            out!("  {w}")?;
        }
    }
    let worth = |i: &&fabcheck_model::Incident| i.severity >= Severity::Warning && !i.waived;
    let incidents = result.incidents.iter().filter(worth).count();
    if incidents == 0 {
        return Ok(());
    }
    let (s, fs) = (if incidents == 1 { "" } else { "s" }, if findings == 1 { "" } else { "s" });
    out!("{incidents} incident{s} ({findings} finding{fs}), each a root cause and what it broke:")?;
    for i in result.incidents.iter().filter(worth).take(SHOWN) {
        let severity = paint(&format!("{:<8}", i.severity.as_str()), i.severity.as_str());
        let place = i.port.as_deref().map_or_else(|| i.device.clone(), |p| format!("{}:{p}", i.device));
        let roots = if i.roots.len() > 1 { format!(" ×{}", i.roots.len()) } else { String::new() };
        let broke = i.broke();
        let broke = if broke.is_empty() { String::new() } else { format!(": broke {broke}") };
        out!("  {severity} {}{roots} on {place}{broke}", i.code)?;
        out!("           {}", i.message)?;
        for fix in &i.fixes {
            for command in &fix.commands {
                out!("           fix: {command}")?;
            }
            if !fix.inspect.is_empty() {
                out!("           inspect: {}", fix.inspect)?;
            }
        }
    }
    if incidents > SHOWN {
        out!("  ... and {} more in the report", incidents - SHOWN)?;
    }
    Ok(())
}

/// Appends `report.md` to GitHub Actions' job summary file (`$GITHUB_STEP_SUMMARY`), which a
/// workflow shows on the run's page. A summary that cannot be written is a warning: the reports
/// and the exit status are what the run is judged by.
fn append_job_summary(report: &Path, summary: &Path) {
    use std::io::Write as _;
    let appended = std::fs::read(report).and_then(|md| {
        let mut file = std::fs::OpenOptions::new().create(true).append(true).open(summary)?;
        file.write_all(&md)
    });
    if let Err(e) = appended {
        eprintln!("fabcheck: warning: cannot append the report to GITHUB_STEP_SUMMARY {}: {e}", summary.display());
    }
}

/// Thousands of devices means thousands of sockets: lift the soft descriptor limit to the hard one.
fn raise_fd_limit() {
    if let Err(e) = rlimit::increase_nofile_limit(u64::MAX) {
        eprintln!("fabcheck: warning: cannot raise the open-file limit: {e}");
    }
}

/// The run's start as RFC 3339 UTC, to the second.
pub fn rfc3339(t: SystemTime) -> String {
    chrono::DateTime::<chrono::Utc>::from(t).to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}
