//! InfiniBand port checks: state, rate and width against the policy, and a subnet manager seen
//! from every port (SM LID in ibstat, and `sminfo` answering).

use crate::policy::{Policy, Requirement};
use fabcheck_model::facts::{HostFacts, SmAnswer, evidence_file};
use fabcheck_model::{Finding, Severity};

/// Runs the InfiniBand checks on the host's IB ports.
pub fn check(device: &str, facts: &HostFacts, policy: &Policy) -> Vec<Finding> {
    if facts.ib_ports.is_empty() {
        return Vec::new();
    }
    let rules = policy.infiniband.clone().unwrap_or_default();
    let file = |key: &str| evidence_file(device, key);
    let mut findings = Vec::new();
    let mut sm_seen = false;
    let mut any_active = false;
    // A port with its link up but stuck in Initializing is waiting for a subnet manager to
    // configure it: that is the SM's absence, not a port fault.
    let mut waiting_for_sm = false;
    for ib in &facts.ib_ports {
        let Some(state) = &ib.ibstat else {
            continue;
        };
        let label = ib.port.label();
        let f = |code: &str, sev, msg: String| Finding::new(code, sev, device, msg).port(label.clone());
        if state.state == "Initializing" && state.physical_state == "LinkUp" {
            waiting_for_sm = true;
            continue;
        }
        if state.state != "Active" {
            findings.push(
                f("ib.port_down", Severity::Critical, format!("{label} is {} / {}", state.state, state.physical_state))
                    .expected_actual("Active / LinkUp", format!("{} / {}", state.state, state.physical_state))
                    .evidence(file("ibstat")),
            );
            continue;
        }
        any_active = true;
        sm_seen |= state.sm_lid.is_some_and(|lid| lid != 0);
        let sysfs = ib.rate.as_ref();
        let rate = sysfs.map(|r| r.rate_gbps).or(state.rate_gbps);
        if let (Some(want), Some(have)) = (rules.rate_gbps, rate)
            && have < want
        {
            findings.push(
                f("ib.link_degraded", Severity::Error, format!("{label} runs at {have} Gb/s instead of {want} Gb/s"))
                    .expected_actual(format!("{want} Gb/s"), format!("{have} Gb/s"))
                    .evidence(file("port_rate")),
            );
            continue;
        }
        if let (Some(want), Some(have)) = (&rules.width, sysfs.and_then(|r| r.width.as_ref()))
            && !want.eq_ignore_ascii_case(have)
        {
            findings.push(
                f("ib.link_degraded", Severity::Error, format!("{label} trained at width {have} instead of {want}"))
                    .expected_actual(want.clone(), have.clone())
                    .evidence(file("port_rate")),
            );
        }
    }
    // A down port sees no SM either way: judge the SM only from ports whose link is up.
    if rules.subnet_manager == Some(Requirement::Required) && (any_active || waiting_for_sm) {
        let sm_answers = match facts.sm {
            SmAnswer::Lid(lid) => Some(lid != 0),
            SmAnswer::NoAnswer => Some(false),
            SmAnswer::Unknown => None,
        };
        if waiting_for_sm || !sm_seen || sm_answers == Some(false) {
            findings.push(
                Finding::new(
                    "ib.sm_missing",
                    Severity::Critical,
                    device,
                    "no subnet manager answers on the InfiniBand fabric: LIDs and routes cannot be assigned or repaired",
                )
                .expected_actual("a master SM (sminfo answers, SM lid ≠ 0)", "no SM")
                .evidence(file("sminfo"))
                .evidence(file("ibstat")),
            );
        } else if let Some(records) = facts.sm_records.as_ref().filter(|r| r.count(3) > 0 && r.count(2) == 0) {
            // A master alone: when it fails, nothing assigns LIDs or reroutes around a failed link.
            findings.push(
                Finding::new(
                    "ib.sm_no_standby",
                    Severity::Warning,
                    device,
                    format!(
                        "the subnet administrator knows {} SM{} and no standby: if the master fails, no SM takes over",
                        records.records.len(),
                        if records.records.len() == 1 { "" } else { "s" }
                    ),
                )
                .expected_actual("a master and at least one standby SM", "no standby")
                .evidence(file("saquery_sm")),
            );
        }
    }
    findings
}
