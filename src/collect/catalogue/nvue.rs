//! NVIDIA Cumulus Linux with NVUE: the applied configuration as YAML, `nv show`, and lldpd.

use super::{Probe, probe};
use fabcheck_inventory::is_safe_name;

/// Configuration, RoCE state and LLDP.
pub fn config() -> Vec<Probe> {
    vec![
        probe("config", "nvue", "nv config show -o yaml"),
        probe("roce", "nvue_roce", "nv show qos roce"),
        probe("lldp", "lldp", "lldpcli show neighbors"),
    ]
}

/// The operational RoCE state of each linked port (what the port actually runs).
pub fn ports(ports: &[String]) -> Vec<Probe> {
    ports
        .iter()
        .filter(|p| is_safe_name(p))
        .map(|p| {
            probe(format!("roce_status.{p}"), "nvue_roce_status", format!("nv show interface {p} qos roce status"))
        })
        .collect()
}

/// RoCE counters of each linked port (NVUE has them per interface only).
pub fn counters(phase: &str, ports: &[String]) -> Vec<Probe> {
    ports
        .iter()
        .filter(|p| is_safe_name(p))
        .map(|p| {
            probe(
                format!("roce_counters.{p}.{phase}"),
                "nvue_roce_counters",
                format!("nv show interface {p} qos roce counters"),
            )
        })
        .collect()
}
