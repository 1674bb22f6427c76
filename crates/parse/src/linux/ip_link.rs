//! `ip -j link show` (iproute2 JSON): interfaces with index, name, MTU, state and flags.
//!
//! Format: one JSON array of objects (one line, or several with `-p`). Keys fabcheck does not
//! use (`qdisc`, `txqlen`, `linkinfo`, `vfinfo_list` ...) are ignored. An element that lacks one
//! of `ifindex`, `ifname`, `mtu`, `operstate`, `flags` is skipped with a warning on the line it
//! starts on. Lines before the array (an echoed prompt) and text after it are warnings; input
//! without a JSON array is an error. Variants seen: compact one-line output of IPoIB ports with
//! 20-byte addresses.

use crate::lines::{numbered, unrecognised};
use crate::{ParseError, ParseResult, ParseWarning, Parsed};
pub use fabcheck_model::host::ip_link::{IpLink, IpLinks};
use serde_json::Value;

/// Parses the output of `ip -j link show`.
pub fn parse(text: &str) -> ParseResult<IpLinks> {
    let mut warnings = Vec::new();
    // The array starts on the first line that starts with `[`; lines before it are warned about.
    let mut start = None;
    for l in numbered(text) {
        if l.text.starts_with('[') {
            start = Some((l.n, l.start));
            break;
        }
        let message = format!("{} before the JSON array", unrecognised(l.text));
        warnings.push(ParseWarning::at(l.n, message));
    }
    let Some((first_line, offset)) = start else {
        return Err(ParseError::at(0, "not ip -j link output: no JSON array"));
    };
    let body = text.get(offset..).unwrap_or("");
    let mut stream = serde_json::Deserializer::from_str(body).into_iter::<Vec<Value>>();
    let elements = match stream.next() {
        Some(Ok(elements)) => elements,
        Some(Err(e)) => {
            return Err(ParseError::at(first_line + e.line().saturating_sub(1), format!("not ip -j link JSON: {e}")));
        }
        None => return Err(ParseError::at(0, "not ip -j link output: no JSON array")),
    };
    let rest = body.get(stream.byte_offset()..).unwrap_or("");
    if !rest.trim().is_empty() {
        let line = first_line + body.get(..stream.byte_offset()).unwrap_or("").matches('\n').count();
        warnings.push(ParseWarning::at(line, "text after the JSON array ignored"));
    }
    let starts = element_lines(body);
    let mut links = Vec::new();
    for (i, v) in elements.iter().enumerate() {
        let line = first_line + starts.get(i).copied().unwrap_or(0);
        match link(v) {
            Ok(l) => links.push(l),
            Err(key) => warnings.push(ParseWarning::at(line, format!("link element {} lacks `{key}`, skipped", i + 1))),
        }
    }
    Ok(Parsed { value: IpLinks { links }, warnings })
}

/// One element, or the name of the first required key it lacks.
fn link(v: &Value) -> Result<IpLink, &'static str> {
    let str_of = |k: &'static str| v.get(k).and_then(Value::as_str).map(String::from).ok_or(k);
    let u32_of = |k: &'static str| v.get(k).and_then(Value::as_u64).and_then(|n| u32::try_from(n).ok()).ok_or(k);
    let (ifindex, ifname, mtu, operstate) =
        (u32_of("ifindex")?, str_of("ifname")?, u32_of("mtu")?, str_of("operstate")?);
    let flags = v.get("flags").and_then(Value::as_array).ok_or("flags")?;
    Ok(IpLink {
        ifindex,
        ifname,
        mtu,
        operstate,
        flags: flags.iter().filter_map(Value::as_str).map(String::from).collect(),
        link_type: str_of("link_type").ok(),
        address: str_of("address").ok(),
    })
}

/// For each top-level array element, the number of line breaks before it (0-based line).
fn element_lines(json: &str) -> Vec<usize> {
    let (mut depth, mut line, mut in_str, mut escaped) = (0usize, 0usize, false, false);
    let mut expect = false; // Inside the top array, before an element.
    let mut starts = Vec::new();
    for c in json.chars() {
        if in_str {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_str = false,
                _ => {}
            }
            continue;
        }
        if c == '\n' {
            line += 1;
            continue;
        }
        if depth == 1 && expect && !c.is_whitespace() && c != ']' {
            starts.push(line);
            expect = false;
        }
        match c {
            '"' => in_str = true,
            '[' | '{' => {
                depth = depth.saturating_add(1);
                expect |= depth == 1;
            }
            ']' | '}' => depth = depth.saturating_sub(1),
            ',' if depth == 1 => expect = true,
            _ => {}
        }
    }
    starts
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const SAMPLE: &str =
        include_str!("../../tests/fixtures/ip_link/8x-ipoib-ndr-mlx5-gcm-test_check_ibstat-pass_ib_interfaces.json");

    const PRETTY: &str = r#"$ ip -j -p link show
[ {
        "ifindex": 1,
        "ifname": "lo",
        "flags": [ "LOOPBACK","UP","LOWER_UP" ],
        "mtu": 65536,
        "operstate": "UNKNOWN",
        "link_type": "loopback",
        "address": "00:00:00:00:00:00"
    },{
        "ifindex": 4,
        "ifname": "ens4np0",
        "flags": [ "BROADCAST","MULTICAST","UP","LOWER_UP" ],
        "mtu": 4200,
        "operstate": "UP",
        "link_type": "ether",
        "address": "b8:3f:d2:00:00:01",
        "altnames": [ "enp4s0np0" ]
    },{},
    7,{
        "ifindex": 5,
        "ifname": "ens5np0",
        "mtu": 1500,
        "operstate": "DOWN"
    } ]
"#;

    #[test]
    fn pretty_output_with_prompt_empty_and_incomplete_elements() {
        let p = parse(PRETTY).unwrap();
        assert_eq!(p.value.links.len(), 2);
        let l = &p.value.links[1];
        assert_eq!((l.ifindex, l.ifname.as_str(), l.mtu, l.operstate.as_str()), (4, "ens4np0", 4200, "UP"));
        assert_eq!(l.flags, ["BROADCAST", "MULTICAST", "UP", "LOWER_UP"]);
        assert_eq!(l.link_type.as_deref(), Some("ether"));
        let w: Vec<_> = p.warnings.iter().map(|w| (w.line, w.message.as_str())).collect();
        assert_eq!(
            w,
            vec![
                (1, "unrecognised line `$ ip -j -p link show` before the JSON array"),
                (19, "link element 3 lacks `ifindex`, skipped"),
                (20, "link element 4 lacks `ifindex`, skipped"),
                (20, "link element 5 lacks `flags`, skipped"),
            ]
        );
    }

    #[test]
    fn rejects_empty_and_foreign_input() {
        assert!(parse("").is_err());
        assert!(parse("  \n").is_err());
        assert!(parse("1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN\n").is_err());
        assert!(parse("[{\"ifindex\": 1,").is_err());
        assert!(parse("{\"ifindex\": 1}").is_err());
    }

    crate::lines::parser_never_panics!(parse);

    proptest! {
        #[test]
        fn mutated_sample_never_panics(at in any::<prop::sample::Index>(), op in 0u8..3, junk in "\\PC{0,40}") {
            // The sample is one line: mutate it at a character position instead.
            let chars: Vec<char> = SAMPLE.chars().collect();
            let i = at.index(chars.len());
            let text: String = match op {
                0 => chars[..i].iter().collect(),
                1 => chars[..i].iter().chain(chars[..i].iter()).chain(chars[i..].iter()).collect(),
                _ => chars[..i].iter().copied().chain(junk.chars()).chain(chars[i..].iter().copied()).collect(),
            };
            let _ = parse(&text);
        }
    }
}
