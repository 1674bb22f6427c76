//! Real-world variations of hosts through the binary on the lab (issue 37): hosts whose own LLDP
//! view cannot be read though the switches place them, a host whose `timeout` is BusyBox's
//! before 1.30, and a plain server with no RDMA device.

use crate::util::{audit, start_fabric, start_lab};

/// lldpd advertises (the switches see every host) but the audit cannot run `lldpctl`: each
/// host's unread view is said at info, naming the links the switches give it, and the audit
/// is clean.
#[test]
fn hosts_without_lldpctl_that_the_switches_place_are_clean() {
    let faults: Vec<String> = (1..=4).map(|i| format!("gpu{i:03}=lldpctl-missing")).collect();
    let faults: Vec<&str> = faults.iter().map(String::as_str).collect();
    let lab = start_fabric(4, 2, 2, &faults);
    let run = audit(&lab, &["--fail-on", "warning"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let unread: Vec<_> = run.findings().into_iter().filter(|f| f.code == "collect.tool_missing").collect();
    assert_eq!(unread.len(), 4, "{unread:#?}");
    for f in &unread {
        assert_eq!(f.severity, fabcheck_model::Severity::Info, "{f:?}");
        assert!(f.message.contains("not needed here: the switches' LLDP places this host ("), "{}", f.message);
    }
}

/// A host whose `timeout` refuses `-k` (BusyBox 1.29): after its first command it is sent the
/// `-t` form, and nothing fails for it.
#[test]
fn a_host_with_an_old_busybox_timeout_is_audited_in_its_form() {
    let lab = start_lab(2, &["gpu002=old-busybox-timeout"]);
    let run = audit(&lab, &[]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let commands = |host: &str| -> Vec<String> {
        let text = std::fs::read_to_string(run.out.join("evidence").join(host).join("commands.json")).unwrap();
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        json.as_array().unwrap().iter().map(|c| c["command"].as_str().unwrap().to_string()).collect()
    };
    let old = commands("gpu002");
    assert!(old.iter().any(|c| c.starts_with("timeout -t ")), "{old:#?}");
    assert!(old.iter().all(|c| !c.starts_with("timeout -k ")), "{old:#?}");
    assert!(commands("gpu001").iter().all(|c| c.starts_with("timeout -k ")));
}

/// A plain server among GPU hosts: one finding says it has no RDMA device, with the sysfs read
/// that shows it; nothing per RDMA tool it lacks.
#[test]
fn a_host_without_rdma_device_gets_one_finding() {
    let lab = start_lab(2, &["gpu002=no-rdma"]);
    let run = audit(&lab, &[]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let on_it: Vec<_> = run.findings().into_iter().filter(|f| f.device == "gpu002").collect();
    let codes: Vec<&str> = on_it.iter().map(|f| f.code.as_str()).collect();
    assert_eq!(codes, ["collect.no_rdma_ports"], "{on_it:#?}");
    assert_eq!(on_it[0].evidence, ["gpu002/port_rate.txt"]);
    assert!(run.findings().iter().all(|f| f.device == "gpu002"), "gpu001 is healthy: {}", run.stdout);
}

/// Older NCCL logs through `bench judge`, on real published ones: a 2.4.7 RoCE run whose socket
/// bootstrap list comes before `NET/IB : Using` is no socket run, and NCCL on the loopback
/// interface (NVIDIA/nccl#1053) is said as such.
#[test]
fn old_nccl_logs_are_judged_by_their_transport_not_their_bootstrap() {
    let fixture = |name: &str| {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/parse/tests/fixtures/nccl_tests").join(name)
    };
    let dir = tempfile::tempdir().unwrap();
    let judge = |log: &str| {
        let out = dir.path().join(log);
        let run =
            crate::util::fabcheck(&["bench", "judge", fixture(log).to_str().unwrap(), "--out", out.to_str().unwrap()]);
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("findings.json")).unwrap()).unwrap();
        let codes: Vec<String> =
            json["findings"].as_array().unwrap().iter().map(|f| f["code"].as_str().unwrap().to_string()).collect();
        (run.code, codes)
    };
    let (code, codes) = judge("issue-horovod-1523-nccl2.4.7-socket-list-before-net-ib-no-using-network-PARTIAL.log");
    assert_eq!((code, codes), (0, Vec::<String>::new()));
    let (code, codes) = judge("issue-nccl-1053-socket-ifname-lo-127.0.0.1-ib-disabled-PARTIAL.log");
    assert_eq!(code, 1);
    assert!(codes.contains(&"nccl.socket_loopback".to_string()), "{codes:?}");
}
