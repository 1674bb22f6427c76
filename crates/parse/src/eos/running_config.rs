//! Arista EOS `show running-config`: the QoS-relevant parts, as vendor facts.
//!
//! ```text
//! hostname leaf1
//! qos map dscp 26 to traffic-class 3
//! qos map traffic-class 3 to tx-queue 3
//! qos profile ROCE
//!    qos trust dscp
//!    tx-queue 3
//!       no priority
//!       bandwidth percent 50
//!       random-detect ecn minimum-threshold 320 kbytes maximum-threshold 1 mbytes max-mark-probability 20
//!    priority-flow-control on
//!    priority-flow-control priority 3 no-drop
//! interface Ethernet1/1
//!    mtu 9214
//!    speed forced 400g-8
//!    service-profile ROCE
//! priority-flow-control pause watchdog default timeout 0.05
//! ```
//!
//! Modelled: `hostname`; global `qos map dscp|cos ... to traffic-class`, `qos map traffic-class
//! ... to tx-queue`; `priority-flow-control all off` and the global `priority-flow-control pause
//! watchdog default|action ...` lines; `qos profile` blocks and `interface` blocks (Ethernet and
//! Port-Channel; not sub-interfaces, VLANs, loopbacks or management) with `qos trust
//! dscp|cos`/`no qos trust`, `qos cos`, `qos dscp`, `priority-flow-control on`/`no
//! priority-flow-control` (or the older `priority-flow-control mode on|off`), `priority-flow-control priority N drop|no-drop`, `priority-flow-control
//! pause watchdog [port action|port timer ...]`, `tx-queue N`/`uc-tx-queue N`/`mc-tx-queue N`
//! sub-blocks (`priority strict`, `no priority`, `bandwidth [guaranteed] percent`, `random-detect
//! ecn|drop ... minimum-threshold V UNIT maximum-threshold V UNIT ...`), and on interfaces `mtu`,
//! `l2 mtu`, `speed`, `shutdown`/`no shutdown`, `service-profile`, `description`.
//!
//! Every other line is counted in [`EosConfig::unmodelled_lines`], not warned about; a modelled
//! line that cannot be read is a warning with its line number. Threshold units are converted to
//! bytes here ([`Threshold`]): `bytes`, `kbytes`, `mbytes`; `segments` (buffer cells of a
//! platform-dependent size) and `milliseconds`/`microseconds` (need the port rate) keep no size
//! and warn. Variants seen: AVD-generated configs (`!!` comments inside blocks, `comment` ...
//! `EOF` blocks in interfaces), `banner` bodies, CRLF line ends, and configurations written flat
//! (a config generator's or a document's: `uc-tx-queue 5` and its `random-detect ecn ...` at the
//! same depth), whose queue lines go to the queue above them, as the CLI would take them, with a
//! warning each; a queue line with no queue above it warns and is not read.

use crate::cli_tree::{Node, Threshold, after, malformed, number, numbers, port_name, tree};
use crate::lines::{no_facts, quote};
use crate::{ParseResult, ParseWarning, Parsed};
use serde::Serialize;
use std::collections::BTreeMap;

/// The QoS-relevant facts of one EOS running-config.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct EosConfig {
    /// `hostname`.
    pub hostname: Option<String>,
    /// `qos map dscp D... to traffic-class T`: DSCP → traffic class, as configured (the
    /// platform's default map is not filled in).
    pub dscp_to_tc: BTreeMap<u8, u8>,
    /// `qos map cos C... to traffic-class T`.
    pub cos_to_tc: BTreeMap<u8, u8>,
    /// `qos map traffic-class T... to tx-queue Q`.
    pub tc_to_queue: BTreeMap<u8, u8>,
    /// `priority-flow-control all off`: PFC off on every interface, whatever they say.
    pub pfc_all_off: bool,
    /// The global `priority-flow-control pause watchdog ...` lines.
    pub pfc_watchdog: WatchdogTimers,
    /// `qos profile NAME` blocks by name.
    pub profiles: BTreeMap<String, QosSettings>,
    /// `interface` blocks of Ethernet and Port-Channel interfaces, in input order.
    pub interfaces: Vec<Interface>,
    /// Configuration lines not modelled (counted, not warned about).
    pub unmodelled_lines: usize,
}

/// PFC watchdog timers and action (global `default ...` lines, or a profile's/interface's `port
/// timer` and `port action`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct WatchdogTimers {
    /// `timeout` in seconds: how long a queue may stay paused before it counts as stuck.
    pub timeout_s: Option<f64>,
    /// `recovery-time` in seconds.
    pub recovery_time_s: Option<f64>,
    /// `polling-interval` in seconds (`auto`: `None`).
    pub polling_interval_s: Option<f64>,
    /// `action`: `drop`, `no-drop`, `notify-only` ... as configured.
    pub action: Option<String>,
}

/// QoS settings that a `qos profile` and an `interface` share (an interface's own settings win
/// over those of its `service-profile`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct QosSettings {
    /// `qos trust dscp` / `qos trust cos` give `dscp` / `cos`; `no qos trust` gives `untrusted`.
    pub trust: Option<String>,
    /// `qos cos N`: the CoS of untagged or untrusted traffic.
    pub default_cos: Option<u8>,
    /// `qos dscp N`: the DSCP of untrusted traffic.
    pub default_dscp: Option<u8>,
    /// `priority-flow-control on` (true) / `no priority-flow-control` (false).
    pub pfc: Option<bool>,
    /// `priority-flow-control priority N no-drop` (true) / `... drop` (false), by priority.
    pub pfc_no_drop: BTreeMap<u8, bool>,
    /// `priority-flow-control pause watchdog` (true) / `no priority-flow-control pause
    /// watchdog` (false).
    pub pfc_watchdog: Option<bool>,
    /// `priority-flow-control pause watchdog port timer|action ...`.
    pub pfc_watchdog_port: WatchdogTimers,
    /// `tx-queue N` and `uc-tx-queue N` blocks (unicast queues), by queue.
    pub tx_queues: BTreeMap<u8, TxQueue>,
    /// `mc-tx-queue N` blocks (multicast queues), by queue.
    pub mc_tx_queues: BTreeMap<u8, TxQueue>,
    /// `service-policy type qos input NAME`.
    pub service_policy: Option<String>,
}

/// One transmit queue's configuration.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TxQueue {
    /// `priority strict` (true) / `no priority`, round robin (false).
    pub strict: Option<bool>,
    /// `bandwidth percent N`: the queue's round-robin share.
    pub bandwidth_percent: Option<u32>,
    /// `bandwidth guaranteed percent N`: a minimum rate, not a round-robin share.
    pub bandwidth_guaranteed_percent: Option<u32>,
    /// `random-detect ecn minimum-threshold ... maximum-threshold ...`.
    pub ecn: Option<Wred>,
    /// `random-detect drop minimum-threshold ...` (WRED dropping, without drop-precedence).
    pub wred_drop: Option<Wred>,
    /// `random-detect ecn count`: ECN marks are counted.
    pub ecn_count: bool,
}

/// WRED/ECN thresholds of a queue.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Wred {
    /// `minimum-threshold`.
    pub min: Threshold,
    /// `maximum-threshold`.
    pub max: Threshold,
    /// `max-mark-probability` (ECN) or `drop-probability` (drop), percent.
    pub probability_percent: Option<u32>,
    /// `weight`.
    pub weight: Option<u32>,
}

/// One `interface` block.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Interface {
    /// The name as configured (`Ethernet1/1`, `Port-Channel3`).
    pub name: String,
    /// `description`.
    pub description: Option<String>,
    /// `service-profile NAME`: the `qos profile` applied.
    pub service_profile: Option<String>,
    /// The interface's own QoS lines.
    pub qos: QosSettings,
    /// `mtu N` (layer-3 MTU).
    pub mtu: Option<u32>,
    /// `l2 mtu N` (largest frame a switchport takes).
    pub l2_mtu: Option<u32>,
    /// `speed ...` as configured (`forced 100gfull`, `400g-8`, `auto`).
    pub speed: Option<String>,
    /// The configured speed in Mb/s (`None` for `auto` or when absent).
    pub speed_mbps: Option<u64>,
    /// `shutdown` (true) / `no shutdown` (false).
    pub shutdown: Option<bool>,
}

/// Parses `show running-config` of Arista EOS.
///
/// # Errors
/// Empty input, or input in which no line is EOS configuration fabcheck knows (`hostname`,
/// `interface`, `qos`, `priority-flow-control` ...).
pub fn parse(text: &str) -> ParseResult<EosConfig> {
    let tree = tree(text);
    let mut cfg = EosConfig::default();
    let mut w = Vec::new();
    let mut known = 0;
    for node in &tree.roots {
        let words = node.words();
        if top_level(node, &words, &mut cfg, &mut w) {
            known += 1;
        } else {
            cfg.unmodelled_lines += node.size();
        }
    }
    cfg.unmodelled_lines += tree.banner_lines;
    undefined_profiles(&tree.roots, &cfg, &mut w);
    if known == 0 {
        return Err(no_facts(
            text,
            "empty running-config",
            "no EOS configuration line fabcheck knows (hostname, interface, qos ...): not an EOS running-config",
        ));
    }
    if let Some(n) = tree.cut_line {
        w.push(ParseWarning::at(n, "no line end after the last line: the output may be cut off"));
    }
    w.sort_by_key(|w| w.line);
    Ok(Parsed { value: cfg, warnings: w })
}

/// A warning for each `service-profile` that names no `qos profile` of this configuration: the
/// port's QoS then cannot be known from it.
fn undefined_profiles(roots: &[Node<'_>], cfg: &EosConfig, w: &mut Vec<ParseWarning>) {
    let interfaces = roots.iter().filter(|n| n.text.starts_with("interface "));
    for child in interfaces.flat_map(|n| &n.children) {
        if let ["service-profile", name] = child.words().as_slice()
            && !cfg.profiles.contains_key(*name)
        {
            let message = format!(
                "service-profile `{name}` names no `qos profile` of this configuration: the QoS it gives is unknown"
            );
            w.push(ParseWarning::at(child.n, message));
        }
    }
}

/// Reads one top-level line; false when it is not one fabcheck models (the caller counts it).
fn top_level(node: &Node<'_>, words: &[&str], cfg: &mut EosConfig, w: &mut Vec<ParseWarning>) -> bool {
    match words {
        ["hostname", name] => cfg.hostname = Some((*name).to_string()),
        ["qos", "map", "dscp" | "cos" | "traffic-class", ..] => {
            return qos_map(node, words, cfg, w);
        }
        ["qos", "profile", name] => {
            let mut settings = QosSettings::default();
            cfg.unmodelled_lines += block(&node.children, &mut settings, None, w);
            cfg.profiles.insert((*name).to_string(), settings);
        }
        ["interface", rest @ ..] if port_name(rest).is_some() => {
            let mut iface = Interface { name: port_name(rest).unwrap_or_default(), ..Interface::default() };
            let mut qos = QosSettings::default();
            cfg.unmodelled_lines += block(&node.children, &mut qos, Some(&mut iface), w);
            iface.qos = qos;
            cfg.interfaces.push(iface);
        }
        // Other interfaces (management, VLAN, loopback, sub-interfaces) are known but not modelled.
        ["interface", ..] => cfg.unmodelled_lines += node.size(),
        ["priority-flow-control", "all", "off"] => cfg.pfc_all_off = true,
        ["priority-flow-control", "pause", "watchdog", "default", rest @ ..] => {
            if !timers(rest, &mut cfg.pfc_watchdog) {
                w.push(malformed(node.n, node.text));
            }
        }
        ["priority-flow-control", "pause", "watchdog", "action", action] => {
            cfg.pfc_watchdog.action = Some((*action).to_string());
        }
        ["priority-flow-control", ..] => w.push(malformed(node.n, node.text)),
        _ => return false,
    }
    cfg.unmodelled_lines += children_of_leaf(node, words);
    true
}

/// Lines under a top-level line that has no block of its own (none, normally).
fn children_of_leaf(node: &Node<'_>, words: &[&str]) -> usize {
    match words {
        ["qos", "profile", _] | ["interface", ..] => 0,
        _ => node.size() - 1,
    }
}

/// `qos map dscp|cos V... to traffic-class T [drop-precedence D]`, `qos map traffic-class T...
/// to tx-queue Q`; other `qos map` forms (rewrite maps, `exp`) are counted.
fn qos_map(node: &Node<'_>, words: &[&str], cfg: &mut EosConfig, w: &mut Vec<ParseWarning>) -> bool {
    let Some(to) = words.iter().position(|x| *x == "to") else {
        w.push(malformed(node.n, node.text));
        return true;
    };
    let (from, target) = (&words[3..to], &words[to + 1..]);
    let (map, max) = match (words[2], target.first().copied()) {
        ("dscp", Some("traffic-class")) => (&mut cfg.dscp_to_tc, 63),
        ("cos", Some("traffic-class")) => (&mut cfg.cos_to_tc, 7),
        ("traffic-class", Some("tx-queue")) => (&mut cfg.tc_to_queue, 15),
        // `qos map traffic-class ... to dscp|cos`: rewrite maps, not classification.
        _ => {
            cfg.unmodelled_lines += node.size();
            return true;
        }
    };
    match (numbers(from, max), number(target.get(1), 15)) {
        (Some(keys), Some(value)) => {
            for k in keys {
                map.insert(k, value as u8);
            }
        }
        _ => w.push(malformed(node.n, node.text)),
    }
    true
}

/// Reads the lines of a `qos profile` or `interface` block; returns how many were not modelled.
fn block(
    nodes: &[Node<'_>],
    qos: &mut QosSettings,
    mut iface: Option<&mut Interface>,
    w: &mut Vec<ParseWarning>,
) -> usize {
    let mut unmodelled = 0;
    // The last `tx-queue N` block: EOS's CLI stays in a queue's mode until a line it does not
    // take, so a configuration pasted flat (queue lines at the interface's depth, as generators
    // and documents write it) still configures that queue.
    let mut last_queue: Option<(&str, u8)> = None;
    for node in nodes {
        let words = node.words();
        let bad = |w: &mut Vec<ParseWarning>| w.push(malformed(node.n, node.text));
        if queue_line(&words) {
            match last_queue {
                Some((kind, q)) => {
                    let queues = if kind == "mc-tx-queue" { &mut qos.mc_tx_queues } else { &mut qos.tx_queues };
                    unmodelled += tx_queue(std::slice::from_ref(node), queues.entry(q).or_default(), w);
                    w.push(ParseWarning::at(
                        node.n,
                        quote(
                            &format!("queue line at the block's depth, read as part of `{kind} {q}` above it"),
                            node.text,
                        ),
                    ));
                }
                None => w.push(ParseWarning::at(
                    node.n,
                    quote("queue line outside any `tx-queue N` block, not read", node.text),
                )),
            }
            continue;
        }
        // Any other line takes the CLI out of the queue's mode.
        last_queue = None;
        match words.as_slice() {
            ["qos", "trust", mode @ ("dscp" | "cos")] => qos.trust = Some((*mode).to_string()),
            ["no", "qos", "trust"] => qos.trust = Some("untrusted".to_string()),
            ["qos", "trust", ..] => bad(w),
            ["qos", "cos", v] => match number(Some(v), 7) {
                Some(v) => qos.default_cos = Some(v as u8),
                None => bad(w),
            },
            ["qos", "dscp", v] => match number(Some(v), 63) {
                Some(v) => qos.default_dscp = Some(v as u8),
                None => bad(w),
            },
            ["service-policy", "type", "qos", "input", name] => {
                qos.service_policy = Some((*name).to_string());
            }
            // `priority-flow-control mode on|off` is the older form of the same switch.
            ["priority-flow-control", "on"] | ["priority-flow-control", "mode", "on"] => qos.pfc = Some(true),
            ["no", "priority-flow-control"] | ["priority-flow-control", "mode", "off"] => qos.pfc = Some(false),
            ["priority-flow-control", "priority", p, mode @ ("drop" | "no-drop")] => match number(Some(p), 7) {
                Some(p) => {
                    qos.pfc_no_drop.insert(p as u8, *mode == "no-drop");
                }
                None => bad(w),
            },
            // `show running-config all` states the defaults: a priority that is not no-drop.
            ["no", "priority-flow-control", "priority", p] => match number(Some(p), 7) {
                Some(p) => {
                    qos.pfc_no_drop.entry(p as u8).or_insert(false);
                }
                None => bad(w),
            },
            // ... and a watchdog port action or timer left at its default.
            ["no", "priority-flow-control", "pause", "watchdog", "port", "action" | "timer"] => {}
            ["priority-flow-control", "pause", "watchdog"] => qos.pfc_watchdog = Some(true),
            ["no", "priority-flow-control", "pause", "watchdog"] => qos.pfc_watchdog = Some(false),
            ["priority-flow-control", "pause", "watchdog", "port", "action", action] => {
                qos.pfc_watchdog_port.action = Some((*action).to_string());
            }
            ["priority-flow-control", "pause", "watchdog", "port", "timer", rest @ ..] => {
                if !timers(rest, &mut qos.pfc_watchdog_port) {
                    bad(w);
                }
            }
            ["priority-flow-control", ..] | ["no", "priority-flow-control", ..] => bad(w),
            [kind @ ("tx-queue" | "uc-tx-queue" | "mc-tx-queue"), q] => match number(Some(q), 15) {
                Some(q) => {
                    let queues = if *kind == "mc-tx-queue" { &mut qos.mc_tx_queues } else { &mut qos.tx_queues };
                    unmodelled += tx_queue(&node.children, queues.entry(q as u8).or_default(), w);
                    last_queue = Some((*kind, q as u8));
                }
                None => {
                    bad(w);
                    unmodelled += node.size() - 1;
                }
            },
            _ => {
                let used = match iface.as_deref_mut() {
                    Some(iface) => interface_line(node, &words, iface, w),
                    None => false,
                };
                if !used {
                    unmodelled += node.size();
                    continue;
                }
            }
        }
        if !matches!(words.first(), Some(&"tx-queue" | &"uc-tx-queue" | &"mc-tx-queue")) {
            unmodelled += node.size() - 1;
        }
    }
    unmodelled
}

/// The lines only interfaces have; false when the line is none of them.
fn interface_line(node: &Node<'_>, words: &[&str], iface: &mut Interface, w: &mut Vec<ParseWarning>) -> bool {
    match words {
        ["description", ..] => iface.description = Some(node.text["description".len()..].trim().to_string()),
        ["service-profile", name] => iface.service_profile = Some((*name).to_string()),
        ["mtu", v] => match number(Some(v), 65_535) {
            Some(v) => iface.mtu = Some(v),
            None => w.push(malformed(node.n, node.text)),
        },
        ["l2", "mtu", v] => match number(Some(v), 65_535) {
            Some(v) => iface.l2_mtu = Some(v),
            None => w.push(malformed(node.n, node.text)),
        },
        ["speed", rest @ ..] => {
            iface.speed = Some(rest.join(" "));
            match speed_mbps(rest) {
                Ok(mbps) => iface.speed_mbps = mbps,
                Err(()) => w.push(malformed(node.n, node.text)),
            }
        }
        ["shutdown"] => iface.shutdown = Some(true),
        ["no", "shutdown"] => iface.shutdown = Some(false),
        _ => return false,
    }
    true
}

/// `speed [forced|auto] 100gfull|400g-8|10000full|auto` in Mb/s: `Ok(None)` for auto-negotiation
/// without a speed, `Err` when unreadable.
pub(crate) fn speed_mbps(words: &[&str]) -> Result<Option<u64>, ()> {
    let value = match words {
        ["auto"] | [] => return Ok(None),
        ["forced" | "auto", v] | [v] => *v,
        _ => return Err(()),
    };
    let lower = value.to_ascii_lowercase();
    let base = lower.split('-').next().unwrap_or_default();
    let base = base.trim_end_matches("full").trim_end_matches("half");
    let (digits, factor) = match base.strip_suffix('g') {
        Some(d) => (d, 1000.0),
        None => (base.strip_suffix('m').unwrap_or(base), 1.0),
    };
    let v: f64 = digits.parse().map_err(|_| ())?;
    if !v.is_finite() || v <= 0.0 {
        return Err(());
    }
    Ok(Some((v * factor).round() as u64))
}

/// A line only a `tx-queue N` block takes (ECN and WRED, strict priority or not, bandwidth).
fn queue_line(words: &[&str]) -> bool {
    matches!(
        words,
        ["random-detect", ..]
            | ["priority", "strict"]
            | ["no", "priority"]
            | ["bandwidth", "percent" | "guaranteed", ..]
    )
}

/// The lines of a `tx-queue N` block; returns how many were not modelled.
fn tx_queue(nodes: &[Node<'_>], q: &mut TxQueue, w: &mut Vec<ParseWarning>) -> usize {
    let mut unmodelled = 0;
    for node in nodes {
        let words = node.words();
        let bad = |w: &mut Vec<ParseWarning>| w.push(malformed(node.n, node.text));
        match words.as_slice() {
            ["priority", "strict"] => q.strict = Some(true),
            ["no", "priority"] => q.strict = Some(false),
            ["bandwidth", "percent", v] => match number(Some(v), 100) {
                Some(v) => q.bandwidth_percent = Some(v),
                None => bad(w),
            },
            ["bandwidth", "guaranteed", "percent", v] => match number(Some(v), 100) {
                Some(v) => q.bandwidth_guaranteed_percent = Some(v),
                None => bad(w),
            },
            ["random-detect", "ecn", "count"] => q.ecn_count = true,
            ["random-detect", "ecn", rest @ ..] => match wred(rest, "max-mark-probability", node.n, w) {
                Some(x) => q.ecn = Some(x),
                None => bad(w),
            },
            // Per-colour dropping (`drop-precedence N`) is not modelled.
            ["random-detect", "drop", "drop-precedence", ..] => unmodelled += 1,
            ["random-detect", "drop", rest @ ..] => match wred(rest, "drop-probability", node.n, w) {
                Some(x) => q.wred_drop = Some(x),
                None => bad(w),
            },
            ["random-detect", ..] | ["priority", ..] | ["bandwidth", "percent" | "guaranteed", ..] => bad(w),
            _ => unmodelled += 1,
        }
        unmodelled += node.size() - 1;
    }
    unmodelled
}

/// `minimum-threshold V UNIT maximum-threshold V UNIT [PROBABILITY_KEY P] [weight W]`.
pub(crate) fn wred(words: &[&str], probability_key: &str, n: usize, w: &mut Vec<ParseWarning>) -> Option<Wred> {
    let min = after(words, "minimum-threshold");
    let max = after(words, "maximum-threshold");
    let min = Threshold::read("minimum-threshold", min.first()?, unit_of(min), n, w)?;
    let max = Threshold::read("maximum-threshold", max.first()?, unit_of(max), n, w)?;
    let optional = |key: &str, limit: u32| -> Result<Option<u32>, ()> {
        let rest = after(words, key);
        if words.contains(&key) { number(rest.first(), limit).map(Some).ok_or(()) } else { Ok(None) }
    };
    Some(Wred {
        min,
        max,
        probability_percent: optional(probability_key, 100).ok()?,
        weight: optional("weight", 255).ok()?,
    })
}

/// The unit word after a threshold's number, or `""` when the next word is another keyword.
fn unit_of<'a>(words: &[&'a str]) -> &'a str {
    match words.get(1) {
        Some(u) if u.chars().all(|c| c.is_ascii_alphabetic()) && !KEYWORDS.contains(u) => u,
        _ => "",
    }
}

const KEYWORDS: [&str; 6] =
    ["maximum-threshold", "minimum-threshold", "max-mark-probability", "drop-probability", "weight", "ecn"];

/// `timeout T`, `recovery-time R [forced]`, `polling-interval P|auto` in any order.
fn timers(words: &[&str], t: &mut WatchdogTimers) -> bool {
    let mut i = 0;
    while i < words.len() {
        let value = words.get(i + 1).copied();
        let seconds = value.and_then(|v| v.parse::<f64>().ok()).filter(|v| v.is_finite() && *v >= 0.0);
        match (words[i], seconds) {
            ("timeout", Some(s)) => t.timeout_s = Some(s),
            ("recovery-time", Some(s)) => t.recovery_time_s = Some(s),
            ("polling-interval", Some(s)) => t.polling_interval_s = Some(s),
            ("polling-interval", None) if value == Some("auto") => {}
            ("forced", _) => {
                i += 1;
                continue;
            }
            _ => return false,
        }
        i += 2;
    }
    !words.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    const QOS: &str = include_str!("../../tests/fixtures/eos/arista-eos-avd-molecule-qos.cfg");
    const INTERFACES: &str =
        include_str!("../../tests/fixtures/eos/arista-eos-avd-molecule-ethernet-interfaces-pfc.cfg");

    #[test]
    fn speeds() {
        assert_eq!(speed_mbps(&["forced", "100gfull"]), Ok(Some(100_000)));
        assert_eq!(speed_mbps(&["400g-8"]), Ok(Some(400_000)));
        assert_eq!(speed_mbps(&["forced", "10000full"]), Ok(Some(10_000)));
        assert_eq!(speed_mbps(&["auto", "25gfull"]), Ok(Some(25_000)));
        assert_eq!(speed_mbps(&["auto"]), Ok(None));
        assert_eq!(speed_mbps(&["sdfg"]), Err(()));
    }

    #[test]
    fn malformed_qos_lines_warn_with_their_numbers_others_are_counted() {
        let text = "hostname x\nqos map dscp 99 to traffic-class 3\nqos profile P\n   tx-queue 3\n      random-detect ecn minimum-threshold x kbytes maximum-threshold 1 mbytes\n      shape rate 5 percent\n   priority-flow-control priority 9 no-drop\nrouter bgp 1\n   neighbor x\ninterface Ethernet1\n   mtu big\n   switchport\n";
        let parsed = parse(text).expect("parses");
        let lines: Vec<usize> = parsed.warnings.iter().map(|w| w.line).collect();
        assert_eq!(lines, [2, 5, 7, 11]);
        // `shape rate`, `router bgp` + its child, `switchport`.
        assert_eq!(parsed.value.unmodelled_lines, 4);
    }

    #[test]
    fn queue_lines_pasted_flat_go_to_the_queue_above_them() {
        // As config generators write it: the queue's lines at the interface's depth.
        let text = "interface Ethernet22/1\n    uc-tx-queue 5\n    random-detect ecn minimum-threshold 222 kbytes maximum-threshold 2000 kbytes max-mark-probability 1 weight 0\n    random-detect ecn count\ninterface Ethernet17/1\n    random-detect ecn delay threshold 3 milliseconds\n";
        let parsed = parse(text).expect("parses");
        let iface = &parsed.value.interfaces[0];
        let q5 = &iface.qos.tx_queues[&5];
        let ecn = q5.ecn.as_ref().expect("ECN read into queue 5");
        assert_eq!((ecn.min.value, ecn.min.unit.as_str(), ecn.max.value), (222.0, "kbytes", 2000.0));
        assert_eq!((ecn.probability_percent, ecn.weight), (Some(1), Some(0)));
        assert!(q5.ecn_count);
        let lines: Vec<(usize, bool)> =
            parsed.warnings.iter().map(|w| (w.line, w.message.contains("read as part of `uc-tx-queue 5`"))).collect();
        assert_eq!(lines, [(3, true), (4, true), (6, false)], "{:?}", parsed.warnings);
        assert!(parsed.warnings[2].message.contains("outside any `tx-queue N` block"));
        assert!(parsed.value.interfaces[1].qos.tx_queues.is_empty());
        // Another line in between takes the CLI back to the interface: not queue 3's.
        let text = "interface Ethernet1\n   uc-tx-queue 3\n   priority-flow-control on\n   random-detect ecn minimum-threshold 1 mbytes maximum-threshold 2 mbytes\n";
        let parsed = parse(text).expect("parses");
        assert_eq!(parsed.value.interfaces[0].qos.tx_queues[&3].ecn, None);
        assert!(parsed.warnings[0].message.contains("outside any `tx-queue N` block"), "{:?}", parsed.warnings);
    }

    #[test]
    fn older_pfc_mode_syntax() {
        let text =
            "interface Ethernet1\n   priority-flow-control mode on\n   priority-flow-control priority 3 no-drop\n";
        let cfg = parse(text).expect("parses").value;
        assert_eq!(cfg.interfaces[0].qos.pfc, Some(true));
        let model = crate::eos::convert::to_model(&cfg);
        assert_eq!(model.ports["Ethernet1"].lossless_priorities, Some(vec![3]));
    }

    #[test]
    fn time_thresholds_keep_no_bytes() {
        let text = "qos profile P\n   tx-queue 1\n      random-detect ecn minimum-threshold 3 milliseconds maximum-threshold 9 milliseconds\n";
        let parsed = parse(text).expect("parses");
        let ecn = parsed.value.profiles["P"].tx_queues[&1].ecn.clone().expect("ecn");
        assert_eq!((ecn.min.bytes, ecn.max.bytes, ecn.min.value), (None, None, 3.0));
        assert_eq!(parsed.warnings.len(), 2);
    }

    #[test]
    fn empty_and_foreign_text_are_errors() {
        assert!(parse("").is_err());
        assert!(parse("hello\nworld\n").is_err());
        assert!(parse("{\"a\": 1}").is_err());
    }

    crate::lines::parser_never_panics!(parse, [QOS, INTERFACES]);
}
