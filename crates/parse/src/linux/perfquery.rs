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
use crate::lines::{cut_off, diag_no_facts, numbered, unrecognised_clipped};
use crate::{ParseError, ParseResult, ParseWarning, Parsed};
pub use fabcheck_model::host::perfquery::Perfquery;
use regex::Regex;
use std::collections::BTreeMap;
use std::sync::LazyLock;

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
        // The regex is anchored on `#`: the counter lines, nearly all of them, are not run through it.
        if let Some(c) = line.starts_with('#').then(|| HEADER.captures(line)).flatten() {
            if header {
                further_block = true;
                let port = c.get(2).map_or("all ports".to_string(), |p| format!("port {}", p.as_str()));
                let lid = c.get(1).map_or("", |m| m.as_str());
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
            let group = |i: usize| c.get(i).map_or("", |m| m.as_str());
            value.lid = group(1).parse().ok();
            value.port = group(2).parse().ok();
            let rest = group(3);
            let mask = |name: &str| {
                rest.split_once(name)
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
        if !counter_line(line, &mut value) {
            warnings.push(ParseWarning::at(l.n, unrecognised_clipped(line)));
        }
    }
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

/// The kind of a perfquery table other than the port counters (`# PortRcvErrorDetails counters:
/// Lid 1719 port 2` of `perfquery -E`).
fn other_counters(line: &str) -> Option<&str> {
    let rest = line.strip_prefix('#')?.trim_start();
    let (kind, _) = rest.split_once(" counters:")?;
    (kind.starts_with("Port") && kind != "Port" && !kind.contains(' ')).then_some(kind)
}

/// `Name:.....value`; false when the line is not one.
fn counter_line(line: &str, value: &mut Perfquery) -> bool {
    let Some((name, rest)) = line.split_once(':') else {
        return false;
    };
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return false;
    }
    let raw = rest.trim_start_matches('.').trim();
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
            value.counters.insert(name.to_string(), n);
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
