//! `sminfo` (infiniband-diags): the subnet manager that answers on this port's subnet, one line.
//!
//! ```text
//! sminfo: sm lid 4 sm guid 0x8c0eb0300f6fc26, activity count 5568705 priority 15 state 3 SMINFO_MASTER
//! ```
//!
//! When no SM or no usable IB port can be reached, infiniband-diags print `ibwarn:`, `iberror:`
//! or `ibpanic:` lines instead (`mad_rpc_open_port: client_register for mgmt 1 failed`,
//! `can't open MAD port`). Those are an error, not an empty fact, as for the other
//! infiniband-diags parsers (`perfquery`, `iblinkinfo`, `ibstat`): all find them with the
//! crate's shared `diag_failure`.
use crate::lines::{cut_off, diag_no_facts, is_ascii_non_space, numbered, quote, split_run};
use crate::{ParseResult, ParseWarning, Parsed};
pub use fabcheck_model::host::sminfo::Sminfo;
use regex::Regex;
use std::sync::LazyLock;

static LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^sminfo: sm lid (\d+) sm guid (0x[0-9a-fA-F]+), activity count (\d+) priority (\d+) state (\d+) (\S+)")
        .expect("valid regex")
});

/// The six groups of [`LINE`] in `line`: on ASCII, the line read as the regex reads it, without
/// the regex, whose Unicode classes cost more to compile (once per process) than every line of
/// a host; the regex reads the rest (a Unicode digit is a `\d` to it).
fn fields(line: &str) -> Option<[&str; 6]> {
    if !line.is_ascii() {
        let c = LINE.captures(line)?;
        return Some(std::array::from_fn(|i| c.get(i + 1).map_or("", |m| m.as_str())));
    }
    let digits = |text| split_run(text, |b| b.is_ascii_digit());
    let (lid, rest) = digits(line.strip_prefix("sminfo: sm lid ")?)?;
    let rest = rest.strip_prefix(" sm guid ")?;
    let (hex, after) = split_run(rest.strip_prefix("0x")?, |b| b.is_ascii_hexdigit())?;
    let guid = &rest[..hex.len() + 2];
    let (activity, rest) = digits(after.strip_prefix(", activity count ")?)?;
    let (priority, rest) = digits(rest.strip_prefix(" priority ")?)?;
    let (state, rest) = digits(rest.strip_prefix(" state ")?)?;
    let (name, _) = split_run(rest.strip_prefix(' ')?, is_ascii_non_space)?;
    Some([lid, guid, activity, priority, state, name])
}

/// Parses `sminfo` output.
///
/// # Errors
/// Empty input, an infiniband-diags failure (no SM or MAD port reachable), or no `sminfo: sm lid`
/// line.
pub fn parse(text: &str) -> ParseResult<Sminfo> {
    let mut found: Option<Sminfo> = None;
    let mut warnings = Vec::new();
    for l in numbered(text) {
        let (n, line) = (l.n, l.text);
        match (fields(line), &found) {
            (Some(c), None) => {
                let num = |i: usize| c[i - 1];
                // The regex only admits digits; only overflow can fail here.
                let (Ok(sm_lid), Ok(activity_count), Ok(priority), Ok(state)) =
                    (num(1).parse(), num(3).parse(), num(4).parse(), num(5).parse())
                else {
                    warnings.push(warning(n, "number out of range in", line));
                    continue;
                };
                found = Some(Sminfo {
                    sm_lid,
                    sm_guid: num(2).to_string(),
                    activity_count,
                    priority,
                    state,
                    state_name: num(6).to_string(),
                });
            }
            (Some(_), Some(_)) => warnings.push(warning(n, "second SM line ignored:", line)),
            (None, _) => warnings.push(warning(n, "unrecognised line", line)),
        }
    }
    let Some(value) = found else {
        return Err(diag_no_facts(
            text,
            |diag| {
                format!(
                    "no subnet manager information: infiniband-diags could not query the fabric \
                     (no active IB port, no SM, or no access to /dev/infiniband/umad*): `{diag}`"
                )
            },
            "empty sminfo output",
            "no `sminfo: sm lid ...` line: not sminfo output",
        ));
    };
    warnings.extend(cut_off(text));
    Ok(Parsed { value, warnings })
}

fn warning(line: usize, what: &str, text: &str) -> ParseWarning {
    ParseWarning::at(line, quote(what, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = include_str!("../../tests/fixtures/sminfo/sminfo-master-lid4-magnate3.txt");

    #[test]
    fn standby_sm_and_extra_lines() {
        let text =
            "sminfo: sm lid 1 sm guid 0x2c90300a1b2c3, activity count 7 priority 14 state 2 SMINFO_STANDBY\nfoo\n";
        let parsed = parse(text).expect("parses");
        assert_eq!(parsed.value.state_name, "SMINFO_STANDBY");
        assert_eq!((parsed.value.priority, parsed.value.state), (14, 2));
        assert_eq!(parsed.warnings.len(), 1);
        assert_eq!(parsed.warnings[0].line, 2);
    }

    #[test]
    fn overflowing_numbers_warn_and_fail() {
        let text = "sminfo: sm lid 99999999999 sm guid 0x1, activity count 1 priority 1 state 3 SMINFO_MASTER\n";
        assert!(parse(text).is_err());
    }

    #[test]
    fn diag_errors() {
        let err = parse("ibwarn: [7] mad_rpc_open_port: can't open UMAD port ((null):0)\nsminfo: iberror: failed: Failed to open '(null)' port '0'\n").unwrap_err();
        assert!(err.message.contains("mad_rpc_open_port"), "{err}");
        assert!(parse("").unwrap_err().message.contains("empty"));
        assert!(parse("x\n").unwrap_err().message.contains("not sminfo"));
    }

    crate::lines::parser_never_panics!(parse, SAMPLE);
}
