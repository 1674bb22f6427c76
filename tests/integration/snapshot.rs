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
    assert_eq!(qos["command"], "mlnx_qos -i ens1np0");
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
