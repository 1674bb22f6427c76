//! Arista EOS `show priority-flow-control counters [detail]`: PFC frames received and sent.
//!
//! No capture of this command's output has been published that we could find, so this parser
//! reads the forms the command is documented and consumed in, by their column names:
//!
//! ```text
//! Port       RxPfc      TxPfc              (totals per port)
//! Et1        0          12
//!
//! Port       Priority   RxPfc   TxPfc      (per priority, detail)
//! Et1        3          0       12
//!
//! Ethernet1                                (per interface, then a priority table)
//!    Priority   RxPfc   TxPfc
//!    3          0       12
//! ```
//!
//! Columns are found by name in the header (`Port`, `Priority`/`Prio`, `RxPfc`, `TxPfc`, any
//! case), so extra columns do no harm. The `| json` form is read as Arista's eAPI returns it,
//! `{"interfaces": {"Ethernet1": {"priorities": {"3": {"rxFrames": 0, "txFrames": 12}}}}}` (detail;
//! the shape fabcheck's collectors and others' health checks consume), with per-interface
//! `rxFrames`/`txFrames` read as totals.

use super::interfaces_status::key_line;
use crate::cli_tree::is_switch_prompt;
use crate::lines::{no_facts, numbered, unrecognised_clipped};
use crate::switch::canonical_interface;
use crate::{ParseError, ParseResult, ParseWarning, Parsed};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// PFC counters of every port in the output.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PfcCounters {
    /// Ports in output order.
    pub ports: Vec<PfcPort>,
}

/// One port's PFC frame counters.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PfcPort {
    /// The port as printed.
    pub port: String,
    /// Canonical name ([`canonical_interface`]).
    pub name: String,
    /// PFC frames received, per priority.
    pub rx: BTreeMap<u8, u64>,
    /// PFC frames sent, per priority.
    pub tx: BTreeMap<u8, u64>,
    /// PFC frames received, all priorities (the summary form).
    pub rx_total: Option<u64>,
    /// PFC frames sent, all priorities.
    pub tx_total: Option<u64>,
}

/// Which column of the current table holds what.
#[derive(Debug, Clone, Copy)]
struct Columns {
    port: Option<usize>,
    priority: Option<usize>,
    rx: usize,
    tx: usize,
    count: usize,
}

/// Parses `show priority-flow-control counters [detail]` (text or `| json`).
///
/// # Errors
/// Empty input, text without an `RxPfc ... TxPfc` header and row, JSON without `interfaces` or
/// `interfaceCounters`.
pub fn parse(text: &str) -> ParseResult<PfcCounters> {
    if text.trim_start().starts_with('{') {
        return parse_json(text);
    }
    let mut out = PfcCounters::default();
    let mut w = Vec::new();
    let mut columns: Option<Columns> = None;
    let mut current: Option<usize> = None;
    for l in numbered(text) {
        let words: Vec<&str> = l.text.split_whitespace().collect();
        if let Some(c) = header(&words) {
            columns = Some(c);
            continue;
        }
        // `Ethernet1` or `Ethernet1:` alone: the port the next priority rows belong to.
        if let [name] = words.as_slice() {
            let name = name.trim_end_matches(':');
            if name.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) && name.chars().any(|c| c.is_ascii_digit())
            {
                current = Some(port_index(&mut out, name));
                continue;
            }
        }
        if is_switch_prompt(l.text) || l.text.chars().all(|c| c == '-' || c == ' ') {
            continue;
        }
        let Some(c) = columns.filter(|c| c.count == words.len()) else {
            w.push(ParseWarning::at(l.n, unrecognised_clipped(l.text)));
            continue;
        };
        let index = match c.port {
            Some(i) => Some(port_index(&mut out, words[i])),
            None => current,
        };
        let rx = words[c.rx].parse::<u64>().ok();
        let tx = words[c.tx].parse::<u64>().ok();
        let priority = c.priority.map(|i| words[i].parse::<u8>().ok().filter(|p| *p <= 7));
        match (index, rx, tx, priority) {
            (Some(i), Some(rx), Some(tx), Some(Some(p))) => {
                out.ports[i].rx.insert(p, rx);
                out.ports[i].tx.insert(p, tx);
            }
            (Some(i), Some(rx), Some(tx), None) => {
                out.ports[i].rx_total = Some(rx);
                out.ports[i].tx_total = Some(tx);
            }
            _ => w.push(ParseWarning::at(l.n, unrecognised_clipped(l.text))),
        }
    }
    out.ports.retain(|p| !p.rx.is_empty() || p.rx_total.is_some());
    if out.ports.is_empty() {
        return Err(no_facts(
            text,
            "empty show priority-flow-control counters output",
            "no `RxPfc TxPfc` row: not show priority-flow-control counters output",
        ));
    }
    Ok(Parsed { value: out, warnings: w })
}

fn header(words: &[&str]) -> Option<Columns> {
    let find = |names: &[&str]| words.iter().position(|w| names.iter().any(|n| w.eq_ignore_ascii_case(n)));
    Some(Columns {
        rx: find(&["RxPfc"])?,
        tx: find(&["TxPfc"])?,
        port: find(&["Port", "Interface"]),
        priority: find(&["Priority", "Prio"]),
        count: words.len(),
    })
}

fn port_index(out: &mut PfcCounters, port: &str) -> usize {
    if let Some(i) = out.ports.iter().position(|p| p.port == port) {
        return i;
    }
    out.ports.push(PfcPort { port: port.to_string(), name: canonical_interface(port), ..PfcPort::default() });
    out.ports.len() - 1
}

fn parse_json(text: &str) -> ParseResult<PfcCounters> {
    let v: Value = serde_json::from_str(text.trim())
        .map_err(|e| ParseError::at(e.line(), format!("not show priority-flow-control counters JSON: {e}")))?;
    let Some(map) = v.get("interfaces").or_else(|| v.get("interfaceCounters")).and_then(Value::as_object) else {
        return Err(ParseError::at(0, "JSON without `interfaces`: not show priority-flow-control counters | json"));
    };
    let mut out = PfcCounters::default();
    let mut w = Vec::new();
    let count = |o: &Value, k: &str| o.get(k).and_then(Value::as_u64);
    for (name, i) in map {
        let mut port = PfcPort {
            port: name.clone(),
            name: canonical_interface(name),
            rx_total: count(i, "rxFrames"),
            tx_total: count(i, "txFrames"),
            ..PfcPort::default()
        };
        for (prio, c) in i.get("priorities").and_then(Value::as_object).into_iter().flatten() {
            match (prio.parse::<u8>().ok().filter(|p| *p <= 7), count(c, "rxFrames"), count(c, "txFrames")) {
                (Some(p), Some(rx), Some(tx)) => {
                    port.rx.insert(p, rx);
                    port.tx.insert(p, tx);
                }
                _ => w.push(ParseWarning::at(
                    key_line(text, name),
                    format!("priority `{prio}` of `{name}` has no readable rxFrames/txFrames: skipped"),
                )),
            }
        }
        if port.rx.is_empty() && port.rx_total.is_none() {
            w.push(ParseWarning::at(key_line(text, name), format!("`{name}` has no PFC counters: skipped")));
            continue;
        }
        out.ports.push(port);
    }
    if out.ports.is_empty() && map.is_empty() {
        return Err(ParseError::at(0, "no interface in the JSON"));
    }
    Ok(Parsed { value: out, warnings: w })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Written from the documented column names (no published capture exists).
    const DETAIL: &str = "Port       Priority   RxPfc      TxPfc\nEt1        0          0          0\nEt1        3          12         4051\n";

    #[test]
    fn per_priority_rows() {
        let parsed = parse(DETAIL).expect("parses");
        let p = &parsed.value.ports[0];
        assert_eq!((p.name.as_str(), p.rx[&3], p.tx[&3], p.tx[&0]), ("Ethernet1", 12, 4051, 0));
        assert!(parsed.warnings.is_empty());
    }

    #[test]
    fn rows_that_do_not_fit_the_header_warn() {
        let text = "Port RxPfc TxPfc\nEt1 1 2\nEt2 x 2\nEt3 1\n";
        let parsed = parse(text).expect("parses");
        assert_eq!(parsed.warnings.iter().map(|w| w.line).collect::<Vec<_>>(), [3, 4]);
        assert_eq!(parsed.value.ports[0].rx_total, Some(1));
    }

    #[test]
    fn empty_and_foreign_text_are_errors() {
        assert!(parse("").is_err());
        assert!(parse("hello\nworld\n").is_err());
        assert!(parse("{\"x\": []}").is_err());
    }

    crate::lines::parser_never_panics!(parse, DETAIL);
}
