//! The simulated devices: what each lab host has, from which every command's output is rendered.
//!
//! State is plain data; faults change it (see `faults.rs`), and so do the few configuration
//! commands a lab host accepts (`mlnx_qos --pfc`, `ip link set mtu`, a sysfs write, `modprobe`);
//! the renderers only read it, so two commands run on the same host always agree with each other
//! (ibstat's port state matches ibdev2netdev's, show_gids matches ip link, and so on).

use crate::build::CNP_PER_S;
use crate::design::Design;
use std::collections::{BTreeMap, BTreeSet};
use std::net::Ipv4Addr;
use std::time::Duration;

/// Link layer of an RDMA port: RoCE NICs are `Ethernet`, IB HCAs `InfiniBand`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkLayer {
    /// RoCE: an RDMA NIC on Ethernet, with a netdev that mlnx_qos and ethtool configure.
    Ethernet,
    /// InfiniBand: an HCA whose port is managed by a subnet manager.
    InfiniBand,
}

/// How the NIC classifies received packets into priorities (`mlnx_qos --trust`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trust {
    /// By the IP header's DSCP field: what RoCEv2 over L3 needs.
    Dscp,
    /// By the VLAN header's PCP bits: the driver default.
    Pcp,
}

/// A counter that moves with time: `base + per_s * seconds since the lab started`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counter {
    /// Value when the lab started.
    pub base: u64,
    /// Increase per second.
    pub per_s: u64,
}

impl Counter {
    /// A counter that never moves.
    pub fn fixed(base: u64) -> Counter {
        Counter { base, per_s: 0 }
    }

    /// The value after `elapsed`.
    pub fn at(&self, elapsed: Duration) -> u64 {
        let grown = (self.per_s as u128 * elapsed.as_millis()) / 1000;
        self.base.saturating_add(grown.min(u64::MAX as u128) as u64)
    }
}

/// One RDMA port (the lab's HCAs have one port each, as ConnectX cards in Ethernet mode do).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabNic {
    /// RDMA device name: `mlx5_0`.
    pub ibdev: String,
    /// Network interface: `ens1np0` for RoCE, `ib0` (IPoIB) for InfiniBand.
    pub netdev: String,
    /// Ethernet (RoCE) or InfiniBand.
    pub link_layer: LinkLayer,
    /// PCI address: `0000:1a:00.0`.
    pub pci: String,
    /// ibstat's CA type: `MT4129` (ConnectX-7).
    pub ca_type: String,
    /// Firmware version: `28.39.1002`.
    pub firmware: String,
    /// Node GUID (ibstat) and the base of the port GUID.
    pub node_guid: u64,
    /// MAC address of the netdev.
    pub mac: [u8; 6],
    /// IPv4 address of the netdev (absent on the IPoIB port of an unconfigured host).
    pub ipv4: Option<Ipv4Addr>,
    /// Whether the RoCEv2 GIDs (IPv4-mapped, v1 and v2) are populated: the `gid-missing` fault clears it.
    pub rocev2_gid: bool,
    /// Size of receive buffer 1, which the lossless priorities use, in bytes.
    pub lossless_buffer_bytes: u64,
    /// GID index of the IPv4-mapped RoCEv1 GID; the RoCEv2 one follows it (2 and 3 by default,
    /// 4 and 5 after `gid-index-shifted`, as when other addresses took the low entries).
    pub ipv4_gid_index: u32,
    /// Port state: Active/LinkUp when true, Down/Disabled when false.
    pub up: bool,
    /// Signalling rate in Gb/s (`ibstat` Rate, `ethtool` Speed / 1000).
    pub rate_gbps: u32,
    /// Link width as IB prints it: `4X`, `2X`, `1X`.
    pub width: String,
    /// IB speed name for the rate: `NDR`, `HDR`, `EDR`.
    pub speed_name: String,
    /// Netdev MTU.
    pub mtu: u32,
    /// LID of the port (InfiniBand; 0 on Ethernet).
    pub lid: u32,
    /// SM LID the port sees (InfiniBand; 0 on Ethernet and when no SM runs).
    pub sm_lid: u32,
    /// QoS trust mode.
    pub trust: Trust,
    /// PFC enabled per priority 0..7.
    pub pfc: [bool; 8],
    /// Priority of each DSCP value 0..63.
    pub dscp_to_priority: [u8; 64],
    /// Priority to traffic class.
    pub priority_to_tc: [u8; 8],
    /// IRQ numbers of the NIC's completion vectors (`mlx5_comp0@pci:...`).
    pub irqs: Vec<u32>,
    /// Channels whose per-queue counters `ethtool -S` prints (`rxN_*`, `txN_*`): none in the
    /// default lab, which leaves them out so that its figures stay comparable from run to run;
    /// `fabcheck lab --channels N` prints them, as a real mlx5 port does for each channel.
    pub queue_counters: u32,
    /// `ethtool -S` counters.
    pub ethtool_counters: BTreeMap<String, Counter>,
    /// RDMA `hw_counters` of port 1.
    pub hw_counters: BTreeMap<String, Counter>,
    /// IB port counters (`perfquery -x`), InfiniBand ports only.
    pub port_counters: BTreeMap<String, Counter>,
    /// DCQCN as MLNX_OFED's `/sys/class/net/IF/ecn` tree shows it; `None`: no such tree (the
    /// inbox driver, an IPoIB port).
    pub dcqcn: Option<LabDcqcn>,
    /// The DSCP the NIC marks its RoCE traffic with (the design's first RoCE DSCP, the traffic
    /// class the host's RDMA stack is set to): what its captures carry and NCCL's traffic uses.
    pub roce_dscp: u8,
    /// The priority the design means that traffic to run on: where its bytes, pause frames and
    /// CNP counters move.
    pub roce_priority: u8,
}

/// A RoCE NIC's DCQCN settings: reaction and notification points per priority, CNP marking.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LabDcqcn {
    /// Reaction point on, per priority.
    pub rp: [bool; 8],
    /// Notification point on, per priority.
    pub np: [bool; 8],
    /// DSCP of the CNPs the NIC sends.
    pub cnp_dscp: u8,
    /// 802.1p priority of the CNPs the NIC sends.
    pub cnp_prio: u8,
}

impl Default for LabDcqcn {
    /// The firmware defaults (ROCE_CC_PRIO_MASK 255, CNP_DSCP 48, CNP_802P_PRIO 6).
    fn default() -> LabDcqcn {
        LabDcqcn { rp: [true; 8], np: [true; 8], cnp_dscp: 48, cnp_prio: 6 }
    }
}

/// One of DCQCN's two points on a RoCE NIC (`/sys/class/net/IF/ecn/roce_rp` and `roce_np`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DcqcnPoint {
    /// The reaction point: the sender, which slows down on the CNPs it receives (`rp_cnp_handled`).
    Reaction,
    /// The notification point: the receiver, which answers ECN-marked packets with CNPs
    /// (`np_cnp_sent`).
    Notification,
}

impl LabNic {
    /// Turns a DCQCN point on or off for priority `prio` (0 to 7), as the `dcqcn-rp-off` and
    /// `dcqcn-np-off` faults and a write to `ecn/roce_rp/enable/P` (or `roce_np`) do: one place,
    /// so that a fix undoes exactly what the fault did. On the RoCE priority the point's counter
    /// moves only while the point is on (a point turned back on resumes at the healthy rate, its
    /// count jumping forward as if it had never stopped: counters only grow). `false`: the NIC has
    /// no DCQCN or there is no such priority.
    pub fn set_dcqcn(&mut self, point: DcqcnPoint, prio: usize, on: bool) -> bool {
        let Some(dcqcn) = self.dcqcn.as_mut() else {
            return false;
        };
        let (flags, counter) = match point {
            DcqcnPoint::Reaction => (&mut dcqcn.rp, "rp_cnp_handled"),
            DcqcnPoint::Notification => (&mut dcqcn.np, "np_cnp_sent"),
        };
        let Some(flag) = flags.get_mut(prio) else {
            return false;
        };
        *flag = on;
        if prio == usize::from(self.roce_priority)
            && let Some(c) = self.hw_counters.get_mut(counter)
        {
            c.per_s = if on { CNP_PER_S } else { 0 };
        }
        true
    }
}

/// Subnet manager information as sminfo prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubnetManager {
    /// LID of the master SM.
    pub lid: u32,
    /// Its port GUID.
    pub guid: u64,
    /// SM priority.
    pub priority: u32,
    /// Activity count.
    pub activity: Counter,
    /// The standby SM's priority, when one runs (`saquery -s` lists it after the master).
    pub standby_priority: Option<u32>,
}

/// One simulated GPU host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabHost {
    /// Inventory and host name: `gpu001`.
    pub name: String,
    /// Number of CPUs (columns of /proc/interrupts).
    pub cpus: u32,
    /// Number of GPUs.
    pub gpus: u32,
    /// RDMA ports in PCI (and so `mlx5_N`) order: the RoCE rails, then the InfiniBand HCA (IB first
    /// on an `hca-renamed` host).
    pub nics: Vec<LabNic>,
    /// CPU list of each IRQ (`/proc/irq/N/smp_affinity_list`); IRQs absent here are on all CPUs.
    pub irq_affinity: BTreeMap<u32, Vec<u32>>,
    /// Loaded kernel modules, in lsmod order.
    pub modules: Vec<String>,
    /// Commands whose binary is not installed (`tool-missing`): they fail with exit status 127.
    pub missing_tools: BTreeSet<String>,
    /// The subnet manager seen from this host's IB port, if any.
    pub sm: Option<SubnetManager>,
    /// How the host's SSH server misbehaves (transport faults).
    pub ssh: SshBehaviour,
    /// IPv4 address of `eth0`, the management interface (1 GbE/25 GbE, no RDMA).
    pub mgmt_ipv4: Ipv4Addr,
    /// What NCCL finds on the host besides the hardware.
    pub nccl: NcclHost,
    /// How its lldpd advertises its ports.
    pub lldp: HostLldp,
    /// Its `timeout` is BusyBox's before 1.30: `-t SECS`, no `-k`.
    pub old_busybox_timeout: bool,
}

/// How a host's lldpd advertises its ports, as real hosts differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HostLldp {
    /// `configure lldp portidsubtype ifname`: the port ID is the interface name.
    #[default]
    Ifname,
    /// lldpd's default: the port ID is the port's MAC, the description its name.
    Mac,
    /// No lldpd: nothing advertised, no `lldpctl`.
    Off,
}

/// The NCCL release a host's nccl-tests run on, which decides the wording of its log lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NcclRelease {
    /// NCCL 2.26.2, the lab's own.
    #[default]
    V2_26,
    /// NCCL 2.4.7, as an old container image still carries it (`nccl-2.4`).
    V2_4,
}

/// The host's NCCL user space and GPU topology: what the `nccl-socket`, `nccl-hang`,
/// `nccl-no-mpi`, `nic-shared`, `nvlink-down` and `nccl-2.4` faults change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NcclHost {
    /// `libibverbs.so.1` (rdma-core) is installed; without it NCCL falls back to TCP sockets.
    pub libibverbs: bool,
    /// The host's ranks never finish a collective: every job it takes part in hangs after init.
    pub hangs: bool,
    /// The PCIe topology is hidden: no NIC is near any GPU, and NCCL uses only the first NIC.
    pub flat_topology: bool,
    /// GPU 0's NVLinks are down: it reaches the other GPUs over PCIe.
    pub nvlink_down: bool,
    /// Its nccl-tests were built without MPI (`make` without `MPI=1`): under a launcher, every
    /// process runs alone.
    pub tests_without_mpi: bool,
    /// The NCCL release its ranks run.
    pub release: NcclRelease,
}

impl Default for NcclHost {
    fn default() -> NcclHost {
        NcclHost {
            libibverbs: true,
            hangs: false,
            flat_topology: false,
            nvlink_down: false,
            tests_without_mpi: false,
            release: NcclRelease::V2_26,
        }
    }
}

/// Transport faults: how a host's SSH server fails, as broken hosts do in a real cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SshBehaviour {
    /// Nothing listens: connections are refused.
    pub refuse: bool,
    /// The TCP connection is accepted but no SSH banner ever comes.
    pub hang_banner: bool,
    /// Public-key authentication is denied.
    pub deny_auth: bool,
    /// The server presents a host key other than the one in known_hosts.
    pub change_host_key: bool,
    /// Commands start but never finish.
    pub hang_commands: bool,
    /// Something other than SSH answers (an HTTP error page) and closes.
    pub not_ssh: bool,
    /// This many connections are closed right after they are accepted (sshd's `MaxStartups`
    /// dropping a connection beyond its limit), the later ones served.
    pub drop_first: u32,
}

impl LabHost {
    /// The RoCE NICs.
    pub fn roce_nics(&self) -> impl Iterator<Item = &LabNic> {
        self.nics.iter().filter(|n| n.link_layer == LinkLayer::Ethernet)
    }

    /// A NIC by RDMA device or netdev name.
    pub fn nic(&self, name: &str) -> Option<&LabNic> {
        self.nics.iter().find(|n| n.ibdev == name || n.netdev == name)
    }

    /// Mutable NIC by RDMA device or netdev name.
    pub fn nic_mut(&mut self, name: &str) -> Option<&mut LabNic> {
        self.nics.iter_mut().find(|n| n.ibdev == name || n.netdev == name)
    }
}

/// The values of a set of counters at one moment.
pub fn counter_values(counters: &BTreeMap<String, Counter>, elapsed: Duration) -> BTreeMap<String, u64> {
    counters.iter().map(|(k, c)| (k.clone(), c.at(elapsed))).collect()
}

/// A switch's network operating system: which commands it answers, and in which format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Platform {
    /// SONiC: bash with sonic-utilities (`show`, `pfcwd`), the config DB as JSON.
    Sonic,
    /// Arista EOS: the EOS CLI (`show running-config` ...).
    Eos,
    /// NVIDIA Cumulus Linux 5 with NVUE: bash with `nv` and lldpd's `lldpcli`.
    Nvue,
    /// Cisco NX-OS: the NX-OS CLI (`show running-config` ...).
    Nxos,
    /// Dell SmartFabric OS10: the OS10 CLI (`show running-configuration` ...).
    DellOs10,
}

impl Platform {
    /// Every platform the lab simulates.
    pub const ALL: [Platform; 5] = [Platform::Sonic, Platform::Eos, Platform::Nvue, Platform::Nxos, Platform::DellOs10];

    /// The platform whose [`Platform::name`] is `name`.
    pub fn from_name(name: &str) -> Option<Platform> {
        Platform::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The inventory's `fabcheck_platform` value.
    pub fn name(self) -> &'static str {
        match self {
            Platform::Sonic => "sonic",
            Platform::Eos => "eos",
            Platform::Nvue => "nvue",
            Platform::Nxos => "nxos",
            Platform::DellOs10 => "dell_os10",
        }
    }
}

/// Where a switch sits in the two-tier Clos fabric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SwitchRole {
    /// Top of rack: the hosts' RoCE rails below, every spine above.
    Leaf,
    /// Every leaf below.
    Spine,
}

impl SwitchRole {
    /// The inventory's `fabcheck_role` value (and group name).
    pub fn name(self) -> &'static str {
        match self {
            SwitchRole::Leaf => "leaf",
            SwitchRole::Spine => "spine",
        }
    }
}

/// The other end of a switch port's cable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Peer {
    /// A host's RoCE rail: `rail` counts the host's RoCE NICs in order (0 is `ens1np0`).
    Host {
        /// Index into [`Fabric::hosts`].
        host: usize,
        /// Index among the host's RoCE NICs.
        rail: usize,
    },
    /// Another switch's port.
    Switch {
        /// Index into [`Fabric::switches`].
        switch: usize,
        /// Index into that switch's ports.
        port: usize,
    },
}

/// ECN marking thresholds of a queue, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EcnThresholds {
    /// Kmin: marking starts at this depth.
    pub min_bytes: u64,
    /// Kmax: every packet is marked from this depth.
    pub max_bytes: u64,
}

/// Counters of one switch port, per priority or egress queue.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SwitchPortCounters {
    /// PFC pause frames received, per priority.
    pub pfc_rx: [Counter; 8],
    /// PFC pause frames sent, per priority.
    pub pfc_tx: [Counter; 8],
    /// Packets sent, per egress queue.
    pub queue_tx_packets: [Counter; 8],
    /// Bytes sent, per egress queue.
    pub queue_tx_bytes: [Counter; 8],
    /// Packets dropped, per egress queue.
    pub queue_drops: [Counter; 8],
    /// Packets ECN-marked on the RoCE queue.
    pub ecn_marked: Counter,
}

/// One linked port of a switch: the lossless settings every platform renders in its own syntax.
#[derive(Debug, Clone, PartialEq)]
pub struct SwitchPort {
    /// The platform's name for it: `Ethernet8` (SONiC), `Ethernet3/1` (EOS), `swp3` (NVUE),
    /// `Ethernet1/3` (NX-OS), `ethernet1/1/3` (OS10).
    pub name: String,
    /// The far end of the cable.
    pub peer: Peer,
    /// PFC on, per priority.
    pub pfc: [bool; 8],
    /// ECN marking per egress queue (the design's lossless queues); `None`: marking off.
    pub ecn: [Option<EcnThresholds>; 8],
    /// The CNP queue (the design's CNP traffic class) is strict priority (else weighted).
    pub cnp_strict: bool,
    /// PFC watchdog on.
    pub pfc_watchdog: bool,
    /// Classifies by DSCP; `false`: by 802.1p PCP only (`trust-pcp`).
    pub trust_dscp: bool,
    /// Headroom (xoff) of the lossless priority group's buffer profile, in bytes (SONiC renders
    /// it; `headroom-small` shrinks it).
    pub headroom_bytes: u64,
    /// The port applies its PFC policy by a name spelled with hyphens for underscores, which no
    /// policy has (`qos-policy-typo`, OS10).
    pub policy_typo: bool,
    /// MTU in bytes.
    pub mtu: u32,
    /// Link speed in Gb/s (configured and operational alike).
    pub speed_gbps: u32,
    /// Admin and oper up.
    pub up: bool,
    /// The neighbour shows in this switch's LLDP table (the `lldp-missing` fault clears it).
    pub lldp: bool,
    /// Counters.
    pub counters: SwitchPortCounters,
}

/// One simulated switch.
#[derive(Debug, Clone, PartialEq)]
pub struct LabSwitch {
    /// Inventory and host name: `leaf1`, `spine2`.
    pub name: String,
    /// Leaf or spine.
    pub role: SwitchRole,
    /// Network OS.
    pub platform: Platform,
    /// System MAC (the LLDP chassis ID).
    pub mac: [u8; 6],
    /// Management address (advertised in LLDP).
    pub mgmt_ipv4: Ipv4Addr,
    /// Traffic class of each DSCP, switch-wide.
    pub dscp_to_tc: [u8; 64],
    /// EOS: the CLI answers `| json` (else it refuses every JSON form: `json-refused`).
    pub json_cli: bool,
    /// SONiC: the PFC watchdog's BIG_RED_SWITCH is on (`big-red-switch`).
    pub big_red_switch: bool,
    /// NX-OS: no `priority-flow-control watch-dog-interval` line in the running-config
    /// (`pfcwd-unset`).
    pub pfcwd_unset: bool,
    /// SONiC: no `PORT_QOS_MAP` table in the config DB (`qos-map-absent`): the QoS maps, queues
    /// and buffers are defined, but bound to no port.
    pub qos_map_absent: bool,
    /// Linked ports: host ports first (leaves), then uplinks; a spine's ports go to leaf 1, 2 ...
    pub ports: Vec<SwitchPort>,
    /// How its SSH server behaves.
    pub ssh: SshBehaviour,
}

impl LabSwitch {
    /// A port by name.
    pub fn port(&self, name: &str) -> Option<&SwitchPort> {
        self.ports.iter().find(|p| p.name == name)
    }
}

/// The whole lab: hosts, switches, and which host rail is cabled to which leaf port.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Fabric {
    /// GPU hosts.
    pub hosts: Vec<LabHost>,
    /// Leaves, then spines.
    pub switches: Vec<LabSwitch>,
    /// Per host, per RoCE rail: the leaf (index into `switches`) and its port (index into its
    /// ports); empty for a host on no leaf (a lab without switches).
    pub host_links: Vec<Vec<(usize, usize)>>,
    /// When the lab started, nanoseconds since the epoch (0: not said): the clock its captures
    /// share.
    pub started_unix_ns: u64,
    /// The design the fabric was built to: which classes the switches' configurations name.
    pub design: Design,
}

impl Fabric {
    /// A switch's index by name.
    pub fn switch_index(&self, name: &str) -> Option<usize> {
        self.switches.iter().position(|s| s.name == name)
    }

    /// Whether `sw` is the second, fourth... switch of its platform: those run the other
    /// generation of their OS and print its variants of an output, so that the auditor meets
    /// both in every lab.
    pub fn other_generation(&self, sw: &LabSwitch) -> bool {
        let mut same_platform = self.switches.iter().filter(|s| s.platform == sw.platform);
        same_platform.position(|s| s.name == sw.name).is_some_and(|i| i % 2 == 1)
    }

    /// A host's index by name.
    pub fn host_index(&self, name: &str) -> Option<usize> {
        self.hosts.iter().position(|h| h.name == name)
    }

    /// The leaf port a host's RoCE rail is cabled to: `(switch, port)`.
    pub fn host_link(&self, host: usize, rail: usize) -> Option<(usize, usize)> {
        self.host_links.get(host).and_then(|l| l.get(rail)).copied()
    }
}
