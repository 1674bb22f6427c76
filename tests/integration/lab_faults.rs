//! One test per lab fault: the real binary audits a two-host lab over SSH (gpu001 healthy,
//! gpu002 faulted) and must report exactly the expected findings, nothing more, nothing less.

use crate::util::{audit, key, start_lab, start_sized};
use std::collections::BTreeSet;

/// The first RoCE rail (mlx5_0) and the InfiniBand port of every lab host.
const RAIL0: Option<&str> = Some("ens1np0");
const RAIL1: Option<&str> = Some("ens2np0");
const IB: Option<&str> = Some("mlx5_2/1");

/// Audits a lab with `fault` and checks its findings; returns findings.json (the lab's files go
/// with it).
fn expect(fault: &str, extra: &[&str], expected: &[(&str, Option<&str>)]) -> serde_json::Value {
    let lab = start_lab(2, &[fault]);
    let run = audit(&lab, extra);
    let want: BTreeSet<_> = expected.iter().map(|(code, port)| key(code, "gpu002", *port)).collect();
    assert_eq!(run.keys(), want, "fault {fault}\nstdout:\n{}\nstderr:\n{}", run.stdout, run.stderr);
    // Warnings alone (IRQ placement) give `warn` and exit 0 under the default --fail-on error.
    let json = run.json();
    let verdict = json["verdict"].as_str().unwrap().to_string();
    assert_ne!(verdict, "pass", "a fault must not pass");
    assert_eq!(run.code, if verdict == "fail" { 1 } else { 0 }, "{}", run.stdout);
    json
}

#[test]
fn a_clean_lab_passes() {
    let lab = start_lab(3, &[]);
    let run = audit(&lab, &[]);
    assert_eq!(run.keys(), BTreeSet::new(), "{}", run.stdout);
    assert_eq!(run.code, 0);
    let json = run.json();
    assert_eq!(json["verdict"], "pass");
    assert_eq!(json["summary"]["hosts"], 3);
    assert_eq!(json["summary"]["unreachable"], 0);
    assert!(run.stdout.starts_with("verdict: PASS"), "{}", run.stdout);
}

/// Hosts of real size (`fabcheck lab --channels 48`): 192 CPUs, 48 completion IRQs a NIC on
/// cores of their own, 48 channels' per-queue counters in each `ethtool -S` (1,824 more lines a
/// read). A healthy one audits clean, the per-queue counters are read without a warning, and a
/// NIC whose IRQs share the other's cores is still found, and only it.
#[test]
fn hosts_of_real_size_audit_clean_and_their_faults_are_found() {
    let lab = start_sized(2, 48, &["gpu002=irq-overlap"]);
    let run = audit(&lab, &[]);
    let want = BTreeSet::from([key("host.irq_affinity_overlap", "gpu002", Some("ens1np0+ens2np0"))]);
    assert_eq!(run.keys(), want, "stdout:\n{}\nstderr:\n{}", run.stdout, run.stderr);
    let evidence = run.out.join("evidence/gpu001");
    let stats = std::fs::read_to_string(evidence.join("ethtool_stats.ens1np0.t1.txt")).unwrap();
    assert!(stats.contains("\n     rx47_cache_waive: 0\n") && stats.contains("\n     tx47_xmit_more: 0\n"), "{stats}");
    let per_queue = |l: &&str| {
        let name = l.trim_start();
        ["rx", "tx"].iter().any(|d| name.strip_prefix(d).is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit())))
    };
    assert_eq!(stats.lines().filter(per_queue).count(), 48 * 38);
    let affinity = std::fs::read_to_string(evidence.join("irq_affinity.txt")).unwrap();
    assert!(affinity.contains("/proc/irq/0/smp_affinity_list:0-191\n"), "{affinity}");
    let json = run.json();
    assert!(json["devices"].as_array().unwrap().iter().all(|d| d["parse_issues"] == 0), "{json}");
}

#[test]
fn pfc_off() {
    expect("gpu002=pfc-off", &[], &[("nic.pfc_mismatch", RAIL0)]);
}

#[test]
fn trust_pcp() {
    expect("gpu002=trust-pcp", &[], &[("nic.trust_mismatch", RAIL0)]);
}

#[test]
fn dscp_map() {
    expect("gpu002=dscp-map", &[], &[("nic.dscp_map_mismatch", RAIL0)]);
}

#[test]
fn mtu() {
    expect("gpu002=mtu", &[], &[("nic.mtu_mismatch", RAIL0)]);
}

#[test]
fn link_degraded_on_a_roce_rail() {
    expect("gpu002=link-degraded", &[], &[("nic.link_degraded", RAIL0)]);
}

#[test]
fn link_degraded_on_the_infiniband_port() {
    expect("gpu002=link-degraded@mlx5_2", &[], &[("ib.link_degraded", IB)]);
}

/// The finding says why the link is down when the driver tells (ethtool's extended link state).
#[test]
fn link_down() {
    let json = expect("gpu002=link-down", &[], &[("nic.link_down", RAIL0)]);
    let finding = json["findings"].as_array().unwrap().iter().find(|f| f["code"] == "nic.link_down").unwrap();
    assert_eq!(finding["actual"], "Down / Disabled (Autoneg, No partner detected)", "{finding}");
}

#[test]
fn infiniband_port_down() {
    expect("gpu002=link-down@mlx5_2", &[], &[("ib.port_down", IB)]);
}

#[test]
fn gid_missing() {
    expect("gpu002=gid-missing", &[], &[("nic.rocev2_gid_missing", RAIL0)]);
}

#[test]
fn peermem_missing() {
    expect("gpu002=peermem-missing", &[], &[("host.gdr_disabled", None)]);
}

#[test]
fn irq_overlap() {
    expect("gpu002=irq-overlap", &[], &[("host.irq_affinity_overlap", Some("ens1np0+ens2np0"))]);
}

#[test]
fn out_of_buffer() {
    expect("gpu002=out-of-buffer", &[], &[("counter.out_of_buffer", RAIL0)]);
}

#[test]
fn seq_err() {
    expect("gpu002=seq-err", &[], &[("counter.seq_err", RAIL0)]);
}

#[test]
fn sm_missing() {
    expect("gpu002=sm-missing", &[], &[("ib.sm_missing", None)]);
}

#[test]
fn tool_missing() {
    expect("gpu002=tool-missing", &[], &[("collect.tool_missing", None)]);
}

/// A host without `timeout`: the first commands come back `timeout: not found`, after which the
/// host's commands, its shared quick reads included, are sent as they are and all read.
#[test]
fn a_host_without_timeout_gets_its_commands_unwrapped_and_passes() {
    let lab = start_lab(2, &["gpu002=no-timeout"]);
    let run = audit(&lab, &[]);
    assert_eq!(run.keys(), BTreeSet::new(), "{}\n{}", run.stdout, run.stderr);
    let commands = |host: &str| -> Vec<String> {
        let text = std::fs::read_to_string(run.out.join("evidence").join(host).join("commands.json")).unwrap();
        let list: serde_json::Value = serde_json::from_str(&text).unwrap();
        list.as_array().unwrap().iter().map(|c| c["command"].as_str().unwrap().to_string()).collect()
    };
    let (wrapped, bare) = (commands("gpu001"), commands("gpu002"));
    assert_eq!(wrapped.len(), bare.len());
    assert!(wrapped.iter().all(|c| c.starts_with("timeout -k 2 30 ")), "{wrapped:#?}");
    assert!(bare.iter().all(|c| !c.contains("timeout")), "{bare:#?}");
    assert!(bare.contains(&"ethtool -S ens1np0".to_string()) && bare.contains(&"lsmod".to_string()), "{bare:#?}");
}

#[test]
fn refused_connection() {
    expect("gpu002=refuse", &[], &[("ssh.unreachable", None)]);
}

#[test]
fn banner_never_comes() {
    expect("gpu002=banner-hang", &["--connect-timeout", "1s"], &[("ssh.timeout", None)]);
}

#[test]
fn authentication_denied() {
    expect("gpu002=auth-denied", &[], &[("ssh.auth_failed", None)]);
}

#[test]
fn changed_host_key() {
    expect("gpu002=hostkey-changed", &[], &[("ssh.hostkey_mismatch", None)]);
}

#[test]
fn commands_that_hang_time_out_and_the_rest_of_the_run_goes_on() {
    let lab = start_lab(2, &["gpu002=command-hang"]);
    let run = audit(&lab, &["--command-timeout", "1s"]);
    let keys = run.keys();
    assert!(keys.contains(&key("ssh.timeout", "gpu002", None)), "{keys:?}");
    assert!(keys.iter().all(|(code, device, _)| device == "gpu002" && code == "ssh.timeout"), "{keys:?}");
    let json = run.json();
    assert_eq!(json["summary"]["hosts"], 2);
}

/// Something other than SSH on the port is an SSH failure (`ssh.protocol_error`), not a failed
/// command; a server dropping the first connections of a burst (sshd's MaxStartups) is retried
/// with backoff until one gets through, and is no finding at all.
#[test]
fn a_non_ssh_server_is_a_protocol_error_and_dropped_handshakes_are_retried() {
    let lab = start_lab(3, &["gpu002=not-ssh", "gpu003=max-startups"]);
    let run = audit(&lab, &[]);
    let keys = run.keys();
    assert_eq!(keys, BTreeSet::from([key("ssh.protocol_error", "gpu002", None)]), "{}", run.stderr);
    let json = run.json();
    let f = &json["findings"][0];
    assert!(
        f["message"].as_str().unwrap().contains("the server closed the connection before the handshake finished"),
        "{f:#}"
    );
    assert_eq!(json["devices"][2]["reachable"], true, "gpu003 got through on a retry");
}

/// A device whose every command hangs is given up at --device-timeout: one
/// `collect.device_timeout` finding on it, and every other device is judged as usual.
#[test]
fn a_device_past_its_deadline_is_one_finding_and_the_run_goes_on() {
    let lab = start_lab(2, &["gpu002=command-hang"]);
    let run = audit(&lab, &["--command-timeout", "30s", "--device-timeout", "2s"]);
    let keys = run.keys();
    assert_eq!(keys, BTreeSet::from([key("collect.device_timeout", "gpu002", None)]), "{}", run.stderr);
    let json = run.json();
    let f = &json["findings"][0];
    assert!(
        f["message"].as_str().unwrap().starts_with(
            "its configuration and first counter read did not finish within --device-timeout (2 s): the run went on without it"
        ),
        "{f:#}"
    );
    assert_eq!(json["devices"][0]["reachable"], true, "gpu001 audited");
}

#[test]
fn inventory_nics_and_limit_narrow_the_audit() {
    // PFC is off on gpu002's first rail and MTU is wrong on gpu003; the inventory audits only the
    // second rail of gpu002 and --limit drops gpu003: nothing is found.
    let lab = start_lab(3, &["gpu002=pfc-off", "gpu003=mtu"]);
    let inventory = std::fs::read_to_string(lab.lab.inventory_path()).unwrap();
    let narrowed = inventory.replacen("\ngpu002 ", "\ngpu002 fabcheck_nics=mlx5_1 ", 1);
    assert_ne!(narrowed, inventory);
    std::fs::write(lab.lab.inventory_path(), narrowed).unwrap();
    let run = audit(&lab, &["--limit", "gpu*:!gpu003"]);
    assert_eq!(run.keys(), BTreeSet::new(), "{}", run.stdout);
    let json = run.json();
    assert_eq!(json["summary"]["hosts"], 2);
    let devices: Vec<_> =
        json["devices"].as_array().unwrap().iter().map(|d| d["name"].as_str().unwrap().to_string()).collect();
    assert_eq!(devices, ["gpu001", "gpu002"]);
    let gpu002_nics = json["devices"][1]["nics"].as_array().unwrap();
    assert_eq!(gpu002_nics.len(), 1, "{gpu002_nics:?}");
    assert!(gpu002_nics[0].as_str().unwrap().starts_with("ens2np0"), "{gpu002_nics:?}");
}

#[test]
fn the_rocev2_gid_index_is_reported_per_nic() {
    let lab = start_lab(1, &[]);
    let run = audit(&lab, &[]);
    let nics = run.json()["devices"][0]["nics"].clone();
    assert_eq!(nics[0], "ens1np0 (mlx5_0, RoCEv2 GID index 3)", "{nics}");
    assert_eq!(nics[2], "mlx5_2/1 (InfiniBand)", "{nics}");
}

#[test]
fn the_infiniband_fabric_view_finds_a_degraded_link_from_another_host() {
    // gpu003's IB link trained at 2X; gpu001 reads the whole fabric with iblinkinfo.
    let lab = start_lab(3, &["gpu003=link-degraded@mlx5_2"]);
    let inventory = std::fs::read_to_string(lab.lab.inventory_path()).unwrap();
    let viewing = inventory.replacen("\ngpu001 ", "\ngpu001 fabcheck_iblinkinfo=true ", 1);
    assert_ne!(viewing, inventory);
    std::fs::write(lab.lab.inventory_path(), viewing).unwrap();
    let run = audit(&lab, &[]);
    assert_eq!(run.keys(), BTreeSet::from([key("ib.link_degraded", "gpu003", IB)]), "{}", run.stdout);
    let from_fabric: Vec<_> = run
        .findings()
        .into_iter()
        .filter(|f| f.code == "ib.link_degraded" && f.evidence == ["gpu001/iblinkinfo.txt"])
        .collect();
    assert_eq!(from_fabric.len(), 1, "the link, seen in gpu001's iblinkinfo");
    assert_eq!(from_fabric[0].path, ["gpu003:mlx5_2/1", "MF0;ibsw1:MQM9700/U1:3"]);
    assert_eq!((from_fabric[0].expected.as_str(), from_fabric[0].actual.as_str()), ("4X", "2X"));
}

#[test]
fn dcqcn_reaction_point_off() {
    expect("gpu002=dcqcn-rp-off", &[], &[("nic.dcqcn_disabled", RAIL0)]);
}

#[test]
fn dcqcn_notification_point_off_on_the_second_rail() {
    expect("gpu002=dcqcn-np-off@mlx5_1", &[], &[("nic.dcqcn_disabled", Some("ens2np0"))]);
}

#[test]
fn cnps_marked_with_another_dscp() {
    expect("gpu002=cnp-dscp", &[], &[("nic.cnp_mismatch", RAIL0)]);
    let lab = start_lab(2, &["gpu002=cnp-dscp"]);
    let f = audit(&lab, &[]).findings().into_iter().find(|f| f.code == "nic.cnp_mismatch").unwrap();
    assert_eq!((f.expected.as_str(), f.actual.as_str()), ("CNP DSCP 48", "CNP DSCP 24"));
    assert_eq!(f.evidence, ["gpu002/roce_ecn.ens1np0.txt"]);
}

/// The inbox mlx5 driver has no `ecn` tree: a fact on the device's row, never a finding.
#[test]
fn a_driver_without_the_dcqcn_tree_is_a_fact_not_a_finding() {
    let lab = start_lab(2, &["gpu002=dcqcn-sysfs-missing"]);
    let run = audit(&lab, &[]);
    assert_eq!(run.keys(), BTreeSet::new(), "{}", run.stdout);
    let json = run.json();
    let gpu002 = json["devices"].as_array().unwrap().iter().find(|d| d["name"] == "gpu002").unwrap().clone();
    let nics: Vec<&str> = gpu002["nics"].as_array().unwrap().iter().filter_map(|n| n.as_str()).collect();
    assert!(
        nics.iter().any(|n| n.starts_with("ens1np0 ") && n.contains("DCQCN state not exposed by the driver")),
        "{nics:?}"
    );
    assert!(
        !nics.iter().any(|n| n.starts_with("ens2np0 ") && n.contains("DCQCN")),
        "the other rail has its tree: {nics:?}"
    );
}

/// gpu002's first rail has its RoCEv2 IPv4 GID at index 5, every other port at 3.
#[test]
fn a_gid_index_unlike_the_other_hosts() {
    expect("gpu002=gid-index-shifted", &[], &[("nic.gid_index_inconsistent", RAIL0)]);
}

/// gpu002's first ConnectX-7 runs firmware 28.41.1000, the other five cards 28.39.1002: the card
/// is named (by its RDMA device), with the version most cards of its firmware line run.
#[test]
fn one_card_on_other_firmware_than_its_line() {
    let json = expect("gpu002=firmware-skew", &[], &[("nic.firmware_inconsistent", Some("mlx5_0"))]);
    let f = &json["findings"][0];
    assert_eq!(
        (f["expected"].as_str(), f["actual"].as_str()),
        (Some("firmware 28.39.1002"), Some("firmware 28.41.1000"))
    );
    assert_eq!(f["severity"], "warning");
    assert_eq!(f["evidence"][0], "gpu002/ibstat.txt");
}

/// RDMA bytes flow on priority 0 while priority 3 stands still: PFC does not protect them.
#[test]
fn roce_traffic_on_priority_0() {
    expect("gpu002=roce-on-prio0", &[], &[("nic.roce_wrong_priority", RAIL0)]);
}

/// The lossless priority's receive buffer at 64 KB: short of a 400G link's headroom.
#[test]
fn a_lossless_buffer_smaller_than_the_headroom() {
    expect("gpu002=pfc-buffer-small", &[], &[("nic.pfc_buffer_insufficient", RAIL0)]);
}

/// The master SM runs alone: `saquery -s` lists no standby.
#[test]
fn a_master_sm_without_a_standby() {
    expect("gpu002=sm-no-standby", &[], &[("ib.sm_no_standby", None)]);
}

/// Two rails in one subnet without source routing or ARP settings: both NICs named,
/// with what each lacks.
#[test]
fn two_rails_in_one_subnet_without_policy_routing() {
    expect("gpu002=one-subnet", &[], &[("host.multirail_routing", RAIL0), ("host.multirail_routing", RAIL1)]);
    let lab = start_lab(2, &["gpu002=one-subnet"]);
    let findings = audit(&lab, &[]).findings();
    let f =
        findings.iter().find(|f| f.code == "host.multirail_routing" && f.port.as_deref() == Some("ens2np0")).unwrap();
    assert_eq!(
        f.actual,
        "ip rule from 10.100.128.2 lookup a table routed via ens2np0; arp_ignore 1 or 2 (is 0: any NIC answers ARP for any address); arp_announce 1 or 2 (is 0)"
    );
    assert_eq!(f.evidence, ["gpu002/ip_rule.txt", "gpu002/ip_route.txt", "gpu002/net_conf.txt"]);
}

/// `fabcheck run` with `--policy`, `--fail-on` and `--window` overriding the playbook's: the cron
/// playbook (fail_on critical, a 30 s window) fails at `error` on an MTU finding, under a renamed
/// copy of its policy, with a 500 ms window; `--drain-list` names the host for Slurm.
#[test]
fn run_takes_the_command_lines_policy_fail_on_and_window() {
    let lab = start_lab(2, &["gpu002=mtu"]);
    let dir = lab.dir.path();
    let policy = dir.join("ours.yaml");
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/playbooks/policies/roce-lossless-prio3.yaml"))
            .unwrap();
    std::fs::write(&policy, text.replacen("name: roce-lossless-prio3", "name: ours", 1)).unwrap();
    let out = dir.join("run-report");
    let drain = dir.join("drain.txt");
    let playbook = concat!(env!("CARGO_MANIFEST_DIR"), "/playbooks/cron-audit.yaml");
    let rest = [
        "--out",
        out.to_str().unwrap(),
        "--policy",
        policy.to_str().unwrap(),
        "--fail-on",
        "error",
        "--window",
        "500ms",
        "--drain-list",
        drain.to_str().unwrap(),
    ];
    let run = crate::util::fabcheck_on(&lab, None, &["run", playbook], &rest);
    assert_eq!(run.code, 1, "nic.mtu_mismatch is an error: {}{}", run.stdout, run.stderr);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("findings.json")).unwrap()).unwrap();
    assert_eq!((json["policy"].as_str(), json["fail_on"].as_str()), (Some("ours"), Some("error")));
    assert!(json["duration_s"].as_f64().unwrap() < 25.0, "the 500 ms window, not the playbook's 30 s");
    assert_eq!(
        std::fs::read_to_string(&drain).unwrap(),
        "scontrol update NodeName=gpu002 State=DRAIN Reason=\"fabcheck error nic.mtu_mismatch on ens1np0\"\n"
    );
}

/// In a GitHub Actions job (`GITHUB_STEP_SUMMARY` set), report.md is appended to the job summary
/// after what earlier steps wrote there.
#[test]
fn the_report_is_appended_to_the_github_job_summary() {
    let lab = start_lab(1, &[]);
    let summary = lab.dir.path().join("step_summary.md");
    std::fs::write(&summary, "## an earlier step\n").unwrap();
    let out = lab.dir.path().join("report-gh");
    let ssh_config = lab.dir.path().join("empty_ssh_config");
    std::fs::write(&ssh_config, "").unwrap();
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_fabcheck"))
        .args(["audit", "--window", "0", "-i"])
        .arg(lab.lab.inventory_path())
        .arg("--known-hosts")
        .arg(lab.lab.known_hosts_path())
        .arg("--ssh-config")
        .arg(&ssh_config)
        .arg("--out")
        .arg(&out)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
    let text = std::fs::read_to_string(&summary).unwrap();
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert_eq!(text, format!("## an earlier step\n{report}"));
    assert!(report.starts_with("**PASS**"), "{report}");
}

/// Waivers: a live waiver marks its finding as waived, which is reported and fails nothing (the
/// run passes when it was the only fault); an expired waiver waives nothing and is a warning.
#[test]
fn waived_findings_are_shown_and_do_not_fail_the_run() {
    let lab = start_lab(3, &["gpu002=mtu", "gpu003=pfc-off"]);
    let waivers = lab.dir.path().join("waivers.yaml");
    std::fs::write(
        &waivers,
        "waivers:\n\
         - { code: nic.mtu_mismatch, device: 'gpu00?', port: 'ens1*', reason: RMA 4711, expires: 2099-12-31 }\n\
         - { code: nic.pfc_mismatch, device: gpu003, reason: change 88, expires: 2020-01-01 }\n",
    )
    .unwrap();
    let run = audit(&lab, &["--waivers", waivers.to_str().unwrap()]);
    let want: BTreeSet<_> = [
        key("nic.mtu_mismatch", "gpu002", RAIL0),
        key("nic.pfc_mismatch", "gpu003", RAIL0),
        key("waiver.expired", "waivers.yaml", None),
    ]
    .into();
    assert_eq!(run.keys(), want, "{}", run.stdout);
    let findings = run.findings();
    let mtu = findings.iter().find(|f| f.code == "nic.mtu_mismatch").unwrap();
    assert_eq!(mtu.waived.as_deref(), Some("RMA 4711 (until 2099-12-31)"));
    assert!(findings.iter().find(|f| f.code == "nic.pfc_mismatch").unwrap().waived.is_none(), "expired");
    assert_eq!(run.code, 1, "the unwaived PFC finding fails the run");
    assert_eq!(run.json()["summary"]["waived"], 1);
    assert!(run.stdout.contains("waived: 1 findings accepted by waivers"), "{}", run.stdout);

    // The waived finding alone: the run passes (the expired waiver's warning aside).
    let only = start_lab(2, &["gpu002=mtu"]);
    let run = audit(&only, &["--waivers", waivers.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.json()["verdict"], "warn", "the expired waiver's warning");
    let junit = std::fs::read_to_string(run.out.join("junit.xml")).unwrap();
    assert!(!junit.contains("nic.mtu_mismatch]"), "no failing case for a waived finding: {junit}");
}

/// The audit's command line for the lab, as a shell would run it.
fn audit_argv(lab: &crate::util::RunningLab, out: &std::path::Path) -> Vec<String> {
    let ssh_config = lab.dir.path().join("empty_ssh_config");
    std::fs::write(&ssh_config, "").unwrap();
    [
        env!("CARGO_BIN_EXE_fabcheck"),
        "audit",
        "--window",
        "0",
        "-i",
        lab.lab.inventory_path().to_str().unwrap(),
        "--known-hosts",
        lab.lab.known_hosts_path().to_str().unwrap(),
        "--ssh-config",
        ssh_config.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]
    .map(String::from)
    .to_vec()
}

/// `fabcheck audit ... | head -1` in a CI step: stdout closed early changes nothing about the
/// outcome; the exit status still says the findings reached --fail-on, and the reports are written.
#[test]
fn a_closed_stdout_keeps_the_verdicts_exit_status() {
    let lab = start_lab(2, &["gpu002=mtu"]);
    let out = lab.dir.path().join("report-closed");
    let argv = audit_argv(&lab, &out);
    let mut child = std::process::Command::new(&argv[0])
        .args(&argv[1..])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    assert_eq!(child.wait().unwrap().code(), Some(1));
    assert!(out.join("findings.json").exists());
}

/// On a terminal (here a pseudo-terminal from util-linux's `script`) the verdict and severities
/// are coloured, unless NO_COLOR is set.
#[test]
fn colour_on_a_terminal_unless_no_color() {
    let lab = start_lab(2, &["gpu002=mtu"]);
    let out = lab.dir.path().join("report-tty");
    let command = audit_argv(&lab, &out).join(" ");
    let on_tty = |no_color: Option<&str>| {
        let mut script = std::process::Command::new("script");
        script.args(["-qec", &command, "/dev/null"]).env_remove("NO_COLOR");
        if let Some(v) = no_color {
            script.env("NO_COLOR", v);
        }
        let run = script.output().expect("script (util-linux) runs the audit on a pseudo-terminal");
        String::from_utf8_lossy(&run.stdout).into_owned()
    };
    let coloured = on_tty(None);
    assert!(coloured.contains("verdict: \x1b[31mFAIL\x1b[0m"), "{coloured:?}");
    assert!(coloured.contains("\x1b[31merror   \x1b[0m nic.mtu_mismatch"), "{coloured:?}");
    let plain = on_tty(Some("1"));
    assert!(plain.contains("verdict: FAIL (") && !plain.contains("\x1b[3"), "{plain:?}");
}

/// On a terminal the counter window counts down (`window [...] 2 s left`).
#[test]
fn the_counter_window_counts_down_on_a_terminal() {
    let lab = start_lab(1, &[]);
    let out = lab.dir.path().join("report-countdown");
    let command = audit_argv(&lab, &out).join(" ").replace("--window 0", "--window 2s");
    let run = std::process::Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .output()
        .expect("script (util-linux) runs the audit on a pseudo-terminal");
    let text = String::from_utf8_lossy(&run.stdout);
    assert!(text.contains("window") && text.contains("2 s left"), "{text:?}");
    assert!(text.contains("verdict: "), "{text:?}");
}

/// SIGINT during a long counter window ends the window at once: every device reads its counters
/// the second time, the reports are written and say the run was interrupted, and the exit status
/// is 2 (an interrupted cron audit is never taken for a pass).
#[test]
fn an_interrupt_during_the_window_ends_it_and_reports_what_was_collected() {
    let lab = start_lab(2, &["gpu002=pfc-off"]);
    let out = lab.dir.path().join("interrupted");
    let child = crate::util::spawn_audit(&lab, &["--window", "10m"], &out);
    // Time for the run to start listening for signals; an interrupt that comes while devices
    // are still collecting ends their window as soon as they reach it, so later is as good.
    std::thread::sleep(std::time::Duration::from_secs(3));
    let kill = std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(kill.success());
    let done = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert_eq!(done.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("fabcheck: interrupted: ending the counter window now"), "{stderr}");
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("findings.json")).unwrap()).unwrap();
    assert_eq!(json["interrupted"], true);
    let codes: Vec<&str> = json["findings"].as_array().unwrap().iter().map(|f| f["code"].as_str().unwrap()).collect();
    assert!(codes.contains(&"nic.pfc_mismatch"), "what was collected is judged: {codes:?}");
    assert!(
        json["counters"].as_array().unwrap().iter().any(|c| c["delta"].is_u64()),
        "the second counter read was made"
    );
    assert!(std::fs::read_to_string(out.join("report.md")).unwrap().contains("**Interrupted**"));
    assert!(out.join("evidence/manifest.json").is_file());
}
