//! Checks: a device's evidence and the policy in, findings out. Pure: no I/O, no clock.
//!
//! Each check family has its own file and finding-code prefix (the JUnit test suites):
//! `nic` (host NIC QoS, MTU, link, GID), `host` (GPUDirect, IRQ placement), `ib` (InfiniBand
//! ports and subnet manager), `counter` (deltas over the window), and `ssh`/`collect` for devices
//! and commands that could not be read.

mod counters;
mod host;
mod ib;
mod nic;
mod outputs;

use crate::collect::{RdmaPort, discover_ports};
use crate::evidence::DeviceRecord;
use crate::policy::Policy;
use fabcheck_model::{CounterSample, DeviceSummary, Finding, Severity};
use outputs::Outputs;

/// Check families, in report order.
pub const CHECKS: &[&str] = &["ssh", "collect", "nic", "host", "ib", "counter"];

/// What the checks made of one device.
pub struct DeviceAudit {
    /// Findings.
    pub findings: Vec<Finding>,
    /// The row of the per-device table.
    pub summary: DeviceSummary,
    /// Counter values and deltas.
    pub counters: Vec<CounterSample>,
}

impl DeviceAudit {
    /// A device that could not be checked: one finding says why.
    pub fn failed(record: &DeviceRecord, finding: Finding) -> DeviceAudit {
        finish(summary_of(record), vec![finding], Vec::new())
    }
}

fn summary_of(record: &DeviceRecord) -> DeviceSummary {
    DeviceSummary {
        name: record.name.clone(),
        role: record.role.clone(),
        address: record.address.clone(),
        reachable: record.error.is_none(),
        nics: Vec::new(),
        worst: None,
        findings: 0,
        commands: record.outputs.len(),
        parse_issues: 0,
    }
}

/// Runs every check on one device.
pub fn check_device(record: &DeviceRecord, policy: &Policy) -> DeviceAudit {
    let mut summary = summary_of(record);
    if let Some(err) = &record.error {
        let f = Finding::new(
            &err.code,
            Severity::Error,
            &record.name,
            err.message.clone(),
        )
        .expected_actual(
            "reachable over ssh",
            err.code.trim_start_matches("ssh.").replace('_', " "),
        );
        return finish(summary, vec![f], Vec::new());
    }
    let mut out = Outputs::new(record);
    let ports = discover_ports(record, &record.nics);
    let listed = record
        .output("ibdev2netdev")
        .is_some_and(|e| e.exit_status == Some(0));
    if ports.is_empty() && listed {
        let f = Finding::new(
            "collect.no_rdma_ports",
            Severity::Error,
            &record.name,
            "no RDMA port found: ibdev2netdev lists none and the inventory names none",
        )
        .expected_actual("at least one RDMA NIC", "none")
        .evidence(out.file("ibdev2netdev"));
        out.findings.push(f);
    }
    let mut findings = Vec::new();
    let nic_facts = nic::facts(&mut out, &ports);
    findings.extend(nic::check(&record.name, &nic_facts, policy));
    findings.extend(ib::check(&mut out, &ports, policy));
    findings.extend(host::check(&mut out, &ports, policy));
    let (counter_findings, samples) = counters::check(&mut out, &ports, policy);
    findings.extend(counter_findings);
    summary.nics = ports.iter().map(|p| describe(p, &nic_facts)).collect();
    summary.parse_issues = out.parse_issues;
    findings.extend(out.findings);
    finish(summary, findings, samples)
}

fn describe(port: &RdmaPort, facts: &[nic::NicFacts]) -> String {
    let gid = facts
        .iter()
        .find(|f| f.port.hca == port.hca)
        .and_then(|f| f.rocev2_gid_index);
    match (port.infiniband, gid) {
        (true, _) => format!("{} (InfiniBand)", port.label()),
        (false, Some(index)) => {
            format!("{} ({}, RoCEv2 GID index {index})", port.label(), port.hca)
        }
        (false, None) => format!("{} ({})", port.label(), port.hca),
    }
}

fn finish(
    mut summary: DeviceSummary,
    mut findings: Vec<Finding>,
    counters: Vec<CounterSample>,
) -> DeviceAudit {
    findings.dedup();
    summary.findings = findings.len();
    summary.worst = findings.iter().map(|f| f.severity).max();
    DeviceAudit {
        findings,
        summary,
        counters,
    }
}
