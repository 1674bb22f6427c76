//! Arista EOS `show lldp neighbors`: one row per neighbour.
//!
//! ```text
//! Last table change time   : 5 days, 8:24:38 ago
//! Number of table inserts  : 9
//! Port          Neighbor Device ID       Neighbor Port ID    TTL
//! ---------- ------------------------ ---------------------- ---
//! Et2           arista2                  Ethernet2           120
//! ```
//!
//! Cells are cut at the dash line's column spans (a port ID can hold a space:
//! `Ethernet 1/1`), or where the titles start when there is no dash line. The device ID is the
//! neighbour's system name when it advertises one, its chassis ID otherwise: a MAC there is
//! read as the chassis ID. The table has no management address and no port description. The
//! local port is made canonical (`Et2` → `Ethernet2`).
use super::neighbors::{LldpFormat, LldpNeighbors, device_id, finish, id, row_cells, unrecognised};
use crate::lines::{column_starts, cut_line_skipped, numbered, title_starts};
use crate::switch::{LldpNeighbor, canonical_interface};
use crate::{ParseResult, ParseWarning};

/// Parses `show lldp neighbors` (EOS).
///
/// # Errors
/// Empty input, or no `Neighbor Device ID` table.
pub fn parse(text: &str) -> ParseResult<LldpNeighbors> {
    let mut found = LldpNeighbors::new(LldpFormat::EosTable);
    let mut warnings = Vec::new();
    let mut header = false;
    let mut starts: Option<Vec<usize>> = None;
    for l in numbered(text) {
        let (n, t) = (l.n, l.text);
        if !l.ended {
            warnings.push(ParseWarning::at(n, cut_line_skipped(t)));
            continue;
        }
        if t.starts_with("Last table change time") || t.starts_with("Number of table") {
            continue;
        }
        if t.contains("Neighbor Device ID") {
            header = true;
            // Some copies have no dash line under the titles: then the titles give the columns.
            starts = title_starts(l.raw, &["Port", "Neighbor Device ID", "Neighbor Port ID", "TTL"]);
            continue;
        }
        if header && t.chars().all(|c| c == '-' || c == ' ') {
            starts = Some(column_starts(l.raw));
            continue;
        }
        let Some(cells) = row_cells(&l, starts.as_deref(), &mut warnings) else {
            continue;
        };
        let (port, device, remote) = (&cells[0], &cells[1], &cells[2]);
        if port.is_empty() || port.contains(' ') || device.is_empty() {
            warnings.push(unrecognised(n, t));
            continue;
        }
        let (chassis_id, system_name) = device_id(device);
        found.neighbors.push(LldpNeighbor {
            local_port: canonical_interface(port),
            chassis_id,
            system_name,
            port_id: id(remote),
            ..LldpNeighbor::default()
        });
    }
    finish(found, warnings, text, header, "show lldp neighbors")
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = include_str!("../../tests/fixtures/lldp/arista-eos-show-lldp-neighbors-ntc2.txt");

    #[test]
    fn mac_device_ids_are_chassis_ids_and_junk_warns() {
        let text = "Port   Neighbor Device ID   Neighbor Port ID  TTL\n------ -------------------- ----------------- ---\nEt5/1  1234.5678.90ab       Ethernet 1/1      120\nwhat is this\n";
        let parsed = parse(text).expect("parses");
        let nb = &parsed.value.neighbors[0];
        assert_eq!(nb.local_port, "Ethernet5/1");
        assert_eq!(nb.chassis_id.as_deref(), Some("12:34:56:78:90:ab"));
        assert_eq!(nb.port_id.as_deref(), Some("Ethernet 1/1"));
        assert_eq!(parsed.warnings.len(), 1);
        assert_eq!(parsed.warnings[0].line, 4);
    }

    #[test]
    fn empty_and_foreign_text_are_errors() {
        assert!(parse("").is_err());
        assert!(parse("hello\nworld\n").is_err());
    }

    crate::lines::parser_never_panics!(parse, SAMPLE);
}
