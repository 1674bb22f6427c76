//! The layers docs/architecture.md states, held by tests where the compiler alone does not hold
//! them (issue 38): the judging crate's dependencies have no parser in them (the compiler then
//! keeps its code off the parsers), only the stages that read text import the parser crate, and
//! the judging stages write no file.

use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The crates a manifest's `[dependencies]` and `[dev-dependencies]` name.
fn dependencies(manifest: &str) -> Vec<String> {
    let text = std::fs::read_to_string(root().join(manifest)).unwrap();
    let mut names = Vec::new();
    let mut in_deps = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_deps = matches!(line, "[dependencies]" | "[dev-dependencies]");
        } else if in_deps && !line.is_empty() && !line.starts_with('#') {
            let name = line.split(['=', '.']).next().unwrap_or("").trim();
            names.push(name.to_string());
        }
    }
    names
}

/// Checks, correlation, topology and the policy (`fabcheck-check`) and the facts' types
/// (`fabcheck-model`) depend on no parser: not `fabcheck-parse`, not the capture reader
/// (`fabcheck-flows`, with its pcap and packet parsers), not the crate that has them all.
#[test]
fn the_judging_crate_and_the_model_depend_on_no_parser() {
    for manifest in ["crates/check/Cargo.toml", "crates/model/Cargo.toml"] {
        let deps = dependencies(manifest);
        assert!(deps.iter().any(|d| d == "serde"), "{manifest}: the scan read no dependency: {deps:?}");
        for forbidden in ["fabcheck-parse", "fabcheck-flows", "fabcheck", "fabcheck-lab", "pcap-parser", "etherparse"] {
            assert!(!deps.iter().any(|d| d == forbidden), "{manifest} depends on {forbidden}");
        }
    }
    assert!(dependencies("crates/check/Cargo.toml").iter().any(|d| d == "fabcheck-model"));
}

/// Every `.rs` file under `dir` (relative to the checkout), with its text up to its test module.
fn sources(dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(root().join(dir)).unwrap() {
        let path = entry.unwrap().path();
        let relative = path.strip_prefix(root()).unwrap().to_path_buf();
        if path.is_dir() {
            sources(&relative, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            let body = text.split("#[cfg(test)]").next().unwrap_or("").to_string();
            out.push((relative.display().to_string(), body));
        }
    }
}

/// In the `fabcheck` crate, text becomes facts in `src/facts/` (device evidence), read with the
/// readers `src/platform/` names per platform; nccl-tests' output is the benchmark's own, read
/// in `src/bench/` and by `bench judge` (`src/cli/bench_judge.rs`); `fabcheck parse` exposes the
/// parsers (`src/cli/parse.rs`, its sources in `src/cli/app.rs`); `src/judged/` is tests.
#[test]
fn only_the_stages_that_read_text_import_the_parsers() {
    let allowed = [
        "src/facts/",
        "src/platform/",
        "src/bench/",
        "src/judged/",
        "src/cli/bench_judge.rs",
        "src/cli/parse.rs",
        "src/cli/app.rs",
    ];
    let mut files = Vec::new();
    sources(Path::new("src"), &mut files);
    assert!(files.len() > 50, "the scan found {} files", files.len());
    let outside: Vec<&String> = files
        .iter()
        .filter(|(_, body)| body.contains("fabcheck_parse"))
        .map(|(file, _)| file)
        .filter(|file| !allowed.iter().any(|a| file.starts_with(a)))
        .collect();
    assert!(outside.is_empty(), "parsers imported outside the text-reading stages: {outside:?}");
}

/// The facts stage and the judging crate are pure: no file is written there (the evidence is
/// written by collection, the reports by `crates/report`).
#[test]
fn the_facts_and_judging_stages_write_no_file() {
    let mut files = Vec::new();
    sources(Path::new("src/facts"), &mut files);
    sources(Path::new("crates/check/src"), &mut files);
    assert!(files.len() > 40, "the scan found {} files", files.len());
    for (file, body) in &files {
        for write in ["fs::write", "File::create", "create_dir", "OpenOptions", "fs::rename", "remove_file"] {
            assert!(!body.contains(write), "{file} writes files ({write})");
        }
    }
}
