//! Dell OS10 `show lldp neighbors detail`: one `Key: value` block per neighbour, each opened by
//! `Remote Chassis ID Subtype:` and closed by a rule of dashes.
//!
//! ```text
//! Remote Chassis ID Subtype: Mac address (4)
//! Remote Chassis ID: c8:4b:d6:90:c7:27
//! Remote Port Subtype: Mac address (3)
//! Remote Port ID: c8:4b:d6:90:c7:27
//! Remote Port Description: NIC 25Gb QSFP
//! Local Port ID: ethernet1/1/1:1
//! Locally assigned remote Neighbor Index: 4064
//! Remote TTL: 121
//! Information valid for next 98 seconds
//! Time since last information change of this neighbor: 3 weeks 4 days 21:30:16
//! Remote System Name: Not Advertised
//! Remote System Desc: Not Advertised
//! Remote Max Frame Size: 0
//! Remote Aggregation Status: false
//! MAC PHY Configuration:
//!     Auto-neg supported: 0
//!     Auto-neg enabled: 0
//! ---------------------------------------------------------------------------
//! ```
//!
//! `Not Advertised` is no value. The local port is made canonical (`ethernet1/1/1:1` →
//! `Ethernet1/1/1:1`, as the running-configuration's `interface ethernet1/1/1` becomes
//! `Ethernet1/1/1`). The management address keys (`Remote Management Address (IPv4)` /
//! `(IPv6)`) are read when present. Any line that is no known key warns.
use super::neighbors::{LldpFormat, LldpNeighbors, close_block as close, finish, id, is_cli_echo, unrecognised, value};
use crate::lines::{cut_line_skipped, numbered};
use crate::switch::{LldpNeighbor, canonical_interface};
use crate::{ParseResult, ParseWarning};

/// The keys of a block (the `MAC PHY Configuration:` lines included).
const KEYS: [&str; 22] = [
    "Remote Chassis ID Subtype",
    "Remote Chassis ID",
    "Remote Port Subtype",
    "Remote Port ID",
    "Remote Port Description",
    "Local Port ID",
    "Locally assigned remote Neighbor Index",
    "Remote TTL",
    "Time since last information change of this neighbor",
    "Remote System Name",
    "Remote System Desc",
    "Remote Max Frame Size",
    "Remote Aggregation Status",
    "Remote Management Address (IPv4)",
    "Remote Management Address (IPv6)",
    "Existing System Capabilities",
    "Enabled System Capabilities",
    "MAC PHY Configuration",
    "Auto-neg supported",
    "Auto-neg enabled",
    "Auto-neg advertised capabilities",
    "Operational MAU type",
];

/// Parses `show lldp neighbors detail` (OS10).
///
/// # Errors
/// Empty input, or no `Remote Chassis ID Subtype:` block.
pub fn parse(text: &str) -> ParseResult<LldpNeighbors> {
    let mut found = LldpNeighbors::new(LldpFormat::Os10Detail);
    let mut warnings = Vec::new();
    let mut current: Option<(LldpNeighbor, Vec<String>)> = None;
    for l in numbered(text) {
        let (n, t) = (l.n, l.text);
        if t.chars().all(|c| c == '-') {
            close(current.take(), &mut found);
            continue;
        }
        if !l.ended {
            warnings.push(ParseWarning::at(n, cut_line_skipped(t)));
            continue;
        }
        if t.starts_with("Information valid for next ") || is_cli_echo(t) {
            continue;
        }
        let Some((key, v)) = t.split_once(':').filter(|(k, _)| KEYS.contains(&k.trim())) else {
            warnings.push(unrecognised(n, t));
            continue;
        };
        if key == "Remote Chassis ID Subtype" {
            close(current.take(), &mut found);
            current = Some((LldpNeighbor::default(), Vec::new()));
        }
        let Some((nb, ips)) = current.as_mut() else {
            warnings.push(unrecognised(n, t));
            continue;
        };
        match key {
            "Remote Chassis ID" => nb.chassis_id = id(v),
            "Remote Port ID" => nb.port_id = id(v),
            "Local Port ID" => nb.local_port = canonical_interface(v),
            "Remote Port Description" => nb.port_description = value(v),
            "Remote System Name" => nb.system_name = value(v),
            "Remote Management Address (IPv4)" | "Remote Management Address (IPv6)" => ips.extend(value(v)),
            _ => {}
        }
    }
    close(current, &mut found);
    finish(found, warnings, text, false, "show lldp neighbors detail")
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = include_str!(
        "../../tests/fixtures/lldp/dell-os10-show-lldp-neighbors-detail-breakout-nics-PROVENANCE-WEAK.txt"
    );

    #[test]
    fn unknown_keys_and_keys_outside_a_block_warn() {
        let text = "Remote TTL: 120\nRemote Chassis ID Subtype: Mac address (4)\nFoo: bar\nLocal Port ID: ethernet1/1/3\n---\n";
        let parsed = parse(text).expect("parses");
        assert_eq!(parsed.warnings.iter().map(|w| w.line).collect::<Vec<_>>(), [1, 3]);
        assert_eq!(parsed.value.neighbors[0].local_port, "Ethernet1/1/3");
    }

    #[test]
    fn empty_and_foreign_text_are_errors() {
        assert!(parse("").is_err());
        assert!(parse("hello\nworld\n").is_err());
    }

    crate::lines::parser_never_panics!(parse, SAMPLE);
}
