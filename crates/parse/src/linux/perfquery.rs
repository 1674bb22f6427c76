//! `perfquery -x [LID PORT]` and `perfquery -e -x` (infiniband-diags): a port's PMA counters.
//!
//! ```text
//! # Port extended counters: Lid 10 port 1 (CapMask: 0x5300 CapMask2: 0x0000002)
//! PortSelect:......................1
//! CounterSelect:...................0x0000
//! PortXmitData:....................0
//! SymbolErrorCounter:..............0
//! ```
//!
//! `counters` holds every decimal `Name:....value` line (the values are counts, in the units
//! perfquery prints: PortXmitData/PortRcvData are in 4-byte words). `PortSelect` is the port, not
//! a counter (it fills `port` when the header is missing); `CounterSelect` and `CounterSelect2`
//! are hex selection masks, not counters, and are recognised but left out. Any other hex value
//! is read as a number. Variants seen: plain `# Port counters:`, a header wrapped by an e-mail
//! client (`CapMask2:` / `0x0000000)` on the next line), a leading `# perfquery -x 10 1` command
//! line, and output cut mid-name. One output is one port's counters (fabcheck asks for one
//! port, `perfquery -x -C HCA -P N`): a further `# Port ... counters` block (a loop over ports
//! saved to one file) is not mixed into the first; each is warned about, naming its port.
use crate::lines::{
    NamedValues, cut_off, diag_no_facts, numbered, skip_ascii_space, split_at_str, split_run, trim,
    unrecognised_clipped,
};
use crate::{ParseError, ParseResult, ParseWarning, Parsed};
pub use fabcheck_model::host::perfquery::Perfquery;
use regex::Regex;
use std::collections::BTreeMap;
use std::sync::LazyLock;

/// The header, for a line that is not ASCII (a Unicode digit is a `\d` to it, a Unicode space
/// a `\s`): an ASCII line is read by [`ascii_header`], which spares compiling it.
static HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^#\s*Port (?:extended )?counters:\s*Lid (\d+) (?:port (\d+)|all ports)\s*(.*)$").expect("valid regex")
});

/// Parses `perfquery` output.
///
/// # Errors
/// Empty input, an infiniband-diags failure without any counter, or no header and no counter.
pub fn parse(text: &str) -> ParseResult<Perfquery> {
    let mut value = Perfquery { lid: None, port: None, cap_mask: None, cap_mask2: None, counters: BTreeMap::new() };
    let mut warnings = Vec::new();
    let (mut header, mut open_paren, mut further_block) = (false, false, false);
    let mut counters = NamedValues::new();
    for l in numbered(text) {
        let line = l.text;
        // The rest of a header line that an e-mail client wrapped: `0x0000000)`.
        if std::mem::take(&mut open_paren) && line.ends_with(')') && !line.contains(':') {
            continue;
        }
        if let Some(kind) = other_counters(line) {
            return Err(ParseError::at(
                l.n,
                format!(
                    "`# {kind} counters` is another perfquery table (-E, -D, -c or the like), not the port counters of `perfquery -x`: its counters would be misread as those"
                ),
            ));
        }
        // A header begins with `#`: the counter lines, nearly all of them, are not read as one.
        if let Some(h) = line.starts_with('#').then(|| read_header(line)).flatten() {
            if header {
                further_block = true;
                let port = h.port.map_or("all ports".to_string(), |p| format!("port {p}"));
                let lid = h.lid;
                let read = value.port.map_or("the first block".to_string(), |p| format!("port {p}"));
                warnings.push(ParseWarning::at(
                    l.n,
                    format!(
                        "another port's counters (Lid {lid} {port}) not read: one output is one port's, {read}'s here"
                    ),
                ));
                continue;
            }
            header = true;
            value.lid = h.lid.parse().ok();
            value.port = h.port.unwrap_or("").parse().ok();
            let rest = h.rest;
            let mask = |name: &str| {
                split_at_str(rest, name)
                    .and_then(|(_, m)| m.split_whitespace().next())
                    .map(|m| m.trim_end_matches(')').to_string())
            };
            (value.cap_mask, value.cap_mask2) = (mask("CapMask:"), mask("CapMask2:"));
            open_paren = rest.contains('(') && !rest.contains(')');
            continue;
        }
        if further_block {
            continue;
        }
        if !counter_line(line, &mut value, &mut counters) {
            warnings.push(ParseWarning::at(l.n, unrecognised_clipped(line)));
        }
    }
    value.counters = counters.into_map();
    if !header && value.counters.is_empty() {
        return Err(diag_no_facts(
            text,
            |diag| format!("perfquery read no counters; infiniband-diags reported `{diag}`"),
            "empty perfquery output",
            "no `# Port counters` header and no counter: not perfquery output",
        ));
    }
    warnings.extend(cut_off(text));
    Ok(Parsed { value, warnings })
}

/// A header's captures: `Lid (\d+)`, `port (\d+)` (none for `all ports`) and what follows.
struct Header<'a> {
    lid: &'a str,
    port: Option<&'a str>,
    rest: &'a str,
}

/// The header regex's captures of `line`.
fn read_header(line: &str) -> Option<Header<'_>> {
    if line.is_ascii() {
        return ascii_header(line);
    }
    let c = HEADER.captures(line)?;
    let group = |i: usize| c.get(i).map(|m| m.as_str());
    Some(Header { lid: group(1).unwrap_or(""), port: group(2), rest: group(3).unwrap_or("") })
}

/// [`HEADER`] on an ASCII line, read as the regex reads it: `\s*` is a run of ASCII white space,
/// `\d+` a run of ASCII digits (greedy; nothing after them makes the regex take fewer), `port N`
/// tried before `all ports`, and `(.*)` the rest of the line (which has no line end).
fn ascii_header(line: &str) -> Option<Header<'_>> {
    let digits = |text| split_run(text, |b| b.is_ascii_digit());
    let rest = skip_ascii_space(line.strip_prefix('#')?).strip_prefix("Port ")?;
    let rest = rest.strip_prefix("extended ").unwrap_or(rest).strip_prefix("counters:")?;
    let (lid, rest) = digits(skip_ascii_space(rest).strip_prefix("Lid ")?)?;
    let rest = rest.strip_prefix(' ')?;
    let (port, rest) = match rest.strip_prefix("port ").and_then(digits) {
        Some((port, rest)) => (Some(port), rest),
        None => (None, rest.strip_prefix("all ports")?),
    };
    Some(Header { lid, port, rest: skip_ascii_space(rest) })
}

/// The kind of a perfquery table other than the port counters (`# PortRcvErrorDetails counters:
/// Lid 1719 port 2` of `perfquery -E`).
fn other_counters(line: &str) -> Option<&str> {
    let rest = line.strip_prefix('#')?.trim_start();
    let (kind, _) = split_at_str(rest, " counters:")?;
    (kind.starts_with("Port") && kind != "Port" && !kind.contains(' ')).then_some(kind)
}

/// `Name:.....value`; false when the line is not one.
fn counter_line<'a>(line: &'a str, value: &mut Perfquery, counters: &mut NamedValues<'a, u64>) -> bool {
    // The name is the run of word bytes, which must end at the line's first `:`.
    let Some((name, rest)) = split_run(line, |b| b.is_ascii_alphanumeric() || b == b'_') else {
        return false;
    };
    let Some(rest) = rest.strip_prefix(':') else {
        return false;
    };
    let raw = trim(split_run(rest, |b| b == b'.').map_or(rest, |(_, after)| after));
    let number = match raw.strip_prefix("0x").or_else(|| raw.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => raw.parse().ok(),
    };
    match (name, number) {
        (_, None) => false,
        ("PortSelect", Some(port)) => {
            if value.port.is_none() {
                value.port = u32::try_from(port).ok();
            }
            true
        }
        ("CounterSelect" | "CounterSelect2", Some(_)) => true,
        (_, Some(n)) => {
            counters.insert(name, n);
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str =
        include_str!("../../tests/fixtures/perfquery/perfquery-x-rhel75-zero-counters-infiniband-diags-16.txt");

    #[test]
    fn plain_counters_all_ports_and_port_select() {
        let text = "# Port counters: Lid 3 all ports (CapMask: 0x1400)\nPortSelect:......................255\nSymbolErrorCounter:..............12\nPortXmitWait:....................0x10\n";
        let parsed = parse(text).expect("parses");
        let v = &parsed.value;
        assert_eq!((v.lid, v.port, v.cap_mask.as_deref()), (Some(3), Some(255), Some("0x1400")));
        assert_eq!(v.counters.get("SymbolErrorCounter"), Some(&12));
        assert_eq!(v.counters.get("PortXmitWait"), Some(&16));
        assert!(!v.counters.contains_key("PortSelect"));
        assert!(parsed.warnings.is_empty());
    }

    /// The header is read as its regex reads it, by hand on ASCII lines and by the regex on the
    /// others: white space of any kind after `#`, the port's digits up to the first other
    /// character, `all ports` only where `port N` is not.
    #[test]
    fn a_header_is_read_as_its_regex_reads_it() {
        let header = |line: &str| {
            let v = parse(&format!("{line}\nPortXmitWait:....................1\n")).expect("parses").value;
            (v.lid, v.port, v.cap_mask)
        };
        let mask = Some("0x5A00".to_string());
        assert_eq!(header("#\tPort counters:Lid 7 port 12x (CapMask: 0x5A00)"), (Some(7), Some(12), mask.clone()));
        assert_eq!(
            header("#\u{a0}Port extended counters: \u{2003}Lid 7 all ports (CapMask: 0x5A00)"),
            (Some(7), None, mask)
        );
        assert_eq!(header("# Port counters: Lid 7 port x"), (None, None, None), "not a header: an unrecognised line");
    }

    #[test]
    fn bad_values_warn() {
        let parsed = parse("PortRcvErrors:...........N/A\nLinkDownedCounter:.......3\n").expect("parses");
        assert_eq!(parsed.warnings.len(), 1);
        assert_eq!(parsed.warnings[0].line, 1);
    }

    #[test]
    fn errors() {
        assert!(parse("").is_err());
        assert!(parse("hello\n").is_err());
        let err = parse("ibwarn: [3] mad_rpc_open_port: can't open UMAD port ((null):0)\nperfquery: iberror: failed: Failed to open '(null)' port '0'\n").unwrap_err();
        assert!(err.message.contains("mad_rpc_open_port"), "{err}");
    }

    crate::lines::parser_never_panics!(parse, SAMPLE);
}
