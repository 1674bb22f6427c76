//! Earlier runs as input: the run `--state DIR` keeps, and the two sides of `fabcheck diff`,
//! each of which may be a report directory, an evidence snapshot or a state file.
//!
//! The state is one file, `DIR/last-run.json` (the run's findings.json content and its
//! configuration values), replaced atomically (a temporary file renamed over it), so a run that
//! dies half-way leaves the previous state whole, and two files can never disagree.

use crate::audit::{assemble, check_record};
use crate::evidence::visit_snapshot;
use crate::policy::Policy;
use anyhow::Context as _;
use fabcheck_model::{AuditResult, FabricConfig};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The state file's name inside `--state DIR`.
pub const STATE_FILE: &str = "last-run.json";

/// Bumped when the state file's meaning changes; a state of another version is not compared.
const STATE_FORMAT_VERSION: u32 = 1;

/// What `--state` keeps of a run.
#[derive(Serialize, Deserialize)]
struct StateFile {
    format_version: u32,
    result: AuditResult,
    config: FabricConfig,
}

/// The run kept in `state`, or `None` when there is none yet. A state that cannot be read is
/// moved aside (`last-run.json.unreadable`) with a warning: the scheduled audit must go on, and
/// the next run starts a new history rather than failing every night.
pub fn previous(state: &Path) -> Option<AuditResult> {
    let file = state.join(STATE_FILE);
    let text = match std::fs::read(&file) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => {
            eprintln!("fabcheck: warning: --state {}: cannot read {}: {e}", state.display(), file.display());
            return None;
        }
    };
    match read_state(&text) {
        Ok(result) => Some(with_incidents(result)),
        Err(e) => {
            let aside = state.join(format!("{STATE_FILE}.unreadable"));
            let moved = std::fs::rename(&file, &aside).map(|()| format!("moved to {}", aside.display()));
            eprintln!(
                "fabcheck: warning: --state: {} is not a fabcheck state ({e}); {}: this run is compared with nothing",
                file.display(),
                moved.unwrap_or_else(|e| format!("and cannot be moved aside: {e}"))
            );
            None
        }
    }
}

fn read_state(text: &[u8]) -> anyhow::Result<AuditResult> {
    let state: StateFile = serde_json::from_slice(text)?;
    if state.format_version != STATE_FORMAT_VERSION {
        anyhow::bail!("state format {}, this fabcheck keeps format {STATE_FORMAT_VERSION}", state.format_version);
    }
    Ok(AuditResult { config: state.config, ..state.result })
}

/// Replaces the state with `result` (without its own comparison, so states do not nest).
pub fn keep(state: &Path, result: &AuditResult) -> anyhow::Result<()> {
    std::fs::create_dir_all(state).with_context(|| format!("--state: creating {}", state.display()))?;
    let kept = StateFile {
        format_version: STATE_FORMAT_VERSION,
        result: AuditResult { since_last_run: None, config: FabricConfig::default(), ..result.clone() },
        config: result.config.clone(),
    };
    let file = state.join(STATE_FILE);
    let bytes = serde_json::to_vec(&kept).context("--state: encoding the run")?;
    fabcheck_report::write_atomic(&file, &bytes).with_context(|| format!("--state: writing {}", file.display()))
}

/// A run to compare, from `path`: a report directory (`findings.json`, with `config.json` or
/// else the configuration re-read from its `evidence/`), an evidence snapshot (judged now
/// against `policy`), a state directory or file (`--state`), or a findings.json file.
pub fn load(path: &Path, policy: &Policy) -> anyhow::Result<AuditResult> {
    load_any(path, policy).map(with_incidents)
}

/// `result` with its root causes, found now when it was written without them (an evidence
/// snapshot judged now, a state or report of a fabcheck before incidents), so that two runs
/// compare incidents whatever wrote the earlier one.
fn with_incidents(mut result: AuditResult) -> AuditResult {
    if result.incidents.is_empty() && !result.findings.is_empty() {
        crate::correlate::root_causes(&mut result);
    }
    result
}

fn load_any(path: &Path, policy: &Policy) -> anyhow::Result<AuditResult> {
    let shown = path.display();
    if path.is_dir() {
        if path.join("findings.json").is_file() {
            return report_dir(path, policy);
        }
        if path.join(STATE_FILE).is_file() {
            return load_any(&path.join(STATE_FILE), policy);
        }
        for snapshot in [path.to_path_buf(), path.join("evidence")] {
            if snapshot.join("manifest.json").is_file() {
                return judge_snapshot(&snapshot, policy);
            }
        }
        anyhow::bail!(
            "{shown}: neither a report directory (findings.json), an evidence snapshot (manifest.json) nor a --state directory ({STATE_FILE})"
        );
    }
    let text = std::fs::read(path).with_context(|| format!("reading {shown}"))?;
    let json: serde_json::Value = serde_json::from_slice(&text)
        .with_context(|| format!("{shown}: not JSON (expected findings.json or {STATE_FILE})"))?;
    if json.get("format_version").is_some() && json.get("result").is_some() {
        return read_state(&text).with_context(|| format!("{shown}: not a fabcheck state"));
    }
    let mut result: AuditResult =
        serde_json::from_value(json).with_context(|| format!("{shown}: not a fabcheck findings.json"))?;
    if let Some(dir) = path.parent() {
        result.config = config_beside(dir, policy)?.unwrap_or_default();
    }
    Ok(result)
}

fn report_dir(dir: &Path, policy: &Policy) -> anyhow::Result<AuditResult> {
    let file = dir.join("findings.json");
    let text = std::fs::read(&file).with_context(|| format!("reading {}", file.display()))?;
    let mut result: AuditResult =
        serde_json::from_slice(&text).with_context(|| format!("{}: not a fabcheck findings.json", file.display()))?;
    match config_beside(dir, policy)? {
        Some(config) => result.config = config,
        None => eprintln!(
            "fabcheck: warning: {}: no config.json and no evidence/: configuration values are not compared",
            dir.display()
        ),
    }
    Ok(result)
}

/// The configuration values of the run in `dir`: its config.json, else read again from its
/// evidence (a report written before config.json existed), else `None`.
fn config_beside(dir: &Path, policy: &Policy) -> anyhow::Result<Option<FabricConfig>> {
    let file = dir.join("config.json");
    if file.is_file() {
        let text = std::fs::read(&file).with_context(|| format!("reading {}", file.display()))?;
        let config =
            serde_json::from_slice(&text).with_context(|| format!("{}: not a fabcheck config.json", file.display()))?;
        return Ok(Some(config));
    }
    let evidence = dir.join("evidence");
    if evidence.join("manifest.json").is_file() {
        return Ok(Some(judge_snapshot(&evidence, policy)?.config));
    }
    Ok(None)
}

/// An evidence snapshot judged now, dated by when it was collected.
fn judge_snapshot(dir: &Path, policy: &Policy) -> anyhow::Result<AuditResult> {
    let mut audits = Vec::new();
    let manifest = visit_snapshot(dir, crate::evidence::DEFAULT_MAX_OUTPUT, &mut |record| {
        audits.push(check_record(&record, policy));
    })
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(assemble(audits, policy, &manifest.started, std::time::Instant::now()))
}
