//! The lab on every reference design, through the binary: `fabcheck lab --design NAME` with all
//! five switch platforms (one leaf each) audits clean with `--policy NAME`, and the faults
//! planted on it are found as exactly the incidents' roots. This is what ties the lab's designs
//! (`crates/lab/src/design.rs`) to the policies of `playbooks/policies/`: a switch, host or
//! NCCL setting rendered off the design shows here as a finding on the clean lab.

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// One leaf of each platform, so that every renderer writes every design.
const LEAVES: &str = "sonic,eos,nvue,nxos,dell_os10";

/// A `fabcheck lab` serving in the background, stopped when dropped.
struct ServedLab {
    child: Child,
    dir: tempfile::TempDir,
}

impl Drop for ServedLab {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl ServedLab {
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join("lab").join(name)
    }
}

fn lab_command(design: &str, faults: &[&str], dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fabcheck"));
    cmd.args(["lab", "--design", design, "--hosts", "5", "--leaf-platforms", LEAVES, "--spine-platforms", "nvue"])
        .arg("--dir")
        .arg(dir.join("lab"));
    for f in faults {
        cmd.args(["--fault", f]);
    }
    cmd
}

/// Starts `fabcheck lab --design DESIGN` with `faults` and waits until it serves.
fn serve(design: &str, faults: &[&str]) -> ServedLab {
    let dir = tempfile::tempdir().unwrap();
    let mut child = lab_command(design, faults, dir.path()).stdout(Stdio::piped()).spawn().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut said = Vec::new();
    loop {
        match lines.next() {
            Some(Ok(line)) => {
                let ready = line.starts_with("try: ");
                said.push(line);
                if ready {
                    break;
                }
            }
            _ => panic!("{design}: the lab stopped before serving: {said:?}"),
        }
    }
    assert!(said[0].ends_with(&format!("built to {design}")), "{said:?}");
    assert!(said.last().unwrap().ends_with(&format!("--policy {design}")), "{said:?}");
    ServedLab { child, dir }
}

/// `fabcheck audit --policy DESIGN` on the lab: exit status and findings.json.
fn audit(lab: &ServedLab, design: &str) -> (i32, Value) {
    let empty = lab.dir.path().join("ssh_config");
    std::fs::write(&empty, "").unwrap();
    let out = lab.dir.path().join("report");
    let run = Command::new(env!("CARGO_BIN_EXE_fabcheck"))
        .arg("audit")
        .arg("-i")
        .arg(lab.path("inventory.ini"))
        .arg("--known-hosts")
        .arg(lab.path("known_hosts"))
        .arg("--ssh-config")
        .arg(&empty)
        .arg("--out")
        .arg(&out)
        .args(["--window", "500ms", "--policy", design])
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    let json = std::fs::read_to_string(out.join("findings.json"))
        .unwrap_or_else(|e| panic!("{design}: {e}: {}", String::from_utf8_lossy(&run.stderr)));
    (run.status.code().unwrap_or(-1), serde_json::from_str(&json).unwrap())
}

/// The findings a reader is shown (warning or worse), as `code@device:port`.
fn shown(json: &Value) -> Vec<String> {
    json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| !matches!(f["severity"].as_str(), Some("info")))
        .map(|f| f["id"].as_str().unwrap_or("?").to_string())
        .collect()
}

/// The roots of the incidents shown (warning or worse), as their ids (`code@device:port`).
fn roots(json: &Value) -> Vec<String> {
    let mut ids: Vec<String> = json["incidents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["severity"] != "info")
        .map(|i| i["id"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    ids
}

/// Each design: faults on hosts and on switches of different platforms, and the root each
/// must be found as (an incident id starts with `code@device:`).
const CASES: [(&str, &[(&str, &str)]); 4] = [
    (
        "roce-lossless-prio3",
        &[
            ("gpu002=pfc-off", "nic.pfc_mismatch@gpu002:"),
            ("leaf3=ecn-threshold", "switch.ecn_threshold@leaf3:"),
            ("leaf4=cnp-queue", "switch.cnp_queue_not_strict@leaf4:"),
        ],
    ),
    (
        "sonic-lossless-3-4",
        &[
            ("gpu001=dscp-map", "nic.dscp_map_mismatch@gpu001:"),
            ("leaf2=pfc-off", "switch.pfc_mismatch@leaf2:"),
            ("leaf5=ecn-off", "switch.ecn_disabled@leaf5:"),
        ],
    ),
    (
        "cisco-nexus-aiml",
        &[
            ("leaf4=dscp-map", "switch.dscp_map_mismatch@leaf4:"),
            ("gpu003=cnp-dscp", "nic.cnp_mismatch@gpu003:"),
            ("leaf1=ecn-threshold", "switch.ecn_threshold@leaf1:"),
        ],
    ),
    (
        "pfc-only-prio3",
        &[
            ("leaf1=pfc-off", "switch.pfc_mismatch@leaf1:"),
            ("leaf2=pfcwd-off", "switch.pfc_watchdog_disabled@leaf2:"),
            ("gpu005=pfc-off", "nic.pfc_mismatch@gpu005:"),
        ],
    ),
];

#[test]
fn every_design_audits_clean_with_its_policy_on_every_platform() {
    for (design, _) in CASES {
        let lab = serve(design, &[]);
        let (code, json) = audit(&lab, design);
        assert_eq!(shown(&json), Vec::<String>::new(), "{design}: a clean lab has no finding");
        assert_eq!(code, 0, "{design}");
    }
}

#[test]
fn every_design_finds_exactly_its_planted_faults() {
    for (design, planted) in CASES {
        let faults: Vec<&str> = planted.iter().map(|(f, _)| *f).collect();
        let lab = serve(design, &faults);
        let (code, json) = audit(&lab, design);
        assert_eq!(code, 1, "{design}: {faults:?}");
        let roots = roots(&json);
        // A switch-wide fault (dscp-map) is a root on each port of the switch.
        let unplanted: Vec<&String> = roots.iter().filter(|r| !planted.iter().any(|(_, p)| r.starts_with(p))).collect();
        assert!(unplanted.is_empty(), "{design}: roots no fault explains: {unplanted:#?}\n{:#}", json["findings"]);
        for (fault, root) in planted {
            assert!(roots.iter().any(|r| r.starts_with(root)), "{design}: {fault} is not a root: {roots:#?}");
        }
    }
}

#[test]
fn a_fault_the_design_cannot_have_and_an_unknown_design_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    for (design, fault, why) in [
        ("pfc-only-prio3", "leaf1=ecn-off", "its lossless queue marks no ECN"),
        ("pfc-only-prio3", "gpu001=dcqcn-np-off", "its NICs run without DCQCN"),
        ("sonic-lossless-3-4", "leaf1=cnp-queue", "its CNP queue is weighted already"),
        ("pfc-only-prio3", "leaf1=cnp-queue", "it has no CNP class"),
    ] {
        let out = lab_command(design, &[fault], dir.path()).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_ne!(out.status.code(), Some(0), "{design} {fault}");
        assert!(stderr.contains(&format!("the {design} design: {why}")), "{design} {fault}: {stderr}");
    }
    let out = lab_command("prio5", &[], dir.path()).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("sonic-lossless-3-4") && stderr.contains("pfc-only-prio3"), "{stderr}");
}
