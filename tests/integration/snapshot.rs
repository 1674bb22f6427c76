//! Evidence: every raw output is saved with its command and status, and `audit --snapshot`
//! re-judges it offline with the same findings.

use crate::util::{audit, fabcheck, start_lab};

#[test]
fn a_snapshot_is_rejudged_offline_with_the_same_findings() {
    let lab = start_lab(2, &["gpu002=pfc-off", "gpu002=out-of-buffer", "gpu001=sm-missing"]);
    let live = audit(&lab, &[]);
    let evidence = live.out.join("evidence");
    let commands: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(evidence.join("gpu002/commands.json")).unwrap()).unwrap();
    let qos = commands.as_array().unwrap().iter().find(|c| c["key"] == "mlnx_qos.ens1np0").unwrap();
    assert_eq!(qos["command"], "timeout -k 2 30 mlnx_qos -i ens1np0", "bounded on the host by its own timeout");
    assert_eq!(qos["exit_status"], 0);
    assert!(qos["duration_ms"].is_u64() && qos["started_ms"].as_u64().unwrap() > 0);
    let raw = std::fs::read_to_string(evidence.join("gpu002/mlnx_qos.ens1np0.txt")).unwrap();
    assert!(raw.contains("Priority trust state: dscp"), "{raw}");
    lab.lab.hosts().count(); // The lab stays up, but the offline run must not need it.

    let offline_out = lab.dir.path().join("offline");
    let offline =
        fabcheck(&["audit", "--snapshot", evidence.to_str().unwrap(), "--out", offline_out.to_str().unwrap()]);
    let mut offline = offline;
    offline.out = offline_out;
    assert_eq!(offline.code, live.code, "{}", offline.stderr);
    let strip = |mut f: Vec<fabcheck_model::Finding>| {
        f.sort_by(|a, b| (&a.device, &a.code, &a.port, &a.message).cmp(&(&b.device, &b.code, &b.port, &b.message)));
        f
    };
    assert_eq!(strip(offline.findings()), strip(live.findings()));
    assert!(offline.keys().len() >= 3);
}

/// A snapshot written by fabcheck 0.1.0 before the facts stage (evidence format 1; see
/// tests/fixtures/snapshot-v1/README.md) is re-judged by today's fabcheck with the findings that
/// version gave: code, severity, device, port, path, expected and actual alike.
#[test]
fn a_format_1_snapshot_from_an_earlier_fabcheck_gives_the_same_findings() {
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/snapshot-v1");
    let out = tempfile::tempdir().unwrap();
    let mut run = fabcheck(&[
        "audit",
        "--snapshot",
        fixture.join("evidence").to_str().unwrap(),
        "--out",
        out.path().to_str().unwrap(),
    ]);
    run.out = out.path().to_path_buf();
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    #[derive(serde::Deserialize)]
    struct Old {
        findings: Vec<fabcheck_model::Finding>,
    }
    let old: Old =
        serde_json::from_str(&std::fs::read_to_string(fixture.join("findings-0.1.0.json")).unwrap()).unwrap();
    let key = |f: &fabcheck_model::Finding| {
        (
            f.code.clone(),
            f.severity,
            f.device.clone(),
            f.port.clone(),
            f.path.clone(),
            f.expected.clone(),
            f.actual.clone(),
        )
    };
    let want: std::collections::BTreeSet<_> = old.findings.iter().map(key).collect();
    let got: std::collections::BTreeSet<_> = run.findings().iter().map(key).collect();
    assert_eq!(got, want);
    assert_eq!(want.len(), 6);
}

/// A copy of the format-1 fixture snapshot to tamper with.
fn fixture_copy() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let snapshot = dir.path().join("evidence");
    let from = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/snapshot-v1/evidence");
    let copy = std::process::Command::new("cp").arg("-r").arg(&from).arg(&snapshot).status().unwrap();
    assert!(copy.success());
    (dir, snapshot)
}

/// The devices whose evidence could not be read, with why.
fn unreadable(run: &crate::util::Run) -> Vec<(String, String)> {
    run.findings()
        .into_iter()
        .filter(|f| f.code == "collect.evidence_unreadable")
        .map(|f| (f.device, f.message))
        .collect()
}

fn rejudge(snapshot: &std::path::Path, out: &std::path::Path) -> crate::util::Run {
    let mut run = fabcheck(&["audit", "--snapshot", snapshot.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    run.out = out.to_path_buf();
    run
}

/// Names in the manifest and in commands.json never reach outside the snapshot, and one device's
/// garbage is a finding on that device while every other device is judged.
#[test]
fn a_tampered_snapshot_costs_the_tampered_devices_only() {
    let (dir, snapshot) = fixture_copy();
    std::fs::write(dir.path().join("secret.txt"), "not evidence").unwrap();
    // gpu001: a key that climbs out of the snapshot; gpu002: garbage commands.json.
    let meta = snapshot.join("gpu001/commands.json");
    let text = std::fs::read_to_string(&meta).unwrap();
    std::fs::write(&meta, text.replacen("\"key\": \"ibdev2netdev\"", "\"key\": \"../../secret\"", 1)).unwrap();
    std::fs::write(snapshot.join("gpu002/commands.json"), "{ garbage").unwrap();
    // spine1: a manifest name that climbs out.
    let manifest = snapshot.join("manifest.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text.replace("\"name\": \"spine1\"", "\"name\": \"../spine1\"")).unwrap();
    let run = rejudge(&snapshot, &dir.path().join("out"));
    assert_eq!(run.code, 1, "{}", run.stderr);
    let unreadable = unreadable(&run);
    let devices: Vec<&str> = unreadable.iter().map(|(d, _)| d.as_str()).collect();
    assert_eq!(devices, ["../spine1", "gpu001", "gpu002"], "{unreadable:#?}");
    assert!(unreadable[1].1.contains("output key `../../secret` is not a file name inside the snapshot"));
    assert!(unreadable[2].1.contains("gpu002/commands.json: not fabcheck's"), "{}", unreadable[2].1);
    // leaf1 is still judged: its ECN finding is there.
    assert!(run.findings().iter().any(|f| f.code == "switch.ecn_disabled" && f.device == "leaf1"));
}

#[test]
fn an_incomplete_or_mixed_snapshot_is_refused_with_a_clear_error() {
    let (dir, snapshot) = fixture_copy();
    let manifest = std::fs::read_to_string(snapshot.join("manifest.json")).unwrap();
    std::fs::remove_file(snapshot.join("manifest.json")).unwrap();
    let run = rejudge(&snapshot, &dir.path().join("out"));
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("no manifest.json: not an evidence snapshot, or the run that wrote it did not finish"));
    // gpu002's outputs from a day before the run: a directory of an earlier run.
    std::fs::write(snapshot.join("manifest.json"), &manifest).unwrap();
    let meta = snapshot.join("gpu002/commands.json");
    let mut outputs: serde_json::Value = serde_json::from_slice(&std::fs::read(&meta).unwrap()).unwrap();
    for o in outputs.as_array_mut().unwrap() {
        let t = o["started_ms"].as_u64().unwrap();
        o["started_ms"] = (t - 86_400_000).into();
    }
    std::fs::write(&meta, serde_json::to_vec(&outputs).unwrap()).unwrap();
    let run = rejudge(&snapshot, &dir.path().join("out"));
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("mixes two runs: gpu002's"), "{}", run.stderr);
}

/// A run into a report directory that already holds a run's evidence replaces it whole: the
/// device the new run no longer has is gone, and no staging directory is left behind.
#[test]
fn a_new_run_replaces_the_previous_evidence_whole() {
    let out = tempfile::tempdir().unwrap();
    let audit_into = |lab: &crate::util::RunningLab| {
        crate::util::fabcheck_on(lab, None, &["audit"], &["--window", "0", "--out", out.path().to_str().unwrap()])
    };
    let two = start_lab(2, &[]);
    assert_eq!(audit_into(&two).code, 0);
    assert!(out.path().join("evidence/gpu002/commands.json").is_file());
    let one = start_lab(1, &[]);
    let run = audit_into(&one);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!out.path().join("evidence/gpu002").exists(), "the earlier run's device is not mixed in");
    assert!(out.path().join("evidence/gpu001/commands.json").is_file());
    let staging: Vec<String> = std::fs::read_dir(out.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".evidence"))
        .collect();
    assert!(staging.is_empty(), "{staging:?}");
}

/// The fan-out of Slurm or Kubernetes: each part of the fabric audited on its own (here over
/// SSH with --limit; on a cluster each node's `audit --local --host-lldp`), their snapshots
/// merged with `--snapshot A B C` into one audit: the findings of one run over everything,
/// the paths across hosts and switches included.
#[test]
fn snapshots_of_parts_of_the_fabric_merge_into_the_audit_of_the_whole() {
    let lab = crate::util::start_fabric(4, 2, 2, &["gpu002=pfc-off", "gpu003=mtu", "leaf2=ecn-off"]);
    let whole = audit(&lab, &[]);
    let mut parts = Vec::new();
    for limit in ["gpu001:gpu002", "gpu003:gpu004", "leaf*:spine*"] {
        let part = audit(&lab, &["--limit", limit, "--host-lldp"]);
        assert!(part.out.join("evidence/manifest.json").is_file(), "{}", part.stderr);
        parts.push(part.out.join("evidence").display().to_string());
    }
    let merged_out = lab.dir.path().join("merged");
    let mut args = vec!["audit", "--out", merged_out.to_str().unwrap(), "--snapshot"];
    args.extend(parts.iter().map(String::as_str));
    let mut merged = fabcheck(&args);
    merged.out = merged_out;
    assert_eq!(merged.code, whole.code, "{}", merged.stderr);
    assert_eq!(merged.keys(), whole.keys());
    assert!(merged.keys().iter().any(|(code, _, _)| code == "path.inconsistent"), "paths across the parts");
    let json = merged.json();
    assert_eq!((json["summary"]["hosts"].as_u64(), json["summary"]["switches"].as_u64()), (Some(4), Some(4)));
    assert_eq!(json["paths_total"], whole.json()["paths_total"]);

    // A device in two snapshots is refused, naming both.
    let twice = fabcheck(&[
        "audit",
        "--out",
        lab.dir.path().join("twice").to_str().unwrap(),
        "--snapshot",
        &parts[0],
        &parts[0],
    ]);
    assert_eq!(twice.code, 2);
    assert!(twice.stderr.contains("device `gpu001` is also in"), "{}", twice.stderr);
}

/// A snapshot's files are read as fabcheck wrote them: regular files, reached without following
/// a link, each to --max-output at most. A link to a secret outside the snapshot never reaches a
/// report, a FIFO does not hang the re-judge, a link to /dev/zero is not read without end, a
/// device directory that is a link is refused, and an output longer than --max-output is read as
/// cut there: unknown evidence, never a configuration.
#[test]
fn a_snapshot_is_read_without_following_links_or_special_files_and_within_max_output() {
    let (dir, snapshot) = fixture_copy();
    let secret = dir.path().join("secret.txt");
    std::fs::write(&secret, "SECRET-TOKEN-7f3a\n").unwrap();
    let link = |from: &std::path::Path, to: &std::path::Path| {
        std::fs::remove_file(from).unwrap();
        std::os::unix::fs::symlink(to, from).unwrap();
    };
    link(&snapshot.join("gpu001/lsmod.txt"), &secret);
    link(&snapshot.join("gpu002/sminfo.txt"), std::path::Path::new("/dev/zero"));
    let fifo = snapshot.join("leaf1/lldp.txt");
    std::fs::remove_file(&fifo).unwrap();
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let spine = snapshot.join("spine1");
    let moved = dir.path().join("spine1-elsewhere");
    std::fs::rename(&spine, &moved).unwrap();
    std::os::unix::fs::symlink(&moved, &spine).unwrap();

    let out = dir.path().join("out");
    let run = rejudge(&snapshot, &out);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let unreadable = unreadable(&run);
    let devices: Vec<&str> = unreadable.iter().map(|(d, _)| d.as_str()).collect();
    assert_eq!(devices, ["gpu001", "gpu002", "leaf1", "spine1"], "{unreadable:#?}");
    let why: Vec<&str> = unreadable.iter().map(|(_, m)| m.as_str()).collect();
    assert!(why[0].contains("gpu001/lsmod.txt: a symbolic link, not a file fabcheck wrote"), "{why:#?}");
    assert!(why[1].contains("gpu002/sminfo.txt: a symbolic link"), "{why:#?}");
    assert!(why[2].contains("leaf1/lldp.txt: a FIFO, not a file fabcheck wrote"), "{why:#?}");
    assert!(why[3].contains("spine1: a symbolic link, not a directory"), "{why:#?}");
    for report in std::fs::read_dir(&out).unwrap() {
        let path = report.unwrap().path();
        if path.is_file() {
            let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
            assert!(!text.contains("SECRET-TOKEN"), "{} holds the secret", path.display());
        }
    }

    // An output longer than --max-output: read as cut, its findings the cut's.
    let (dir, snapshot) = fixture_copy();
    let qos = snapshot.join("gpu001/mlnx_qos.ens1np0.txt");
    let mut text = std::fs::read_to_string(&qos).unwrap();
    text.push_str(&"#".repeat(3 << 20));
    std::fs::write(&qos, text).unwrap();
    let out = dir.path().join("out");
    let mut run = fabcheck(&[
        "audit",
        "--snapshot",
        snapshot.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--max-output",
        "1048576",
    ]);
    run.out = out;
    let cut: Vec<_> = run
        .findings()
        .into_iter()
        .filter(|f| f.device == "gpu001" && f.port.as_deref() == Some("ens1np0"))
        .map(|f| f.code)
        .collect();
    assert_eq!(cut, ["collect.output_truncated"], "{}", run.stderr);
}

/// Garbage in a switch's evidence is unread evidence, never a configuration: a configuration
/// that is not one costs that switch its `collect.parse_error` and its ports' judgement (the
/// paths through it unknown), never a DSCP, PFC or ECN finding read from what is not there.
#[test]
fn garbage_in_place_of_a_switch_configuration_is_unread_not_a_configuration() {
    let (dir, snapshot) = fixture_copy();
    let garbage: String =
        (0..200_000u32).map(|i| char::from(b'!' + (i.wrapping_mul(2_654_435_761) % 90) as u8)).collect();
    for switch in ["leaf1", "spine1"] {
        std::fs::write(snapshot.join(switch).join("config.txt"), &garbage).unwrap();
    }
    let run = rejudge(&snapshot, &dir.path().join("out"));
    assert_eq!(run.code, 1, "{}", run.stderr);
    let on_switches: Vec<(String, String)> = run
        .findings()
        .into_iter()
        .filter(|f| f.device == "leaf1" || f.device == "spine1")
        .map(|f| (f.code, f.device))
        .collect();
    for (code, device) in &on_switches {
        assert!(code.starts_with("collect.") || code.starts_with("path."), "{device}: {code}: {on_switches:#?}");
    }
    assert!(on_switches.contains(&("collect.parse_error".into(), "leaf1".into())), "{on_switches:#?}");
}
