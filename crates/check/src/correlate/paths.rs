//! Paths: every half-path (host NIC → leaf → uplink → spine) marked hop by hop from what the
//! fabric checks found, and each path whose lossless chain breaks gets one `path.inconsistent`
//! at the first hop that breaks it.
//!
//! A hop breaks the chain only through a finding of its own at `error` or worse, and the path's
//! finding takes that severity: a missing PFC watchdog (a warning) makes no error path. When the
//! two ends of a link disagree (PFC priorities, speed), the blame goes to an end that fails its
//! own checks; when neither does (the policy is silent on it), to both.

use crate::check::fabric::FabricChecks;
use crate::topology::{End, Topology};
use fabcheck_model::{Finding, HopState, PathView, Severity};
use std::collections::BTreeMap;

/// Paths up to this many are all listed in the report; beyond, only the failing ones.
const LIST_ALL_PATHS: usize = 256;

/// Why a hop is not clean.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HopProblem {
    /// The severity of the finding behind it.
    pub severity: Severity,
    /// Its message.
    pub reason: String,
}

/// Problems per hop.
pub type Hops = BTreeMap<End, Vec<HopProblem>>;

/// Two ends of a link that disagree on what the lossless chain needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disagreement {
    /// One end.
    pub a: End,
    /// The other.
    pub b: End,
    /// What differs.
    pub reason: String,
}

/// The fabric checks' findings with the paths marked.
#[derive(Debug, Default)]
pub struct Marked {
    /// Findings, `path.inconsistent` last.
    pub findings: Vec<Finding>,
    /// Paths for the report.
    pub paths: Vec<PathView>,
    /// How many half-paths there are.
    pub paths_total: usize,
}

/// Places the blame for disagreements and marks every half-path.
pub fn mark(checks: FabricChecks) -> Marked {
    let FabricChecks { findings, topology, mut hops, disagreements } = checks;
    let breaks = |hops: &Hops, e: &End| hops.get(e).is_some_and(|p| p.iter().any(breaks_chain));
    for d in &disagreements {
        let failing: Vec<&End> = [&d.a, &d.b].into_iter().filter(|e| breaks(&hops, e)).collect();
        let blamed: Vec<End> =
            if failing.is_empty() { vec![d.a.clone(), d.b.clone()] } else { failing.into_iter().cloned().collect() };
        for end in blamed {
            hops.entry(end).or_default().push(HopProblem { severity: Severity::Error, reason: d.reason.clone() });
        }
    }
    let mut marked = Marked { findings, ..Marked::default() };
    paths(&topology, &hops, &mut marked);
    marked
}

fn breaks_chain(p: &HopProblem) -> bool {
    p.severity >= Severity::Error
}

/// Marks every half-path and reports each failing one where its chain first breaks.
fn paths(topo: &Topology, hops: &Hops, result: &mut Marked) {
    let half = topo.half_paths();
    result.paths_total = half.len();
    let chain_breakers = |e: &End| -> Vec<&HopProblem> {
        hops.get(e).map(|p| p.iter().filter(|p| breaks_chain(p)).collect()).unwrap_or_default()
    };
    for path in &half {
        let states: Vec<HopState> = path
            .hops
            .iter()
            .map(|h| {
                let reasons: Vec<String> = chain_breakers(h).iter().map(|p| p.reason.clone()).collect();
                HopState { hop: h.hop(), ok: reasons.is_empty(), reasons }
            })
            .collect();
        if let Some(broken) = path.hops.iter().find(|h| !chain_breakers(h).is_empty()) {
            let problems = chain_breakers(broken);
            let severity = problems.iter().map(|p| p.severity).max().unwrap_or(Severity::Error);
            let reasons: Vec<&str> = problems.iter().map(|p| p.reason.as_str()).collect();
            let mut f = Finding::new(
                "path.inconsistent",
                severity,
                &broken.device,
                format!(
                    "the lossless chain {} breaks at {}: {}",
                    path.names().join(" → "),
                    broken.hop(),
                    reasons.join("; ")
                ),
            )
            .port(broken.port.clone())
            .expected_actual("every hop lossless for the RoCE priority", format!("{} fails", broken.hop()));
            f.path = path.names();
            result.findings.push(f);
        }
        if half.len() <= LIST_ALL_PATHS || states.iter().any(|s| !s.ok) {
            result.paths.push(PathView { hops: states });
        }
    }
}
