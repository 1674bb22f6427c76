//! The job's verdict: `--nodelist` (a Slurm host list) scopes the run to the job's hosts with
//! every switch, and the report opens with one verdict for the job and where to look first.

use crate::util::{audit, start_fabric};

#[test]
fn a_slurm_node_list_scopes_the_audit_and_names_the_jobs_causes() {
    let lab = start_fabric(4, 2, 2, &["gpu002=pfc-off", "gpu004=mtu"]);
    let run = audit(&lab, &["--nodelist", "gpu[001-002]", "--capture"]);
    let json = run.json();
    let job = &json["job"];
    assert_eq!(job["name"], "gpu[001-002]", "{}", run.stdout);
    assert_eq!(job["hosts"], serde_json::json!(["gpu001", "gpu002"]));
    assert_eq!(job["verdict"], "fail");
    assert_eq!(job["gpus"], 16, "two hosts of 8 GPUs (nvidia-smi topo -m)");
    assert_eq!((json["summary"]["hosts"].as_u64(), json["summary"]["switches"].as_u64()), (Some(2), Some(4)));
    // gpu004 is not in the job: its MTU is not audited.
    assert!(!run.findings().iter().any(|f| f.device == "gpu004"), "{}", run.stdout);
    let first = &job["causes"][0];
    assert_eq!((first["hop"].as_str(), first["code"].as_str()), (Some("gpu002:ens1np0"), Some("nic.pfc_mismatch")));
    let line = run
        .stdout
        .lines()
        .find(|l| l.starts_with("job gpu[001-002]: FAIL: 2 hosts, 16 GPUs"))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    assert!(line.contains("look first at gpu002:ens1np0 nic.pfc_mismatch (critical"), "{line}");
    let md = std::fs::read_to_string(run.out.join("report.md")).unwrap();
    assert!(md.contains("### Job `gpu[001-002]`: **FAIL**"), "{md}");
}

#[test]
fn a_node_list_naming_unknown_hosts_is_refused() {
    let lab = start_fabric(2, 1, 1, &[]);
    let run = audit(&lab, &["--nodelist", "gpu[001-004]"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("--nodelist gpu[001-004]: not hosts of the inventory: gpu003, gpu004"),
        "{}",
        run.stderr
    );
    let bad = audit(&lab, &["--nodelist", "gpu[001:002]"]);
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("Slurm ranges use `-`"), "{}", bad.stderr);
}
