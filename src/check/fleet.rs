//! Checks across hosts: what must be the same on every host because one setting or one
//! qualification serves them all. NCCL_IB_GID_INDEX is one value for every rank, so the RoCEv2
//! IPv4 GID must sit at the same index on every RoCE port; and one adapter model should run one
//! firmware version, since versions differ in RoCE and congestion-control defaults and in the
//! bugs they carry.

use crate::facts::{AdapterFacts, evidence_file};
use fabcheck_model::{Finding, Severity};
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// What one host brings to the checks across hosts.
pub struct HostFleet {
    /// Inventory name.
    pub host: String,
    /// Its RoCE ports: (port label, index of the RoCEv2 IPv4 GID).
    pub gids: Vec<(String, u32)>,
    /// Its adapters whose model and firmware were read.
    pub adapters: Vec<AdapterFacts>,
}

/// Every check across hosts.
pub fn check(hosts: &[&HostFleet]) -> Vec<Finding> {
    let mut findings = gid_index_consistency(hosts);
    findings.extend(firmware_consistency(hosts));
    findings
}

/// Every port whose RoCEv2 GID index is not the one most ports have: `nic.gid_index_inconsistent`.
fn gid_index_consistency(hosts: &[&HostFleet]) -> Vec<Finding> {
    let mut counts: BTreeMap<u32, usize> = BTreeMap::new();
    for (_, index) in hosts.iter().flat_map(|h| &h.gids) {
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
        .flat_map(|h| h.gids.iter().map(move |(port, index)| (h, port, *index)))
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

/// Every adapter whose firmware is not the version most adapters of its model run:
/// `nic.firmware_inconsistent`. Adapters are counted, not ports, and each model (`CA type`) on
/// its own: a ConnectX-6 Dx and a ConnectX-7 have different firmware lines. Between two versions
/// equally common, the newer is the reference (the older ones are what an upgrade left behind).
fn firmware_consistency(hosts: &[&HostFleet]) -> Vec<Finding> {
    let mut versions: BTreeMap<&str, BTreeMap<&str, usize>> = BTreeMap::new();
    for a in hosts.iter().flat_map(|h| &h.adapters) {
        *versions.entry(&a.model).or_default().entry(&a.firmware).or_default() += 1;
    }
    let reference: BTreeMap<&str, (&str, usize, usize)> = versions
        .iter()
        .filter(|(_, by_version)| by_version.len() > 1)
        .filter_map(|(model, by_version)| {
            let total = by_version.values().sum();
            let (common, n) = by_version
                .iter()
                .max_by(|(a, n), (b, m)| n.cmp(m).then_with(|| version_order(a, b)))
                .map(|(v, n)| (*v, *n))?;
            Some((*model, (common, n, total)))
        })
        .collect();
    let mut findings = Vec::new();
    for h in hosts {
        for a in &h.adapters {
            let Some(&(common, n, total)) = reference.get(a.model.as_str()) else { continue };
            if a.firmware == common {
                continue;
            }
            let (hca, model, firmware) = (&a.hca, &a.model, &a.firmware);
            findings.push(
                Finding::new(
                    "nic.firmware_inconsistent",
                    Severity::Warning,
                    &h.host,
                    format!(
                        "{hca} ({model}) runs firmware {firmware}, while {n} of the {total} {model} adapters audited run {common}: one adapter model should run one firmware version across a cluster, since versions differ in RoCE and congestion-control defaults and in the bugs they fix"
                    ),
                )
                .port(hca.clone())
                .expected_actual(format!("firmware {common}"), format!("firmware {firmware}"))
                .evidence(evidence_file(&h.host, a.source)),
            );
        }
    }
    findings
}

/// Orders dotted version numbers by their numbers (`28.9.1` before `28.10.1`), and anything
/// else as text.
fn version_order(a: &str, b: &str) -> Ordering {
    let numbers = |v: &str| v.split('.').map(str::parse::<u64>).collect::<Result<Vec<_>, _>>();
    match (numbers(a), numbers(b)) {
        (Ok(x), Ok(y)) => x.cmp(&y),
        _ => a.cmp(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fabcheck_parse::linux::ibstat;

    fn host(name: &str, ports: &[(&str, u32)]) -> HostFleet {
        HostFleet {
            host: name.into(),
            gids: ports.iter().map(|(p, i)| (p.to_string(), *i)).collect(),
            adapters: Vec::new(),
        }
    }

    fn with_firmware(name: &str, adapters: &[(&str, &str, &str)]) -> HostFleet {
        let adapters = adapters
            .iter()
            .map(|(hca, model, firmware)| AdapterFacts {
                hca: hca.to_string(),
                model: model.to_string(),
                firmware: firmware.to_string(),
                source: "ibstat",
            })
            .collect();
        HostFleet { host: name.into(), gids: Vec::new(), adapters }
    }

    /// (host, port, expected, actual) of each firmware finding.
    fn firmware_findings(hosts: &[&HostFleet]) -> Vec<(String, String, String, String)> {
        check(hosts)
            .into_iter()
            .inspect(|f| assert_eq!((f.code.as_str(), f.severity), ("nic.firmware_inconsistent", Severity::Warning)))
            .map(|f| (f.device, f.port.unwrap_or_default(), f.expected, f.actual))
            .collect()
    }

    #[test]
    fn the_port_off_the_common_index_is_named_and_one_index_everywhere_is_clean() {
        let (a, b) =
            (host("gpu01", &[("ens1np0", 3), ("ens2np0", 3)]), host("gpu02", &[("ens1np0", 5), ("ens2np0", 3)]));
        let hosts = [&a, &b];
        let found: Vec<(String, Option<String>, String)> =
            check(&hosts).into_iter().map(|f| (f.device, f.port, f.actual)).collect();
        assert_eq!(found, [("gpu02".to_string(), Some("ens1np0".to_string()), "GID index 5".to_string())]);
        assert!(check(&hosts[..1]).is_empty());
    }

    #[test]
    fn the_adapter_off_its_models_common_firmware_is_named() {
        let a = with_firmware("gpu01", &[("mlx5_0", "MT4129", "28.39.1002"), ("mlx5_1", "MT4129", "28.39.1002")]);
        let b = with_firmware("gpu02", &[("mlx5_0", "MT4129", "28.36.1010"), ("mlx5_1", "MT4129", "28.39.1002")]);
        let found = firmware_findings(&[&a, &b]);
        assert_eq!(
            found,
            [("gpu02".into(), "mlx5_0".into(), "firmware 28.39.1002".into(), "firmware 28.36.1010".into())]
        );
        let f = &check(&[&a, &b])[0];
        assert_eq!(f.evidence, ["gpu02/ibstat.txt"]);
        assert!(f.message.contains("3 of the 4 MT4129 adapters audited run 28.39.1002"), "{}", f.message);
    }

    /// luigifcruz/stelline's host (ibv_devinfo in the real samples): two ConnectX-7s on
    /// 28.41.1000, two on 28.43.2566. Neither is the majority: the older pair is named.
    #[test]
    fn between_two_versions_equally_common_the_older_is_named() {
        let h = with_firmware(
            "stelline",
            &[
                ("mlx5_0", "MT4129", "28.41.1000"),
                ("mlx5_1", "MT4129", "28.41.1000"),
                ("mlx5_2", "MT4129", "28.43.2566"),
                ("mlx5_3", "MT4129", "28.43.2566"),
            ],
        );
        let named: Vec<String> = firmware_findings(&[&h]).into_iter().map(|(_, port, ..)| port).collect();
        assert_eq!(named, ["mlx5_0", "mlx5_1"]);
        assert_eq!(version_order("28.9.1", "28.10.1"), Ordering::Less);
        assert_eq!(version_order("28.43.2566", "28.41.1000"), Ordering::Greater);
    }

    /// A real host with two ConnectX-7s and a ConnectX-6 Dx (mooncake's ibstat): two firmware
    /// lines, one per model, and nothing to report.
    #[test]
    fn each_model_is_compared_with_its_own_kind_only() {
        let text = include_str!(
            "../../crates/parse/tests/fixtures/ibstat/ibstat-cx7-roce-200g-plus-cx6dx-disabled-mooncake-1999-PARTIAL.txt"
        );
        let cas = ibstat::parse(text).unwrap().value.cas;
        let adapters: Vec<(&str, &str, &str)> = cas
            .iter()
            .map(|c| (c.name.as_str(), c.ca_type.as_deref().unwrap(), c.firmware_version.as_deref().unwrap()))
            .collect();
        assert_eq!(
            adapters.iter().map(|(_, model, fw)| (*model, *fw)).collect::<Vec<_>>(),
            [("MT4129", "28.39.1002"), ("MT4129", "28.39.1002"), ("MT4125", "22.31.1014")]
        );
        let h = with_firmware("mooncake", &adapters);
        assert!(firmware_findings(&[&h]).is_empty());
    }
}
