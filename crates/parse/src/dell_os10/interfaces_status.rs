//! Dell OS10 `show interface status`: per port the description, link status, speed, duplex and
//! switchport mode and VLANs.
//!
//! ```text
//! --------------------------------------------------------------------------------------------------
//! Port            Description     Status   Speed    Duplex   Mode Vlan Tagged-Vlans
//! --------------------------------------------------------------------------------------------------
//! Eth 1/1/1       LEAF_CONN_1     up       10G      full     -
//! Eth 1/1/10                      down     0        full     A    1    -
//! ```
//!
//! The table is strictly columnar (OS10 cuts a long description to its column with `..`), and
//! the port holds a space (`Eth 1/1/1`, `Po 128`, `Vl 7`, breakouts `Eth 1/1/1:1`), so cells are
//! cut at the header's column starts rather than split into words. The port loses its space and
//! is made canonical (`Eth 1/1/1` → `Ethernet1/1/1`, the name `interface ethernet1/1/1` of the
//! running-configuration gets too). A down port's speed is `0`: no speed. A routed port prints
//! `-` for its mode and nothing after it. Rules, blank lines and a command echo are skipped; any
//! other line warns.

use crate::cli_tree::is_switch_prompt;
use crate::lines::{cells, no_facts, numbered, unrecognised_clipped};
use crate::status_table::{header_columns, speed_mbps};
use crate::switch::canonical_interface;
use crate::{ParseResult, ParseWarning, Parsed};
use serde::Serialize;

/// Every row of the table.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct InterfaceStatus {
    /// Ports in output order.
    pub ports: Vec<PortStatus>,
}

pub use crate::status_table::PortStatus;

/// Parses `show interface status` (OS10).
///
/// # Errors
/// Empty input, or no row under a `Port ... Status ...` header.
pub fn parse(text: &str) -> ParseResult<InterfaceStatus> {
    let mut ports = Vec::new();
    let mut w = Vec::new();
    let mut columns: Option<Vec<(usize, String)>> = None;
    for l in numbered(text) {
        let t = l.text;
        if t.chars().all(|c| c == '-') || is_switch_prompt(t) {
            continue;
        }
        if t.starts_with("Port") && t.contains("Status") && t.contains("Description") {
            columns = Some(header_columns(l.raw).into_iter().map(|(at, name)| (at, name.to_string())).collect());
            continue;
        }
        match columns.as_deref().and_then(|c| row(l.raw, c)) {
            Some(p) => ports.push(p),
            None => w.push(ParseWarning::at(l.n, unrecognised_clipped(t))),
        }
    }
    if ports.is_empty() {
        return Err(no_facts(
            text,
            "empty show interface status output",
            "no `Port Description Status ...` table row: not OS10 show interface status output",
        ));
    }
    Ok(Parsed { value: InterfaceStatus { ports }, warnings: w })
}

/// A row cut at the header's column starts; `None` without a port or a status.
fn row(raw: &str, columns: &[(usize, String)]) -> Option<PortStatus> {
    let starts: Vec<usize> = columns.iter().map(|(at, _)| *at).collect();
    let values = cells(raw, &starts);
    let cell = |name: &str| {
        let i = columns.iter().position(|(_, n)| n == name)?;
        values.get(i).filter(|v| !v.is_empty()).cloned()
    };
    let port = cell("Port")?;
    let status = cell("Status")?;
    if status.contains(char::is_whitespace) || port.split_whitespace().count() > 2 {
        return None;
    }
    let speed = cell("Speed");
    Some(PortStatus {
        name: canonical_interface(&port.split_whitespace().collect::<String>()),
        port,
        description: cell("Description"),
        oper_up: status == "up",
        admin_up: (status == "up").then_some(true),
        status,
        speed_mbps: speed.as_deref().and_then(speed_mbps),
        speed,
        duplex: cell("Duplex"),
        mode: cell("Mode"),
        vlan: cell("Vlan"),
        tagged_vlans: cell("Tagged-Vlans"),
        ..PortStatus::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = include_str!(
        "../../tests/fixtures/dell_os10_interfaces/dell-os10-show-interface-status-cray-csm-aggregate-PARTIAL.txt"
    );

    #[test]
    fn rows_without_a_port_or_status_warn() {
        let text = "Port            Description     Status   Speed\nEth 1/1/1                       up       10G\n                x\nEth 1/1/2       y               up up    1G\n";
        let parsed = parse(text).expect("parses");
        assert_eq!(parsed.warnings.iter().map(|w| w.line).collect::<Vec<_>>(), [3, 4]);
        assert_eq!(parsed.value.ports[0].name, "Ethernet1/1/1");
    }

    #[test]
    fn empty_and_foreign_text_are_errors() {
        assert!(parse("").is_err());
        assert!(parse("hello\nworld\n").is_err());
    }

    crate::lines::parser_never_panics!(parse, SAMPLE);
}
