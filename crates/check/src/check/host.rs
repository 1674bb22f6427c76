//! Host checks outside the NIC: GPUDirect RDMA (the peer-memory module) and IRQ placement (no
//! core serving the completion interrupts of two RDMA NICs: each NIC's completions then wait for the other's, as NVIDIA's tuning guide warns).

use crate::policy::{IrqAffinity, Policy, Requirement};
use fabcheck_model::facts::RdmaPort;
use fabcheck_model::facts::{HostFacts, IrqFacts, evidence_file};
use fabcheck_model::{Finding, Severity};
use std::collections::{BTreeMap, BTreeSet};

/// Modules that give GPUDirect RDMA: the current one and its predecessor.
pub(crate) const PEERMEM_MODULES: [&str; 2] = ["nvidia_peermem", "nv_peer_mem"];

/// Runs the host checks the policy asks for.
pub fn check(device: &str, facts: &HostFacts, policy: &Policy) -> Vec<Finding> {
    let mut findings = Vec::new();
    let rules = policy.host.clone().unwrap_or_default();
    // GPUDirect RDMA moves GPU memory over RDMA ports: a host without any has nothing to move.
    if rules.gdr == Some(Requirement::Required)
        && !facts.ports.is_empty()
        && let Some(modules) = &facts.modules
        && !PEERMEM_MODULES.iter().any(|m| modules.has(m))
    {
        findings.push(
            Finding::new(
                "host.gdr_disabled",
                Severity::Error,
                device,
                "neither nvidia_peermem nor nv_peer_mem is loaded: GPUDirect RDMA is off and NCCL stages every transfer through host memory",
            )
            .expected_actual("nvidia_peermem loaded", "not loaded")
            .evidence(evidence_file(device, "lsmod")),
        );
    }
    if rules.irq_affinity == Some(IrqAffinity::Exclusive) {
        findings.extend(facts.irqs.as_ref().and_then(|irqs| irq_overlap(device, irqs, &facts.ports)));
    }
    findings
}

/// CPUs that serve the IRQs of more than one RDMA NIC.
fn irq_overlap(device: &str, facts: &IrqFacts, ports: &[RdmaPort]) -> Option<Finding> {
    let (irqs, affinity, mappings) = (&facts.interrupts, &facts.affinity, &facts.mappings);
    // PCI function → the name findings use for it (the audited port, else the HCA).
    let name_of = |pci: &str| {
        let hca = mappings.iter().find(|m| m.pci.as_deref() == Some(pci)).map(|m| m.hca.clone());
        match &hca {
            Some(h) => ports.iter().find(|p| &p.hca == h).map(|p| p.label()).or(hca),
            None => Some(pci.to_string()),
        }
    };
    let mut cpu_owners: BTreeMap<u32, BTreeSet<String>> = BTreeMap::new();
    for irq in irqs.irqs.iter().filter(|i| i.name.starts_with("mlx5_comp")) {
        let (Some(pci), Ok(number)) = (irq.name.split("@pci:").nth(1), irq.irq.parse::<u32>()) else {
            continue;
        };
        let Some(owner) = name_of(pci) else { continue };
        for cpu in affinity.irqs.get(&number).into_iter().flatten() {
            cpu_owners.entry(*cpu).or_default().insert(owner.clone());
        }
    }
    let shared: BTreeMap<u32, BTreeSet<String>> = cpu_owners.into_iter().filter(|(_, o)| o.len() > 1).collect();
    if shared.is_empty() {
        return None;
    }
    let nics: BTreeSet<&String> = shared.values().flatten().collect();
    let nics: Vec<&str> = nics.into_iter().map(String::as_str).collect();
    let cpus: Vec<String> = shared.keys().map(u32::to_string).collect();
    Some(
        Finding::new(
            "host.irq_affinity_overlap",
            Severity::Warning,
            device,
            format!(
                "CPU {} serve{} the completion IRQs of {}: one core handles two NICs' interrupts",
                cpus.join(","),
                if cpus.len() == 1 { "s" } else { "" },
                nics.join(" and ")
            ),
        )
        .port(nics.join("+"))
        .expected_actual("each CPU serves one RDMA NIC", format!("CPU {} shared", cpus.join(",")))
        .evidence(evidence_file(device, "interrupts"))
        .evidence(evidence_file(device, "irq_affinity")),
    )
}
