//! `ip -j link show` (iproute2 JSON): interfaces with index, name, MTU, state and flags.
//!
//! Format: one JSON array of objects (one line, or several with `-p`). Keys fabcheck does not
//! use (`qdisc`, `txqlen`, `linkinfo`, `vfinfo_list` ...) are ignored. An element that lacks one
//! of `ifindex`, `ifname`, `mtu`, `operstate`, `flags` is skipped with a warning on the line it
//! starts on. Lines before the array (an echoed prompt) and text after it are warnings; input
//! without a JSON array is an error. Variants seen: compact one-line output of IPoIB ports with
//! 20-byte addresses.

use super::iproute_json::{self, Json};
use crate::{ParseResult, Parsed};
pub use fabcheck_model::host::ip_link::{IpLink, IpLinks};

/// Parses the output of `ip -j link show`.
pub fn parse(text: &str) -> ParseResult<IpLinks> {
    let (links, warnings) = iproute_json::facts(text, "link", link)?;
    Ok(Parsed { value: IpLinks { links }, warnings })
}

/// One element, or the name of the first required key it lacks.
fn link(v: &Json) -> Result<IpLink, &'static str> {
    let str_of = |k: &'static str| v.text(k).ok_or(k);
    let u32_of = |k: &'static str| v.u64_of(k).and_then(|n| u32::try_from(n).ok()).ok_or(k);
    let (ifindex, ifname, mtu, operstate) =
        (u32_of("ifindex")?, str_of("ifname")?, u32_of("mtu")?, str_of("operstate")?);
    let flags = v.get("flags").and_then(Json::as_array).ok_or("flags")?;
    Ok(IpLink {
        ifindex,
        ifname,
        mtu,
        operstate,
        flags: flags.iter().filter_map(Json::as_str).map(String::from).collect(),
        link_type: str_of("link_type").ok(),
        address: str_of("address").ok(),
    })
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
