//! `mlnx_qos -i IF` (MLNX_OFED / mlnx-tools): the NIC side of a lossless RoCE setup.
//!
//! The tool prints `DCBX mode:`, `Priority trust state:`, a `dscp2prio mapping:` block of
//! `prio:N dscp:a,b,..,` rows (only when trust is dscp; a priority with more than eight DSCPs
//! takes several rows, and custom maps print unsorted), `default priority:` followed by an
//! optional `prio:N` row, `Receive buffer size (bytes): a,b,..,[max_buffer_size=|total_size=N]`,
//! `Cable len: N`, a `PFC configuration:` table (`priority`, `enabled` and, on newer OFED, a
//! `buffer` row) and one `tc: N ratelimit: R, tsa: T[, bw: B%]` line per traffic class followed
//! by one `priority: P` line per priority mapped to it.
//!
//! Variants seen in real output: OFED 4.x without the buffer rows, tab or space indentation,
//! CRLF line ends, a page-rendered copy with blank lines and collapsed padding, shell prompt
//! lines, an empty `default priority:`, rate limits printed as `25.0 Gbps`.
//! Lines the parser does not know (tool notices such as "Priority trust state is not supported
//! on your system") come back as warnings.

use crate::lines::{
    cut_line_skipped, is_ascii_non_space, is_prompt, non_empty, numbered, split_at_byte, split_at_str, split_bytes,
    split_run, trim, unrecognised, words,
};
use crate::{ParseError, ParseResult, ParseWarning, Parsed};
pub use fabcheck_model::host::mlnx_qos::{MlnxQos, Tc};

/// A map from small numbers (DSCPs, priorities) kept as an array while the lines are read, and
/// made a `BTreeMap` once at the end: the 64 DSCPs inserted one by one into the map, each from
/// its root, cost more than reading the whole output. A later value replaces an earlier one, as
/// `insert` does.
struct SmallMap<const N: usize>([Option<u8>; N]);

impl<const N: usize> SmallMap<N> {
    fn new() -> Self {
        SmallMap([None; N])
    }

    /// Sets `key`, which the caller has checked is below `N`.
    fn insert(&mut self, key: u8, value: u8) {
        if let Some(slot) = self.0.get_mut(usize::from(key)) {
            *slot = Some(value);
        }
    }

    /// The map, built in one pass from keys in order (collected first into a list of the right
    /// size, which the map's builder takes over, instead of one grown five times).
    fn into_map(self) -> std::collections::BTreeMap<u8, u8> {
        let mut entries = Vec::with_capacity(N);
        entries.extend((0u8..).zip(self.0).filter_map(|(key, value)| Some((key, value?))));
        entries.into_iter().collect()
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Section {
    Other,
    DefaultPriority,
    Pfc,
}

/// Parses the output of `mlnx_qos -i IF`.
pub fn parse(text: &str) -> ParseResult<MlnxQos> {
    let mut q = MlnxQos::default();
    let mut warnings = Vec::new();
    let mut section = Section::Other;
    let mut pfc_columns: Vec<u8> = (0..8).collect();
    let mut anchors = 0usize;
    let mut dscp_to_priority = SmallMap::<64>::new();
    for l in numbered(text) {
        let (n, t) = (l.n, l.text);
        let mut warn = |message: String| warnings.push(ParseWarning::at(n, message));
        if !l.ended {
            warn(cut_line_skipped(t));
            continue;
        }
        if is_prompt(t, "mlnx_qos") {
            continue;
        }
        if let Some(v) = t.strip_prefix("DCBX mode:") {
            q.dcbx_mode = non_empty(v);
            anchors += 1;
        } else if let Some(v) =
            t.strip_prefix("Priority trust state:").or_else(|| t.strip_prefix("Priority trust mode:"))
        {
            q.trust = non_empty(v);
            anchors += 1;
        } else if t == "dscp2prio mapping:" {
            section = Section::Other;
        } else if let Some(v) = t.strip_prefix("default priority:") {
            section = Section::DefaultPriority;
            if let Some(v) = non_empty(v) {
                q.default_priority = parse_prio(&v, &mut warn);
            }
        } else if let Some(v) = t.strip_prefix("prio:") {
            match split_at_str(v, "dscp:") {
                Some((prio, dscps)) => dscp_row(prio, dscps, &mut dscp_to_priority, &mut warn),
                None if section == Section::DefaultPriority => q.default_priority = parse_prio(v, &mut warn),
                None => warn(unrecognised(t)),
            }
        } else if let Some(v) = t.strip_prefix("Receive buffer size (bytes):") {
            let mut sizes = Vec::new();
            for item in list_items(v) {
                let total = item.strip_prefix("max_buffer_size=").or_else(|| item.strip_prefix("total_size="));
                match (item.parse::<u64>(), total.map(str::parse::<u64>)) {
                    (Ok(size), _) => sizes.push(size),
                    (_, Some(Ok(total))) => q.receive_buffer_max = Some(total),
                    _ => warn(format!("bad receive buffer size `{item}`")),
                }
            }
            q.receive_buffer = Some(sizes);
        } else if let Some(v) = t.strip_prefix("Cable len:") {
            q.cable_len = trim(v).parse().map_err(|_| warn(format!("bad cable length `{t}`"))).ok();
        } else if t == "PFC configuration:" {
            section = Section::Pfc;
            anchors += 1;
        } else if let Some(v) = t.strip_prefix("tc:") {
            section = Section::Other;
            match tc_line(v) {
                Some(tc) => q.tcs.push(tc),
                None => warn(format!("bad traffic class line `{t}`")),
            }
            anchors += 1;
        } else if let Some(v) = t.strip_prefix("priority:") {
            let Some(tc) = q.tcs.last_mut() else {
                warn(format!("priority line `{t}` before any tc line"));
                continue;
            };
            for p in words(v) {
                match p.parse::<u8>() {
                    Ok(p) if p < 8 => tc.priorities.push(p),
                    _ => warn(format!("bad priority `{p}`")),
                }
            }
        } else if let (Section::Pfc, Some(v)) = (section, t.strip_prefix("priority")) {
            pfc_columns = numbers(v).unwrap_or_else(|| {
                warn(format!("bad PFC header `{t}`"));
                (0..8).collect()
            });
        } else if let (Section::Pfc, Some(v)) = (section, t.strip_prefix("enabled")) {
            match numbers(v) {
                Some(vals) => {
                    q.pfc_enabled = pfc_columns.iter().zip(&vals).filter(|(_, e)| **e == 1).map(|(p, _)| *p).collect();
                    q.pfc_enabled.sort_unstable();
                }
                None => warn(format!("bad PFC enabled row `{t}`")),
            }
        } else if let (Section::Pfc, Some(v)) = (section, t.strip_prefix("buffer")) {
            q.pfc_buffer = numbers(v).or_else(|| {
                warn(format!("bad PFC buffer row `{t}`"));
                None
            });
        } else {
            warn(unrecognised(t));
        }
    }
    if anchors == 0 {
        return Err(ParseError::at(0, "not mlnx_qos output: no DCBX mode, trust state, PFC or tc lines"));
    }
    q.dscp_to_priority = dscp_to_priority.into_map();
    let mut priority_to_tc = SmallMap::<8>::new();
    for tc in &q.tcs {
        for p in &tc.priorities {
            priority_to_tc.insert(*p, tc.tc);
        }
    }
    q.priority_to_tc = priority_to_tc.into_map();
    Ok(Parsed { value: q, warnings })
}

fn parse_prio(v: &str, warn: &mut impl FnMut(String)) -> Option<u8> {
    let v = trim(v);
    match v.parse::<u8>() {
        Ok(p) if p < 8 => Some(p),
        _ => {
            warn(format!("bad priority `{v}`"));
            None
        }
    }
}

fn dscp_row(prio: &str, dscps: &str, map: &mut SmallMap<64>, warn: &mut impl FnMut(String)) {
    let Some(prio) = parse_prio(prio, warn) else {
        return;
    };
    for d in list_items(dscps) {
        match d.parse::<u8>() {
            Ok(d) if d < 64 => {
                map.insert(d, prio);
            }
            _ => warn(format!("bad DSCP value `{d}`")),
        }
    }
}

/// The non-blank items of a comma list (`07,06,05,`), trimmed.
fn list_items(list: &str) -> impl Iterator<Item = &str> {
    split_bytes(list, b',').map(trim).filter(|s| !s.is_empty())
}

/// Whitespace-separated small numbers (a PFC table row); `None` if any is not a number.
fn numbers(v: &str) -> Option<Vec<u8>> {
    words(v).map(|s| s.parse().ok()).collect()
}

/// `0 ratelimit: unlimited, tsa: ets, bw: 9%` (the text after `tc:`).
fn tc_line(v: &str) -> Option<Tc> {
    let (num, rest) = first_word(trim(v));
    let mut tc = Tc { tc: num.parse().ok()?, ratelimit: None, tsa: None, bw_percent: None, priorities: Vec::new() };
    for part in split_bytes(rest, b',') {
        let Some((key, value)) = split_at_byte(part, b':') else {
            continue;
        };
        let value = trim(value);
        match trim(key) {
            "ratelimit" => tc.ratelimit = non_empty(value),
            "tsa" => tc.tsa = non_empty(value),
            "bw" => tc.bw_percent = value.trim_end_matches('%').trim().parse().ok(),
            _ => {}
        }
    }
    Some(tc)
}

/// `text` split at its first white space character, which is dropped, like
/// `split_once(char::is_whitespace)` (all of `text` and nothing when it has none): a word of
/// ASCII bytes followed by ASCII white space or nothing is cut by a byte scan, anything else is
/// left to the character search.
fn first_word(text: &str) -> (&str, &str) {
    let (word, rest) = split_run(text, is_ascii_non_space).unwrap_or(("", text));
    match rest.as_bytes().first() {
        None => (word, rest),
        Some(b) if b.is_ascii() => (word, &rest[1..]),
        Some(_) => text.split_once(char::is_whitespace).unwrap_or((text, "")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str =
        include_str!("../../tests/fixtures/mlnx_qos/cx7-fw28.39-ens4np0-trust-dscp-pfc5-custom-dscp2prio-3fs-doc.txt");

    #[test]
    fn parses_default_priority_and_wrapped_dscp_rows() {
        let text = "DCBX mode: Firmware controlled\nPriority trust state: dscp\ndscp2prio mapping:\n\tprio:3 dscp:31,30,29,28,27,26,25,24,\n\tprio:3 dscp:23,\ndefault priority:\n\tprio:2\nCable len: 7\n";
        let q = parse(text).unwrap();
        assert_eq!(q.warnings, vec![]);
        assert_eq!(q.value.dcbx_mode.as_deref(), Some("Firmware controlled"));
        assert_eq!(q.value.default_priority, Some(2));
        assert_eq!(q.value.dscp_to_priority.get(&23), Some(&3));
        assert_eq!(q.value.dscp_to_priority.len(), 9);
    }

    #[test]
    fn several_priorities_on_one_tc_and_notices() {
        let text = "Priority trust state is not supported on your system\nDCBX mode: OS controlled\nPFC configuration:\n\tpriority    0   1   2   3   4   5   6   7\n\tenabled     0   0   0   1   1   0   0   0\ntc: 0 ratelimit: unlimited, tsa: ets, bw: 50%\n\t priority:  0\n\t priority:  1\ntc: 1 ratelimit: unlimited, tsa: ets, bw: 50%\n\t priority:  3 4\n";
        let q = parse(text).unwrap();
        assert_eq!(q.warnings.len(), 1);
        assert_eq!(q.warnings[0].line, 1);
        assert_eq!(q.value.trust, None);
        assert_eq!(q.value.pfc_enabled, vec![3, 4]);
        assert_eq!(q.value.tcs[0].priorities, vec![0, 1]);
        assert_eq!(q.value.priority_to_tc.get(&4), Some(&1));
        assert_eq!(q.value.tcs[1].bw_percent, Some(50));
    }

    #[test]
    fn the_receive_buffers_total_in_either_spelling() {
        let read = |line: &str| parse(&format!("DCBX mode: OS controlled\n{line}\n")).unwrap();
        let q = read("Receive buffer size (bytes): 130944,130944,0,0,0,0,0,0,total_size=262016").value;
        assert_eq!(
            (q.receive_buffer, q.receive_buffer_max),
            (Some(vec![130944, 130944, 0, 0, 0, 0, 0, 0]), Some(262_016))
        );
        let odd = read("Receive buffer size (bytes): 1,2,max_buffer_size=big");
        assert_eq!(odd.value.receive_buffer_max, None);
        assert!(odd.warnings[0].message.contains("`max_buffer_size=big`"), "{:?}", odd.warnings);
    }

    /// A traffic class's number ends at the first white space, Unicode white space included
    /// (the byte scan of ASCII lines hands such a line to the character search).
    #[test]
    fn a_traffic_class_number_ends_at_any_white_space() {
        for space in [" ", "\t", "\u{2003}", "\u{a0}"] {
            let q = parse(&format!("tc: 3{space}ratelimit: unlimited, tsa: ets, bw: 50%\n")).unwrap().value;
            assert_eq!(
                (q.tcs[0].tc, q.tcs[0].tsa.as_deref(), q.tcs[0].bw_percent),
                (3, Some("ets"), Some(50)),
                "{space:?}"
            );
        }
        assert!(parse("tc: 3é ratelimit: unlimited\n").unwrap().warnings[0].message.contains("bad traffic class"));
    }

    #[test]
    fn cut_last_line_is_skipped_with_a_warning() {
        let q = parse("DCBX mode: OS controlled\ndscp2prio mapping:\n\tprio:5 dscp:47,46,4").unwrap();
        assert!(q.value.dscp_to_priority.is_empty());
        assert_eq!(q.warnings[0].line, 3);
    }

    #[test]
    fn rejects_empty_and_foreign_input() {
        assert!(parse("").is_err());
        assert!(parse("  \n\t\n").is_err());
        assert!(parse("CA 'mlx5_0'\n\tCA type: MT4129\n").is_err());
    }

    crate::lines::parser_never_panics!(parse, SAMPLE);
}
