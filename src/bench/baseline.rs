//! The cluster's own baseline (a bus bandwidth is fast or slow only against what the same fabric
//! gave when healthy: nccl-tests, doc/PERFORMANCE.md): bus bandwidth curves saved from a good run, and the comparison that flags a drop beyond
//! a tolerance.

use super::reference::Floor;
use fabcheck_model::{BenchPoint, BenchRun};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// A saved baseline file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Baseline {
    /// fabcheck version that saved it.
    pub fabcheck: String,
    /// When the runs were measured (the report's start time).
    pub measured: String,
    /// The runs.
    pub runs: Vec<BaselineRun>,
}

/// One saved curve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BaselineRun {
    /// nccl-tests binary.
    pub test: String,
    /// Number of hosts it ran on (a pair's curve is not a 64-host run's).
    pub hosts: usize,
    /// Bus bandwidth by size.
    pub rows: Vec<BenchPoint>,
}

/// A baseline that cannot be read or made.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct BaselineError {
    /// The file.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl Baseline {
    /// The best finished run per (test, host count) from a report's benchmarks.
    pub fn from_runs(measured: &str, runs: &[BenchRun]) -> Option<Baseline> {
        let mut kept: Vec<BaselineRun> = Vec::new();
        for run in runs.iter().filter(|r| r.ok && !r.rows.is_empty()) {
            let candidate = BaselineRun { test: run.test.clone(), hosts: run.hosts.len(), rows: run.rows.clone() };
            match kept.iter_mut().find(|k| k.test == candidate.test && k.hosts == candidate.hosts) {
                Some(k) if peak(&k.rows) < peak(&candidate.rows) => *k = candidate,
                Some(_) => {}
                None => kept.push(candidate),
            }
        }
        (!kept.is_empty()).then(|| Baseline {
            fabcheck: crate::audit::VERSION.into(),
            measured: measured.into(),
            runs: kept,
        })
    }

    /// Reads a baseline file.
    pub fn load(path: &Path) -> Result<Baseline, BaselineError> {
        let err = |message: String| BaselineError { path: path.display().to_string(), message };
        let text = std::fs::read_to_string(path).map_err(|e| err(e.to_string()))?;
        serde_json::from_str(&text).map_err(|e| err(e.to_string()))
    }

    /// Writes it (pretty JSON, so it diffs well in a repository).
    pub fn save(&self, path: &Path) -> Result<(), BaselineError> {
        let err = |message: String| BaselineError { path: path.display().to_string(), message };
        let json = serde_json::to_vec_pretty(self).map_err(|e| err(e.to_string()))?;
        fabcheck_report::write_atomic(path, &json).map_err(|e| err(e.to_string()))
    }

    /// The saved curve for `test` on `hosts` hosts.
    pub fn curve(&self, test: &str, hosts: usize) -> Option<&BaselineRun> {
        self.runs.iter().find(|r| r.test == test && r.hosts == hosts)
    }

    /// The floor a run of `test` on `hosts` hosts must reach: the baseline's bandwidth at sizes of
    /// at least `min_bytes`, less `tolerance` (0.1 = 10 %).
    pub fn floor(&self, test: &str, hosts: usize, min_bytes: u64, tolerance: f64) -> Option<Floor> {
        let curve = self.curve(test, hosts)?;
        let best = curve
            .rows
            .iter()
            .filter(|p| p.size_bytes >= min_bytes)
            .map(|p| p.busbw_gbs)
            .fold(None, |m: Option<f64>, b| Some(m.map_or(b, |m| m.max(b))))?;
        Some(Floor {
            min_busbw_gbs: best * (1.0 - tolerance),
            min_bytes,
            source: format!("baseline measured {} ({best:.1} GB/s) − {:.0} %", self.measured, tolerance * 100.0),
        })
    }
}

/// Largest bus bandwidth of a curve.
pub fn peak(rows: &[BenchPoint]) -> f64 {
    rows.iter().map(|p| p.busbw_gbs).fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(label: &str, hosts: usize, busbw: f64, ok: bool) -> BenchRun {
        BenchRun {
            output: None,
            label: label.into(),
            test: "all_reduce_perf".into(),
            hosts: (0..hosts).map(|i| format!("gpu{i:03}")).collect(),
            command: String::new(),
            rows: vec![
                BenchPoint { size_bytes: 1 << 20, busbw_gbs: busbw / 4.0 },
                BenchPoint { size_bytes: 8 << 30, busbw_gbs: busbw },
            ],
            avg_busbw_gbs: None,
            peak_busbw_gbs: Some(busbw),
            expected_min_gbs: None,
            expected_source: None,
            baseline: vec![],
            transport: None,
            hcas: vec![],
            gdr: None,
            ok,
            duration_s: 1.0,
        }
    }

    #[test]
    fn the_best_finished_run_per_test_and_size_is_kept_and_gives_the_floor() {
        let b = Baseline::from_runs(
            "2026-11-29T00:00:00Z",
            &[run("a", 2, 80.0, true), run("b", 2, 90.0, true), run("c", 2, 99.0, false), run("d", 4, 85.0, true)],
        )
        .unwrap();
        assert_eq!(b.runs.len(), 2);
        assert_eq!(peak(&b.curve("all_reduce_perf", 2).unwrap().rows), 90.0);
        let f = b.floor("all_reduce_perf", 2, 1 << 30, 0.1).unwrap();
        assert!((f.min_busbw_gbs - 81.0).abs() < 1e-9);
        assert!(f.source.contains("2026-11-29"));
        assert_eq!(b.floor("all_reduce_perf", 8, 0, 0.1), None, "no curve for 8 hosts");
        assert_eq!(b.floor("all_reduce_perf", 2, 16 << 30, 0.1), None, "no sizes that large");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("baseline.json");
        b.save(&path).unwrap();
        assert_eq!(Baseline::load(&path).unwrap(), b);
        assert!(Baseline::from_runs("t", &[run("x", 2, 1.0, false)]).is_none());
    }
}
