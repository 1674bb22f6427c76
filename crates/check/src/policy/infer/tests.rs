//! `infer` on fleets built from samples: the design a clear majority runs becomes the policy,
//! a split leaves its key out, and a majority that loses packets is a finding, never a key.

use super::sample::{DcqcnSample, DeviceSample, EcnSample, PortSample, SmallMap};
use super::*;

/// A host port of the SONiC design (DSCP 3 → 3, 4 → 4, the firmware's map elsewhere) with PFC
/// on `pfc`.
fn host_port(name: &str, pfc: &[u8]) -> PortSample {
    let mut dscp_map: SmallMap<u8> = (0..64u8).map(|d| (d, d >> 3)).collect();
    dscp_map.insert(3, 3);
    dscp_map.insert(4, 4);
    let on: SmallMap<bool> = (0..8).map(|p| (p, p == 3 || p == 4)).collect();
    PortSample {
        port: name.into(),
        pfc: Some(pfc.to_vec()),
        trust: Some("dscp"),
        dscp_map,
        mtu: Some(4200),
        speed_mbps: Some(400_000),
        dcqcn: Some(DcqcnSample { rp: on.clone(), np: on, cnp_dscp: Some(48), cnp_priority: Some(6) }),
        rocev2_gid: Some(true),
        ..PortSample::default()
    }
}

/// A SONiC switch port of its default design, with PFC on `pfc`.
fn switch_port(name: &str, pfc: &[u8]) -> PortSample {
    let dscp_map: SmallMap<u8> = (0..64u8)
        .map(|d| {
            (
                d,
                if d == 3 || d == 4 {
                    d
                } else if d == 48 {
                    6
                } else {
                    1
                },
            )
        })
        .collect();
    let ecn: SmallMap<EcnSample> = (0..8u8)
        .map(|tc| {
            let on = tc == 3 || tc == 4;
            (tc, EcnSample { enabled: on, min_kb: on.then_some(1024), max_kb: on.then_some(2048) })
        })
        .collect();
    PortSample {
        port: name.into(),
        pfc: Some(pfc.to_vec()),
        trust: Some("dscp"),
        dscp_map,
        ecn,
        strict: (0..8u8).map(|tc| (tc, false)).collect(),
        watchdog: Some(true),
        mtu: Some(9100),
        speed_mbps: Some(400_000),
        ..PortSample::default()
    }
}

fn fleet(host_pfc: &[&[u8]], switch_pfc: &[&[u8]]) -> Vec<DeviceSample> {
    let hosts = host_pfc.iter().enumerate().map(|(i, pfc)| DeviceSample {
        name: format!("gpu{i}"),
        ports: vec![host_port("mlx5_0", pfc)],
        gdr: Some(true),
        ..DeviceSample::default()
    });
    let switches = switch_pfc.iter().enumerate().map(|(i, pfc)| DeviceSample {
        name: format!("leaf{i}"),
        switch: true,
        ports: vec![switch_port("Ethernet0", pfc)],
        ..DeviceSample::default()
    });
    hosts.chain(switches).collect()
}

#[test]
fn sonics_default_design_is_inferred_with_its_two_classes_and_weighted_cnp_queue() {
    let good: &[u8] = &[3, 4];
    let inferred = infer(&fleet(&[good; 4], &[good; 4]), "inferred").unwrap();
    assert!(inferred.findings.is_empty(), "{:?}", inferred.findings);
    let p = &inferred.policy;
    assert_eq!(p.lossless_priorities(), Some(vec![3, 4]));
    assert_eq!(p.lossless_dscps(), [3, 4]);
    let cnp = p.cnp.as_ref().unwrap();
    assert_eq!((cnp.dscps(), cnp.priority, cnp.switch_tc()), (&[48][..], Some(6), Some(6)));
    assert_eq!(p.cnp_queue_strict(), None, "weighted, as SONiC's scheduler.0 is");
    let ecn = p.ecn.as_ref().unwrap();
    assert_eq!(
        (ecn.enabled, ecn.min_threshold_kb, ecn.max_threshold_kb),
        (Some(true), Some([972, 1076]), Some([1945, 2151]))
    );
    assert!(
        inferred.yaml.contains("# pfc.priorities: hosts: 3,4 (4 of 4 host ports); switches: 3,4 (4 of 4 switch ports)"),
        "{}",
        inferred.yaml
    );
}

#[test]
fn a_device_that_drifted_is_named_and_outvoted() {
    let (good, drifted): (&[u8], &[u8]) = (&[3, 4], &[3]);
    let inferred = infer(&fleet(&[good, good, good, drifted], &[good; 3]), "inferred").unwrap();
    assert_eq!(inferred.policy.lossless_priorities(), Some(vec![3, 4]));
    assert!(inferred.yaml.contains("hosts: 3,4 (3 of 4 host ports); not: gpu3:mlx5_0 (3)"), "{}", inferred.yaml);
}

#[test]
fn a_fleet_split_half_and_half_gets_no_key_and_says_so() {
    let (a, b): (&[u8], &[u8]) = (&[3, 4], &[3]);
    let inferred = infer(&fleet(&[a, a, b, b], &[]), "inferred").unwrap();
    assert_eq!(inferred.policy.lossless_priorities(), None);
    assert!(inferred.policy.pfc.as_ref().is_none_or(|p| p.priorities.is_none()));
    assert!(
        inferred.left_out.iter().any(|k| k.starts_with("pfc.priorities: no clear majority")),
        "{:?}",
        inferred.left_out
    );
    assert!(inferred.yaml.contains("no clear majority among 4 host ports: 3 (2), 3,4 (2)"), "{}", inferred.yaml);
    assert!(inferred.findings.is_empty());
}

#[test]
fn hosts_without_pfc_are_a_finding_not_a_lossy_policy() {
    let (none, good): (&[u8], &[u8]) = (&[], &[3, 4]);
    let inferred = infer(&fleet(&[none; 4], &[good; 2]), "inferred").unwrap();
    assert_eq!(inferred.findings.len(), 1);
    let f = &inferred.findings[0];
    assert_eq!((f.code.as_str(), f.severity), ("infer.lossy_design", Severity::Critical));
    assert!(f.message.contains("the hosts run RoCE with PFC on no priority"), "{}", f.message);
    assert_eq!(inferred.policy.lossless_priorities(), None);
    assert!(inferred.policy.lossless_classes().is_empty(), "no class without PFC");
}

#[test]
fn hosts_and_switches_lossless_on_different_priorities_is_a_finding() {
    let (a, b): (&[u8], &[u8]) = (&[3], &[3, 4]);
    let inferred = infer(&fleet(&[a; 3], &[b; 3]), "inferred").unwrap();
    assert!(inferred.findings[0].message.contains("hosts are lossless on priorities 3 and switches on 3,4"));
    assert_eq!(inferred.policy.lossless_priorities(), None);
}

#[test]
fn ecn_off_where_dcqcn_is_on_is_a_finding_and_leaves_dcqcn_out() {
    let good: &[u8] = &[3, 4];
    let mut samples = fleet(&[good; 3], &[good; 3]);
    for s in samples.iter_mut().filter(|s| s.switch) {
        for e in s.ports[0].ecn.values_mut() {
            *e = EcnSample::default();
        }
    }
    let inferred = infer(&samples, "inferred").unwrap();
    assert!(
        inferred.findings.iter().any(|f| f.message.contains("the NICs run DCQCN but the switches do not mark ECN"))
    );
    assert_eq!(inferred.policy.nic.as_ref().unwrap().dcqcn, None);
}

#[test]
fn cnps_in_a_lossless_class_are_a_finding() {
    let good: &[u8] = &[3, 4];
    let mut samples = fleet(&[good; 3], &[good; 3]);
    for s in samples.iter_mut().filter(|s| s.switch) {
        s.ports[0].dscp_map.insert(48, 3);
    }
    let inferred = infer(&samples, "inferred").unwrap();
    assert!(
        inferred.findings.iter().any(|f| f.message.contains("CNPs (DSCP 48) travel in a lossless class")),
        "{:?}",
        inferred.findings
    );
    assert!(inferred.policy.cnp.is_none());
}
