//! A healthy lab host: what a well-configured H100/ConnectX-7 RoCE node looks like.
//!
//! Two RoCE rails (trust dscp, PFC on priority 3, DSCP 26 → priority 3, DSCP 48 → priority 6,
//! MTU 4200, 400 Gb/s) and one InfiniBand HCA on an NDR fabric with a subnet manager, a
//! management `eth0` on 10.0.0.0/16, libibverbs and nvidia_peermem installed. Values are
//! derived from the host index so every host differs (GUIDs, MACs, addresses, LIDs) but a lab of
//! the same size is always the same.

use crate::state::{Counter, LabHost, LabNic, LinkLayer, NcclHost, SshBehaviour, SubnetManager, Trust};
use std::collections::{BTreeMap, BTreeSet};
use std::net::Ipv4Addr;

/// Number of completion vectors (IRQs) per NIC.
const VECTORS_PER_NIC: u32 = 8;
/// RoCE rails per host.
const ROCE_NICS: u32 = 2;
/// CPUs per host.
const CPUS: u32 = 32;
/// LID of the lab's subnet manager (on the IB switch).
pub const SM_LID: u32 = 1;

/// The name of the lab host with this 0-based index: `gpu001` for index 0.
pub fn host_name(index: usize) -> String {
    format!("gpu{:03}", index + 1)
}

/// A healthy host.
pub fn healthy_host(index: usize) -> LabHost {
    let i = index as u32;
    let mut nics = Vec::new();
    for n in 0..ROCE_NICS {
        nics.push(roce_nic(i, n));
    }
    nics.push(ib_hca(i, ROCE_NICS));
    // Each NIC's completion vectors get their own block of cores (NUMA-local, exclusive), the
    // tuning seeds/002 recommends.
    let mut irq_affinity = BTreeMap::new();
    for (n, nic) in nics.iter().enumerate() {
        for (v, irq) in nic.irqs.iter().enumerate() {
            irq_affinity.insert(*irq, vec![n as u32 * VECTORS_PER_NIC + v as u32]);
        }
    }
    LabHost {
        name: host_name(index),
        cpus: CPUS,
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
        }),
        ssh: SshBehaviour::default(),
        mgmt_ipv4: {
            let n = i + 1;
            Ipv4Addr::new(10, 0, (n >> 8) as u8, (n & 0xff) as u8)
        },
        nccl: NcclHost::default(),
    }
}

fn roce_nic(host: u32, n: u32) -> LabNic {
    let mut dscp_to_priority = [0u8; 64];
    for (dscp, prio) in dscp_to_priority.iter_mut().enumerate() {
        *prio = (dscp / 8) as u8; // The firmware default: DSCP 26 → 3, DSCP 48 → 6.
    }
    let mut pfc = [false; 8];
    pfc[3] = true;
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
        irqs: irqs(n),
        ethtool_counters: ethtool_counters(host),
        hw_counters: hw_counters(host),
        port_counters: BTreeMap::new(),
    }
}

fn ib_hca(host: u32, n: u32) -> LabNic {
    let mut nic = roce_nic(host, n);
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
    nic
}

/// `10.NET.x.y` for host index `host`, unique for up to 65,535 hosts (the `.0` address skipped).
fn host_address(net: u8, host: u32) -> Ipv4Addr {
    let n = host + 1;
    Ipv4Addr::new(10, net, (n >> 8) as u8, (n & 0xff) as u8)
}

fn irqs(n: u32) -> Vec<u32> {
    (0..VECTORS_PER_NIC).map(|v| 140 + n * (VECTORS_PER_NIC + 1) + v).collect()
}

fn moving(base: u64, per_s: u64) -> Counter {
    Counter { base, per_s }
}

/// The counters of a healthy RoCE rail under a training job's steady traffic: bytes and packets
/// move, priority 3 carries the RoCE traffic with a trickle of PFC pauses, nothing is dropped.
fn ethtool_counters(host: u32) -> BTreeMap<String, Counter> {
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
        let (bytes, pause) = if prio == 3 { (7_800_000_000, 120) } else { (0, 0) };
        put(&format!("rx_prio{prio}_bytes"), moving(if prio == 3 { seed * 1000 } else { 0 }, bytes));
        put(&format!("rx_prio{prio}_packets"), moving(0, bytes / 4096));
        put(&format!("tx_prio{prio}_bytes"), moving(0, bytes));
        put(&format!("tx_prio{prio}_packets"), moving(0, bytes / 4096));
        put(&format!("rx_prio{prio}_pause"), moving(if prio == 3 { 1_024 } else { 0 }, pause));
        put(&format!("rx_prio{prio}_pause_duration"), moving(0, pause * 3));
        put(&format!("tx_prio{prio}_pause"), moving(if prio == 3 { 877 } else { 0 }, pause));
        put(&format!("tx_prio{prio}_pause_duration"), moving(0, pause * 3));
        put(&format!("rx_prio{prio}_discards"), Counter::fixed(0));
    }
    c
}

/// RDMA hw_counters of a healthy port: CNPs and ECN marks trickle (DCQCN at work), no errors.
fn hw_counters(host: u32) -> BTreeMap<String, Counter> {
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
    c.insert("np_cnp_sent".into(), moving(1_333 + host as u64, 40));
    c.insert("np_ecn_marked_roce_packets".into(), moving(1_200 + host as u64, 40));
    c.insert("rp_cnp_handled".into(), moving(1_310 + host as u64, 40));
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
