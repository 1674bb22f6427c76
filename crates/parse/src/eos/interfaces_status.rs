//! Arista EOS `show interfaces status`: per port the link status, VLAN, duplex, speed and type.
//!
//! ```text
//! Port       Name                   Status       Vlan        Duplex  Speed Type
//! Et3/1/1    I am a 40G port !! Hi  connected    trunk       a-full  a-40G 40GBASE-CR4
//! Et3/1/4                           inactive     1           unconf unconf 40GBASE-CR4
//! Et49       Core: drxx.yul01       notconnect   in Po49     full    10G   Not Present
//! ```
//!
//! Variants: the aligned table (the Status column is found where the header puts it, so a
//! description that contains a status word is not mistaken for one), rows whose spacing was
//! collapsed (the status is then the first status word after the port), `Flags` and
//! `Encapsulation` columns, `in Po49` as the VLAN of a LAG member, and the `| json` form
//! (`{"interfaceStatuses": {"Ethernet1": {"linkStatus": ..., "bandwidth": bps, ...}}}`).
//! Speeds: `a-40G` (negotiated), `10G`, `100M`; `auto` and `unconf` give no speed. JSON ports
//! come in key order (sorted by name), text ports in row order.

use crate::cli_tree::is_switch_prompt;
use crate::lines::{no_facts, numbered, unrecognised_clipped};
use crate::status_table::{speed_mbps, split_row};
use crate::switch::canonical_interface;
use crate::{ParseError, ParseResult, ParseWarning, Parsed};
use serde::Serialize;
use serde_json::Value;

/// Every row of the table.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct InterfacesStatus {
    /// Ports in output order.
    pub ports: Vec<PortStatus>,
}

pub use crate::status_table::PortStatus;

const STATUSES: [&str; 9] = [
    "connected",
    "notconnect",
    "disabled",
    "errdisabled",
    "inactive",
    "monitoring",
    "notpresent",
    "sfpabsent",
    "linkflapdisabled",
];

/// Parses `show interfaces status` (text or `| json`).
///
/// # Errors
/// Empty input; text without the `Port ... Status` header or any row; JSON without
/// `interfaceStatuses`.
pub fn parse(text: &str) -> ParseResult<InterfacesStatus> {
    if text.trim_start().starts_with('{') {
        return parse_json(text);
    }
    let mut ports = Vec::new();
    let mut w = Vec::new();
    let mut status_col: Option<usize> = None;
    for l in numbered(text) {
        if status_col.is_none() {
            if l.text.starts_with("Port") && l.text.contains("Status") {
                status_col = l.raw.find("Status");
            } else if !is_switch_prompt(l.text) {
                w.push(ParseWarning::at(l.n, unrecognised_clipped(l.text)));
            }
            continue;
        }
        match row(l.raw, status_col) {
            Some(p) => ports.push(p),
            None => w.push(ParseWarning::at(l.n, unrecognised_clipped(l.text))),
        }
    }
    if ports.is_empty() {
        return Err(no_facts(
            text,
            "empty show interfaces status output",
            "no `Port Name Status ...` table row: not show interfaces status output",
        ));
    }
    Ok(Parsed { value: InterfacesStatus { ports }, warnings: w })
}

/// One row: the port, then the status word (at the header's Status column when the row is
/// aligned, else the first status word), then VLAN (two words for `in Po49`), duplex, speed and
/// the rest as the media type.
fn row(raw: &str, status_col: Option<usize>) -> Option<PortStatus> {
    let r = split_row(raw, status_col, |w| STATUSES.contains(&w.to_ascii_lowercase().as_str()))?;
    let (vlan, rest) = match r.rest.as_slice() {
        ["in", lag, tail @ ..] => (Some(format!("in {lag}")), tail),
        [v, tail @ ..] => (Some((*v).to_string()), tail),
        [] => (None, &[][..]),
    };
    let speed = rest.get(1).map(|s| (*s).to_string());
    let lower = r.status.to_ascii_lowercase();
    Some(PortStatus {
        port: r.port.to_string(),
        name: canonical_interface(r.port),
        description: (!r.description.is_empty()).then_some(r.description),
        oper_up: lower == "connected",
        admin_up: match lower.as_str() {
            "disabled" => Some(false),
            "connected" | "notconnect" => Some(true),
            _ => None,
        },
        status: r.status.to_string(),
        vlan,
        duplex: rest.first().map(|s| (*s).to_string()),
        speed_mbps: speed.as_deref().and_then(speed_mbps),
        speed,
        media: (rest.len() > 2).then(|| rest[2..].join(" ")),
        ..PortStatus::default()
    })
}

fn parse_json(text: &str) -> ParseResult<InterfacesStatus> {
    let v: Value = serde_json::from_str(text.trim())
        .map_err(|e| ParseError::at(e.line(), format!("not show interfaces status JSON: {e}")))?;
    let Some(map) = v.get("interfaceStatuses").and_then(Value::as_object) else {
        return Err(ParseError::at(0, "JSON without `interfaceStatuses`: not show interfaces status | json"));
    };
    let mut w = Vec::new();
    let mut ports = Vec::new();
    for (name, i) in map {
        let Some(status) = i.get("linkStatus").and_then(Value::as_str) else {
            let message = format!("interface `{name}` has no `linkStatus`: skipped");
            w.push(ParseWarning::at(key_line(text, name), message));
            continue;
        };
        let text = |k: &str| i.get(k).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_string);
        let vlan = i.get("vlanInformation").and_then(|v| {
            v.get("vlanId")
                .and_then(Value::as_u64)
                .map(|id| id.to_string())
                .or_else(|| v.get("interfaceMode").and_then(Value::as_str).map(str::to_string))
        });
        let bps = i.get("bandwidth").and_then(Value::as_u64).filter(|b| *b > 0);
        ports.push(PortStatus {
            port: name.clone(),
            name: canonical_interface(name),
            description: text("description"),
            status: status.to_string(),
            oper_up: status == "connected",
            admin_up: match status {
                "disabled" => Some(false),
                "connected" | "notconnect" => Some(true),
                _ => None,
            },
            vlan,
            duplex: text("duplex"),
            speed: None,
            speed_mbps: bps.map(|b| b / 1_000_000),
            media: text("interfaceType"),
            ..PortStatus::default()
        });
    }
    if ports.is_empty() && map.is_empty() {
        return Err(ParseError::at(0, "`interfaceStatuses` is empty"));
    }
    Ok(Parsed { value: InterfacesStatus { ports }, warnings: w })
}

/// The line on which the JSON key `"name"` first appears (1 when it cannot be found).
pub(crate) fn key_line(text: &str, name: &str) -> usize {
    let key = format!("\"{name}\"");
    text.find(&key).map(|at| text[..at].matches('\n').count() + 1).unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALIGNED: &str = include_str!("../../tests/fixtures/eos_interfaces/arista_eos_show_interfaces_status.raw");
    const FLAGS: &str = include_str!("../../tests/fixtures/eos_interfaces/arista_eos_show_interfaces_status_flags.raw");
    const JSON: &str = include_str!(
        "../../tests/fixtures/eos_interfaces/veos-4.33.2F-show-interfaces-status-json-PROVENANCE-WEAK.json"
    );

    #[test]
    fn a_status_word_in_the_description_is_not_the_status() {
        let text = "Port   Name              Status      Vlan  Duplex Speed Type\nEt1    disabled by ops   connected   1     full   100G  100GBASE-CR4\n";
        let p = &parse(text).expect("parses").value.ports[0];
        assert_eq!(p.status, "connected");
        assert_eq!(p.description.as_deref(), Some("disabled by ops"));
        assert_eq!(p.speed_mbps, Some(100_000));
    }

    #[test]
    fn rows_without_a_status_warn() {
        let text = "Port Name Status Vlan Duplex Speed Type\nEt1 x up 1 full 10G y\nEt2 connected 1 full 10G y\n";
        let parsed = parse(text).expect("parses");
        assert_eq!(parsed.warnings.iter().map(|w| w.line).collect::<Vec<_>>(), [2]);
        assert_eq!(parsed.value.ports.len(), 1);
    }

    #[test]
    fn empty_and_foreign_text_are_errors() {
        assert!(parse("").is_err());
        assert!(parse("hello\nworld\n").is_err());
        assert!(parse("{\"x\": 1}").is_err());
        assert!(parse("{").is_err());
    }

    crate::lines::parser_never_panics!(parse, [ALIGNED, FLAGS, JSON]);
}
