//! `pfcwd show config` and `pfcwd show stats`: the PFC watchdog's per-port settings and its
//! per-queue storm statistics. One source takes either output, or both one after the other.
//!
//! ```text
//! Changed polling interval to 600ms
//!      PORT    ACTION    DETECTION TIME    RESTORATION TIME    HISTORY
//! ---------  --------  ----------------  ------------------  ---------
//! Ethernet0   forward               102                 101    disable
//!
//!       QUEUE       STATUS    STORM DETECTED/RESTORED    TX OK/DROP    RX OK/DROP    TX LAST OK/DROP    RX LAST OK/DROP
//! -----------  -----------  -------------------------  ------------  ------------  -----------------  -----------------
//! Ethernet0:3      stormed                        1/0       100/300       100/300              0/200              0/200
//! ```
//!
//! `tabulate` tables (see `table`). `show config` lists only ports with a watchdog; a port with
//! none is absent, and a table with no row means no port has one. Its `RESTORATION TIME` may be
//! `infinite` and `DETECTION TIME` `N/A` (the script's defaults when the config DB lacks them);
//! releases before the `HISTORY` column read the same. Before the table: `Changed polling interval
//! to 600ms` (`... on asic0` on multi-ASIC switches) and `BIG_RED_SWITCH status is enable`.
//! `show stats` lists queues whose counters are not all zero; `STATUS` is `operational`,
//! `stormed`, or `N/A` (no watchdog on the queue). Counters are `ok/drop` (or
//! `detected/restored`) pairs.
use super::table::{Item, is_sonic_prompt, items};
use crate::lines::{cut_line_skipped, no_facts, unrecognised_clipped};
use crate::{ParseResult, ParseWarning, Parsed};
use serde::Serialize;

/// Everything `pfcwd show config` and `pfcwd show stats` printed.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Pfcwd {
    /// Whether a `show config` table was printed (so an empty one means "no port has a watchdog").
    pub config_shown: bool,
    /// Polling interval in ms, from `Changed polling interval to 600ms`.
    pub poll_interval_ms: Option<u32>,
    /// `BIG_RED_SWITCH status is ...`: `enable` or `disable`.
    pub big_red_switch: Option<String>,
    /// Ports with a watchdog (`show config`), in output order.
    pub ports: Vec<PfcwdPort>,
    /// Queues with counters (`show stats`), in output order.
    pub queues: Vec<PfcwdQueue>,
}

/// One port's watchdog settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PfcwdPort {
    /// Port as printed.
    pub port: String,
    /// `drop`, `forward` or `alert`.
    pub action: Option<String>,
    /// Detection time in ms (`None`: `N/A`).
    pub detection_ms: Option<u32>,
    /// Restoration time in ms (`None`: `infinite`).
    pub restoration_ms: Option<u32>,
    /// PFC statistics history: `enable`, `disable`.
    pub history: Option<String>,
}

/// One queue's watchdog statistics.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PfcwdQueue {
    /// Port as printed.
    pub port: String,
    /// Queue index.
    pub queue: u8,
    /// `operational`, `stormed`, or `None` (`N/A`: no watchdog on this queue).
    pub status: Option<String>,
    /// Storms detected.
    pub storms_detected: Option<u64>,
    /// Storms restored.
    pub storms_restored: Option<u64>,
    /// Packets sent while the watchdog watched (`TX OK`).
    pub tx_ok: Option<u64>,
    /// Packets dropped on transmit by the watchdog (`TX DROP`).
    pub tx_drop: Option<u64>,
    /// `RX OK`.
    pub rx_ok: Option<u64>,
    /// `RX DROP`.
    pub rx_drop: Option<u64>,
}

enum Table {
    Config(Vec<String>),
    Stats(Vec<String>),
}

/// Parses `pfcwd show config` and/or `pfcwd show stats` output.
///
/// # Errors
/// Empty input, or neither a `PORT ACTION ...` nor a `QUEUE STATUS ...` table.
pub fn parse(text: &str) -> ParseResult<Pfcwd> {
    let mut value = Pfcwd::default();
    let mut warnings = Vec::new();
    let mut tables = 0;
    let mut table: Option<Table> = None;
    for item in items(text) {
        match item {
            Item::Header { line, columns } => {
                let first = columns.names[0].to_ascii_uppercase();
                table = match (first.as_str(), columns.names.len() > 1) {
                    ("PORT", true) if columns.find("ACTION").is_some() => {
                        value.config_shown = true;
                        Some(Table::Config(columns.names))
                    }
                    ("QUEUE", true) if columns.find("STATUS").is_some() => Some(Table::Stats(columns.names)),
                    _ => None,
                };
                match table {
                    Some(_) => tables += 1,
                    None => warnings.push(unknown(line.n, line.text)),
                }
            }
            Item::Row { line, cells } => {
                if !line.ended && table.is_some() {
                    warnings.push(ParseWarning::at(line.n, cut_line_skipped(line.text)));
                    continue;
                }
                let mut warn = |m: String| warnings.push(ParseWarning::at(line.n, m));
                match &table {
                    Some(Table::Config(names)) => value.ports.push(port(&cells, names, &mut warn)),
                    Some(Table::Stats(names)) => match queue(&cells, names, &mut warn) {
                        Some(q) => value.queues.push(q),
                        None => warn(unrecognised_clipped(line.text)),
                    },
                    None => warn(unrecognised_clipped(line.text)),
                }
            }
            Item::Other(line) => other(line.text, line.n, &mut value, &mut warnings),
        }
    }
    if tables == 0 {
        return Err(no_facts(
            text,
            "empty pfcwd show output",
            "no `PORT ACTION` or `QUEUE STATUS` table: not pfcwd show config or stats output",
        ));
    }
    Ok(Parsed { value, warnings })
}

/// The lines around the tables: polling interval, big red switch, prompts.
fn other(text: &str, n: usize, value: &mut Pfcwd, warnings: &mut Vec<ParseWarning>) {
    if let Some(rest) = text.strip_prefix("Changed polling interval to ") {
        let ms = rest.split_whitespace().next().unwrap_or_default();
        value.poll_interval_ms = ms.strip_suffix("ms").and_then(|v| v.parse().ok());
        if value.poll_interval_ms.is_none() {
            warnings.push(ParseWarning::at(n, format!("unreadable polling interval `{ms}`")));
        }
    } else if let Some(rest) = text.strip_prefix("BIG_RED_SWITCH status is ") {
        value.big_red_switch = rest.split_whitespace().next().map(String::from);
    } else if !is_sonic_prompt(text) {
        warnings.push(unknown(n, text));
    }
}

fn port(cells: &[String], names: &[String], warn: &mut impl FnMut(String)) -> PfcwdPort {
    let mut p = PfcwdPort { port: cells[0].clone(), ..PfcwdPort::default() };
    for (cell, name) in cells.iter().zip(names).skip(1) {
        let v = cell.as_str();
        let ms = |w: &mut dyn FnMut(String)| match v {
            "N/A" | "infinite" | "" => None,
            _ => v.parse().map_err(|_| w(format!("unreadable `{name}` value `{v}`"))).ok(),
        };
        match name.to_ascii_uppercase().as_str() {
            "ACTION" => p.action = Some(v.to_string()).filter(|v| !v.is_empty()),
            "DETECTION TIME" => p.detection_ms = ms(warn),
            "RESTORATION TIME" => p.restoration_ms = ms(warn),
            "HISTORY" => p.history = Some(v.to_string()).filter(|v| !v.is_empty()),
            _ => {}
        }
    }
    p
}

/// A stats row, or `None` when its first cell is not `port:queue`.
fn queue(cells: &[String], names: &[String], warn: &mut impl FnMut(String)) -> Option<PfcwdQueue> {
    let (port, index) = cells[0].rsplit_once(':')?;
    let mut q = PfcwdQueue { port: port.to_string(), queue: index.parse().ok()?, ..PfcwdQueue::default() };
    for (cell, name) in cells.iter().zip(names).skip(1) {
        if name.eq_ignore_ascii_case("STATUS") {
            q.status = Some(cell.clone()).filter(|s| !s.is_empty() && s != "N/A");
            continue;
        }
        let pair = cell.split_once('/').and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)));
        let Some((a, b)) = pair else {
            warn(format!("unreadable `{name}` value `{cell}`"));
            continue;
        };
        let (first, second) = match name.to_ascii_uppercase().as_str() {
            "STORM DETECTED/RESTORED" => (&mut q.storms_detected, &mut q.storms_restored),
            "TX OK/DROP" => (&mut q.tx_ok, &mut q.tx_drop),
            "RX OK/DROP" => (&mut q.rx_ok, &mut q.rx_drop),
            // The `LAST` pairs repeat the totals of the last storm only.
            _ => continue,
        };
        (*first, *second) = (Some(a), Some(b));
    }
    Some(q)
}

fn unknown(line: usize, text: &str) -> ParseWarning {
    ParseWarning::at(line, unrecognised_clipped(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONFIG: &str = include_str!(
        "../../tests/fixtures/sonic_pfcwd/pfcwd-show-config-forward-on-one-port-sonic-utilities-test-vectors.txt"
    );
    const STATS: &str =
        include_str!("../../tests/fixtures/sonic_pfcwd/pfcwd-show-stats-stormed-sonic-utilities-test-vectors.txt");

    #[test]
    fn old_layout_defaults_and_the_big_red_switch() {
        let text = "Changed polling interval to 200ms on asic0\nBIG_RED_SWITCH status is enable\n\
                    \x20    PORT    ACTION    DETECTION TIME    RESTORATION TIME\n\
                    ---------  --------  ----------------  ------------------\n\
                    Ethernet0      drop               N/A            infinite\n\
                    Ethernet4      drop               abc                 400\n";
        let parsed = parse(text).expect("parses");
        let v = &parsed.value;
        assert_eq!((v.poll_interval_ms, v.big_red_switch.as_deref()), (Some(200), Some("enable")));
        assert_eq!((v.ports[0].detection_ms, v.ports[0].restoration_ms), (None, None));
        assert_eq!((v.ports[1].detection_ms, v.ports[1].restoration_ms), (None, Some(400)));
        let lines: Vec<usize> = parsed.warnings.iter().map(|w| w.line).collect();
        assert_eq!(lines, [6]);
    }

    #[test]
    fn an_empty_config_table_says_no_port_has_a_watchdog() {
        let text = "  PORT    ACTION    DETECTION TIME    RESTORATION TIME    HISTORY\n\
                    ------  --------  ----------------  ------------------  ---------\n";
        let parsed = parse(text).expect("parses");
        assert!(parsed.value.config_shown && parsed.value.ports.is_empty());
        assert!(parsed.warnings.is_empty());
    }

    #[test]
    fn empty_and_foreign_text_are_errors() {
        assert!(parse("").is_err());
        assert!(parse("SKIPPED: PFC is not enabled on port: Ethernet8\n").is_err());
    }

    crate::lines::parser_never_panics!(parse, [CONFIG, STATS]);
}
