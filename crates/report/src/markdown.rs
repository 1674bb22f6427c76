//! `report.md`: the report as a GitHub pull-request comment or a CI job summary.

use crate::view::View;
use crate::{ReportError, Reporter};
use fabcheck_model::AuditResult;
use tera::Context;

const TEMPLATE: &str = include_str!("../../../templates/report.md.tera");

/// What the report may take as a pull-request comment or a job summary: GitHub refuses comments
/// over 65,536 characters; the rest is headroom for a bot's own text around it.
pub const COMMENT_CHARS: usize = 60_000;

/// Writes `report.md` from `templates/report.md.tera`.
///
/// The first line is the verdict (`**FAIL** — 2 critical, 1 error on 3 hosts (1 unreachable)`),
/// because that is the line a PR shows when the comment is collapsed. Values from devices are
/// escaped with the template filters `md` (text) and `code` (code spans), both safe inside table
/// cells: a `|` in a device's output must not split a row.
#[derive(Debug, Clone, Copy, Default)]
pub struct MarkdownReporter;

impl Reporter for MarkdownReporter {
    fn file_name(&self) -> &'static str {
        "report.md"
    }

    fn write(&self, result: &AuditResult, out: &mut dyn std::io::Write) -> Result<(), ReportError> {
        let err = |e| ReportError::render(self.file_name(), e);
        let mut tera = crate::run_comparison::markdown_tera().map_err(err)?;
        // No autoescape: the name does not end in .html, and HTML entities would show up
        // literally inside code spans.
        tera.add_raw_template("report.md", TEMPLATE).map_err(err)?;
        let mut view = View::new(result);
        view.leave_out_clean_devices();
        let text = fit(view, |view| {
            let context = Context::from_serialize(view).map_err(err)?;
            tera.render("report.md", &context).map_err(err)
        })?;
        out.write_all(text.as_bytes()).map_err(|e| ReportError::render(self.file_name(), e))
    }
}

/// The report `render` makes of `view`, shrunk until it fits a comment ([`COMMENT_CHARS`]).
///
/// A render is what a Markdown report costs, so what is sure not to fit is shrunk before any:
/// more rows than could fit at even 30 characters each, or a counters table whose cells alone
/// are too long (a cluster's moving counters, thousands of rows). Shrinking then is what a
/// render found too long would have done first (those tables cut to 20 rows), so the report is
/// the same, rendered once instead of twice.
fn fit<E>(mut view: View, mut render: impl FnMut(&View) -> Result<String, E>) -> Result<String, E> {
    while view.rows() > COMMENT_CHARS / 30 && view.shrink((COMMENT_CHARS / 30) as f64 / view.rows() as f64) {}
    if view.counter_chars_at_least() > COMMENT_CHARS {
        view.shrink(COMMENT_CHARS as f64 / view.counter_chars_at_least() as f64);
    }
    loop {
        let text = render(&view)?;
        let chars = text.chars().count();
        if chars <= COMMENT_CHARS || !view.shrink(COMMENT_CHARS as f64 / chars as f64) {
            return Ok(text);
        }
    }
}

/// Escapes text for Markdown, inline or in a table cell.
///
/// Backslash-escapes the ASCII punctuation that starts emphasis, links, code, HTML or a table
/// cell (GFM allows escaping any ASCII punctuation), and folds line breaks into spaces so that a
/// value never ends a table row.
pub(crate) fn md_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for ch in s.chars() {
        match ch {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '~' | '&' | '!' | '#' => {
                out.push('\\');
                out.push(ch);
            }
            '\r' | '\n' => out.push(' '),
            _ => out.push(ch),
        }
    }
    out
}

/// Puts a value in a code span that is safe in a table cell; empty for an empty value.
///
/// The fence is one backtick longer than the longest run of backticks inside, and a `|` is written
/// `\|`, which GFM tables require even inside code spans (and render as `|`). A value with a
/// backslash is written as escaped text instead: GFM splits rows before it parses code spans, so
/// `\|` in a value would end the cell, and backslashes cannot be escaped inside a code span.
pub(crate) fn md_code(s: &str) -> String {
    if s.is_empty() {
        return String::new();
    }
    if s.contains('\\') {
        return md_text(s);
    }
    let s = s.replace(['\r', '\n'], " ");
    let longest = s.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if s.starts_with('`') || s.ends_with('`') { " " } else { "" };
    format!("{fence}{pad}{}{pad}{fence}", s.replace('|', "\\|"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture;

    /// The findings tables, after the incidents that open the report and name codes too.
    fn findings_part(md: &str) -> &str {
        &md[md.find("| device | port | code |").expect("a findings table")..]
    }

    fn render(r: &AuditResult) -> String {
        String::from_utf8(MarkdownReporter.render(r).unwrap()).unwrap()
    }

    #[test]
    fn verdict_comes_first_in_one_line() {
        let md = render(&fixture::audit_result());
        assert_eq!(
            md.lines().next().unwrap(),
            "**FAIL** — 2 critical, 2 errors, 3 warnings, 1 info on 3 hosts and 1 switch (1 unreachable)"
        );
        let clean = render(&fixture::clean_result());
        assert_eq!(clean.lines().next().unwrap(), "**PASS** — no findings on 1 host");
        assert!(!clean.contains("### Findings"), "{clean}");
    }

    /// Issue 36: the fabric built to another design is said before the incidents, once.
    #[test]
    fn another_design_is_said_before_the_incidents() {
        let md = render(&fixture::audit_result());
        let hint = md.find("**Another design?** the fabric looks built to another design").expect("hint missing");
        let incidents = md.find("### Incidents").expect("incidents missing");
        assert!(hint < incidents);
        assert!(md.contains("- nic.pfc\\_mismatch on 7 of 8 host ports"), "{md}");
        assert!(!render(&fixture::clean_result()).contains("Another design"));
    }

    #[test]
    fn summary_table_has_the_counts() {
        let md = render(&fixture::audit_result());
        assert!(
            md.contains(
                "| hosts | switches | unreachable | critical | error | warning | info |\n\
                 |---:|---:|---:|---:|---:|---:|---:|\n\
                 | 3 | 1 | 1 | 2 | 2 | 3 | 1 |\n"
            ),
            "{md}"
        );
    }

    #[test]
    fn findings_are_grouped_by_severity_with_all_columns() {
        let md = render(&fixture::audit_result());
        let headings: Vec<&str> = md.lines().filter(|l| l.starts_with("#### ")).collect();
        assert_eq!(headings, ["#### Critical (2)", "#### Error (2)", "#### Warning (3)", "#### Info (1)"]);
        assert!(md.contains(
            "| gpu01 | `mlx5_0` | `nic.pfc_mismatch` | `3` | `none` | PFC is off on the RoCE priority | `gpu01/mlnx_qos_mlx5_0.txt` |\n"
        ), "{md}");
        // The path and the cause go with the message.
        assert!(md.contains(
            "the path to gpu02 is lossless on 2 of 3 hops<br>path: `gpu01:mlx5_0` → `leaf1:Ethernet8` → `gpu02:mlx5_0`<br>caused by: `switch.pfc_mismatch`"
        ), "{md}");
    }

    #[test]
    fn pipes_and_html_in_values_cannot_break_the_table() {
        let md = render(&fixture::audit_result());
        let row = md.lines().find(|l| l.contains("counter.out_of_buffer")).unwrap();
        assert_eq!(
            row,
            "| gpu02 | `mlx5_0` | `counter.out_of_buffer` | `0` | `1523 \\| growing` | \
             out\\_of\\_buffer grew by 1523 \\<script\\>alert(\"x\")\\</script\\> \\| rx | \
             `gpu02/ethtool_S_mlx5_0.before.txt`<br>`gpu02/ethtool_S_mlx5_0.after.txt` |"
        );
        // Every table row has as many unescaped pipes as its header.
        for table in md.split("\n\n").filter(|b| b.starts_with('|')) {
            let cells = |l: &str| l.replace("\\|", "").matches('|').count();
            let header = cells(table.lines().next().unwrap());
            for line in table.lines() {
                assert_eq!(cells(line), header, "{line}");
            }
        }
    }

    #[test]
    fn outputs_not_fully_understood_are_listed_with_their_lines() {
        let md = render(&fixture::audit_result());
        assert!(md.contains("<details><summary>Outputs not fully understood: 1</summary>"), "{md}");
        assert!(
            md.contains("| gpu02 | `mlnx_qos -i ens1np0` | 4 | `Priority trust state is not supported on your system` | unrecognised line |\n"),
            "{md}"
        );
    }

    #[test]
    fn device_table_has_one_row_per_device() {
        let md = render(&fixture::audit_result());
        assert!(
            md.contains(
                "| device | role | address | reachable | NICs | worst | findings | commands | parse issues |\n"
            )
        );
        assert!(md.contains("| gpu03 | host | `10.0.0.3:22` | **no** |  | error | 1 | 0 | 0 |\n"), "{md}");
        assert!(
            md.contains("| gpu01 | host | `10.0.0.1:22` | yes | `mlx5_0` `mlx5_1` | critical | 4 | 14 | 0 |\n"),
            "{md}"
        );
    }

    #[test]
    fn large_clusters_list_only_devices_that_need_attention() {
        let mut r = fixture::audit_result();
        for i in 0..60 {
            let mut d = r.devices[0].clone();
            d.name = format!("gpu{:03}", 100 + i);
            d.findings = 0;
            d.worst = None;
            r.devices.push(d);
        }
        let md = render(&r);
        assert!(!md.contains("| gpu100 |"), "{md}");
        assert!(md.contains("| gpu03 | host |"), "{md}");
        assert!(
            md.contains(
                "\n\n60 reachable devices without findings or parse issues are not listed; report.html has them all.\n"
            ),
            "{md}"
        );
    }

    #[test]
    fn counters_show_resets_and_count_the_quiet_ones() {
        let md = render(&fixture::audit_result());
        assert!(md.contains("| gpu01 | `mlx5_1` | `out_of_buffer` ⚑ | 3 | **reset** |  | packets |\n"), "{md}");
        assert!(md.contains("3 unchanged counters not shown"), "{md}");
    }

    /// An output that could not be read at all, and one cut short with no line skipped, have no
    /// skipped lines: both reports still render and say why (a missing list once broke them).
    #[test]
    fn outputs_failed_or_cut_short_without_skipped_lines_are_listed() {
        let mut r = fixture::audit_result();
        let read = |status, error: &str| fabcheck_model::OutputRead {
            evidence: "gpu01/lsmod.txt".into(),
            command: "timeout -k 2 1 lsmod".into(),
            status,
            error: Some(error.into()),
            lines: Vec::new(),
        };
        r.devices[0].unread = vec![
            read(fabcheck_model::ReadStatus::Failed, "not lsmod output"),
            read(fabcheck_model::ReadStatus::Partial, "cut short (stopped on the host at --command-timeout)"),
        ];
        let md = render(&r);
        assert!(md.contains("| gpu01 | `timeout -k 2 1 lsmod` | | | not lsmod output |\n"), "{md}");
        assert!(md.contains("| | cut short (stopped on the host at --command-timeout) |\n"), "{md}");
        let html = String::from_utf8(crate::HtmlReporter.render(&r).unwrap()).unwrap();
        assert!(
            html.contains(
                "<td>partial</td><td></td><td></td><td>cut short (stopped on the host at --command-timeout)</td>"
            ),
            "{html}"
        );
    }

    #[test]
    fn perfquery_data_counters_are_shown_in_bytes_not_words() {
        let mut r = fixture::audit_result();
        r.counters = vec![fabcheck_model::CounterSample {
            device: "gpu01".into(),
            port: "mlx5_2/1".into(),
            counter: "PortXmitData".into(),
            value: 1_000_000,
            delta: Some(250_000),
            rate_per_s: Some(25_000.0),
        }];
        let md = render(&r);
        assert!(
            md.contains("| gpu01 | `mlx5_2/1` | `PortXmitData` | 4,000,000 | 1,000,000 | 100,000 | bytes |\n"),
            "{md}"
        );
    }

    #[test]
    fn the_job_opens_the_report_and_the_flows_have_a_table() {
        let plain = render(&fixture::audit_result());
        assert!(!plain.contains("### Job") && !plain.contains("### Flows"), "{plain}");
        let md = render(&fixture::job_result());
        let job = md.find("### Job `gpu[01-02]`: **FAIL**").expect(&md);
        assert!(job < md.find("### Summary").unwrap(), "the job comes first");
        assert!(
            md.contains(
                "hosts: gpu01 gpu02 · GPUs: 16 · switch ports on its paths: 4 · flows: 3, 1 broke a limit\n\n\
             | where | finding | severity | actual | flow findings through it |\n\
             |---|---|---|---|---:|\n\
             | `leaf1:Ethernet8` | `switch.pfc_mismatch` | error | `none` | 1 |\n"
            ),
            "{md}"
        );
        assert!(
            md.contains("3 data flows judged, **1 broke a limit**; the 2 worst below, every flow in `flows.jsonl`."),
            "{md}"
        );
        assert!(md.contains(
            "| gpu01:GPU0 (eth2) | gpu02:GPU0 (eth2) | `10.0.0.1:49152 → 10.0.0.2 qp 0x200` | 1,234,567 | 369.5 | 4 | 4 | 0 \
             |  | 12.3 | 0 26 | `flow.nak_rate` `flow.retransmits` |\n"
        ), "{md}");
        assert!(md.find("### Flows").unwrap() < md.find("### Findings").unwrap());
    }

    /// At any cluster size the report fits a pull-request comment: the verdict, the summary and
    /// the first findings of each severity stay, and every table that was cut says so.
    #[test]
    fn a_large_clusters_report_fits_a_pull_request_comment() {
        for hosts in [1_000, 10_000] {
            let md = render(&fixture::large_result(hosts));
            assert!(md.chars().count() <= COMMENT_CHARS, "{hosts} hosts: {} characters", md.chars().count());
            assert!(
                md.starts_with(&format!("**FAIL** — {hosts} errors, {hosts} warnings on {hosts} hosts")),
                "{}",
                &md[..200]
            );
            assert!(md.contains("### Summary") && md.contains("#### Error") && md.contains("#### Warning"));
            assert!(md.contains("more rows of this severity are in report.html and findings.json"), "{hosts}");
            assert!(md.contains("more counters: report.html and findings.json have them"), "{hosts}");
            assert!(md.contains("more devices with findings are not listed"), "{hosts}");
        }
        // A small report is left whole.
        let small = render(&fixture::audit_result());
        assert!(!small.contains("left out to fit") && !small.contains("more counters:"), "{small}");
    }

    /// 1,800 moving counters: fewer rows than a row count would cut before rendering, far more
    /// characters than a comment takes. They are cut before the one render, and the report is
    /// the one that rendering in full and cutting after gives.
    #[test]
    fn many_moving_counters_are_cut_before_the_one_render() {
        // A clean cluster whose counters move, like a lab's or a busy fabric's.
        let r = AuditResult { counters: fixture::moving_counters(600), ..fixture::clean_result() };
        let mut tera = crate::run_comparison::markdown_tera().unwrap();
        tera.add_raw_template("report.md", TEMPLATE).unwrap();
        let render = |v: &View| tera.render("report.md", &Context::from_serialize(v).unwrap());
        let view = || {
            let mut v = View::new(&r);
            v.leave_out_clean_devices();
            v
        };
        assert!(view().rows() <= COMMENT_CHARS / 30, "the row count alone must not cut this report");

        let mut renders = 0;
        let once = fit(view(), |v| {
            renders += 1;
            render(v)
        })
        .unwrap();
        assert_eq!(renders, 1);

        let mut full = view();
        let mut reference = render(&full).unwrap();
        // The bound is every character of the table's rows here (names with nothing to escape).
        let rows: usize =
            reference.lines().filter(|l| l.contains(" | `ens1np0` | ")).map(|l| l.chars().count() + 1).sum();
        assert_eq!(full.counter_chars_at_least(), rows);
        assert!(rows > COMMENT_CHARS);
        while reference.chars().count() > COMMENT_CHARS
            && full.shrink(COMMENT_CHARS as f64 / reference.chars().count() as f64)
        {
            reference = render(&full).unwrap();
        }
        assert_eq!(once, reference);
        assert!(once.contains("and 1780 more counters: report.html and findings.json have them"), "{once}");

        // Counters that fit are rendered in full, once.
        let mut renders = 0;
        let small = AuditResult { counters: fixture::moving_counters(10), ..fixture::clean_result() };
        let mut v = View::new(&small);
        v.leave_out_clean_devices();
        let text = fit(v, |v| {
            renders += 1;
            render(v)
        })
        .unwrap();
        assert_eq!(renders, 1);
        assert!(text.contains("Counters: 30 moved") && !text.contains("more counters"), "{text}");
    }

    #[test]
    fn benchmarks_table_has_a_row_per_run() {
        let plain = render(&fixture::audit_result());
        assert!(!plain.contains("### Benchmarks"), "{plain}");
        assert!(!plain.contains("<svg"));

        let md = render(&fixture::bench_result());
        assert!(
            md.contains(
                "### Benchmarks\n\n\
             | label | test | hosts | avg busbw | peak busbw | expected | transport | GDR | ok |\n\
             |---|---|---|---:|---:|---|---|---|---|\n\
             | all hosts | `all_reduce_perf` | gpu01, gpu02, gpu04, gpu05 | 11.87 GB/s | **24.50 GB/s** | \
             ≥ 40.00 GB/s (reference: 400G port ≈ 45-50 GB/s) | RoCE `mlx5_0:1` | on | **no**: below expected |\n"
            ),
            "{md}"
        );
        assert!(md.contains(
            "| pair gpu04+gpu05 (round 1) | `all_reduce_perf` | gpu04, gpu05 | 6.05 GB/s | **12.10 GB/s** | \
             ≥ 40.00 GB/s (reference: 400G port ≈ 45-50 GB/s) | RoCE `mlx5_0:1` | on | **no**: below expected ⚑ straggler gpu05 |\n"
        ), "{md}");
        assert!(
            md.contains(
                "| pair gpu01+gpu02 (round 1) | `all_reduce_perf` | gpu01, gpu02 | 23.25 GB/s | 46.50 GB/s | \
             ≥ 40.00 GB/s (reference: 400G port ≈ 45-50 GB/s) | RoCE `mlx5_0:1` | on | yes |\n"
            ),
            "{md}"
        );
        assert!(!md.contains("<svg"));
        assert!(md.find("### Benchmarks").unwrap() < md.find("### Findings").unwrap());
    }

    #[test]
    fn benchmark_rows_show_unknowns_failures_and_many_hosts() {
        let mut r = fixture::bench_result();
        r.benchmarks.truncate(1);
        let b = &mut r.benchmarks[0];
        b.label = "all | hosts".into();
        b.hosts = (1..=64).map(|i| format!("gpu{i:03}")).collect();
        b.avg_busbw_gbs = None;
        b.peak_busbw_gbs = None;
        b.rows.clear();
        b.expected_min_gbs = None;
        b.transport = None;
        b.hcas.clear();
        b.gdr = None;
        b.ok = false;
        let md = render(&r);
        assert!(md.contains(
            "| all \\| hosts | `all_reduce_perf` | gpu001, gpu002, gpu003, gpu004 and 60 more |  |  |  |  |  | **no**: failed |\n"
        ), "{md}");
    }

    #[test]
    fn paths_have_a_table_of_failing_paths_with_the_failing_hops_in_bold() {
        let md = render(&fixture::fabric_result());
        let section = md.find("### Paths\n").unwrap();
        assert!(md.find("### Summary").unwrap() < section && section < md.find("### Findings").unwrap());
        assert!(md.contains(
            "### Paths\n\n16 paths, **13 failing** (half-paths host NIC → leaf → spine; the failing hops in bold).\n\n\
             | path | why the bold hops fail |\n\
             |---|---|\n\
             | `gpu01:mlx5_0` → `leaf1:Ethernet16` → **`leaf1:Ethernet8`** → **`spine1:Ethernet4`** | \
             `leaf1:Ethernet8`: PFC on priorities none instead of 3: RoCE is dropped here under congestion; \
             no ECN marking on queue 3: DCQCN gets no signal, PFC does all the work<br>\
             `spine1:Ethernet4`: MTU 1500 is below the hosts' 4200: their frames are dropped here |\n"
        ), "{md}");
        assert_eq!(md.lines().filter(|l| l.starts_with("| `gpu")).count(), 13, "one row per failing path");
        assert!(!md.contains("gpu14"), "passing paths are only counted");
    }

    #[test]
    fn each_failing_hop_has_one_diff_fence() {
        let md = render(&fixture::fabric_result());
        assert_eq!(md.matches("```diff\n").count(), 2, "two hops, though leaf1:Ethernet8 has two findings with it");
        assert!(
            md.contains(&format!(
                "#### Failing hops\n\nExpected (`-`) against actual (`+`) normalized configuration.\n\n\
             **`leaf1:Ethernet8`**: `switch.pfc_mismatch`, `switch.ecn_disabled` · on 13 failing paths\n\n\
             ```diff\n{}```\n\n**`spine1:Ethernet4`**: `switch.mtu_mismatch` · on 13 failing paths\n\n```diff\n{}```\n",
                fixture::LEAF_DIFF,
                fixture::SPINE_DIFF
            )),
            "{md}"
        );
        // A diff with a fence of its own cannot close ours.
        let mut r = fixture::fabric_result();
        for f in r.findings.iter_mut().filter(|f| f.device == "spine1") {
            f.diff = Some("--- a\n+++ b\n@@ -1 +1 @@\n-x\n+```\n".into());
        }
        let md = render(&r);
        assert!(md.contains("````diff\n--- a\n+++ b\n@@ -1 +1 @@\n-x\n+```\n````\n"), "{md}");
    }

    #[test]
    fn path_inconsistent_findings_of_one_hop_are_one_row() {
        let md = render(&fixture::fabric_result());
        assert!(md.contains("#### Error (16)\n"), "the heading counts findings, not rows");
        let rows: Vec<&str> = findings_part(&md).lines().filter(|l| l.contains("`path.inconsistent`")).collect();
        assert_eq!(rows.len(), 2, "leaf1's thirteen folded, gpu01's own: {rows:#?}");
        let row = rows[0];
        assert!(
            row.starts_with(
                "| leaf1 | `Ethernet8` | `path.inconsistent` ×13 | `every hop lossless for the RoCE priority` | \
                 `leaf1:Ethernet8 fails` | 13 paths break at leaf1:Ethernet8: PFC on priorities none instead of 3"
            ),
            "{row}"
        );
        assert_eq!(row.matches("<br>path: ").count(), 10);
        assert!(row.contains(
            "<br>path: `gpu10:mlx5_0` → `leaf1:Ethernet52` → `leaf1:Ethernet8` → `spine1:Ethernet4`<br>and 3 more paths<br>caused by: `switch.pfc_mismatch` |"
        ), "{row}");
        assert_eq!(row.replace("\\|", "").matches('|').count(), 8);
    }

    #[test]
    fn large_fabrics_are_capped_and_counted() {
        let mut r = fixture::fabric_result();
        let failing = r.paths[0].clone();
        r.paths = vec![failing; 60];
        r.paths_total = 600;
        let md = render(&r);
        assert_eq!(md.lines().filter(|l| l.starts_with("| `gpu01:mlx5_0`")).count(), 50);
        assert!(
            md.contains("\n\nand 10 more failing paths; findings.json has each as a `path.inconsistent` finding.\n"),
            "{md}"
        );
        assert!(md.contains("600 paths, **60 failing**"));

        // Many paths, all passing: counted, no table.
        r.paths.clear();
        let md = render(&r);
        assert!(md.contains("### Paths\n\n600 paths, none failing (half-paths host NIC → leaf → spine).\n"), "{md}");
        assert!(!md.contains("| path |"));
    }

    #[test]
    fn at_most_twenty_diffs() {
        let mut r = fixture::fabric_result();
        let template = r.findings.iter().find(|f| f.code == "switch.mtu_mismatch").unwrap().clone();
        for i in 0..20 {
            let mut f = template.clone();
            f.port = Some(format!("Ethernet{}", 100 + i));
            r.findings.push(f);
        }
        let md = render(&r.finish());
        assert_eq!(md.matches("```diff\n").count(), 20);
        assert!(md.contains("```\n\n2 more failing hops have a diff; report.html has them all.\n"), "{md}");
    }

    #[test]
    fn no_paths_no_section() {
        let md = render(&fixture::audit_result());
        assert!(!md.contains("### Paths") && !md.contains("```diff") && !md.contains("Failing hops"), "{md}");
    }

    #[test]
    fn code_spans_survive_backticks() {
        assert_eq!(md_code(""), "");
        assert_eq!(md_code("a`b"), "``a`b``");
        assert_eq!(md_code("`x`"), "`` `x` ``");
        assert_eq!(md_code("a|b\nc"), "`a\\|b c`");
        assert_eq!(md_code("a\\|b"), "a\\\\\\|b");
        assert_eq!(md_text("*a*\r\n[b](c)"), "\\*a\\*  \\[b\\](c)");
    }

    proptest::proptest! {
        #[test]
        fn no_value_can_split_a_table_row(value in "\\PC*|[|`\\\n<>*_]{0,12}") {
            let mut r = fixture::audit_result();
            r.findings[0].message = value.clone();
            r.findings[0].actual = value.clone();
            r.findings[0].evidence = vec![value.clone()];
            let md = render(&r);
            let row = findings_part(&md).lines().find(|l| l.contains("`nic.pfc_mismatch`")).unwrap();
            proptest::prop_assert_eq!(row.replace("\\\\", "").replace("\\|", "").matches('|').count(), 8, "{}", row);
        }

        #[test]
        fn no_path_value_can_split_a_table_row(value in "\\PC*|[|`\\\n<>*_]{0,12}") {
            let mut r = fixture::fabric_result();
            r.paths.truncate(1);
            r.paths[0].hops[2].reasons = vec![value.clone()];
            r.paths[0].hops[1].hop = format!("leaf1:{value}");
            let md = render(&r);
            let row = md.lines().find(|l| l.starts_with("| `gpu01:mlx5_0`")).unwrap();
            proptest::prop_assert_eq!(row.replace("\\\\", "").replace("\\|", "").matches('|').count(), 3, "{}", row);
        }

        #[test]
        fn no_benchmark_value_can_split_a_table_row(value in "\\PC*|[|`\\\n<>*_]{0,12}") {
            let mut r = fixture::bench_result();
            r.benchmarks.truncate(1);
            let b = &mut r.benchmarks[0];
            b.label = value.clone();
            b.test = value.clone();
            b.hosts = vec![value.clone()];
            b.transport = Some(value.clone());
            b.hcas = vec![value.clone()];
            b.expected_source = Some(value.clone());
            let md = render(&r);
            let row = md.lines().find(|l| l.contains("11.87 GB/s")).unwrap();
            proptest::prop_assert_eq!(row.replace("\\\\", "").replace("\\|", "").matches('|').count(), 10, "{}", row);
        }
    }
}
