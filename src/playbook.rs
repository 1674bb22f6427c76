//! Playbooks: the three uses of fabcheck written down once (readiness before training, the cron
//! audit, post-change verification), so a team runs `fabcheck run playbooks/readiness.yaml -i
//! INV` instead of remembering flags. A playbook is YAML, typed and strict like the policy.

use serde::Deserialize;
use std::path::{Path, PathBuf};

/// A whole playbook.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Playbook {
    /// Shown in reports and logs.
    pub name: String,
    /// What it is for.
    #[serde(default)]
    pub description: Option<String>,
    /// Policy file, relative to the playbook; the built-in policy when absent.
    #[serde(default)]
    pub policy: Option<PathBuf>,
    /// `--fail-on`.
    #[serde(default = "default_fail_on")]
    pub fail_on: String,
    /// Audit settings.
    #[serde(default)]
    pub audit: AuditStep,
    /// A benchmark after the audit (its counter window is the benchmark).
    #[serde(default)]
    pub bench: Option<BenchStep>,
    /// `--state`: where each run is kept, relative to the working directory (not the
    /// playbook: the playbook is often in a read-only checkout), so the next run reports what
    /// changed since and ends with the diff.
    #[serde(default)]
    pub state: Option<PathBuf>,
}

fn default_fail_on() -> String {
    "error".into()
}

/// The audit step.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditStep {
    /// Counter window (`10s`), when no benchmark spans it.
    #[serde(default)]
    pub window: Option<String>,
}

/// The benchmark step.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BenchStep {
    /// nccl-tests binaries.
    #[serde(default)]
    pub tests: Vec<String>,
    /// Pairwise isolation.
    #[serde(default)]
    pub pairwise: bool,
    /// Bisection of a slow run.
    #[serde(default)]
    pub bisect: bool,
    /// Each host alone too (intra-node), to tell the network from the compute side.
    #[serde(default = "yes")]
    pub intra_node: bool,
    /// Baseline file, relative to the playbook.
    #[serde(default)]
    pub baseline: Option<PathBuf>,
    /// Limit for one run (`10m`).
    #[serde(default)]
    pub timeout: Option<String>,
    /// Largest message (`8G`).
    #[serde(default)]
    pub max_bytes: Option<String>,
}

fn yes() -> bool {
    true
}

/// A playbook that cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("{file}: {message}")]
pub struct PlaybookError {
    /// The file.
    pub file: String,
    /// What is wrong.
    pub message: String,
}

impl Playbook {
    /// Reads a playbook; relative paths in it are made relative to its directory.
    pub fn load(path: &Path) -> Result<Playbook, PlaybookError> {
        let file = path.display().to_string();
        let err = |message: String| PlaybookError { file: file.clone(), message };
        let text = std::fs::read_to_string(path).map_err(|e| err(e.to_string()))?;
        let mut book: Playbook = serde_saphyr::from_str(&text).map_err(|e| err(e.to_string()))?;
        let dir = path.parent().unwrap_or(Path::new("."));
        book.policy = book.policy.map(|p| dir.join(p));
        if let Some(bench) = &mut book.bench {
            bench.baseline = bench.baseline.take().map(|p| dir.join(p));
        }
        Ok(book)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_playbooks_load() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("playbooks");
        for name in ["readiness.yaml", "cron-audit.yaml", "post-change.yaml"] {
            let book = Playbook::load(&dir.join(name)).unwrap_or_else(|e| panic!("{e}"));
            let policy = book.policy.clone().unwrap();
            assert!(policy.exists(), "{name}: {}", policy.display());
        }
        let readiness = Playbook::load(&dir.join("readiness.yaml")).unwrap();
        assert!(readiness.bench.as_ref().unwrap().pairwise);
    }

    #[test]
    fn unknown_keys_are_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.yaml");
        std::fs::write(&path, "name: x\nbench: { pairwize: true }\n").unwrap();
        let err = Playbook::load(&path).unwrap_err().to_string();
        assert!(err.contains("pairwize"), "{err}");
    }
}
