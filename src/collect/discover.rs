//! Which RDMA ports a host has: `ibdev2netdev` names them and their netdevs, `ibstat` says which
//! link layer each port runs. The inventory's `fabcheck_nics` narrows the list down.

use crate::evidence::DeviceRecord;
use fabcheck_parse::linux::{ibdev2netdev, ibstat, ip_link};

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

/// The ports of a host from its collected `ibdev2netdev` and `ibstat` outputs; `wanted` (HCA or
/// netdev names from the inventory) keeps only those. Names in `wanted` that no tool reports are
/// taken as RoCE netdevs, so an inventory can still name NICs on hosts without ibdev2netdev.
pub fn discover_ports(record: &DeviceRecord, wanted: &[String]) -> Vec<RdmaPort> {
    let text = |key| record.output(key).map(|e| String::from_utf8_lossy(&e.stdout)).unwrap_or_default();
    let cas = ibstat::parse(&text("ibstat")).map(|p| p.value.cas).unwrap_or_default();
    let links = ip_link::parse(&text("ip_link")).map(|p| p.value.links).unwrap_or_default();
    // InfiniBand or RoCE, by the best evidence there is: ibstat's link layer for the port; else
    // (ibstat missing, failed or cut short) the kernel's link type of its netdev
    // (`infiniband` for IPoIB); else the IPoIB naming (`ib0`, `ibp65s0`). An unreadable ibstat
    // must not turn an InfiniBand port into a RoCE one and bury it in RoCE findings.
    let link_layer_ib = |hca: &str, port: u32, netdev: &str| {
        let ibstat = cas.iter().filter(|ca| ca.name == hca).flat_map(|ca| &ca.ports).find(|p| p.port == port);
        if let Some(layer) = ibstat.and_then(|p| p.link_layer.as_deref()) {
            return layer == "InfiniBand";
        }
        if let Some(kind) = links.iter().find(|l| l.ifname == netdev).and_then(|l| l.link_type.as_deref()) {
            return kind == "infiniband";
        }
        netdev.starts_with("ib")
    };
    let mut ports: Vec<RdmaPort> = match ibdev2netdev::parse(&text("ibdev2netdev")) {
        Ok(parsed) => parsed
            .value
            .mappings
            .iter()
            .map(|m| RdmaPort {
                hca: m.hca.clone(),
                port: m.port,
                netdev: Some(m.netdev.clone()),
                infiniband: link_layer_ib(&m.hca, m.port, &m.netdev),
            })
            .collect(),
        Err(_) => Vec::new(),
    };
    if !wanted.is_empty() {
        ports.retain(|p| wanted.iter().any(|w| *w == p.hca || Some(w) == p.netdev.as_ref()));
        for w in wanted {
            if !ports.iter().any(|p| *w == p.hca || Some(w) == p.netdev.as_ref()) {
                ports.push(RdmaPort { hca: w.clone(), port: 1, netdev: Some(w.clone()), infiniband: false });
            }
        }
    }
    ports
}
