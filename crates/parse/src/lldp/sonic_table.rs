//! SONiC `show lldp table`: one row per neighbour, the summary beside `show lldp neighbors`.
//!
//! ```text
//! Capability codes: (R) Router, (B) Bridge, (O) Other
//! LocalPort    RemoteDevice    RemotePortID       Capability    RemotePortDescr
//! -----------  --------------  -----------------  ------------  -----------------
//! Ethernet0    ARISTA01T1      Ethernet1          BR            Ethernet1
//! Ethernet116                  48:df:37:e0:24:e0
//! --------------------------------------------------
//! Total entries displayed:  2
//! ```
//!
//! Cells are cut at the dash line's column spans: a port ID can hold a space
//! (`FortyGigabitEthernet 1/0/49`), and a neighbour that sends no system name has an empty
//! device cell. A MAC in the device cell is the chassis ID. The table has no management
//! address. Local ports are SONiC's names (`Ethernet0`, `eth0`), kept as printed, as in
//! `show lldp neighbors`.
use super::neighbors::{
    LldpFormat, LldpNeighbors, count_check, device_id, finish, id, row_cells, total_entries, unrecognised, value,
};
use crate::lines::{column_starts, cut_line_skipped, numbered};
use crate::switch::LldpNeighbor;
use crate::{ParseResult, ParseWarning};

/// Parses `show lldp table` (SONiC).
///
/// # Errors
/// Empty input, or no `LocalPort  RemoteDevice` table.
pub fn parse(text: &str) -> ParseResult<LldpNeighbors> {
    let mut found = LldpNeighbors::new(LldpFormat::SonicTable);
    let mut warnings = Vec::new();
    let mut header = false;
    let mut starts: Option<Vec<usize>> = None;
    let mut total = None;
    for l in numbered(text) {
        let (n, t) = (l.n, l.text);
        // The count is whole even without a line end: it is the table's last line.
        if t.starts_with("Total entries displayed") {
            total = total_entries(n, t);
            continue;
        }
        if !l.ended {
            warnings.push(ParseWarning::at(n, cut_line_skipped(t)));
            continue;
        }
        if t.starts_with("Capability codes") {
            continue;
        }
        if t.starts_with("LocalPort") && t.contains("RemoteDevice") {
            // A second table in one capture has its own rule and widths.
            header = true;
            starts = None;
            continue;
        }
        if t.chars().all(|c| c == '-' || c == ' ') {
            // The rule under the titles gives the columns; the one under the rows closes them.
            if header && starts.is_none() {
                starts = Some(column_starts(l.raw));
            }
            continue;
        }
        let Some(cells) = row_cells(&l, starts.as_deref(), &mut warnings) else {
            continue;
        };
        let (port, device, remote) = (&cells[0], &cells[1], &cells[2]);
        if port.is_empty() || port.contains(' ') || (device.is_empty() && remote.is_empty()) {
            warnings.push(unrecognised(n, t));
            continue;
        }
        let (chassis_id, system_name) = device_id(device);
        found.neighbors.push(LldpNeighbor {
            local_port: port.clone(),
            chassis_id,
            system_name,
            port_id: id(remote),
            port_description: cells.get(4).and_then(|d| value(d)),
            ..LldpNeighbor::default()
        });
    }
    warnings.extend(count_check(total, found.neighbors.len()));
    warnings.sort_by_key(|w| w.line);
    finish(found, warnings, text, header, "show lldp table")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_before_the_rule_and_a_wrong_count_warn() {
        let text = "LocalPort  RemoteDevice  RemotePortID\nEthernet0  x  y\n---------  ------------  ------------\nEthernet4  t1            Ethernet1\n--------\nTotal entries displayed:  2\n";
        let parsed = parse(text).expect("parses");
        assert_eq!(parsed.value.neighbors.len(), 1);
        assert_eq!(parsed.warnings.iter().map(|w| w.line).collect::<Vec<_>>(), [2, 6]);
    }

    #[test]
    fn empty_and_foreign_text_are_errors() {
        assert!(parse("").is_err());
        assert!(parse("hello\nworld\n").is_err());
    }
}
