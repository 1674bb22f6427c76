//! Facts of RDMA port counters, as its parser (`fabcheck_parse::linux::hw_counters`) produces them.

use serde::Serialize;
use std::collections::BTreeMap;

/// Counters of every port in the output.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct HwCounters {
    /// Ports sorted by HCA name and port number.
    pub ports: Vec<HcaPort>,
}

/// The counters of one HCA port.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HcaPort {
    /// RDMA device, e.g. `mlx5_0` (empty when `show_counters` output does not name it).
    pub hca: String,
    /// Port number.
    pub port: u32,
    /// Counter name -> value.
    pub counters: BTreeMap<String, u64>,
}
