//! Facts of `show_gids` (MLNX_OFED script), as its parser (`fabcheck_parse::linux::show_gids`) produces them.

use serde::Serialize;

/// Everything `show_gids` printed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ShowGids {
    /// GID table entries in output order.
    pub gids: Vec<Gid>,
    /// The trailing `n_gids_found=N`.
    pub n_gids_found: Option<u32>,
}

/// One GID table entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Gid {
    /// RDMA device, e.g. `mlx5_0`.
    pub dev: String,
    /// Port number.
    pub port: u32,
    /// GID index (what `NCCL_IB_GID_INDEX` selects).
    pub index: u32,
    /// The GID as printed.
    pub gid: String,
    /// The IPv4 address of an IPv4-mapped GID.
    pub ipv4: Option<String>,
    /// RoCE version: `v1` or `v2`.
    pub version: String,
    /// The netdev the GID belongs to (empty on IB ports).
    pub netdev: Option<String>,
}

impl ShowGids {
    /// The GID index NCCL should use for RoCEv2 on `dev`/`port` (`NCCL_IB_GID_INDEX`): the
    /// lowest index that is RoCE v2 and carries an IPv4 address. `None` when the port has none,
    /// which is the `nic.rocev2_gid_missing` finding.
    pub fn rocev2_ipv4_index(&self, dev: &str, port: u32) -> Option<u32> {
        self.gids
            .iter()
            .filter(|g| g.dev == dev && g.port == port && g.version == "v2" && g.ipv4.is_some())
            .map(|g| g.index)
            .min()
    }
}
