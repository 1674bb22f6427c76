//! What bus bandwidth to expect, and where the figure comes from: the cluster's own saved
//! baseline first, then the policy's floor, then a built-in table of reference figures.

use crate::policy::Policy;

/// A floor on bus bandwidth for messages of at least `min_bytes`.
#[derive(Debug, Clone, PartialEq)]
pub struct Floor {
    /// The floor in GB/s.
    pub min_busbw_gbs: f64,
    /// From this message size on.
    pub min_bytes: u64,
    /// Where it comes from, for the report.
    pub source: String,
}

/// Reference bus bandwidth per NIC port at large messages, with its source. Seeds/003: "跨机
/// 400Gbps IB/RoCE 单口理想约 45–50 GB/s" (one 400G port between hosts: about 45-50 GB/s).
/// Lower rates scale from it (line rate / 8 × ~0.9 efficiency).
pub const REFERENCE: &[(u32, f64, f64, &str)] = &[
    (800, 90.0, 100.0, "scaled from the 400G figure"),
    (400, 45.0, 50.0, "a 400 Gb/s port carries 50 GB/s; nccl-tests doc/PERFORMANCE.md: bus bandwidth 90-100 % of it"),
    (200, 22.5, 25.0, "scaled from the 400G figure"),
    (100, 11.0, 12.5, "scaled from the 400G figure"),
];

/// The floor from the built-in table for `ports` ports of `rate_gbps` each.
pub fn reference_floor(rate_gbps: u32, ports: usize) -> Option<Floor> {
    let (_, low, high, source) = REFERENCE.iter().find(|(rate, ..)| *rate == rate_gbps)?;
    Some(Floor {
        min_busbw_gbs: low * ports as f64,
        min_bytes: 1 << 30,
        source: format!("reference: {ports} × {rate_gbps}G port, {low}-{high} GB/s each ({source})"),
    })
}

/// NVLink 2, 3 and 4 carry 25 GB/s per link and direction (H100 SXM: 18 links, 900 GB/s both
/// ways, NVIDIA's H100 datasheet; A100: 12 links, 600 GB/s; V100: 6 in a DGX-2, 300 GB/s).
const NVLINK_GBS_PER_LINK: f64 = 25.0;
/// The share of it a host's GPUs must reach alone: half. Seeds/003 puts intra-node NVLink at
/// "数百 GB/s" (hundreds of GB/s) on H100; measured rings reach 70-80 %.
const NVLINK_SHARE: f64 = 0.5;

/// The floor for one host alone whose GPUs have `links` NVLinks between every pair, for the
/// collectives whose bus bandwidth is the per-GPU link speed (all-reduce, all-gather,
/// reduce-scatter); others (alltoall, sendrecv) are compared between hosts only.
pub fn nvlink_floor(test: &str, links: u32) -> Option<Floor> {
    let ring = ["all_reduce_perf", "all_gather_perf", "reduce_scatter_perf"];
    if !ring.iter().any(|t| test == *t || test.ends_with(&format!("/{t}"))) || links == 0 {
        return None;
    }
    let min = f64::from(links) * NVLINK_GBS_PER_LINK * NVLINK_SHARE;
    Some(Floor {
        min_busbw_gbs: min,
        min_bytes: 1 << 30,
        source: format!(
            "reference: NV{links} between the GPUs (nvidia-smi topo -m), {NVLINK_GBS_PER_LINK} GB/s per link and direction, {:.0} % of it",
            NVLINK_SHARE * 100.0
        ),
    })
}

/// The policy's floor for `test`.
pub fn policy_floor(policy: &Policy, test: &str) -> Option<Floor> {
    let rule = policy.nccl.iter().find(|r| r.test == test)?;
    Some(Floor {
        min_busbw_gbs: rule.min_busbw_gbs?,
        min_bytes: rule.min_bytes.as_deref().and_then(parse_size).unwrap_or(0),
        source: format!(
            "policy: {test} ≥ {} GB/s from {}",
            rule.min_busbw_gbs?,
            rule.min_bytes.as_deref().unwrap_or("any size")
        ),
    })
}

/// nccl-tests' size syntax: `8`, `128K`, `1M`, `8G` (powers of 1024).
pub fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let (digits, unit) = s.split_at(s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len()));
    let n: u64 = digits.parse().ok()?;
    let shift = match unit.to_ascii_uppercase().as_str() {
        "" | "B" => 0,
        "K" | "KB" | "KIB" => 10,
        "M" | "MB" | "MIB" => 20,
        "G" | "GB" | "GIB" => 30,
        "T" | "TB" | "TIB" => 40,
        _ => return None,
    };
    n.checked_mul(1u64 << shift)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("8"), Some(8));
        assert_eq!(parse_size("128K"), Some(131_072));
        assert_eq!(parse_size("1G"), Some(1 << 30));
        assert_eq!(parse_size("8G"), Some(8 << 30));
        assert_eq!(parse_size("1X"), None);
        assert_eq!(parse_size(""), None);
        assert_eq!(parse_size("99999999999T"), None);
    }

    #[test]
    fn floors() {
        let f = reference_floor(400, 2).unwrap();
        assert_eq!(f.min_busbw_gbs, 90.0);
        assert!(f.source.contains("nccl-tests doc/PERFORMANCE.md"));
        assert_eq!(reference_floor(123, 1), None);
        let nv = nvlink_floor("all_reduce_perf", 18).unwrap();
        assert_eq!(nv.min_busbw_gbs, 225.0);
        assert!(nv.source.contains("NV18"), "{}", nv.source);
        assert_eq!(nvlink_floor("alltoall_perf", 18), None);
        assert_eq!(nvlink_floor("/opt/nccl-tests/build/all_gather_perf", 12).map(|f| f.min_busbw_gbs), Some(150.0));
        let p = Policy::parse(crate::policy::DEFAULT_POLICY, "p").unwrap();
        let f = policy_floor(&p, "all_reduce_perf").unwrap();
        assert_eq!((f.min_busbw_gbs, f.min_bytes), (45.0, 1 << 30));
        assert_eq!(policy_floor(&p, "alltoall_perf"), None);
    }
}
