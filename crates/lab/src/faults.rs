//! Faults injected into lab hosts by name, each the state a real misconfiguration leaves behind.

use crate::state::{Counter, LabHost, LinkLayer, Trust};
use std::fmt;
use std::str::FromStr;

/// A fault a lab host can have. `Display`/`FromStr` use the names of the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FaultKind {
    /// PFC disabled on the RoCE priority (3) of a NIC.
    PfcOff,
    /// NIC trusts PCP instead of DSCP: routed RoCEv2 traffic lands on priority 0.
    TrustPcp,
    /// DSCP 26 mapped to priority 0 instead of 3.
    DscpMap,
    /// Netdev MTU 1500 instead of 4200.
    Mtu,
    /// Link trained at half its rate (a bad cable or optic).
    LinkDegraded,
    /// Port down.
    LinkDown,
    /// No RoCEv2 GID on the port (no IPv4 address on the netdev).
    GidMissing,
    /// nvidia_peermem not loaded: no GPUDirect RDMA.
    PeermemMissing,
    /// The second NIC's IRQs moved onto the first NIC's cores (seeds/002's case).
    IrqOverlap,
    /// out_of_buffer growing under load: the lossless chain is broken somewhere.
    OutOfBuffer,
    /// packet_seq_err growing: packets lost and retransmitted.
    SeqErr,
    /// No subnet manager on the IB fabric.
    SmMissing,
    /// mlnx_qos not installed.
    ToolMissing,
    /// Transport: nothing listens on the host's SSH port.
    Refuse,
    /// Transport: TCP accepted, no SSH banner ever sent.
    BannerHang,
    /// Transport: public-key authentication denied.
    AuthDenied,
    /// Transport: the host presents a key other than the one in known_hosts.
    HostKeyChanged,
    /// Transport: every command hangs.
    CommandHang,
    /// libibverbs not installed: NCCL falls back to TCP sockets on this host.
    NcclSocket,
    /// RDMA devices numbered differently from the other hosts: the InfiniBand HCA is `mlx5_0` and
    /// the RoCE rails `mlx5_1`/`mlx5_2`, so a cluster-wide `NCCL_IB_HCA` picks the wrong ports.
    HcaRenamed,
    /// NCCL jobs including this host print their init lines and then never finish.
    NcclHang,
}

impl FaultKind {
    /// Every fault, in the order `--help` lists them.
    pub const ALL: [FaultKind; 21] = [
        FaultKind::PfcOff,
        FaultKind::TrustPcp,
        FaultKind::DscpMap,
        FaultKind::Mtu,
        FaultKind::LinkDegraded,
        FaultKind::LinkDown,
        FaultKind::GidMissing,
        FaultKind::PeermemMissing,
        FaultKind::IrqOverlap,
        FaultKind::OutOfBuffer,
        FaultKind::SeqErr,
        FaultKind::SmMissing,
        FaultKind::ToolMissing,
        FaultKind::Refuse,
        FaultKind::BannerHang,
        FaultKind::AuthDenied,
        FaultKind::HostKeyChanged,
        FaultKind::CommandHang,
        FaultKind::NcclSocket,
        FaultKind::HcaRenamed,
        FaultKind::NcclHang,
    ];

    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            FaultKind::PfcOff => "pfc-off",
            FaultKind::TrustPcp => "trust-pcp",
            FaultKind::DscpMap => "dscp-map",
            FaultKind::Mtu => "mtu",
            FaultKind::LinkDegraded => "link-degraded",
            FaultKind::LinkDown => "link-down",
            FaultKind::GidMissing => "gid-missing",
            FaultKind::PeermemMissing => "peermem-missing",
            FaultKind::IrqOverlap => "irq-overlap",
            FaultKind::OutOfBuffer => "out-of-buffer",
            FaultKind::SeqErr => "seq-err",
            FaultKind::SmMissing => "sm-missing",
            FaultKind::ToolMissing => "tool-missing",
            FaultKind::Refuse => "refuse",
            FaultKind::BannerHang => "banner-hang",
            FaultKind::AuthDenied => "auth-denied",
            FaultKind::HostKeyChanged => "hostkey-changed",
            FaultKind::CommandHang => "command-hang",
            FaultKind::NcclSocket => "nccl-socket",
            FaultKind::HcaRenamed => "hca-renamed",
            FaultKind::NcclHang => "nccl-hang",
        }
    }

    /// Whether the fault is about one NIC (and so takes `@NIC`).
    pub fn is_per_nic(self) -> bool {
        matches!(
            self,
            FaultKind::PfcOff
                | FaultKind::TrustPcp
                | FaultKind::DscpMap
                | FaultKind::Mtu
                | FaultKind::LinkDegraded
                | FaultKind::LinkDown
                | FaultKind::GidMissing
                | FaultKind::OutOfBuffer
                | FaultKind::SeqErr
        )
    }
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for FaultKind {
    type Err = String;
    fn from_str(s: &str) -> Result<FaultKind, String> {
        FaultKind::ALL.into_iter().find(|k| k.name() == s).ok_or_else(|| {
            let names: Vec<_> = FaultKind::ALL.iter().map(|k| k.name()).collect();
            format!("unknown fault `{s}` (known: {})", names.join(", "))
        })
    }
}

/// A fault on one host (and NIC): `gpu002=pfc-off` or `gpu002=link-degraded@mlx5_2`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    /// Host name.
    pub host: String,
    /// What is wrong.
    pub kind: FaultKind,
    /// RDMA device or netdev; the first RoCE NIC when absent.
    pub nic: Option<String>,
}

impl FromStr for Fault {
    type Err = String;
    fn from_str(s: &str) -> Result<Fault, String> {
        let (host, rest) = s.split_once('=').ok_or_else(|| format!("fault `{s}` is not HOST=FAULT[@NIC]"))?;
        let (kind, nic) = match rest.split_once('@') {
            Some((k, n)) => (k, Some(n.to_string())),
            None => (rest, None),
        };
        let kind: FaultKind = kind.parse()?;
        if nic.is_some() && !kind.is_per_nic() {
            return Err(format!("fault `{kind}` is about a host, not a NIC: drop `@...`"));
        }
        Ok(Fault { host: host.to_string(), kind, nic })
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.host, self.kind)?;
        if let Some(nic) = &self.nic {
            write!(f, "@{nic}")?;
        }
        Ok(())
    }
}

/// Applies `fault` to `host`. Errors when the NIC does not exist.
pub fn apply(host: &mut LabHost, fault: &Fault) -> Result<(), String> {
    let ssh = &mut host.ssh;
    match fault.kind {
        FaultKind::PeermemMissing => host.modules.retain(|m| m != "nvidia_peermem" && m != "nv_peer_mem"),
        FaultKind::IrqOverlap => move_second_nic_irqs_onto_first(host),
        FaultKind::SmMissing => {
            host.sm = None;
            for nic in host.nics.iter_mut().filter(|n| n.link_layer == LinkLayer::InfiniBand) {
                // Without an SM no LID is assigned and the port stays in Initializing.
                nic.sm_lid = 0;
                nic.lid = 0;
            }
        }
        FaultKind::ToolMissing => {
            host.missing_tools.insert("mlnx_qos".to_string());
        }
        FaultKind::Refuse => ssh.refuse = true,
        FaultKind::BannerHang => ssh.hang_banner = true,
        FaultKind::AuthDenied => ssh.deny_auth = true,
        FaultKind::HostKeyChanged => ssh.change_host_key = true,
        FaultKind::CommandHang => ssh.hang_commands = true,
        FaultKind::NcclSocket => host.nccl.libibverbs = false,
        FaultKind::NcclHang => host.nccl.hangs = true,
        FaultKind::HcaRenamed => renumber_ib_first(host),
        kind => apply_to_nic(host, kind, fault)?,
    }
    Ok(())
}

/// seeds/002's case: two NICs' interrupts served by the same cores.
fn move_second_nic_irqs_onto_first(host: &mut LabHost) {
    let nics: Vec<_> = host.roce_nics().take(2).map(|n| n.irqs.clone()).collect();
    if let [first, second] = nics.as_slice() {
        for (src, dst) in second.iter().zip(first) {
            let cpus = host.irq_affinity.get(dst).cloned().unwrap_or_default();
            host.irq_affinity.insert(*src, cpus);
        }
    }
}

/// A host whose InfiniBand HCA sits on the lowest PCI bus: the kernel numbers RDMA devices in
/// PCI order, so the HCA becomes `mlx5_0` and the RoCE rails `mlx5_1`, `mlx5_2`. The cards keep
/// their netdevs, MACs, GUIDs, IRQs and addresses; names and PCI addresses follow the new order
/// (IB first, then the RoCE rails in their old order), so every command agrees.
fn renumber_ib_first(host: &mut LabHost) {
    let mut pcis: Vec<String> = host.nics.iter().map(|n| n.pci.clone()).collect();
    pcis.sort();
    host.nics.sort_by_key(|n| n.link_layer != LinkLayer::InfiniBand);
    for (i, (nic, pci)) in host.nics.iter_mut().zip(pcis).enumerate() {
        nic.ibdev = format!("mlx5_{i}");
        nic.pci = pci;
    }
}

fn apply_to_nic(host: &mut LabHost, kind: FaultKind, fault: &Fault) -> Result<(), String> {
    let name = match &fault.nic {
        Some(n) => n.clone(),
        None => host.roce_nics().next().map(|n| n.ibdev.clone()).ok_or("host has no RoCE NIC")?,
    };
    let nic = host.nic_mut(&name).ok_or_else(|| format!("{}: no NIC `{name}`", fault.host))?;
    match kind {
        FaultKind::PfcOff => nic.pfc[3] = false,
        FaultKind::TrustPcp => nic.trust = Trust::Pcp,
        FaultKind::DscpMap => nic.dscp_to_priority[26] = 0,
        FaultKind::Mtu => nic.mtu = 1500,
        FaultKind::LinkDegraded => {
            nic.rate_gbps /= 2;
            nic.width = "2X".into();
        }
        FaultKind::LinkDown => nic.up = false,
        FaultKind::GidMissing => nic.rocev2_gid = false,
        FaultKind::OutOfBuffer => {
            nic.hw_counters.insert("out_of_buffer".into(), Counter { base: 17, per_s: 25_000 });
            nic.ethtool_counters.insert("rx_out_of_buffer".into(), Counter { base: 17, per_s: 25_000 });
        }
        FaultKind::SeqErr => {
            nic.hw_counters.insert("packet_seq_err".into(), Counter { base: 3, per_s: 800 });
            nic.hw_counters.insert("out_of_sequence".into(), Counter { base: 5, per_s: 800 });
        }
        // Host-wide faults never reach here: `apply` handles them.
        _ => return Err(format!("fault `{kind}` is about a host, not a NIC")),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fault_names_round_trip() {
        for kind in FaultKind::ALL {
            assert_eq!(kind.name().parse::<FaultKind>(), Ok(kind));
        }
        let f: Fault = "gpu002=link-degraded@mlx5_2".parse().unwrap();
        assert_eq!(f.to_string(), "gpu002=link-degraded@mlx5_2");
        assert!("gpu002=irq-overlap@mlx5_0".parse::<Fault>().is_err());
        assert!("gpu002".parse::<Fault>().is_err());
        assert!("gpu002=melted".parse::<Fault>().unwrap_err().contains("pfc-off"));
    }
}
