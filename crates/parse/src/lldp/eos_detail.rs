//! Arista EOS `show lldp neighbors detail`: per local interface, one block per neighbour, one
//! `- ` line per TLV.
//!
//! ```text
//! Interface Ethernet31 detected 1 LLDP neighbors:
//!
//!   Neighbor "OPNsense"/"igb2", age 2 seconds
//!   Discovered 0:11:31 ago; Last changed 0:00:37 ago
//!   - Chassis ID type: Locally assigned (7)
//!     Chassis ID     : "OPNsense"
//!   - Port ID type: Interface name (5)
//!     Port ID     : "igb2"
//!   - Port Description: "lagg0"
//!   - System Name: "RTR01"
//!   - Management Address Subtype: IPv4
//!     Management Address        : 10.0.0.153
//!   - IEEE802.1/IEEE802.3 Link Aggregation
//!     Port ID                : 13
//! ```
//!
//! A field belongs to the TLV above it: the `Port ID` under `Link Aggregation` is the
//! aggregator's, not the neighbour's, and is not read. TLVs fabcheck does not use (capabilities,
//! VLANs, MAC/PHY with its wrapped lines, unknown organisational TLVs with their hex dump) are
//! skipped whole. When a block lacks the ID TLVs, the chassis and port of its `Neighbor X/Y`
//! line are used. Variants seen: TLV lines indented two or four spaces, unquoted port names on
//! the `Neighbor` line, `Interface name(5)` without a space, trailing spaces, an echoed
//! abbreviated command (`SW03#sh ll n e 31-32 d`), several captures concatenated, output cut
//! mid-TLV (the cut line is skipped with a warning).
use super::neighbors::{LldpFormat, LldpNeighbors, finish, id, is_cli_echo, management_ip, unrecognised, value};
use crate::lines::{cut_line_skipped, numbered};
use crate::switch::{LldpNeighbor, canonical_interface};
use crate::{ParseResult, ParseWarning};

struct Block {
    neighbor: LldpNeighbor,
    ips: Vec<String>,
    /// The chassis and port of the `Neighbor X/Y` line, for blocks without ID TLVs.
    heading: (Option<String>, Option<String>),
    /// The TLV being read (the text after `- ` up to its colon), lower case.
    tlv: String,
}

/// Parses `show lldp neighbors detail` (EOS).
///
/// # Errors
/// Empty input, or no `Interface X detected N LLDP neighbors:` line.
pub fn parse(text: &str) -> ParseResult<LldpNeighbors> {
    let mut found = LldpNeighbors::new(LldpFormat::EosDetail);
    let mut warnings = Vec::new();
    let mut local: Option<String> = None;
    let mut block: Option<Block> = None;
    for l in numbered(text) {
        let (n, t) = (l.n, l.text);
        if !l.ended {
            warnings.push(ParseWarning::at(n, cut_line_skipped(t)));
            continue;
        }
        if let Some(rest) = t.strip_prefix("Interface ")
            && let Some((port, _)) = rest.split_once(" detected ")
        {
            close(block.take(), &mut found);
            local = Some(canonical_interface(port));
            continue;
        }
        if let Some(rest) = t.strip_prefix("Neighbor ") {
            let Some(port) = local.clone() else {
                warnings.push(unrecognised(n, t));
                continue;
            };
            close(block.take(), &mut found);
            block = Some(Block {
                neighbor: LldpNeighbor { local_port: port, ..LldpNeighbor::default() },
                ips: Vec::new(),
                heading: heading(rest),
                tlv: String::new(),
            });
            continue;
        }
        let Some(b) = block.as_mut() else {
            if !is_cli_echo(t) {
                warnings.push(unrecognised(n, t));
            }
            continue;
        };
        if t.starts_with("Discovered ") {
            continue;
        }
        if let Some(tlv) = t.strip_prefix("- ") {
            let (name, v) = tlv.split_once(':').unwrap_or((tlv, ""));
            b.tlv = name.trim().to_ascii_lowercase();
            match b.tlv.as_str() {
                "port description" => b.neighbor.port_description = value(v),
                "system name" => b.neighbor.system_name = value(v),
                _ => {}
            }
            continue;
        }
        let Some((key, v)) = t.split_once(':') else {
            // A wrapped line of the TLV above (MAC/PHY modes, a hex dump).
            if b.tlv.is_empty() {
                warnings.push(unrecognised(n, t));
            }
            continue;
        };
        match (b.tlv.as_str(), key.trim()) {
            ("chassis id type", "Chassis ID") => b.neighbor.chassis_id = id(v),
            ("port id type", "Port ID") => b.neighbor.port_id = id(v),
            ("management address subtype", "Management Address") => b.ips.extend(value(v)),
            (tlv, _) if !tlv.is_empty() => {}
            _ => warnings.push(unrecognised(n, t)),
        }
    }
    close(block, &mut found);
    let seen = local.is_some();
    finish(found, warnings, text, seen, "show lldp neighbors detail")
}

/// `2cc2.6081.eaf9/"Ethernet1", age 12 seconds` → the chassis and port IDs.
fn heading(rest: &str) -> (Option<String>, Option<String>) {
    let ids = rest.rsplit_once(", age").map_or(rest, |(ids, _)| ids);
    match ids.split_once('/') {
        Some((chassis, port)) => (id(chassis), id(port)),
        None => (id(ids), None),
    }
}

fn close(block: Option<Block>, found: &mut LldpNeighbors) {
    let Some(mut b) = block else { return };
    let (chassis, port) = b.heading;
    let nb = &mut b.neighbor;
    nb.chassis_id = nb.chassis_id.take().or(chassis);
    nb.port_id = nb.port_id.take().or(port);
    nb.management_ip = management_ip(&b.ips);
    found.neighbors.push(b.neighbor);
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = include_str!(
        "../../tests/fixtures/lldp/arista-eos-show-lldp-neighbors-detail-lldpd-peer-opnsense-4561-PARTIAL.txt"
    );
    const VEOS: &str = include_str!("../../tests/fixtures/lldp/arista-veos-4.15-show-lldp-neighbors-detail-ntc.txt");

    #[test]
    fn heading_gives_ids_when_tlvs_are_missing() {
        let text = "Interface Et9 detected 1 LLDP neighbors:\n  Neighbor 7c0e.cecb.659b/Eth1/23, age 29 seconds\n";
        let nb = &parse(text).expect("parses").value.neighbors[0];
        assert_eq!(nb.local_port, "Ethernet9");
        assert_eq!(nb.chassis_id.as_deref(), Some("7c:0e:ce:cb:65:9b"));
        assert_eq!(nb.port_id.as_deref(), Some("Eth1/23"));
    }

    #[test]
    fn lines_before_any_neighbor_warn() {
        let text = "Interface Et1 detected 1 LLDP neighbors:\n  Chassis ID : x\n";
        let parsed = parse(text).expect("parses");
        assert_eq!(parsed.warnings.len(), 1);
        assert!(parsed.value.neighbors.is_empty());
    }

    #[test]
    fn empty_and_foreign_text_are_errors() {
        assert!(parse("").is_err());
        assert!(parse("hello\nworld\n").is_err());
    }

    crate::lines::parser_never_panics!(parse, [SAMPLE, VEOS]);
}
