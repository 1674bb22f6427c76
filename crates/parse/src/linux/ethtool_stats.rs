//! `ethtool -S IF`: the driver's counters (for mlx5 the PFC, pause, discard and buffer counters
//! the counter checks judge, e.g. `rx_out_of_buffer`, `rx_discards_phy`, `rx_prio3_pause`).
//!
//! Format: an optional `NIC statistics:` header, then one `name: value` line per counter,
//! usually indented by five spaces. Variants seen: no header and no indentation (the ethq test
//! fixtures), a `| grep prio` excerpt, tabs. Names are taken up to the last `:` so that drivers
//! which print `[0]: rx_packets: 5` keep a unique name. Values that are not unsigned integers,
//! repeated names and a last line without a line end (a cut capture) are reported as warnings.

use crate::lines::{cut_line_skipped, numbered, prefix_key, split_at_last_byte, trim, unrecognised};
use crate::{ParseError, ParseResult, ParseWarning, Parsed};
pub use fabcheck_model::host::ethtool_stats::EthtoolStats;

/// Parses the output of `ethtool -S IF`.
pub fn parse(text: &str) -> ParseResult<EthtoolStats> {
    // The counters as read, with their lines, sorted by name once at the end: a driver prints
    // a thousand and more (per queue), and inserting them one by one into the map was most of
    // the cost of reading them.
    let mut read: Vec<(u64, &str, u64, usize)> = Vec::new();
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
        let Some((name, value)) = split_at_last_byte(t, b':') else {
            warn(unrecognised(t));
            continue;
        };
        let name = trim(name);
        match trim(value).parse::<u64>() {
            Ok(v) if !name.is_empty() => read.push((prefix_key(name), name, v, n)),
            _ => warn(unrecognised(t)),
        }
    }
    if read.is_empty() && !header {
        return Err(ParseError::at(0, "not ethtool -S output: no `name: value` counter lines"));
    }
    // Stable: a name read twice keeps its reads in line order; each but the last is dropped.
    // Compared by their first eight bytes as one number first (computed once per name): most
    // comparisons then end without a call to memcmp, which was most of the sorting's cost.
    read.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1)));
    let mut last_reads = Vec::with_capacity(read.len());
    for (i, (_, name, value, _)) in read.iter().enumerate() {
        match read.get(i + 1) {
            Some((_, next, _, n)) if next == name => {
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

    #[test]
    fn ordering_by_the_eight_byte_key_then_the_name_is_byte_order() {
        let pieces = [
            "",
            "a",
            "\0",
            "é",
            "rx_prio3",
            "rx_prio3_",
            "rx_prio30",
            "rx12_",
            "zzzzzzzz",
            "rx_vport_unicast",
            "\u{7f}\u{80}",
        ];
        let mut names: Vec<String> = Vec::new();
        for a in pieces {
            for b in pieces {
                for c in ["", "\0", "x", "_pause"] {
                    names.push(format!("{a}{b}{c}"));
                }
            }
        }
        let mut by_key = names.clone();
        by_key.sort_by(|a, b| prefix_key(a).cmp(&prefix_key(b)).then_with(|| a.cmp(b)));
        names.sort();
        assert_eq!(by_key, names);
    }

    #[test]
    fn any_white_space_around_names_and_values_is_trimmed() {
        let text = "\u{b}\t rx_a\u{a0}\u{b}: \u{3000}5\u{b}\r\n\u{85}rx_b :\u{c}6 \n";
        let p = parse(text).unwrap();
        let counters: Vec<(&str, u64)> = p.value.counters.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert_eq!(counters, [("rx_a", 5), ("rx_b", 6)]);
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    }

    #[test]
    fn a_name_read_twice_far_apart_keeps_its_last_value_and_warns() {
        let text = "rx_prio3_pause: 1\nrx_prio3_pause_duration: 2\nrx_prio30: 3\nrx_prio3_pause: 4\nrx: 5\n";
        let p = parse(text).unwrap();
        let counters: Vec<(&str, u64)> = p.value.counters.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert_eq!(counters, [("rx", 5), ("rx_prio30", 3), ("rx_prio3_pause", 4), ("rx_prio3_pause_duration", 2)]);
        assert_eq!(p.warnings.len(), 1);
        assert_eq!(p.warnings[0].line, 4);
    }

    crate::lines::parser_never_panics!(parse, SAMPLE);
}
