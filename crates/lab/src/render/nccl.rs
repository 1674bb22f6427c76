//! What NCCL 2.26 (or 2.4, on an `nccl-2.4` host) finds on a lab host (network, devices,
//! GPUDirect, bootstrap interface), and the lab's bandwidth model. `nccl_tests.rs` prints it; this
//! module only decides.
//!
//! # What NCCL picks, as the real library does
//! - **Bootstrap/OOB interface**: `NCCL_SOCKET_IFNAME` (a comma list of name prefixes, `=` for
//!   exact names, `^` to exclude), else the `ib*` interfaces, else any but `lo`/`docker*`, else
//!   `docker*`, else `lo` (NCCL's `ncclFindInterfaces`); an interface needs an IPv4 address and,
//!   for a NIC's netdev, a carrier. Every host has `lo` (127.0.0.1), so `NCCL_SOCKET_IFNAME=lo`
//!   takes it: 127.0.0.1 reaches no other host, and a job across hosts cannot bootstrap
//!   (`nccl_log.rs`).
//! - **Network**: `NET/IB` over every RDMA port that is `ACTIVE` and matches `NCCL_IB_HCA` (same
//!   list syntax with an optional `:port`), in `mlx5_N` order, each printed `[i]name:1/RoCE` or
//!   `/IB`. No libibverbs (`nccl-socket`) prints `Failed to open libibverbs.so[.1]`;
//!   `NCCL_IB_DISABLE=1`, `NCCL_NET=Socket`, or no matching port (`NET/IB : No device found.`) fall
//!   back to `NET/Socket` over the bootstrap interfaces.
//! - **GPUDirect RDMA**: with `nvidia_peermem` (or `nv_peer_mem`) loaded, and only over IB.
//!
//! # Bandwidth model
//! A host's bus bandwidth at large sizes (GB/s, 10^9 B/s) is the sum over the NET/IB devices it
//! uses of `rate_gbps / 8 × 0.92` — two 400G rails give 92 GB/s, in line with the
//! 45–50 GB/s per 400G port that a 400 Gb/s link (50 GB/s) carries at 90-100 % bus bandwidth
//! (nccl-tests, doc/PERFORMANCE.md) — counting only the devices on the fabric the run's other rails are on
//! (a host whose `NCCL_IB_HCA` catches its InfiniBand HCA while the others use RoCE loses that
//! rail: `hca-renamed`). Then, per host:
//! - `link-degraded`: the rail's rate is halved in the state, so it counts half;
//! - a RoCE rail with an MTU under 4200 (an IB MTU under 4096) counts ×0.9;
//! - a RoCE rail without a RoCEv2 GID (or without the `NCCL_IB_GID_INDEX` entry) carries nothing;
//! - no GPUDirect RDMA (`peermem-missing`): ×0.7, transfers staged through host memory;
//! - a rail that loses packets — the RoCE priority (DSCP 26, or 0 with `trust pcp`) without PFC,
//!   while out_of_buffer grows (`pfc-off` with `out-of-buffer`) — makes the host ×0.6, jittering
//!   ±12 % from one size to the next as retransmissions come and go;
//! - `NET/Socket` (no libibverbs, IB disabled, no device): 2.5 GB/s, kernel TCP over the
//!   interface;
//! - `nic-shared` (PCIe topology hidden): every channel through the first device, so one rail;
//! - the GPUs of one host reach each other at 360 GB/s over NVLink, 21 GB/s where GPU 0 lost
//!   its NVLinks (`nvlink-down`): a run alone on the host goes at that, and a multi-host run never
//!   faster than its slowest host's GPUs.
//!
//! A run goes at its slowest host. `nccl_tests.rs` turns that into a curve per collective.

use super::common::{self, PortState, port_state};
use crate::state::{LabHost, LabNic, LinkLayer, NcclRelease, Trust};
use std::collections::BTreeMap;
use std::net::Ipv4Addr;

/// The environment of a process: `NAME → value`.
pub(crate) type Env = BTreeMap<String, String>;

/// The NCCL the lab's hosts have.
pub(crate) const VERSION: &str = "2.26.2+cuda12.4";
/// The NCCL of an `nccl-2.4` host: horovod/horovod#1523's `NCCL version 2.4.7+cuda10.0`.
pub(crate) const VERSION_2_4: &str = "2.4.7+cuda10.0";

/// The version string `release` prints.
pub(crate) fn version(release: NcclRelease) -> &'static str {
    match release {
        NcclRelease::V2_26 => VERSION,
        NcclRelease::V2_4 => VERSION_2_4,
    }
}

/// `cudaDriverVersion` NCCL reports (driver 550, CUDA 12.4).
pub(crate) const CUDA_DRIVER: u32 = 12040;
/// The lab's GPUs.
pub(crate) const GPU_NAME: &str = "NVIDIA H100 80GB HBM3";
/// PCI bus of GPU 0..7 on an HGX H100 board.
const GPU_BUSES: [u8; 8] = [0x18, 0x2a, 0x3a, 0x5d, 0x9a, 0xab, 0xba, 0xdb];

/// Share of a RoCE/IB rail's signalling rate NCCL turns into bus bandwidth.
pub(crate) const RAIL_EFFICIENCY: f64 = 0.92;
/// Bus bandwidth of NCCL's socket transport (GB/s).
pub(crate) const SOCKET_GBS: f64 = 2.5;
/// Factor without GPUDirect RDMA.
pub(crate) const NO_GDR: f64 = 0.7;
/// Mean factor of a host losing packets (with ±[`LOSSY_JITTER`]/2 around it).
pub(crate) const LOSSY: f64 = 0.6;
/// Peak-to-peak relative jitter of a host losing packets.
pub(crate) const LOSSY_JITTER: f64 = 0.24;
/// Factor of a RoCE rail with an IB MTU below 4096.
const SMALL_MTU: f64 = 0.9;
/// Bus bandwidth between the GPUs of one host over NVLink (GB/s).
pub(crate) const NVLINK_GBS: f64 = 360.0;
/// Bus bandwidth between the GPUs of one host when one GPU reaches the others over PCIe (Gen5
/// through the host bridge, GB/s): the `nvlink-down` host.
pub(crate) const PCIE_GBS: f64 = 21.0;

/// PCI bus of GPU `dev`.
pub(crate) fn gpu_bus(dev: u32) -> u8 {
    GPU_BUSES.get(dev as usize).copied().unwrap_or(0xe0u8.wrapping_add(dev as u8))
}

/// An interface NCCL's socket code may use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Iface {
    /// `eth0`.
    pub name: String,
    /// Its IPv4 address.
    pub ip: Ipv4Addr,
}

impl Iface {
    /// `eth0:10.0.0.1<0>` as NCCL prints it.
    pub(crate) fn show(&self) -> String {
        format!("{}:{}<0>", self.name, self.ip)
    }

    /// A loopback address (`lo`'s 127.0.0.1): no other host reaches it.
    pub(crate) fn loopback(&self) -> bool {
        self.ip.is_loopback()
    }
}

/// One NET/IB device (port 1 of an RDMA device).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct IbDev {
    /// `mlx5_0`.
    pub name: String,
    /// RoCE or InfiniBand.
    pub link_layer: LinkLayer,
    /// Bandwidth it carries (GB/s) before host-wide factors: 0 when it cannot carry traffic.
    pub gbs: f64,
    /// It drops packets under load (no PFC on the RoCE priority while out_of_buffer grows).
    pub lossy: bool,
}

impl IbDev {
    /// `mlx5_0:1/RoCE`.
    pub(crate) fn show(&self) -> String {
        let ll = match self.link_layer {
            LinkLayer::Ethernet => "RoCE",
            LinkLayer::InfiniBand => "IB",
        };
        format!("{}:1/{ll}", self.name)
    }
}

/// The network NCCL uses on a host.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Net {
    /// `NET/IB` over these devices (never empty).
    Ib(Vec<IbDev>),
    /// `NET/Socket` over these interfaces (never empty).
    Socket(Vec<Iface>),
}

/// What NCCL makes of a host, given the environment of its ranks.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct HostNccl {
    /// Bootstrap interface; `None`: `Bootstrap : no socket interface found`, and the rank fails.
    pub oob: Option<Iface>,
    /// libibverbs could not be loaded (a `NCCL WARN`).
    pub no_ibverbs: bool,
    /// libibverbs loaded but no port matched (`NET/IB : No device found.`).
    pub no_ib_device: bool,
    /// The network, when there is an interface to run it on.
    pub net: Option<Net>,
    /// GPUDirect RDMA.
    pub gdr: bool,
    /// NCCL sees no NIC near any GPU (`nic-shared`): every channel goes through the first device.
    pub one_nic: bool,
    /// Bus bandwidth between the host's GPUs (GB/s): NVLink, or PCIe where a GPU lost its NVLinks.
    pub intra_gbs: f64,
    /// The interfaces NCCL's socket code found (the first is `oob`): what NCCL 2.4 lists at
    /// init whatever the network.
    pub socket_ifaces: Vec<Iface>,
    /// The NCCL release its ranks run.
    pub release: NcclRelease,
}

impl HostNccl {
    /// `IB` or `Socket`, as in `Using network IB`.
    pub(crate) fn net_name(&self) -> &'static str {
        match self.net {
            Some(Net::Ib(_)) => "IB",
            _ => "Socket",
        }
    }

    /// Number of network devices (at least 1).
    pub(crate) fn devices(&self) -> usize {
        match &self.net {
            Some(Net::Ib(d)) => d.len().max(1),
            Some(Net::Socket(i)) => i.len().max(1),
            None => 1,
        }
    }

    /// The link layers of the NET/IB devices.
    pub(crate) fn link_layers(&self) -> Vec<LinkLayer> {
        match &self.net {
            Some(Net::Ib(d)) => d.iter().map(|d| d.link_layer).collect(),
            _ => Vec::new(),
        }
    }

    /// How many network devices the channels go through: all of them, or the first only.
    pub(crate) fn lanes(&self) -> usize {
        if self.one_nic { 1 } else { self.devices() }
    }

    /// Whether a rail loses packets.
    pub(crate) fn lossy(&self) -> bool {
        matches!(&self.net, Some(Net::Ib(d)) if d.iter().any(|d| d.lossy && d.gbs > 0.0))
    }

    /// Bus bandwidth of the host at large sizes (GB/s) when the run's fabric is `fabric`, and
    /// how many rails carry it: the model of the module doc, before the lossy factor.
    pub(crate) fn gbs(&self, fabric: LinkLayer) -> (f64, usize) {
        match &self.net {
            Some(Net::Ib(devs)) => {
                let usable: Vec<f64> = devs
                    .iter()
                    .take(self.lanes())
                    .filter(|d| d.link_layer == fabric && d.gbs > 0.0)
                    .map(|d| d.gbs)
                    .collect();
                if usable.is_empty() {
                    // Nothing reaches the peers' fabric: NCCL's connections time out and
                    // retry; the lab lets it crawl rather than fail.
                    return (SOCKET_GBS * 0.4, 1);
                }
                let gdr = if self.gdr { 1.0 } else { NO_GDR };
                (usable.iter().sum::<f64>() * gdr, usable.len())
            }
            _ => (SOCKET_GBS, 1),
        }
    }
}

/// NCCL's debug level for a process: `VERSION`, `WARN`, `INFO` (TRACE prints as INFO here).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Debug {
    /// `NCCL_DEBUG` unset: nothing.
    None,
    /// The version line only.
    Version,
    /// Warnings.
    Warn,
    /// Everything the lab prints.
    Info,
}

/// The debug level `env` asks for.
pub(crate) fn debug_level(env: &Env) -> Debug {
    match env.get("NCCL_DEBUG").map(|v| v.to_ascii_uppercase()).as_deref() {
        Some("VERSION") => Debug::Version,
        Some("WARN") => Debug::Warn,
        Some("INFO" | "TRACE") => Debug::Info,
        _ => Debug::None,
    }
}

/// Whether `env` has NCCL log every collective it launches: `NCCL_DEBUG=INFO` (or `TRACE`) with
/// the COLL subsystem in `NCCL_DEBUG_SUBSYS` (named, `ALL`, or not excluded by a `^` list; NCCL's
/// default, `INIT,BOOTSTRAP,ENV`, leaves it out).
pub(crate) fn logs_collectives(env: &Env) -> bool {
    let Some(subsys) = env.get("NCCL_DEBUG_SUBSYS").map(|v| v.to_ascii_uppercase()) else {
        return false;
    };
    let (exclude, list) = match subsys.strip_prefix('^') {
        Some(rest) => (true, rest),
        None => (false, subsys.as_str()),
    };
    let named = list.split(',').any(|s| matches!(s.trim(), "COLL" | "ALL"));
    debug_level(env) == Debug::Info && named != exclude
}

/// Whether `name` (and `port`) matches NCCL's device list syntax: `[^][=]name[:port],...`.
pub(crate) fn list_matches(spec: &str, name: &str, port: Option<u32>) -> bool {
    let (exclude, rest) = match spec.strip_prefix('^') {
        Some(r) => (true, r),
        None => (false, spec),
    };
    let (exact, rest) = match rest.strip_prefix('=') {
        Some(r) => (true, r),
        None => (false, rest),
    };
    let hit = rest.split(',').filter(|e| !e.is_empty()).any(|e| {
        let (n, p) = match e.split_once(':') {
            Some((n, p)) => (n, p.parse::<u32>().ok()),
            None => (e, None),
        };
        let name_ok = if exact { name == n } else { name.starts_with(n) };
        name_ok && (p.is_none() || port.is_none() || p == port)
    });
    hit != exclude
}

/// The host's interfaces with an IPv4 address, in `ip link` order: `lo`, `eth0`, then each NIC's
/// netdev that has carrier.
fn interfaces(host: &LabHost) -> Vec<Iface> {
    let mut out =
        vec![Iface { name: "lo".into(), ip: Ipv4Addr::LOCALHOST }, Iface { name: "eth0".into(), ip: host.mgmt_ipv4 }];
    for nic in &host.nics {
        if let (Some(ip), true) = (nic.ipv4, port_state(nic).carrier()) {
            out.push(Iface { name: nic.netdev.clone(), ip });
        }
    }
    out
}

/// The interfaces NCCL's socket code takes (`ncclFindInterfaces`): the user's list, or else the
/// first of `ib*`, anything but `docker*` and `lo`, `docker*`, `lo` that finds one.
fn socket_interfaces(host: &LabHost, env: &Env) -> Vec<Iface> {
    let all = interfaces(host);
    let matching =
        |spec: &str| -> Vec<Iface> { all.iter().filter(|i| list_matches(spec, &i.name, None)).cloned().collect() };
    match env.get("NCCL_SOCKET_IFNAME") {
        Some(spec) => matching(spec),
        None => {
            ["ib", "^docker,lo", "docker", "lo"].into_iter().map(matching).find(|f| !f.is_empty()).unwrap_or_default()
        }
    }
}

/// Whether `nic` loses RoCE packets under load: out_of_buffer grows while its RoCE priority has no
/// PFC (`pfc-off` with `out-of-buffer`).
pub(crate) fn drops_packets(nic: &LabNic) -> bool {
    let growing = nic.hw_counters.get("out_of_buffer").is_some_and(|c| c.per_s > 0);
    growing && !lossless(nic)
}

/// Whether the RoCE priority of `nic` is lossless.
fn lossless(nic: &LabNic) -> bool {
    let prio = match nic.trust {
        Trust::Dscp => nic.dscp_to_priority[usize::from(nic.roce_dscp) & 63],
        Trust::Pcp => 0,
    };
    nic.pfc[prio as usize & 7]
}

fn ib_dev(nic: &LabNic, env: &Env) -> IbDev {
    let mut gbs = f64::from(nic.rate_gbps) / 8.0 * RAIL_EFFICIENCY;
    let mut lossy = false;
    if nic.link_layer == LinkLayer::Ethernet {
        let gids = common::gids(nic);
        let gid_ok = match env.get("NCCL_IB_GID_INDEX").and_then(|v| v.parse::<u32>().ok()) {
            Some(index) => gids.iter().any(|g| g.0 == index),
            None => gids.iter().any(|g| g.3.is_some()),
        };
        if !gid_ok || !nic.rocev2_gid {
            gbs = 0.0;
        }
        if nic.mtu < 4200 {
            gbs *= SMALL_MTU;
        }
        lossy = drops_packets(nic);
    }
    IbDev { name: nic.ibdev.clone(), link_layer: nic.link_layer, gbs, lossy }
}

/// `mlx5_10` after `mlx5_9`.
fn device_order(name: &str) -> (String, u32) {
    let digits = name.trim_end_matches(|c: char| c.is_ascii_digit());
    (digits.to_string(), name[digits.len()..].parse().unwrap_or(0))
}

/// What NCCL makes of `host` for ranks with environment `env`.
pub(crate) fn host_view(host: &LabHost, env: &Env) -> HostNccl {
    let ifaces = socket_interfaces(host, env);
    let oob = ifaces.first().cloned();
    let ib_disabled = env.get("NCCL_IB_DISABLE").is_some_and(|v| v.trim().parse::<i64>().unwrap_or(0) != 0)
        || env.get("NCCL_NET").is_some_and(|v| v.eq_ignore_ascii_case("socket"));
    let gdr_module = host.modules.iter().any(|m| m == "nvidia_peermem" || m == "nv_peer_mem");
    let mut view = HostNccl {
        oob,
        no_ibverbs: false,
        no_ib_device: false,
        net: None,
        gdr: false,
        one_nic: host.nccl.flat_topology,
        intra_gbs: if host.nccl.nvlink_down { PCIE_GBS } else { NVLINK_GBS },
        socket_ifaces: ifaces.clone(),
        release: host.nccl.release,
    };
    if !ib_disabled {
        if !host.nccl.libibverbs {
            view.no_ibverbs = true;
        } else {
            let mut nics: Vec<&LabNic> = host
                .nics
                .iter()
                .filter(|n| port_state(n) == PortState::Active)
                .filter(|n| env.get("NCCL_IB_HCA").is_none_or(|spec| list_matches(spec, &n.ibdev, Some(1))))
                .collect();
            nics.sort_by_key(|n| device_order(&n.ibdev));
            if nics.is_empty() {
                view.no_ib_device = true;
            } else {
                view.net = Some(Net::Ib(nics.into_iter().map(|n| ib_dev(n, env)).collect()));
                view.gdr = gdr_module;
            }
        }
    }
    if view.net.is_none() && !ifaces.is_empty() {
        view.net = Some(Net::Socket(ifaces));
    }
    view
}

/// The link layer most of the run's NET/IB devices are on (RoCE on a tie or when none).
pub(crate) fn fabric(views: &[&HostNccl]) -> LinkLayer {
    let (mut eth, mut ib) = (0, 0);
    for v in views {
        for ll in v.link_layers() {
            match ll {
                LinkLayer::Ethernet => eth += 1,
                LinkLayer::InfiniBand => ib += 1,
            }
        }
    }
    if ib > eth { LinkLayer::InfiniBand } else { LinkLayer::Ethernet }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::healthy_host;
    use crate::faults::{Fault, apply};

    fn env(pairs: &[(&str, &str)]) -> Env {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    fn faulty(faults: &[&str]) -> LabHost {
        let mut host = healthy_host(1);
        for f in faults {
            apply(&mut host, &f.parse::<Fault>().unwrap()).unwrap();
        }
        host
    }

    #[test]
    fn device_lists_follow_nccls_syntax() {
        assert!(list_matches("mlx5_0,mlx5_1", "mlx5_1", Some(1)));
        assert!(list_matches("mlx5_1", "mlx5_10", Some(1)), "a prefix");
        assert!(!list_matches("=mlx5_1", "mlx5_10", Some(1)), "exact");
        assert!(!list_matches("^mlx5_2", "mlx5_2", Some(1)));
        assert!(list_matches("^=mlx5_2", "mlx5_20", Some(1)));
        assert!(!list_matches("mlx5_0:2", "mlx5_0", Some(1)));
        assert!(list_matches("eth", "eth0", None));
    }

    #[test]
    fn a_healthy_host_uses_its_rails_with_gdr() {
        let host = healthy_host(0);
        let v = host_view(&host, &env(&[("NCCL_IB_HCA", "=mlx5_0,mlx5_1"), ("NCCL_SOCKET_IFNAME", "eth0")]));
        assert_eq!(v.oob.as_ref().unwrap().show(), "eth0:10.0.0.1<0>");
        let Some(Net::Ib(devs)) = &v.net else { panic!("{v:?}") };
        let shown: Vec<String> = devs.iter().map(IbDev::show).collect();
        assert_eq!(shown, ["mlx5_0:1/RoCE", "mlx5_1:1/RoCE"]);
        assert!(v.gdr);
        let (gbs, rails) = v.gbs(LinkLayer::Ethernet);
        assert!((gbs - 92.0).abs() < 1e-9 && rails == 2, "{gbs}");
        // Unset: every active port, and the bootstrap on IPoIB as NCCL prefers `ib*`.
        let v = host_view(&host, &Env::new());
        assert_eq!(v.oob.as_ref().unwrap().name, "ib0");
        assert_eq!(v.link_layers().len(), 3);
    }

    #[test]
    fn faults_change_what_nccl_finds() {
        let e = env(&[("NCCL_IB_HCA", "mlx5_0,mlx5_1")]);
        let v = host_view(&faulty(&["gpu002=nccl-socket"]), &e);
        assert!(v.no_ibverbs && v.net_name() == "Socket");
        assert_eq!(v.gbs(LinkLayer::Ethernet).0, SOCKET_GBS);
        let v = host_view(&faulty(&["gpu002=hca-renamed"]), &e);
        let shown: Vec<String> = match &v.net {
            Some(Net::Ib(d)) => d.iter().map(IbDev::show).collect(),
            other => panic!("{other:?}"),
        };
        assert_eq!(shown, ["mlx5_0:1/IB", "mlx5_1:1/RoCE"]);
        assert!((v.gbs(LinkLayer::Ethernet).0 - 46.0).abs() < 1e-9);
        let v = host_view(&faulty(&["gpu002=peermem-missing"]), &e);
        assert!(!v.gdr);
        assert!((v.gbs(LinkLayer::Ethernet).0 - 92.0 * NO_GDR).abs() < 1e-9);
        let v = host_view(&faulty(&["gpu002=link-degraded@mlx5_1"]), &e);
        assert!((v.gbs(LinkLayer::Ethernet).0 - 69.0).abs() < 1e-9);
        let v = host_view(&faulty(&["gpu002=pfc-off"]), &e);
        assert!(!v.lossy(), "PFC off alone loses nothing while buffers keep up");
        let v = host_view(&faulty(&["gpu002=pfc-off", "gpu002=out-of-buffer"]), &e);
        assert!(v.lossy());
        let v = host_view(&faulty(&["gpu002=link-down@mlx5_0"]), &e);
        assert_eq!(v.link_layers().len(), 1);
        let v = host_view(&healthy_host(0), &env(&[("NCCL_IB_HCA", "mlx5_9")]));
        assert!(v.no_ib_device && v.net_name() == "Socket");
        let v = host_view(&healthy_host(0), &env(&[("NCCL_SOCKET_IFNAME", "=eth9")]));
        assert!(v.oob.is_none() && matches!(v.net, Some(Net::Ib(_))));
    }

    /// Every host has `lo`; NCCL's defaults leave it out, a user's list may take it.
    #[test]
    fn the_loopback_is_taken_only_when_asked_for() {
        let host = healthy_host(0);
        let names = |pairs: &[(&str, &str)]| -> Vec<String> {
            host_view(&host, &env(pairs)).socket_ifaces.iter().map(|i| i.name.clone()).collect()
        };
        assert_eq!(names(&[]), ["ib0"]);
        assert_eq!(names(&[("NCCL_SOCKET_IFNAME", "=eth0")]), ["eth0"]);
        assert_eq!(names(&[("NCCL_SOCKET_IFNAME", "^ib")]), ["lo", "eth0", "ens1np0", "ens2np0"]);
        let v = host_view(&host, &env(&[("NCCL_SOCKET_IFNAME", "lo")]));
        assert_eq!(v.oob.as_ref().map(Iface::show).as_deref(), Some("lo:127.0.0.1<0>"));
        assert!(v.oob.as_ref().is_some_and(Iface::loopback));
        let v = host_view(&host, &env(&[("NCCL_SOCKET_IFNAME", "lo"), ("NCCL_IB_DISABLE", "1")]));
        assert!(matches!(&v.net, Some(Net::Socket(i)) if i.len() == 1 && i[0].name == "lo"), "{v:?}");
        // No IPoIB and no other interface up: NCCL falls back to the loopback last.
        let mut bare = healthy_host(0);
        bare.nics.clear();
        assert_eq!(socket_interfaces(&bare, &Env::new())[0].name, "eth0");
        assert_eq!(
            socket_interfaces(&bare, &env(&[("NCCL_SOCKET_IFNAME", "^eth")]))
                .iter()
                .map(Iface::show)
                .collect::<Vec<_>>(),
            ["lo:127.0.0.1<0>"]
        );
    }
}
