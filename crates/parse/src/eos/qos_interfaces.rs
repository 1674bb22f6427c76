//! Arista EOS `show qos interfaces [IF]`: per interface the trust mode, default CoS/DSCP and the
//! transmit-queue table (bandwidth, priority, ECN/WRED).
//!
//! ```text
//! Port-Channel33:
//!    Trust Mode: DSCP
//!    Default COS: 0
//!    Default DSCP: 0
//!    Port shaping rate: enabled
//!   Tx    Bandwidth     Bandwidth                   Shape Rate         Priority   ECN/WRED
//!  Queue  (percent)     Guaranteed (units)           (units)
//!  ----------------------------------------------------------------------------------------
//!    7        -             - ( - )              -            ( - )      SP         D
//!    3        25          - ( - )           24.9      (Gbps)   SP        D
//!    0        20          - ( - )              -            ( - )       RR       D
//!
//! Legend:
//! RR -> Round Robin
//! ...
//! ```
//!
//! Queue rows are read by what their words are, not by column position (published copies are
//! not aligned): the queue number first, the bandwidth percent second (`-`: none), `SP`/`RR` for
//! the priority and the last `L`/`W`/`D` for ECN/WRED (queue-length ECN, WRED, disabled). Trust
//! modes: `DSCP` → `dscp`, `COS` → `pcp`, `UNTRUSTED`/`DISABLED` → `untrusted`. A `switch#show
//! ...` prompt line is skipped; the legend and table headers are recognised and skipped.

use crate::cli_tree::is_switch_prompt;
use crate::lines::{no_facts, numbered, unrecognised_clipped};
use crate::switch::canonical_interface;
use crate::{ParseResult, ParseWarning, Parsed};
use serde::Serialize;

/// Every interface block of the output.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct QosInterfaces {
    /// Interfaces in output order.
    pub interfaces: Vec<QosInterface>,
}

/// One interface block.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct QosInterface {
    /// The interface as printed (`Port-Channel33`).
    pub port: String,
    /// Canonical name.
    pub name: String,
    /// `Trust Mode` in the model's words: `dscp`, `pcp` or `untrusted`.
    pub trust: Option<String>,
    /// `Default COS`.
    pub default_cos: Option<u8>,
    /// `Default DSCP`.
    pub default_dscp: Option<u8>,
    /// `Port shaping rate` as printed (`enabled`, `disabled`, a rate).
    pub port_shaping: Option<String>,
    /// Transmit queues in output order.
    pub queues: Vec<TxQueueStatus>,
}

/// One row of the transmit-queue table.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TxQueueStatus {
    /// Queue number.
    pub queue: u8,
    /// `Bandwidth (percent)` (`-`: `None`).
    pub bandwidth_percent: Option<u32>,
    /// `SP` (true) or `RR` (false).
    pub strict: Option<bool>,
    /// The `ECN/WRED` flag.
    pub ecn_wred: Option<QueueFlag>,
}

/// The `ECN/WRED` column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum QueueFlag {
    /// `L`: queue-length ECN marking enabled.
    Ecn,
    /// `W`: WRED (dropping) enabled.
    Wred,
    /// `D`: neither.
    Disabled,
}

/// Parses `show qos interfaces`.
///
/// # Errors
/// Empty input, or no `NAME:` interface line with a `Trust Mode` or queue row under it.
pub fn parse(text: &str) -> ParseResult<QosInterfaces> {
    let mut out = QosInterfaces::default();
    let mut w = Vec::new();
    let mut in_legend = false;
    for l in numbered(text) {
        let line = l.text;
        if let Some(name) = interface_header(line) {
            out.interfaces.push(QosInterface {
                port: name.to_string(),
                name: canonical_interface(name),
                ..QosInterface::default()
            });
            in_legend = false;
            continue;
        }
        if line == "Legend:" {
            in_legend = true;
            continue;
        }
        if in_legend || is_switch_prompt(line) || is_table_header(line) {
            continue;
        }
        let Some(iface) = out.interfaces.last_mut() else {
            w.push(ParseWarning::at(l.n, unrecognised_clipped(line)));
            continue;
        };
        if !field(iface, line) {
            match queue_row(line) {
                Some(q) => iface.queues.push(q),
                None => w.push(ParseWarning::at(l.n, unrecognised_clipped(line))),
            }
        }
    }
    out.interfaces.retain(|i| i.trust.is_some() || !i.queues.is_empty());
    if out.interfaces.is_empty() {
        return Err(no_facts(
            text,
            "empty show qos interfaces output",
            "no `INTERFACE:` block with a trust mode or queue table: not show qos interfaces output",
        ));
    }
    Ok(Parsed { value: out, warnings: w })
}

/// `Ethernet1:` / `Port-Channel33:` alone on a line.
fn interface_header(line: &str) -> Option<&str> {
    let name = line.strip_suffix(':')?;
    let lower = name.to_ascii_lowercase();
    let known = ["ethernet", "port-channel", "et", "po", "switch"].iter().any(|p| lower.starts_with(p));
    (known && !name.contains(char::is_whitespace) && name.chars().any(|c| c.is_ascii_digit())).then_some(name)
}

fn is_table_header(line: &str) -> bool {
    line.starts_with("Tx ") || line.starts_with("Queue") || line.chars().all(|c| c == '-')
}

/// `Key: value` lines; false when the line is none of them.
fn field(iface: &mut QosInterface, line: &str) -> bool {
    let Some((key, value)) = line.split_once(':') else {
        return false;
    };
    let value = value.trim();
    match key.trim() {
        "Trust Mode" => {
            iface.trust = Some(match value.to_ascii_uppercase().as_str() {
                "DSCP" => "dscp".to_string(),
                "COS" => "pcp".to_string(),
                "UNTRUSTED" | "DISABLED" | "NONE" => "untrusted".to_string(),
                _ => return false,
            })
        }
        "Default COS" => match value.parse::<u8>().ok().filter(|v| *v <= 7) {
            Some(v) => iface.default_cos = Some(v),
            None => return false,
        },
        "Default DSCP" => match value.parse::<u8>().ok().filter(|v| *v <= 63) {
            Some(v) => iface.default_dscp = Some(v),
            None => return false,
        },
        "Port shaping rate" => iface.port_shaping = Some(value.to_string()),
        _ => return false,
    }
    true
}

fn queue_row(line: &str) -> Option<TxQueueStatus> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let queue = words.first()?.parse::<u8>().ok().filter(|q| *q <= 15)?;
    let bandwidth_percent = match *words.get(1)? {
        "-" => None,
        v => Some(v.parse::<u32>().ok().filter(|v| *v <= 100)?),
    };
    let strict = words.iter().find_map(|w| match *w {
        "SP" => Some(true),
        "RR" => Some(false),
        _ => None,
    });
    let ecn_wred = match *words.last()? {
        "L" => Some(QueueFlag::Ecn),
        "W" => Some(QueueFlag::Wred),
        "D" => Some(QueueFlag::Disabled),
        _ => None,
    };
    (strict.is_some() || ecn_wred.is_some()).then_some(TxQueueStatus { queue, bandwidth_percent, strict, ecn_wred })
}

impl QosInterface {
    /// The row of queue `q`.
    pub fn queue(&self, q: u8) -> Option<&TxQueueStatus> {
        self.queues.iter().find(|r| r.queue == q)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str =
        include_str!("../../tests/fixtures/eos_qos/arista-mls-eos-4.2x-stig-sh-qos-int-po33-PROVENANCE-WEAK.txt");

    #[test]
    fn unreadable_fields_and_rows_warn() {
        let text = "Ethernet1:\n   Trust Mode: SOMETIMES\n   Default COS: 9\n   3  x  SP  D\n   2  10  RR  W\n";
        let parsed = parse(text).expect("parses");
        assert_eq!(parsed.warnings.iter().map(|w| w.line).collect::<Vec<_>>(), [2, 3, 4]);
        assert_eq!(parsed.value.interfaces[0].queues[0].ecn_wred, Some(QueueFlag::Wred));
    }

    #[test]
    fn empty_and_foreign_text_are_errors() {
        assert!(parse("").is_err());
        assert!(parse("hello\nworld\n").is_err());
        assert!(parse("Ethernet1:\n").is_err());
    }

    crate::lines::parser_never_panics!(parse, SAMPLE);
}
