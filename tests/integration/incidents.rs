//! Incidents through the binary: each lab fault alone, on a fabric of hosts and switches, is one
//! incident whose root is that fault's own finding, and every finding belongs to exactly one.

use crate::util::start_fabric;
use serde_json::Value;

/// Audits a two-host fabric (one leaf, one spine) with `faults`; returns findings.json.
fn audited(faults: &[&str]) -> Value {
    let lab = start_fabric(2, 1, 1, faults);
    let run = crate::util::audit(&lab, &[]);
    assert_eq!(run.code, 1, "{faults:?}: {}{}", run.stdout, run.stderr);
    run.json()
}

/// The incidents a reader is shown (a warning or worse), as (id, code).
fn shown(json: &Value) -> Vec<(String, String)> {
    json["incidents"]
        .as_array()
        .map(|list| {
            list.iter()
                .filter(|i| i["severity"] != "info")
                .map(|i| (i["id"].as_str().unwrap().to_string(), i["code"].as_str().unwrap().to_string()))
                .collect()
        })
        .unwrap_or_default()
}

/// Every finding's id is in exactly one incident, as a root or a consequence.
fn each_finding_in_one_incident(json: &Value) {
    let mut members: Vec<&str> = Vec::new();
    for i in json["incidents"].as_array().unwrap() {
        for key in ["roots", "consequences"] {
            members.extend(i[key].as_array().unwrap().iter().map(|id| id.as_str().unwrap()));
        }
    }
    let mut ids: Vec<&str> = json["findings"].as_array().unwrap().iter().map(|f| f["id"].as_str().unwrap()).collect();
    ids.sort_unstable();
    members.sort_unstable();
    assert_eq!(members, ids, "each finding once, in one incident");
}

#[test]
fn each_fault_alone_is_one_incident_rooted_at_its_own_finding() {
    let cases = [
        ("gpu002=pfc-off", "nic.pfc_mismatch@gpu002:ens1np0"),
        ("gpu002=trust-pcp", "nic.trust_mismatch@gpu002:ens1np0"),
        ("gpu002=mtu", "nic.mtu_mismatch@gpu002:ens1np0"),
        ("gpu002=link-degraded", "nic.link_degraded@gpu002:ens1np0"),
        ("leaf1=pfc-off", "switch.pfc_mismatch@leaf1:"),
        ("leaf1=ecn-off", "switch.ecn_disabled@leaf1:"),
        ("leaf1=ecn-threshold", "switch.ecn_threshold@leaf1:"),
        ("leaf1=mtu-low", "switch.mtu_mismatch@leaf1:"),
        ("leaf1=cnp-queue", "switch.cnp_queue_not_strict@leaf1:"),
        // PFC off and the drops it lets happen on one port are one fault: the drops are
        // explained by it (loss on that hop), so they are its consequence, not a second incident.
        ("gpu002=pfc-off,gpu002=out-of-buffer", "nic.pfc_mismatch@gpu002:ens1np0"),
    ];
    for (faults, root) in cases {
        let faults: Vec<&str> = faults.split(',').collect();
        let json = audited(&faults);
        let incidents = shown(&json);
        assert_eq!(incidents.len(), 1, "{faults:?}: {incidents:#?}\n{:#}", json["findings"]);
        let (id, code) = &incidents[0];
        assert!(id.starts_with(root), "{faults:?}: the root is {id}, not {root}");
        for family in ["path.", "flow.", "nccl.", "counter."] {
            assert!(!code.starts_with(family), "{faults:?}: a consequence as root: {code}");
        }
        each_finding_in_one_incident(&json);
        // The lab's leaf1 is SONiC: its PFC and MTU fixes are its `config` commands.
        let incident = json["incidents"].as_array().unwrap().iter().find(|i| i["id"] == id.as_str()).unwrap();
        let first_command = incident["fixes"][0]["commands"][0].as_str().unwrap_or("");
        match faults[0] {
            "leaf1=pfc-off" => {
                assert!(first_command.starts_with("sudo config interface pfc priority Ethernet"), "{incident:#}")
            }
            "leaf1=mtu-low" => assert!(first_command.starts_with("sudo config interface mtu Ethernet"), "{incident:#}"),
            _ => {}
        }
    }
}

/// The fix printed under each host incident, applied to the lab host as an operator would (the
/// lab's hosts accept `mlnx_qos`, `ip link set`, the sysfs writes and `modprobe` as real hosts
/// do), leaves a host the next audit finds clean.
#[test]
fn each_printed_host_fix_applied_makes_the_next_audit_clean() {
    let faults = [
        "gpu002=pfc-off",
        "gpu002=trust-pcp",
        "gpu002=dscp-map",
        "gpu002=mtu",
        "gpu002=dcqcn-rp-off",
        "gpu002=dcqcn-np-off",
        "gpu002=cnp-dscp",
        "gpu002=peermem-missing",
    ];
    for fault in faults {
        let lab = crate::util::start_lab(2, &[fault]);
        let before = crate::util::audit(&lab, &[]);
        assert_ne!(before.code, 0, "{fault}: {}", before.stdout);
        let json = before.json();
        let incidents = json["incidents"].as_array().unwrap();
        assert_eq!(incidents.len(), 1, "{fault}: {incidents:#?}");
        let commands: Vec<String> = incidents[0]["fixes"]
            .as_array()
            .unwrap_or_else(|| panic!("{fault}: no fix: {:#}", incidents[0]))
            .iter()
            .flat_map(|fix| fix["commands"].as_array().unwrap().iter().map(|c| c.as_str().unwrap().to_string()))
            .collect();
        assert!(!commands.is_empty(), "{fault}: {:#}", incidents[0]);
        for command in &commands {
            assert!(before.stdout.contains(&format!("fix: {command}")), "{fault}: printed: {}", before.stdout);
            let (stdout, stderr, status) = lab.run_async(lab.lab.run_on("gpu002", command)).unwrap();
            assert_eq!(status, 0, "{fault}: `{command}`: {stdout}{stderr}");
        }
        let after = crate::util::audit(&lab, &[]);
        assert_eq!(after.keys(), Default::default(), "{fault}: after {commands:?}: {}", after.stdout);
        assert_eq!(after.code, 0, "{fault}");
    }
}
