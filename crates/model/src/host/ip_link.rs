//! Facts of `ip -j link show` (iproute2 JSON), as its parser (`fabcheck_parse::linux::ip_link`) produces them.

use serde::Serialize;

/// All interfaces in the output.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct IpLinks {
    /// Interfaces in the order printed.
    pub links: Vec<IpLink>,
}

/// One interface.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IpLink {
    /// Kernel interface index.
    pub ifindex: u32,
    /// Interface name.
    pub ifname: String,
    /// MTU in bytes.
    pub mtu: u32,
    /// `UP`, `DOWN`, `UNKNOWN` ...
    pub operstate: String,
    /// Interface flags, e.g. `UP`, `LOWER_UP`, `NO-CARRIER`.
    pub flags: Vec<String>,
    /// `ether`, `infiniband`, `loopback` ...
    pub link_type: Option<String>,
    /// Link-layer address.
    pub address: Option<String>,
}
