//! The Paths section: each half-path (host NIC → leaf port → leaf uplink → spine port) with its
//! hops marked, the diff of every failing hop, and the `path.inconsistent` findings of one hop
//! folded into one entry of the findings list.
//!
//! A fault on one leaf uplink breaks every path through it, so a cluster can have thousands of
//! `path.inconsistent` findings that all say the same thing; the reports show the hop once, with the
//! count and a few of its paths, and leave the full list to `findings.json`.

use super::FindingRow;
use fabcheck_model::{AuditResult, Finding, HopState, PathView};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// report.html draws at most this many failing paths as chains; the rest are counted (each is a
/// `path.inconsistent` finding in findings.json). Thousands of chains only make the page slow.
const DRAW_PATHS: usize = 1_000;
/// report.md lists at most this many failing paths: a PR comment is limited to 65,536 characters.
const MD_PATHS: usize = 50;
/// report.md shows at most this many hop diffs, for the same reason.
const MD_DIFFS: usize = 20;
/// A folded `path.inconsistent` entry names this many paths and counts the rest.
const FOLDED_PATHS: usize = 10;

/// Everything the Paths section shows; `total` is 0 when no path was checked (no section).
#[derive(Debug, Serialize)]
pub(crate) struct Paths<'a> {
    /// Paths in all, listed or not.
    pub total: usize,
    /// Paths with at least one failing hop.
    pub failing: usize,
    /// The failing paths report.html draws (at most [`DRAW_PATHS`]), grouped by the hops they fail
    /// at: a fault on one uplink fails hundreds of paths for the same reasons, said once.
    pub failing_groups: Vec<PathGroup<'a>>,
    /// Failing paths not drawn in report.html.
    pub failing_not_drawn: usize,
    /// The failing paths report.md lists (at most [`MD_PATHS`]), and how many it only counts.
    pub md_rows: Vec<PathRow<'a>>,
    pub md_more: usize,
    /// The passing paths the audit kept (all of them when there are few).
    pub passing_rows: Vec<PathRow<'a>>,
    /// Passing paths the audit did not keep.
    pub passing_not_listed: usize,
    /// Every failing hop that has a diff, once, worst first.
    pub hops: Vec<HopDiff<'a>>,
    /// How many of `hops` report.md shows, and how many it only counts.
    pub md_hops: usize,
    pub md_hops_more: usize,
}

/// Failing paths that fail at the same hops for the same reasons.
#[derive(Debug, Serialize)]
pub(crate) struct PathGroup<'a> {
    /// The failing hops and their reasons, in path order.
    pub failing: Vec<HopChip<'a>>,
    pub rows: Vec<PathRow<'a>>,
}

/// One path, in order.
#[derive(Debug, Serialize)]
pub(crate) struct PathRow<'a> {
    pub hops: Vec<HopChip<'a>>,
    /// The failing hops only (their reasons are listed under the chain).
    pub failing: Vec<HopChip<'a>>,
    /// `a → b → c`: the passing list and the search box use it.
    pub text: String,
}

/// One hop of a path.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct HopChip<'a> {
    /// `device:port`.
    pub hop: &'a str,
    pub ok: bool,
    pub reasons: &'a [String],
    /// The chip's tooltip: the reasons, one a line.
    pub title: String,
    /// The `id` of the hop's diff block, or empty when it has none.
    pub anchor: String,
}

/// A failing hop and the diff of its expected and actual normalized configuration.
#[derive(Debug, Serialize)]
pub(crate) struct HopDiff<'a> {
    /// `device:port`.
    pub hop: String,
    /// Its `id` in report.html, for the chips and findings that link to it.
    pub anchor: String,
    /// Worst severity of its findings.
    pub severity: &'static str,
    /// Codes of its findings, each once.
    pub codes: Vec<&'a str>,
    /// Failing paths through it.
    pub paths: usize,
    /// The diff line by line, each with its kind for colouring.
    pub lines: Vec<DiffLine<'a>>,
    /// The diff as it is, ending in a newline: the Markdown fence's content.
    pub text: String,
    /// A Markdown fence longer than any run of backticks in the diff.
    pub fence: String,
}

/// One line of a unified diff.
#[derive(Debug, Serialize)]
pub(crate) struct DiffLine<'a> {
    /// `file` (`---`/`+++` headers), `hunk` (`@@`), `add`, `del` or `ctx`: a CSS class.
    pub kind: &'static str,
    pub text: &'a str,
}

impl<'a> Paths<'a> {
    pub(crate) fn new(result: &'a AuditResult) -> Paths<'a> {
        let hops = hop_diffs(result);
        let anchors: BTreeMap<&str, &str> = hops.iter().map(|h| (h.hop.as_str(), h.anchor.as_str())).collect();
        let (failing, passing): (Vec<&PathView>, Vec<&PathView>) = result.paths.iter().partition(|p| fails(p));
        let total = total(result);
        let md_hops = hops.len().min(MD_DIFFS);
        Paths {
            total,
            failing: failing.len(),
            failing_groups: groups(failing.iter().take(DRAW_PATHS).map(|p| PathRow::new(p, &anchors))),
            failing_not_drawn: failing.len().saturating_sub(DRAW_PATHS),
            md_rows: failing.iter().take(MD_PATHS).map(|p| PathRow::new(p, &anchors)).collect(),
            md_more: failing.len().saturating_sub(MD_PATHS),
            passing_rows: passing.iter().map(|p| PathRow::new(p, &anchors)).collect(),
            passing_not_listed: total.saturating_sub(result.paths.len()),
            md_hops,
            md_hops_more: hops.len() - md_hops,
            hops,
        }
    }

    /// The anchor of a hop's diff block, or empty.
    pub(crate) fn anchor(&self, hop: &str) -> String {
        self.hops.iter().find(|h| h.hop == hop).map_or_else(String::new, |h| h.anchor.clone())
    }
}

/// Paths in all: `paths_total`, or the paths listed if there are more (a result built by hand).
pub(crate) fn total(result: &AuditResult) -> usize {
    result.paths_total.max(result.paths.len())
}

/// Paths with a failing hop (the audit lists every one of them).
pub(crate) fn failing(result: &AuditResult) -> usize {
    result.paths.iter().filter(|p| fails(p)).count()
}

/// Groups paths by their failing hops and reasons, in the order each group first occurs.
fn groups<'a>(rows: impl Iterator<Item = PathRow<'a>>) -> Vec<PathGroup<'a>> {
    let mut out: Vec<PathGroup> = Vec::new();
    for row in rows {
        let same = |g: &&mut PathGroup| {
            g.failing.len() == row.failing.len()
                && g.failing.iter().zip(&row.failing).all(|(a, b)| a.hop == b.hop && a.reasons == b.reasons)
        };
        match out.iter_mut().find(|g| same(g)) {
            Some(g) => g.rows.push(row),
            None => out.push(PathGroup { failing: row.failing.clone(), rows: vec![row] }),
        }
    }
    out
}

fn fails(p: &PathView) -> bool {
    p.hops.iter().any(|h| !h.ok)
}

impl<'a> PathRow<'a> {
    fn new(p: &'a PathView, anchors: &BTreeMap<&str, &str>) -> PathRow<'a> {
        let hops: Vec<HopChip> = p.hops.iter().map(|h| HopChip::new(h, anchors)).collect();
        PathRow {
            failing: hops.iter().filter(|h| !h.ok).cloned().collect(),
            text: p.hops.iter().map(|h| h.hop.as_str()).collect::<Vec<_>>().join(" → "),
            hops,
        }
    }
}

impl<'a> HopChip<'a> {
    fn new(h: &'a HopState, anchors: &BTreeMap<&str, &str>) -> HopChip<'a> {
        let title = match (h.ok, h.reasons.is_empty()) {
            (true, _) => "passes every check".to_string(),
            (false, true) => "fails".to_string(),
            (false, false) => h.reasons.join("\n"),
        };
        HopChip {
            hop: &h.hop,
            ok: h.ok,
            reasons: &h.reasons,
            title,
            anchor: anchors.get(h.hop.as_str()).map_or_else(String::new, |a| a.to_string()),
        }
    }
}

/// One block per hop whose findings carry a diff, in the order of the findings (worst first). The
/// diff is the same on every finding of a hop; the first non-empty one is shown.
fn hop_diffs(result: &AuditResult) -> Vec<HopDiff<'_>> {
    let mut through: BTreeMap<&str, usize> = BTreeMap::new();
    for p in result.paths.iter().filter(|p| fails(p)) {
        let hops: BTreeSet<&str> = p.hops.iter().map(|h| h.hop.as_str()).collect();
        for hop in hops {
            *through.entry(hop).or_default() += 1;
        }
    }
    let mut out: Vec<HopDiff> = Vec::new();
    let mut used: BTreeSet<String> = BTreeSet::new();
    for f in &result.findings {
        let Some(diff) = f.diff.as_deref().filter(|d| !d.trim().is_empty()) else { continue };
        let hop = f.hop();
        if let Some(h) = out.iter_mut().find(|h| h.hop == hop) {
            if !h.codes.contains(&f.code.as_str()) {
                h.codes.push(&f.code);
            }
            continue;
        }
        let anchor = unique(format!("hop-{}", slug(&hop)), &mut used);
        let mut text = diff.to_string();
        if !text.ends_with('\n') {
            text.push('\n');
        }
        out.push(HopDiff {
            paths: through.get(hop.as_str()).copied().unwrap_or(0),
            hop,
            anchor,
            severity: f.severity.as_str(),
            codes: vec![&f.code],
            lines: diff_lines(diff),
            fence: fence(diff),
            text,
        });
    }
    out
}

/// The diff's lines, each classified: the `---`/`+++` file headers before the first hunk, hunk
/// headers, added, removed and context lines.
fn diff_lines(diff: &str) -> Vec<DiffLine<'_>> {
    let mut in_hunk = false;
    diff.lines()
        .map(|text| {
            let kind = if text.starts_with("@@") {
                in_hunk = true;
                "hunk"
            } else if !in_hunk && (text.starts_with("---") || text.starts_with("+++")) {
                "file"
            } else if text.starts_with('+') {
                "add"
            } else if text.starts_with('-') {
                "del"
            } else {
                "ctx"
            };
            DiffLine { kind, text }
        })
        .collect()
}

/// ```` ``` ```` or, when the diff has a run of three or more backticks, one more than the longest.
fn fence(diff: &str) -> String {
    let longest = diff.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat(longest.max(2) + 1)
}

/// A hop name as an HTML id: ASCII letters, digits, `-`, `_` and `.`; anything else becomes `-`.
fn slug(hop: &str) -> String {
    hop.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '-' }).collect()
}

/// `id`, or `id-2`, `id-3`... when two hops slug to the same id.
fn unique(id: String, used: &mut BTreeSet<String>) -> String {
    let mut candidate = id.clone();
    let mut n = 1;
    while used.contains(&candidate) {
        n += 1;
        candidate = format!("{id}-{n}");
    }
    used.insert(candidate.clone());
    candidate
}

/// The findings of one severity as rows, with the `path.inconsistent` findings of each hop
/// folded into one row when there are several: the count, the first [`FOLDED_PATHS`] paths and how
/// many more. A single one keeps its own row.
pub(crate) fn finding_rows<'a>(
    findings: &[&'a Finding],
    result: &'a AuditResult,
    paths: &Paths,
) -> Vec<FindingRow<'a>> {
    let is_path = |f: &Finding| f.code == "path.inconsistent";
    let mut per_hop: BTreeMap<(&str, Option<&str>), Vec<&'a Finding>> = BTreeMap::new();
    for f in findings.iter().copied().filter(|f| is_path(f)) {
        per_hop.entry((&f.device, f.port.as_deref())).or_default().push(f);
    }
    let mut rows = Vec::with_capacity(findings.len());
    for &f in findings {
        let anchor = if f.diff.is_some() || is_path(f) { paths.anchor(&f.hop()) } else { String::new() };
        if !is_path(f) {
            rows.push(FindingRow::new(f, anchor));
            continue;
        }
        let Some(members) = per_hop.remove(&(f.device.as_str(), f.port.as_deref())) else {
            continue; // folded into an earlier row
        };
        if members.len() == 1 {
            rows.push(FindingRow::new(f, anchor));
        } else {
            rows.push(folded(&members, result, anchor));
        }
    }
    rows
}

/// One row for the `path.inconsistent` findings of one hop (at least two).
fn folded<'a>(members: &[&'a Finding], result: &'a AuditResult, anchor: String) -> FindingRow<'a> {
    let first = members[0];
    let hop = first.hop();
    // Why the hop fails, as the paths record it (the same on every path through it).
    let reasons = result.paths.iter().flat_map(|p| &p.hops).find(|h| h.hop == hop && !h.ok).map(|h| &h.reasons);
    let message = match reasons.filter(|r| !r.is_empty()) {
        Some(r) => format!("{} paths break at {hop}: {}", members.len(), r.join("; ")),
        None => format!("{} paths break at {hop}", members.len()),
    };
    let mut row = FindingRow::new(first, anchor);
    row.message = message.into();
    row.path = &[];
    row.count = members.len();
    row.paths = members.iter().take(FOLDED_PATHS).map(|f| f.path.as_slice()).collect();
    row.paths_more = members.len().saturating_sub(FOLDED_PATHS);
    row.evidence = union(members.iter().map(|f| &f.evidence));
    row.caused_by = union(members.iter().map(|f| &f.caused_by));
    row
}

/// The values of several lists, each once, in the order they first occur.
fn union<'a>(lists: impl Iterator<Item = &'a Vec<String>>) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for v in lists.flatten() {
        if !out.contains(&v.as_str()) {
            out.push(v);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture;
    use crate::view::View;

    #[test]
    fn failing_and_passing_paths_are_counted_and_split() {
        let r = fixture::fabric_result();
        let p = Paths::new(&r);
        assert_eq!((p.total, p.failing), (16, 13));
        assert_eq!((p.md_rows.len(), p.md_more, p.passing_rows.len(), p.passing_not_listed), (13, 0, 3, 0));
        assert_eq!(p.failing_groups.len(), 1, "all 13 fail at the same hops for the same reasons");
        assert_eq!(p.failing_groups[0].rows.len(), 13);
        let first = &p.md_rows[0];
        assert_eq!(first.text, "gpu01:mlx5_0 → leaf1:Ethernet16 → leaf1:Ethernet8 → spine1:Ethernet4");
        let marks: Vec<bool> = first.hops.iter().map(|h| h.ok).collect();
        assert_eq!(marks, [true, true, false, false]);
        let failing: Vec<&str> = first.failing.iter().map(|h| h.hop).collect();
        assert_eq!(failing, ["leaf1:Ethernet8", "spine1:Ethernet4"]);
        assert_eq!(first.hops[0].title, "passes every check");
        assert!(first.hops[2].title.contains("\n"), "one reason a line: {}", first.hops[2].title);
        assert_eq!(first.hops[2].anchor, "hop-leaf1-Ethernet8");
        assert_eq!(first.hops[0].anchor, "", "no diff, no link");
    }

    #[test]
    fn each_hop_with_a_diff_gets_one_block() {
        let r = fixture::fabric_result();
        let p = Paths::new(&r);
        let hops: Vec<(&str, &str, usize)> =
            p.hops.iter().map(|h| (h.hop.as_str(), h.anchor.as_str(), h.paths)).collect();
        assert_eq!(
            hops,
            [("leaf1:Ethernet8", "hop-leaf1-Ethernet8", 13), ("spine1:Ethernet4", "hop-spine1-Ethernet4", 13)]
        );
        assert_eq!(p.hops[0].codes, ["switch.pfc_mismatch", "switch.ecn_disabled"], "each once");
        assert_eq!(p.hops[0].severity, "critical");
        let kinds: Vec<&str> = p.hops[0].lines.iter().map(|l| l.kind).collect();
        assert_eq!(kinds[..6], ["file", "file", "hunk", "del", "add", "ctx"]);
        assert!(p.hops[0].text.ends_with('\n'));
        assert_eq!(p.hops[0].fence, "```");
    }

    #[test]
    fn a_diff_line_is_classified_by_its_first_characters() {
        let lines = diff_lines("--- a\n+++ b\n@@ -1 +1 @@\n---x\n+++y\n x\n");
        let kinds: Vec<&str> = lines.iter().map(|l| l.kind).collect();
        assert_eq!(kinds, ["file", "file", "hunk", "del", "add", "ctx"], "--- inside a hunk is a removed line");
        assert_eq!(fence("a ```` b"), "`````");
        assert_eq!(fence("a ` b"), "```");
    }

    #[test]
    fn failing_paths_are_grouped_by_where_and_why_they_fail() {
        let mut r = fixture::fabric_result();
        // gpu13's path fails at the spine only.
        r.paths[12].hops[2] = HopState { hop: "leaf1:Ethernet8".into(), ok: true, reasons: vec![] };
        // gpu12's uplink fails for another reason.
        r.paths[11].hops[2].reasons = vec!["PFC priorities differ across the link".into()];
        let p = Paths::new(&r);
        let groups: Vec<(Vec<&str>, usize)> =
            p.failing_groups.iter().map(|g| (g.failing.iter().map(|h| h.hop).collect(), g.rows.len())).collect();
        assert_eq!(
            groups,
            [
                (vec!["leaf1:Ethernet8", "spine1:Ethernet4"], 11),
                (vec!["leaf1:Ethernet8", "spine1:Ethernet4"], 1),
                (vec!["spine1:Ethernet4"], 1),
            ]
        );
        assert_eq!(p.md_rows.len(), 13, "Markdown keeps one row per path, in order");
    }

    #[test]
    fn anchors_are_safe_ids_and_unique() {
        let mut used = BTreeSet::new();
        assert_eq!(unique(format!("hop-{}", slug("leaf1:Eth1/1")), &mut used), "hop-leaf1-Eth1-1");
        assert_eq!(unique(format!("hop-{}", slug("leaf1:Eth1-1")), &mut used), "hop-leaf1-Eth1-1-2");
        assert_eq!(slug("a\"<b> é"), "a--b---");
    }

    #[test]
    fn path_findings_of_one_hop_fold_into_one_row() {
        let r = fixture::fabric_result();
        let v = View::new(&r);
        let error = v.groups.iter().find(|g| g.severity == "error").unwrap();
        assert_eq!(error.count, r.findings.iter().filter(|f| f.severity.as_str() == "error").count());
        let folded: Vec<&FindingRow> = error.findings.iter().filter(|f| f.count > 1).collect();
        assert_eq!(folded.len(), 1);
        let f = folded[0];
        assert_eq!((f.code, f.device, f.port, f.count), ("path.inconsistent", "leaf1", "Ethernet8", 13));
        assert_eq!((f.paths.len(), f.paths_more), (10, 3));
        assert!(f.path.is_empty());
        assert!(f.message.starts_with("13 paths break at leaf1:Ethernet8: PFC on priorities none"), "{}", f.message);
        assert_eq!(f.diff, "hop-leaf1-Ethernet8", "linked to the hop's diff");
        assert_eq!(f.caused_by, ["switch.pfc_mismatch"]);
        // The lone path finding of gpu01 keeps its own row and its path.
        let warning = v.groups.iter().find(|g| g.severity == "warning").unwrap();
        let lone = warning.findings.iter().find(|f| f.code == "path.inconsistent").unwrap();
        assert_eq!((lone.count, lone.path.len()), (1, 3));
        // Every finding is accounted for.
        let rows: usize = v.groups.iter().flat_map(|g| &g.findings).map(|f| f.count).sum();
        assert_eq!(rows, r.findings.len());
    }

    #[test]
    fn large_fabrics_are_capped() {
        let mut r = fixture::fabric_result();
        let failing = r.paths[0].clone();
        r.paths = vec![failing; 1_200];
        r.paths_total = 5_000;
        let p = Paths::new(&r);
        let drawn: usize = p.failing_groups.iter().map(|g| g.rows.len()).sum();
        assert_eq!((p.total, p.failing, drawn, p.failing_not_drawn), (5_000, 1_200, 1_000, 200));
        assert_eq!((p.md_rows.len(), p.md_more), (50, 1_150));
        assert_eq!(p.passing_not_listed, 3_800);
    }
}
