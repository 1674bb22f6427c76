//! Cisco NX-OS `show lldp neighbors detail`: one `Key: value` block per neighbour, each opened
//! by `Chassis id:`.
//!
//! ```text
//! Capability codes:
//!   (R) Router, (B) Bridge, (T) Telephone, (C) DOCSIS Cable Device
//! Device ID            Local Intf      Hold-time  Capability  Port ID
//!
//! Chassis id: 3473.2d00.0001
//! Port id: Ethernet1/52
//! Local Port id: Eth1/52
//! Port Description: SW-NEXUS-UPLINK
//! System Name: SW-NEXUS
//! System Description: Cisco Nexus Operating System (NX-OS) Software 9.3(8)
//! TAC support: http://www.cisco.com/tac
//! Copyright (c) 2002-2021, Cisco Systems, Inc. All rights reserved.
//! Time remaining: 97 seconds
//! Management Address: 192.168.1.2
//! Management Address IPV6: not advertised
//! ```
//!
//! NX-OS 10.x adds two TLV sections to each block (published sample of 10.3(4a)):
//!
//! ```text
//! Vlan Name TLV:
//! [Vlan ID: Vlan Name]  1: default, 2: Unused_Ports, 6: HNV_PA, 7: Management
//! Link Aggregation TLV:
//! Capability: enabled
//! Status : aggregated
//! Link agg ID : 101
//! ```
//!
//! They are read as what they are (the VLAN list, the neighbour port's link aggregation), and
//! nothing fabcheck judges comes from them; `Capability`, `Status` and `Link agg ID` are keys
//! only inside the Link Aggregation section, the `[Vlan ID: Vlan Name]` line only after its TLV.
//!
//! A system description runs over several lines (the lines after `System Description:` up to the
//! next known key, `TAC support:` included); they are skipped with it. `not advertised` is no
//! value. The local port is made canonical (`Eth101/1/10` → `Ethernet101/1/10`).
use super::neighbors::{
    LldpFormat, LldpNeighbors, close_block as close, count_check, finish, id, is_cli_echo, total_entries, unrecognised,
    value,
};
use crate::lines::{cut_line_skipped, numbered};
use crate::switch::{LldpNeighbor, canonical_interface};
use crate::{ParseResult, ParseWarning};

/// The keys of a block; any other line after `System Description:` continues it.
const KEYS: [&str; 18] = [
    "Chassis id",
    "Port id",
    "Local Port id",
    "Port Description",
    "System Name",
    "System Description",
    "Time remaining",
    "System Capabilities",
    "Enabled Capabilities",
    "Management Address",
    "Management Address IPV6",
    "Vlan ID",
    "Max Frame Size",
    "Total entries displayed",
    "Peer Max Frame Size",
    "Capability codes",
    "Vlan Name TLV",
    "Link Aggregation TLV",
];

/// The keys of NX-OS 10.x's `Link Aggregation TLV:` section.
const LINK_AGGREGATION_KEYS: [&str; 3] = ["Capability", "Status", "Link agg ID"];

/// The line after `Vlan Name TLV:`: its column names, then the VLANs (`1: default, 7: Mgmt`) or
/// `not advertised`.
const VLAN_NAMES: &str = "[Vlan ID: Vlan Name]";

/// Parses `show lldp neighbors detail` (NX-OS).
///
/// # Errors
/// Empty input, or no `Chassis id:` block.
pub fn parse(text: &str) -> ParseResult<LldpNeighbors> {
    let mut found = LldpNeighbors::new(LldpFormat::NxosDetail);
    let mut warnings = Vec::new();
    let mut current: Option<(LldpNeighbor, Vec<String>)> = None;
    let mut total = None;
    let mut in_description = false;
    // Inside the TLV section a 10.x block ends with: its own lines are read there only.
    let mut section: Option<&str> = None;
    for l in numbered(text) {
        let (n, t) = (l.n, l.text);
        if !l.ended {
            warnings.push(ParseWarning::at(n, cut_line_skipped(t)));
            continue;
        }
        if (t.starts_with('(') && t.contains(") ")) || (t.starts_with("Device ID") && t.contains("Local Intf")) {
            continue;
        }
        let in_section = |name: &str| section == Some(name) && current.is_some();
        if in_section("Vlan Name TLV") && t.starts_with(VLAN_NAMES) {
            continue;
        }
        let section_key = t.split_once(':').filter(|(k, _)| LINK_AGGREGATION_KEYS.contains(&k.trim()));
        if in_section("Link Aggregation TLV") && section_key.is_some() {
            continue;
        }
        let key_value = t.split_once(':').filter(|(k, _)| KEYS.contains(&k.trim()));
        let Some((key, v)) = key_value else {
            if !in_description && !is_cli_echo(t) {
                warnings.push(unrecognised(n, t));
            }
            continue;
        };
        in_description = key == "System Description";
        let key = key.trim();
        section = ["Vlan Name TLV", "Link Aggregation TLV"].into_iter().find(|s| *s == key);
        if key == "Total entries displayed" {
            total = total_entries(n, t);
            continue;
        }
        if key == "Chassis id" {
            close(current.take(), &mut found);
            current = Some((LldpNeighbor::default(), Vec::new()));
        }
        let Some((nb, ips)) = current.as_mut() else {
            if key != "Capability codes" {
                warnings.push(unrecognised(n, t));
            }
            continue;
        };
        match key {
            "Chassis id" => nb.chassis_id = id(v),
            "Port id" => nb.port_id = id(v),
            "Local Port id" => nb.local_port = canonical_interface(v),
            "Port Description" => nb.port_description = value(v),
            "System Name" => nb.system_name = value(v),
            "Management Address" | "Management Address IPV6" => ips.extend(value(v)),
            _ => {}
        }
    }
    close(current, &mut found);
    warnings.extend(count_check(total, found.neighbors.len()));
    finish(found, warnings, text, false, "show lldp neighbors detail")
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = include_str!("../../tests/fixtures/lldp/cisco-nxos-9.3-show-lldp-neighbors-detail-ntc2.txt");

    #[test]
    fn unknown_keys_outside_descriptions_warn() {
        let text = "Chassis id: 1\nFoo: bar\nSystem Description: x\nTAC support: y\nPort id: 2\n";
        let parsed = parse(text).expect("parses");
        assert_eq!(parsed.warnings.len(), 1);
        assert_eq!(parsed.warnings[0].line, 2);
        assert_eq!(parsed.value.neighbors[0].port_id.as_deref(), Some("2"));
    }

    #[test]
    fn tlv_section_keys_are_read_only_inside_their_section() {
        let text = "Chassis id: 1\nPort id: 2\nStatus : up\nVlan Name TLV:\n[Vlan ID: Vlan Name]  not advertised\nLink Aggregation TLV: \nCapability: enabled\nStatus : aggregated\nLink agg ID : 0\nPort Description: x\nLink agg ID : 1\n[Vlan ID: Vlan Name]  1: default\n";
        let parsed = parse(text).expect("parses");
        assert_eq!(parsed.warnings.iter().map(|w| w.line).collect::<Vec<_>>(), [3, 11, 12]);
        assert_eq!(parsed.value.neighbors[0].port_description.as_deref(), Some("x"));
    }

    #[test]
    fn empty_and_foreign_text_are_errors() {
        assert!(parse("").is_err());
        assert!(parse("hello\nworld\n").is_err());
    }

    crate::lines::parser_never_panics!(parse, SAMPLE);
}
