//! `ethtool -S IF`: the driver's counters (for mlx5 the PFC, pause, discard and buffer counters
//! the counter checks judge, e.g. `rx_out_of_buffer`, `rx_discards_phy`, `rx_prio3_pause`).
//!
//! Format: an optional `NIC statistics:` header, then one `name: value` line per counter,
//! usually indented by five spaces. Variants seen: no header and no indentation (the ethq test
//! fixtures), a `| grep prio` excerpt, tabs. Names are taken up to the last `:` so that drivers
//! which print `[0]: rx_packets: 5` keep a unique name. Values that are not unsigned integers,
//! repeated names and a last line without a line end (a cut capture) are reported as warnings.

use crate::lines::{cut_line_skipped, numbered, unrecognised};
use crate::{ParseError, ParseResult, ParseWarning, Parsed};
pub use fabcheck_model::host::ethtool_stats::EthtoolStats;

/// Parses the output of `ethtool -S IF`.
pub fn parse(text: &str) -> ParseResult<EthtoolStats> {
    // The counters as read, with their lines, sorted by name once at the end: a driver prints
    // a thousand and more (per queue), and inserting them one by one into the map was most of
    // the cost of reading them.
    let mut read: Vec<(&str, u64, usize)> = Vec::new();
    let mut warnings = Vec::new();
    let mut header = false;
    for l in numbered(text) {
        let (n, t) = (l.n, l.text);
        let mut warn = |message: String| warnings.push(ParseWarning::at(n, message));
        if t == "NIC statistics:" {
            header = true;
            continue;
        }
        if !l.ended {
            warn(cut_line_skipped(t));
            continue;
        }
        let Some((name, value)) = t.rsplit_once(':') else {
            warn(unrecognised(t));
            continue;
        };
        let name = name.trim();
        match value.trim().parse::<u64>() {
            Ok(v) if !name.is_empty() => read.push((name, v, n)),
            _ => warn(unrecognised(t)),
        }
    }
    if read.is_empty() && !header {
        return Err(ParseError::at(0, "not ethtool -S output: no `name: value` counter lines"));
    }
    // Stable: a name read twice keeps its reads in line order; each but the last is dropped.
    read.sort_by(|a, b| a.0.cmp(b.0));
    let mut last_reads = Vec::with_capacity(read.len());
    for (i, (name, value, _)) in read.iter().enumerate() {
        match read.get(i + 1) {
            Some((next, _, n)) if next == name => {
                warnings.push(ParseWarning::at(*n, format!("counter `{name}` appears twice, the later value is kept")))
            }
            _ => last_reads.push((name.to_string(), *value)),
        }
    }
    // The warnings of repeated names join the others in line order, as they were met.
    warnings.sort_by_key(|w| w.line);
    Ok(Parsed { value: EthtoolStats { counters: last_reads.into_iter().collect() }, warnings })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = include_str!(
        "../../tests/fixtures/ethtool_stats/mlx5-enp178s0f0-grep-prio-all-traffic-on-prio0-byteps-179-2to1.txt"
    );

    #[test]
    fn header_tabs_odd_names_and_bad_values() {
        let text = "NIC statistics:\n\trx_prio3_pause: 17\n     [0]: rx_packets: 5\n     rx_bad: -1\n     rx_prio3_pause: 18\n";
        let p = parse(text).unwrap();
        assert_eq!(p.value.counters["rx_prio3_pause"], 18);
        assert_eq!(p.value.counters["[0]: rx_packets"], 5);
        let lines: Vec<_> = p.warnings.iter().map(|w| w.line).collect();
        assert_eq!(lines, vec![4, 5]);
    }

    #[test]
    fn header_only_is_an_empty_dump_and_cut_line_is_skipped() {
        assert!(parse("NIC statistics:\n").unwrap().value.counters.is_empty());
        let p = parse("     rx_out_of_buffer: 7\n     rx_discards_phy: 12").unwrap();
        assert_eq!(p.value.counters.len(), 1);
        assert_eq!(p.warnings[0].line, 2);
    }

    #[test]
    fn rejects_empty_and_foreign_input() {
        assert!(parse("").is_err());
        assert!(parse(" \n \n").is_err());
        assert!(parse("Settings for eth0:\n\tSpeed: 100000Mb/s\n").is_err());
    }

    crate::lines::parser_never_panics!(parse, SAMPLE);
}
