//! One audit end to end: collect (or read a snapshot), write evidence, check, build the result.

use crate::check::{CHECKS, check_device};
use crate::collect::{CollectOptions, DeviceTarget, Progress, collect_all};
use crate::evidence::{self, DeviceRecord, EVIDENCE_FORMAT_VERSION, Manifest, ManifestDevice};
use crate::policy::Policy;
use fabcheck_model::{AuditResult, Summary, Verdict};
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// The version written into reports and evidence.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Collects from every target, writing each device's evidence under `snapshot` as soon as it is
/// complete, then the manifest. Evidence that cannot be written is reported on stderr and does
/// not stop the audit (the findings are still produced).
pub async fn collect(
    targets: Vec<DeviceTarget>,
    options: &CollectOptions,
    snapshot: &Path,
    started: &str,
) -> Vec<DeviceRecord> {
    let bars = MultiProgress::new();
    let style = ProgressStyle::with_template("{prefix:>9} [{bar:30}] {pos}/{len} {elapsed}")
        .unwrap_or_else(|_| ProgressStyle::default_bar());
    let bar = |name: &'static str| {
        let b = bars.add(ProgressBar::new(targets.len() as u64));
        b.set_style(style.clone());
        b.set_prefix(name);
        b
    };
    let progress = Progress {
        collect: bar("collect"),
        counters: bar("counters"),
    };
    let write_errors = Arc::new(Mutex::new(Vec::new()));
    let sink = {
        let (root, errors) = (snapshot.to_path_buf(), write_errors.clone());
        move |record: &DeviceRecord| {
            if let Err(e) = evidence::write_device(&root, record) {
                errors
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push(e.to_string());
            }
        }
    };
    let records = collect_all(targets, options, progress.clone(), sink).await;
    progress.collect.finish_and_clear();
    progress.counters.finish_and_clear();
    let manifest = Manifest {
        format_version: EVIDENCE_FORMAT_VERSION,
        fabcheck: VERSION.into(),
        started: started.into(),
        window_s: options.window.as_secs_f64(),
        devices: records
            .iter()
            .map(|r| ManifestDevice {
                record: DeviceRecord {
                    outputs: Vec::new(),
                    ..r.clone()
                },
                outputs: r.outputs.iter().map(|e| e.key.clone()).collect(),
            })
            .collect(),
    };
    if let Err(e) = evidence::write_manifest(snapshot, &manifest) {
        write_errors
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(e.to_string());
    }
    for e in write_errors
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .iter()
    {
        eprintln!("fabcheck: warning: evidence not saved: {e}");
    }
    records
}

/// Checks every device against the policy.
pub fn judge(
    records: &[DeviceRecord],
    policy: &Policy,
    started: &str,
    clock: Instant,
) -> AuditResult {
    let mut result = AuditResult {
        fabcheck: VERSION.into(),
        started: started.into(),
        duration_s: 0.0,
        policy: policy.display_name().into(),
        verdict: Verdict::Pass,
        summary: Summary::default(),
        findings: Vec::new(),
        devices: Vec::new(),
        counters: Vec::new(),
        checks: CHECKS.iter().map(|c| c.to_string()).collect(),
    };
    for record in records {
        let audit = check_device(record, policy);
        result.findings.extend(audit.findings);
        result.devices.push(audit.summary);
        result.counters.extend(audit.counters);
    }
    result.duration_s = clock.elapsed().as_secs_f64();
    result.finish()
}
