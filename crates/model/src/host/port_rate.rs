//! Facts of `grep -H '' /sys/class/infiniband/*/ports/*/rate`, as its parser (`fabcheck_parse::linux::port_rate`) produces them.

use serde::Serialize;

/// Every port's rate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PortRates {
    /// One entry per `.../<hca>/ports/<n>/rate:` line, in output order.
    pub ports: Vec<PortRate>,
}

/// One port's `rate` file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PortRate {
    /// RDMA device, e.g. `mlx5_0`.
    pub hca: String,
    /// Port number.
    pub port: u32,
    /// Data rate in Gb/s (width × lane speed).
    pub rate_gbps: f64,
    /// Active width, e.g. `4X`.
    pub width: Option<String>,
    /// Speed name, e.g. `HDR` (absent for SDR on old kernels).
    pub speed: Option<String>,
}
