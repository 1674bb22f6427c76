//! A host's evidence, read into facts and checked whole: the counters, its ports, its
//! device errors.

use crate::check::*;
use crate::evidence::testing::{host_record, output};
use crate::evidence::{DeviceRecord, Evidence};
use crate::policy::Policy;
use fabcheck_model::Severity;

const IBSTAT: &str = "CA 'mlx5_0'\n\tCA type: MT4129\n\tNumber of ports: 1\n\tPort 1:\n\t\tState: Active\n\t\tPhysical state: LinkUp\n\t\tRate: 400\n\t\tBase lid: 0\n\t\tSM lid: 0\n\t\tLink layer: Ethernet\n";

fn host(outputs: Vec<Evidence>) -> DeviceRecord {
    let mut all = vec![output("ibdev2netdev", "mlx5_0 port 1 ==> ens1np0 (Up)\n", 0), output("ibstat", IBSTAT, 0)];
    all.extend(outputs);
    host_record("gpu01", all)
}

fn check(record: &DeviceRecord, policy: &Policy) -> DeviceAudit {
    check_device(&crate::facts::build(record), policy)
}

fn policy(text: &str) -> Policy {
    Policy::parse(text, "test").unwrap()
}

#[test]
fn counters_are_judged_on_deltas_and_a_counter_that_goes_down_is_a_reset() {
    let record = host(vec![
        output(
            "ethtool_stats.ens1np0.t0",
            "NIC statistics:\n     rx_prio3_pause: 100\n     rx_discards_phy: 5\n",
            1_000,
        ),
        output(
            "ethtool_stats.ens1np0.t1",
            "NIC statistics:\n     rx_prio3_pause: 40\n     rx_discards_phy: 7\n",
            3_000,
        ),
    ]);
    let audit = check(
        &record,
        &policy("counters:\n  rx_discards_phy: { max: 0, severity: critical }\n  rx_prio3_pause: { max_per_s: 10 }\n"),
    );
    let found: Vec<_> = audit.findings.iter().map(|f| (f.code.as_str(), f.severity, f.actual.as_str())).collect();
    assert_eq!(
        found,
        vec![("counter.rx_discards", Severity::Critical, "+2 packets"), ("counter.reset", Severity::Info, "40")],
        "{:#?}",
        audit.findings
    );
    let discards = audit.counters.iter().find(|c| c.counter == "rx_discards_phy").unwrap();
    assert_eq!((discards.value, discards.delta, discards.rate_per_s), (7, Some(2), Some(1.0)));
    let pause = audit.counters.iter().find(|c| c.counter == "rx_prio3_pause").unwrap();
    assert_eq!(
        (pause.value, pause.delta, pause.rate_per_s),
        (40, None, None),
        "a reset has no delta, never a negative one"
    );
}

#[test]
fn a_rate_rule_fires_only_above_its_rate() {
    let record = host(vec![
        output("ethtool_stats.ens1np0.t0", "     tx_prio3_pause: 0\n", 0),
        output("ethtool_stats.ens1np0.t1", "     tx_prio3_pause: 30000\n", 2_000),
    ]);
    let audit = check(&record, &policy("counters:\n  tx_prio3_pause: { max_per_s: 10000, severity: warning }\n"));
    assert_eq!(audit.findings.len(), 1, "{:#?}", audit.findings);
    let f = &audit.findings[0];
    assert_eq!(
        (f.code.as_str(), f.severity, f.port.as_deref()),
        ("counter.pause_storm", Severity::Warning, Some("ens1np0"))
    );
    assert_eq!((f.expected.as_str(), f.actual.as_str()), ("≤ 10000 frames/s", "15000 frames/s"));
    let quiet = check(&record, &policy("counters:\n  tx_prio3_pause: { max_per_s: 20000 }\n"));
    assert!(quiet.findings.is_empty(), "{:#?}", quiet.findings);
}

#[test]
fn an_unreachable_device_is_one_finding_and_nothing_else() {
    let mut record = host(vec![]);
    record.outputs.clear();
    record.error =
        Some(crate::evidence::DeviceError { code: "ssh.unreachable".into(), message: "cannot connect".into() });
    let audit = check(&record, &policy(crate::policy::DEFAULT_POLICY));
    assert_eq!(audit.findings.len(), 1);
    assert_eq!(audit.findings[0].code, "ssh.unreachable");
    assert!(!audit.summary.reachable);
    assert_eq!(audit.summary.worst, Some(Severity::Error));
}

#[test]
fn a_failed_command_and_a_missing_tool_are_findings_that_name_the_command() {
    let mut failed = output("mlnx_qos.ens1np0", "", 0);
    failed.command = "mlnx_qos -i ens1np0".into();
    failed.exit_status = Some(1);
    failed.stderr = "Netlink error: Operation not permitted\n".into();
    let mut missing = output("lsmod", "", 0);
    missing.command = "lsmod".into();
    missing.exit_status = Some(127);
    missing.stderr = "bash: lsmod: command not found\n".into();
    let audit = check(&host(vec![failed, missing]), &policy("nic: { trust: dscp }\nhost: { gdr: required }\n"));
    let codes: Vec<_> = audit.findings.iter().map(|f| (f.code.as_str(), f.port.as_deref())).collect();
    assert_eq!(
        codes,
        vec![("collect.command_failed", Some("ens1np0")), ("collect.tool_missing", None)],
        "{:#?}",
        audit.findings
    );
    assert!(
        audit.findings[0].message.contains("mlnx_qos -i ens1np0")
            && audit.findings[0].message.contains("Operation not permitted")
    );
    assert_eq!(audit.findings[0].evidence, vec!["gpu01/mlnx_qos.ens1np0.txt"]);
}

#[test]
fn an_output_read_only_partly_is_kept_with_its_unread_lines() {
    let qos = "DCBX mode: OS controlled\nPriority trust state: dscp\nNetlink: firmware answered oddly\nPFC configuration:\n        priority    0   1   2   3   4   5   6   7\n        enabled     0   0   0   1   0   0   0   0\n";
    let mut partial = output("mlnx_qos.ens1np0", qos, 0);
    partial.command = "mlnx_qos -i ens1np0".into();
    let audit = check(&host(vec![partial]), &policy("pfc: { priorities: [3] }\n"));
    assert!(audit.findings.is_empty(), "what was read is judged: {:#?}", audit.findings);
    assert_eq!(audit.summary.parse_issues, 1);
    let read = &audit.summary.unread[0];
    assert_eq!(
        (read.evidence.as_str(), read.command.as_str(), read.status),
        ("gpu01/mlnx_qos.ens1np0.txt", "mlnx_qos -i ens1np0", fabcheck_model::ReadStatus::Partial)
    );
    let lines: Vec<(usize, &str)> = read.lines.iter().map(|l| (l.line, l.text.as_str())).collect();
    assert_eq!(lines, [(3, "Netlink: firmware answered oddly")]);
}

#[test]
fn every_dscp_the_policy_lists_must_map_to_the_lossless_priority() {
    let qos = "DCBX mode: OS controlled\nPriority trust state: dscp\ndscp2prio mapping:\n\tprio:0 dscp:07,06,05,04,03,02,01,00,24,\n\tprio:3 dscp:31,30,29,28,27,26,25,\nPFC configuration:\n\tpriority    0   1   2   3   4   5   6   7\n\tenabled     0   0   0   1   0   0   0   0\n";
    let record = host(vec![output("mlnx_qos.ens1np0", qos, 0)]);
    let audit = check(&record, &policy("roce: { dscp: [24, 26], priority: 3 }\n"));
    let found: Vec<(&str, &str)> = audit.findings.iter().map(|f| (f.code.as_str(), f.actual.as_str())).collect();
    assert_eq!(found, [("nic.dscp_map_mismatch", "DSCP 24 → priority 0")], "DSCP 26 is where it belongs");
    assert!(check(&record, &policy("roce: { dscp: 26, priority: 3 }\n")).findings.is_empty());
}

/// Output cut short by a timeout or at --max-output is unknown: its cut is the finding,
/// never a configuration fault read from what is missing (here the PFC line that would have
/// said priority 3 is lossless), and the unread list says why it was not read.
#[test]
fn output_cut_short_or_truncated_is_unknown_and_its_cut_the_finding() {
    let qos = "DCBX mode: OS controlled\nPriority trust state: dscp\nPFC configuration:\n        priority    0   1   2   3   4   5   6   7\n        enabled     0   0   0   0   0   0   0   0\n";
    let mut timed_out = output("mlnx_qos.ens1np0", qos, 0);
    timed_out.exit_status = None;
    timed_out.transport_error =
        Some(crate::evidence::DeviceError { code: "ssh.timeout".into(), message: "no answer in 30 s".into() });
    let audit = check(&host(vec![timed_out]), &policy("pfc: { priorities: [3] }\n"));
    let codes: Vec<&str> = audit.findings.iter().map(|f| f.code.as_str()).collect();
    assert_eq!(codes, ["ssh.timeout"], "no nic.pfc_mismatch from a cut output");
    let read = &audit.summary.unread[0];
    assert_eq!(read.status, fabcheck_model::ReadStatus::Failed);
    assert!(
        read.error.as_deref().unwrap().starts_with("cut short (ssh.timeout) after 171 bytes: not read"),
        "{read:?}"
    );

    let mut truncated = output("mlnx_qos.ens1np0", qos, 0);
    truncated.truncated = true;
    let audit = check(&host(vec![truncated]), &policy("pfc: { priorities: [3] }\n"));
    let codes: Vec<&str> = audit.findings.iter().map(|f| f.code.as_str()).collect();
    assert_eq!(codes, ["collect.output_truncated"], "no nic.pfc_mismatch from a truncated output");
    let f = &audit.findings[0];
    assert_eq!((f.port.as_deref(), f.severity), (Some("ens1np0"), Severity::Error));
    assert_eq!(f.evidence, ["gpu01/mlnx_qos.ens1np0.txt"]);
    assert!(audit.summary.unread[0].error.as_deref().unwrap().starts_with("cut at --max-output after 171 bytes"));
}

/// An InfiniBand port whose ibstat could not be read stays InfiniBand (its netdev's link type
/// says so): no RoCE checks on it.
#[test]
fn an_unreadable_ibstat_does_not_turn_an_infiniband_port_into_roce() {
    let ip_link =
        r#"[{"ifindex":4,"ifname":"ib0","mtu":4092,"operstate":"UP","flags":["UP"],"link_type":"infiniband"}]"#;
    let record = host_record(
        "gpu01",
        vec![
            output("ibdev2netdev", "mlx5_0 port 1 ==> ib0 (Up)\n", 0),
            output("ibstat", "garbage that is not ibstat\n", 0),
            output("ip_link", ip_link, 0),
        ],
    );
    let ports = crate::facts::ports::discover_ports(&record, &[]);
    assert_eq!(ports.len(), 1);
    assert!(ports[0].infiniband, "{ports:?}");
    let named = host_record("gpu01", vec![output("ibdev2netdev", "mlx5_0 port 1 ==> ibp65s0 (Up)\n", 0)]);
    assert!(crate::facts::ports::discover_ports(&named, &[])[0].infiniband, "IPoIB naming, when nothing else says");
}

/// A device given up at --device-timeout after its configuration was read is judged on what
/// it gave, with the timeout as a finding of its own.
#[test]
fn a_device_that_failed_partway_is_judged_on_what_it_gave() {
    let qos = "DCBX mode: OS controlled\nPriority trust state: dscp\nPFC configuration:\n        priority    0   1   2   3   4   5   6   7\n        enabled     0   0   0   0   0   0   0   0\n";
    let mut record = host(vec![output("mlnx_qos.ens1np0", qos, 0)]);
    record.error = Some(crate::evidence::DeviceError {
        code: "collect.device_timeout".into(),
        message: "its second counter read did not finish within --device-timeout".into(),
    });
    let audit = check(&record, &policy("pfc: { priorities: [3] }\n"));
    let codes: Vec<&str> = audit.findings.iter().map(|f| f.code.as_str()).collect();
    assert!(codes.contains(&"collect.device_timeout") && codes.contains(&"nic.pfc_mismatch"), "{codes:?}");
    assert!(audit.summary.reachable);
}

/// Issue 37: a host with no RDMA device (a plain server audited with `--local`) gets one
/// finding that says so, with the evidence that shows it, not one per RDMA tool it lacks.
/// The outputs are this project's CI machine's, as `fabcheck audit --local` saved them.
#[test]
fn a_host_without_rdma_device_gets_one_finding_not_one_per_tool() {
    let failed = |key: &str, command: &str, status: u32, stderr: &str| Evidence {
        command: format!("timeout -k 2 30 {command}"),
        stdout: Vec::new(),
        stderr: stderr.into(),
        exit_status: Some(status),
        ..output(key, "", 0)
    };
    let missing = |key: &str, tool: &str, args: &str| {
        let stderr = format!("timeout: failed to run command \u{2018}{tool}\u{2019}: No such file or directory\n");
        failed(key, &format!("{tool}{args}"), 127, &stderr)
    };
    let glob = |key: &str, what: &str| {
        let pattern = format!("/sys/class/infiniband/*/ports/*/{what}");
        failed(key, &format!("grep -H '' {pattern}"), 2, &format!("grep: {pattern}: No such file or directory\n"))
    };
    let record = crate::evidence::testing::host_record(
        "vm",
        vec![
            missing("ibdev2netdev", "ibdev2netdev", " -v"),
            missing("ibstat", "ibstat", ""),
            missing("show_gids", "show_gids", ""),
            missing("sminfo", "sminfo", ""),
            missing("nvidia_smi_topo", "nvidia-smi", " topo -m"),
            failed("lsmod", "lsmod", 1, "Error: could not get list of modules: No such file or directory\n"),
            glob("port_rate", "rate"),
            glob("hw_counters.t0", "hw_counters/*"),
            glob("hw_counters.t1", "hw_counters/*"),
            output("ip_link", "[]", 0),
        ],
    );
    let audit = check(&record, &policy(crate::policy::DEFAULT_POLICY));
    let found: Vec<(&str, &[String])> =
        audit.findings.iter().map(|f| (f.code.as_str(), f.evidence.as_slice())).collect();
    assert_eq!(found, [("collect.no_rdma_ports", &["vm/port_rate.txt".to_string()][..])]);
    // A host whose RDMA tools are missing but which has a device keeps every finding.
    let mut with_device = record.clone();
    with_device.outputs.retain(|e| e.key != "port_rate");
    with_device.outputs.push(output("port_rate", "/sys/class/infiniband/mlx5_0/ports/1/rate:400 Gb/sec (4X NDR)\n", 0));
    let audit = check(&with_device, &policy(crate::policy::DEFAULT_POLICY));
    assert!(audit.findings.iter().filter(|f| f.code == "collect.tool_missing").count() >= 4);
}
