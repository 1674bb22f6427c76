//! Which RDMA ports a host has: `ibdev2netdev` names them and their netdevs, `ibstat` says which
//! link layer each port runs. The inventory's `fabcheck_nics` narrows the list down. Collection
//! plans its per-port commands from these (after its discovery commands), the facts stage builds
//! on them: one reading of the outputs that name the ports.

use super::RdmaPort;
use crate::evidence::DeviceRecord;
use fabcheck_model::host::ibdev2netdev::{Ibdev2netdev, Mapping};
use fabcheck_model::host::ibstat::{Ca, Ibstat};
use fabcheck_model::host::ip_link::{IpLink, IpLinks};
use fabcheck_parse::ParseResult;
use fabcheck_parse::linux::{ibdev2netdev, ibstat, ip_link};

/// What port discovery read, kept so the facts stage reads each of these outputs once: their
/// parse results (`None`: not collected), and the ports they give.
pub struct Discovery {
    /// The ports to audit.
    pub ports: Vec<RdmaPort>,
    /// `ibdev2netdev`, parsed.
    pub ibdev2netdev: Option<ParseResult<Ibdev2netdev>>,
    /// `ibstat`, parsed.
    pub ibstat: Option<ParseResult<Ibstat>>,
    /// `ip -j link`, parsed.
    pub ip_link: Option<ParseResult<IpLinks>>,
}

/// The ports of a host from its collected `ibdev2netdev` and `ibstat` outputs; `wanted` (HCA or
/// netdev names from the inventory) keeps only those. Names in `wanted` that no tool reports are
/// taken as RoCE netdevs, so an inventory can still name NICs on hosts without ibdev2netdev.
pub fn discover_ports(record: &DeviceRecord, wanted: &[String]) -> Vec<RdmaPort> {
    discover(record, wanted).ports
}

/// [`discover_ports`], with the outputs it parsed.
pub fn discover(record: &DeviceRecord, wanted: &[String]) -> Discovery {
    fn parsed<T>(record: &DeviceRecord, key: &str, parse: fn(&str) -> ParseResult<T>) -> Option<ParseResult<T>> {
        record.output(key).map(|e| parse(&e.stdout_text()))
    }
    let ibdev2netdev = parsed(record, "ibdev2netdev", ibdev2netdev::parse);
    let ibstat = parsed(record, "ibstat", ibstat::parse);
    let ip_link = parsed(record, "ip_link", ip_link::parse);
    let cas = value(&ibstat).map_or(&[][..], |s| &s.cas);
    let links = value(&ip_link).map_or(&[][..], |l| &l.links);
    let mappings = value(&ibdev2netdev).map_or(&[][..], |m| &m.mappings);
    let ports = ports_of(mappings, cas, links, wanted);
    Discovery { ports, ibdev2netdev, ibstat, ip_link }
}

/// What a parse gave, when it gave something.
fn value<T>(parsed: &Option<ParseResult<T>>) -> Option<&T> {
    parsed.as_ref().and_then(|p| p.as_ref().ok()).map(|p| &p.value)
}

/// The ports `ibdev2netdev` maps, each InfiniBand or RoCE, narrowed to `wanted`.
fn ports_of(mappings: &[Mapping], cas: &[Ca], links: &[IpLink], wanted: &[String]) -> Vec<RdmaPort> {
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
    let mut ports: Vec<RdmaPort> = mappings
        .iter()
        .map(|m| RdmaPort {
            hca: m.hca.clone(),
            port: m.port,
            netdev: Some(m.netdev.clone()),
            infiniband: link_layer_ib(&m.hca, m.port, &m.netdev),
        })
        .collect();
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
