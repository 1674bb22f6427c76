//! LLDP neighbours in any of the formats fabcheck collects, told apart by their shape, and the
//! normalisation every format shares.
//!
//! | format | command | told by |
//! |---|---|---|
//! | [`LldpFormat::Lldpcli`] | `lldpcli show neighbors`, `lldpctl` (hosts, Cumulus, SONiC) | `Interface:    eth0, via: LLDP` |
//! | [`LldpFormat::LldpcliInterfaces`] | `lldpcli show interfaces` (what this system sends) | `LLDP interfaces:` |
//! | [`LldpFormat::LldpdJson`] | `lldpcli -f json` / `-f json0 show neighbors` | `{` first |
//! | [`LldpFormat::EosTable`] | Arista EOS `show lldp neighbors` | `Neighbor Device ID` column |
//! | [`LldpFormat::EosDetail`] | Arista EOS `show lldp neighbors detail` | `Interface Et1 detected N LLDP neighbors:` |
//! | [`LldpFormat::EosJson`] | Arista EOS `show lldp neighbors [detail] \| json` (eAPI) | `{` first, `"lldpNeighbors"` |
//! | [`LldpFormat::NxosTable`] | Cisco NX-OS `show lldp neighbors [interface IF]` | `Device ID  Local Intf` columns |
//! | [`LldpFormat::NxosDetail`] | Cisco NX-OS `show lldp neighbors detail` | `Chassis id:` |
//! | [`LldpFormat::Os10Detail`] | Dell OS10 `show lldp neighbors detail` | `Remote Chassis ID Subtype:` |
//! | [`LldpFormat::SonicTable`] | SONiC `show lldp table` | `LocalPort  RemoteDevice` columns |
//!
//! What every format's neighbour becomes ([`LldpNeighbor`]):
//! - local ports of switch CLIs are canonical ([`canonical_interface`](crate::switch::canonical_interface): `Et2` → `Ethernet2`,
//!   `Eth1/10` → `Ethernet1/10`); lldpd's are Linux interface names and stay as the kernel names
//!   them (`canonical_interface` would turn a host's or a SONiC switch's `eth0` into
//!   `Ethernet0`, another port);
//! - chassis and port IDs lose lldpd's subtype word (`mac 08:9e:…`, `ifname swp47`, `local 34`)
//!   and EOS's quotes, and a MAC address in any notation (`2cc2.6081.eaf9`, `00-1C-…`) is
//!   written `2c:c2:60:81:ea:f9`, so that both ends of a link name a device the same way;
//!   other IDs are kept as advertised (`00:00:00:00:00:00`, a degenerate ID some lldpd builds
//!   send, included: matching on it is the topology's decision);
//! - the management address is the first IPv4 one advertised, else the first IPv6 one; a MAC
//!   advertised as management address (EOS's `Ethernet` subtype) is not an IP and is dropped.
use super::{eos_detail, eos_json, eos_table, lldpcli, lldpd_json, nxos_detail, nxos_table, os10_detail, sonic_table};
use crate::lines::{is_prompt, no_facts, numbered};
use crate::switch::LldpNeighbor;
use crate::{ParseResult, ParseWarning, Parsed};
use serde::Serialize;
use std::net::IpAddr;

/// Every neighbour of one output.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LldpNeighbors {
    /// The format the output was read as.
    pub format: LldpFormat,
    /// Neighbours, in output order (a port may have several).
    pub neighbors: Vec<LldpNeighbor>,
    /// What this system advertises on each of its ports (`lldpcli show interfaces`, or lldpd
    /// JSON entries `via: unknown`): the local view, not neighbours.
    pub advertised: Vec<LldpNeighbor>,
}

impl LldpNeighbors {
    pub(super) fn new(format: LldpFormat) -> LldpNeighbors {
        LldpNeighbors { format, neighbors: Vec::new(), advertised: Vec::new() }
    }
}

/// The formats [`parse`] tells apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LldpFormat {
    /// lldpd's `lldpcli show neighbors` / `lldpctl`.
    Lldpcli,
    /// lldpd's `lldpcli show interfaces`.
    LldpcliInterfaces,
    /// lldpd's `-f json` or `-f json0`.
    LldpdJson,
    /// Arista EOS `show lldp neighbors`.
    EosTable,
    /// Arista EOS `show lldp neighbors detail`.
    EosDetail,
    /// Arista EOS `show lldp neighbors detail | json`.
    EosJson,
    /// Cisco NX-OS `show lldp neighbors` / `show lldp neighbors interface IF`.
    NxosTable,
    /// Cisco NX-OS `show lldp neighbors detail`.
    NxosDetail,
    /// Dell OS10 `show lldp neighbors detail`.
    Os10Detail,
    /// SONiC `show lldp table`.
    SonicTable,
}

/// Parses LLDP neighbours in any supported format, told apart by their shape.
///
/// # Errors
/// Empty input, or none of the formats' marks (not LLDP output); or the chosen format's error.
pub fn parse(text: &str) -> ParseResult<LldpNeighbors> {
    match detect(text) {
        Some(LldpFormat::LldpdJson) => lldpd_json::parse(text),
        Some(LldpFormat::EosJson) => eos_json::parse(text),
        Some(LldpFormat::Lldpcli | LldpFormat::LldpcliInterfaces) => lldpcli::parse(text),
        Some(LldpFormat::NxosDetail) => nxos_detail::parse(text),
        Some(LldpFormat::EosDetail) => eos_detail::parse(text),
        Some(LldpFormat::EosTable) => eos_table::parse(text),
        Some(LldpFormat::NxosTable) => nxos_table::parse(text),
        Some(LldpFormat::Os10Detail) => os10_detail::parse(text),
        Some(LldpFormat::SonicTable) => sonic_table::parse(text),
        None => Err(no_facts(
            text,
            "empty LLDP output",
            "no lldpd, EOS, NX-OS, OS10 or SONiC LLDP neighbour output recognised",
        )),
    }
}

/// The format of `text`, from the first mark found.
pub fn detect(text: &str) -> Option<LldpFormat> {
    let mut lines = numbered(text).filter(|l| !is_cli_echo(l.text));
    let first = lines.next()?;
    if first.text.starts_with(['{', '[']) {
        // EOS puts `lldpNeighbors` first in the detail, after the table counters in the summary.
        let eapi = text.contains("\"lldpNeighbors\"");
        return Some(if eapi { LldpFormat::EosJson } else { LldpFormat::LldpdJson });
    }
    for l in std::iter::once(first).chain(lines) {
        let t = l.text;
        if t.starts_with("LLDP interfaces:") {
            return Some(LldpFormat::LldpcliInterfaces);
        }
        if t.starts_with("LLDP neighbors:") || (t.starts_with("Interface:") && t.contains(", via:")) {
            return Some(LldpFormat::Lldpcli);
        }
        if t.starts_with("Chassis id:") {
            return Some(LldpFormat::NxosDetail);
        }
        if t.starts_with("Remote Chassis ID Subtype:") {
            return Some(LldpFormat::Os10Detail);
        }
        if t.starts_with("Interface ") && t.contains(" LLDP neighbors") {
            return Some(LldpFormat::EosDetail);
        }
        if t.contains("Neighbor Device ID") {
            return Some(LldpFormat::EosTable);
        }
        if t.starts_with("LocalPort") && t.contains("RemoteDevice") {
            return Some(LldpFormat::SonicTable);
        }
        if t.starts_with("Device ID") && t.contains("Local Intf") {
            // NX-OS prints the same header above `detail` blocks: look on.
            let rest = &text[l.start..];
            return Some(if rest.contains("\nChassis id:") { LldpFormat::NxosDetail } else { LldpFormat::NxosTable });
        }
    }
    None
}

/// A shell prompt or a switch CLI's echo of the command: `root@h:~# lldpctl`,
/// `cumulus@switch:~$ sudo lldpcli show neighbors`, `[lldpcli] # show interfaces`,
/// `SW03#sh ll n e 31-32 d`, ` show lldp neig int eth1/10`.
pub(super) fn is_cli_echo(line: &str) -> bool {
    let t = line.trim();
    if is_prompt(t, "lldp") || is_prompt(t, "sudo ") || t.starts_with("[lldpcli]") {
        return true;
    }
    if t.starts_with("show ") || t.starts_with("sh ") {
        return true;
    }
    // `host#command` / `host>command` with no space in `host`.
    t.split_once(['#', '>']).is_some_and(|(host, command)| {
        !host.is_empty() && !host.contains(char::is_whitespace) && command.trim_start().starts_with("sh")
    })
}

/// An ID as advertised, without lldpd's subtype word or EOS's quotes; a MAC in colon form.
pub(super) fn id(raw: &str) -> Option<String> {
    let t = unquote(raw.trim());
    let t = ["mac ", "ifname ", "ifalias ", "local ", "ip ", "unhandled "]
        .iter()
        .find_map(|p| t.strip_prefix(p))
        .unwrap_or(t)
        .trim();
    if t.is_empty() {
        return None;
    }
    Some(mac(t).unwrap_or_else(|| unquote(t).to_string()))
}

/// A MAC address in any of the usual notations, as `aa:bb:cc:dd:ee:ff`.
pub(super) fn mac(text: &str) -> Option<String> {
    let hex: String = match text.len() {
        // 00:1c:0f:5f:c7:c0 / 00-1c-0f-5f-c7-c0
        17 => {
            let sep = text.as_bytes().get(2).copied()?;
            if !(sep == b':' || sep == b'-') || text.split(sep as char).any(|p| p.len() != 2) {
                return None;
            }
            text.split(sep as char).collect()
        }
        // 2cc2.6081.eaf9
        14 => {
            if text.split('.').count() != 3 || text.split('.').any(|p| p.len() != 4) {
                return None;
            }
            text.split('.').collect()
        }
        _ => return None,
    };
    if hex.len() != 12 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let hex = hex.to_ascii_lowercase();
    let pairs: Vec<&str> = (0..6).map(|i| &hex[2 * i..2 * i + 2]).collect();
    Some(pairs.join(":"))
}

/// `"RTR01"` → `RTR01`: one pair of surrounding double quotes removed (EOS quotes strings;
/// a description that itself starts with a quote keeps it).
pub(super) fn unquote(text: &str) -> &str {
    text.strip_prefix('"').and_then(|t| t.strip_suffix('"')).unwrap_or(text)
}

/// A text value, `None` when empty or `not advertised`.
pub(super) fn value(raw: &str) -> Option<String> {
    let t = unquote(raw.trim()).trim();
    (!t.is_empty() && !t.eq_ignore_ascii_case("not advertised")).then(|| t.to_string())
}

/// The cells of a table row cut at `starts` (port, device ID, port ID at least); `None`, with a
/// warning unless it is a CLI echo, for a line met before the columns are known.
pub(super) fn row_cells(
    line: &crate::lines::Line<'_>,
    starts: Option<&[usize]>,
    warnings: &mut Vec<ParseWarning>,
) -> Option<Vec<String>> {
    let Some(starts) = starts.filter(|s| s.len() >= 3) else {
        if !is_cli_echo(line.text) {
            warnings.push(unrecognised(line.n, line.text));
        }
        return None;
    };
    Some(crate::lines::cells(line.raw, starts))
}

/// A table's device ID as (chassis ID, system name): the neighbour's system name when it
/// advertises one, its chassis ID otherwise, which a MAC there is.
pub(super) fn device_id(device: &str) -> (Option<String>, Option<String>) {
    match mac(device) {
        Some(m) => (Some(m), None),
        None => (None, value(device)),
    }
}

/// Ends the block of a neighbour read as key/value lines (NX-OS and OS10 detail): its
/// management address chosen from those listed, and the neighbour kept.
pub(super) fn close_block(current: Option<(LldpNeighbor, Vec<String>)>, found: &mut LldpNeighbors) {
    if let Some((mut nb, ips)) = current {
        nb.management_ip = management_ip(&ips);
        found.neighbors.push(nb);
    }
}

/// The management address to keep of those advertised: the first IPv4, else the first IP.
pub(super) fn management_ip(candidates: &[String]) -> Option<String> {
    let ips: Vec<IpAddr> = candidates.iter().filter_map(|c| c.trim().parse().ok()).collect();
    ips.iter().find(|ip| ip.is_ipv4()).or(ips.first()).map(IpAddr::to_string)
}

/// NX-OS's `Total entries displayed: N` (line and N), when `line` is it.
pub(super) fn total_entries(n: usize, line: &str) -> Option<(usize, usize)> {
    let count = line.strip_prefix("Total entries displayed")?.trim_start().strip_prefix(':')?.trim().parse().ok()?;
    Some((n, count))
}

/// A warning when the switch's own count of entries (`total`) disagrees with the neighbours read:
/// some were skipped, or the output was cut.
pub(super) fn count_check(total: Option<(usize, usize)>, read: usize) -> Option<ParseWarning> {
    let (n, count) = total?;
    (count != read).then(|| {
        ParseWarning::at(
            n,
            format!("the switch counts {count} entries (`Total entries displayed: {count}`), {read} were read"),
        )
    })
}

/// The warning every text format gives a line it does not understand.
pub(super) fn unrecognised(n: usize, text: &str) -> ParseWarning {
    ParseWarning::at(n, crate::lines::unrecognised_clipped(text))
}

/// The result of a text format: an error when nothing was found.
pub(super) fn finish(
    found: LldpNeighbors,
    warnings: Vec<ParseWarning>,
    text: &str,
    seen_header: bool,
    command: &str,
) -> ParseResult<LldpNeighbors> {
    if !seen_header && found.neighbors.is_empty() && found.advertised.is_empty() {
        return Err(no_facts(text, &format!("empty `{command}` output"), &format!("not `{command}` output")));
    }
    Ok(Parsed { value: found, warnings })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_macs_are_normalised() {
        assert_eq!(id("mac 08:9E:01:e9:66:5a").as_deref(), Some("08:9e:01:e9:66:5a"));
        assert_eq!(id("ifname swp47").as_deref(), Some("swp47"));
        assert_eq!(id("2cc2.6081.eaf9").as_deref(), Some("2c:c2:60:81:ea:f9"));
        assert_eq!(id("\"OPNsense\"").as_deref(), Some("OPNsense"));
        assert_eq!(id("local 34").as_deref(), Some("34"));
        assert_eq!(id("  "), None);
        assert_eq!(mac("00-1C-0F-5F-C7-C0").as_deref(), Some("00:1c:0f:5f:c7:c0"));
        assert_eq!(mac("Ethernet1/52"), None);
        assert_eq!(mac("zzzz.zzzz.zzzz"), None);
        assert_eq!(mac("éé:éé:éé:éé:é"), None);
    }

    #[test]
    fn management_addresses_prefer_ipv4() {
        let c = |v: &[&str]| management_ip(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(c(&["fe80::1", "10.0.0.1"]).as_deref(), Some("10.0.0.1"));
        assert_eq!(c(&["fe80::1"]).as_deref(), Some("fe80::1"));
        assert_eq!(c(&["2cc2.6081.eaf9"]), None);
    }

    #[test]
    fn echoes_and_prompts() {
        assert!(is_cli_echo("SW03#sh ll n e 31-32 d"));
        assert!(is_cli_echo(" show lldp neig int eth1/10"));
        assert!(is_cli_echo("[lldpcli] # show interfaces"));
        assert!(is_cli_echo("cumulus@switch:~$ sudo lldpcli show neighbors"));
        assert!(!is_cli_echo("Interface:    eth0, via: LLDP"));
        assert!(!is_cli_echo("Capability codes:"));
    }

    #[test]
    fn empty_and_foreign_text_are_errors() {
        assert!(parse("").is_err());
        assert!(parse("hello\nworld\n").is_err());
        assert_eq!(detect("  \n"), None);
    }

    crate::lines::parser_never_panics!(
        parse,
        [
            include_str!("../../tests/fixtures/lldp/arista-eos-show-lldp-neighbors-ntc2.txt"),
            include_str!("../../tests/fixtures/lldp/cisco-nxos-9.3-show-lldp-neighbors-detail-ntc2.txt"),
            include_str!("../../tests/fixtures/lldp/cumulus-4.1-lldpcli-show-neighbors-cl59-docs-PARTIAL.txt"),
            include_str!("../../tests/fixtures/lldp/nxos-show-lldp-neighbors-interface-idrac-issue-301.txt"),
            include_str!("../../tests/fixtures/lldp/lldpctl-json-two-macs-one-port-sonic-utilities-test.json"),
        ]
    );
}
