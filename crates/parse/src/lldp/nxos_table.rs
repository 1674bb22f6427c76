//! Cisco NX-OS `show lldp neighbors` and `show lldp neighbors interface IF`: one row per
//! neighbour, columns aligned under a header without dashes.
//!
//! ```text
//! Capability codes:
//!   (R) Router, (B) Bridge, (T) Telephone, (C) DOCSIS Cable Device
//!   (W) WLAN Access Point, (P) Repeater, (S) Station, (O) Other
//! Device ID            Local Intf      Hold-time  Capability  Port ID
//!
//! PowerEdge R750       Eth1/10         480        S           DSMPMM3 Dedicated
//! Total entries displayed: 1
//! ```
//!
//! Cells are cut where the header's titles start, since a device ID and a port ID can hold
//! spaces (`PowerEdge R750`, `DSMPMM3 Dedicated`: a Dell iDRAC's BMC port, not a data NIC). A
//! device ID too long for its column is printed alone on a line, the rest of the row on the
//! next. The device ID is the neighbour's system name; a MAC there is its chassis ID. The table
//! has no management address and no port description. The local port is made canonical.
use super::neighbors::{
    LldpFormat, LldpNeighbors, count_check, device_id, finish, id, is_cli_echo, total_entries, unrecognised,
};
use crate::lines::{cut_line_skipped, numbered, title_starts};
use crate::switch::{LldpNeighbor, canonical_interface};
use crate::{ParseResult, ParseWarning};

/// Where the columns after the device ID start: local interface, hold time, capability, port.
struct Columns([usize; 4]);

/// Parses `show lldp neighbors [interface IF]` (NX-OS).
///
/// # Errors
/// Empty input, or no `Device ID  Local Intf` header.
pub fn parse(text: &str) -> ParseResult<LldpNeighbors> {
    let mut found = LldpNeighbors::new(LldpFormat::NxosTable);
    let mut warnings = Vec::new();
    let mut columns: Option<Columns> = None;
    let mut pending_device: Option<(usize, String)> = None;
    let mut total = None;
    for l in numbered(text) {
        let (n, t) = (l.n, l.text);
        if !l.ended {
            warnings.push(ParseWarning::at(n, cut_line_skipped(t)));
            continue;
        }
        if t.starts_with("Capability codes") || (t.starts_with('(') && t.contains(") ")) {
            continue;
        }
        if t.starts_with("Total entries displayed") {
            total = total_entries(n, t);
            continue;
        }
        if t.starts_with("Device ID") && t.contains("Local Intf") {
            columns = header(l.raw);
            if columns.is_none() {
                warnings.push(unrecognised(n, t));
            }
            continue;
        }
        let Some(cols) = &columns else {
            if !is_cli_echo(t) {
                warnings.push(unrecognised(n, t));
            }
            continue;
        };
        // A row whose device ID runs into the next column (`cr-ebc.org.local  Eth3/1`) is read
        // by its gaps of two spaces or more instead of the header's columns.
        let cells = Some(cut(l.raw, &cols.0))
            .filter(|c| is_row(c))
            .or_else(|| by_gaps(l.raw))
            .unwrap_or_else(|| cut(l.raw, &cols.0));
        // Columns are two spaces apart at least: a line without such a gap is one cell.
        let one_cell = cells[1..].iter().all(String::is_empty) || !t.contains("  ");
        if one_cell {
            // A long device ID alone on its line: the row follows.
            if let Some((before, junk)) = pending_device.replace((n, t.to_string())) {
                warnings.push(unrecognised(before, &junk));
            }
            continue;
        }
        let device = match pending_device.take() {
            Some((_, device)) if cells[0].is_empty() => device,
            Some((before, junk)) => {
                warnings.push(unrecognised(before, &junk));
                cells[0].clone()
            }
            None => cells[0].clone(),
        };
        let (local, hold) = (&cells[1], &cells[2]);
        if local.is_empty() || local.contains(' ') || !hold.chars().all(|c| c.is_ascii_digit()) {
            warnings.push(unrecognised(n, t));
            continue;
        }
        let (chassis_id, system_name) = device_id(&device);
        found.neighbors.push(LldpNeighbor {
            local_port: canonical_interface(local),
            chassis_id,
            system_name,
            port_id: id(&cells[4]),
            ..LldpNeighbor::default()
        });
    }
    if let Some((before, junk)) = pending_device {
        warnings.push(unrecognised(before, &junk));
    }
    warnings.extend(count_check(total, found.neighbors.len()));
    warnings.sort_by_key(|w| w.line);
    let seen = columns.is_some();
    finish(found, warnings, text, seen, "show lldp neighbors")
}

/// The column starts of `Device ID  Local Intf  Hold-time  Capability  Port ID`, in characters.
fn header(raw: &str) -> Option<Columns> {
    let starts = title_starts(raw, &["Local Intf", "Hold-time", "Capability", "Port ID"])?;
    Some(Columns([starts[0], starts[1], starts[2], starts[3]]))
}

/// Whether cut cells read as a row: an interface name and a hold time in seconds.
fn is_row(cells: &[String]) -> bool {
    let (local, hold) = (&cells[1], &cells[2]);
    !local.is_empty() && !local.contains(' ') && !hold.is_empty() && hold.chars().all(|c| c.is_ascii_digit())
}

/// A row read by its gaps of two spaces or more: device (empty on a wrapped row's second line),
/// interface, hold time, capability (may be empty), port ID.
fn by_gaps(line: &str) -> Option<Vec<String>> {
    let wrapped = line.starts_with(' ');
    let mut parts: Vec<String> = line.split("  ").map(str::trim).filter(|p| !p.is_empty()).map(String::from).collect();
    if wrapped {
        parts.insert(0, String::new());
    }
    match parts.len() {
        4 => parts.insert(3, String::new()),
        5 => {}
        _ => return None,
    }
    is_row(&parts).then_some(parts)
}

/// `line` cut into device, local interface, hold time, capability and port ID.
fn cut(line: &str, starts: &[usize; 4]) -> Vec<String> {
    let chars: Vec<char> = line.chars().collect();
    let bounds: Vec<usize> = std::iter::once(0)
        .chain(starts.iter().map(|&s| s.min(chars.len())))
        .chain(std::iter::once(chars.len()))
        .collect();
    bounds
        .windows(2)
        .map(|w| {
            let (from, to) = (w[0], w[1].max(w[0]));
            chars[from..to].iter().collect::<String>().trim().to_string()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str =
        include_str!("../../tests/fixtures/lldp/nxos-show-lldp-neighbors-interface-idrac-issue-301.txt");

    #[test]
    fn long_device_ids_wrap_and_bad_rows_warn() {
        let text = "Device ID            Local Intf      Hold-time  Capability  Port ID\nvery-long-device-name.example.com\n                     Eth1/1          120        BR          Ethernet1/1\nleaf2                Eth1/2          xx         BR          Ethernet1/2\n";
        let parsed = parse(text).expect("parses");
        let nb = &parsed.value.neighbors[0];
        assert_eq!(nb.system_name.as_deref(), Some("very-long-device-name.example.com"));
        assert_eq!((nb.local_port.as_str(), nb.port_id.as_deref()), ("Ethernet1/1", Some("Ethernet1/1")));
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
