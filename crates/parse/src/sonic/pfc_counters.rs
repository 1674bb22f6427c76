//! `show pfc counters` (the `pfcstat` script): PFC pause frames received and sent, per port and
//! priority, since boot or since the last `sonic-clear pfccounters`.
//!
//! ```text
//! Last cached time was 2020-10-01 13:15:55.420247
//!   Port Rx    PFC0    PFC1    PFC2    PFC3    PFC4    PFC5    PFC6    PFC7
//! ---------  ------  ------  ------  ------  ------  ------  ------  ------
//! Ethernet0   1,200     201     202     203     204     205     206     207
//!
//!   Port Tx    PFC0    PFC1 ...
//! ```
//!
//! Two tables (`Port Rx`, then `Port Tx`) in `tabulate` layout (see `table`). Variants: the
//! `Last cached time was ...` line after a clear, thousands separators (`1,200`), `N/A` on ports
//! without counters (backplane ports of a multi-ASIC switch), `For namespace ...` lines, a shell
//! prompt before the output, and a capture cut mid-row (the cut row is skipped with a warning: its
//! last value may be half a number).
use super::table::{Item, counter, is_sonic_prompt, items};
use crate::lines::{cut_line_skipped, no_facts, unrecognised_clipped};
use crate::{ParseError, ParseResult, ParseWarning, Parsed};
use serde::Serialize;
use std::collections::BTreeMap;

/// Everything `show pfc counters` printed.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PfcCounters {
    /// The time of the cached counters subtracted from the ones shown (after a clear), as printed.
    pub last_cached: Option<String>,
    /// Per port as printed; a port whose counters are all `N/A` is present with empty maps.
    pub ports: BTreeMap<String, PfcPort>,
}

/// PFC frames of one port.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PfcPort {
    /// Received, per priority.
    pub rx: BTreeMap<u8, u64>,
    /// Sent, per priority.
    pub tx: BTreeMap<u8, u64>,
}

#[derive(Clone, Copy)]
enum Direction {
    Rx,
    Tx,
}

/// Parses `show pfc counters` output.
///
/// # Errors
/// Empty input, or neither a `Port Rx` nor a `Port Tx` table.
pub fn parse(text: &str) -> ParseResult<PfcCounters> {
    let mut value = PfcCounters::default();
    let mut warnings = Vec::new();
    let mut tables = 0;
    // The direction of the current table and the priority of each of its columns.
    let mut current: Option<(Direction, Vec<Option<u8>>)> = None;
    for item in items(text) {
        match item {
            Item::Header { line, columns } => {
                let direction = match columns.names[0].as_str() {
                    "Port Rx" => Some(Direction::Rx),
                    "Port Tx" => Some(Direction::Tx),
                    _ => None,
                };
                current = direction.map(|d| {
                    let prios = columns.names.iter().map(|n| priority(n)).collect();
                    (d, prios)
                });
                match current {
                    Some(_) => tables += 1,
                    None => warnings.push(unknown(line.n, line.text)),
                }
            }
            Item::Row { line, cells } => {
                let Some((direction, prios)) = &current else {
                    warnings.push(unknown(line.n, line.text));
                    continue;
                };
                if !line.ended {
                    warnings.push(ParseWarning::at(line.n, cut_line_skipped(line.text)));
                    continue;
                }
                let port = value.ports.entry(cells[0].clone()).or_default();
                let map = match direction {
                    Direction::Rx => &mut port.rx,
                    Direction::Tx => &mut port.tx,
                };
                for (cell, prio) in cells.iter().zip(prios).skip(1) {
                    match (counter(cell), prio) {
                        (Ok(Some(v)), Some(p)) => {
                            map.insert(*p, v);
                        }
                        (Ok(_), _) => {}
                        (Err(()), _) => warnings
                            .push(ParseWarning::at(line.n, format!("unreadable counter `{cell}` for {}", cells[0]))),
                    }
                }
            }
            Item::Other(line) => {
                if let Some(time) = line.text.strip_prefix("Last cached time was") {
                    value.last_cached = Some(time.trim().to_string());
                } else if !(line.text.starts_with("For namespace") || is_sonic_prompt(line.text)) {
                    warnings.push(unknown(line.n, line.text));
                }
            }
        }
    }
    if tables == 0 {
        return Err(no_table(text));
    }
    Ok(Parsed { value, warnings })
}

/// Why no table was found, naming the two near misses seen in saved outputs: titles without the
/// dash line under them (the output filtered through `grep`), and `show pfc counters --history`.
fn no_table(text: &str) -> ParseError {
    let lines = || text.lines().map(str::trim_start);
    if let Some((n, _)) = lines().enumerate().find(|(_, l)| l.starts_with("Port Rx") || l.starts_with("Port Tx")) {
        return ParseError::at(
            n + 1,
            "a `Port Rx`/`Port Tx` title without the dash line under it (filtered through grep?): the columns cannot be told apart; save the whole output",
        );
    }
    if lines().any(|l| l.starts_with("Port") && l.contains("RX Pause Transitions")) {
        return ParseError::at(
            0,
            "`show pfc counters --history` output (pause transitions and times): fabcheck reads `show pfc counters`",
        );
    }
    no_facts(text, "empty show pfc counters output", "no `Port Rx` or `Port Tx` table: not show pfc counters output")
}

/// `PFC3` → 3.
fn priority(name: &str) -> Option<u8> {
    name.strip_prefix("PFC")?.parse().ok().filter(|p| *p < 8)
}

fn unknown(line: usize, text: &str) -> ParseWarning {
    ParseWarning::at(line, unrecognised_clipped(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = include_str!(
        "../../tests/fixtures/sonic_pfc_counters/show-pfc-counters-all-backplane-na-sonic-utilities-pfcstat-test.txt"
    );

    #[test]
    fn bad_values_and_foreign_tables_warn() {
        let text = "Port Rx  PFC0  PFC1\n-------  ----  ----\nEth0        x     2\n\
                    Port  Priority\n----  --------\nEth0  PFC0\n";
        let parsed = parse(text).expect("parses");
        assert_eq!(parsed.value.ports["Eth0"].rx, BTreeMap::from([(1, 2)]));
        let lines: Vec<usize> = parsed.warnings.iter().map(|w| w.line).collect();
        assert_eq!(lines, [3, 4, 6]);
    }

    #[test]
    fn empty_and_foreign_text_are_errors() {
        assert_eq!(parse(" \n").unwrap_err().message, "empty show pfc counters output");
        assert!(parse("Port  Oper\n----  ----\nEth0  up\n").is_err());
        assert!(parse("hello\n").is_err());
    }

    crate::lines::parser_never_panics!(parse, SAMPLE);
}
