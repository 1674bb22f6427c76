//! Checks across hosts: what must be the same on every host because one setting serves them
//! all. NCCL_IB_GID_INDEX is one value for every rank, so the RoCEv2 IPv4 GID must sit at the
//! same index on every RoCE port.

use crate::facts::evidence_file;
use fabcheck_model::{Finding, Severity};
use std::collections::BTreeMap;

/// One host's RoCE ports and the index of each one's RoCEv2 IPv4 GID.
pub struct HostGids {
    /// Inventory name.
    pub host: String,
    /// (port label, GID index).
    pub ports: Vec<(String, u32)>,
}

/// Every port whose RoCEv2 GID index is not the one most ports have: `nic.gid_index_inconsistent`.
pub fn gid_index_consistency(hosts: &[&HostGids]) -> Vec<Finding> {
    let mut counts: BTreeMap<u32, usize> = BTreeMap::new();
    for (_, index) in hosts.iter().flat_map(|h| &h.ports) {
        *counts.entry(*index).or_default() += 1;
    }
    // The most common index; a tie goes to the lowest (what NCCL's own default search finds first).
    let Some((&common, &n)) = counts.iter().max_by_key(|(index, n)| (**n, std::cmp::Reverse(**index))) else {
        return Vec::new();
    };
    if counts.len() < 2 {
        return Vec::new();
    }
    hosts
        .iter()
        .flat_map(|h| h.ports.iter().map(move |(port, index)| (h, port, *index)))
        .filter(|(_, _, index)| *index != common)
        .map(|(h, port, index)| {
            Finding::new(
                "nic.gid_index_inconsistent",
                Severity::Error,
                &h.host,
                format!(
                    "{port}'s RoCEv2 GID is at index {index}, on {n} other ports at {common}: NCCL_IB_GID_INDEX is one value for every host, so this port would use the wrong GID (fabcheck bench then leaves the variable unset for NCCL to pick per host)"
                ),
            )
            .port(port.clone())
            .expected_actual(format!("GID index {common}"), format!("GID index {index}"))
            .evidence(evidence_file(&h.host, "show_gids"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(name: &str, ports: &[(&str, u32)]) -> HostGids {
        HostGids { host: name.into(), ports: ports.iter().map(|(p, i)| (p.to_string(), *i)).collect() }
    }

    #[test]
    fn the_port_off_the_common_index_is_named_and_one_index_everywhere_is_clean() {
        let (a, b) =
            (host("gpu01", &[("ens1np0", 3), ("ens2np0", 3)]), host("gpu02", &[("ens1np0", 5), ("ens2np0", 3)]));
        let hosts = [&a, &b];
        let found: Vec<(String, Option<String>, String)> =
            gid_index_consistency(&hosts).into_iter().map(|f| (f.device, f.port, f.actual)).collect();
        assert_eq!(found, [("gpu02".to_string(), Some("ens1np0".to_string()), "GID index 5".to_string())]);
        assert!(gid_index_consistency(&hosts[..1]).is_empty());
    }
}
