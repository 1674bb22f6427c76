//! The docs bound to the code (issue 38): a finding code cannot be emitted undocumented or
//! documented and never emitted; a lab fault cannot exist without its row in docs/lab.md; a
//! policy key cannot exist without docs/policy.md naming it; and every code's family is one the
//! architecture doc names. Each test reads the sources and docs of this checkout.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The families of finding codes: an audit's checks (`CHECKS`), then the benchmark's, the flows',
/// the waivers' and `policy infer`'s.
const OTHER_FAMILIES: [&str; 4] = ["nccl", "flow", "waiver", "infer"];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn families() -> Vec<&'static str> {
    fabcheck::check::CHECKS.iter().copied().chain(OTHER_FAMILIES).collect()
}

/// Every `.rs` file under `dir`, with its text up to its test module.
fn sources(dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            let body = text.split("#[cfg(test)]").next().unwrap_or("").to_string();
            out.push((path.strip_prefix(root()).unwrap().display().to_string(), body));
        }
    }
}

/// The codes the code emits: a code literal given to `Finding::new`, paired with a severity,
/// named in the causes table, returned by an error's `code()`, held by a constant or a `code`
/// field, or standing alone as an argument. The policy module names policy keys, which share the
/// codes' shape (`nic.mtu`): there only `Finding::new` counts.
fn emitted() -> BTreeMap<String, String> {
    let mut files = Vec::new();
    sources(&root().join("src"), &mut files);
    for krate in std::fs::read_dir(root().join("crates")).unwrap() {
        sources(&krate.unwrap().path().join("src"), &mut files);
    }
    let code = format!(r#""((?:{})\.[a-z][a-z0-9_]*)""#, families().join("|"));
    let finding = regex::Regex::new(&format!(r"Finding::new\(\s*{code}")).unwrap();
    let others: Vec<regex::Regex> = [
        format!(r"{code},\s*Severity::"),
        format!(r"(?:root|measured|symptom)\(\s*{code}"),
        format!(r"code:\s*{code}"),
        format!(r"=>\s*{code}"),
        format!(r"&str\s*=\s*{code}"),
        format!(r"(?m)^\s*{code},?\s*$"),
    ]
    .iter()
    .map(|p| regex::Regex::new(p).unwrap())
    .collect();
    let mut found = BTreeMap::new();
    for (file, body) in &files {
        let policy = file.starts_with("crates/check/src/policy/");
        let patterns = std::iter::once(&finding).chain(others.iter().filter(|_| !policy));
        for p in patterns {
            for c in p.captures_iter(body) {
                found.entry(c[1].to_string()).or_insert_with(|| file.clone());
            }
        }
    }
    found
}

/// The codes the findings tables document: the first column of each table row.
fn documented() -> BTreeSet<String> {
    let code = regex::Regex::new(&format!(r"`((?:{})\.[a-z][a-z0-9_]*)`", families().join("|"))).unwrap();
    let mut out = BTreeSet::new();
    for doc in ["docs/checks.md", "docs/benchmarking.md", "docs/flows-and-runs.md"] {
        for line in std::fs::read_to_string(root().join(doc)).unwrap().lines() {
            if let Some(first) = line.strip_prefix('|').and_then(|l| l.split('|').next()) {
                out.extend(code.captures_iter(first).map(|c| c[1].to_string()));
            }
        }
    }
    out
}

#[test]
fn every_code_the_code_emits_is_documented_and_every_documented_code_is_emitted() {
    let emitted = emitted();
    let documented = documented();
    let undocumented: Vec<String> =
        emitted.iter().filter(|(c, _)| !documented.contains(*c)).map(|(c, f)| format!("{c} ({f})")).collect();
    assert!(undocumented.is_empty(), "emitted but in no findings table of docs/: {undocumented:#?}");
    let never: Vec<&String> = documented.iter().filter(|c| !emitted.contains_key(*c)).collect();
    assert!(never.is_empty(), "documented but never emitted: {never:#?}");
    assert!(emitted.len() > 80, "the scan found only {} codes", emitted.len());
}

#[test]
fn the_architecture_doc_names_every_family() {
    let doc = std::fs::read_to_string(root().join("docs/architecture.md")).unwrap();
    for family in families() {
        assert!(doc.contains(&format!("`{family}`")), "docs/architecture.md does not name the family `{family}`");
    }
}

#[test]
fn every_lab_fault_has_its_row_in_the_lab_doc() {
    let doc = std::fs::read_to_string(root().join("docs/lab.md")).unwrap();
    // A row may name several faults in its first cell (`refuse`, `banner-hang`...).
    let first_cells: Vec<&str> =
        doc.lines().filter_map(|l| l.strip_prefix('|').and_then(|l| l.split('|').next())).collect();
    for kind in fabcheck_lab::FaultKind::ALL {
        let named = format!("`{kind}`");
        assert!(first_cells.iter().any(|c| c.contains(&named)), "docs/lab.md has no row for the fault `{kind}`");
    }
}

/// The keys a policy section takes, as the policy reader lists them for an unknown one.
fn keys_of(section: Option<&str>) -> Vec<String> {
    let text = match section {
        Some(s) => format!("{s}: {{ not_a_key: 1 }}\n"),
        None => "not_a_key: 1\n".to_string(),
    };
    let error = fabcheck::policy::Policy::parse(&text, "p").unwrap_err().to_string();
    let listed = error.split("expected one of ").nth(1).unwrap_or_else(|| panic!("{error}"));
    listed.lines().next().unwrap().split(", ").map(|k| k.trim().to_string()).collect()
}

#[test]
fn every_policy_key_is_named_in_the_policy_doc() {
    let doc = std::fs::read_to_string(root().join("docs/policy.md")).unwrap();
    let mut keys: Vec<String> = keys_of(None);
    for section in ["roce", "cnp", "pfc", "nic", "host", "ecn", "infiniband", "flows", "metrics"] {
        keys.extend(keys_of(Some(section)).into_iter().map(|k| format!("{section}.{k}")));
    }
    let missing: Vec<&String> = keys
        .iter()
        .filter(|k| {
            let leaf = k.rsplit('.').next().unwrap();
            [format!("`{k}`"), format!("{leaf}:"), format!("`{leaf}`")]
                .iter()
                .all(|named| !doc.contains(named.as_str()))
        })
        .collect();
    assert!(missing.is_empty(), "docs/policy.md names none of: {missing:#?}");
}

/// The lab's switch platforms and the registry's are the same set: a platform fabcheck reads
/// has a lab that renders it, and the lab renders no platform fabcheck cannot read.
#[test]
fn the_labs_platforms_are_the_registrys() {
    for lab in fabcheck_lab::Platform::ALL {
        assert!(
            fabcheck::platform::switch(lab.name()).is_some(),
            "the lab renders {}, which no platform reads",
            lab.name()
        );
    }
    for platform in fabcheck::platform::SWITCHES {
        assert!(
            fabcheck_lab::Platform::from_name(platform.name).is_some(),
            "fabcheck reads {}, which the lab does not render",
            platform.name
        );
    }
    assert!(matches!(fabcheck::platform::kind("host", "linux"), fabcheck::platform::Kind::Host));
    assert!(matches!(fabcheck::platform::kind("collector", "linux"), fabcheck::platform::Kind::FlowCollector));
    assert!(matches!(fabcheck::platform::kind("leaf", "sonic"), fabcheck::platform::Kind::Switch(_)));
    assert!(matches!(fabcheck::platform::kind("leaf", "junos"), fabcheck::platform::Kind::Unsupported));
}

/// Every `fabcheck parse` source is in docs/checks.md's list of them, and the list names no
/// source the parsers do not have.
#[test]
fn the_parse_sources_are_the_docs() {
    let doc = std::fs::read_to_string(root().join("docs/checks.md")).unwrap();
    let start = doc.find("`fabcheck parse SOURCE FILE` prints").expect("the sources' paragraph");
    let end = start + doc[start..].find("`fabcheck parse --help` lists them").expect("its end");
    let listed: BTreeSet<&str> =
        doc[start..end].split('`').skip(3).step_by(2).flat_map(|cell| cell.split_whitespace()).collect();
    let sources: BTreeSet<&str> = fabcheck_parse::sources().into_iter().collect();
    assert_eq!(listed, sources, "docs/checks.md's sources against fabcheck_parse::sources()");
}
