//! `ibdev2netdev` (MLNX_OFED): which Linux netdev each RDMA device port drives.
//!
//! ```text
//! mlx5_2 port 1 ==> ens6 (Up)
//! ```
//!
//! and `ibdev2netdev -v`, which adds the PCI address, part number, description, firmware and the
//! RDMA port state:
//!
//! ```text
//! 0000:02:00.5 mlx5_2 (MT4116 - NA)  fw 12.23.1020 port 1 (DOWN  ) ==> enp2s0f2 (Down)
//! ```
//!
//! Variants seen: a shell prompt line before the output, `| column -t` spacing, descriptions with
//! parentheses and long padding, `(DOWN  )` padded states, and legacy OFED's mlx4 lines without
//! the PCI address (`mlx4_0 (mt26428 - MT1037X01146) KESTREL QDR fw 2.9.1000 port 1 (ACTIVE) ==>
//! ib0 (Up)`). `(Up)`/`(Down)` is the netdev's link state, not the RDMA port state.
use crate::lines::{cut_off, no_facts, numbered, unrecognised_clipped};
use crate::{ParseResult, ParseWarning, Parsed};
pub use fabcheck_model::host::ibdev2netdev::{Ibdev2netdev, Mapping};

// The lines are read by hand, not by regexes: the regex crate's capture engines cost hundreds of
// instructions a byte on these lines, and building the regexes 1.9 million once. Each reader
// below says which regex it reads as, to the same fields: the lines accepted and refused are
// those the regexes accepted and refused.

/// Parses `ibdev2netdev` or `ibdev2netdev -v` output.
///
/// # Errors
/// Empty input, or no `... port N ==> ...` line.
pub fn parse(text: &str) -> ParseResult<Ibdev2netdev> {
    let mut mappings = Vec::new();
    let mut warnings = Vec::new();
    for l in numbered(text) {
        let line = l.text;
        // A verbose line whose port does not fit is refused, not read again as a short one.
        let parsed = match verbose(line) {
            Some(v) => v.port.parse().ok().map(|port| Mapping {
                hca: v.hca.to_string(),
                port,
                netdev: v.netdev.to_string(),
                up: link_up(v.link),
                pci: v.pci.map(str::to_string),
                adapter: Some(v.adapter).filter(|a| !a.trim().is_empty()).map(str::to_string),
                description: Some(v.description).filter(|d| !d.is_empty()).map(str::to_string),
                firmware: Some(v.firmware.to_string()),
                port_state: Some(v.state.to_string()),
            }),
            None => short(line),
        };
        match parsed {
            Some(mapping) => mappings.push(mapping),
            None => warnings.push(ParseWarning::at(l.n, unrecognised_clipped(line))),
        }
    }
    if mappings.is_empty() {
        return Err(no_facts(
            text,
            "empty ibdev2netdev output",
            "no `<hca> port <n> ==> <netdev>` line: not ibdev2netdev output",
        ));
    }
    warnings.extend(cut_off(text));
    Ok(Parsed { value: Ibdev2netdev { mappings }, warnings })
}

/// `mlx5_0 port 1 ==> ib0 (Up)`, as `^(\S+)\s+port\s+(\d+)\s+==>\s+(\S+)(?:\s+\(((?-u:\w)+)\))?`
/// read it: words split at any white space, the link state in ASCII word characters. A port
/// that is not ASCII digits or does not fit is refused (the regex's Unicode `\d` let other
/// digits through, which the port's parse then refused).
fn short(line: &str) -> Option<Mapping> {
    let mut words = line.split_whitespace();
    let hca = words.next()?;
    let port = words.next().filter(|w| *w == "port").and_then(|_| words.next())?;
    let port = Some(port).filter(|p| p.bytes().all(|b| b.is_ascii_digit()))?.parse().ok()?;
    let netdev = words.next().filter(|w| *w == "==>").and_then(|_| words.next())?;
    let link = words.next().and_then(|w| parenthesised_word(w.strip_prefix('(')?));
    Some(Mapping {
        hca: hca.to_string(),
        port,
        netdev: netdev.to_string(),
        up: link_up(link),
        pci: None,
        adapter: None,
        description: None,
        firmware: None,
        port_state: None,
    })
}

/// The fields of an `ibdev2netdev -v` line.
struct Verbose<'a> {
    pci: Option<&'a str>,
    hca: &'a str,
    adapter: &'a str,
    description: &'a str,
    firmware: &'a str,
    port: &'a str,
    state: &'a str,
    netdev: &'a str,
    link: Option<&'a str>,
}

/// `ibdev2netdev -v`'s line, in two parts: the device and its adapter in parentheses (see
/// [`head`]), then, after the description, the first `fw ... ==> netdev` that completes the line
/// (see [`tail`]).
fn verbose(line: &str) -> Option<Verbose<'_>> {
    let (pci, hca, adapter, rest) = head(line)?;
    let (description, [firmware, port, state, netdev], link) = tail(rest)?;
    Some(Verbose { pci, hca, adapter, description, firmware, port, state, netdev, link })
}

/// `^(?:([0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]) )?([^\s:]+) \(([^)]*)\)`: the PCI
/// address if the line starts with one and a space, the device, the adapter, and the rest of
/// the line. As in the regex, a line whose device does not follow its PCI address is read again
/// from its start (where a device cannot hold the address's colon).
fn head(line: &str) -> Option<(Option<&str>, &str, &str, &str)> {
    let device = |s| {
        let (hca, rest) = run(s, |c| !c.is_whitespace() && c != ':')?;
        let (adapter, rest) = rest.strip_prefix(" (")?.split_once(')')?;
        Some((hca, adapter, rest))
    };
    let with_pci = pci_prefix(line).and_then(|(pci, rest)| Some((Some(pci), device(rest)?)));
    let (pci, (hca, adapter, rest)) = with_pci.or_else(|| Some((None, device(line)?)))?;
    Some((pci, hca, adapter, rest))
}

/// A PCI address and the space after it (`0000:02:00.5 `) at the start of `line`: the address
/// and what follows the space.
fn pci_prefix(line: &str) -> Option<(&str, &str)> {
    // `h` a hexadecimal digit, `f` a function number (0 to 7), anything else itself.
    const SHAPE: &[u8] = b"hhhh:hh:hh.f ";
    let fits = |(shape, b): (&u8, &u8)| match shape {
        b'h' => b.is_ascii_hexdigit(),
        b'f' => (b'0'..=b'7').contains(b),
        _ => shape == b,
    };
    let matches = line.len() >= SHAPE.len() && SHAPE.iter().zip(line.as_bytes()).all(fits);
    matches.then(|| (&line[..SHAPE.len() - 1], &line[SHAPE.len()..]))
}

/// The first match in `rest` of
/// `(?-u:\b)fw (\S+) port ((?-u:\d)+) \(((?-u:\w)+)\s*\) ==> (\S+)(?: \(((?-u:\w)+)\))?`:
/// what comes before it trimmed (the description), then firmware, port, port state and netdev,
/// and the link state if there is one.
fn tail(rest: &str) -> Option<(&str, [&str; 4], Option<&str>)> {
    rest.match_indices("fw ").find_map(|(at, _)| {
        let bounded = at == 0 || !is_word(char::from(rest.as_bytes()[at - 1]));
        let (fields, link) = bounded.then(|| fields_after_fw(&rest[at + 3..]))??;
        Some((rest[..at].trim_matches(char::is_whitespace), fields, link))
    })
}

/// The tail's fields after its `fw `: firmware, port, port state, netdev, and the link state.
/// Each run of characters is as long as it goes, as the regex's: a shorter one never leaves the
/// text after it that the regex asks for next.
fn fields_after_fw(s: &str) -> Option<([&str; 4], Option<&str>)> {
    let (firmware, s) = run(s, |c| !c.is_whitespace())?;
    let (port, s) = run(s.strip_prefix(" port ")?, |c| c.is_ascii_digit())?;
    let (state, s) = run(s.strip_prefix(" (")?, is_word)?;
    let (netdev, s) = run(s.trim_start().strip_prefix(") ==> ")?, |c| !c.is_whitespace())?;
    let link = s.strip_prefix(" (").and_then(parenthesised_word);
    Some(([firmware, port, state, netdev], link))
}

/// The ASCII word at the start of `s` when a `)` follows it: the `Up` of `Up)`.
fn parenthesised_word(s: &str) -> Option<&str> {
    let (word, rest) = run(s, is_word)?;
    rest.starts_with(')').then_some(word)
}

/// The longest non-empty start of `s` whose characters are all `keep`, and the rest.
fn run(s: &str, keep: impl Fn(char) -> bool) -> Option<(&str, &str)> {
    let end = s.find(|c: char| !keep(c)).unwrap_or(s.len());
    (end > 0).then(|| s.split_at(end))
}

/// An ASCII word character (`(?-u:\w)`): the port and link states are ASCII.
fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn link_up(state: Option<&str>) -> Option<bool> {
    match state {
        Some("Up") => Some(true),
        Some("Down") => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str =
        include_str!("../../tests/fixtures/ibdev2netdev/ibdev2netdev-v-cx4-sriov-vfs-intel-sriov-cni-readme.txt");

    #[test]
    fn column_t_spacing_and_comments() {
        let text = "mlx5_0   port  1  ==>  ibp26s0        (Down)  # CX-7 1/8 infiniband\n";
        let m = &parse(text).expect("parses").value.mappings[0];
        assert_eq!((m.hca.as_str(), m.port, m.netdev.as_str(), m.up), ("mlx5_0", 1, "ibp26s0", Some(false)));
    }

    #[test]
    fn verbose_description_with_parentheses() {
        let text = "0000:b8:00.1 mlx5_13 (MT4123 - MCX653106A-ECAT) ConnectX-6 VPI adapter card, 100Gb/s (HDR100, EDR IB and 100GbE), dual-port QSFP56 fw 20.26.4012 port 1 (ACTIVE) ==> ib4 (Up)\n";
        let m = &parse(text).expect("parses").value.mappings[0];
        assert_eq!(m.hca, "mlx5_13");
        assert_eq!(m.firmware.as_deref(), Some("20.26.4012"));
        assert_eq!((m.port_state.as_deref(), m.up), (Some("ACTIVE"), Some(true)));
    }

    #[test]
    fn a_line_prefixed_by_a_fan_out_tool_is_not_read_as_a_legacy_line() {
        // pdsh/clush put `host: ` before each line: `gpu01:` is no HCA.
        let text = "gpu01: 0000:b8:00.1 mlx5_0 (MT4123 - MCX653106A-ECAT) ConnectX-6 fw 20.26.4012 port 1 (ACTIVE) ==> ib0 (Up)\nmlx4_0 (mt26428 - MT1037X01146) KESTREL QDR fw 2.9.1000 port 1 (ACTIVE) ==> ib0 (Up)\n";
        let parsed = parse(text).expect("parses");
        assert_eq!(parsed.value.mappings.iter().map(|m| m.hca.as_str()).collect::<Vec<_>>(), ["mlx4_0"]);
        assert_eq!(parsed.warnings.iter().map(|w| w.line).collect::<Vec<_>>(), [1]);
    }

    #[test]
    fn errors() {
        assert!(parse("").is_err());
        assert!(parse("root@h# ibdev2netdev\n").is_err());
    }

    crate::lines::parser_never_panics!(parse, SAMPLE);
}
