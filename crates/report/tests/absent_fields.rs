//! Every format renders a result whose optional fields are absent.
//!
//! A template that reads a field the result leaves out (a finding about a whole device has no
//! `port`) fails, and with it the report: the cron audit that first met an unreachable host lost
//! all its reports that way. Which fields may be absent is decided by the model's own serde
//! attributes, not listed here: each key of the fixtures is removed in turn, and kept removed when
//! the result still deserializes without it, so a field added to the model later is covered too.

mod fixture;

use fabcheck_model::{AuditResult, Severity};
use fabcheck_report::{Reporter, diff_junit, diff_markdown, reporters};
use serde_json::Value;

/// How much of the result to strip.
#[derive(Clone, Copy)]
enum Strip {
    /// Every optional scalar, null and empty list, keeping each object and non-empty list
    /// present: an optional section shown with nothing optional inside it.
    Leaves,
    /// Every optional key, sections included.
    Everything,
}

/// The key paths of `value`, children before their parents.
fn key_paths(value: &Value, at: &mut Vec<PathStep>, out: &mut Vec<Vec<PathStep>>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                at.push(PathStep::Key(key.clone()));
                key_paths(child, at, out);
                out.push(at.clone());
                at.pop();
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                at.push(PathStep::Index(i));
                key_paths(child, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

#[derive(Clone, Debug)]
enum PathStep {
    Key(String),
    Index(usize),
}

/// The value at `path`'s parent, and `path`'s last key.
fn parent_of<'a>(root: &'a mut Value, path: &[PathStep]) -> Option<(&'a mut serde_json::Map<String, Value>, String)> {
    let (last, parents) = path.split_last()?;
    let mut node = root;
    for step in parents {
        node = match step {
            PathStep::Key(k) => node.get_mut(k)?,
            PathStep::Index(i) => node.get_mut(*i)?,
        };
    }
    let PathStep::Key(key) = last else { return None };
    Some((node.as_object_mut()?, key.clone()))
}

/// `result` with every key removed that it deserializes without.
fn without_optional_fields(result: &AuditResult, strip: Strip) -> AuditResult {
    let mut json = serde_json::to_value(result).unwrap();
    let mut paths = Vec::new();
    key_paths(&json, &mut Vec::new(), &mut paths);
    let mut removed = 0;
    for path in paths {
        let mut candidate = json.clone();
        let Some((parent, key)) = parent_of(&mut candidate, &path) else { continue };
        let Some(value) = parent.get(&key) else { continue };
        let section = matches!(value, Value::Object(_)) || matches!(value, Value::Array(a) if !a.is_empty());
        if matches!(strip, Strip::Leaves) && section {
            continue;
        }
        parent.remove(&key);
        if serde_json::from_value::<AuditResult>(candidate.clone()).is_ok() {
            json = candidate;
            removed += 1;
        }
    }
    assert!(removed > 0, "the fixture has optional fields to remove");
    serde_json::from_value(json).unwrap()
}

/// Each fixture, with what was changed since an earlier run.
fn fixtures() -> Vec<(&'static str, AuditResult)> {
    let mut audit = fixture::audit_result();
    audit.since_last_run = Some(fixture::changes());
    vec![
        ("audit", audit),
        ("bench", fixture::bench_result()),
        ("fabric", fixture::fabric_result()),
        ("job", fixture::job_result()),
    ]
}

fn renders_every_format(strip: Strip) {
    for (name, result) in fixtures() {
        let result = without_optional_fields(&result, strip);
        for reporter in reporters() {
            if let Err(e) = reporter.render(&result) {
                panic!("{name}: {} fails on absent fields: {:#}", reporter.file_name(), anyhow_chain(&e));
            }
        }
        if let Some(changes) = &result.since_last_run {
            diff_markdown(changes, Severity::Error).unwrap_or_else(|e| panic!("{name}: diff.md: {}", anyhow_chain(&e)));
            diff_junit(changes, Severity::Error).unwrap_or_else(|e| panic!("{name}: diff.junit.xml: {e}"));
        }
    }
}

/// An error with its causes, as the CLI prints it.
fn anyhow_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}

#[test]
fn every_format_renders_a_result_without_its_optional_leaves() {
    renders_every_format(Strip::Leaves);
}

#[test]
fn every_format_renders_a_result_without_any_optional_field() {
    renders_every_format(Strip::Everything);
}

#[test]
fn a_new_finding_about_a_whole_device_is_shown_without_a_port() {
    let mut result = fixture::audit_result();
    let mut changes = fixture::changes();
    let unreachable = fabcheck_model::Finding::new("ssh.unreachable", Severity::Error, "gpu04", "cannot connect");
    changes.new_findings = vec![unreachable.clone()];
    changes.fixed_findings = vec![unreachable];
    result.since_last_run = Some(changes.clone());
    let md = String::from_utf8(fabcheck_report::MarkdownReporter.render(&result).unwrap()).unwrap();
    assert!(md.contains("| error | gpu04 |  | `ssh.unreachable` | cannot connect |"), "{md}");
    let html = String::from_utf8(fabcheck_report::HtmlReporter.render(&result).unwrap()).unwrap();
    assert!(html.contains("<td class=\"nowrap\">gpu04</td><td class=\"nowrap\"><code></code></td>"), "{html}");
    let diff = diff_markdown(&changes, Severity::Error).unwrap();
    assert!(diff.contains("| error | gpu04 |  | `ssh.unreachable` | cannot connect |"), "{diff}");
}
