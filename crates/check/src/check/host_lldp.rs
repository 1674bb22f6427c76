//! A host whose own LLDP view cannot be read is normal: many GPU hosts have no `lldpctl`, or one
//! the audit account may not run (Debian installs it for groups `adm` and `_lldpd` only). That
//! view is needed only where the switches' LLDP (their neighbour tables, port descriptions, MACs)
//! does not place the host; where they do, the unread view is said at info, and the error stays
//! for the hosts nothing places.

use crate::topology::Topology;
use fabcheck_model::{Finding, Severity};

/// Lowers to info each finding that a host's LLDP could not be read on a host the topology
/// places, and says so; says on the others that nothing else places them.
pub fn settle(findings: &mut [Finding], topology: &Topology) {
    let unread = |f: &Finding| {
        matches!(f.code.as_str(), "collect.tool_missing" | "collect.command_failed")
            && f.evidence.iter().any(|e| e.ends_with("/lldp.txt"))
    };
    for f in findings.iter_mut().filter(|f| unread(f)) {
        let links: Vec<String> = topology
            .links
            .iter()
            .filter_map(|l| match (&l.a, &l.b) {
                (host, switch) | (switch, host) if host.device == f.device => {
                    Some(format!("{} ↔ {}", host.hop(), switch.hop()))
                }
                _ => None,
            })
            .collect();
        if links.is_empty() {
            f.message = format!("{}; no switch's LLDP places this host, so its links are unknown", f.message);
            continue;
        }
        f.severity = Severity::Info;
        f.message =
            format!("{}; not needed here: the switches' LLDP places this host ({})", f.message, links.join(", "));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::{End, Link};

    fn unread(code: &str, device: &str, key: &str) -> Finding {
        Finding::new(code, Severity::Error, device, "`lldpctl` is not installed")
            .evidence(format!("{device}/{key}.txt"))
    }

    #[test]
    fn a_host_the_switches_place_needs_no_lldp_view_of_its_own_and_one_they_do_not_does() {
        let end = |device: &str, port: &str| End { device: device.into(), port: port.into() };
        let topology = Topology {
            links: vec![Link { a: end("gpu001", "ens1np0"), b: end("leaf1", "Ethernet8") }],
            ..Topology::default()
        };
        let mut findings = vec![
            unread("collect.tool_missing", "gpu001", "lldp"),
            unread("collect.command_failed", "gpu002", "lldp"),
            unread("collect.tool_missing", "gpu001", "ibstat"),
        ];
        settle(&mut findings, &topology);
        assert_eq!(findings[0].severity, Severity::Info);
        assert!(
            findings[0]
                .message
                .ends_with("not needed here: the switches' LLDP places this host (gpu001:ens1np0 ↔ leaf1:Ethernet8)"),
            "{}",
            findings[0].message
        );
        assert_eq!(findings[1].severity, Severity::Error);
        assert!(findings[1].message.ends_with("no switch's LLDP places this host, so its links are unknown"));
        assert_eq!(findings[2].severity, Severity::Error, "another tool is not LLDP's");
    }
}
