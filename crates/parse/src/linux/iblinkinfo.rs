//! `iblinkinfo` (infiniband-diags): every node of the IB fabric and the link on each of its ports.
//!
//! ```text
//! CA: gpu-v100-3 HCA-1:
//!       0xb88303ffff7f61c4      6    1[  ] ==( 4X      25.78125 Gbps Active/  LinkUp)==>       3    3[  ] "MF0;ibswitch254:MQM8700/U1" ( )
//! Switch: 0x0c42a10300b95bfa MF0;ibswitch254:MQM8700/U1:
//!            3    1[  ] ==( 4X      25.78125 Gbps Active/  LinkUp)==>       1    1[  ] "gpu-v100-0 HCA-1" ( )
//!            1    5[  ] ==(                Down/ Polling)==>             [  ] "" ( )
//! ```
//!
//! The format is `print_port()` in rdma-core's infiniband-diags/iblinkinfo.c: CA port lines
//! start with the port GUID; the link is `(%3s %18s %6s/%8s)` (width, per-lane speed, state,
//! physical state) or, for a down port, only the states; the peer is `LID PORT[ext] "name"`,
//! `[  ] "" ( )` (down, no peer) or `"Port not available"`; the parentheses after the peer hold
//! iblinkinfo's note when both ends support more than the link trained at (`( Could be 53.125
//! Gbps)`, `( Could be 4X)`), kept as `could_be_gbps` and `could_be_width`. `speed_gbps` is the
//! per-lane signalling rate as printed (25.78125 is EDR, 53.125 HDR). Variants seen: lines
//! elided with `...` by the person who pasted them (warned about), and output cut mid-line.
//!
//! Line mode (`iblinkinfo -l`) prints no `CA:`/`Switch:` headers: every port line starts with the
//! port's GUID and its node's description right-aligned in quotes (`0x%016x "%30s" `), and the
//! peer's GUID comes before its LID:
//!
//! ```text
//! 0x0000000000200002 "               hxa-su1-leaf-r1"      4    1[  ] ==( 4X           2.5 Gbps Active/  LinkUp)==>  0x0000000000100002      5    1[  ] "hxa-gpu01 mlx5_0" (Could be 12X Could be 10.0 Gbps)
//! ```
//!
//! Consecutive lines of one description make one node while its port GUID stays or its port
//! number grows (two switches both named `Quantum Mellanox Technologies` stay two); its `kind`
//! is empty (line mode does not say whether it is a switch or a CA). Every link keeps the GUID
//! its line starts with, so the second port of a dual-port HCA keeps its own.
use crate::lines::{cut_off, diag_no_facts, non_empty, numbered, quote};
use crate::{ParseResult, ParseWarning, Parsed};
pub use fabcheck_model::host::iblinkinfo::{Iblinkinfo, Link, Node};
use regex::Regex;
use std::sync::LazyLock;

static PORT_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:(0x[0-9a-fA-F]+)\s+)?(\d+)\s+(\d+)\[[^\]]*\]\s*==\((.*)\)==>\s*(.*)$").expect("valid regex")
});
static PEER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"^(?:0x[0-9a-fA-F]+\s+)?(\d+)\s+(\d+)\[[^\]]*\]\s+"(.*)"\s*\((.*)\)$"#).expect("valid regex")
});
/// A line-mode port line: the port GUID, the node description, then a port line as in the
/// default mode (LID, port, link, peer).
static LINE_MODE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"^(0x[0-9a-fA-F]+)\s+"(.*?)"\s+(\d+\s+\d+\[.*)$"#).expect("valid regex"));
static NO_PEER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"^(?:\[\s*\]\s+""\s*\(\s*\)|"Port not available")$"#).expect("valid regex"));

/// Parses `iblinkinfo` output.
///
/// # Errors
/// Empty input, or no `CA:`/`Switch:` node (quoting an infiniband-diags error if one was printed).
pub fn parse(text: &str) -> ParseResult<Iblinkinfo> {
    let mut nodes: Vec<Node> = Vec::new();
    let mut warnings = Vec::new();
    for l in numbered(text) {
        let (n, line) = (l.n, l.text);
        if let Some(node) = node_header(line) {
            nodes.push(node);
            continue;
        }
        if let Some((name, link)) = line_mode(line) {
            match nodes.last_mut() {
                Some(node) if node.kind.is_empty() && same_node(node, &name, &link) => node.links.push(link),
                _ => nodes.push(Node { kind: String::new(), guid: link.guid.clone(), name, links: vec![link] }),
            }
            continue;
        }
        let problem = match (link_line(line), nodes.last_mut()) {
            (Some(link), Some(node)) => {
                if node.guid.is_none() {
                    node.guid = link.guid.clone();
                }
                node.links.push(link);
                continue;
            }
            (Some(_), None) => "port line before any `CA:`/`Switch:` header",
            (None, _) if line == "..." => "elided line",
            (None, _) => "unrecognised line",
        };
        warnings.push(ParseWarning::at(n, quote(problem, line)));
    }
    if nodes.is_empty() {
        return Err(diag_no_facts(
            text,
            |diag| format!("iblinkinfo found no node; infiniband-diags reported `{diag}`"),
            "empty iblinkinfo output",
            "no `CA:` or `Switch:` line and no line-mode port line: not iblinkinfo output",
        ));
    }
    warnings.extend(cut_off(text));
    Ok(Parsed { value: Iblinkinfo { nodes }, warnings })
}

/// `CA: name:`, `Switch: 0xGUID name:`.
fn node_header(line: &str) -> Option<Node> {
    let (kind, rest) = line.split_once(": ")?;
    if !matches!(kind, "CA" | "Switch" | "Router") {
        return None;
    }
    let rest = rest.strip_suffix(':')?;
    let (guid, name) = match rest.split_once(' ') {
        Some((g, name)) if g.starts_with("0x") => (Some(g.to_string()), name),
        _ => (None, rest),
    };
    Some(Node { kind: kind.to_string(), guid, name: name.to_string(), links: Vec::new() })
}

/// Whether a line-mode port line (`name`, `link`) continues `node`: the same description, and
/// the same port GUID (a switch's ports share one) or a higher port number (a multi-port HCA's
/// ports have a GUID each). Nodes nobody named alike (`Quantum Mellanox Technologies`, an empty
/// description) follow each other in the output; this keeps them apart.
fn same_node(node: &Node, name: &str, link: &Link) -> bool {
    let last = node.links.last();
    node.name == name && (last.map(|l| &l.guid) == Some(&link.guid) || last.is_some_and(|l| l.port < link.port))
}

/// A line-mode port line: its node's description and the link.
fn line_mode(line: &str) -> Option<(String, Link)> {
    let c = LINE_MODE.captures(line)?;
    let mut link = link_line(c.get(3)?.as_str())?;
    link.guid = c.get(1).map(|m| m.as_str().to_string());
    Some((c.get(2)?.as_str().trim().to_string(), link))
}

/// A port line: the link, with the CA port GUID when the line starts with one.
fn link_line(line: &str) -> Option<Link> {
    let c = PORT_LINE.captures(line)?;
    let group = |i: usize| c.get(i).map_or("", |m| m.as_str());
    // `( 4X 25.78125 Gbps Active/  LinkUp) (HOQ:.. VL_Stall:..)` with `-p`: drop the extra.
    let link = group(4).split(") (").next().unwrap_or_default();
    let (left, physical) = link.split_once('/')?;
    let words: Vec<&str> = left.split_whitespace().collect();
    let (width, speed) = match words.as_slice() {
        [w, s, _, ..] => (Some(w.to_string()), s.parse().ok()),
        _ => (None, None),
    };
    let peer = PEER.captures(group(5).trim());
    if peer.is_none() && !NO_PEER.is_match(group(5).trim()) {
        return None;
    }
    let peer_group = |i: usize| peer.as_ref().and_then(|p| p.get(i)).map(|m| m.as_str());
    let (could_be_width, could_be_gbps) = could_be(peer_group(4).unwrap_or(""));
    Some(Link {
        guid: c.get(1).map(|m| m.as_str().to_string()),
        lid: group(2).parse().ok(),
        port: group(3).parse().ok()?,
        width,
        speed_gbps: speed,
        state: words.last().map(|s| s.to_string()),
        physical_state: non_empty(physical),
        peer_lid: peer_group(1).and_then(|s| s.parse().ok()),
        peer_port: peer_group(2).and_then(|s| s.parse().ok()),
        peer_name: peer_group(3).map(str::to_string),
        could_be_width,
        could_be_gbps,
    })
}

/// The note iblinkinfo adds when both ends of a link support more than it trained at: `Could
/// be 4X`, `Could be 53.125 Gbps`, or both.
fn could_be(note: &str) -> (Option<String>, Option<f64>) {
    let Some((_, rest)) = note.split_once("Could be") else { return (None, None) };
    let words: Vec<&str> = rest.split_whitespace().collect();
    let width = words.iter().find(|w| w.ends_with('X') && w[..w.len() - 1].parse::<u32>().is_ok());
    let speed = words.windows(2).find(|p| p[1] == "Gbps").and_then(|p| p[0].parse().ok());
    (width.map(|w| w.to_string()), speed)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = include_str!(
        "../../tests/fixtures/iblinkinfo/iblinkinfo-mqm8700-hdr-switch-25g-lanes-nccl-tests-71-PARTIAL.txt"
    );

    #[test]
    fn down_port_and_unavailable_port() {
        let text = "Switch: 0x0002c90200000001 sw1:\n   1    5[  ] ==(                Down/ Polling)==>             [  ] \"\" ( )\n   1    6[  ] ==( 4X 10.0 Gbps (FDR10) Active/  LinkUp)==>    \"Port not available\"\n";
        let parsed = parse(text).expect("parses");
        let links = &parsed.value.nodes[0].links;
        assert_eq!(links[0].state.as_deref(), Some("Down"));
        assert_eq!(links[0].physical_state.as_deref(), Some("Polling"));
        assert_eq!((links[0].width.clone(), links[0].speed_gbps, links[0].peer_lid), (None, None, None));
        assert_eq!((links[1].speed_gbps, links[1].state.as_deref()), (Some(10.0), Some("Active")));
        assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    }

    #[test]
    fn line_mode_keeps_switches_of_one_name_apart() {
        let line = |guid: &str, port: u32| {
            format!(
                "{guid} \"  Quantum Mellanox Technologies\"      4 {port:4}[  ] ==(                Down/ Polling)==>             [  ] \"\" ( )\n"
            )
        };
        let text = [line("0x01", 1), line("0x01", 2), line("0x02", 1), line("0x02", 2), line("0x03", 1)].concat();
        let nodes = parse(&text).expect("parses").value.nodes;
        let shape: Vec<(Option<&str>, usize)> = nodes.iter().map(|n| (n.guid.as_deref(), n.links.len())).collect();
        assert_eq!(shape, [(Some("0x01"), 2), (Some("0x02"), 2), (Some("0x03"), 1)]);
        // A dual-port HCA: a GUID per port, ports rising: one node.
        let hca = [line("0x0a", 1), line("0x0b", 2)].concat();
        assert_eq!(parse(&hca).expect("parses").value.nodes.len(), 1);
    }

    #[test]
    fn port_line_without_header_warns() {
        let text = "      3    1[  ] ==( 4X 25.78125 Gbps Active/  LinkUp)==>  1 1[  ] \"h\" ( )\nCA: h:\n";
        let parsed = parse(text).expect("parses");
        assert_eq!(parsed.warnings[0].line, 1);
    }

    #[test]
    fn errors() {
        assert!(parse("").is_err());
        assert!(parse("Switch 1\n").is_err());
        let err = parse("ibwarn: [9] mad_rpc_open_port: client_register for mgmt 1 failed\n").unwrap_err();
        assert!(err.message.contains("client_register"), "{err}");
    }

    crate::lines::parser_never_panics!(parse, SAMPLE);
}
