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
use regex::Regex;
use std::sync::LazyLock;

/// `mlx5_0 port 1 ==> ib0 (Up)`; the link state in ASCII word characters, as in the tail below.
static SHORT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(\S+)\s+port\s+(\d+)\s+==>\s+(\S+)(?:\s+\(((?-u:\w)+)\))?").expect("valid regex"));
/// `ibdev2netdev -v`'s line, in two parts: the device and its adapter in parentheses, then,
/// after the description, the first `fw ... ==> netdev` that completes the line. Matching the
/// two apart keeps the description out of the regex: as one `(.*?)` between them, capturing it
/// took the backtracker over the whole line, a few percent of a 1,000-host audit's CPU.
static VERBOSE_HEAD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:([0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]) )?([^\s:]+) \(([^)]*)\)")
        .expect("valid regex")
});
/// The tail's word classes are ASCII (`(?-u:\w)`, `(?-u:\b)`), as the port and link states
/// are: with Unicode's, building both regexes took 6.2 million instructions instead of 1 million,
/// and reading a lab host's three lines 1.9 million instead of 0.4.
static VERBOSE_TAIL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?-u:\b)fw (\S+) port ((?-u:\d)+) \(((?-u:\w)+)\s*\) ==> (\S+)(?: \(((?-u:\w)+)\))?")
        .expect("valid regex")
});

/// The fields of a verbose line, as the groups of the one regex they were: PCI address, device,
/// adapter, description, firmware, port, port state, netdev, link state.
fn verbose(line: &str) -> Option<[Option<&str>; 9]> {
    let head = VERBOSE_HEAD.captures(line)?;
    let rest = &line[head.get(0)?.end()..];
    let tail = VERBOSE_TAIL.captures(rest)?;
    let description = rest[..tail.get(0)?.start()].trim_matches(char::is_whitespace);
    let h = |i| head.get(i).map(|m| m.as_str());
    let t = |i| tail.get(i).map(|m| m.as_str());
    Some([h(1), h(2), h(3), Some(description), t(1), t(2), t(3), t(4), t(5)])
}

/// Parses `ibdev2netdev` or `ibdev2netdev -v` output.
///
/// # Errors
/// Empty input, or no `... port N ==> ...` line.
pub fn parse(text: &str) -> ParseResult<Ibdev2netdev> {
    let mut mappings = Vec::new();
    let mut warnings = Vec::new();
    for l in numbered(text) {
        let line = l.text;
        let group = |c: &regex::Captures<'_>, i: usize| c.get(i).map(|m| m.as_str().to_string());
        let parsed = if let Some([pci, hca, adapter, description, firmware, port, state, netdev, link]) = verbose(line)
        {
            port.and_then(|p| p.parse().ok()).map(|port| Mapping {
                hca: hca.unwrap_or_default().to_string(),
                port,
                netdev: netdev.unwrap_or_default().to_string(),
                up: link_up(link),
                pci: pci.map(str::to_string),
                adapter: adapter.filter(|a| !a.trim().is_empty()).map(str::to_string),
                description: description.filter(|d| !d.is_empty()).map(str::to_string),
                firmware: firmware.map(str::to_string),
                port_state: state.map(str::to_string),
            })
        } else if let Some(c) = SHORT.captures(line) {
            group(&c, 2).and_then(|p| p.parse().ok()).map(|port| Mapping {
                hca: group(&c, 1).unwrap_or_default(),
                port,
                netdev: group(&c, 3).unwrap_or_default(),
                up: link_up(c.get(4).map(|m| m.as_str())),
                pci: None,
                adapter: None,
                description: None,
                firmware: None,
                port_state: None,
            })
        } else {
            None
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
