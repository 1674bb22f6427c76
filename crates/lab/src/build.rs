//! A healthy lab: what well-configured H100/ConnectX-7 RoCE nodes and their switches look like,
//! built to a [`Design`] (the built-in policy's by default, whose values these docs give).
//!
//! Two RoCE rails (trust dscp, PFC on priority 3, DSCP 26 → priority 3, DSCP 48 → priority 6,
//! MTU 4200, 400 Gb/s) and one InfiniBand HCA on an NDR fabric with a subnet manager, a
//! management `eth0` on 10.0.0.0/16, libibverbs and nvidia_peermem installed. Values are
//! derived from the host index so every host differs (GUIDs, MACs, addresses, LIDs) but a lab of
//! the same size is always the same.
//!
//! Switches ([`build_fabric`]): a two-tier Clos of leaves and spines of three platforms by
//! default (SONiC, EOS, NVUE; [`build_fabric_with_platforms`] picks each switch's, NX-OS and
//! Dell OS10 included), each
//! linked port lossless on priority 3 as the `roce-lossless-prio3` policy wants it: PFC on
//! priority 3 only, DSCP 26 → TC 3 and DSCP 48 → TC 6, TC → queue identity, queue 3 DWRR 50 with
//! ECN at 150 KB / 1500 KB, queue 6 strict priority for CNPs, PFC watchdog on, MTU 9216, 400G.

use crate::design::Design;
use crate::state::{
    Counter, Fabric, HostLldp, LabDcqcn, LabHost, LabNic, LabSwitch, LinkLayer, NcclHost, Peer, Platform, SshBehaviour,
    SubnetManager, SwitchPort, SwitchPortCounters, SwitchRole, Trust,
};
use std::collections::{BTreeMap, BTreeSet};
use std::net::Ipv4Addr;

/// Number of completion vectors (IRQs) per NIC, unless `--channels` says otherwise.
const VECTORS_PER_NIC: u32 = 8;
/// RoCE rails per host.
const ROCE_NICS: u32 = 2;
/// A host's CPUs, in blocks of one core per completion vector: the two RoCE NICs' blocks in the
/// first NUMA node, the InfiniBand HCA's at the start of the second (32 CPUs by default).
const CORE_BLOCKS: u32 = 4;
/// LID of the lab's subnet manager (on the IB switch).
pub const SM_LID: u32 = 1;

/// The name of the lab host with this 0-based index: `gpu001` for index 0.
pub fn host_name(index: usize) -> String {
    format!("gpu{:03}", index + 1)
}

/// A healthy host of the built-in design.
pub fn healthy_host(index: usize) -> LabHost {
    healthy_host_on(&Design::default(), index)
}

/// A healthy host of `design`: its RoCE rails lossless on the design's priorities, mapping its
/// DSCPs there, with DCQCN and CNP marking as the design says.
pub fn healthy_host_on(design: &Design, index: usize) -> LabHost {
    let i = index as u32;
    let mut nics = Vec::new();
    for n in 0..ROCE_NICS {
        nics.push(roce_nic(design, i, n));
    }
    nics.push(ib_hca(design, i, ROCE_NICS));
    let irq_affinity = own_cores(&nics, VECTORS_PER_NIC);
    LabHost {
        name: host_name(index),
        cpus: CORE_BLOCKS * VECTORS_PER_NIC,
        gpus: 8,
        nics,
        irq_affinity,
        modules: ["nvidia_peermem", "mlx5_ib", "ib_uverbs", "ib_core", "mlx5_core", "mlxfw", "nvidia_uvm", "nvidia"]
            .map(String::from)
            .to_vec(),
        missing_tools: BTreeSet::new(),
        sm: Some(SubnetManager {
            lid: SM_LID,
            guid: 0x0c42_a103_00b9_5bfa,
            priority: 15,
            activity: Counter { base: 5_568_705, per_s: 3 },
            standby_priority: Some(13),
        }),
        ssh: SshBehaviour::default(),
        mgmt_ipv4: {
            let n = i + 1;
            Ipv4Addr::new(10, 0, (n >> 8) as u8, (n & 0xff) as u8)
        },
        nccl: NcclHost::default(),
        lldp: HostLldp::default(),
        old_busybox_timeout: false,
    }
}

/// CNPs a healthy RoCE rail sends (`np_cnp_sent`) and handles (`rp_cnp_handled`) a second.
pub const CNP_PER_S: u64 = 40;
/// Switch port MTU.
pub const SWITCH_MTU: u32 = 9216;
/// Switch port speed in Gb/s.
pub const SWITCH_SPEED_GBPS: u32 = 400;
/// Headroom (xoff) of a lossless priority group on a 400G port with a 5 m cable, in bytes: above
/// the 149,467 bytes the mlx5 driver's formula asks for at MTU 9216.
pub const HEADROOM_BYTES: u64 = 195_584;
/// DWRR weight (bandwidth percent) of the RoCE queue.
pub const ROCE_QUEUE_WEIGHT: u32 = 50;
/// ECN marking probability at Kmax, percent.
pub const ECN_PROBABILITY: u32 = 100;
/// PFC watchdog detection and restoration time, ms (SONiC, EOS).
pub const WATCHDOG_MS: u32 = 200;

/// Leaf `i`'s platform (0-based): SONiC, EOS, NVUE, SONiC ...
pub fn leaf_platform(i: usize) -> Platform {
    [Platform::Sonic, Platform::Eos, Platform::Nvue][i % 3]
}

/// Spine `j`'s platform (0-based): NVUE, SONiC, EOS, NVUE ...
pub fn spine_platform(j: usize) -> Platform {
    [Platform::Nvue, Platform::Sonic, Platform::Eos][j % 3]
}

/// The name of the `k`th front-panel port (0-based): `Ethernet0, Ethernet4 ...` (SONiC),
/// `Ethernet1/1, Ethernet2/1 ...` (EOS), `swp1, swp2 ...` (NVUE), `Ethernet1/1, Ethernet1/2 ...`
/// (NX-OS, one line card), `ethernet1/1/1, ethernet1/1/2 ...` (OS10: unit, slot, port, in the
/// lower case OS10 writes).
pub fn port_name(platform: Platform, k: usize) -> String {
    match platform {
        Platform::Sonic => format!("Ethernet{}", 4 * k),
        Platform::Eos => format!("Ethernet{}/1", k + 1),
        Platform::Nvue => format!("swp{}", k + 1),
        Platform::Nxos => format!("Ethernet1/{}", k + 1),
        Platform::DellOs10 => format!("ethernet1/1/{}", k + 1),
    }
}

/// The hosts cabled to leaf `leaf` of `leaves`: contiguous blocks, as even as they divide.
pub fn hosts_of_leaf(leaf: usize, leaves: usize, hosts: usize) -> std::ops::Range<usize> {
    if leaves == 0 {
        return 0..0;
    }
    leaf * hosts / leaves..(leaf + 1) * hosts / leaves
}

/// A healthy lab of `hosts` hosts, `leaves` leaves and `spines` spines, each switch on the
/// default rotation ([`leaf_platform`], [`spine_platform`]): see
/// [`build_fabric_with_platforms`].
pub fn build_fabric(hosts: usize, leaves: usize, spines: usize) -> Fabric {
    build_fabric_on(&Design::default(), hosts, &default_platforms(leaves, spines))
}

/// The default rotation's platforms for `leaves` leaves and `spines` spines.
pub fn default_platforms(leaves: usize, spines: usize) -> (Vec<Platform>, Vec<Platform>) {
    ((0..leaves).map(leaf_platform).collect(), (0..spines).map(spine_platform).collect())
}

/// A healthy lab of `hosts` hosts, one leaf per entry of `leaf_platforms` and one spine per
/// entry of `spine_platforms`, running those platforms (`leaf1` the first): both RoCE rails of
/// each host on its leaf (hosts split between leaves in contiguous blocks), every leaf on every
/// spine. Without leaves the hosts are on no switch (and the spines on nothing).
pub fn build_fabric_with_platforms(hosts: usize, leaf_platforms: &[Platform], spine_platforms: &[Platform]) -> Fabric {
    build_fabric_on(&Design::default(), hosts, &(leaf_platforms.to_vec(), spine_platforms.to_vec()))
}

/// [`build_fabric_with_platforms`] on `design`: every host and switch configured to it.
pub fn build_fabric_on(
    design: &Design,
    hosts: usize,
    (leaf_platforms, spine_platforms): &(Vec<Platform>, Vec<Platform>),
) -> Fabric {
    let hosts: Vec<LabHost> = (0..hosts).map(|i| healthy_host_on(design, i)).collect();
    let leaves = leaf_platforms.len();
    let spine_platforms = if leaves == 0 { &[][..] } else { spine_platforms };
    let spines = spine_platforms.len();
    let mut switches: Vec<LabSwitch> = leaf_platforms
        .iter()
        .enumerate()
        .map(|(i, p)| healthy_switch(design, i, SwitchRole::Leaf, i, *p))
        .chain(
            spine_platforms
                .iter()
                .enumerate()
                .map(|(j, p)| healthy_switch(design, leaves + j, SwitchRole::Spine, j, *p)),
        )
        .collect();
    let mut host_links = vec![Vec::new(); hosts.len()];
    let mut leaf_uplink_base = vec![0; leaves];
    for (leaf, base) in leaf_uplink_base.iter_mut().enumerate() {
        for h in hosts_of_leaf(leaf, leaves, hosts.len()) {
            for rail in 0..hosts[h].roce_nics().count() {
                host_links[h].push((leaf, switches[leaf].ports.len()));
                add_port(design, &mut switches[leaf], leaf, Peer::Host { host: h, rail });
            }
        }
        *base = switches[leaf].ports.len();
    }
    for (leaf, base) in leaf_uplink_base.iter().enumerate() {
        for s in 0..spines {
            add_port(design, &mut switches[leaf], leaf, Peer::Switch { switch: leaves + s, port: leaf });
            add_port(design, &mut switches[leaves + s], leaves + s, Peer::Switch { switch: leaf, port: base + s });
        }
    }
    Fabric { hosts, switches, host_links, started_unix_ns: 0, design: design.clone() }
}

/// A switch without ports yet; `index` is its place in the lab (for addresses), `n` its number
/// within its role.
fn healthy_switch(design: &Design, index: usize, role: SwitchRole, n: usize, platform: Platform) -> LabSwitch {
    let oui = match platform {
        Platform::Sonic => [0x1c, 0x34, 0xda],
        Platform::Eos => [0x44, 0x4c, 0xa8],
        Platform::Nvue => [0xb8, 0xce, 0xf6],
        Platform::Nxos => [0x00, 0x2a, 0x6a],
        Platform::DellOs10 => [0x90, 0xb1, 0x1c],
    };
    let id = index as u32 + 1;
    LabSwitch {
        name: format!("{}{}", role.name(), n + 1),
        role,
        platform,
        mac: [oui[0], oui[1], oui[2], role as u8, (id >> 8) as u8, id as u8],
        mgmt_ipv4: Ipv4Addr::new(10, 1, (id >> 8) as u8, id as u8),
        dscp_to_tc: design.switch_dscp_map(),
        json_cli: true,
        big_red_switch: false,
        pfcwd_unset: false,
        qos_map_absent: false,
        ports: Vec::new(),
        ssh: SshBehaviour::default(),
    }
}

/// Adds a healthy linked port to `switch` (lab index `index`).
fn add_port(design: &Design, switch: &mut LabSwitch, index: usize, peer: Peer) {
    let k = switch.ports.len();
    switch.ports.push(SwitchPort {
        name: port_name(switch.platform, k),
        peer,
        pfc: std::array::from_fn(|prio| design.is_lossless(prio)),
        ecn: design.queue_ecn(),
        cnp_strict: design.cnp_strict(),
        pfc_watchdog: design.watchdog,
        trust_dscp: true,
        headroom_bytes: HEADROOM_BYTES,
        policy_typo: false,
        mtu: SWITCH_MTU,
        speed_gbps: SWITCH_SPEED_GBPS,
        up: true,
        lldp: true,
        counters: switch_port_counters(design, index as u64 * 1_000 + k as u64),
    });
}

/// Counters of a healthy switch port under a training job: RoCE traffic on the RoCE class's queue
/// (3 in every reference design), a trickle of PFC pauses on its priority and, where the design
/// marks ECN and sends CNPs, of ECN marks and CNPs; nothing dropped.
fn switch_port_counters(design: &Design, seed: u64) -> SwitchPortCounters {
    let (prio, tc) = (design.roce().priority as usize, design.roce().tc as usize);
    let mut c = SwitchPortCounters::default();
    c.pfc_rx[prio] = moving(1_024 + seed % 977, 120);
    c.pfc_tx[prio] = moving(877 + seed % 613, 120);
    c.queue_tx_packets[0] = moving(12_345_000 + seed * 31, 2_000);
    c.queue_tx_bytes[0] = moving(1_580_160_000 + seed * 3_968, 2_000 * 128);
    c.queue_tx_packets[tc] = moving(4_772_046_000 + seed * 1_009, 1_900_000);
    c.queue_tx_bytes[tc] = moving(5_776_095_473_000 + seed * 4_132_864, 1_900_000 * 4_096);
    if let Some(cnp) = design.cnp.filter(|_| design.dcqcn) {
        let q = cnp.tc as usize;
        c.queue_tx_packets[q] = moving(1_333 + seed % 101, 40);
        c.queue_tx_bytes[q] = moving((1_333 + seed % 101) * 82, 40 * 82);
    }
    if design.roce().ecn.is_some() {
        c.ecn_marked = moving(1_200 + seed % 211, 40);
    }
    c
}

/// The ConnectX firmware's DSCP-to-priority map, which the driver installs when a port starts
/// trusting DSCP (`mlnx_qos --trust dscp`): DSCP `d` to priority `d >> 3`, so DSCP 26 → 3 and
/// DSCP 48 → 6.
pub(crate) fn firmware_dscp_map() -> [u8; 64] {
    std::array::from_fn(|dscp| (dscp >> 3) as u8)
}

/// The DSCP map a host of `design` runs: the firmware's, with each lossless DSCP it does not
/// already put on its class's priority set there (`mlnx_qos --dscp2prio set,D,P`).
fn host_dscp_map(design: &Design) -> [u8; 64] {
    let mut map = firmware_dscp_map();
    for c in &design.lossless {
        for &d in &c.dscps {
            map[d as usize] = c.priority;
        }
    }
    map
}

/// DCQCN as a host of `design` runs it: the firmware's defaults (every priority on, CNPs on
/// DSCP 48 and priority 6) with the design's CNP marking, or both points off on every priority
/// where the design runs without DCQCN.
fn host_dcqcn(design: &Design) -> LabDcqcn {
    let mut d = LabDcqcn::default();
    if let Some(cnp) = design.cnp {
        (d.cnp_dscp, d.cnp_prio) = (cnp.dscp, cnp.priority);
    }
    if !design.dcqcn {
        (d.rp, d.np) = ([false; 8], [false; 8]);
    }
    d
}

fn roce_nic(design: &Design, host: u32, n: u32) -> LabNic {
    let dscp_to_priority = host_dscp_map(design);
    let pfc = std::array::from_fn(|prio| design.is_lossless(prio));
    let roce_priority = design.roce().priority;
    LabNic {
        ibdev: format!("mlx5_{n}"),
        netdev: format!("ens{}np0", n + 1),
        link_layer: LinkLayer::Ethernet,
        pci: format!("0000:{:02x}:00.0", 0x1a + n * 0x20),
        ca_type: "MT4129".into(),
        firmware: "28.39.1002".into(),
        node_guid: 0x946d_ae03_0000_0000 | ((host as u64) << 8) | n as u64,
        mac: [0x94, 0x6d, 0xae, (host >> 8) as u8, host as u8, n as u8],
        ipv4: Some(host_address(100 + n as u8, host)),
        rocev2_gid: true,
        ipv4_gid_index: 2,
        lossless_buffer_bytes: 220_896,
        up: true,
        rate_gbps: 400,
        width: "4X".into(),
        speed_name: "NDR".into(),
        mtu: 4200,
        lid: 0,
        sm_lid: 0,
        trust: Trust::Dscp,
        pfc,
        dscp_to_priority,
        priority_to_tc: [1, 0, 2, 3, 4, 5, 6, 7],
        irqs: irqs(n, VECTORS_PER_NIC),
        queue_counters: 0,
        ethtool_counters: ethtool_counters(host, roce_priority.into()),
        hw_counters: hw_counters(host, design.dcqcn),
        port_counters: BTreeMap::new(),
        dcqcn: Some(host_dcqcn(design)),
        roce_dscp: design.roce_dscp(),
        roce_priority,
    }
}

fn ib_hca(design: &Design, host: u32, n: u32) -> LabNic {
    let mut nic = roce_nic(design, host, n);
    nic.netdev = "ib0".into();
    nic.link_layer = LinkLayer::InfiniBand;
    nic.mtu = 4092;
    nic.lid = host + 2;
    nic.sm_lid = SM_LID;
    nic.ipv4 = Some(host_address(200, host));
    nic.trust = Trust::Pcp;
    nic.pfc = [false; 8];
    nic.ethtool_counters = BTreeMap::new();
    nic.port_counters = port_counters(host);
    nic.dcqcn = None;
    nic
}

/// `10.NET.x.y` for host index `host`, unique for up to 65,535 hosts (the `.0` address skipped).
fn host_address(net: u8, host: u32) -> Ipv4Addr {
    let n = host + 1;
    Ipv4Addr::new(10, net, (n >> 8) as u8, (n & 0xff) as u8)
}

/// The completion IRQs of NIC `n`, each NIC's after its async IRQ.
fn irqs(n: u32, vectors: u32) -> Vec<u32> {
    (0..vectors).map(|v| 140 + n * (vectors + 1) + v).collect()
}

/// Each NIC's completion vectors on their own block of cores (NUMA-local, exclusive), as NVIDIA's
/// `set_irq_affinity` scripts (MLNX_OFED, "Performance Tuning for Mellanox Adapters") place them: NIC `n`'s vector `v` on core `n * vectors + v`.
fn own_cores(nics: &[LabNic], vectors: u32) -> BTreeMap<u32, Vec<u32>> {
    let mut affinity = BTreeMap::new();
    for (n, nic) in nics.iter().enumerate() {
        for (v, irq) in nic.irqs.iter().enumerate() {
            affinity.insert(*irq, vec![n as u32 * vectors + v as u32]);
        }
    }
    affinity
}

/// Makes `host` a host of real size for its NICs: `channels` channels a NIC (1 to 63), as mlx5
/// opens one per core up to the device's limit, so that many completion IRQs a NIC, each on a
/// core of its own, and every channel's per-queue counters in the RoCE ports' `ethtool -S` (38
/// a channel, as in a real mlx5 dump). The host gets four blocks of `channels` cores, split
/// into two NUMA nodes: the two RoCE NICs' IRQs in the first, the InfiniBand HCA's at the start
/// of the second (8 channels is the default lab's 32 CPUs).
pub fn with_channels(host: &mut LabHost, channels: u32) {
    let channels = channels.clamp(1, 63);
    host.cpus = CORE_BLOCKS * channels;
    for (n, nic) in host.nics.iter_mut().enumerate() {
        nic.irqs = irqs(n as u32, channels);
        nic.queue_counters = if nic.link_layer == LinkLayer::Ethernet { channels } else { 0 };
    }
    host.irq_affinity = own_cores(&host.nics, channels);
}

fn moving(base: u64, per_s: u64) -> Counter {
    Counter { base, per_s }
}

/// The counters of a healthy RoCE rail under a training job's steady traffic: bytes and packets
/// move, the RoCE priority (`roce`, 3) carries the RoCE traffic with a trickle of PFC pauses,
/// nothing is dropped.
fn ethtool_counters(host: u32, roce: u32) -> BTreeMap<String, Counter> {
    let seed = host as u64 * 1_000_003;
    let mut c = BTreeMap::new();
    let mut put = |name: &str, counter: Counter| {
        c.insert(name.to_string(), counter);
    };
    put("rx_packets", moving(5_487_361_000 + seed, 2_000_000));
    put("rx_bytes", moving(1_063_043_816_000 + seed, 8_000_000_000));
    put("tx_packets", moving(5_116_718_000 + seed, 2_000_000));
    put("tx_bytes", moving(5_813_725_708_000 + seed, 8_000_000_000));
    put("rx_vport_rdma_unicast_packets", moving(4_493_131_000 + seed, 1_900_000));
    put("rx_vport_rdma_unicast_bytes", moving(982_145_029_000 + seed, 7_800_000_000));
    put("tx_vport_rdma_unicast_packets", moving(4_772_046_000 + seed, 1_900_000));
    put("tx_vport_rdma_unicast_bytes", moving(5_776_095_473_000 + seed, 7_800_000_000));
    put("rx_out_of_buffer", Counter::fixed(0));
    put("rx_discards_phy", Counter::fixed(0));
    put("tx_discards_phy", Counter::fixed(0));
    put("rx_crc_errors_phy", Counter::fixed(0));
    put("rx_symbol_err_phy", Counter::fixed(0));
    put("rx_pause_ctrl_phy", Counter::fixed(0));
    put("tx_pause_ctrl_phy", Counter::fixed(0));
    for prio in 0..8u32 {
        let (bytes, pause) = if prio == roce { (7_800_000_000, 120) } else { (0, 0) };
        put(&format!("rx_prio{prio}_bytes"), moving(if prio == roce { seed * 1000 } else { 0 }, bytes));
        put(&format!("rx_prio{prio}_packets"), moving(0, bytes / 4096));
        put(&format!("tx_prio{prio}_bytes"), moving(0, bytes));
        put(&format!("tx_prio{prio}_packets"), moving(0, bytes / 4096));
        put(&format!("rx_prio{prio}_pause"), moving(if prio == roce { 1_024 } else { 0 }, pause));
        put(&format!("rx_prio{prio}_pause_duration"), moving(0, pause * 3));
        put(&format!("tx_prio{prio}_pause"), moving(if prio == roce { 877 } else { 0 }, pause));
        put(&format!("tx_prio{prio}_pause_duration"), moving(0, pause * 3));
        put(&format!("rx_prio{prio}_discards"), Counter::fixed(0));
    }
    c
}

/// RDMA hw_counters of a healthy port: CNPs and ECN marks trickle where DCQCN is at work (flat
/// where the design runs without it), no errors.
fn hw_counters(host: u32, dcqcn: bool) -> BTreeMap<String, Counter> {
    let cnps = if dcqcn { CNP_PER_S } else { 0 };
    let mut c = BTreeMap::new();
    for name in [
        "duplicate_request",
        "implied_nak_seq_err",
        "local_ack_timeout_err",
        "out_of_buffer",
        "out_of_sequence",
        "packet_seq_err",
        "req_cqe_error",
        "req_cqe_flush_error",
        "req_remote_access_errors",
        "req_remote_invalid_request",
        "resp_cqe_error",
        "resp_cqe_flush_error",
        "resp_local_length_error",
        "resp_remote_access_errors",
        "rnr_nak_retry_err",
        "roce_adp_retrans",
        "roce_adp_retrans_to",
        "roce_slow_restart",
        "roce_slow_restart_trans",
        "rp_cnp_ignored",
        "rx_atomic_requests",
        "rx_dct_connect",
    ] {
        c.insert(name.to_string(), Counter::fixed(0));
    }
    c.insert("lifespan".into(), Counter::fixed(12));
    c.insert("np_cnp_sent".into(), moving(1_333 + host as u64, cnps));
    c.insert("np_ecn_marked_roce_packets".into(), moving(1_200 + host as u64, cnps));
    c.insert("rp_cnp_handled".into(), moving(1_310 + host as u64, cnps));
    c.insert("roce_slow_restart_cnps".into(), moving(131, 0));
    c.insert("rx_icrc_encapsulated".into(), Counter::fixed(0));
    c.insert("rx_read_requests".into(), moving(43_243, 500));
    c.insert("rx_write_requests".into(), moving(805_950, 90_000));
    c
}

/// IB port counters (`perfquery -x`) of a healthy HDR/NDR port.
fn port_counters(host: u32) -> BTreeMap<String, Counter> {
    let mut c = BTreeMap::new();
    let seed = host as u64 * 7_919;
    c.insert("PortXmitData".into(), moving(20_839_466_044_000 + seed, 12_000_000_000));
    c.insert("PortRcvData".into(), moving(20_840_215_398_000 + seed, 12_000_000_000));
    c.insert("PortXmitPkts".into(), moving(80_443_214_000 + seed, 11_000_000));
    c.insert("PortRcvPkts".into(), moving(80_449_211_000 + seed, 11_000_000));
    c.insert("PortUnicastXmitPkts".into(), moving(80_443_200_000 + seed, 11_000_000));
    c.insert("PortUnicastRcvPkts".into(), moving(80_449_200_000 + seed, 11_000_000));
    c.insert("PortMulticastXmitPkts".into(), Counter::fixed(14));
    c.insert("PortMulticastRcvPkts".into(), Counter::fixed(1_722));
    for name in [
        "SymbolErrorCounter",
        "LinkErrorRecoveryCounter",
        "LinkDownedCounter",
        "PortRcvErrors",
        "PortRcvRemotePhysicalErrors",
        "PortRcvSwitchRelayErrors",
        "PortXmitDiscards",
        "PortXmitConstraintErrors",
        "PortRcvConstraintErrors",
        "LocalLinkIntegrityErrors",
        "ExcessiveBufferOverrunErrors",
        "VL15Dropped",
        "QP1Dropped",
    ] {
        c.insert(name.to_string(), Counter::fixed(0));
    }
    c.insert("PortXmitWait".into(), moving(1_221, 10));
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A host of real size keeps the default lab's tuning: each completion IRQ on a core of its
    /// own, the RoCE NICs' in the first NUMA node and the HCA's in the second.
    #[test]
    fn hosts_with_channels_get_the_cores_their_irqs_need() {
        let mut host = healthy_host(0);
        with_channels(&mut host, 48);
        assert_eq!(host.cpus, 192);
        assert!(host.nics.iter().all(|n| n.irqs.len() == 48));
        let queues: Vec<u32> = host.nics.iter().map(|n| n.queue_counters).collect();
        assert_eq!(queues, [48, 48, 0], "per-queue counters on the RoCE ports only");
        let cores: Vec<u32> = host.irq_affinity.values().flatten().copied().collect();
        assert_eq!(cores.len(), 144);
        assert_eq!(cores.iter().collect::<BTreeSet<_>>().len(), 144, "no core shared");
        let of = |nic: usize| host.nics[nic].irqs.iter().map(|irq| host.irq_affinity[irq][0]).collect::<Vec<_>>();
        assert!(of(0).iter().chain(&of(1)).all(|c| *c < 96) && of(2).iter().all(|c| (96..192).contains(c)));
        let mut small = healthy_host(0);
        with_channels(&mut small, 2);
        assert_eq!(small.cpus, 8);
        assert_eq!(small.irq_affinity[&small.nics[2].irqs[0]], [4], "the HCA's IRQs in the second node");
        let all: Vec<u32> = small.nics.iter().flat_map(|n| n.irqs.clone()).collect();
        assert_eq!(all.iter().collect::<BTreeSet<_>>().len(), all.len(), "IRQ numbers unique");
    }
}
