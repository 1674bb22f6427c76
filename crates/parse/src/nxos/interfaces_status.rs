//! Cisco NX-OS `show interface status` (and `show interface IF status`): per port the
//! description, link status, VLAN, duplex, speed and transceiver type.
//!
//! ```text
//! --------------------------------------------------------------------------------
//! Port          Name               Status    Vlan      Duplex  Speed   Type
//! --------------------------------------------------------------------------------
//! mgmt0         --                 connected routed    full    100     --
//! Eth1/1        managed by puppet  disabled  routed    auto    auto    SFP-H10GB-CU2M
//! Eth1/3        --                 xcvrAbsen 1         auto    auto    --
//! Po10          --                 noOperMem 1         auto    auto    --
//! ```
//!
//! NX-OS cuts the status to the column's nine characters (`notconnec`, `xcvrAbsen`,
//! `noOperMem`, `channelDo`, `linkFlapE`), prints `--` for an empty name, VLAN or type, and
//! speeds in Mb/s without a unit below 10G (`1000`, `a-1000`), with `G` above (`10G`, `a-10G`,
//! `100G`). Long names overflow their column, so the status is found at the header's `Status`
//! column and otherwise as the first status word after the port (see [`crate::status_table`]).
//! A second table of tunnels (`Interface  Name  Status  Reason  Reason description`) may follow;
//! its rows keep their reason. Header rules and a command echo (`show interface Ethernet1/1
//! status`, `switch# show ...`) are skipped; any other line warns.

use crate::cli_tree::is_switch_prompt;
use crate::lines::{no_facts, numbered, unrecognised_clipped};
use crate::status_table::{speed_mbps, split_row};
use crate::switch::canonical_interface;
use crate::{ParseResult, ParseWarning, Parsed};
use serde::Serialize;

/// Every row of the output.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct InterfaceStatus {
    /// Ports in output order.
    pub ports: Vec<PortStatus>,
}

pub use crate::status_table::PortStatus;

/// The statuses NX-OS prints, in full and lower case; the table shows their first nine
/// characters.
const STATUSES: [&str; 17] = [
    "connected",
    "notconnect",
    "disabled",
    "xcvrabsent",
    "sfpabsent",
    "noopermembers",
    "channeldown",
    "linkflaperrdisabled",
    "err-disabled",
    "errdisabled",
    "suspnd",
    "suspended",
    "inactive",
    "monitor",
    "down",
    "up",
    "sfpinvalid",
];

/// Whether `word` is a status as NX-OS prints it: a full one, or one cut to nine characters.
fn is_status(word: &str) -> bool {
    let lower = word.to_ascii_lowercase();
    STATUSES.iter().any(|s| *s == lower || (lower.len() == 9 && s.starts_with(lower.as_str())))
}

/// Which table the rows belong to.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Table {
    /// `Port Name Status Vlan Duplex Speed Type`.
    Ports,
    /// `Interface Name Status Reason Reason description` (tunnels).
    Reasons,
}

/// Parses `show interface status`.
///
/// # Errors
/// Empty input, or no `Port ... Status` header with a row under it.
pub fn parse(text: &str) -> ParseResult<InterfaceStatus> {
    let mut ports = Vec::new();
    let mut w = Vec::new();
    let mut table: Option<(Table, Option<usize>)> = None;
    for l in numbered(text) {
        let t = l.text;
        if t.chars().all(|c| c == '-') || is_switch_prompt(t) || (table.is_none() && t.starts_with("show ")) {
            continue;
        }
        if let Some(kind) = header(t) {
            table = Some((kind, l.raw.find("Status")));
            continue;
        }
        let row = table.and_then(|(kind, col)| row(l.raw, kind, col));
        match row {
            Some(p) => ports.push(p),
            None => w.push(ParseWarning::at(l.n, unrecognised_clipped(t))),
        }
    }
    if ports.is_empty() {
        return Err(no_facts(
            text,
            "empty show interface status output",
            "no `Port Name Status ...` table row: not NX-OS show interface status output",
        ));
    }
    Ok(Parsed { value: InterfaceStatus { ports }, warnings: w })
}

fn header(line: &str) -> Option<Table> {
    let words: Vec<&str> = line.split_whitespace().collect();
    match words.as_slice() {
        ["Port", "Name", "Status", ..] => Some(Table::Ports),
        ["Interface", "Name", "Status", "Reason", ..] => Some(Table::Reasons),
        _ => None,
    }
}

fn row(raw: &str, table: Table, status_col: Option<usize>) -> Option<PortStatus> {
    let r = split_row(raw, status_col, is_status)?;
    let cell = |w: Option<&&str>| w.filter(|w| **w != "--").map(|w| (*w).to_string());
    let lower = r.status.to_ascii_lowercase();
    let mut p = PortStatus {
        port: r.port.to_string(),
        name: canonical_interface(r.port),
        description: Some(r.description).filter(|d| !d.is_empty() && d != "--"),
        status: r.status.to_string(),
        oper_up: lower == "connected" || lower == "up",
        admin_up: match lower.as_str() {
            "disabled" => Some(false),
            "connected" | "notconnec" | "notconnect" | "xcvrabsen" | "xcvrabsent" | "sfpabsent" => Some(true),
            _ => None,
        },
        ..PortStatus::default()
    };
    match table {
        Table::Ports => {
            if r.rest.len() < 3 {
                return None;
            }
            p.vlan = cell(r.rest.first());
            p.duplex = cell(r.rest.get(1));
            p.speed = cell(r.rest.get(2));
            p.speed_mbps = p.speed.as_deref().and_then(speed_mbps);
            p.media = Some(r.rest[3..].join(" ")).filter(|m| !m.is_empty() && m != "--");
        }
        Table::Reasons => p.reason = Some(r.rest.join(" ")).filter(|m| !m.is_empty()),
    }
    Some(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: &str = include_str!("../../tests/fixtures/nxos_interfaces/cisco_nxos_show_interface_status.raw");
    const TUNNEL: &str =
        include_str!("../../tests/fixtures/nxos_interfaces/cisco_nxos_show_interface_status_tunnel.raw");

    #[test]
    fn cut_statuses_are_statuses() {
        for s in ["notconnec", "xcvrAbsen", "noOperMem", "channelDo", "linkFlapE", "connected", "up"] {
            assert!(is_status(s), "{s}");
        }
        for s in ["upk", "managed", "notconne", "--"] {
            assert!(!is_status(s), "{s}");
        }
    }

    #[test]
    fn rows_without_status_or_columns_warn() {
        let text = "Port Name Status Vlan Duplex Speed Type\nEth1/1 x sideways 1 full 10G\nEth1/2 -- connected 1\nEth1/3 -- connected 1 full 10G y\n";
        let parsed = parse(text).expect("parses");
        assert_eq!(parsed.warnings.iter().map(|w| w.line).collect::<Vec<_>>(), [2, 3]);
        assert_eq!(parsed.value.ports.len(), 1);
    }

    #[test]
    fn empty_and_foreign_text_are_errors() {
        assert!(parse("").is_err());
        assert!(parse("hello\nworld\n").is_err());
        assert!(parse("Eth1/1 -- connected 1 full 10G x\n").is_err(), "a row needs a header");
    }

    crate::lines::parser_never_panics!(parse, [ALL, TUNNEL]);
}
