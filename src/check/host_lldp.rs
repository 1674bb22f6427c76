//! A host without lldpd is normal: most GPU hosts run none. Its own LLDP view is needed only
//! where the switches' LLDP (their neighbour tables, port descriptions, MACs) does not place it;
//! where they do, the missing `lldpctl` is said at info, and the error stays for the hosts
//! nothing places.

use crate::topology::Topology;
use fabcheck_model::{Finding, Severity};

/// The tools that read a host's LLDP neighbours.
const LLDP_TOOLS: [&str; 2] = ["lldpctl", "lldpcli"];

/// Lowers to info each `collect.tool_missing` of an LLDP tool on a host the topology places.
pub fn settle(findings: &mut [Finding], topology: &Topology) {
    for f in findings.iter_mut().filter(|f| f.code == "collect.tool_missing") {
        let Some(tool) = LLDP_TOOLS.iter().find(|t| f.expected == format!("{t} installed")) else { continue };
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
            f.message = format!("{} and no switch's LLDP places this host, so its links are unknown", f.message);
            continue;
        }
        f.severity = Severity::Info;
        f.message = format!(
            "`{tool}` is not installed, which is common and not needed here: the switches' LLDP places this host ({})",
            links.join(", ")
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::{End, Link};

    fn missing(device: &str) -> Finding {
        Finding::new(
            "collect.tool_missing",
            Severity::Error,
            device,
            "`lldpctl` is not installed, so what it reports was not checked: not found",
        )
        .expected_actual("lldpctl installed", "command not found")
    }

    #[test]
    fn a_host_the_switches_place_needs_no_lldpd_and_one_they_do_not_does() {
        let end = |device: &str, port: &str| End { device: device.into(), port: port.into() };
        let topology = Topology {
            links: vec![Link { a: end("gpu001", "ens1np0"), b: end("leaf1", "Ethernet8") }],
            ..Topology::default()
        };
        let mut findings = vec![
            missing("gpu001"),
            missing("gpu002"),
            Finding::new("collect.tool_missing", Severity::Error, "gpu001", "ibstat")
                .expected_actual("ibstat installed", "command not found"),
        ];
        settle(&mut findings, &topology);
        assert_eq!(findings[0].severity, Severity::Info);
        assert!(
            findings[0].message.contains("the switches' LLDP places this host (gpu001:ens1np0 ↔ leaf1:Ethernet8)"),
            "{}",
            findings[0].message
        );
        assert_eq!(findings[1].severity, Severity::Error);
        assert!(findings[1].message.ends_with("and no switch's LLDP places this host, so its links are unknown"));
        assert_eq!(findings[2].severity, Severity::Error, "another tool is not LLDP's");
    }
}
