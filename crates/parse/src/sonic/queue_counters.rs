//! `show queue counters` (the `queuestat` script): packets and bytes sent and dropped per egress
//! queue of every port.
//!
//! ```text
//! For namespace :
//!      Port    TxQ    Counter/pkts    Counter/bytes    Drop/pkts    Drop/bytes
//! ---------  -----  --------------  ---------------  -----------  ------------
//! Ethernet8    UC0               0                0            0             0
//! Ethernet8   MC10              81               63           76            73
//! Ethernet8  ALL20             N/A              N/A          N/A           N/A
//! ```
//!
//! One `tabulate` table per port (see `table`). The queue column is the queue's type and its
//! index on the port: `UC` unicast, `MC` multicast, `ALL` (platforms whose queues carry both),
//! `VOQ` (`show queue counters --voq` on a VOQ chassis, where the port column is the system port
//! `switch|Ethernet0` and a `Credit-WD-Del/pkts` column follows). Variants: `For namespace ...`
//! lines, `Ethernet0 Last cached time was ...` lines after a clear (`... for asic0 was ...` on a
//! multi-ASIC switch), `N/A` counters, thousands
//! separators, a prompt line, a capture cut mid-row (skipped with a warning). Columns fabcheck
//! does not know are kept by name in `extra`.
use super::table::{counter, is_sonic_prompt, read_tables};
use crate::lines::no_facts;
use crate::{ParseResult, ParseWarning, Parsed};
use serde::Serialize;
use std::collections::BTreeMap;

/// Everything `show queue counters` printed.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct QueueCounters {
    /// Rows in output order.
    pub queues: Vec<QueueRow>,
    /// `Last cached time was ...` per port (`all` when the line names no port), as printed.
    pub last_cached: BTreeMap<String, String>,
}

/// One queue of one port. `None`: the counter is `N/A` (or its column is absent).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct QueueRow {
    /// Port (or VOQ system port `switch|Ethernet0`) as printed.
    pub port: String,
    /// The queue as printed: `UC3`, `MC13`, `ALL20`, `VOQ3`.
    pub queue: String,
    /// Its type: `UC`, `MC`, `ALL`, `VOQ`.
    pub kind: String,
    /// Its index on the port.
    pub index: Option<u32>,
    /// `Counter/pkts`.
    pub tx_packets: Option<u64>,
    /// `Counter/bytes`.
    pub tx_bytes: Option<u64>,
    /// `Drop/pkts`.
    pub drop_packets: Option<u64>,
    /// `Drop/bytes`.
    pub drop_bytes: Option<u64>,
    /// Other counter columns by name (`Credit-WD-Del/pkts` ...).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, u64>,
}

/// Parses `show queue counters` output.
///
/// # Errors
/// Empty input, or no `Port TxQ ...` (or `Port Voq ...`) table.
pub fn parse(text: &str) -> ParseResult<QueueCounters> {
    let mut value = QueueCounters::default();
    let mut warnings = Vec::new();
    let tables = read_tables(
        text,
        &mut value,
        &mut warnings,
        |columns| {
            columns.names.len() > 2
                && columns.names[0].eq_ignore_ascii_case("Port")
                && ["TxQ", "Voq"].iter().any(|q| columns.names[1].eq_ignore_ascii_case(q))
        },
        |value: &mut QueueCounters, cells, names, n, warnings| value.queues.push(row(cells, names, n, warnings)),
        |value, text| {
            // `Last cached time was T`, or on a multi-ASIC switch `Last cached time for asic0 was T`.
            if let Some((port, rest)) = text.split_once("Last cached time")
                && let Some((_, time)) = rest.split_once("was ")
            {
                let port = Some(port.trim()).filter(|p| !p.is_empty()).unwrap_or("all");
                value.last_cached.insert(port.to_string(), time.trim().to_string());
                return true;
            }
            text.starts_with("For namespace") || is_sonic_prompt(text)
        },
    );
    if tables == 0 {
        return Err(no_facts(
            text,
            "empty show queue counters output",
            "no `Port TxQ` table: not show queue counters output",
        ));
    }
    Ok(Parsed { value, warnings })
}

fn row(cells: &[String], names: &[String], n: usize, warnings: &mut Vec<ParseWarning>) -> QueueRow {
    let queue = cells[1].clone();
    let digits = queue.find(|c: char| c.is_ascii_digit()).unwrap_or(queue.len());
    let mut r = QueueRow {
        port: cells[0].clone(),
        kind: queue[..digits].to_string(),
        index: queue[digits..].parse().ok(),
        queue: queue.clone(),
        ..QueueRow::default()
    };
    if r.index.is_none() {
        warnings.push(ParseWarning::at(n, format!("queue `{queue}` has no index")));
    }
    for (cell, name) in cells.iter().zip(names).skip(2) {
        let v = match counter(cell) {
            Ok(v) => v,
            Err(()) => {
                let port = &r.port;
                warnings.push(ParseWarning::at(n, format!("unreadable `{name}` value `{cell}` for {port} {queue}")));
                continue;
            }
        };
        match name.to_ascii_lowercase().as_str() {
            "counter/pkts" => r.tx_packets = v,
            "counter/bytes" => r.tx_bytes = v,
            "drop/pkts" => r.drop_packets = v,
            "drop/bytes" => r.drop_bytes = v,
            _ => {
                if let Some(v) = v {
                    r.extra.insert(name.clone(), v);
                }
            }
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = include_str!(
        "../../tests/fixtures/sonic_queue_counters/show-queue-counters-port-uc-mc-all-sonic-utilities-queue-counter-test.txt"
    );
    const VOQ: &str = include_str!(
        "../../tests/fixtures/sonic_queue_counters/show-queue-counters-port-voq-sonic-utilities-queue-counter-test.txt"
    );

    #[test]
    fn last_cached_lines_bad_cells_and_a_cut_row() {
        let text = "Ethernet0 Last cached time was 2024-01-01 00:00:00\n\
                    \x20    Port    TxQ    Counter/pkts    Counter/bytes    Drop/pkts    Drop/bytes\n\
                    ---------  -----  --------------  ---------------  -----------  ------------\n\
                    Ethernet0    UC0               5               10            x             0\n\
                    Ethernet0     UC               1                1            1             1\n\
                    Ethernet0    UC3               7";
        let parsed = parse(text).expect("parses");
        let v = &parsed.value;
        assert_eq!(v.last_cached["Ethernet0"], "2024-01-01 00:00:00");
        assert_eq!(v.queues.len(), 2);
        assert_eq!((v.queues[0].tx_packets, v.queues[0].drop_packets), (Some(5), None));
        assert_eq!((v.queues[1].kind.as_str(), v.queues[1].index), ("UC", None));
        let lines: Vec<usize> = parsed.warnings.iter().map(|w| w.line).collect();
        assert_eq!(lines, [4, 5, 6]);
    }

    #[test]
    fn empty_and_foreign_text_are_errors() {
        assert!(parse("").is_err());
        assert!(parse("Port  Oper\n----  ----\nEth0  up\n").is_err());
    }

    crate::lines::parser_never_panics!(parse, [SAMPLE, VOQ]);
}
