//! Arista EOS `show interfaces counters queue detail`: packets sent and dropped per port, traffic
//! class, drop precedence and destination type (unicast, multicast), from its `Egress Queue
//! Counters` table, as a 7500's prints it:
//!
//! ```text
//! Egress Queue Counters
//! Port               Traffic   DropPrec   DestType        OutEnqPkts      OutEnqOctets       OutDropPkts     OutDropOctets
//!                     Class
//! Et4/2/1                TC7      DP0-3         UC                 0                 0                 1               110
//! ```
//!
//! Columns are found by name in the header (`Port`, `Traffic`, `OutEnqPkts`, `OutDropPkts`), so
//! extra columns do no harm. Only the rows that moved are printed (the 7500's lists TC1 and TC7
//! of its ports, not the idle classes), so a header with no row is an idle switch, not foreign
//! text. Other sections (the ingress VOQ counters of the 7280R/7500R/7800R,
//! whose layout no published capture shows) are not read: their lines are reported, never taken
//! for egress rows.

use crate::cli_tree::is_switch_prompt;
use crate::lines::{no_facts, numbered, unrecognised_clipped};
use crate::switch::canonical_interface;
use crate::{ParseResult, ParseWarning, Parsed};
use serde::Serialize;

/// Every egress row of the output.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct QueueCounters {
    /// Rows in output order.
    pub rows: Vec<QueueRow>,
}

/// One port's counters for one traffic class, drop precedence range and destination type.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct QueueRow {
    /// The port as printed: `Et3/1/1`.
    pub port: String,
    /// Canonical name ([`canonical_interface`]): `Ethernet3/1/1`.
    pub name: String,
    /// The traffic class: 7 for `TC7`.
    pub traffic_class: u8,
    /// `DP0-3`, as printed.
    pub drop_precedence: String,
    /// `UC` (unicast) or `MC` (multicast), as printed.
    pub dest_type: String,
    /// Packets enqueued for transmission (`OutEnqPkts`).
    pub enqueued: u64,
    /// Packets dropped (`OutDropPkts`).
    pub dropped: u64,
}

/// Which column holds what in the egress table.
#[derive(Debug, Clone, Copy)]
struct Columns {
    port: usize,
    class: usize,
    drop_prec: Option<usize>,
    dest: Option<usize>,
    enqueued: usize,
    dropped: usize,
    count: usize,
}

/// Parses `show interfaces counters queue detail`.
///
/// # Errors
/// Empty input, or no egress row under an `OutEnqPkts ... OutDropPkts` header.
pub fn parse(text: &str) -> ParseResult<QueueCounters> {
    let mut out = QueueCounters::default();
    let mut w = Vec::new();
    let mut columns: Option<Columns> = None;
    let mut header_seen = false;
    for l in numbered(text) {
        let words: Vec<&str> = l.text.split_whitespace().collect();
        if words.is_empty() || is_switch_prompt(l.text) || l.text.chars().all(|c| c == '-' || c == ' ') {
            continue;
        }
        if let Some(c) = header(&words) {
            columns = Some(c);
            header_seen = true;
            continue;
        }
        match words.as_slice() {
            // The section title, and the header's second line (`Class`).
            ["Egress", "Queue", "Counters"] => continue,
            ["Class"] if columns.is_some() => continue,
            // Another section: its rows are not egress rows.
            [first, ..] if first.eq_ignore_ascii_case("ingress") => {
                columns = None;
                w.push(ParseWarning::at(l.n, unrecognised_clipped(l.text)));
                continue;
            }
            _ => {}
        }
        match columns.filter(|c| c.count == words.len()).and_then(|c| row(&words, c)) {
            Some(r) => out.rows.push(r),
            None => w.push(ParseWarning::at(l.n, unrecognised_clipped(l.text))),
        }
    }
    // EOS prints only the rows that moved: a table with its header and no row is a switch whose
    // queues sent and dropped nothing yet.
    if out.rows.is_empty() && !header_seen {
        return Err(no_facts(
            text,
            "empty show interfaces counters queue detail output",
            "no `OutEnqPkts ... OutDropPkts` row: not show interfaces counters queue detail output",
        ));
    }
    Ok(Parsed { value: out, warnings: w })
}

fn header(words: &[&str]) -> Option<Columns> {
    let find = |name: &str| words.iter().position(|w| w.eq_ignore_ascii_case(name));
    Some(Columns {
        port: find("Port")?,
        class: find("Traffic")?,
        drop_prec: find("DropPrec"),
        dest: find("DestType"),
        enqueued: find("OutEnqPkts")?,
        dropped: find("OutDropPkts")?,
        count: words.len(),
    })
}

fn row(words: &[&str], c: Columns) -> Option<QueueRow> {
    let class = words[c.class];
    let traffic_class = class.strip_prefix("TC").unwrap_or(class).parse::<u8>().ok().filter(|tc| *tc <= 7)?;
    Some(QueueRow {
        port: words[c.port].to_string(),
        name: canonical_interface(words[c.port]),
        traffic_class,
        drop_precedence: c.drop_prec.map(|i| words[i].to_string()).unwrap_or_default(),
        dest_type: c.dest.map(|i| words[i].to_string()).unwrap_or_default(),
        enqueued: words[c.enqueued].parse().ok()?,
        dropped: words[c.dropped].parse().ok()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = include_str!(
        "../../tests/fixtures/eos_queue_counters/eos-7500-show-interfaces-counters-queue-detail-egress-ntc-templates-pr507.txt"
    );

    crate::lines::parser_never_panics!(parse, SAMPLE);
}
