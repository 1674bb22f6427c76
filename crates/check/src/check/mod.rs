//! Checks: a device's evidence and the policy in, findings out. Pure: no I/O, no clock.
//!
//! Each check family has its own file and finding-code prefix (the JUnit test suites):
//! `nic` (host NIC QoS, MTU, link, GID), `host` (GPUDirect, IRQ placement), `ib` (InfiniBand
//! ports and subnet manager), `counter` (deltas over the window), `switch` and `path` (each hop
//! of the fabric, once every device is in: `fabric`), and `ssh`/`collect` for devices and
//! commands that could not be read.

mod counters;
pub mod fabric;
pub mod fixes;
pub mod fleet;
pub mod flows;
mod headroom;
pub mod host;
pub mod host_lldp;
mod ib;
pub mod ib_fabric;
mod multirail;
mod nic;
pub mod switch;

use crate::policy::Policy;
use fabcheck_model::facts::{DeviceFacts, DeviceKind, HostFacts, NicFacts};
use fabcheck_model::{CounterSample, DeviceSummary, Finding, Severity};

/// Check families, in report order.
pub const CHECKS: &[&str] = &["ssh", "collect", "nic", "host", "ib", "counter", "switch", "path"];

/// What the checks made of one device.
pub struct DeviceAudit {
    /// Findings.
    pub findings: Vec<Finding>,
    /// The row of the per-device table.
    pub summary: DeviceSummary,
    /// Counter values and deltas.
    pub counters: Vec<CounterSample>,
    /// What the fabric checks need from this device (its LLDP, NICs or switch ports).
    pub fabric: Option<fabric::FabricFacts>,
    /// Its RoCE ports' RoCEv2 GID indexes and its adapters' firmware, for the checks across hosts.
    pub fleet: Option<fleet::HostFleet>,
    /// Its RoCE ports' addresses (the connected routes' sources) and the GPUs next to each, for
    /// placing flows on ports and GPUs.
    pub addresses: Vec<PortAddress>,
    /// The flows its ports' captures hold (`--capture`), or a collector's records.
    pub flows: Vec<fabcheck_model::flow_record::FlowRecord>,
    /// Its configuration values, for comparison with other runs; `None`: not read.
    pub config: Option<fabcheck_model::config::StoredConfig>,
    /// Its design settings, for telling a fabric built to another design from a broken one.
    pub design: Option<crate::policy::infer::sample::DeviceSample>,
}

impl DeviceAudit {
    /// A device that could not be checked: one finding says why.
    pub fn failed(facts: &DeviceFacts, finding: Finding) -> DeviceAudit {
        finish(summary_of(facts), vec![finding], Vec::new())
    }
}

fn summary_of(facts: &DeviceFacts) -> DeviceSummary {
    DeviceSummary {
        name: facts.name.clone(),
        role: facts.role.clone(),
        address: facts.address.clone(),
        reachable: !matches!(facts.kind, DeviceKind::Unreachable { .. }),
        nics: Vec::new(),
        worst: None,
        findings: 0,
        gpus: None,
        commands: facts.commands,
        parse_issues: facts.unread.len(),
        unread: facts.unread.clone(),
    }
}

/// Runs every check on one device's facts.
pub fn check_device(facts: &DeviceFacts, policy: &Policy) -> DeviceAudit {
    let mut summary = summary_of(facts);
    let mut findings = Vec::new();
    let samples;
    let fabric;
    let mut fleet = None;
    let mut addresses = Vec::new();
    let mut flows = Vec::new();
    match &facts.kind {
        DeviceKind::Unreachable { code, message } => {
            let f = Finding::new(code, Severity::Error, &facts.name, message.clone());
            let f = match code.strip_prefix("ssh.") {
                Some(what) => f.expected_actual("reachable over ssh", what.replace('_', " ")),
                // fabcheck's own want of file descriptors: nothing is known of the device.
                None if code == fabcheck_model::facts::unreachable::FD_LIMIT => {
                    f.expected_actual("connected", "not tried: this machine's open-file limit")
                }
                // A node the merge expected a snapshot from (`--expect-nodes`) gave none.
                None if code == fabcheck_model::facts::unreachable::SNAPSHOT_MISSING => {
                    f.expected_actual("a snapshot of the node", "none")
                }
                // A snapshot's device whose files cannot be read: nothing about it is known.
                None => f.expected_actual("its evidence readable", "not readable").evidence(format!("{}/", facts.name)),
            };
            return finish(summary, vec![f], Vec::new());
        }
        DeviceKind::Collector(records) => {
            flows.clone_from(records);
            samples = Vec::new();
            fabric = None;
        }
        DeviceKind::Unsupported => {
            let f = Finding::new(
                "collect.unsupported_platform",
                Severity::Error,
                &facts.name,
                format!("no checks for platform `{}`", facts.platform),
            );
            return finish(summary, vec![f], Vec::new());
        }
        DeviceKind::Host(host) => {
            if let Some(file) = &host.no_rdma_device {
                let f = Finding::new(
                    "collect.no_rdma_ports",
                    Severity::Error,
                    &facts.name,
                    "this host has no RDMA device: /sys/class/infiniband holds none, so nothing of the lossless network can be audited on it (the RDMA tools' absence is not reported on their own)",
                )
                .expected_actual("at least one RDMA device", "none in /sys/class/infiniband")
                .evidence(file.clone());
                findings.push(f);
            } else if host.ports.is_empty() && host.rdma_listed {
                let f = Finding::new(
                    "collect.no_rdma_ports",
                    Severity::Error,
                    &facts.name,
                    "no RDMA port found: ibdev2netdev lists none and the inventory names none",
                )
                .expected_actual("at least one RDMA NIC", "none")
                .evidence(facts.evidence("ibdev2netdev"));
                findings.push(f);
            }
            findings.extend(nic::check(&facts.name, &host.nics, policy));
            findings.extend(ib::check(&facts.name, host, policy));
            findings.extend(host::check(&facts.name, host, policy));
            findings.extend(multirail::check(&facts.name, host));
            fixes::attach(&mut findings, policy);
            let (counter_findings, s) = counters::check(&facts.name, host, policy);
            findings.extend(counter_findings);
            samples = s;
            summary.nics = host.ports.iter().map(|p| describe(p, &host.nics)).collect();
            summary.gpus = host.gpu_topo.as_ref().map(|t| t.gpus().len());
            fabric = host_fabric(facts, host, &findings).map(fabric::FabricFacts::Host);
            addresses = roce_addresses(host);
            flows.clone_from(&host.flows);
            fleet = Some(fleet::HostFleet {
                host: facts.name.clone(),
                gids: host.nics.iter().filter_map(|n| Some((n.port.label(), n.rocev2_gid_index?))).collect(),
                adapters: host.adapters.clone(),
            });
        }
        DeviceKind::Switch(switch) => {
            let (counter_findings, s) = switch::counters(&facts.name, switch, policy);
            findings.extend(counter_findings);
            findings.extend(switch::big_red_switch::check(&facts.name, &switch.qos));
            // The port findings get theirs in the fabric checks (`fabric.rs`); these are the
            // switch's own: the BIG_RED_SWITCH, and lossless priorities that drop unpaused.
            fixes::attach_switch(&mut findings, switch, policy);
            samples = s;
            summary.nics = vec![format!("{} ports, {} LLDP neighbours", switch.qos.ports.len(), switch.lldp.len())];
            fabric = Some(fabric::FabricFacts::Switch(Box::new(switch.as_ref().clone())));
        }
    }
    findings.extend(facts.reading.iter().cloned());
    let mut audit = finish(summary, findings, samples);
    audit.fabric = fabric;
    audit.fleet = fleet;
    audit.addresses = addresses;
    audit.flows = flows;
    audit.config = fabcheck_model::facts::config::stored(facts);
    audit.design = crate::policy::infer::sample::DeviceSample::of(facts);
    audit
}

/// One address of a host's RoCE port, and the GPUs that use the port.
#[derive(Debug, Clone, PartialEq)]
pub struct PortAddress {
    pub ip: std::net::IpAddr,
    /// The port's label (its netdev).
    pub port: String,
    /// The GPUs next to the port's HCA in `nvidia-smi topo -m` (PIX or PXB: the GPUs NCCL
    /// pairs with it); empty when the topology was not read or shows none.
    pub gpus: Vec<u32>,
}

/// Each RoCE port's addresses: the source of the kernel's connected route on its netdev.
fn roce_addresses(host: &HostFacts) -> Vec<PortAddress> {
    let Some(routes) = &host.routes else { return Vec::new() };
    host.nics
        .iter()
        .filter_map(|n| Some((n.port.netdev.as_deref()?, n)))
        .flat_map(|(netdev, nic)| {
            let gpus = host.gpu_topo.as_ref().map(|t| t.gpus_near(&nic.port.hca)).unwrap_or_default();
            routes
                .iter()
                .filter(move |r| r.protocol == "kernel" && r.table == "main" && r.dev.as_deref() == Some(netdev))
                .filter_map(|r| r.prefsrc.as_deref()?.parse().ok())
                .map(move |ip| PortAddress { ip, port: nic.port.label(), gpus: gpus.clone() })
        })
        .collect()
}

/// A host's side of the fabric: when its LLDP (switches are audited too) or the InfiniBand
/// fabric's links (`fabcheck_iblinkinfo`) were read.
fn host_fabric(facts: &DeviceFacts, host: &HostFacts, findings: &[Finding]) -> Option<fabric::HostFabric> {
    // A host whose own LLDP was not read still takes part: the switches' LLDP may place it.
    if host.lldp.is_none() && host.iblinkinfo.is_none() && host.nics.is_empty() {
        return None;
    }
    let nics = host
        .nics
        .iter()
        .filter_map(|n| {
            let netdev = n.port.netdev.clone()?;
            let failing = findings
                .iter()
                .filter(|f| f.code.starts_with("nic.") && f.port.as_deref() == Some(netdev.as_str()))
                .map(|f| (f.severity, f.message.clone()))
                .collect();
            Some(fabric::HostNic {
                pfc: n.qos.as_ref().map(|q| q.pfc_enabled.clone()),
                trust: n.qos.as_ref().and_then(|q| q.trust.clone()),
                mtu: n.link.as_ref().map(|l| l.mtu),
                mac: n.link.as_ref().and_then(|l| l.address.clone()),
                failing,
                netdev,
            })
        })
        .collect();
    Some(fabric::HostFabric {
        lldp: host.lldp.clone(),
        lldp_file: facts.evidence("lldp"),
        nics,
        iblinkinfo: host.iblinkinfo.clone().map(|v| (v, facts.evidence("iblinkinfo"))),
    })
}

fn describe(port: &fabcheck_model::facts::RdmaPort, facts: &[NicFacts]) -> String {
    let nic = facts.iter().find(|f| f.port.hca == port.hca);
    if port.infiniband {
        return format!("{} (InfiniBand)", port.label());
    }
    let mut about = vec![port.hca.clone()];
    if let Some(index) = nic.and_then(|f| f.rocev2_gid_index) {
        about.push(format!("RoCEv2 GID index {index}"));
    }
    // Not a fault: the driver (inbox mlx5, a VF) keeps DCQCN in firmware and shows none of it.
    if nic.is_some_and(|f| f.dcqcn == fabcheck_model::facts::Dcqcn::NotExposed) {
        about.push("DCQCN state not exposed by the driver".into());
    }
    format!("{} ({})", port.label(), about.join(", "))
}

fn finish(mut summary: DeviceSummary, mut findings: Vec<Finding>, counters: Vec<CounterSample>) -> DeviceAudit {
    findings.dedup();
    summary.findings = findings.len();
    summary.worst = findings.iter().map(|f| f.severity).max();
    DeviceAudit {
        findings,
        summary,
        counters,
        fabric: None,
        fleet: None,
        addresses: Vec::new(),
        flows: Vec::new(),
        config: None,
        design: None,
    }
}
