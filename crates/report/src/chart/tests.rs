//! Reads the chart back as XML and checks its geometry.

use super::*;

/// One element: name, attributes, text directly inside it, children.
#[derive(Debug, Default)]
struct El {
    name: String,
    attrs: Vec<(String, String)>,
    text: String,
    children: Vec<El>,
}

impl El {
    fn attr(&self, key: &str) -> Option<&str> {
        self.attrs.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    fn num(&self, key: &str) -> f64 {
        let v = self.attr(key).unwrap_or_else(|| panic!("no {key} on {self:?}"));
        v.parse().unwrap_or_else(|_| panic!("{key}={v:?} is not a number"))
    }

    /// Every descendant (and itself) named `name`, in document order.
    fn all<'a>(&'a self, name: &str, out: &mut Vec<&'a El>) {
        if self.name == name {
            out.push(self);
        }
        for c in &self.children {
            c.all(name, out);
        }
    }

    fn find(&self, name: &str) -> Vec<&El> {
        let mut out = Vec::new();
        self.all(name, &mut out);
        out
    }

    /// All text below this element, unescaped.
    fn deep_text(&self) -> String {
        let mut s = self.text.clone();
        for c in &self.children {
            s.push_str(&c.deep_text());
        }
        s
    }
}

/// Only the five entities the chart writes are allowed.
fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let end = rest[i..].find(';').unwrap_or_else(|| panic!("bare & in {s:?}"));
        out.push_str(match &rest[i..i + end + 1] {
            "&amp;" => "&",
            "&lt;" => "<",
            "&gt;" => ">",
            "&quot;" => "\"",
            "&#39;" => "'",
            other => panic!("unknown entity {other}"),
        });
        rest = &rest[i + end + 1..];
    }
    out.push_str(rest);
    out
}

/// A strict parser for the subset of XML the chart uses; panics on anything unbalanced.
fn parse(svg: &str) -> El {
    let mut stack: Vec<El> = vec![El::default()];
    let mut rest = svg;
    while !rest.is_empty() {
        let Some(open) = rest.find('<') else {
            assert!(!rest.contains('>'), "stray > in text {rest:?}");
            stack.last_mut().unwrap().text.push_str(&unescape(rest));
            break;
        };
        let text = &rest[..open];
        assert!(!text.contains('>'), "stray > in text {text:?}");
        stack.last_mut().unwrap().text.push_str(&unescape(text));
        let close = rest[open..].find('>').expect("unterminated tag") + open;
        let tag = &rest[open + 1..close];
        assert!(!tag.contains('<'), "< inside a tag: {tag:?}");
        rest = &rest[close + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            let el = stack.pop().unwrap();
            assert_eq!(el.name, name, "mismatched close tag");
            stack.last_mut().unwrap().children.push(el);
            continue;
        }
        let (tag, selfclosing) = match tag.strip_suffix('/') {
            Some(t) => (t, true),
            None => (tag, false),
        };
        let name_end = tag.find(' ').unwrap_or(tag.len());
        let mut el = El { name: tag[..name_end].to_string(), ..El::default() };
        let mut a = tag[name_end..].trim_start();
        while !a.is_empty() {
            let eq = a.find('=').unwrap_or_else(|| panic!("attribute without value in {tag:?}"));
            let key = &a[..eq];
            assert!(key.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'), "bad attribute name {key:?}");
            let v = a[eq + 1..].strip_prefix('"').expect("unquoted attribute");
            let end = v.find('"').expect("unterminated attribute");
            el.attrs.push((key.to_string(), unescape(&v[..end])));
            a = v[end + 1..].trim_start();
        }
        if selfclosing {
            stack.last_mut().unwrap().children.push(el);
        } else {
            stack.push(el);
        }
    }
    assert_eq!(stack.len(), 1, "unclosed elements: {:?}", stack.last().unwrap().name);
    let mut root = stack.pop().unwrap();
    assert!(root.text.trim().is_empty(), "text outside the svg");
    assert_eq!(root.children.len(), 1, "one root element");
    root.children.pop().unwrap()
}

fn curve(points: &[(u64, f64)]) -> Vec<BenchPoint> {
    points.iter().map(|&(size_bytes, busbw_gbs)| BenchPoint { size_bytes, busbw_gbs }).collect()
}

/// nccl-tests' `-b 8 -e 8G -f 2`: an S-curve up to `peak`.
fn sweep(peak: f64) -> Vec<BenchPoint> {
    (3..=33).map(|e| BenchPoint { size_bytes: 1 << e, busbw_gbs: peak * (f64::from(e - 3) / 30.0).powi(2) }).collect()
}

fn polyline_points(p: &El) -> Vec<(f64, f64)> {
    p.attr("points")
        .unwrap()
        .split(' ')
        .filter(|s| !s.is_empty())
        .map(|xy| {
            let (x, y) = xy.split_once(',').unwrap();
            (x.parse().unwrap(), y.parse().unwrap())
        })
        .collect()
}

fn assert_finite(svg: &str) {
    for bad in ["NaN", "inf", "-0.0"] {
        assert!(!svg.contains(bad), "{bad} in {svg}");
    }
}

#[test]
fn one_run_with_baseline_and_floor() {
    let run = sweep(46.0);
    let base = sweep(48.0);
    let chart = Chart {
        title: "all_reduce_perf: all hosts".into(),
        runs: vec![("all hosts", &run)],
        baseline: &base,
        floor: Some((40.0, "reference: 400G port ≈ 45-50 GB/s")),
    };
    let svg = chart.svg();
    assert_finite(&svg);
    let root = parse(&svg);
    assert_eq!(root.name, "svg");
    assert_eq!(root.attr("viewBox"), Some("0 0 720 320"));
    assert!(root.attr("xmlns").is_none() && !svg.contains("http"));

    let lines = root.find("polyline");
    assert_eq!(lines.len(), 2, "run and baseline");
    // The baseline is dashed, the run is not.
    let baseline: Vec<&El> =
        root.find("g").into_iter().filter(|g| g.attr("class") == Some("series baseline")).collect();
    assert_eq!(baseline.len(), 1);
    assert!(baseline[0].find("polyline")[0].attr("stroke-dasharray").is_some());
    let runs: Vec<&El> = root.find("g").into_iter().filter(|g| g.attr("class") == Some("series run")).collect();
    assert_eq!(runs.len(), 1);
    let line = runs[0].find("polyline")[0];
    assert!(line.attr("stroke-dasharray").is_none());

    // x grows with the size; a higher bandwidth is drawn higher (smaller y).
    let pts = polyline_points(line);
    assert_eq!(pts.len(), run.len());
    assert!(pts.windows(2).all(|w| w[0].0 < w[1].0), "{pts:?}");
    assert!(pts.windows(2).all(|w| w[0].1 > w[1].1), "{pts:?}");
    assert!((pts[0].0 - LEFT).abs() < 0.05 && (pts[30].0 - RIGHT).abs() < 0.05);
    assert!(pts.iter().all(|&(x, y)| (LEFT..=RIGHT).contains(&x) && (TOP..=BOTTOM).contains(&y)));

    // One dot per point, each with a hover title naming size and bandwidth.
    let dots = runs[0].find("circle");
    assert_eq!(dots.len(), run.len());
    assert_eq!(dots[17].find("title")[0].text, format!("all hosts: 1 MiB — {:.2} GB/s", run[17].busbw_gbs));
    assert_eq!(dots[30].find("title")[0].text, "all hosts: 8 GiB — 46.00 GB/s");

    // The floor: a dashed horizontal line, its source in its title (no text on the plot, where
    // curves would cross it).
    let floor = root.find("g").into_iter().find(|g| g.attr("class") == Some("floor")).unwrap();
    let fl = floor.find("line")[0];
    assert_eq!(fl.num("y1"), fl.num("y2"));
    assert!(fl.attr("stroke-dasharray").is_some());
    // 40 GB/s is below the 46 GB/s peak.
    assert!(fl.num("y1") > pts[30].1);
    assert!(floor.deep_text().contains("expected ≥ 40.00 GB/s · reference: 400G port ≈ 45-50 GB/s"));

    // Axis ticks read like nccl-tests sizes; titles are there.
    let text: Vec<String> = root.find("text").iter().map(|t| t.deep_text()).collect();
    for label in ["8 B", "1 KiB", "1 MiB", "1 GiB", "8 GiB"] {
        assert!(text.iter().any(|t| t == label), "no tick {label}: {text:?}");
    }
    assert!(text.iter().any(|t| t == "bus bandwidth (GB/s)"));
    assert!(text.iter().any(|t| t.starts_with("message size")));
    assert!(text.iter().any(|t| t == "0"), "y starts at 0");
    // The legend names every series.
    let legend = root.find("g").into_iter().find(|g| g.attr("class") == Some("legend")).unwrap().deep_text();
    for name in ["all hosts", "baseline", "expected ≥ 40.00 GB/s"] {
        assert!(legend.contains(name), "{legend}");
    }
}

#[test]
fn output_is_deterministic() {
    let run = sweep(23.456_789);
    let chart = Chart { title: "t".into(), runs: vec![("r", &run)], baseline: &[], floor: Some((20.0, "policy")) };
    assert_eq!(chart.svg(), chart.svg());
    // Fixed decimals: one for coordinates, two for bandwidth.
    let svg = chart.svg();
    assert!(svg.contains("— 23.46 GB/s</title>"), "{svg}");
    let root = parse(&svg);
    for c in root.find("circle") {
        for key in ["cx", "cy"] {
            let v = c.attr(key).unwrap();
            assert_eq!(v.split('.').nth(1).map(str::len), Some(1), "{v}");
        }
    }
}

#[test]
fn labels_are_escaped() {
    let run = curve(&[(1024, 1.0), (2048, 2.0)]);
    let hostile = "pair <script>alert(\"x\")</script> & 'y'";
    let chart = Chart {
        title: format!("{hostile} title"),
        runs: vec![(hostile, &run)],
        baseline: &[],
        floor: Some((1.5, "<b>policy</b>")),
    };
    let svg = chart.svg();
    assert!(!svg.contains("<script") && !svg.contains("<b>"), "{svg}");
    assert!(svg.contains("pair &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;"));
    // It still parses, and the text comes back as written.
    let root = parse(&svg);
    assert_eq!(root.attr("aria-label"), Some(format!("{hostile} title").as_str()));
    assert!(root.deep_text().contains("<b>policy</b>"));
    // Control characters cannot reach the XML.
    let odd = Chart { title: "a\u{1b}[31mb\u{0}".into(), ..Chart::default() };
    let svg = odd.svg();
    assert!(!svg.chars().any(|c| c.is_control() && c != '\n'));
    parse(&svg);
}

#[test]
fn empty_single_and_zero_series_stay_finite() {
    // No runs at all.
    let svg = Chart::default().svg();
    assert_finite(&svg);
    let root = parse(&svg);
    assert!(root.find("polyline").is_empty());
    assert!(root.deep_text().contains("no measurements"));

    // A run without rows is in the legend but draws nothing.
    let empty: Vec<BenchPoint> = Vec::new();
    let svg = Chart { title: "t".into(), runs: vec![("hung", &empty)], ..Chart::default() }.svg();
    assert_finite(&svg);
    let root = parse(&svg);
    assert!(root.find("polyline").is_empty());
    assert!(root.deep_text().contains("hung (no data)"));

    // One point.
    let one = curve(&[(1 << 20, 12.5)]);
    let svg = Chart { title: "t".into(), runs: vec![("one", &one)], ..Chart::default() }.svg();
    assert_finite(&svg);
    let root = parse(&svg);
    let lines = root.find("polyline");
    assert_eq!(lines.len(), 1);
    let (x, y) = polyline_points(lines[0])[0];
    assert!((LEFT..=RIGHT).contains(&x) && (TOP..BOTTOM).contains(&y));

    // All zero, a zero size, and values that are not numbers.
    let zero = curve(&[(0, 0.0), (8, 0.0), (16, f64::NAN), (32, f64::INFINITY), (64, -1.0)]);
    let svg =
        Chart { title: "t".into(), runs: vec![("zero", &zero)], baseline: &zero, floor: Some((f64::NAN, "nan")) }.svg();
    assert_finite(&svg);
    let root = parse(&svg);
    let lines = root.find("polyline");
    assert_eq!(lines.len(), 2);
    for l in lines {
        let pts = polyline_points(l);
        assert_eq!(pts.len(), 3, "NaN and infinity are left out");
        assert!(pts.iter().all(|&(_, y)| (y - BOTTOM).abs() < 0.05), "zero sits on the axis");
    }
    assert!(!svg.contains("class=\"floor\""), "a NaN floor is not drawn");
}

#[test]
fn many_runs_are_capped_and_summarised() {
    let curves: Vec<Vec<BenchPoint>> = (0..12).map(|i| sweep(40.0 + f64::from(i))).collect();
    let slow = sweep(12.0);
    let labels: Vec<String> = (0..13).map(|i| format!("pair {i}")).collect();
    let mut runs: Vec<(&str, &[BenchPoint])> =
        curves.iter().enumerate().map(|(i, c)| (labels[i].as_str(), c.as_slice())).collect();
    runs.insert(5, ("pair slow", &slow));
    let base = sweep(48.0);
    let svg = Chart { title: "pairs".into(), runs, baseline: &base, floor: Some((40.0, "policy")) }.svg();
    let root = parse(&svg);
    let groups: Vec<&El> = root.find("g").into_iter().filter(|g| g.attr("class") == Some("series run")).collect();
    assert_eq!(groups.len(), MAX_RUNS);
    assert_eq!(root.find("polyline").len(), MAX_RUNS + 1, "plus the baseline");
    // Each drawn run has its own colour.
    let mut colours: Vec<&str> = groups.iter().map(|g| g.find("polyline")[0].attr("stroke").unwrap()).collect();
    colours.sort_unstable();
    colours.dedup();
    assert_eq!(colours.len(), MAX_RUNS);
    // The slowest are the ones drawn, so the straggler's pair is among them.
    let drawn: String = groups.iter().map(|g| g.deep_text()).collect();
    assert!(drawn.contains("pair slow:"), "{drawn}");
    assert!(!drawn.contains("pair 11:"));
    let more = root.find("text").into_iter().find(|t| t.attr("class") == Some("more")).unwrap();
    let lines: Vec<String> = more.find("tspan").iter().map(|t| t.deep_text()).collect();
    assert_eq!(lines, ["+5 more not drawn", "top 47.0–51.0 GB/s"]);
}

#[test]
fn size_labels_and_ticks() {
    assert_eq!(size_label(0), "0 B");
    assert_eq!(size_label(8), "8 B");
    assert_eq!(size_label(1023), "1023 B");
    assert_eq!(size_label(1024), "1 KiB");
    assert_eq!(size_label(1536), "1.5 KiB");
    assert_eq!(size_label(1 << 20), "1 MiB");
    assert_eq!(size_label(8 << 30), "8 GiB");
    assert_eq!(size_label(u64::MAX), "16.0 EiB");

    let x = XAxis::new([8u64, 8 << 30].into_iter());
    let labels: Vec<&str> = x.ticks.iter().map(|(_, l)| l.as_str()).collect();
    assert_eq!(labels, ["8 B", "1 KiB", "1 MiB", "1 GiB", "8 GiB"]);
    let x = XAxis::new([1u64 << 20, 1 << 24].into_iter());
    let labels: Vec<&str> = x.ticks.iter().map(|(_, l)| l.as_str()).collect();
    assert_eq!(labels, ["1 MiB", "2 MiB", "4 MiB", "8 MiB", "16 MiB"]);
    // A huge size does not overflow the tick labels.
    let x = XAxis::new([1u64, u64::MAX].into_iter());
    let labels: Vec<&str> = x.ticks.iter().map(|(_, l)| l.as_str()).collect();
    assert_eq!(labels, ["1 B", "1 MiB", "1 TiB", "1 EiB"]);
    assert_eq!(exponent_label(64), "16 EiB");

    let y = YAxis::new([46.0].into_iter());
    let labels: Vec<&str> = y.ticks.iter().map(|(_, l)| l.as_str()).collect();
    assert_eq!(labels, ["0", "10", "20", "30", "40", "50"]);
    let y = YAxis::new([0.9].into_iter());
    assert_eq!(y.ticks[1].1, "0.2");
    let y = YAxis::new(std::iter::empty());
    assert_eq!(y.max, 1.0);
}

/// Issue 34: a log of 800,000 measurements drew 800,000 dots (a 129 MB report.html). A series
/// beyond MAX_DOTS keeps each column's lowest and highest point: a single-measurement dip in
/// the middle of a flat run stays on the chart, and so do both ends.
#[test]
fn r34_a_long_series_is_thinned_to_its_extremes() {
    let mut run: Vec<BenchPoint> =
        (1..=800_000u64).map(|i| BenchPoint { size_bytes: i * 1024, busbw_gbs: 40.0 }).collect();
    run[400_000].busbw_gbs = 3.5;
    run[799_999].busbw_gbs = 41.0;
    let chart = Chart { title: "t".into(), runs: vec![("all hosts", &run)], baseline: &[], floor: None };
    let svg = chart.svg();
    assert!(svg.len() < 64 * 1024, "{} bytes", svg.len());
    let root = parse(&svg);
    let series = root.find("g").into_iter().find(|g| g.attr("class") == Some("series run")).unwrap();
    let dots = series.find("circle");
    // A column without a measurement (the log axis spreads the small sizes) draws nothing; a
    // flat one draws one dot.
    assert!((10..=MAX_DOTS).contains(&dots.len()), "{} dots", dots.len());
    assert_eq!(polyline_points(series.find("polyline")[0]).len(), dots.len());
    let titles: Vec<String> = dots.iter().map(|d| d.find("title")[0].text.clone()).collect();
    assert!(titles.iter().any(|t| t.ends_with("— 3.50 GB/s")), "the dip is drawn");
    assert!(titles.last().unwrap().ends_with("— 41.00 GB/s"), "the last point is drawn: {titles:?}");
    assert!(titles[0].starts_with("all hosts: 1 KiB"), "the first point is drawn: {}", titles[0]);
    // A short series is drawn whole.
    let short = sweep(46.0);
    let chart = Chart { title: "t".into(), runs: vec![("all hosts", &short)], baseline: &[], floor: None };
    assert_eq!(parse(&chart.svg()).find("circle").len(), short.len() + 1, "its dots and the legend's");
}
