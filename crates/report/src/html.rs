//! `report.html`: one self-contained page for whoever is paged at 3 a.m.

use crate::view::View;
use crate::{ReportError, Reporter};
use fabcheck_model::AuditResult;
use tera::{Context, Tera};

const TEMPLATE: &str = include_str!("../../../templates/report.html.tera");

/// The name the template is registered under. It must end in `.html`: Tera turns autoescaping on
/// by the template name's suffix, and every value in this page comes from devices or the
/// inventory, so none of it may be taken as markup.
const NAME: &str = "report.html";

/// Writes `report.html` from `templates/report.html.tera`.
///
/// The page loads nothing: CSS and the small search script are inline, there are no fonts, images
/// or links to other hosts, so it opens from a CI artifact, a jump host or a laptop on a plane.
/// Severity filters are plain checkboxes and CSS, and work without JavaScript.
#[derive(Debug, Clone, Copy, Default)]
pub struct HtmlReporter;

impl Reporter for HtmlReporter {
    fn file_name(&self) -> &'static str {
        "report.html"
    }

    fn write(&self, result: &AuditResult, out: &mut dyn std::io::Write) -> Result<(), ReportError> {
        let err = |e| ReportError::render(self.file_name(), e);
        let mut tera = Tera::new();
        tera.add_raw_template(NAME, TEMPLATE).map_err(err)?;
        let context = Context::from_serialize(&View::new(result)).map_err(err)?;
        let html = tera.render(NAME, &context).map_err(err)?;
        out.write_all(html.as_bytes()).map_err(|e| ReportError::render(self.file_name(), e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture;

    fn render(r: &AuditResult) -> String {
        String::from_utf8(HtmlReporter.render(r).unwrap()).unwrap()
    }

    #[test]
    fn the_job_card_comes_first_and_the_flows_table_after_the_summary() {
        let html = render(&fixture::job_result());
        let job = html.find("<section class=\"job fail\" id=\"job\">").expect(&html);
        assert!(job < html.find("<h2>Summary</h2>").unwrap());
        assert!(
            html.contains("<h2>Job <code>gpu[01-02]</code>: <span class=\"verdict-fail\">FAIL</span></h2>"),
            "{html}"
        );
        assert!(html.contains(
            "<tr><td><code>leaf1:Ethernet8</code></td><td><code>switch.pfc_mismatch</code></td><td><span class=\"sev error\">error</span></td><td><code>none</code></td><td class=\"num\">1</td></tr>"
        ), "{html}");
        let flows = html.find("<h2 id=\"flows\">Flows</h2>").expect(&html);
        assert!(flows > html.find("<h2>Summary</h2>").unwrap());
        assert!(html.contains("<a href=\"flows.jsonl\"><code>flows.jsonl</code></a>"), "{html}");
        assert!(
            html.contains("<td class=\"num\">1,234,567</td><td class=\"num\">369.5</td><td class=\"num\">4</td>"),
            "{html}"
        );
        let plain = render(&fixture::audit_result());
        assert!(!plain.contains("id=\"job\"") && !plain.contains("id=\"flows\""));
    }

    #[test]
    fn loads_nothing_from_anywhere() {
        let html = render(&fixture::audit_result());
        for needle in ["http://", "https://", "<link", "<script src", "<img", "@import", "url("] {
            assert!(!html.contains(needle), "found {needle:?}");
        }
        assert!(html.starts_with("<!doctype html>"));
    }

    #[test]
    fn outputs_not_fully_understood_link_their_evidence() {
        let html = render(&fixture::audit_result());
        assert!(html.contains("<h3>Outputs not fully understood</h3>"), "{html}");
        assert!(html.contains(
            "<td>gpu02</td><td><a href=\"evidence/gpu02/mlnx_qos.ens1np0.txt\"><code>mlnx_qos -i ens1np0</code></a></td><td>partial</td><td class=\"num\">4</td><td><code>Priority trust state is not supported on your system</code></td>"
        ));
    }

    #[test]
    fn escapes_values_from_devices() {
        let html = render(&fixture::audit_result());
        assert!(!html.contains("<script>alert"), "message was not escaped");
        assert!(
            html.contains("<p>out_of_buffer grew by 1523 &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; | rx</p>"),
            "{html}"
        );
        // The only script is ours.
        assert_eq!(html.matches("<script").count(), 1);
        // All five characters HTML gives meaning to, in a device's name (text and attributes).
        let mut r = fixture::audit_result();
        r.devices[0].name = "gpu'01\"<&>".into();
        let html = render(&r);
        assert!(html.contains("<td>gpu&#39;01&quot;&lt;&amp;&gt;</td>"), "{html}");
        assert!(!html.contains("gpu'01"), "{html}");
    }

    #[test]
    fn banner_is_coloured_by_verdict() {
        let html = render(&fixture::audit_result());
        assert!(html.contains(r#"<header class="banner fail">"#));
        assert!(html.contains("FAIL"));
        assert!(html.contains("2 critical, 2 errors, 3 warnings, 1 info on 3 hosts and 1 switch (1 unreachable)"));
        let clean = render(&fixture::clean_result());
        assert!(clean.contains(r#"<header class="banner pass">"#));
        assert!(clean.contains("No findings."));
    }

    #[test]
    fn shows_every_finding_device_and_moving_counter() {
        let r = fixture::audit_result();
        let html = render(&r);
        assert_eq!(html.matches(r#"<article class="finding "#).count(), r.findings.len());
        assert_eq!(html.matches(r#"<tr class="device"#).count(), r.devices.len());
        assert_eq!(html.matches(r#"<tr class="counter"#).count(), 3);
        assert!(html.contains("3 unchanged counters not shown"));
        assert!(
            html.contains(
                "<tr><th>evidence</th><td><a href=\"evidence/gpu01/mlnx_qos_mlx5_0.txt\"><code>gpu01/mlnx_qos_mlx5_0.txt</code></a></td></tr>"
            )
        );
        assert!(html.contains("<tr><th>expected</th><td><code>&lt;= 10000/s</code></td></tr>"));
        assert!(html.contains(r#"<tr class="device unreachable""#));
    }

    #[test]
    fn benchmarks_get_a_section_with_charts_only_when_they_exist() {
        let plain = render(&fixture::audit_result());
        assert!(!plain.contains("Benchmarks") && !plain.contains("<svg"), "{plain}");

        let html = render(&fixture::bench_result());
        let section = html.find(r#"<h2 id="benchmarks">Benchmarks</h2>"#).unwrap();
        assert!(html.find("<h2>Summary</h2>").unwrap() < section);
        assert!(section < html.find("<h2>Findings</h2>").unwrap());
        // One card for the run over all hosts, one block for the pairs; a chart each.
        assert_eq!(html.matches(r#"<svg class="chart""#).count(), 2);
        assert_eq!(html.matches("</svg>").count(), 2);
        assert_eq!(html.matches(r#"<article class="bench fail" "#).count(), 1);
        assert_eq!(html.matches(r#"<article class="bench pairwise fail">"#).count(), 1);
        assert!(html.contains("<h3>all hosts <code>all_reduce_perf</code></h3>"));
        assert!(html.contains("<pre><code>mpirun -H gpu01:8,gpu02:8,gpu04:8,gpu05:8 -x NCCL_IB_HCA=mlx5_0"));
        assert!(
            html.contains(r#"peak <span class="bw fail">24.50 GB/s</span> · avg 11.87 GB/s · expected ≥ 40.00 GB/s"#),
            "{html}"
        );
        assert!(html.contains("RoCE · HCAs <code>mlx5_0:1</code> · GDR on"));
        // The pairs: a row each, the slow ones flagged with the straggler the finding names.
        assert_eq!(html.matches(r#"<tr class="pair fail""#).count(), 2);
        assert_eq!(html.matches(r#"<tr class="pair pass""#).count(), 2);
        assert_eq!(html.matches("⚑ straggler <b>gpu05</b>").count(), 2);
        assert!(html.contains("4 pairs, 2 below expected or failed"));
        assert!(html.contains(
            r#"<p class="straggler">⚑ <code>nccl.straggler</code> on <b>gpu05</b>: gpu05 is slow in every pair"#
        ));
        // The pairs' chart has every pair and the baseline; the card's has the run and the baseline.
        let charts: Vec<&str> = html.split("<svg").skip(1).collect();
        assert_eq!(charts[0].matches("<polyline").count(), 2);
        assert_eq!(charts[1].matches("<polyline").count(), 5);
        // Still self-contained.
        for needle in ["http://", "https://", "url(", "<img", "<link"] {
            assert!(!html.contains(needle), "found {needle:?}");
        }
    }

    #[test]
    fn a_straggler_no_run_names_is_shown_at_the_top() {
        let mut r = fixture::bench_result();
        let f = r.findings.iter_mut().find(|f| f.code == "nccl.straggler").unwrap();
        f.device = "gpu09".into();
        f.message = "gpu09 is slow".into();
        let html = render(&r);
        assert!(!html.contains("⚑ straggler <b>gpu09</b>"));
        let note = html
            .find(r#"<p class="straggler">⚑ <code>nccl.straggler</code> on <b>gpu09</b>: gpu09 is slow</p>"#)
            .unwrap();
        assert!(note < html.find("<article").unwrap(), "before the runs");
    }

    #[test]
    fn benchmark_values_are_escaped() {
        let mut r = fixture::bench_result();
        let hostile = "<script>alert(1)</script>";
        for b in &mut r.benchmarks {
            b.label = format!("pair {hostile}");
            b.command = format!("mpirun {hostile}");
            b.hosts.push(hostile.into());
            b.transport = Some(hostile.into());
            b.expected_source = Some(hostile.into());
        }
        r.benchmarks[0].label = hostile.into();
        let html = render(&r);
        assert!(!html.contains("<script>alert"));
        assert_eq!(html.matches("<script").count(), 1);
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    }

    #[test]
    fn paths_draw_each_failing_path_as_a_chain_of_hops() {
        let mut r = fixture::fabric_result();
        r.benchmarks = fixture::bench_result().benchmarks;
        let html = render(&r);
        let section = html.find(r#"<h2 id="paths">Paths</h2>"#).unwrap();
        assert!(html.find(r#"<h2 id="benchmarks">"#).unwrap() < section, "after Benchmarks");
        assert!(section < html.find("<h2>Findings</h2>").unwrap(), "before Findings");
        assert!(html.contains(r#"<p>16 paths, <span class="verdict-fail">13 failing</span>."#), "{html}");
        // The 13 paths fail at the same hops for the same reasons: one block, the reasons once.
        assert_eq!(html.matches(r#"<div class="path fail">"#).count(), 1);
        assert!(html.contains(
            r#"<p class="pathhead">13 paths fail at <code>leaf1:Ethernet8</code>, <code>spine1:Ethernet4</code>:</p>"#
        ));
        assert_eq!(html.matches("<li><code>leaf1:Ethernet8</code>: PFC on priorities none").count(), 1);
        assert_eq!(html.matches(r#"<div class="chain""#).count(), 13);
        // A chain: green ✓ and red ✗ chips in order, the reasons as the hover title, a failing hop
        // with a diff linked to it.
        let chain = html.split(r#"<div class="chain" data-search="gpu01:mlx5_0"#).nth(1).unwrap();
        let chain = &chain[..chain.find("</div>").unwrap()];
        let chips: Vec<usize> = ["gpu01:mlx5_0", "leaf1:Ethernet16", "leaf1:Ethernet8", "spine1:Ethernet4"]
            .iter()
            .map(|hop| chain.find(&format!("<code>{hop}</code>")).unwrap())
            .collect();
        assert!(chips.windows(2).all(|w| w[0] < w[1]), "hops in path order");
        assert!(chain.contains(
            r#"<span class="hop pass" title="passes every check"><span class="mark">✓</span> <code>gpu01:mlx5_0</code></span> <span class="arrow">→</span>"#
        ));
        assert!(chain.contains(
            "<a class=\"hop fail\" href=\"#hop-leaf1-Ethernet8\" title=\"PFC on priorities none instead of 3: \
             RoCE is dropped here under congestion\nno ECN marking on queue 3: DCQCN gets no signal, PFC does all the work\">\
             <span class=\"mark\">✗</span> <code>leaf1:Ethernet8</code></a>"
        ), "{chain}");
        // Passing paths are folded away.
        assert!(html.contains("<details><summary>3 passing paths</summary>"));
        assert_eq!(html.matches(r#"<span class="mark verdict-pass">✓</span> <code>gpu1"#).count(), 3);
    }

    #[test]
    fn failing_hops_show_their_diff_coloured_once() {
        let html = render(&fixture::fabric_result());
        let hops = html.find(r#"<h3 id="failing-hops">Failing hops</h3>"#).unwrap();
        assert!(hops < html.find("<h2>Findings</h2>").unwrap());
        // One block per hop, though two findings of leaf1:Ethernet8 carry the diff.
        assert_eq!(html.matches(r#"<article class="hopdiff "#).count(), 2);
        let block = &html[html.find(r#"<article class="hopdiff critical" id="hop-leaf1-Ethernet8""#).unwrap()..];
        let block = &block[..block.find("</article>").unwrap()];
        assert!(
            block.contains(
                "<h4><code>leaf1:Ethernet8</code> <code>switch.pfc_mismatch</code>, <code>switch.ecn_disabled</code> \
             <span class=\"muted\">· on 13 failing paths</span></h4>"
            ),
            "{block}"
        );
        for line in [
            r#"<pre class="diff"><code><span class="file">--- expected leaf1:Ethernet8</span>"#,
            r#"<span class="file">+++ actual leaf1:Ethernet8</span>"#,
            r#"<span class="hunk">@@ -1,10 +1,10 @@</span>"#,
            r#"<span class="del">-pfc priorities: 3</span>"#,
            r#"<span class="add">+pfc priorities: none</span>"#,
            r#"<span class="ctx"> mtu: &gt;= 4200</span>"#,
            "<span class=\"ctx\"> speed: &gt;= 400 Gb/s</span>\n</code></pre>",
        ] {
            assert!(block.contains(line), "{line} in {block}");
        }
        // Every line of the diff, in order, one a line.
        assert_eq!(
            block.matches("<span class=\"").count(),
            fixture::LEAF_DIFF.lines().count() + 1,
            "and the muted count"
        );
    }

    #[test]
    fn path_inconsistent_findings_of_one_hop_are_folded_and_linked_to_the_diff() {
        let r = fixture::fabric_result();
        let html = render(&r);
        let folded = r.findings.iter().filter(|f| f.code == "path.inconsistent" && f.device == "leaf1").count();
        assert_eq!(folded, 13);
        assert_eq!(html.matches(r#"<article class="finding "#).count(), r.findings.len() - folded + 1);
        assert!(html.contains("<h3>Error (16)</h3>"), "the heading counts findings, not rows");
        let entry = &html[html.find(r#"<article class="finding error folded""#).unwrap()..];
        let entry = &entry[..entry.find("</article>").unwrap()];
        assert!(
            entry.contains(
                "<code>path.inconsistent</code> ×13 on <b>leaf1</b> <code>Ethernet8</code> \
             <a class=\"difflink\" href=\"#hop-leaf1-Ethernet8\">diff</a></h4>"
            ),
            "{entry}"
        );
        assert!(entry.contains("<p>13 paths break at leaf1:Ethernet8: PFC on priorities none"), "{entry}");
        assert_eq!(entry.matches(" → <code>spine1:Ethernet4</code>").count(), 10, "the first ten paths");
        assert!(entry.contains(r#"<br><span class="muted">and 3 more</span>"#));
        // The switch findings link to their hop's diff; the lone path finding of gpu01 stays as it was.
        assert_eq!(html.matches(r##"<a class="difflink" href="#hop-leaf1-Ethernet8">diff</a>"##).count(), 3);
        assert_eq!(html.matches(r##"<a class="difflink" href="#hop-spine1-Ethernet4">diff</a>"##).count(), 1);
        assert!(html.contains("<tr><th>path</th><td><code>gpu01:mlx5_0</code> → <code>leaf1:Ethernet8</code>"));
    }

    #[test]
    fn every_diff_link_has_its_block() {
        let mut without_paths = fixture::fabric_result();
        without_paths.paths.clear();
        without_paths.paths_total = 0;
        for r in [fixture::fabric_result(), without_paths] {
            let html = render(&r);
            let links: Vec<&str> =
                html.split("href=\"#").skip(1).map(|rest| &rest[..rest.find('"').unwrap()]).collect();
            assert!(links.len() >= 4, "{links:?}");
            for id in links {
                assert_eq!(html.matches(&format!(" id=\"{id}\"")).count(), 1, "{id}");
            }
        }
    }

    #[test]
    fn no_paths_no_section() {
        let html = render(&fixture::audit_result());
        for needle in
            ["<h2 id=\"paths\">", "Failing hops", "<article class=\"hopdiff", "<div class=\"chain", "class=\"difflink"]
        {
            assert!(!html.contains(needle), "found {needle:?}");
        }
    }

    #[test]
    fn path_values_are_escaped() {
        let mut r = fixture::fabric_result();
        let hostile = "<script>alert(1)</script>";
        r.paths[0].hops[2].reasons.push(format!("reason {hostile} \"quoted\""));
        r.paths[0].hops[0].hop = format!("gpu01:{hostile}");
        for f in r.findings.iter_mut().filter(|f| f.diff.is_some()) {
            f.diff = Some(format!("{}+{hostile}\n", f.diff.as_deref().unwrap()));
        }
        let html = render(&r);
        assert!(!html.contains("<script>alert"));
        assert_eq!(html.matches("<script").count(), 1, "only ours");
        assert!(html.contains(r#"<li><code>leaf1:Ethernet8</code>: reason &lt;script&gt;alert(1)&lt;/script&gt; &quot;quoted&quot;</li>"#), "{html}");
        assert!(
            html.contains(
                "no ECN marking on queue 3: DCQCN gets no signal, PFC does all the work\nreason &lt;script&gt;"
            )
        );
        assert!(html.contains(r#"<span class="add">+&lt;script&gt;alert(1)&lt;/script&gt;</span>"#));
        assert!(html.contains(r#"<code>gpu01:&lt;script&gt;alert(1)&lt;/script&gt;</code>"#));
    }

    proptest::proptest! {
        #[test]
        fn benchmark_values_never_add_markup(value in "\\PC+|[<>&\"'/a-z ]{1,16}") {
            let with = |v: &str| {
                let mut r = fixture::bench_result();
                for b in &mut r.benchmarks {
                    b.label = format!("pair {v}");
                    b.test = v.to_string();
                    b.command = v.to_string();
                    b.hosts = vec![v.to_string()];
                    b.hcas = vec![v.to_string()];
                    b.transport = Some(v.to_string());
                    b.expected_source = Some(v.to_string());
                }
                r.benchmarks[0].label = v.to_string();
                render(&r)
            };
            let (html, plain) = (with(&value), with("x"));
            proptest::prop_assert_eq!(html.matches('<').count(), plain.matches('<').count());
            proptest::prop_assert_eq!(html.matches('"').count(), plain.matches('"').count());
        }

        #[test]
        fn path_values_never_add_markup(value in "\\PC+|[<>&\"'/a-z +@-]{1,16}") {
            let with = |v: &str| {
                let mut r = fixture::fabric_result();
                for p in &mut r.paths {
                    for h in &mut p.hops {
                        h.hop = format!("{}{v}", h.hop);
                        if !h.ok {
                            h.reasons = vec![v.to_string()];
                        }
                    }
                }
                for f in &mut r.findings {
                    if f.diff.is_some() {
                        f.diff = Some(format!("--- {v}\n+++ {v}\n@@ {v}\n-{v}\n+{v}\n {v}\n"));
                    }
                    f.path = f.path.iter().map(|h| format!("{h}{v}")).collect();
                }
                render(&r)
            };
            let (html, plain) = (with(&value), with("x"));
            proptest::prop_assert_eq!(html.matches('<').count(), plain.matches('<').count());
            proptest::prop_assert_eq!(html.matches('"').count(), plain.matches('"').count());
        }

        #[test]
        fn values_never_add_markup(value in "\\PC+|[<>&\"'/a-z ]{1,16}") {
            let with = |v: &str| {
                let mut r = fixture::audit_result();
                let f = &mut r.findings[0];
                f.message = v.to_string();
                f.expected = v.to_string();
                f.actual = v.to_string();
                f.port = Some(v.to_string());
                f.evidence = vec![v.to_string()];
                render(&r)
            };
            let (html, plain) = (with(&value), with("x"));
            // `<` and `"` only come from the template, so values cannot open a tag or an attribute.
            proptest::prop_assert_eq!(html.matches('<').count(), plain.matches('<').count());
            proptest::prop_assert_eq!(html.matches('"').count(), plain.matches('"').count());
        }
    }
}
