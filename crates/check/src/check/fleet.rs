//! Checks across hosts: what must be the same on every host because one setting or one
//! qualification serves them all. NCCL_IB_GID_INDEX is one value for every rank, so the RoCEv2
//! IPv4 GID must sit at the same index on every RoCE port; and the cards of one firmware line
//! should run one version, since versions differ in RoCE and congestion-control defaults and in
//! the bugs they carry.

use fabcheck_model::facts::{AdapterFacts, evidence_file};
use fabcheck_model::{Finding, Severity};
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// What one host brings to the checks across hosts.
pub struct HostFleet {
    /// Inventory name.
    pub host: String,
    /// Its RoCE ports: (port label, index of the RoCEv2 IPv4 GID).
    pub gids: Vec<(String, u32)>,
    /// Its adapter cards whose model and firmware were read.
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

/// Every card whose firmware is not the version most cards of its firmware line run:
/// `nic.firmware_inconsistent`. A line is the version's first number, which NVIDIA gives each
/// adapter family (14 ConnectX-4 Lx, 16 ConnectX-5, 20 ConnectX-6, 22 ConnectX-6 Dx, 28
/// ConnectX-7): the chip ID cannot group them, since one VF ID (`MT4126`) serves several
/// families. Between two versions equally common the newer is the reference: the older ones are
/// what an upgrade left behind.
fn firmware_consistency(hosts: &[&HostFleet]) -> Vec<Finding> {
    let mut versions: BTreeMap<String, BTreeMap<&str, usize>> = BTreeMap::new();
    for card in hosts.iter().flat_map(|h| &h.adapters) {
        *versions.entry(firmware_line(card).0).or_default().entry(&card.firmware).or_default() += 1;
    }
    let reference: BTreeMap<String, (&str, usize, usize)> = versions
        .into_iter()
        .filter(|(_, by_version)| by_version.len() > 1)
        .filter_map(|(line, by_version)| {
            let total = by_version.values().sum();
            let (common, n) =
                by_version.into_iter().max_by(|(a, n), (b, m)| n.cmp(m).then_with(|| version_order(a, b)))?;
            Some((line, (common, n, total)))
        })
        .collect();
    let mut findings = Vec::new();
    for h in hosts {
        for card in &h.adapters {
            let (line, cards) = firmware_line(card);
            let Some(&(common, n, total)) = reference.get(&line) else { continue };
            if card.firmware == common {
                continue;
            }
            let (model, firmware) = (&card.model, &card.firmware);
            let devices = card.hcas.join(", ");
            let what = if card.hcas.len() == 1 {
                format!("{devices} ({model})")
            } else {
                format!("{devices} (one {model} card)")
            };
            findings.push(
                Finding::new(
                    "nic.firmware_inconsistent",
                    Severity::Warning,
                    &h.host,
                    format!(
                        "{what} runs firmware {firmware}, while {n} of the {total} {cards} audited run {common}: one adapter family should run one firmware version across a cluster, since versions differ in RoCE and congestion-control defaults and in the bugs they fix"
                    ),
                )
                .port(card.hcas[0].clone())
                .expected_actual(format!("firmware {common}"), format!("firmware {firmware}"))
                .evidence(evidence_file(&h.host, card.source)),
            );
        }
    }
    findings
}

/// The group a card's firmware is compared within, and how the finding names it: its firmware
/// line, the version's first number (`28` for `28.39.1002`). ConnectX-2, -3 and -3 Pro all
/// number their firmware 2.x, each with its own releases, so line 2 is told apart by model; a
/// version that does not start with a number is grouped by model alone.
fn firmware_line(card: &AdapterFacts) -> (String, String) {
    let model = &card.model;
    match card.firmware.split('.').next().and_then(|major| major.parse::<u64>().ok()) {
        Some(2) => (format!("2 {model}"), format!("{model} cards on firmware line 2.x")),
        Some(major) => (major.to_string(), format!("cards on firmware line {major}.x")),
        None => (model.clone(), format!("{model} cards")),
    }
}

/// Orders versions part by part (split at dots): numbers by value (`28.9.1` before `28.10.1`),
/// before any part that is not a number, and those as text; equal so far (`28.010` and
/// `28.10`), as text.
fn version_order(a: &str, b: &str) -> Ordering {
    version_parts(a).cmp(version_parts(b)).then_with(|| a.cmp(b))
}

/// A version's parts as sort keys: (0, value, "") for a number, (1, 0, text) for anything else.
fn version_parts(version: &str) -> impl Iterator<Item = (u8, u64, &str)> {
    version.split('.').map(|p| p.parse::<u64>().map_or((1, 0, p), |n| (0, n, "")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(name: &str, ports: &[(&str, u32)]) -> HostFleet {
        HostFleet {
            host: name.into(),
            gids: ports.iter().map(|(p, i)| (p.to_string(), *i)).collect(),
            adapters: Vec::new(),
        }
    }

    /// A host's cards: (its RDMA devices, model, firmware).
    fn with_firmware(name: &str, cards: &[(&[&str], &str, &str)]) -> HostFleet {
        let adapters = cards
            .iter()
            .map(|(hcas, model, firmware)| AdapterFacts {
                hcas: hcas.iter().map(|h| h.to_string()).collect(),
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
    fn the_card_off_its_lines_common_firmware_is_named_once() {
        let a = with_firmware(
            "gpu01",
            &[(&["mlx5_0", "mlx5_1"], "MT4129", "28.39.1002"), (&["mlx5_2"], "MT4129", "28.39.1002")],
        );
        let b = with_firmware(
            "gpu02",
            &[(&["mlx5_0", "mlx5_1"], "MT4129", "28.36.1010"), (&["mlx5_2"], "MT4129", "28.39.1002")],
        );
        let found = firmware_findings(&[&a, &b]);
        assert_eq!(
            found,
            [("gpu02".into(), "mlx5_0".into(), "firmware 28.39.1002".into(), "firmware 28.36.1010".into())]
        );
        let f = &check(&[&a, &b])[0];
        assert_eq!(f.evidence, ["gpu02/ibstat.txt"]);
        assert!(
            f.message.starts_with("mlx5_0, mlx5_1 (one MT4129 card) runs firmware 28.36.1010, while 3 of the 4 cards on firmware line 28.x audited run 28.39.1002"),
            "{}",
            f.message
        );
    }

    /// luigifcruz/stelline's host (its ibv_devinfo is in the real samples): a dual-port
    /// ConnectX-7 on 28.41.1000 and another on 28.43.2566. Neither is the majority: the older
    /// card is named, once. With versions whose text order is not their order (28.9 and 28.10),
    /// the older by number is named.
    #[test]
    fn between_two_versions_equally_common_the_older_is_named() {
        let h = with_firmware(
            "stelline",
            &[(&["mlx5_0", "mlx5_1"], "MT4129", "28.41.1000"), (&["mlx5_2", "mlx5_3"], "MT4129", "28.43.2566")],
        );
        let named: Vec<String> = firmware_findings(&[&h]).into_iter().map(|(_, port, ..)| port).collect();
        assert_eq!(named, ["mlx5_0"]);
        let h = with_firmware("gpu01", &[(&["mlx5_0"], "MT4129", "28.9.1000"), (&["mlx5_1"], "MT4129", "28.10.1000")]);
        let named: Vec<String> = firmware_findings(&[&h]).into_iter().map(|(.., actual)| actual).collect();
        assert_eq!(named, ["firmware 28.9.1000"], "28.10 is the newer, though not as text");
        assert_eq!(version_order("28.9.1", "28.10.1"), Ordering::Less);
        assert_eq!(version_order("28.10.1", "28.10.1x"), Ordering::Less, "a number before text");
        assert_eq!(version_order("28.10.1x", "28.9.1"), Ordering::Greater);
        assert_ne!(version_order("28.010.1", "28.10.1"), Ordering::Equal, "a strict order");
    }

    /// Cards are compared within their firmware line only: ConnectX-7s (28.x) beside a ConnectX-6
    /// Dx (22.x) is no skew, nor are VFs of two families that share the VF ID `MT4126`.
    #[test]
    fn each_firmware_line_is_compared_with_itself_only() {
        let h = with_firmware(
            "mixed",
            &[
                (&["mlx5_0", "mlx5_1"], "MT4129", "28.39.1002"),
                (&["mlx5_10"], "MT4125", "22.31.1014"),
                (&["mlx5_2"], "MT4126", "22.31.1014"),
                (&["mlx5_3"], "MT4126", "28.39.1002"),
            ],
        );
        assert!(firmware_findings(&[&h]).is_empty());
        let odd = with_firmware("odd", &[(&["mlx4_0"], "MT26428", "x.1"), (&["mlx4_1"], "MT26428", "y.1")]);
        assert_eq!(firmware_findings(&[&odd]).len(), 1, "a version that is no number is grouped by model");
        assert!(check(&[&odd])[0].message.contains("while 1 of the 2 MT26428 cards audited run y.1"));
        // ConnectX-2 (MT26428) and ConnectX-3 (MT4099) both number their firmware 2.x.
        let mlx4 = with_firmware("old", &[(&["mlx4_0"], "MT26428", "2.9.1000"), (&["mlx4_1"], "MT4099", "2.42.5000")]);
        assert!(firmware_findings(&[&mlx4]).is_empty());
    }
}
