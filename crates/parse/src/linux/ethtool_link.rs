//! `ethtool IF`: link settings (negotiated speed, duplex, link state, link modes).
//!
//! Format: `Settings for IF:` then tab-indented `Key: value` lines. `Supported link modes:`,
//! `Advertised link modes:` and `Link partner advertised link modes:` continue on following
//! lines that hold only modes (one or two per line), as does `Current message level:` (its flag
//! names). Variants: `Speed: Unknown!` and `Duplex: Unknown! (255)` on a down port (both become
//! `None`), `Link detected: no (No cable)` (the reason is kept: the driver's extended link state, which
//! tells a missing cable from a peer that does not answer), `Not reported` mode lists,
//! an echoed shell prompt, and the non-root stderr lines (`netlink error: Operation not
//! permitted`, `Cannot get wake-on-lan settings`) which come back as warnings.

use crate::lines::{cut_line_skipped, is_prompt, numbered, split_at_byte, unrecognised, words};
use crate::{ParseError, ParseResult, ParseWarning, Parsed};
pub use fabcheck_model::host::ethtool_link::EthtoolLink;

/// Which key the continuation lines belong to.
#[derive(Clone, Copy, PartialEq)]
enum Cont {
    None,
    Supported,
    Advertised,
    Ignored,
}

/// Keys printed by ethtool that fabcheck does not use: recognised, not reported as warnings. A
/// `match` (a jump on the length, then one comparison) rather than a scan of a list of keys.
fn ignored(key: &str) -> bool {
    matches!(
        key,
        "Supported ports"
            | "Supported pause frame use"
            | "Supports auto-negotiation"
            | "Supported FEC modes"
            | "Advertised pause frame use"
            | "Advertised auto-negotiation"
            | "Advertised FEC modes"
            | "Link partner advertised link modes"
            | "Link partner advertised pause frame use"
            | "Link partner advertised auto-negotiation"
            | "Link partner advertised FEC modes"
            | "PHYAD"
            | "Transceiver"
            | "MDI-X"
            | "Supports Wake-on"
            | "Wake-on"
            | "Current message level"
            | "Lanes"
            | "Master-slave cfg"
            | "Master-slave status"
            | "SQI"
            | "Max SQI"
    )
}

/// Parses the output of `ethtool IF`.
pub fn parse(text: &str) -> ParseResult<EthtoolLink> {
    let mut link = EthtoolLink::default();
    let mut warnings = Vec::new();
    let mut cont = Cont::None;
    let mut known = 0usize;
    for l in numbered(text) {
        let (n, t) = (l.n, l.text);
        let mut warn = |message: String| warnings.push(ParseWarning::at(n, message));
        if !l.ended {
            warn(cut_line_skipped(t));
            continue;
        }
        if is_prompt(t, "ethtool") {
            continue;
        }
        if let Some(name) = t.strip_prefix("Settings for ").and_then(|r| r.strip_suffix(':')) {
            link.interface = Some(name.to_string());
            cont = Cont::None;
            known += 1;
            continue;
        }
        let Some((key, value)) = split_at_byte(t, b':') else {
            let continued = match cont {
                Cont::Supported => continued_modes(t, &mut link.supported_link_modes),
                Cont::Advertised => continued_modes(t, &mut link.advertised_link_modes),
                Cont::Ignored => true,
                Cont::None => false,
            };
            if !continued {
                warn(unrecognised(t));
            }
            continue;
        };
        let value = value.trim();
        cont = Cont::None;
        match key {
            "Supported link modes" => {
                link.supported_link_modes.extend(modes(value));
                cont = Cont::Supported;
            }
            "Advertised link modes" => {
                link.advertised_link_modes.extend(modes(value));
                cont = Cont::Advertised;
            }
            "Speed" => link.speed_mbps = value.strip_suffix("Mb/s").and_then(|v| v.trim().parse().ok()),
            "Duplex" => link.duplex = Some(value.to_string()).filter(|d| !d.starts_with("Unknown")),
            "Auto-negotiation" => link.auto_negotiation = yes_no(value, "on", "off"),
            "Port" => link.port = Some(value.to_string()),
            "Link detected" => {
                link.link_detected = yes_no(value.split_whitespace().next().unwrap_or(""), "yes", "no");
                link.link_down_reason = value
                    .split_once('(')
                    .map(|(_, reason)| reason.trim_end().trim_end_matches(')').trim().to_string())
                    .filter(|r| !r.is_empty());
            }
            k if ignored(k) => cont = Cont::Ignored,
            _ => {
                warn(unrecognised(t));
                continue;
            }
        }
        known += 1;
    }
    if known == 0 {
        return Err(ParseError::at(0, "not ethtool output: no `Settings for IF:` or link setting lines"));
    }
    Ok(Parsed { value: link, warnings })
}

/// Adds the modes of a continuation line to `modes` when every word of it is one (holds `base`),
/// and says whether it did: a line of anything else is unrecognised, and none of it is kept.
/// The words are read once, each added as it is checked; a bad word takes back those added.
fn continued_modes(line: &str, modes: &mut Vec<String>) -> bool {
    let before = modes.len();
    for word in words(line) {
        if !is_mode(word) {
            modes.truncate(before);
            return false;
        }
        modes.push(word.to_string());
    }
    true
}

/// Whether `word` is a link mode (`100000baseCR4/Full`, `10000baseR_FEC`): it holds `base`.
/// Compared only where memchr finds a `b`: `contains` sets up a substring searcher for each
/// word, and a byte loop to the `b` ([`crate::lines::split_at_str`]) reads a mode line slower.
fn is_mode(word: &str) -> bool {
    let bytes = word.as_bytes();
    memchr::memchr_iter(b'b', bytes).any(|at| bytes[at..].starts_with(b"base"))
}

fn modes(v: &str) -> impl Iterator<Item = String> + '_ {
    Some(v).filter(|v| *v != "Not reported").into_iter().flat_map(words).map(String::from)
}

fn yes_no(v: &str, yes: &str, no: &str) -> Option<bool> {
    if v == yes {
        Some(true)
    } else if v == no {
        Some(false)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str =
        include_str!("../../tests/fixtures/ethtool_link/cx4-edr-vpi-mcx455a-eth-100g-enp1s0np0-terrencemiao-blog.txt");

    #[test]
    fn down_port_with_unknown_speed_and_link_reason() {
        let text = "Cannot get wake-on-lan settings: Operation not permitted\nSettings for ens9f1np1:\n\tSupported ports: [ Backplane ]\n\tSupported link modes:   1000baseKX/Full\n\t                        10baseT/Half 10baseT/Full\n\t                        garbage\n\tAdvertised link modes:  Not reported\n\tSpeed: Unknown!\n\tDuplex: Unknown! (255)\n\tAuto-negotiation: off\n\tPort: Direct Attach Copper\n\tCurrent message level: 0x00000004 (4)\n\t\t\t       link\nnetlink error: Operation not permitted\n\tLink detected: no (Autoneg, No partner detected)\n";
        let p = parse(text).unwrap();
        let l = &p.value;
        assert_eq!(l.interface.as_deref(), Some("ens9f1np1"));
        assert_eq!(l.speed_mbps, None);
        assert_eq!(l.duplex, None);
        assert_eq!(l.auto_negotiation, Some(false));
        assert_eq!(l.link_detected, Some(false));
        assert_eq!(l.link_down_reason.as_deref(), Some("Autoneg, No partner detected"));
        assert_eq!(l.supported_link_modes, ["1000baseKX/Full", "10baseT/Half", "10baseT/Full"]);
        assert!(l.advertised_link_modes.is_empty());
        let lines: Vec<_> = p.warnings.iter().map(|w| w.line).collect();
        assert_eq!(lines, vec![1, 6, 14]);
    }

    #[test]
    fn rejects_empty_and_foreign_input() {
        assert!(parse("").is_err());
        assert!(parse("\n  \n").is_err());
        assert!(parse("NIC statistics:\n     rx_packets: 5\n").is_err());
    }

    crate::lines::parser_never_panics!(parse, SAMPLE);
}
