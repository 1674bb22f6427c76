//! Dell OS10 `show queuing statistics interface ethernet X/Y/Z`: packets and bytes sent and
//! dropped per egress queue of a port, as an S5248F prints it (a Dell engineer's session on the
//! netdev list, fixtures/dell_os10_queuing/SOURCES.md):
//!
//! ```text
//! Interface ethernet1/1/4
//! Queue Packets                  Bytes                    Dropped-Packets          Dropped-Bytes
//! 5     21377065                 191400217674             1263665                  11321730380
//! ```
//!
//! Several `Interface` blocks are read in turn; the CLI's prompts and echoed command are skipped.

use crate::cli_tree::is_switch_prompt;
use crate::lines::{no_facts, numbered, unrecognised_clipped};
use crate::switch::canonical_interface;
use crate::{ParseResult, ParseWarning, Parsed};
use serde::Serialize;
use std::collections::BTreeMap;

/// Every port's queues in the output.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct QueuingStatistics {
    /// Ports in output order.
    pub ports: Vec<QueuingPort>,
}

/// One port's egress queues.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct QueuingPort {
    /// The port as printed: `ethernet1/1/4`.
    pub port: String,
    /// Canonical name ([`canonical_interface`]): `Ethernet1/1/4`.
    pub name: String,
    /// Per queue number.
    pub queues: BTreeMap<u8, QueueStatistics>,
}

/// One queue's counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct QueueStatistics {
    /// Packets sent.
    pub packets: u64,
    /// Bytes sent.
    pub bytes: u64,
    /// Packets dropped.
    pub dropped_packets: u64,
    /// Bytes dropped.
    pub dropped_bytes: u64,
}

/// Parses `show queuing statistics interface ...`.
///
/// # Errors
/// Empty input, or no queue row under an `Interface` line and a `Queue Packets ...` header.
pub fn parse(text: &str) -> ParseResult<QueuingStatistics> {
    let mut out = QueuingStatistics::default();
    let mut w = Vec::new();
    let mut header_seen = false;
    for l in numbered(text) {
        let words: Vec<&str> = l.text.split_whitespace().collect();
        if words.is_empty() || is_switch_prompt(l.text) {
            continue;
        }
        match words.as_slice() {
            // The prompt the session ends on: `hound-dirt#`.
            [prompt] if prompt.len() > 1 && prompt.ends_with(['#', '>']) => continue,
            ["Interface", port] => {
                out.ports.push(QueuingPort {
                    port: port.to_string(),
                    name: canonical_interface(port),
                    queues: BTreeMap::new(),
                });
                header_seen = false;
                continue;
            }
            ["Queue", "Packets", "Bytes", "Dropped-Packets", "Dropped-Bytes"] => {
                header_seen = true;
                continue;
            }
            _ => {}
        }
        let row = match (header_seen, out.ports.last_mut(), words.as_slice()) {
            (true, Some(port), [queue, packets, bytes, dropped_packets, dropped_bytes]) => (|| {
                let stats = QueueStatistics {
                    packets: packets.parse().ok()?,
                    bytes: bytes.parse().ok()?,
                    dropped_packets: dropped_packets.parse().ok()?,
                    dropped_bytes: dropped_bytes.parse().ok()?,
                };
                port.queues.insert(queue.parse::<u8>().ok().filter(|q| *q <= 7)?, stats);
                Some(())
            })(),
            _ => None,
        };
        if row.is_none() {
            w.push(ParseWarning::at(l.n, unrecognised_clipped(l.text)));
        }
    }
    out.ports.retain(|p| !p.queues.is_empty());
    if out.ports.is_empty() {
        return Err(no_facts(
            text,
            "empty show queuing statistics output",
            "no `Interface` line with a `Queue Packets ...` row: not show queuing statistics output",
        ));
    }
    Ok(Parsed { value: out, warnings: w })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = include_str!(
        "../../tests/fixtures/dell_os10_queuing/os10-show-queuing-statistics-hound-dirt-drops-netdev-2022.txt"
    );

    crate::lines::parser_never_panics!(parse, SAMPLE);
}
