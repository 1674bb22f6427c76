//! What the `show interface(s) status` tables of the switch CLIs (Arista EOS, Cisco NX-OS, Dell
//! OS10) have in common, read once: rows whose free-text description sits before a status word,
//! speeds with units (`a-40G`, `10G`, `100M`, NX-OS's bare `1000` in Mb/s), and how a port's
//! status sets the model's speed and link state.
//!
//! EOS and NX-OS print the description before the status in a column that long descriptions
//! overflow (and contributors' pasted copies collapse), so [`split_row`] finds the status word at
//! the header's `Status` column and otherwise takes the first status word after the port. OS10's
//! table is strictly columnar and reads its cells by header position ([`header_columns`]).

use crate::switch::SwitchQos;
use serde::Serialize;

/// One port of a `show interface(s) status` table (EOS, NX-OS, OS10), as printed and as read.
/// The columns all three print come first; the others are `None` where the vendor has none.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PortStatus {
    /// The port as printed (`Et3/1/1`, `Eth1/1`, `Eth 1/1/1`, `Po10`, `mgmt0`).
    pub port: String,
    /// Canonical name ([`crate::switch::canonical_interface`] of the port without its space):
    /// `Ethernet3/1/1`, `Port-Channel10`.
    pub name: String,
    /// The description column (EOS and NX-OS `Name`, OS10 `Description`), when not empty (NX-OS
    /// cuts it to its column; `--` is none).
    pub description: Option<String>,
    /// The status as printed: EOS `connected`, `notconnect`, `disabled`, `errdisabled`...; NX-OS
    /// `connected`, `notconnec`, `xcvrAbsen`, `disabled`...; OS10 `up`, `down`.
    pub status: String,
    /// Link up: EOS `connected`; NX-OS `connected`, or `up` (VLAN, tunnel and loopback
    /// interfaces); OS10 `up`.
    pub oper_up: bool,
    /// Administratively up, where the status tells: false for `disabled`, true for the states only
    /// an enabled port reaches (`connected`, `notconnect`; NX-OS also `xcvrAbsen`, `sfpAbsent`;
    /// OS10 `up`); unknown otherwise (OS10's `down` does not say which).
    pub admin_up: Option<bool>,
    /// `Vlan` column: EOS `trunk`, `routed`, `10`, `in Po49`; NX-OS `routed`, `trunk`, `f-path`,
    /// `1`; OS10 the access or native VLAN. `None` for `--`.
    pub vlan: Option<String>,
    /// `Duplex` column.
    pub duplex: Option<String>,
    /// `Speed` column as printed (`a-40G`, `10G`, `auto`, `0`; EOS's JSON gives none).
    pub speed: Option<String>,
    /// Speed in Mb/s ([`speed_mbps`]; EOS's JSON from its `bandwidth` in b/s).
    pub speed_mbps: Option<u64>,
    /// `Type` column (the transceiver, and any flags after it: EOS and NX-OS); `None` for `--`.
    pub media: Option<String>,
    /// NX-OS's tunnel table: its `Reason` and `Reason description`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// OS10 `Mode`: `A` (access), `T` (trunk), `-` (routed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// OS10 `Tagged-Vlans` (`-`: none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tagged_vlans: Option<String>,
}

/// One status-table row cut at its status word.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StatusRow<'a> {
    /// The first word: the port as printed.
    pub(crate) port: &'a str,
    /// The words between the port and the status, joined with single spaces (empty: none).
    pub(crate) description: String,
    /// The status word.
    pub(crate) status: &'a str,
    /// The words after the status.
    pub(crate) rest: Vec<&'a str>,
}

/// The words of `raw` with their byte offsets.
pub(crate) fn word_offsets(raw: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in raw.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                out.push((s, &raw[s..i]));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, &raw[s..]));
    }
    out
}

/// `raw` cut at its status word: the word at byte offset `status_col` (the header's `Status`
/// column) when it is a status, else the first status word after the port. `None` when no word
/// after the port is a status.
pub(crate) fn split_row<'a>(
    raw: &'a str,
    status_col: Option<usize>,
    is_status: impl Fn(&str) -> bool,
) -> Option<StatusRow<'a>> {
    let words = word_offsets(raw);
    let (_, port) = *words.first()?;
    let at_column = words.iter().enumerate().skip(1).find(|(_, (off, w))| Some(*off) == status_col && is_status(w));
    let (si, &(_, status)) = at_column.or_else(|| words.iter().enumerate().skip(1).find(|(_, (_, w))| is_status(w)))?;
    Some(StatusRow {
        port,
        description: words[1..si].iter().map(|(_, w)| *w).collect::<Vec<_>>().join(" "),
        status,
        rest: words[si + 1..].iter().map(|(_, w)| *w).collect(),
    })
}

/// Where each of a columnar table's header words starts (in characters: headers are ASCII), with
/// the word: `Port   Status` → `[(0, "Port"), (7, "Status")]`.
pub(crate) fn header_columns(header: &str) -> Vec<(usize, &str)> {
    word_offsets(header).into_iter().map(|(byte, w)| (header[..byte].chars().count(), w)).collect()
}

/// A status table's speed in Mb/s: `a-40G` (negotiated), `10G`, `2.5G`, `100M`, and NX-OS's
/// unit-less `1000` / `a-1000`, which are Mb/s. `auto`, `unconf`, `--` and `0` (OS10's speed of a
/// down port) give none.
pub(crate) fn speed_mbps(s: &str) -> Option<u64> {
    let s = s.strip_prefix("a-").unwrap_or(s).to_ascii_lowercase();
    let (digits, factor) = match (s.strip_suffix('g'), s.strip_suffix('m')) {
        (Some(d), _) => (d, 1000.0),
        (None, Some(d)) => (d, 1.0),
        (None, None) => (s.as_str(), 1.0),
    };
    let v: f64 = digits.parse().ok().filter(|v: &f64| v.is_finite() && *v > 0.0)?;
    Some((v * factor).round() as u64)
}

/// Ethernet and port-channel ports: management, VLAN, loopback, tunnel and VXLAN interfaces carry
/// no lossless traffic and are left out of the model.
pub(crate) fn is_fabric_port(canonical: &str) -> bool {
    canonical.starts_with("Ethernet") || canonical.starts_with("Port-Channel")
}

/// Sets what a status table says of fabric port `name` (canonical) on `model`, adding the port
/// when the configuration did not list it: the operational speed replaces the configured one
/// (when the table gives one), the link state is set, and the admin state when the table tells.
pub(crate) fn apply_link_state(
    model: &mut SwitchQos,
    name: &str,
    speed_mbps: Option<u64>,
    oper_up: bool,
    admin_up: Option<bool>,
) {
    if !is_fabric_port(name) {
        return;
    }
    let port = model.ports.entry(name.to_string()).or_default();
    if speed_mbps.is_some() {
        port.speed_mbps = speed_mbps;
    }
    port.oper_up = Some(oper_up);
    if admin_up.is_some() {
        port.admin_up = admin_up;
    }
}

/// Sets what each row of a status table says of its fabric port on `model` ([`apply_link_state`]).
pub(crate) fn apply_port_statuses(model: &mut SwitchQos, ports: &[PortStatus]) {
    for p in ports {
        apply_link_state(model, &p.name, p.speed_mbps, p.oper_up, p.admin_up);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speeds_in_every_vendors_notation() {
        assert_eq!(speed_mbps("a-40G"), Some(40_000));
        assert_eq!(speed_mbps("2.5G"), Some(2_500));
        assert_eq!(speed_mbps("100M"), Some(100));
        assert_eq!(speed_mbps("1000"), Some(1_000), "NX-OS prints Mb/s without a unit");
        assert_eq!(speed_mbps("a-1000"), Some(1_000));
        assert_eq!(speed_mbps("400G"), Some(400_000));
        for none in ["auto", "unconf", "--", "0", "", "G"] {
            assert_eq!(speed_mbps(none), None, "{none}");
        }
    }

    #[test]
    fn rows_split_at_the_status_column_or_the_first_status_word() {
        let is = |w: &str| w == "connected" || w == "disabled";
        let r = split_row("Et1    disabled by ops   connected   1", Some(25), is).expect("row");
        assert_eq!(
            (r.port, r.description.as_str(), r.status, r.rest),
            ("Et1", "disabled by ops", "connected", vec!["1"])
        );
        let r = split_row("Et1 x connected 1", Some(40), is).expect("row");
        assert_eq!((r.description.as_str(), r.status), ("x", "connected"));
        assert_eq!(split_row("Et1 up", None, is), None);
        assert_eq!(header_columns("Port  Status"), [(0, "Port"), (6, "Status")]);
    }
}
