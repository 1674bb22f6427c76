//! Checks `metrics.prom` line by line against the text exposition format (0.0.4).

use super::*;
use crate::fixture;
use std::collections::BTreeSet;

/// One sample line: name, labels (unescaped, in order), value.
#[derive(Debug, PartialEq)]
struct Sample {
    name: String,
    labels: Vec<(String, String)>,
    value: f64,
}

fn is_name(s: &str, colons: bool) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || (colons && c == ':'))
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || (colons && c == ':'))
}

/// Parses `name{k="v",...} value` strictly; panics with the line on any deviation.
fn parse_sample(line: &str) -> Sample {
    let name_end = line.find(['{', ' ']).unwrap_or_else(|| panic!("{line}"));
    let name = &line[..name_end];
    assert!(is_name(name, true), "bad metric name in {line:?}");
    let mut rest = &line[name_end..];
    let mut labels = Vec::new();
    if let Some(mut l) = rest.strip_prefix('{') {
        loop {
            let eq = l.find('=').unwrap_or_else(|| panic!("{line}"));
            let key = &l[..eq];
            assert!(is_name(key, false), "bad label name {key:?} in {line:?}");
            l = l[eq + 1..].strip_prefix('"').unwrap_or_else(|| panic!("{line}"));
            let mut value = String::new();
            let mut chars = l.char_indices();
            let end = loop {
                match chars.next() {
                    Some((_, '\\')) => match chars.next() {
                        Some((_, 'n')) => value.push('\n'),
                        Some((_, c @ ('\\' | '"'))) => value.push(c),
                        other => panic!("bad escape {other:?} in {line:?}"),
                    },
                    Some((i, '"')) => break i,
                    Some((_, '\n')) | None => panic!("unterminated label value in {line:?}"),
                    Some((_, c)) => value.push(c),
                }
            };
            labels.push((key.to_string(), value));
            l = &l[end + 1..];
            if let Some(r) = l.strip_prefix(',') {
                l = r;
            } else {
                rest = l.strip_prefix('}').unwrap_or_else(|| panic!("{line}"));
                break;
            }
        }
    }
    let value = rest.strip_prefix(' ').unwrap_or_else(|| panic!("{line}"));
    let value = match value {
        "NaN" => f64::NAN,
        "+Inf" => f64::INFINITY,
        "-Inf" => f64::NEG_INFINITY,
        v => v.parse().unwrap_or_else(|_| panic!("bad value in {line:?}")),
    };
    Sample { name: name.to_string(), labels, value }
}

/// Checks the whole file's structure and returns its samples.
fn parse(text: &str) -> Vec<Sample> {
    assert!(text.ends_with('\n'), "the textfile collector wants a final newline");
    let mut described: Vec<String> = Vec::new();
    let mut typed = BTreeSet::new();
    let mut samples: Vec<Sample> = Vec::new();
    for line in text.lines() {
        if let Some(help) = line.strip_prefix("# HELP ") {
            let name = help.split(' ').next().unwrap();
            assert!(!described.contains(&name.to_string()), "HELP twice for {name}");
            described.push(name.to_string());
        } else if let Some(ty) = line.strip_prefix("# TYPE ") {
            let (name, kind) = ty.split_once(' ').unwrap();
            assert_eq!(kind, "gauge", "{line}");
            assert_eq!(described.last().map(String::as_str), Some(name), "TYPE after its HELP");
            assert!(typed.insert(name.to_string()), "TYPE twice for {name}");
        } else {
            assert!(!line.starts_with('#') && !line.is_empty(), "stray line {line:?}");
            let s = parse_sample(line);
            assert_eq!(described.last(), Some(&s.name), "sample outside its metric: {line}");
            samples.push(s);
        }
    }
    let mut names = described.clone();
    names.sort();
    assert_eq!(names, described, "metrics sorted by name");
    for name in &described {
        let series: Vec<Vec<&str>> = samples
            .iter()
            .filter(|s| &s.name == name)
            .map(|s| s.labels.iter().map(|(_, v)| v.as_str()).collect())
            .collect();
        assert!(!series.is_empty(), "{name} has HELP but no samples");
        assert!(series.windows(2).all(|w| w[0] < w[1]), "{name} unsorted or duplicated");
    }
    samples
}

fn render(r: &AuditResult) -> String {
    String::from_utf8(PrometheusReporter.render(r).unwrap()).unwrap()
}

fn value(samples: &[Sample], name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    samples
        .iter()
        .find(|s| {
            s.name == name
                && s.labels.len() == labels.len()
                && s.labels.iter().zip(labels).all(|((k, v), (k2, v2))| k == k2 && v == v2)
        })
        .map(|s| s.value)
}

#[test]
fn follows_the_exposition_format() {
    let text = render(&fixture::audit_result());
    let samples = parse(&text);
    assert!(!text.contains("{}"), "no empty label sets");
    assert!(!text.contains("_total"), "gauges, no counter names");
    assert!(
        !text.lines().any(|l| l.starts_with("fabcheck_") && l.split('{').next().unwrap().contains("counter")),
        "promtool: no type in a name"
    );
    assert!(!text.contains("# EOF"), "classic format, not OpenMetrics");
    assert!(samples.len() > 20);
}

#[test]
fn has_the_expected_series() {
    let s = parse(&render(&fixture::audit_result()));
    let counter = [("device", "gpu01"), ("port", "mlx5_0"), ("counter", "rx_prio3_pause")];
    assert_eq!(value(&s, "fabcheck_port_stat", &counter), Some(5_000_000.0));
    assert_eq!(value(&s, "fabcheck_port_stat_increase", &counter), Some(1_200_000.0));
    assert_eq!(value(&s, "fabcheck_port_stat_increase_per_second", &counter), Some(20_000.0));
    // The reset counter has a value but no delta and no rate.
    let reset = [("device", "gpu01"), ("port", "mlx5_1"), ("counter", "out_of_buffer")];
    assert_eq!(value(&s, "fabcheck_port_stat", &reset), Some(3.0));
    assert_eq!(value(&s, "fabcheck_port_stat_increase", &reset), None);
    assert_eq!(value(&s, "fabcheck_port_stat_increase_per_second", &reset), None);
    // Quiet counters are still exported: Prometheus wants the zeros.
    let quiet = [("device", "gpu01"), ("port", "mlx5_0"), ("counter", "rx_bytes")];
    assert_eq!(value(&s, "fabcheck_port_stat", &quiet), Some(9e9));

    for (sev, n) in [("critical", 2.0), ("error", 2.0), ("warning", 3.0), ("info", 1.0)] {
        assert_eq!(value(&s, "fabcheck_findings", &[("severity", sev)]), Some(n), "{sev}");
    }
    assert_eq!(
        value(&s, "fabcheck_findings_by_code", &[("code", "nic.pfc_mismatch"), ("severity", "critical")]),
        Some(1.0)
    );
    assert_eq!(s.iter().filter(|x| x.name == "fabcheck_findings_by_code").count(), 8);
    assert_eq!(value(&s, "fabcheck_device_up", &[("device", "gpu03"), ("role", "host")]), Some(0.0));
    assert_eq!(value(&s, "fabcheck_device_up", &[("device", "leaf1"), ("role", "leaf")]), Some(1.0));
    assert_eq!(value(&s, "fabcheck_verdict", &[("verdict", "fail")]), Some(1.0));
    assert_eq!(value(&s, "fabcheck_verdict", &[("verdict", "pass")]), Some(0.0));
    assert_eq!(value(&s, "fabcheck_verdict", &[("verdict", "warn")]), Some(0.0));
    assert_eq!(value(&s, "fabcheck_audit_duration_seconds", &[]), Some(61.25));
    assert_eq!(value(&s, "fabcheck_audit_timestamp_seconds", &[]), Some(1_741_917_566.5));
}

#[test]
fn zero_findings_are_still_exported() {
    let s = parse(&render(&fixture::clean_result()));
    for sev in ["critical", "error", "warning", "info"] {
        assert_eq!(value(&s, "fabcheck_findings", &[("severity", sev)]), Some(0.0));
    }
    assert_eq!(value(&s, "fabcheck_verdict", &[("verdict", "pass")]), Some(1.0));
    assert!(!s.iter().any(|x| x.name.starts_with("fabcheck_port_stat")));
    assert!(!s.iter().any(|x| x.name == "fabcheck_findings_by_code"));
}

#[test]
fn label_values_are_escaped_and_duplicates_collapse() {
    let mut r = fixture::audit_result();
    r.counters[0].port = "eth\"0\\\n".into();
    let mut dup = r.counters[1].clone();
    dup.value = 7;
    r.counters.push(dup);
    r.started = "not a time".into();
    let s = parse(&render(&r));
    let odd = [("device", "gpu01"), ("port", "eth\"0\\\n"), ("counter", "rx_prio3_pause")];
    assert_eq!(value(&s, "fabcheck_port_stat", &odd), Some(5_000_000.0));
    let dup = [("device", "gpu01"), ("port", "mlx5_0"), ("counter", "rx_bytes")];
    assert_eq!(value(&s, "fabcheck_port_stat", &dup), Some(7.0), "last one wins");
    // An unreadable start time drops the timestamp rather than inventing one.
    assert_eq!(value(&s, "fabcheck_audit_timestamp_seconds", &[]), None);
}

#[test]
fn benchmarks_export_peak_and_average_busbw() {
    let r = fixture::bench_result();
    let text = render(&r);
    let s = parse(&text);
    let pair = [("hosts", "gpu04+gpu05"), ("round", "1"), ("scope", "pair"), ("test", "all_reduce_perf")];
    assert_eq!(value(&s, "fabcheck_nccl_busbw_bytes_per_second", &pair), Some(12.1e9));
    assert_eq!(value(&s, "fabcheck_nccl_avg_busbw_bytes_per_second", &pair), Some(6.05e9));
    let all = [("hosts", "gpu01+gpu02+gpu04+gpu05"), ("round", ""), ("scope", "all"), ("test", "all_reduce_perf")];
    assert_eq!(value(&s, "fabcheck_nccl_avg_busbw_bytes_per_second", &all), Some(11.87e9));
    assert!(
        text.contains(
            "fabcheck_nccl_busbw_bytes_per_second{hosts=\"gpu04+gpu05\",round=\"1\",scope=\"pair\",test=\"all_reduce_perf\"} 12100000000\n"
        ),
        "{text}"
    );
    assert_eq!(s.iter().filter(|x| x.name == "fabcheck_nccl_busbw_bytes_per_second").count(), r.benchmarks.len());
    // A plain audit has no benchmark metrics at all.
    let plain = parse(&render(&fixture::audit_result()));
    assert!(!plain.iter().any(|x| x.name.starts_with("fabcheck_nccl_")));

    // No peak figure: the bandwidth at the largest size; no average, no series; NaN, no series.
    let mut r = fixture::bench_result();
    r.benchmarks[0].peak_busbw_gbs = None;
    r.benchmarks[0].avg_busbw_gbs = Some(f64::NAN);
    r.benchmarks[1].rows.clear();
    r.benchmarks[1].peak_busbw_gbs = None;
    let s = parse(&render(&r));
    assert_eq!(value(&s, "fabcheck_nccl_busbw_bytes_per_second", &all), Some(24.5e9));
    assert_eq!(value(&s, "fabcheck_nccl_avg_busbw_bytes_per_second", &all), None);
    let first_pair = [("hosts", "gpu01+gpu02"), ("round", "1"), ("scope", "pair"), ("test", "all_reduce_perf")];
    assert_eq!(value(&s, "fabcheck_nccl_busbw_bytes_per_second", &first_pair), None);
}

#[test]
fn paths_are_counted() {
    let text = render(&fixture::fabric_result());
    let s = parse(&text);
    assert_eq!(value(&s, "fabcheck_paths", &[]), Some(16.0));
    assert_eq!(value(&s, "fabcheck_paths_failing", &[]), Some(13.0));
    assert!(
        text.contains(
            "# HELP fabcheck_paths GPU paths checked hop by hop (half-paths host NIC to leaf to spine).\n\
         # TYPE fabcheck_paths gauge\n\
         fabcheck_paths 16\n\
         # HELP fabcheck_paths_failing GPU paths with at least one failing hop.\n\
         # TYPE fabcheck_paths_failing gauge\n\
         fabcheck_paths_failing 13\n"
        ),
        "{text}"
    );
    // Only failing paths are listed above 256: the total still counts them all.
    let mut r = fixture::fabric_result();
    r.paths.retain(|p| p.hops.iter().any(|h| !h.ok));
    r.paths_total = 4_000;
    let s = parse(&render(&r));
    assert_eq!(value(&s, "fabcheck_paths", &[]), Some(4_000.0));
    assert_eq!(value(&s, "fabcheck_paths_failing", &[]), Some(13.0));
    // No switch audited: zeros, not absent series.
    let s = parse(&render(&fixture::audit_result()));
    assert_eq!(value(&s, "fabcheck_paths", &[]), Some(0.0));
    assert_eq!(value(&s, "fabcheck_paths_failing", &[]), Some(0.0));
}

#[test]
fn output_is_deterministic() {
    let r = fixture::audit_result();
    let mut shuffled = r.clone();
    shuffled.counters.reverse();
    shuffled.devices.reverse();
    shuffled.findings.reverse();
    assert_eq!(render(&r), render(&shuffled));
    let r = fixture::bench_result();
    let mut shuffled = r.clone();
    shuffled.benchmarks.reverse();
    assert_eq!(render(&r), render(&shuffled));
}

proptest::proptest! {
    #[test]
    fn any_label_value_gives_a_valid_file(
        device in "\\PC*|[\"\\\\\n a-z]{0,8}",
        port in "\\PC*",
        counter in "[a-z_]{1,12}",
        n in proptest::prelude::any::<u64>(),
        rate in proptest::prelude::any::<f64>(),
    ) {
        let mut r = fixture::audit_result();
        r.counters[0].device = device.clone();
        r.counters[0].port = port.clone();
        r.counters[0].counter = counter.clone();
        r.counters[0].value = n;
        r.counters[0].rate_per_s = Some(rate);
        let s = parse(&render(&r));
        let labels = [("device", device.as_str()), ("port", port.as_str()), ("counter", counter.as_str())];
        proptest::prop_assert_eq!(value(&s, "fabcheck_port_stat", &labels), Some(n as f64));
    }
}

#[test]
fn each_device_has_its_findings_by_severity() {
    let s = parse(&render(&fixture::audit_result()));
    let on = |device, severity| value(&s, "fabcheck_device_findings", &[("device", device), ("severity", severity)]);
    assert_eq!(
        (on("gpu02", "critical"), on("gpu02", "warning"), on("gpu02", "info")),
        (Some(1.0), Some(1.0), Some(0.0))
    );
    assert_eq!(on("leaf1", "error"), Some(1.0));
    assert_eq!(s.iter().filter(|x| x.name == "fabcheck_device_findings").count(), 4 * 4, "four severities per device");
}

#[test]
fn the_runs_labels_come_first_on_every_series() {
    let mut r = fixture::audit_result();
    r.metric_labels.insert("cluster".into(), "a100-east".into());
    let text = render(&r);
    let samples: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert!(samples.iter().all(|l| l.contains("{cluster=\"a100-east\"")), "{text}");
    assert!(text.contains("fabcheck_verdict{cluster=\"a100-east\",verdict=\"fail\"} 1\n"), "{text}");
}

#[test]
fn only_the_counters_the_policy_exports() {
    let mut r = fixture::audit_result();
    r.metric_counters = Some(vec!["out_of_buffer".into()]);
    let s = parse(&render(&r));
    let names: std::collections::BTreeSet<String> = s
        .iter()
        .filter(|x| x.name == "fabcheck_port_stat")
        .filter_map(|x| x.labels.iter().find(|(k, _)| k == "counter").map(|(_, v)| v.clone()))
        .collect();
    assert_eq!(names, std::collections::BTreeSet::from(["out_of_buffer".to_string()]));
    r.metric_counters = Some(Vec::new());
    assert!(!parse(&render(&r)).iter().any(|x| x.name.starts_with("fabcheck_port_stat")), "none");
}

/// The families as prometheus-client's registry writes them: what `encode` replaced, kept as its
/// oracle.
fn through_prometheus_client(families: Vec<Family>, run_labels: &[(&str, &str)]) -> String {
    use prometheus_client::collector::Collector;
    use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric, prometheus_text};
    use prometheus_client::metrics::MetricType;
    use prometheus_client::metrics::gauge::ConstGauge;

    #[derive(Debug)]
    struct Snapshot {
        families: Vec<Family>,
        run_labels: Vec<(String, String)>,
    }
    impl Collector for Snapshot {
        fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
            for family in &self.families {
                let mut metric = encoder.encode_descriptor(family.name, family.help, None, MetricType::Gauge)?;
                for (values, value) in &family.series {
                    let run = self.run_labels.iter().map(|(k, v)| (k.as_str(), v.as_str()));
                    let own = family.labels.iter().copied().zip(values.iter().map(|v| &**v));
                    let labels: Vec<(&str, &str)> = run.chain(own).collect();
                    let sample = metric.encode_family(&labels)?;
                    match *value {
                        Value::Int(v) => ConstGauge::new(v).encode(sample)?,
                        Value::Float(v) => ConstGauge::new(v).encode(sample)?,
                    }
                }
            }
            Ok(())
        }
    }
    let mut registry = prometheus_client::registry::Registry::default();
    let run_labels = run_labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    registry.register_collector(Box::new(Snapshot { families, run_labels }));
    let mut text = String::new();
    prometheus_text::encode(&mut text, &registry).unwrap();
    text
}

fn by_hand(families: &[Family], run_labels: &[(&str, &str)]) -> String {
    let mut out = Vec::new();
    encode(families, run_labels, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// Every report fixture, with and without the run's labels: the file is the one prometheus-client
/// wrote, byte for byte.
#[test]
fn the_file_is_what_prometheus_client_writes() {
    let mut with_changes = fixture::audit_result();
    with_changes.since_last_run = Some(fixture::changes());
    let results = [
        fixture::audit_result(),
        fixture::clean_result(),
        fixture::bench_result(),
        fixture::fabric_result(),
        fixture::job_result(),
        fixture::large_result(300),
        with_changes,
    ];
    for r in &results {
        for run_labels in [&[][..], &[("cluster", "a100-east"), ("site", "b\"1\\\n")][..]] {
            let hand = by_hand(&families(r), run_labels);
            assert!(hand.lines().count() > 20);
            assert_eq!(hand, through_prometheus_client(families(r), run_labels));
        }
    }
}

/// Values and text at the edges: every float class, the largest integer, label values and help
/// text with what must be escaped, non-ASCII text, a family without labels.
#[test]
fn edge_values_are_written_as_prometheus_client_writes_them() {
    let floats = [
        0.0,
        -0.0,
        1.0,
        -1.5,
        22.09005947323704,
        1796459328.0,
        1e-7,
        1e21,
        1e300,
        f64::MIN_POSITIVE,
        5e-324,
        f64::MAX,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    let families = || {
        let mut float = Family::new("f", "help with \\ and\nline feed", &["v"]);
        for (i, x) in floats.iter().enumerate() {
            float.set(&[&i.to_string()], Value::Float(*x));
        }
        let mut int = Family::new("i", "\"quoted\" help", &["a", "b"]);
        for (i, x) in [0, 1, u64::MAX, 1 << 53].into_iter().enumerate() {
            int.set(&[&format!("{i}\\\"\n\\n"), "ünïcødé 端口 \u{1F600}"], Value::Int(x));
        }
        let mut bare = Family::new("bare", "", &[]);
        bare.set(&[], Value::Int(7));
        vec![float, int, bare]
    };
    for run_labels in [&[][..], &[("r", "x\ny")][..]] {
        assert_eq!(by_hand(&families(), run_labels), through_prometheus_client(families(), run_labels));
    }
}
