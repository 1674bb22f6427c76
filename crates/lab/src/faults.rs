//! Faults injected into lab devices by name, each the state a real misconfiguration leaves behind.
//!
//! `DEVICE=FAULT[@NIC|@PORT]`. On a host, `@` names a NIC (RDMA device or netdev; the first RoCE
//! NIC by default). On a switch it names a linked port as the platform spells it, in any case
//! (`Ethernet8`, `Ethernet3/1` or `Et3/1`, `swp3`, `Ethernet1/3`, `ethernet1/1/3`); by default
//! the leaf's first host-facing port or the spine's first downlink. `pfc-off` and `dscp-map` exist on both: the device decides which.
//!
//! Faults follow the lab's [`Design`]: "the RoCE priority", "the RoCE DSCP" and "the RoCE queue"
//! are its first lossless class's (priority and queue 3, DSCP 26 in the built-in design), "the
//! CNP queue" its CNP class's. A fault that cannot exist in the design (ECN faults where no queue
//! marks ECN, `cnp-queue` where the CNP queue is already weighted or there is no CNP class, the
//! DCQCN faults where the NICs run without DCQCN) is refused, naming the design, rather than
//! planted as a change that changes nothing.
//!
//! Host faults: each [`FaultKind`] says what it leaves behind. Those of the host's NCCL user space
//! (`nccl-socket`, `nccl-hang`, `nccl-no-mpi`, `nccl-2.4`: the host's ranks run NCCL 2.4.7 and
//! print its lines) change what its nccl-tests print, not its hardware.
//!
//! Switch faults: `pfc-off` (no PFC on the RoCE priority of the port), `dscp-map` (the RoCE DSCP
//! → TC 0, switch-wide), `ecn-off` (no ECN marking on the RoCE queue of the port),
//! `ecn-threshold` (Kmin 20 KB / Kmax 50 KB, below the policies' ranges), `cnp-queue` (the CNP
//! queue weighted instead of strict), `pfcwd-off` (no PFC watchdog on the port), `pfcwd-unset` (NX-OS: no watchdog line at all), `mtu-low` (MTU
//! 1500 on the port), `link-half-speed` (200G on the port and on its peer's end of the cable),
//! `lldp-missing` (the port's neighbour gone from this switch's LLDP table only: a one-sided
//! view), `pfc-storm` (50,000 PFC pause frames a second received on the RoCE priority of the
//! port), `lossless-drops` (RoCE queue drops with no pause frame on the RoCE priority either
//! way), `qos-map-absent` (SONiC, switch-wide: no `PORT_QOS_MAP` table in the config DB, so no
//! port has PFC or a DSCP map bound). The SSH server's faults (`refuse`, `banner-hang`,
//! `auth-denied`, `hostkey-changed`, `command-hang`, `not-ssh`, `max-startups`) exist on both,
//! switch-wide on a switch.

use crate::design::Design;
use crate::state::{
    Counter, DcqcnPoint, EcnThresholds, Fabric, HostLldp, LabHost, LabNic, LinkLayer, NcclRelease, Peer, Platform,
    SshBehaviour, SwitchRole, Trust,
};
use std::fmt;
use std::str::FromStr;

/// Connections the `max-startups` fault drops before it lets one through.
pub const MAX_STARTUPS_DROPPED: u32 = 2;

/// A fault a lab host can have. `Display`/`FromStr` use the names of the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FaultKind {
    /// PFC disabled on the RoCE priority (the design's first lossless one: 3) of a NIC.
    PfcOff,
    /// NIC trusts PCP instead of DSCP: routed RoCEv2 traffic lands on priority 0.
    TrustPcp,
    /// The RoCE DSCP (the design's first: 26) mapped to priority 0 instead of its class's.
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
    /// The second NIC's IRQs moved onto the first NIC's cores (two NICs' completions served by the same cores).
    IrqOverlap,
    /// out_of_buffer growing under load: the lossless chain is broken somewhere.
    OutOfBuffer,
    /// packet_seq_err growing: packets lost and retransmitted.
    SeqErr,
    /// No subnet manager on the IB fabric.
    SmMissing,
    /// mlnx_qos not installed.
    ToolMissing,
    /// No `timeout` (a minimal image without coreutils' one): commands can only be sent as they
    /// are, so the auditor must notice and stop wrapping them.
    NoTimeout,
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
    /// Transport: something other than SSH answers on the port (a web server's error page).
    NotSsh,
    /// Transport: the first connections are dropped right after they are accepted, as sshd's
    /// `MaxStartups` drops unauthenticated connections beyond its limit.
    MaxStartups,
    /// libibverbs not installed: NCCL falls back to TCP sockets on this host.
    NcclSocket,
    /// RDMA devices numbered differently from the other hosts: the InfiniBand HCA is `mlx5_0` and
    /// the RoCE rails `mlx5_1`/`mlx5_2`, so a cluster-wide `NCCL_IB_HCA` picks the wrong ports.
    HcaRenamed,
    /// NCCL jobs including this host print their init lines and then never finish.
    NcclHang,
    /// The host's nccl-tests were built without MPI (nccl-tests#281): a job started by mpirun or
    /// srun on it runs every process alone, each one rank 0 of its own one-GPU run.
    NcclNoMpi,
    /// The host's nccl-tests run on NCCL 2.4.7 (an old container image): its ranks print NCCL
    /// 2.4's lines (the socket list before NET/IB, `Ring` lines at init, no `Using network`).
    Nccl24,
    /// The host's PCIe topology is hidden (as in a VM without NCCL_TOPO_FILE): `nvidia-smi topo
    /// -m` shows every GPU-NIC pair as SYS, and NCCL sends every channel through its first NIC.
    NicShared,
    /// NVLink down on GPU 0: its traffic to the other GPUs crosses PCIe, so the host is slow
    /// alone (intra-node) and slows every job it is in.
    NvlinkDown,
    /// The second RoCE rail's address moved into the first one's subnet, with no policy routing
    /// and the kernel's ARP defaults: replies for either address may leave by either NIC.
    OneSubnet,
    /// A master SM with no standby to take over.
    SmNoStandby,
    /// The lossless priorities' receive buffer at 64 KB, less than a 400G link's headroom.
    PfcBufferSmall,
    /// The NIC's RoCE traffic leaves on priority 0 (the application's traffic class unset): the
    /// RoCE priority's byte counters stand still, priority 0's carry the RDMA bytes.
    RoceOnPrio0,
    /// The NIC runs firmware 28.41.1000 where the lab's other ConnectX-7s run 28.39.1002, as a
    /// card swapped in from spares on a newer release does.
    FirmwareSkew,
    /// The RoCEv2 IPv4 GID at index 5 instead of 3 (other addresses took the low entries): a
    /// cluster-wide NCCL_IB_GID_INDEX=3 is wrong on this port.
    GidIndexShifted,
    /// DCQCN's reaction point off on the RoCE priority: the NIC ignores CNPs (`rp_cnp_handled`
    /// flat). Designs with DCQCN only.
    DcqcnRpOff,
    /// DCQCN's notification point off on the RoCE priority: the NIC sends no CNP (`np_cnp_sent`
    /// flat). Designs with DCQCN only.
    DcqcnNpOff,
    /// The NIC marks its CNPs DSCP 24 instead of the design's (48); designs with a CNP class only.
    CnpDscp,
    /// The driver exposes no `/sys/class/net/IF/ecn` tree (the inbox mlx5 driver).
    DcqcnSysfsMissing,
    /// lldpd with its default settings: each port advertised as `PortID: mac <the NIC's MAC>`,
    /// `PortDescr: <ifname>` (the lab's hosts otherwise set `portidsubtype ifname`).
    LldpMac,
    /// No lldpd at all: `lldpctl` is not installed and the host advertises nothing.
    LldpdMissing,
    /// lldpd runs and advertises the ports (from a container, say), but `lldpctl` is not
    /// installed for the audit to read the host's own view: the switches still see the host.
    LldpctlMissing,
    /// The host's `timeout` is BusyBox's before 1.30 (`timeout [-t SECS] [-s SIG] PROG ARGS`),
    /// which refuses coreutils' `-k`.
    OldBusyboxTimeout,
    /// A plain server with no RDMA device: no NIC in `/sys/class/infiniband`, no OFED tools.
    NoRdma,
    /// Switch: no ECN marking on the RoCE queue (3) of a port; designs that mark ECN only.
    EcnOff,
    /// Switch: ECN thresholds of the RoCE queue at 20 KB / 50 KB, below the policies' ranges;
    /// designs that mark ECN only.
    EcnThreshold,
    /// Switch: the CNP queue (6, or the design's CNP traffic class) of a port weighted instead of
    /// strict priority; designs whose CNP queue is strict only.
    CnpQueue,
    /// Switch: PFC watchdog off on a port.
    PfcwdOff,
    /// Switch: MTU 1500 on a port.
    MtuLow,
    /// Switch: a port at 200G instead of 400G, and its peer's end of the cable too.
    LinkHalfSpeed,
    /// Switch: the port's neighbour missing from this switch's LLDP table (the peer still sees
    /// the switch): a one-sided view.
    LldpMissing,
    /// Switch: PFC pause frames racing in on the RoCE priority of a port (50,000 a second).
    PfcStorm,
    /// Switch (SONiC): the lossless priority group's headroom (xoff) at 64 KB, less than a 400G
    /// link needs.
    HeadroomSmall,
    /// Switch (OS10): the port applies `service-policy input type network-qos ROCE-PFC-3`, while
    /// the policy is `ROCE_PFC_3`: no PFC policy takes effect.
    QosPolicyTypo,
    /// Switch (EOS), switch-wide: the CLI refuses every `| json` form, so each command is read
    /// as text instead.
    JsonRefused,
    /// Switch (SONiC): the PFC watchdog's BIG_RED_SWITCH on, in the config DB and in
    /// `pfcwd show config`: every lossless queue treated as stormed.
    BigRedSwitch,
    /// Switch (NX-OS), switch-wide: no `priority-flow-control watch-dog-interval` line anywhere
    /// in the running-config (the watchdog left to the platform's default, never configured).
    PfcwdUnset,
    /// Switch: RoCE drops on the port's RoCE queue (2,000 a second) while no pause frame moves on
    /// the RoCE priority either way: PFC configured but not in effect.
    LosslessDrops,
    /// Switch (SONiC), switch-wide: no `PORT_QOS_MAP` table in the config DB. The maps, queues
    /// and buffers are defined, but no port has `pfc_enable` or a DSCP map bound: qosorch enables
    /// PFC nowhere and classifies nothing by DSCP.
    QosMapAbsent,
}

impl FaultKind {
    /// Every fault, in the order `--help` lists them.
    pub const ALL: [FaultKind; 58] = [
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
        FaultKind::NoTimeout,
        FaultKind::Refuse,
        FaultKind::BannerHang,
        FaultKind::AuthDenied,
        FaultKind::HostKeyChanged,
        FaultKind::CommandHang,
        FaultKind::NotSsh,
        FaultKind::MaxStartups,
        FaultKind::NcclSocket,
        FaultKind::HcaRenamed,
        FaultKind::NcclHang,
        FaultKind::NcclNoMpi,
        FaultKind::Nccl24,
        FaultKind::NicShared,
        FaultKind::NvlinkDown,
        FaultKind::OneSubnet,
        FaultKind::LldpMac,
        FaultKind::LldpdMissing,
        FaultKind::LldpctlMissing,
        FaultKind::OldBusyboxTimeout,
        FaultKind::NoRdma,
        FaultKind::SmNoStandby,
        FaultKind::PfcBufferSmall,
        FaultKind::RoceOnPrio0,
        FaultKind::GidIndexShifted,
        FaultKind::FirmwareSkew,
        FaultKind::DcqcnRpOff,
        FaultKind::DcqcnNpOff,
        FaultKind::CnpDscp,
        FaultKind::DcqcnSysfsMissing,
        FaultKind::EcnOff,
        FaultKind::EcnThreshold,
        FaultKind::CnpQueue,
        FaultKind::PfcwdOff,
        FaultKind::MtuLow,
        FaultKind::LinkHalfSpeed,
        FaultKind::LldpMissing,
        FaultKind::PfcStorm,
        FaultKind::LosslessDrops,
        FaultKind::HeadroomSmall,
        FaultKind::QosPolicyTypo,
        FaultKind::JsonRefused,
        FaultKind::BigRedSwitch,
        FaultKind::PfcwdUnset,
        FaultKind::QosMapAbsent,
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
            FaultKind::NoTimeout => "no-timeout",
            FaultKind::Refuse => "refuse",
            FaultKind::BannerHang => "banner-hang",
            FaultKind::AuthDenied => "auth-denied",
            FaultKind::HostKeyChanged => "hostkey-changed",
            FaultKind::CommandHang => "command-hang",
            FaultKind::NotSsh => "not-ssh",
            FaultKind::MaxStartups => "max-startups",
            FaultKind::NcclSocket => "nccl-socket",
            FaultKind::HcaRenamed => "hca-renamed",
            FaultKind::NcclHang => "nccl-hang",
            FaultKind::NcclNoMpi => "nccl-no-mpi",
            FaultKind::Nccl24 => "nccl-2.4",
            FaultKind::NicShared => "nic-shared",
            FaultKind::NvlinkDown => "nvlink-down",
            FaultKind::OneSubnet => "one-subnet",
            FaultKind::SmNoStandby => "sm-no-standby",
            FaultKind::PfcBufferSmall => "pfc-buffer-small",
            FaultKind::RoceOnPrio0 => "roce-on-prio0",
            FaultKind::GidIndexShifted => "gid-index-shifted",
            FaultKind::FirmwareSkew => "firmware-skew",
            FaultKind::DcqcnRpOff => "dcqcn-rp-off",
            FaultKind::DcqcnNpOff => "dcqcn-np-off",
            FaultKind::CnpDscp => "cnp-dscp",
            FaultKind::DcqcnSysfsMissing => "dcqcn-sysfs-missing",
            FaultKind::LldpMac => "lldp-mac",
            FaultKind::LldpdMissing => "lldpd-missing",
            FaultKind::LldpctlMissing => "lldpctl-missing",
            FaultKind::OldBusyboxTimeout => "old-busybox-timeout",
            FaultKind::NoRdma => "no-rdma",
            FaultKind::EcnOff => "ecn-off",
            FaultKind::EcnThreshold => "ecn-threshold",
            FaultKind::CnpQueue => "cnp-queue",
            FaultKind::PfcwdOff => "pfcwd-off",
            FaultKind::MtuLow => "mtu-low",
            FaultKind::LinkHalfSpeed => "link-half-speed",
            FaultKind::LldpMissing => "lldp-missing",
            FaultKind::PfcStorm => "pfc-storm",
            FaultKind::LosslessDrops => "lossless-drops",
            FaultKind::HeadroomSmall => "headroom-small",
            FaultKind::QosPolicyTypo => "qos-policy-typo",
            FaultKind::JsonRefused => "json-refused",
            FaultKind::BigRedSwitch => "big-red-switch",
            FaultKind::PfcwdUnset => "pfcwd-unset",
            FaultKind::QosMapAbsent => "qos-map-absent",
        }
    }

    /// Whether the fault exists on a host.
    pub fn on_host(self) -> bool {
        !matches!(
            self,
            FaultKind::EcnOff
                | FaultKind::EcnThreshold
                | FaultKind::CnpQueue
                | FaultKind::PfcwdOff
                | FaultKind::MtuLow
                | FaultKind::LinkHalfSpeed
                | FaultKind::LldpMissing
                | FaultKind::PfcStorm
                | FaultKind::LosslessDrops
                | FaultKind::HeadroomSmall
                | FaultKind::QosPolicyTypo
                | FaultKind::JsonRefused
                | FaultKind::BigRedSwitch
                | FaultKind::PfcwdUnset
                | FaultKind::QosMapAbsent
        )
    }

    /// Whether the fault exists on a switch.
    pub fn on_switch(self) -> bool {
        !self.on_host()
            || self.is_transport()
            || matches!(self, FaultKind::PfcOff | FaultKind::DscpMap | FaultKind::TrustPcp)
    }

    /// Whether the fault is in the device's SSH server, which hosts and switches alike have: a
    /// switch's management plane hangs, refuses or is replaced as a host's does.
    pub fn is_transport(self) -> bool {
        matches!(
            self,
            FaultKind::Refuse
                | FaultKind::BannerHang
                | FaultKind::AuthDenied
                | FaultKind::HostKeyChanged
                | FaultKind::CommandHang
                | FaultKind::NotSsh
                | FaultKind::MaxStartups
        )
    }

    /// Whether the fault is about one switch port (and so takes `@PORT` on a switch).
    pub fn is_per_port(self) -> bool {
        self.on_switch()
            && !self.is_transport()
            && !matches!(
                self,
                FaultKind::DscpMap
                    | FaultKind::JsonRefused
                    | FaultKind::BigRedSwitch
                    | FaultKind::PfcwdUnset
                    | FaultKind::QosMapAbsent
            )
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
                | FaultKind::PfcBufferSmall
                | FaultKind::RoceOnPrio0
                | FaultKind::GidIndexShifted
                | FaultKind::FirmwareSkew
                | FaultKind::DcqcnRpOff
                | FaultKind::DcqcnNpOff
                | FaultKind::CnpDscp
                | FaultKind::DcqcnSysfsMissing
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

/// A fault on one device (and NIC or port): `gpu002=pfc-off`, `gpu002=link-degraded@mlx5_2`,
/// `leaf1=pfc-off@Ethernet8`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    /// Device name: a host (`gpu002`) or a switch (`leaf1`).
    pub host: String,
    /// What is wrong.
    pub kind: FaultKind,
    /// On a host, the RDMA device or netdev (the first RoCE NIC when absent); on a switch, the
    /// port (the first host-facing port of a leaf, the first downlink of a spine, when absent).
    pub nic: Option<String>,
}

impl FromStr for Fault {
    type Err = String;
    fn from_str(s: &str) -> Result<Fault, String> {
        let (host, rest) = s.split_once('=').ok_or_else(|| format!("fault `{s}` is not DEVICE=FAULT[@NIC|@PORT]"))?;
        let (kind, nic) = match rest.split_once('@') {
            Some((k, n)) => (k, Some(n.to_string())),
            None => (rest, None),
        };
        let kind: FaultKind = kind.parse()?;
        if nic.is_some() && !kind.is_per_nic() && !kind.is_per_port() {
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

/// Applies `fault` to the device of `fabric` it names. Errors when the device, NIC or port does
/// not exist, or the fault does not exist on that kind of device.
pub fn apply_to_fabric(fabric: &mut Fabric, fault: &Fault) -> Result<(), String> {
    exists_in(fault.kind, &fabric.design)?;
    if let Some(h) = fabric.host_index(&fault.host) {
        if !fault.kind.on_host() {
            return Err(format!("`{}` is a switch fault and {} is a host", fault.kind, fault.host));
        }
        return apply(&mut fabric.hosts[h], fault);
    }
    let Some(s) = fabric.switch_index(&fault.host) else {
        return Err(format!(
            "no device `{}` in a lab of {} hosts and {} switches",
            fault.host,
            fabric.hosts.len(),
            fabric.switches.len()
        ));
    };
    apply_to_switch(fabric, s, fault)
}

/// A switch fault (see the module documentation).
fn apply_to_switch(fabric: &mut Fabric, s: usize, fault: &Fault) -> Result<(), String> {
    let switch = &fabric.switches[s];
    let kind = fault.kind;
    if !kind.on_switch() {
        return Err(format!("`{kind}` is a host fault and {} is a {}", switch.name, switch.role.name()));
    }
    if !kind.is_per_port() {
        if fault.nic.is_some() {
            return Err(format!("on a switch `{kind}` is switch-wide: drop `@...`"));
        }
        rendered(kind, switch.platform)?;
        let switch = &mut fabric.switches[s];
        if apply_transport(&mut switch.ssh, kind) {
            return Ok(());
        }
        match kind {
            FaultKind::JsonRefused => switch.json_cli = false,
            FaultKind::BigRedSwitch => switch.big_red_switch = true,
            FaultKind::PfcwdUnset => switch.pfcwd_unset = true,
            FaultKind::QosMapAbsent => switch.qos_map_absent = true,
            _ => switch.dscp_to_tc[usize::from(fabric.design.roce_dscp())] = 0,
        }
        return Ok(());
    }
    let p = match &fault.nic {
        Some(name) => switch.ports.iter().position(|p| same_port(&p.name, name)).ok_or_else(|| {
            let names: Vec<&str> = switch.ports.iter().map(|p| p.name.as_str()).collect();
            let known = match names.as_slice() {
                [] => "it has none".to_string(),
                [one] => format!("its one port is {one}"),
                [first, .., last] => format!("its ports are {first} to {last}"),
            };
            format!("{}: no linked port `{name}` ({known})", switch.name)
        })?,
        None => {
            let default = |peer: &Peer| match (switch.role, peer) {
                (SwitchRole::Leaf, Peer::Host { .. }) => true,
                (SwitchRole::Spine, Peer::Switch { switch, .. }) => fabric.switches[*switch].role == SwitchRole::Leaf,
                _ => false,
            };
            switch.ports.iter().position(|p| default(&p.peer)).ok_or_else(|| {
                let what = match switch.role {
                    SwitchRole::Leaf => "host-facing port",
                    SwitchRole::Spine => "downlink",
                };
                format!("{} has no {what}: name a port with `@PORT`", switch.name)
            })?
        }
    };
    let platform = fabric.switches[s].platform;
    let (prio, queue) = (usize::from(fabric.design.roce().priority), usize::from(fabric.design.roce().tc));
    let port = &mut fabric.switches[s].ports[p];
    match kind {
        FaultKind::PfcOff => port.pfc[prio] = false,
        FaultKind::EcnOff => port.ecn[queue] = None,
        FaultKind::EcnThreshold => {
            port.ecn[queue] = Some(EcnThresholds { min_bytes: 20 * 1024, max_bytes: 50 * 1024 });
        }
        FaultKind::CnpQueue => port.cnp_strict = false,
        FaultKind::PfcwdOff => port.pfc_watchdog = false,
        FaultKind::MtuLow => port.mtu = 1500,
        FaultKind::LldpMissing => port.lldp = false,
        FaultKind::PfcStorm => {
            let c = &mut port.counters.pfc_rx[prio];
            *c = Counter { base: c.base, per_s: 50_000 };
        }
        _ if rendered(kind, platform).is_err() => return rendered(kind, platform),
        FaultKind::HeadroomSmall => port.headroom_bytes = 64 * 1024,
        FaultKind::TrustPcp => port.trust_dscp = false,
        FaultKind::QosPolicyTypo => port.policy_typo = true,
        FaultKind::LosslessDrops => {
            let c = &mut port.counters;
            for pause in [&mut c.pfc_rx[prio], &mut c.pfc_tx[prio]] {
                *pause = Counter { base: pause.base, per_s: 0 };
            }
            c.queue_drops[queue] = Counter { base: c.queue_drops[queue].base, per_s: 2_000 };
        }
        FaultKind::LinkHalfSpeed => {
            // A link trains at one speed: both ends see it.
            port.speed_gbps /= 2;
            let peer = port.peer;
            match peer {
                Peer::Switch { switch, port } => fabric.switches[switch].ports[port].speed_gbps /= 2,
                Peer::Host { host, rail } => {
                    let roce = fabric.hosts[host].nics.iter_mut().filter(|n| n.link_layer == LinkLayer::Ethernet);
                    if let Some(nic) = roce.into_iter().nth(rail) {
                        nic.rate_gbps /= 2;
                        nic.width = "2X".into();
                    }
                }
            }
        }
        _ => return Err(format!("`{kind}` is a host fault")),
    }
    Ok(())
}

/// Whether `kind` can exist in a fabric built to `design`, or the error that says why not: a
/// fault whose change the design already has, or whose setting it does not have, would be
/// planted as nothing, and a test expecting its finding would fail for the wrong reason.
pub fn exists_in(kind: FaultKind, design: &Design) -> Result<(), String> {
    let why = match kind {
        FaultKind::EcnOff | FaultKind::EcnThreshold if design.roce().ecn.is_none() => "its lossless queue marks no ECN",
        FaultKind::CnpQueue if design.cnp.is_none() => "it has no CNP class",
        FaultKind::CnpQueue if !design.cnp_strict() => "its CNP queue is weighted already",
        FaultKind::CnpDscp if design.cnp.is_none() => "it has no CNP class",
        FaultKind::DcqcnRpOff | FaultKind::DcqcnNpOff if !design.dcqcn => "its NICs run without DCQCN",
        _ => return Ok(()),
    };
    Err(format!("`{kind}` cannot exist in the {} design: {why}", design.name))
}

/// Whether `given` names the port `name`: exactly, in any case, or EOS's short `Et3/1`.
fn same_port(name: &str, given: &str) -> bool {
    let long = match given.strip_prefix("Et").or_else(|| given.strip_prefix("et")) {
        Some(rest) if rest.starts_with(|c: char| c.is_ascii_digit()) => format!("Ethernet{rest}"),
        _ => given.to_string(),
    };
    name.eq_ignore_ascii_case(&long)
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
        FaultKind::NoTimeout => {
            host.missing_tools.insert("timeout".to_string());
        }
        FaultKind::SmNoStandby => {
            if let Some(sm) = host.sm.as_mut() {
                sm.standby_priority = None;
            }
        }
        kind if apply_transport(ssh, kind) => {}
        FaultKind::NcclSocket => host.nccl.libibverbs = false,
        FaultKind::NcclHang => host.nccl.hangs = true,
        FaultKind::NcclNoMpi => host.nccl.tests_without_mpi = true,
        FaultKind::Nccl24 => host.nccl.release = NcclRelease::V2_4,
        FaultKind::NicShared => host.nccl.flat_topology = true,
        FaultKind::NvlinkDown => host.nccl.nvlink_down = true,
        FaultKind::OneSubnet => second_rail_into_first_subnet(host),
        FaultKind::LldpMac => host.lldp = HostLldp::Mac,
        FaultKind::LldpdMissing => {
            host.lldp = HostLldp::Off;
            host.missing_tools.extend(["lldpctl".to_string(), "lldpcli".to_string()]);
        }
        FaultKind::LldpctlMissing => host.missing_tools.extend(["lldpctl".to_string(), "lldpcli".to_string()]),
        FaultKind::OldBusyboxTimeout => host.old_busybox_timeout = true,
        FaultKind::NoRdma => {
            host.nics.clear();
            host.sm = None;
            host.modules.retain(|m| !m.starts_with("mlx") && !m.starts_with("ib_") && m != "nvidia_peermem");
            let ofed =
                ["ibdev2netdev", "ibstat", "show_gids", "sminfo", "saquery", "perfquery", "mlnx_qos", "iblinkinfo"];
            host.missing_tools.extend(ofed.map(String::from));
        }
        FaultKind::HcaRenamed => renumber_ib_first(host),
        kind => apply_to_nic(host, kind, fault)?,
    }
    Ok(())
}

/// Whether `platform` renders `kind`, or the error that says which platforms do.
/// Applies a fault of the SSH server ([`FaultKind::is_transport`]); `false` for any other.
fn apply_transport(ssh: &mut SshBehaviour, kind: FaultKind) -> bool {
    match kind {
        FaultKind::Refuse => ssh.refuse = true,
        FaultKind::BannerHang => ssh.hang_banner = true,
        FaultKind::AuthDenied => ssh.deny_auth = true,
        FaultKind::HostKeyChanged => ssh.change_host_key = true,
        FaultKind::CommandHang => ssh.hang_commands = true,
        FaultKind::NotSsh => ssh.not_ssh = true,
        FaultKind::MaxStartups => ssh.drop_first = MAX_STARTUPS_DROPPED,
        _ => return false,
    }
    true
}

fn rendered(kind: FaultKind, platform: Platform) -> Result<(), String> {
    if rendered_on(kind).contains(&platform) {
        return Ok(());
    }
    let names: Vec<&str> = rendered_on(kind).iter().map(|p| p.name()).collect();
    Err(format!("`{kind}` is rendered on {} switches only", names.join(" and ")))
}

/// The platforms whose renderers show `kind`: the buffer headroom is SONiC's `BUFFER_PROFILE`,
/// 802.1p trust SONiC's `dot1p_to_tc_map` and EOS's `qos trust cos`, the misspelt policy OS10's
/// `service-policy`, the missing port bindings SONiC's `PORT_QOS_MAP`; the other faults, all.
fn rendered_on(kind: FaultKind) -> &'static [Platform] {
    match kind {
        FaultKind::HeadroomSmall => &[Platform::Sonic],
        FaultKind::TrustPcp => &[Platform::Sonic, Platform::Eos],
        FaultKind::QosPolicyTypo => &[Platform::DellOs10],
        FaultKind::JsonRefused => &[Platform::Eos],
        FaultKind::BigRedSwitch => &[Platform::Sonic],
        FaultKind::PfcwdUnset => &[Platform::Nxos],
        FaultKind::QosMapAbsent => &[Platform::Sonic],
        _ => &Platform::ALL,
    }
}

/// The second RoCE rail's address into the first rail's /16 (10.100.128+hi.lo: unique while the
/// lab has fewer than 32,768 hosts).
fn second_rail_into_first_subnet(host: &mut LabHost) {
    let first = host.roce_nics().next().and_then(|n| n.ipv4);
    if let (Some(first), Some(second)) =
        (first, host.nics.iter_mut().filter(|n| n.link_layer == LinkLayer::Ethernet).nth(1))
    {
        let (a, b) = (first.octets(), second.ipv4.unwrap_or(first).octets());
        second.ipv4 = Some(std::net::Ipv4Addr::new(a[0], a[1], 128 | b[2], b[3]));
    }
}

/// Two NICs' interrupts served by the same cores: each NIC's completions then wait for the other's.
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
        FaultKind::PfcOff => nic.pfc[usize::from(nic.roce_priority)] = false,
        FaultKind::TrustPcp => nic.trust = Trust::Pcp,
        FaultKind::DscpMap => nic.dscp_to_priority[usize::from(nic.roce_dscp)] = 0,
        FaultKind::Mtu => nic.mtu = 1500,
        FaultKind::LinkDegraded => {
            nic.rate_gbps /= 2;
            nic.width = "2X".into();
        }
        FaultKind::LinkDown => nic.up = false,
        FaultKind::GidMissing => nic.rocev2_gid = false,
        FaultKind::GidIndexShifted => nic.ipv4_gid_index = 4,
        FaultKind::FirmwareSkew => nic.firmware = "28.41.1000".into(),
        FaultKind::PfcBufferSmall => nic.lossless_buffer_bytes = 65_536,
        FaultKind::RoceOnPrio0 => {
            for dir in ["rx", "tx"] {
                let lossless = format!("{dir}_prio{}_bytes", nic.roce_priority);
                let moved = nic.ethtool_counters.get(&lossless).map_or(0, |c| c.per_s);
                if let Some(c) = nic.ethtool_counters.get_mut(&lossless) {
                    c.per_s = 0;
                }
                if let Some(c) = nic.ethtool_counters.get_mut(&format!("{dir}_prio0_bytes")) {
                    c.per_s += moved;
                }
            }
        }
        FaultKind::OutOfBuffer => {
            nic.hw_counters.insert("out_of_buffer".into(), Counter { base: 17, per_s: 25_000 });
            nic.ethtool_counters.insert("rx_out_of_buffer".into(), Counter { base: 17, per_s: 25_000 });
        }
        FaultKind::SeqErr => {
            nic.hw_counters.insert("packet_seq_err".into(), Counter { base: 3, per_s: 800 });
            nic.hw_counters.insert("out_of_sequence".into(), Counter { base: 5, per_s: 800 });
        }
        FaultKind::DcqcnRpOff | FaultKind::DcqcnNpOff => {
            let point = if kind == FaultKind::DcqcnRpOff { DcqcnPoint::Reaction } else { DcqcnPoint::Notification };
            if !nic.set_dcqcn(point, nic.roce_priority.into(), false) {
                return Err(no_dcqcn(nic));
            }
        }
        FaultKind::CnpDscp => match nic.dcqcn.as_mut() {
            // 24 is AF31's neighbour CS3: a DSCP no design gives CNPs.
            Some(dcqcn) => dcqcn.cnp_dscp = if dcqcn.cnp_dscp == 24 { 46 } else { 24 },
            None => return Err(no_dcqcn(nic)),
        },
        FaultKind::DcqcnSysfsMissing => nic.dcqcn = None,
        // Host-wide faults never reach here: `apply` handles them.
        _ => return Err(format!("fault `{kind}` is about a host, not a NIC")),
    }
    Ok(())
}

/// Why a DCQCN fault cannot be on this NIC.
fn no_dcqcn(nic: &LabNic) -> String {
    format!("{} has no DCQCN (an InfiniBand port?)", nic.ibdev)
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
        let f: Fault = "leaf1=pfc-off@Ethernet8".parse().unwrap();
        assert_eq!((f.host.as_str(), f.kind, f.nic.as_deref()), ("leaf1", FaultKind::PfcOff, Some("Ethernet8")));
        assert!("leaf1=pfc-storm@Ethernet8".parse::<Fault>().is_ok());
        assert!("spine1=dscp-map".parse::<Fault>().is_ok());
        for kind in FaultKind::ALL {
            assert!(kind.on_host() || kind.on_switch(), "{kind}");
            let both =
                kind.is_transport() || matches!(kind, FaultKind::PfcOff | FaultKind::DscpMap | FaultKind::TrustPcp);
            assert_eq!(kind.on_host() && kind.on_switch(), both, "{kind}");
        }
    }
}
