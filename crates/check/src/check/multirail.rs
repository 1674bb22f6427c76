//! Multi-rail routing (NICs sharing one subnet confuse the kernel's routing unless each has
//! source-based policy routing, `ip rule add from 192.168.1.100 lookup 100`, and the ARP settings
//! of Linux's Documentation/networking/ip-sysctl.rst: arp_ignore, arp_announce, rp_filter). When two RDMA NICs
//! of a host sit in one IPv4 subnet, the main table sends every reply for that subnet out of one
//! of them and any NIC answers ARP for any address: RoCE connections to the other NIC's address
//! break or take the wrong rail. Each such NIC needs:
//! - a rule `from <its address> lookup <table>` whose table routes out of that NIC;
//! - `arp_ignore` 1 or 2 and `arp_announce` 1 or 2 (the kernel applies the higher of `all` and
//!   the interface's own; 0/0 are the defaults). Guides differ on which (IBM's SMC-R and Oracle's
//!   OKE guides 1/2, Oracle's oci-hpc and AMD's 2/1), so only the defaults are faults;
//! - `rp_filter` 0 or 2: strict (1) drops what arrives on the NIC the reply would not leave by.
//!
//! The subnet and address of each NIC are its connected route in the main table (`proto kernel
//! scope link src <address>`). Settings that were not read are not judged.

use fabcheck_model::facts::{HostFacts, evidence_file};
use fabcheck_model::host::ip_route::IpRoute;
use fabcheck_model::host::ip_rule::IpRule;
use fabcheck_model::host::net_conf::NetConf;
use fabcheck_model::{Finding, Severity};
use std::collections::BTreeMap;

/// Tables that every host has: a rule that looks one of them up routes like no rule at all.
const BUILT_IN_TABLES: [&str; 3] = ["local", "main", "default"];

/// One RoCE NIC's place in the main table.
struct Attached<'a> {
    netdev: &'a str,
    subnet: &'a str,
    address: &'a str,
}

/// `host.multirail_routing` for each RoCE NIC that shares its subnet with another and lacks
/// what keeps its traffic on its own rail.
pub fn check(device: &str, facts: &HostFacts) -> Vec<Finding> {
    let Some(routes) = &facts.routes else { return Vec::new() };
    let attached: Vec<Attached> = facts
        .nics
        .iter()
        .filter_map(|n| n.port.netdev.as_deref())
        .filter_map(|netdev| {
            let r = routes.iter().find(|r| connected(r, netdev))?;
            Some(Attached { netdev, subnet: &r.dst, address: r.prefsrc.as_deref()? })
        })
        .collect();
    let mut by_subnet: BTreeMap<&str, Vec<&Attached>> = BTreeMap::new();
    for a in &attached {
        by_subnet.entry(a.subnet).or_default().push(a);
    }
    let mut findings = Vec::new();
    for (subnet, nics) in by_subnet.into_iter().filter(|(_, nics)| nics.len() > 1) {
        let names: Vec<&str> = nics.iter().map(|n| n.netdev).collect();
        for nic in nics {
            let missing = missing(nic, facts.rules.as_deref(), routes, facts.net_conf.as_ref());
            if missing.is_empty() {
                continue;
            }
            let mut f = Finding::new(
                "host.multirail_routing",
                Severity::Error,
                device,
                format!(
                    "{} ({}) shares {subnet} with {}: without source routing and ARP settings its replies and RoCE traffic can leave by another NIC; missing: {}",
                    nic.netdev,
                    nic.address,
                    names.iter().filter(|n| **n != nic.netdev).copied().collect::<Vec<_>>().join(", "),
                    missing.join("; ")
                ),
            )
            .expected_actual(
                format!("ip rule from {} to a table routed via {}, arp_ignore 1|2, arp_announce 1|2, rp_filter 0|2", nic.address, nic.netdev),
                missing.join("; "),
            )
            .port(nic.netdev);
            for key in ["ip_rule", "ip_route", "net_conf"] {
                f = f.evidence(evidence_file(device, key));
            }
            findings.push(f);
        }
    }
    findings
}

/// The kernel's route for the subnet of an address on `netdev`.
fn connected(r: &IpRoute, netdev: &str) -> bool {
    r.table == "main"
        && r.protocol == "kernel"
        && r.scope == "link"
        && r.dev.as_deref() == Some(netdev)
        && r.dst.contains('/')
}

/// What `nic` lacks, in words; empty when nothing (or nothing that was read).
fn missing(nic: &Attached, rules: Option<&[IpRule]>, routes: &[IpRoute], conf: Option<&NetConf>) -> Vec<String> {
    let mut missing = Vec::new();
    if let Some(rules) = rules {
        let own_table = |table: &str| routes.iter().any(|r| r.table == table && r.dev.as_deref() == Some(nic.netdev));
        let source_rule = rules.iter().any(|r| {
            // Only a rule on the source alone routes all of the NIC's traffic: `to`, `iif`/`oif`
            // and the other match conditions narrow it to part of it.
            !r.not
                && r.selectors.is_empty()
                && r.dst.is_none()
                && r.interface.is_none()
                && r.src.as_deref().is_some_and(|s| s == nic.address || s == format!("{}/32", nic.address))
                && r.table.as_deref().is_some_and(|t| !BUILT_IN_TABLES.contains(&t) && own_table(t))
        });
        if !source_rule {
            missing.push(format!("ip rule from {} lookup a table routed via {}", nic.address, nic.netdev));
        }
    }
    if let Some(conf) = conf {
        let values = conf.effective(nic.netdev);
        if values.arp_ignore == Some(0) {
            missing.push("arp_ignore 1 or 2 (is 0: any NIC answers ARP for any address)".into());
        }
        if values.arp_announce == Some(0) {
            missing.push("arp_announce 1 or 2 (is 0)".into());
        }
        if values.rp_filter == Some(1) {
            missing.push("rp_filter 0 or 2 (is 1, strict: drops what arrives on the other NIC)".into());
        }
    }
    missing
}

#[cfg(test)]
mod tests {
    use super::*;
    use fabcheck_model::host::net_conf::ConfValues;

    fn route(dst: &str, dev: &str, table: &str, src: Option<&str>) -> IpRoute {
        let kernel = src.is_some();
        IpRoute {
            dst: dst.into(),
            kind: "unicast".into(),
            table: table.into(),
            dev: Some(dev.into()),
            gateway: None,
            prefsrc: src.map(String::from),
            protocol: if kernel { "kernel" } else { "static" }.into(),
            scope: if kernel { "link" } else { "global" }.into(),
            metric: None,
            flags: Vec::new(),
        }
    }

    fn rule(src: &str, table: &str) -> IpRule {
        IpRule {
            priority: 100,
            src: Some(src.into()),
            dst: None,
            not: false,
            interface: None,
            selectors: Vec::new(),
            table: Some(table.into()),
        }
    }

    fn two_nics_one_subnet() -> Vec<IpRoute> {
        vec![
            route("10.0.0.0/24", "ens1np0", "main", Some("10.0.0.5")),
            route("10.0.0.0/24", "ens2np0", "main", Some("10.0.0.6")),
        ]
    }

    fn attached<'a>(routes: &'a [IpRoute], netdev: &'a str) -> Attached<'a> {
        let r = routes.iter().find(|r| connected(r, netdev)).unwrap();
        Attached { netdev, subnet: &r.dst, address: r.prefsrc.as_deref().unwrap() }
    }

    #[test]
    fn a_source_rule_to_a_table_routed_via_the_nic_and_arp_settings_suffice() {
        let mut routes = two_nics_one_subnet();
        routes.push(route("10.0.0.0/24", "ens1np0", "101", None));
        let rules = vec![rule("10.0.0.5", "101")];
        let mut conf = NetConf::default();
        conf.interfaces
            .insert("all".into(), ConfValues { arp_ignore: Some(2), arp_announce: Some(1), rp_filter: Some(2) });
        assert!(missing(&attached(&routes, "ens1np0"), Some(&rules), &routes, Some(&conf)).is_empty());
        // The second NIC has no rule of its own.
        let m = missing(&attached(&routes, "ens2np0"), Some(&rules), &routes, Some(&conf));
        assert_eq!(m, ["ip rule from 10.0.0.6 lookup a table routed via ens2np0"]);
    }

    #[test]
    fn a_source_rule_narrowed_by_another_condition_does_not_route_the_nics_traffic() {
        let mut routes = two_nics_one_subnet();
        routes.push(route("10.0.0.0/24", "ens1np0", "101", None));
        let narrowed = [
            IpRule { selectors: vec!["fwmark 0x77".into()], ..rule("10.0.0.5", "101") },
            IpRule { dst: Some("10.1.0.0/16".into()), ..rule("10.0.0.5", "101") },
            IpRule { interface: Some("ens1np0".into()), ..rule("10.0.0.5", "101") },
        ];
        for narrowed in narrowed {
            let m = missing(&attached(&routes, "ens1np0"), Some(std::slice::from_ref(&narrowed)), &routes, None);
            assert_eq!(m, ["ip rule from 10.0.0.5 lookup a table routed via ens1np0"], "{narrowed:?}");
        }
    }

    #[test]
    fn defaults_and_strict_reverse_path_filtering_are_named() {
        let routes = two_nics_one_subnet();
        let rules = vec![rule("10.0.0.5", "main")];
        let mut conf = NetConf::default();
        conf.interfaces
            .insert("all".into(), ConfValues { arp_ignore: Some(0), arp_announce: Some(0), rp_filter: Some(1) });
        let m = missing(&attached(&routes, "ens1np0"), Some(&rules), &routes, Some(&conf));
        assert_eq!(m.len(), 4, "a rule to the main table is no source routing: {m:?}");
        assert!(m[3].starts_with("rp_filter 0 or 2"));
        // Nothing read, nothing judged.
        assert!(missing(&attached(&routes, "ens1np0"), None, &routes, None).is_empty());
    }
}
