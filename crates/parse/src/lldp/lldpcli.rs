//! lldpd's `lldpcli show neighbors` / `lldpctl` (and `lldpcli show interfaces`): one block per
//! neighbour, on hosts, Cumulus Linux and SONiC alike.
//!
//! ```text
//! -------------------------------------------------------------------------------
//! LLDP neighbors:
//! -------------------------------------------------------------------------------
//! Interface:    swp1, via: LLDP, RID: 10, Time: 0 day, 17:08:27
//!   Chassis:
//!     ChassisID:    mac 00:01:00:00:09:00
//!     SysName:      MSP-1
//!     SysDescr:     Cumulus Linux version 4.1.0 running on QEMU Standard PC
//!     MgmtIP:       192.0.2.9
//!     MgmtIP:       fe80::201:ff:fe00:900
//!     Capability:   Bridge, off
//!   Port:
//!     PortID:       ifname swp1
//!     PortDescr:    swp1
//! -------------------------------------------------------------------------------
//! ```
//!
//! Keys fabcheck does not need (capabilities, TTL, autonegotiation, LLDP-MED, VLANs, unknown
//! TLVs, lines wrapped under a long `SysDescr`) are read as well-formed and skipped. Under
//! `LLDP interfaces:` the blocks are this system's own advertisements and go to
//! [`LldpNeighbors::advertised`]. Variants seen: a shell or `[lldpcli] #` prompt first, trailing
//! spaces after `Chassis:`, a `...` left by a documentation author (warned), a capture cut
//! mid-line (the cut line is skipped with a warning), all-zero chassis MACs.
use super::neighbors::{LldpFormat, LldpNeighbors, finish, id, is_cli_echo, management_ip, unrecognised, value};
use crate::lines::{cut_line_skipped, numbered};
use crate::switch::LldpNeighbor;
use crate::{ParseResult, ParseWarning};

/// One block being read.
struct Block {
    neighbor: LldpNeighbor,
    ips: Vec<String>,
    /// The key of the last `Key: value` line, for lines wrapped under it.
    last_key: String,
}

/// Parses `lldpcli show neighbors` (or `show interfaces`) text output.
///
/// # Errors
/// Empty input, or no `Interface:` block and no `LLDP neighbors:` header.
pub fn parse(text: &str) -> ParseResult<LldpNeighbors> {
    let mut found = LldpNeighbors::new(LldpFormat::Lldpcli);
    let mut warnings = Vec::new();
    let mut block: Option<Block> = None;
    let mut seen_header = false;
    let mut first = true;
    for l in numbered(text) {
        let (n, t) = (l.n, l.text);
        if !l.ended {
            warnings.push(ParseWarning::at(n, cut_line_skipped(t)));
            continue;
        }
        if std::mem::take(&mut first) && is_cli_echo(t) {
            continue;
        }
        if t.chars().all(|c| c == '-') {
            continue;
        }
        match t {
            "LLDP neighbors:" => {
                seen_header = true;
                continue;
            }
            "LLDP interfaces:" => {
                seen_header = true;
                found.format = LldpFormat::LldpcliInterfaces;
                continue;
            }
            _ => {}
        }
        if let Some(rest) = t.strip_prefix("Interface:") {
            close(block.take(), &mut found);
            let port = rest.split(',').next().unwrap_or_default().trim();
            if port.is_empty() {
                warnings.push(unrecognised(n, t));
                continue;
            }
            block = Some(Block {
                neighbor: LldpNeighbor { local_port: port.to_string(), ..LldpNeighbor::default() },
                ips: Vec::new(),
                last_key: String::new(),
            });
            continue;
        }
        let Some(b) = block.as_mut() else {
            warnings.push(unrecognised(n, t));
            continue;
        };
        let Some((key, v)) = t.split_once(':') else {
            // A line wrapped under a long value (a multi-line `SysDescr`), indented past the key.
            if b.last_key == "SysDescr" && l.raw.starts_with("      ") {
                continue;
            }
            warnings.push(unrecognised(n, t));
            continue;
        };
        let key = key.trim();
        if key.is_empty() || key.contains("  ") {
            warnings.push(unrecognised(n, t));
            continue;
        }
        b.last_key = key.to_string();
        let nb = &mut b.neighbor;
        match key {
            "ChassisID" => nb.chassis_id = id(v),
            "SysName" => nb.system_name = value(v),
            "PortID" => nb.port_id = id(v),
            "PortDescr" => nb.port_description = value(v),
            "MgmtIP" => b.ips.extend(value(v)),
            // Well-formed keys fabcheck does not use.
            _ => {}
        }
    }
    close(block, &mut found);
    finish(found, warnings, text, seen_header, "lldpcli show neighbors")
}

fn close(block: Option<Block>, found: &mut LldpNeighbors) {
    let Some(mut b) = block else { return };
    b.neighbor.management_ip = management_ip(&b.ips);
    if found.format == LldpFormat::LldpcliInterfaces {
        found.advertised.push(b.neighbor);
    } else {
        found.neighbors.push(b.neighbor);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str =
        include_str!("../../tests/fixtures/lldp/cumulus-4.1-lldpcli-show-neighbors-cl59-docs-PARTIAL.txt");
    const INTERFACES: &str =
        include_str!("../../tests/fixtures/lldp/lldpcli-show-interfaces-zero-chassis-mac-lldpd-541-PARTIAL.txt");

    #[test]
    fn lines_outside_blocks_and_keyless_lines_warn() {
        let text = "junk\nInterface:    eth1, via: LLDP\n  Chassis:\n    no colon here\n    SysName: a\n";
        let parsed = parse(text).expect("parses");
        let lines: Vec<usize> = parsed.warnings.iter().map(|w| w.line).collect();
        assert_eq!(lines, [1, 4]);
        assert_eq!(parsed.value.neighbors[0].system_name.as_deref(), Some("a"));
    }

    #[test]
    fn empty_and_foreign_text_are_errors() {
        assert!(parse("").is_err());
        assert!(parse("hello\nworld\n").is_err());
    }

    crate::lines::parser_never_panics!(parse, [SAMPLE, INTERFACES]);
}
