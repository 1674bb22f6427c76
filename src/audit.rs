//! One audit end to end: collect (or read a snapshot), write evidence, check, build the result.
//!
//! Each device is judged as soon as its outputs are in and its raw outputs are then dropped, so
//! memory grows with the findings and counters kept, not with the bytes collected.

use crate::check::{CHECKS, DeviceAudit, check_device};
use crate::collect::{CollectOptions, DeviceTarget, Progress, collect_all};
use crate::evidence::{self, DeviceRecord, EVIDENCE_FORMAT_VERSION, Manifest};
use crate::facts;
use crate::policy::Policy;
use fabcheck_model::{AuditResult, Finding, Severity};
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// The version written into reports and evidence.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The counter window's countdown on the terminal: from the first device's first read (when
/// windows start), the seconds until the second reads begin.
fn countdown(bars: &MultiProgress, window: std::time::Duration, collect: ProgressBar) -> tokio::task::JoinHandle<()> {
    let bar = bars.add(ProgressBar::new(window.as_millis() as u64));
    bar.set_style(
        ProgressStyle::with_template("{prefix:>9} [{bar:30}] {msg}").unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_prefix("window");
    tokio::spawn(async move {
        while collect.position() == 0 {
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        let start = std::time::Instant::now();
        loop {
            let passed = start.elapsed().min(window);
            bar.set_position(passed.as_millis() as u64);
            bar.set_message(format!("{:.0} s left", (window - passed).as_secs_f64().ceil()));
            if passed >= window {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        }
        bar.finish_and_clear();
    })
}

/// What an audit of the targets gave.
pub struct Audited {
    /// Each device's verdict, in target order.
    pub audits: Vec<DeviceAudit>,
    /// The GPU hosts' facts the checks read, when asked for (`keep_host_facts`): what `bench
    /// judge` derives NCCL's settings from, read once with the audit's.
    pub host_facts: Vec<facts::DeviceFacts>,
    /// The evidence that could not be written, for the caller to keep the previous snapshot and
    /// say what was lost.
    pub write_errors: Vec<evidence::EvidenceError>,
}

/// Collects from every target and checks each device against `policy`, writing each device's
/// evidence under `snapshot` as soon as it is complete, then the manifest. Evidence that cannot be
/// written does not stop the audit: each failure is returned beside the audits. The hosts' facts
/// are kept when `keep_host_facts` (the others' are dropped with their outputs, as every device's
/// are otherwise: memory grows with the verdicts, not with the devices' evidence).
pub async fn collect_and_check(
    targets: Vec<DeviceTarget>,
    options: &CollectOptions,
    policy: Arc<Policy>,
    snapshot: &Path,
    started: &str,
    keep_host_facts: bool,
) -> Audited {
    let bars = MultiProgress::new();
    let style = ProgressStyle::with_template("{prefix:>9} [{bar:30}] {pos}/{len} {elapsed}")
        .unwrap_or_else(|_| ProgressStyle::default_bar());
    let bar = |name: &'static str| {
        let b = bars.add(ProgressBar::new(targets.len() as u64));
        b.set_style(style.clone());
        b.set_prefix(name);
        b
    };
    let progress = Progress { collect: bar("collect"), counters: bar("counters") };
    let write_errors = Arc::new(Mutex::new(Vec::new()));
    let on_device = {
        let (root, errors) = (snapshot.to_path_buf(), write_errors.clone());
        move |record: DeviceRecord| {
            if let Err(e) = evidence::write_device(&root, &record) {
                errors.lock().unwrap_or_else(|p| p.into_inner()).push(e);
            }
            let (audit, facts) = check_safely(&record, &policy);
            let kept = facts.filter(|f| keep_host_facts && matches!(f.kind, facts::DeviceKind::Host(_)));
            (DeviceRecord { outputs: Vec::new(), ..record }, (audit, kept))
        }
    };
    let countdown = match options.window {
        crate::collect::Window::Sleep(window) if !window.is_zero() => {
            Some(countdown(&bars, window, progress.collect.clone()))
        }
        _ => None,
    };
    let judged = collect_all(targets, options, progress.clone(), on_device).await;
    if let Some(task) = countdown {
        task.abort();
    }
    progress.collect.finish_and_clear();
    progress.counters.finish_and_clear();
    let (devices, judged): (Vec<_>, Vec<_>) = judged.into_iter().unzip();
    let (audits, kept): (Vec<_>, Vec<_>) = judged.into_iter().unzip();
    let manifest = Manifest {
        format_version: EVIDENCE_FORMAT_VERSION,
        fabcheck: VERSION.into(),
        started: started.into(),
        window_s: options.window.nominal().as_secs_f64(),
        devices,
    };
    let mut write_errors = std::mem::take(&mut *write_errors.lock().unwrap_or_else(|p| p.into_inner()));
    // A snapshot with a manifest is complete: a device that could not be saved leaves none.
    if write_errors.is_empty()
        && let Err(e) = evidence::write_manifest(snapshot, &manifest)
    {
        write_errors.push(e);
    }
    Audited { audits, host_facts: kept.into_iter().flatten().collect(), write_errors }
}

/// Checks one saved record (of a snapshot) against the policy.
pub fn check_record(record: &DeviceRecord, policy: &Policy) -> DeviceAudit {
    check_safely(record, policy).0
}

/// The code of a node a merge expected a snapshot from and got none.
pub use fabcheck_model::facts::unreachable::SNAPSHOT_MISSING;

/// The expected nodes (`--expect-nodes`) that no snapshot holds, each as a host with the
/// finding that says so: a node whose task failed, or never ran, is reported (and drained),
/// never silently absent from the merge.
pub fn missing_nodes(expected: &[String], present: &std::collections::HashSet<String>) -> Vec<DeviceAudit> {
    expected
        .iter()
        .filter(|name| !present.contains(*name))
        .map(|name| {
            let facts = facts::DeviceFacts {
                name: name.clone(),
                role: "host".into(),
                platform: "linux".into(),
                address: "-".into(),
                commands: 0,
                kind: facts::DeviceKind::Unreachable {
                    code: SNAPSHOT_MISSING.into(),
                    message: "no snapshot from this node: its task failed, or never ran, before writing one".into(),
                },
                reading: Vec::new(),
                unread: Vec::new(),
            };
            check_device(&facts, &Policy::default())
        })
        .collect()
}

/// Reads a device's facts and checks them; the facts come back beside the verdict. A bug in
/// either must cost one device's verdict, never the run: it becomes a finding (and no facts).
fn check_safely(record: &DeviceRecord, policy: &Policy) -> (DeviceAudit, Option<facts::DeviceFacts>) {
    let judged = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let facts = facts::build(record);
        (check_device(&facts, policy), Some(facts))
    }));
    judged.unwrap_or_else(|_| {
        let finding = Finding::new(
            "collect.internal_error",
            Severity::Error,
            &record.name,
            "fabcheck failed while checking this device (a bug: please report it with its evidence directory)",
        )
        .evidence(format!("{}/", record.name));
        let mut unread = facts::build(&DeviceRecord { outputs: Vec::new(), ..record.clone() });
        unread.commands = record.outputs.len();
        (DeviceAudit::failed(&unread, finding), None)
    })
}

/// Puts the devices' findings, rows and counters together into the result every report reads.
pub fn assemble(audits: Vec<DeviceAudit>, policy: &Policy, started: &str, clock: Instant) -> AuditResult {
    let mut result = AuditResult {
        fabcheck: VERSION.into(),
        started: started.into(),
        policy: policy.display_name().into(),
        checks: CHECKS.iter().map(|c| c.to_string()).collect(),
        metric_counters: policy.exported_counters(),
        ..AuditResult::default()
    };
    let fabric_devices: Vec<_> = audits
        .iter()
        .filter_map(|a| a.fabric.clone().map(|f| (a.summary.name.clone(), a.summary.role.clone(), f)))
        .collect();
    let fleet: Vec<_> = audits.iter().filter_map(|a| a.fleet.as_ref()).collect();
    result.findings.extend(crate::check::fleet::check(&fleet));
    let designs: Vec<_> = audits.iter().filter_map(|a| a.design.clone()).collect();
    for audit in audits {
        if let Some(config) = audit.config {
            result.config.devices.insert(audit.summary.name.clone(), config);
        }
        result.findings.extend(audit.findings);
        result.devices.push(audit.summary);
        result.counters.extend(audit.counters);
    }
    let checks = crate::check::fabric::check(&fabric_devices, policy);
    crate::check::host_lldp::settle(&mut result.findings, &checks.topology);
    let open_loops = crate::correlate::dcqcn::open_loops(&checks.topology, &result.counters, &result.findings);
    let fabric = crate::correlate::paths::mark(checks);
    result.findings.extend(fabric.findings);
    result.findings.extend(open_loops);
    result.paths = fabric.paths;
    result.paths_total = fabric.paths_total;
    result.design_hint = crate::policy::infer::hint::hint(&designs, policy, &result.findings);
    result.duration_s = clock.elapsed().as_secs_f64();
    result.finish()
}
