//! The bus-bandwidth chart of `report.html`: hand-written SVG, no dependency, no script.
//!
//! Bus bandwidth (GB/s, linear from 0) against message size (log2). One polyline with a dot per
//! measurement for each run, the saved baseline dashed in grey, and the floor the runs were judged
//! against as a dashed red line labelled with where it comes from. Each dot has a `<title>`, which
//! browsers show on hover ("1 MiB: 45.21 GB/s").
//!
//! The output is an `<svg>` element meant to be inlined in an HTML page: it has no `xmlns` (the
//! HTML parser puts it in the SVG namespace, and the report must not contain an `http://` URL),
//! loads nothing, and carries its own white background and colours, so it reads the same in a
//! light or dark page. Every coordinate is written with one decimal and every value with fixed
//! decimals, so the same result always gives the same bytes. Every piece of text (labels, hosts,
//! the floor's source) is escaped.

use fabcheck_model::BenchPoint;
use std::borrow::Cow;
use std::fmt::Write as _;

/// Width of the chart in pixels.
const WIDTH: f64 = 720.0;
/// Height of the chart in pixels.
const HEIGHT: f64 = 320.0;
/// The plot area: left and right edges, top and bottom.
const LEFT: f64 = 64.0;
const RIGHT: f64 = 500.0;
const TOP: f64 = 16.0;
const BOTTOM: f64 = 262.0;
/// Where the legend starts.
const LEGEND_X: f64 = 514.0;
/// Legend rows are this far apart.
const LEGEND_ROW: f64 = 20.0;
/// Legend labels are cut to this many characters (the whole label is in a `<title>`).
const LEGEND_CHARS: usize = 28;
/// Tick labels closer than this to another tick are left out.
const MIN_TICK_GAP: f64 = 40.0;

/// At most this many dots a series: the plot is 436 pixels wide, so more cannot be told apart,
/// and a log with a million measurements (nccl-tests with a small `-i` step) drew a million dots:
/// a 130 MB report.html for a 94 MB log. Beyond it, [`thin`] keeps each column's extremes.
pub(crate) const MAX_DOTS: usize = 200;

/// At most this many runs are drawn; the rest are summarised in one legend line.
pub(crate) const MAX_RUNS: usize = 8;

/// Run colours: distinct on white, none of them the floor's red or the baseline's grey.
const PALETTE: [&str; MAX_RUNS] =
    ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22"];
const INK: &str = "#1f2328";
const MUTED: &str = "#59636e";
const GRID: &str = "#d1d9e0";
const BASELINE: &str = "#6e7781";
const FLOOR: &str = "#cf222e";

/// What one chart shows.
#[derive(Debug, Clone, Default)]
pub(crate) struct Chart<'a> {
    /// What the chart is about (the `<title>` and `aria-label` of the SVG).
    pub title: String,
    /// One series per run: its label and its points.
    pub runs: Vec<(&'a str, &'a [BenchPoint])>,
    /// The saved baseline curve; empty when there is none.
    pub baseline: &'a [BenchPoint],
    /// The floor in GB/s and where it comes from.
    pub floor: Option<(f64, &'a str)>,
}

/// A point ready to draw: finite, non-negative bandwidth.
#[derive(Debug, Clone, Copy)]
struct Point {
    size: u64,
    busbw: f64,
}

fn clean(points: &[BenchPoint]) -> Vec<Point> {
    let mut out: Vec<Point> = points
        .iter()
        .filter(|p| p.busbw_gbs.is_finite())
        .map(|p| Point { size: p.size_bytes, busbw: p.busbw_gbs.max(0.0) })
        .collect();
    out.sort_by_key(|p| p.size);
    out
}

/// The highest bandwidth of a series, for choosing which runs to draw.
fn top(points: &[Point]) -> Option<f64> {
    points.iter().map(|p| p.busbw).reduce(f64::max)
}

/// log2 of a size; a size of 0 is drawn where 1 B would be.
fn exponent(size: u64) -> f64 {
    (size.max(1) as f64).log2()
}

impl Chart<'_> {
    /// The SVG element.
    pub(crate) fn svg(&self) -> String {
        let runs: Vec<(&str, Vec<Point>)> = self.runs.iter().map(|(label, points)| (*label, clean(points))).collect();
        let baseline = clean(self.baseline);
        let floor = self.floor.filter(|(min, _)| min.is_finite()).map(|(min, source)| (min.max(0.0), source));

        // Too many runs to tell apart: draw the slowest (that is where the trouble is) and
        // summarise the others. The drawn ones keep their order, and so their colours.
        let (drawn, hidden) = select(&runs);

        let all = drawn.iter().flat_map(|&i| runs[i].1.iter()).chain(baseline.iter());
        let x = XAxis::new(all.clone().map(|p| p.size));
        let y = YAxis::new(all.map(|p| p.busbw).chain(floor.map(|(min, _)| min)));

        let mut s = String::with_capacity(16 * 1024);
        let title = escape(&self.title);
        let _ = writeln!(
            s,
            r#"<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" role="img" aria-label="{title}" font-family="system-ui, -apple-system, Segoe UI, Roboto, sans-serif" font-size="11">"#
        );
        let _ = writeln!(s, "<title>{title}</title>");
        let _ = writeln!(s, r##"<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>"##);

        // Grid and axes.
        let _ = writeln!(s, r#"<g class="grid" stroke="{GRID}" stroke-width="1">"#);
        for (value, _) in &y.ticks {
            let py = y.pos(*value);
            let _ = writeln!(s, r#"<line x1="{LEFT:.1}" y1="{py:.1}" x2="{RIGHT:.1}" y2="{py:.1}"/>"#);
        }
        for (e, _) in &x.ticks {
            let px = x.pos_exp(*e);
            let _ = writeln!(s, r#"<line x1="{px:.1}" y1="{TOP:.1}" x2="{px:.1}" y2="{BOTTOM:.1}"/>"#);
        }
        s.push_str("</g>\n");
        let _ = writeln!(
            s,
            r#"<g class="axes" stroke="{INK}" stroke-width="1"><line x1="{LEFT:.1}" y1="{BOTTOM:.1}" x2="{RIGHT:.1}" y2="{BOTTOM:.1}"/><line x1="{LEFT:.1}" y1="{TOP:.1}" x2="{LEFT:.1}" y2="{BOTTOM:.1}"/></g>"#
        );
        let _ = writeln!(s, r#"<g class="ticks" fill="{MUTED}">"#);
        for (value, label) in &y.ticks {
            let py = y.pos(*value) + 4.0;
            let tx = LEFT - 6.0;
            let _ = writeln!(s, r#"<text x="{tx:.1}" y="{py:.1}" text-anchor="end">{label}</text>"#);
        }
        for (e, label) in &x.ticks {
            let px = x.pos_exp(*e);
            let ty = BOTTOM + 16.0;
            // The tick at the origin starts there, clear of the bandwidth axis' `0`.
            let anchor = if px <= LEFT { "start" } else { "middle" };
            let _ = writeln!(s, r#"<text x="{px:.1}" y="{ty:.1}" text-anchor="{anchor}">{label}</text>"#);
        }
        s.push_str("</g>\n");
        let mid_x = (LEFT + RIGHT) / 2.0;
        let mid_y = (TOP + BOTTOM) / 2.0;
        let _ = writeln!(
            s,
            r#"<text class="axis-title" x="{mid_x:.1}" y="{:.1}" text-anchor="middle" fill="{INK}">message size (bytes, log scale)</text>"#,
            HEIGHT - 14.0
        );
        let _ = writeln!(
            s,
            r#"<text class="axis-title" x="16.0" y="{mid_y:.1}" text-anchor="middle" fill="{INK}" transform="rotate(-90 16.0 {mid_y:.1})">bus bandwidth (GB/s)</text>"#
        );

        // The floor, under the curves.
        if let Some((min, source)) = floor {
            let py = y.pos(min);
            let text = floor_text(min, source);
            let _ = writeln!(
                s,
                r#"<g class="floor"><title>{}</title><line x1="{LEFT:.1}" y1="{py:.1}" x2="{RIGHT:.1}" y2="{py:.1}" stroke="{FLOOR}" stroke-width="1.5" stroke-dasharray="6 4"/>"#,
                escape(&text)
            );
            // No text on the line: wherever it goes, some curve crosses it. The legend names the
            // line, its <title> and the card above the chart say where the floor comes from.
            s.push_str("</g>\n");
        }

        // Baseline first, so that the runs are drawn over it.
        if !baseline.is_empty() {
            s.push_str(r#"<g class="series baseline">"#);
            s.push('\n');
            series(&mut s, &x, &y, "baseline", &baseline, BASELINE, Some("6 4"), true);
            s.push_str("</g>\n");
        }
        for (n, &i) in drawn.iter().enumerate() {
            let (label, points) = &runs[i];
            if points.is_empty() {
                continue;
            }
            let _ = writeln!(s, r#"<g class="series run" data-series="{n}">"#);
            series(&mut s, &x, &y, label, points, PALETTE[n], None, false);
            s.push_str("</g>\n");
        }

        if drawn.iter().all(|&i| runs[i].1.is_empty()) && baseline.is_empty() {
            let _ = writeln!(
                s,
                r#"<text class="empty" x="{mid_x:.1}" y="{mid_y:.1}" text-anchor="middle" fill="{MUTED}">no measurements</text>"#
            );
        }

        // Legend.
        s.push_str(r#"<g class="legend">"#);
        s.push('\n');
        let mut row = 0usize;
        // `dot` is the fill of the marker, if the series has markers.
        let mut entry = |s: &mut String, colour: &str, dash: Option<&str>, dot: Option<&str>, text: &str| {
            let ly = TOP + 8.0 + row as f64 * LEGEND_ROW;
            let dash = dash.map_or(String::new(), |d| format!(r#" stroke-dasharray="{d}""#));
            let _ = write!(
                s,
                r#"<g><title>{}</title><line x1="{LEGEND_X:.1}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}" stroke="{colour}" stroke-width="2"{dash}/>"#,
                escape(text),
                LEGEND_X + 22.0
            );
            if let Some(fill) = dot {
                let _ = write!(
                    s,
                    r#"<circle cx="{:.1}" cy="{ly:.1}" r="2.5" fill="{fill}" stroke="{colour}" stroke-width="1"/>"#,
                    LEGEND_X + 11.0
                );
            }
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{:.1}" fill="{INK}">{}</text></g>"#,
                LEGEND_X + 28.0,
                ly + 4.0,
                escape(&truncate(text, LEGEND_CHARS))
            );
            row += 1;
        };
        for (n, &i) in drawn.iter().enumerate() {
            let (label, points) = &runs[i];
            if points.is_empty() {
                entry(&mut s, PALETTE[n], Some("1 3"), None, &format!("{label} (no data)"));
            } else {
                entry(&mut s, PALETTE[n], None, Some(PALETTE[n]), label);
            }
        }
        if !baseline.is_empty() {
            entry(&mut s, BASELINE, Some("6 4"), Some("#ffffff"), "baseline");
        }
        if let Some((min, _)) = floor {
            entry(&mut s, FLOOR, Some("6 4"), None, &format!("expected ≥ {min:.2} GB/s"));
        }
        if !hidden.is_empty() {
            let ly = TOP + 8.0 + row as f64 * LEGEND_ROW + 4.0;
            let tops: Vec<f64> = hidden.iter().filter_map(|&i| top(&runs[i].1)).collect();
            let range = match (tops.iter().copied().reduce(f64::min), tops.iter().copied().reduce(f64::max)) {
                (Some(lo), Some(hi)) => format!("top {lo:.1}–{hi:.1} GB/s"),
                _ => String::new(),
            };
            let names: Vec<&str> = hidden.iter().map(|&i| runs[i].0).collect();
            // Two lines: one would run past the chart's edge.
            let _ = writeln!(
                s,
                r#"<text class="more" x="{LEGEND_X:.1}" y="{ly:.1}" fill="{MUTED}"><title>{}</title><tspan>+{} more not drawn</tspan><tspan x="{LEGEND_X:.1}" dy="14">{}</tspan></text>"#,
                escape(&names.join(", ")),
                hidden.len(),
                escape(&range)
            );
        }
        s.push_str("</g>\n</svg>\n");
        s
    }
}

/// The indices of the runs to draw (at most [`MAX_RUNS`], the slowest, in input order) and of the
/// others.
fn select(runs: &[(&str, Vec<Point>)]) -> (Vec<usize>, Vec<usize>) {
    if runs.len() <= MAX_RUNS {
        return ((0..runs.len()).collect(), Vec::new());
    }
    let mut by_top: Vec<usize> = (0..runs.len()).collect();
    // Runs without data sort last: there is nothing to draw.
    by_top.sort_by(|&a, &b| {
        let key = |i: usize| top(&runs[i].1).unwrap_or(f64::INFINITY);
        key(a).total_cmp(&key(b)).then(a.cmp(&b))
    });
    let mut drawn = by_top[..MAX_RUNS].to_vec();
    let mut hidden = by_top[MAX_RUNS..].to_vec();
    drawn.sort_unstable();
    hidden.sort_unstable();
    (drawn, hidden)
}

/// The points of a series to draw: all of them up to [`MAX_DOTS`], else, in each of
/// `MAX_DOTS / 2` columns of the plot, the point of lowest and of highest bandwidth, in size
/// order, so that a dip or a spike stays on the chart while the page stays small.
fn thin<'p>(points: &'p [Point], x: &XAxis) -> Cow<'p, [Point]> {
    if points.len() <= MAX_DOTS {
        return Cow::Borrowed(points);
    }
    let columns = MAX_DOTS / 2;
    let column = |p: &Point| (((x.pos(p.size) - LEFT) / (RIGHT - LEFT) * columns as f64) as usize).min(columns - 1);
    let mut kept = Vec::with_capacity(MAX_DOTS);
    // The points are in size order, so each column's are consecutive.
    for group in points.chunk_by(|a, b| column(a) == column(b)) {
        let extreme = |pick: fn(f64, f64) -> bool| {
            (0..group.len()).reduce(|best, i| if pick(group[i].busbw, group[best].busbw) { i } else { best })
        };
        let (Some(low), Some(high)) = (extreme(|a, b| a < b), extreme(|a, b| a > b)) else { continue };
        kept.push(group[low.min(high)]);
        if low != high {
            kept.push(group[low.max(high)]);
        }
    }
    Cow::Owned(kept)
}

/// One series: the line, then a dot with a hover title per point (at most [`MAX_DOTS`]).
#[allow(clippy::too_many_arguments, reason = "a private drawing helper")]
fn series(
    s: &mut String,
    x: &XAxis,
    y: &YAxis,
    label: &str,
    points: &[Point],
    colour: &str,
    dash: Option<&str>,
    hollow: bool,
) {
    let points = thin(points, x);
    let coords: Vec<String> = points.iter().map(|p| format!("{:.1},{:.1}", x.pos(p.size), y.pos(p.busbw))).collect();
    let dash = dash.map_or(String::new(), |d| format!(r#" stroke-dasharray="{d}""#));
    let _ = writeln!(
        s,
        r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="2" stroke-linejoin="round"{dash}/>"#,
        coords.join(" ")
    );
    let label = escape(label);
    let fill = if hollow { "#ffffff" } else { colour };
    for p in points.iter() {
        let _ = writeln!(
            s,
            r#"<circle cx="{:.1}" cy="{:.1}" r="2.5" fill="{fill}" stroke="{colour}" stroke-width="1"><title>{label}: {} — {:.2} GB/s</title></circle>"#,
            x.pos(p.size),
            y.pos(p.busbw),
            size_label(p.size),
            p.busbw
        );
    }
}

/// The message-size axis: log2, from the power of two at or below the smallest size to the one at
/// or above the largest.
#[derive(Debug)]
struct XAxis {
    lo: f64,
    hi: f64,
    /// Exponents and their labels.
    ticks: Vec<(f64, String)>,
}

impl XAxis {
    fn new(sizes: impl Iterator<Item = u64>) -> XAxis {
        let (mut lo, mut hi) = (i32::MAX, i32::MIN);
        for size in sizes {
            let e = exponent(size);
            lo = lo.min(e.floor() as i32);
            hi = hi.max(e.ceil() as i32);
        }
        if lo > hi {
            // Nothing to draw: nccl-tests' usual `-b 8 -e 8G`.
            (lo, hi) = (3, 33);
        }
        if lo == hi {
            if lo > 0 {
                lo -= 1;
            }
            hi += 1;
        }
        let span = hi - lo;
        // The smallest step that gives at most five ticks; 10 puts them on 1 KiB, 1 MiB, 1 GiB.
        let step = [1, 2, 5, 10, 20].into_iter().find(|&st| span / st <= 5).unwrap_or(20);
        let mut axis = XAxis { lo: f64::from(lo), hi: f64::from(hi), ticks: Vec::new() };
        let mut exps: Vec<i32> = (lo..=hi).filter(|e| e % step == 0).collect();
        // The ends too, when they do not crowd a tick.
        for end in [lo, hi] {
            if !exps.contains(&end)
                && exps
                    .iter()
                    .all(|&e| (axis.pos_exp(f64::from(e)) - axis.pos_exp(f64::from(end))).abs() >= MIN_TICK_GAP)
            {
                exps.push(end);
            }
        }
        exps.sort_unstable();
        axis.ticks = exps.into_iter().map(|e| (f64::from(e), exponent_label(e))).collect();
        axis
    }

    fn pos_exp(&self, e: f64) -> f64 {
        LEFT + (e - self.lo) / (self.hi - self.lo) * (RIGHT - LEFT)
    }

    fn pos(&self, size: u64) -> f64 {
        self.pos_exp(exponent(size))
    }
}

/// The bandwidth axis: linear from 0 to a round number above the highest value.
#[derive(Debug)]
struct YAxis {
    max: f64,
    ticks: Vec<(f64, String)>,
}

impl YAxis {
    fn new(values: impl Iterator<Item = f64>) -> YAxis {
        let highest = values.filter(|v| v.is_finite()).fold(0.0_f64, f64::max);
        let target = if highest > 0.0 { highest * 1.05 } else { 1.0 };
        let step = nice_step(target / 5.0);
        let count = (target / step).ceil().max(1.0) as usize;
        let max = step * count as f64;
        let decimals = (0..=6)
            .find(|&d| {
                let scaled = step * 10f64.powi(d);
                (scaled - scaled.round()).abs() < 1e-6
            })
            .unwrap_or(6) as usize;
        let ticks = (0..=count)
            .map(|i| {
                let v = step * i as f64;
                (v, format!("{v:.decimals$}"))
            })
            .collect();
        YAxis { max, ticks }
    }

    fn pos(&self, v: f64) -> f64 {
        BOTTOM - v / self.max * (BOTTOM - TOP)
    }
}

/// The smallest of 1, 2, 2.5 and 5 times a power of ten that is at least `raw`.
fn nice_step(raw: f64) -> f64 {
    let magnitude = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .map(|m| m * magnitude)
        .find(|&v| v >= raw * (1.0 - 1e-9))
        .unwrap_or(10.0 * magnitude)
}

/// `8 B`, `1 KiB`, `1.5 MiB`, `8 GiB`: how nccl-tests users think of message sizes.
pub(crate) fn size_label(bytes: u64) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut unit = 0;
    while unit + 1 < UNITS.len() && bytes >= 1u64 << (10 * (unit + 1)) {
        unit += 1;
    }
    let scale = 1u64 << (10 * unit);
    if bytes.is_multiple_of(scale) {
        format!("{} {}", bytes / scale, UNITS[unit])
    } else {
        format!("{:.1} {}", bytes as f64 / scale as f64, UNITS[unit])
    }
}

/// The label of the tick at 2^`e` bytes (`e` is 0 to 64).
fn exponent_label(e: i32) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let e = e.clamp(0, 69);
    format!("{} {}", 1u32 << (e % 10), UNITS[(e / 10) as usize])
}

fn floor_text(min: f64, source: &str) -> String {
    if source.is_empty() {
        format!("expected ≥ {min:.2} GB/s")
    } else {
        format!("expected ≥ {min:.2} GB/s · {source}")
    }
}

/// At most `max` characters, with an ellipsis when cut.
pub(crate) fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(max - 1).collect();
        out.push('…');
        out
    }
}

/// Escapes text and attribute values; control characters (which XML cannot carry) become spaces.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests;
