//! Runs compared: `--state DIR` keeps each run and compares the next with it, and `fabcheck
//! diff` compares any two (report directories or evidence snapshots), as an operator sees them
//! before and after a change that turned PFC off on a host and ECN off on a leaf.

use crate::util::{Run, RunningLab, audit, fabcheck, start_fabric};
use serde_json::Value;

/// A clean fabric, then the same fabric after the change, each audited with one `--state`;
/// the labs hold the reports' directories.
fn before_and_after(state: &std::path::Path) -> [(RunningLab, Run); 2] {
    let state_arg = state.display().to_string();
    let clean = start_fabric(2, 1, 1, &[]);
    let before = audit(&clean, &["--state", &state_arg]);
    let changed = start_fabric(2, 1, 1, &["gpu002=pfc-off", "leaf1=ecn-off"]);
    let after = audit(&changed, &["--state", &state_arg]);
    [(clean, before), (changed, after)]
}

fn drift_of(changes: &Value) -> Vec<(String, String, String, String, String)> {
    let text = |v: &Value| v.as_str().unwrap_or("").to_string();
    changes["drift"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (text(&d["device"]), text(&d["port"]), text(&d["setting"]), text(&d["before"]), text(&d["after"])))
        .collect()
}

fn codes(list: &Value) -> Vec<(String, String)> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|f| (f["code"].as_str().unwrap().to_string(), f["device"].as_str().unwrap().to_string()))
        .collect()
}

#[test]
fn state_compares_each_run_with_the_last_and_diff_compares_any_two() {
    let state = tempfile::tempdir().unwrap();
    let [(_clean, before), (_changed, after)] = before_and_after(state.path());
    assert_eq!(before.code, 0, "{}", before.stderr);
    assert!(before.json().get("since_last_run").is_none(), "a first run has nothing to compare with");
    assert!(!before.out.join("diff.md").exists());

    // The second run says what changed, in findings.json, report.md, report.html and metrics.prom.
    assert_eq!(after.code, 1, "{}", after.stderr);
    let changes = &after.json()["since_last_run"];
    let new = codes(&changes["new_findings"]);
    assert!(new.contains(&("nic.pfc_mismatch".into(), "gpu002".into())), "{new:?}");
    assert!(new.iter().any(|(code, device)| code.starts_with("switch.ecn") && device == "leaf1"), "{new:?}");
    assert_eq!(codes(&changes["fixed_findings"]), Vec::<(String, String)>::new());
    let drift = drift_of(changes);
    assert!(
        drift.contains(&("gpu002".into(), "ens1np0".into(), "mlnx_qos.pfc_enabled".into(), "[3]".into(), "[]".into())),
        "{drift:#?}"
    );
    assert!(drift.iter().any(|d| d.0 == "leaf1" && d.2.contains("ecn")), "{drift:#?}");
    assert!(drift.iter().all(|d| d.0 == "gpu002" || d.0 == "leaf1"), "only the changed devices drift: {drift:#?}");
    let md = std::fs::read_to_string(after.out.join("report.md")).unwrap();
    assert!(md.contains("### Since the last run"), "{md}");
    assert!(md.contains("| gpu002 | `ens1np0` | `mlnx_qos.pfc_enabled` | `[3]` | `[]` |"), "{md}");
    let html = std::fs::read_to_string(after.out.join("report.html")).unwrap();
    assert!(html.contains("<h2 id=\"changes\">Since the last run</h2>"));
    let prom = std::fs::read_to_string(after.out.join("metrics.prom")).unwrap();
    assert!(prom.contains("fabcheck_config_changes{device=\"gpu002\"} "), "{prom}");
    assert!(prom.contains("fabcheck_findings_new{severity=\"critical\"} "), "{prom}");
    // ... and ends with the diff, as `fabcheck diff` writes it.
    for file in ["diff.md", "diff.json", "diff.junit.xml"] {
        assert!(after.out.join(file).is_file(), "{file}");
    }

    // fabcheck diff on the two report directories, and on their evidence snapshots alone.
    let diff_out = state.path().join("diff");
    let (a, b) = (before.out.display().to_string(), after.out.display().to_string());
    let run = fabcheck(&["diff", &a, &b, "--out", &diff_out.display().to_string()]);
    assert_eq!(run.code, 1, "a new critical finding fails the diff: {}{}", run.stdout, run.stderr);
    let json: Value = serde_json::from_slice(&std::fs::read(diff_out.join("diff.json")).unwrap()).unwrap();
    assert_eq!(drift_of(&json), drift);
    let junit = std::fs::read_to_string(diff_out.join("diff.junit.xml")).unwrap();
    assert!(junit.contains("name=\"nic.pfc_mismatch gpu002:ens1np0\""), "{junit}");
    assert!(junit.contains("<failure"), "{junit}");
    let snapshots = fabcheck(&[
        "diff",
        &format!("{a}/evidence"),
        &format!("{b}/evidence"),
        "--out",
        &state.path().join("diff-snapshots").display().to_string(),
    ]);
    assert_eq!(snapshots.code, 1, "{}", snapshots.stderr);
    let json: Value =
        serde_json::from_slice(&std::fs::read(state.path().join("diff-snapshots").join("diff.json")).unwrap()).unwrap();
    assert_eq!(drift_of(&json), drift, "a snapshot re-judged gives the same configuration values");

    // The other way round, the change is a fix: nothing new, so the diff passes.
    let back = fabcheck(&["diff", &b, &a, "--out", &state.path().join("diff-back").display().to_string()]);
    assert_eq!(back.code, 0, "{}{}", back.stdout, back.stderr);
    assert!(back.stdout.contains("0 new findings"), "{}", back.stdout);
    let json: Value =
        serde_json::from_slice(&std::fs::read(state.path().join("diff-back").join("diff.json")).unwrap()).unwrap();
    assert!(codes(&json["fixed_findings"]).contains(&("nic.pfc_mismatch".into(), "gpu002".into())));
}

#[test]
fn a_state_that_is_not_one_is_moved_aside_and_the_audit_goes_on() {
    let state = tempfile::tempdir().unwrap();
    std::fs::write(state.path().join("last-run.json"), "{ not json").unwrap();
    let lab = start_fabric(1, 0, 0, &[]);
    let run = audit(&lab, &["--state", &state.path().display().to_string()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("is not a fabcheck state"), "{}", run.stderr);
    assert!(state.path().join("last-run.json.unreadable").is_file());
    let kept: Value = serde_json::from_slice(&std::fs::read(state.path().join("last-run.json")).unwrap()).unwrap();
    assert_eq!(kept["format_version"], 1);
}

#[test]
fn diff_names_what_it_cannot_read() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().display().to_string();
    let run = fabcheck(&["diff", &empty, &empty]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("neither a report directory (findings.json)"), "{}", run.stderr);
    let file = dir.path().join("findings.json");
    std::fs::write(&file, "[1, 2]").unwrap();
    let run = fabcheck(&["diff", &file.display().to_string(), &empty]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("not a fabcheck findings.json"), "{}", run.stderr);
}

/// The post-change playbook, run before and after the change from one working directory: the
/// first run is kept as the "before" (in the playbook's `state`), the second ends with the diff.
#[test]
fn the_post_change_playbook_keeps_the_before_and_ends_with_the_diff() {
    let cwd = tempfile::tempdir().unwrap();
    let playbook = concat!(env!("CARGO_MANIFEST_DIR"), "/playbooks/post-change.yaml");
    let run_on = |lab: &RunningLab, out: &str| {
        crate::util::fabcheck_on(lab, Some(cwd.path()), &["run", playbook], &["--window", "500ms", "--out", out])
    };
    let clean = start_fabric(2, 0, 0, &[]);
    let before = run_on(&clean, "before");
    assert_eq!(before.code, 0, "{}{}", before.stdout, before.stderr);
    assert!(cwd.path().join("fabcheck-state/post-change/last-run.json").is_file());
    assert!(!cwd.path().join("before/diff.md").exists());
    let changed = start_fabric(2, 0, 0, &["gpu001=mtu"]);
    let after = run_on(&changed, "after");
    assert_eq!(after.code, 1, "{}{}", after.stdout, after.stderr);
    let md = std::fs::read_to_string(cwd.path().join("after/diff.md")).unwrap();
    assert!(md.starts_with("**FAIL** — 1 new finding at or above warning"), "{md}");
    assert!(md.contains("| gpu001 | `ens1np0` | `mtu` | `4200` | `1500` |"), "{md}");
}
