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
