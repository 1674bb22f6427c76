//! Facts of `ibdev2netdev` (MLNX_OFED), as its parser (`fabcheck_parse::linux::ibdev2netdev`) produces them.

use serde::Serialize;

/// Everything `ibdev2netdev` printed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ibdev2netdev {
    /// One entry per RDMA device port, in output order.
    pub mappings: Vec<Mapping>,
}

/// One `HCA port N ==> netdev (Up)` line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mapping {
    /// RDMA device, e.g. `mlx5_0`.
    pub hca: String,
    /// Port number.
    pub port: u32,
    /// Linux network interface, e.g. `ens6` or `ib0`.
    pub netdev: String,
    /// The netdev's link: `(Up)` is true, `(Down)` false, anything else unknown.
    pub up: Option<bool>,
    /// PCI address (`-v` only), e.g. `0000:02:00.0`.
    pub pci: Option<String>,
    /// The adapter's device ID and part number or PSID (`-v` only), as printed in parentheses:
    /// `MT4123 - MCX653106A-ECAT`.
    pub adapter: Option<String>,
    /// The adapter's description (`-v` only): `ConnectX-6 VPI adapter card, 100Gb/s ...`.
    pub description: Option<String>,
    /// Firmware version (`-v` only).
    pub firmware: Option<String>,
    /// RDMA port state (`-v` only), e.g. `ACTIVE`, `DOWN`.
    pub port_state: Option<String>,
}
