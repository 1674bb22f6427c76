//! Host NIC checks (RoCE ports): trust mode, PFC priorities, DSCP → priority for RoCE and CNP,
//! MTU, link state and speed, and a RoCEv2 GID (whose index NCCL_IB_GID_INDEX must name).

use super::headroom;
use crate::policy::{Policy, Requirement};
use fabcheck_model::facts::{Dcqcn, NicFacts, evidence_file};
use fabcheck_model::host::mlnx_qos::MlnxQos;
use fabcheck_model::host::roce_ecn::RoceEcn;
use fabcheck_model::{Finding, Severity};

/// The evidence files a port's findings point at.
struct Files {
    qos: String,
    link: String,
    ethtool: String,
    ibstat: String,
    gids: String,
    ecn: String,
}

impl Files {
    fn of(device: &str, nic: &NicFacts) -> Files {
        let netdev = nic.port.netdev.as_deref().unwrap_or_default();
        Files {
            qos: evidence_file(device, &format!("mlnx_qos.{netdev}")),
            link: evidence_file(device, "ip_link"),
            ethtool: evidence_file(device, &format!("ethtool_link.{netdev}")),
            ibstat: evidence_file(device, "ibstat"),
            gids: evidence_file(device, "show_gids"),
            ecn: evidence_file(device, &format!("roce_ecn.{netdev}")),
        }
    }
}

/// Judges the facts against the policy.
pub fn check(device: &str, facts: &[NicFacts], policy: &Policy) -> Vec<Finding> {
    let mut findings = Vec::new();
    for nic in facts {
        let files = Files::of(device, nic);
        let mut emit = |code: &str, severity, expected: String, actual: String, message: String, file: &str| {
            findings.push(
                Finding::new(code, severity, device, message)
                    .port(nic.port.label())
                    .expected_actual(expected, actual)
                    .evidence(file),
            );
        };
        if let Some(qos) = &nic.qos {
            qos_checks(qos, policy, &files, &mut emit);
            buffer_checks(nic, qos, policy, &files, &mut emit);
        }
        link_checks(nic, policy, &files, &mut emit);
        if policy.nic.as_ref().and_then(|n| n.rocev2_gid) == Some(Requirement::Required)
            && nic.gids_read
            && nic.rocev2_gid_index.is_none()
        {
            emit(
                "nic.rocev2_gid_missing",
                Severity::Error,
                "a RoCEv2 GID with an IPv4 address".into(),
                "none (only link-local or RoCEv1 GIDs)".into(),
                format!("{} has no RoCEv2 IPv4 GID: NCCL cannot pick a routable NCCL_IB_GID_INDEX", nic.port.hca),
                &files.gids,
            );
        }
        if policy.nic.as_ref().and_then(|n| n.dcqcn) == Some(Requirement::Required)
            && let Dcqcn::Read(ecn) = &nic.dcqcn
        {
            dcqcn_checks(ecn, policy, &files, &mut emit);
        }
    }
    findings
}

/// DCQCN on the RoCE priority (PFC, ECN and DCQCN alike at every hop: Zhu et al.,
/// SIGCOMM 2015): a NIC whose
/// reaction point is off ignores CNPs and keeps sending at full rate; one whose notification
/// point is off never sends a CNP, so every ECN mark the switches set for it is lost and PFC does
/// all the work. Its CNPs must carry the class the switches give CNPs (the policy's `cnp`).
fn dcqcn_checks(ecn: &RoceEcn, policy: &Policy, files: &Files, emit: &mut Emit) {
    let classes = policy.lossless_classes();
    for prio in classes.iter().filter(|c| policy.class_ecn(c) != Some(false)).filter_map(|c| c.priority) {
        for (point, side, enabled) in [
            ("RP", "reaction point: the NIC does not slow down when CNPs come back", &ecn.rp_enabled),
            ("NP", "notification point: the NIC sends no CNP for ECN-marked packets", &ecn.np_enabled),
        ] {
            if enabled.get(&prio) == Some(&false) {
                emit(
                    "nic.dcqcn_disabled",
                    Severity::Error,
                    format!("DCQCN {point} on for priority {prio}"),
                    format!("{point} off for priority {prio}"),
                    format!("DCQCN {side} (priority {prio}); congestion is left to PFC pauses"),
                    &files.ecn,
                );
            }
        }
    }
    let cnp = policy.cnp.as_ref();
    for (what, want, have) in [
        ("DSCP", cnp.and_then(|c| c.dscps().first()).map(|d| i64::from(*d)), ecn.cnp_dscp()),
        ("802.1p priority", cnp.and_then(|c| c.priority).map(i64::from), ecn.cnp_802p_prio()),
    ] {
        if let (Some(want), Some(have)) = (want, have)
            && want != have
        {
            emit(
                "nic.cnp_mismatch",
                Severity::Error,
                format!("CNP {what} {want}"),
                format!("CNP {what} {have}"),
                format!(
                    "the NIC marks its CNPs {what} {have}, not the policy's {want}: switches queue them with other traffic and they arrive late"
                ),
                &files.ecn,
            );
        }
    }
}

type Emit<'a> = dyn FnMut(&str, Severity, String, String, String, &str) + 'a;

fn qos_checks(qos: &MlnxQos, policy: &Policy, files: &Files, emit: &mut Emit) {
    let file = &files.qos;
    if let Some(want) = policy.nic.as_ref().and_then(|n| n.trust) {
        let have = qos.trust.as_deref().unwrap_or("unknown");
        if have != want.as_str() {
            emit(
                "nic.trust_mismatch",
                Severity::Critical,
                want.as_str().into(),
                have.into(),
                format!("NIC trusts {have}, so RoCEv2 packets are classified by {have} and miss the lossless priority"),
                file,
            );
        }
    }
    if let Some(want) = policy.lossless_priorities()
        && qos.pfc_enabled != want
    {
        emit(
            "nic.pfc_mismatch",
            Severity::Critical,
            format!("PFC on priorities {}", list(&want)),
            format!("PFC on priorities {}", list(&qos.pfc_enabled)),
            "PFC is not enabled on exactly the policy's lossless priorities: RoCE traffic is dropped under congestion"
                .into(),
            file,
        );
    }
    // With trust pcp the DSCP table is not printed and not used: the trust finding says it all.
    if qos.trust.as_deref() != Some("dscp") {
        return;
    }
    let lossless = policy.lossless_classes().into_iter().map(|c| (c.label(), c));
    for (what, class) in lossless.chain(policy.cnp.iter().map(|c| ("CNP", c))) {
        let Some(prio) = class.priority else { continue };
        for &dscp in class.dscps() {
            let have = qos.dscp_to_priority.get(&dscp).copied();
            if have != Some(prio) {
                let have = have.map_or("unmapped".to_string(), |p| format!("priority {p}"));
                emit(
                    "nic.dscp_map_mismatch",
                    Severity::Critical,
                    format!("DSCP {dscp} → priority {prio}"),
                    format!("DSCP {dscp} → {have}"),
                    format!("{what} traffic (DSCP {dscp}) is mapped to {have}, not the policy's priority {prio}"),
                    file,
                );
            }
        }
    }
}

/// Each lossless priority's receive buffer (mlnx_qos `buffer` row and `Receive buffer size`)
/// against the headroom its link needs.
fn buffer_checks(nic: &NicFacts, qos: &MlnxQos, policy: &Policy, files: &Files, emit: &mut Emit) {
    let (Some(prio_buffer), Some(sizes)) = (&qos.pfc_buffer, &qos.receive_buffer) else { return };
    let Some(speed) = nic.ethtool.as_ref().and_then(|e| e.speed_mbps) else { return };
    let Some(mtu) = nic.link.as_ref().map(|l| l.mtu) else { return };
    let cable = headroom::policy_cable_m(policy);
    let needed = headroom::lossless_buffer_needed(speed, cable, mtu);
    for &prio in &qos.pfc_enabled {
        let Some(&buffer) = prio_buffer.get(usize::from(prio)) else { continue };
        let Some(&size) = sizes.get(usize::from(buffer)) else { continue };
        if size < needed {
            emit(
                "nic.pfc_buffer_insufficient",
                Severity::Error,
                format!("≥ {needed} bytes"),
                format!("{size} bytes"),
                format!(
                    "lossless priority {prio} sits on receive buffer {buffer} of {size} bytes, less than the {needed} bytes a {} Gb/s link of {cable} m with MTU {mtu} needs: frames in flight after a pause are dropped",
                    speed / 1000
                ),
                &files.qos,
            );
        }
    }
}

fn link_checks(nic: &NicFacts, policy: &Policy, files: &Files, emit: &mut Emit) {
    let down_by_ibstat = nic.ibstat.as_ref().is_some_and(|p| p.state != "Active");
    let down_by_ip = nic.link.as_ref().is_some_and(|l| l.operstate == "DOWN");
    let down_by_ethtool = nic.ethtool.as_ref().and_then(|e| e.link_detected) == Some(false);
    if down_by_ibstat || down_by_ip || down_by_ethtool {
        let state = match &nic.ibstat {
            Some(p) => format!("{} / {}", p.state, p.physical_state),
            None => "link not detected".into(),
        };
        // Why, when the driver tells ethtool (`Link detected: no (No cable)`): a missing cable
        // and a peer that does not answer are different errands.
        let actual = match nic.ethtool.as_ref().and_then(|e| e.link_down_reason.as_deref()) {
            Some(reason) => format!("{state} ({reason})"),
            None => state,
        };
        let file = if nic.ibstat.is_some() { &files.ibstat } else { &files.ethtool };
        emit(
            "nic.link_down",
            Severity::Critical,
            "Active / LinkUp".into(),
            actual,
            format!("{} is down", nic.port.label()),
            file,
        );
        return; // Speed and MTU of a down link say nothing more.
    }
    if let Some(min) = policy.nic.as_ref().and_then(|n| n.min_speed_gbps) {
        let (speed, file) = match nic.ethtool.as_ref().and_then(|e| e.speed_mbps) {
            Some(mbps) => (Some(mbps as f64 / 1000.0), &files.ethtool),
            None => (nic.ibstat.as_ref().and_then(|p| p.rate_gbps), &files.ibstat),
        };
        if let Some(gbps) = speed.filter(|g| *g < f64::from(min)) {
            emit(
                "nic.link_degraded",
                Severity::Error,
                format!("≥ {min} Gb/s"),
                format!("{gbps} Gb/s"),
                format!(
                    "{} runs at {gbps} Gb/s, below the policy's {min} Gb/s (a bad cable or optic trains down)",
                    nic.port.label()
                ),
                file,
            );
        }
    }
    if let (Some(want), Some(link)) = (policy.nic.as_ref().and_then(|n| n.mtu), &nic.link)
        && link.mtu < want
    {
        emit(
            "nic.mtu_mismatch",
            Severity::Error,
            format!("MTU ≥ {want}"),
            format!("MTU {}", link.mtu),
            format!("{} has MTU {}: RDMA frames of the policy's size do not fit", link.ifname, link.mtu),
            &files.link,
        );
    }
}

fn list(p: &[u8]) -> String {
    if p.is_empty() {
        return "none".into();
    }
    p.iter().map(u8::to_string).collect::<Vec<_>>().join(",")
}
