//! A GPU host's facts: its RDMA ports (RoCE and InfiniBand) with their QoS, link and GID facts,
//! its adapters' models and firmware, the subnet manager's answer, loaded modules, IRQ placement,
//! counter reads around the window, and its LLDP and InfiniBand fabric views when they were
//! collected.

use super::CounterRead;
use crate::flow_record::FlowRecord;
use crate::host::ethtool_link::EthtoolLink;
use crate::host::ibdev2netdev::Mapping;
use crate::host::iblinkinfo::Iblinkinfo;
use crate::host::ibstat::Port;
use crate::host::interrupts::Interrupts;
use crate::host::ip_link::IpLink;
use crate::host::ip_route::IpRoute;
use crate::host::ip_rule::IpRule;
use crate::host::irq_affinity::IrqAffinity;
use crate::host::lsmod::Lsmod;
use crate::host::mlnx_qos::MlnxQos;
use crate::host::net_conf::NetConf;
use crate::host::nvidia_smi_topo::Topo;
use crate::host::port_rate::PortRate;
use crate::host::roce_ecn::RoceEcn;
use crate::host::saquery_sm::SmRecords;
use crate::switch::LldpNeighbor;

/// One RDMA port to audit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RdmaPort {
    /// RDMA device: `mlx5_0`.
    pub hca: String,
    /// Port number.
    pub port: u32,
    /// Its netdev: `ens1np0`, `ib0`.
    pub netdev: Option<String>,
    /// Whether it is an InfiniBand port (else RoCE).
    pub infiniband: bool,
}

impl RdmaPort {
    /// How findings name it: the netdev for RoCE (what mlnx_qos and ethtool take), `hca/port` for IB.
    pub fn label(&self) -> String {
        match (&self.netdev, self.infiniband) {
            (Some(n), false) => n.clone(),
            _ => format!("{}/{}", self.hca, self.port),
        }
    }
}

/// What a GPU host's evidence says.
#[derive(Debug, Clone, Default)]
pub struct HostFacts {
    /// The RDMA ports audited.
    pub ports: Vec<RdmaPort>,
    /// `ibdev2netdev` ran and listed what it found (so no ports means none, not unknown).
    pub rdma_listed: bool,
    /// The host has no RDMA device at all: the evidence file that shows it (`/sys/class/infiniband`
    /// holds none). Then the RDMA tools' absence and failures say nothing more and are dropped.
    pub no_rdma_device: Option<String>,
    /// RoCE ports.
    pub nics: Vec<NicFacts>,
    /// Every netdev `ip -j link` lists (the RDMA ones and the others: management, bridges).
    pub netdevs: Vec<IpLink>,
    /// InfiniBand ports.
    pub ib_ports: Vec<IbPortFacts>,
    /// The adapters the audited ports sit on, where their model and firmware were read.
    pub adapters: Vec<AdapterFacts>,
    /// What `sminfo` answered (read where the host has InfiniBand ports).
    pub sm: SmAnswer,
    /// Every SM the subnet administrator knows (`saquery -s`), when it answered.
    pub sm_records: Option<SmRecords>,
    /// Loaded kernel modules.
    pub modules: Option<Lsmod>,
    /// Completion-IRQ placement.
    pub irqs: Option<IrqFacts>,
    /// Counter reads before and after the window, per port that was up.
    pub counters: Vec<PortCounterReads>,
    /// LLDP neighbours of its NICs, when lldpd was asked.
    pub lldp: Option<Vec<LldpNeighbor>>,
    /// The InfiniBand fabric's links as this host sees them (`fabcheck_iblinkinfo`).
    pub iblinkinfo: Option<Iblinkinfo>,
    /// How its GPUs reach each other and its NICs (`nvidia-smi topo -m`).
    pub gpu_topo: Option<Topo>,
    /// Its policy-routing rules (`ip -j rule show`).
    pub rules: Option<Vec<IpRule>>,
    /// The routes of every table (`ip -j route show table all`).
    pub routes: Option<Vec<IpRoute>>,
    /// arp_ignore, arp_announce and rp_filter per interface.
    pub net_conf: Option<NetConf>,
    /// The RoCEv2 flows of its ports' captures (`--capture`), as records.
    pub flows: Vec<FlowRecord>,
}

/// What was read about one RoCE port.
#[derive(Debug, Clone)]
pub struct NicFacts {
    /// The port.
    pub port: RdmaPort,
    /// `mlnx_qos -i` output.
    pub qos: Option<MlnxQos>,
    /// Netdev from `ip -j link`.
    pub link: Option<IpLink>,
    /// `ethtool IF`.
    pub ethtool: Option<EthtoolLink>,
    /// ibstat's view of the port.
    pub ibstat: Option<Port>,
    /// Lowest RoCEv2 GID index with an IPv4 address.
    pub rocev2_gid_index: Option<u32>,
    /// Whether show_gids could be read (so a missing GID is a finding, not a guess).
    pub gids_read: bool,
    /// The NIC's DCQCN state.
    pub dcqcn: Dcqcn,
}

/// What the driver says of a RoCE port's DCQCN.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Dcqcn {
    /// Not collected, or its read failed (a `collect.*` finding says why).
    #[default]
    Unknown,
    /// The driver has no `/sys/class/net/IF/ecn` tree (the inbox mlx5 driver, a VF, a bond), or
    /// every file in it printed nothing: a fact for the report, not a fault.
    NotExposed,
    /// The tree as read.
    Read(RoceEcn),
}

/// One adapter card: its model and the firmware it runs, for the check that one firmware line
/// runs one version across the hosts audited. A card shows an RDMA device per port (a dual-port
/// ConnectX-7 is `mlx5_0` and `mlx5_1`), per half of a Socket Direct card and per VF, all on its
/// one firmware: counted per device, one card flashed wrong would count twice and outvote others.
#[derive(Debug, Clone, PartialEq)]
pub struct AdapterFacts {
    /// Its RDMA devices, in the order they were found: `mlx5_0`, `mlx5_1`.
    pub hcas: Vec<String>,
    /// The first device's chip ID, in upper case: ibstat's `CA type` (`MT4129`, a ConnectX-7),
    /// else the first word of `ibdev2netdev -v`'s adapter (`MT4123 - MCX653106A-ECAT`).
    pub model: String,
    /// `28.39.1002`: ibstat's `Firmware version`, else `ibdev2netdev -v`'s.
    pub firmware: String,
    /// The output the firmware version was read from: `ibstat` or `ibdev2netdev`.
    pub source: &'static str,
}

/// One InfiniBand port: ibstat's view and the sysfs rate.
#[derive(Debug, Clone)]
pub struct IbPortFacts {
    /// The port.
    pub port: RdmaPort,
    /// ibstat's view (`None`: ibstat does not list it).
    pub ibstat: Option<Port>,
    /// `/sys/class/infiniband/*/ports/*/rate`.
    pub rate: Option<PortRate>,
}

/// What the subnet manager query said.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SmAnswer {
    /// Not asked or not readable.
    #[default]
    Unknown,
    /// A master SM answered with this LID (0: none).
    Lid(u32),
    /// `sminfo` exited non-zero: no SM answered.
    NoAnswer,
}

/// Which CPUs serve which NIC's completion IRQs.
#[derive(Debug, Clone)]
pub struct IrqFacts {
    /// `/proc/interrupts`.
    pub interrupts: Interrupts,
    /// `smp_affinity_list` per IRQ.
    pub affinity: IrqAffinity,
    /// RDMA devices with their PCI addresses (`ibdev2netdev -v`).
    pub mappings: Vec<Mapping>,
}

/// One port's two counter reads.
#[derive(Debug, Clone)]
pub struct PortCounterReads {
    /// How findings name the port.
    pub label: String,
    /// Before the window.
    pub before: CounterRead,
    /// After it.
    pub after: CounterRead,
}
