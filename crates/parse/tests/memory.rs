//! Memory bounded by design: each host parser's peak heap on a 4 MiB output (the most
//! `--max-output` keeps by default) stays within a small multiple of it. A device's output is
//! hostile input: an `nvidia-smi topo -m` of a thousand columns once took 90 times its size.
//!
//! One test in its own binary: the peak is the process's, so nothing else may allocate meanwhile.

use fabcheck_parse::linux::*;
use peakmem_alloc::{INSTRUMENTED_SYSTEM, PeakMemAlloc, PeakMemAllocTrait};
use std::alloc::System;
use std::path::Path;

#[global_allocator]
static GLOBAL: &PeakMemAlloc<System> = &INSTRUMENTED_SYSTEM;

/// The most a parse may take, as a multiple of its input.
const MAX_RATIO: f64 = 12.0;
const SIZE: usize = 4 << 20;

/// The real samples of `dir` one after the other, repeated up to 4 MiB.
fn repeated(dir: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(dir);
    let mut samples: Vec<_> = std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().path()).collect();
    samples.sort();
    let one: String = samples
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e != "md"))
        .map(|p| String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned())
        .collect();
    assert!(!one.is_empty(), "no sample in {}", root.display());
    let mut text = String::with_capacity(SIZE + one.len());
    while text.len() < SIZE {
        text.push_str(&one);
    }
    text
}

/// A topology matrix of a thousand GPU columns and as many rows as fit in 4 MiB.
fn wide_topology() -> String {
    let n = 1000;
    let mut text = String::from("\t");
    text.push_str(&(0..n).map(|i| format!("GPU{i}")).collect::<Vec<_>>().join("\t"));
    text.push_str("\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n");
    let mut i = 0;
    while text.len() < SIZE {
        let cells: Vec<&str> = (0..n).map(|j| if j == i % n { "X" } else { "NV18" }).collect();
        text.push_str(&format!("GPU{}\t{}\t0-23\t0\t\tN/A\n", i % n, cells.join("\t")));
        i += 1;
    }
    text
}

/// Peak heap of `parse(text)` beyond what was allocated before it.
fn peak_of(text: &str, parse: &dyn Fn(&str)) -> usize {
    GLOBAL.reset_peak_memory();
    parse(text);
    GLOBAL.get_peak_memory()
}

#[test]
fn every_host_parser_stays_within_a_small_multiple_of_its_input() {
    type Case = (&'static str, String, Box<dyn Fn(&str)>);
    let cases: Vec<Case> = vec![
        ("nvidia_smi_topo (wide matrix)", wide_topology(), Box::new(|t| drop(nvidia_smi_topo::parse(t)))),
        ("nvidia_smi_topo", repeated("nvidia_smi_topo"), Box::new(|t| drop(nvidia_smi_topo::parse(t)))),
        ("mlnx_qos", repeated("mlnx_qos"), Box::new(|t| drop(mlnx_qos::parse(t)))),
        ("ethtool_stats", repeated("ethtool_stats"), Box::new(|t| drop(ethtool_stats::parse(t)))),
        ("ethtool_link", repeated("ethtool_link"), Box::new(|t| drop(ethtool_link::parse(t)))),
        ("ip_link", repeated("ip_link"), Box::new(|t| drop(ip_link::parse(t)))),
        ("ip_route", repeated("ip_route"), Box::new(|t| drop(ip_route::parse(t)))),
        ("ip_rule", repeated("ip_rule"), Box::new(|t| drop(ip_rule::parse(t)))),
        ("lsmod", repeated("lsmod"), Box::new(|t| drop(lsmod::parse(t)))),
        ("interrupts", repeated("interrupts"), Box::new(|t| drop(interrupts::parse(t)))),
        ("irq_affinity", repeated("irq_affinity"), Box::new(|t| drop(irq_affinity::parse(t)))),
        ("hw_counters", repeated("hw_counters"), Box::new(|t| drop(hw_counters::parse(t)))),
        ("ibstat", repeated("ibstat"), Box::new(|t| drop(ibstat::parse(t)))),
        ("ibdev2netdev", repeated("ibdev2netdev"), Box::new(|t| drop(ibdev2netdev::parse(t)))),
        ("iblinkinfo", repeated("iblinkinfo"), Box::new(|t| drop(iblinkinfo::parse(t)))),
        ("show_gids", repeated("show_gids"), Box::new(|t| drop(show_gids::parse(t)))),
        ("perfquery", repeated("perfquery"), Box::new(|t| drop(perfquery::parse(t)))),
        ("sminfo", repeated("sminfo"), Box::new(|t| drop(sminfo::parse(t)))),
        ("roce_ecn", repeated("roce_ecn"), Box::new(|t| drop(roce_ecn::parse(t)))),
    ];
    let mut report = Vec::new();
    let mut over = Vec::new();
    for (name, text, parse) in &cases {
        let peak = peak_of(text, parse.as_ref());
        let ratio = peak as f64 / text.len() as f64;
        report.push(format!(
            "{name:<32} {:>6.1} MiB peak for {:.1} MiB: {ratio:.1}x",
            peak as f64 / 1048576.0,
            text.len() as f64 / 1048576.0
        ));
        if ratio > MAX_RATIO {
            over.push(name);
        }
    }
    eprintln!("{}", report.join("\n"));
    assert!(over.is_empty(), "over {MAX_RATIO}x their input: {over:?}\n{}", report.join("\n"));
}
