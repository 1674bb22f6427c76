//! Dell OS10 `show running-configuration`: the QoS parts, as vendor facts.
//!
//! ```text
//! wred ecn
//!   random-detect color green minimum-threshold 150 maximum-threshold 1500 drop-probability 100
//!   random-detect ecn
//! class-map type network-qos AZLOCAL_COS3
//!   match qos-group 3
//! class-map type queuing AZLOCAL_QUEUE3
//!   match queue 3
//! trust dot1p-map AZLOCAL_DOT1P_TRUST
//!   qos-group 3 dot1p 3
//! qos-map traffic-class AZLOCAL_QOS_MAP
//!   queue 3 qos-group 3
//! policy-map type network-qos AZLOCAL_PFC
//!   class AZLOCAL_COS3
//!     pause
//!     pfc-cos 3
//! policy-map type queuing AZLOCAL_ETS
//!   class AZLOCAL_QUEUE3
//!     bandwidth percent 50
//!     random-detect ecn
//! system qos
//!   trust-map dot1p AZLOCAL_DOT1P_TRUST
//!   ets mode on
//! ```
//!
//! Note the two meanings of `random-detect ecn`: inside a `wred` profile it switches ECN marking
//! on; inside a queuing class it attaches the WRED profile named `ecn`.
//!
//! Modelled: `hostname`; `wred NAME` with `random-detect color C minimum-threshold A
//! maximum-threshold B drop-probability P` (thresholds in KB per Dell's OS10 command reference
//! range 1-12480, converted with 1 KB = 1024 bytes) and `random-detect ecn`; `class-map type
//! network-qos|queuing|qos` with `match qos-group|queue|cos|dscp`; `trust dot1p-map|dscp-map`
//! (`qos-group G dot1p|dscp LIST`); `qos-map traffic-class` (`queue Q qos-group LIST`); `policy-map
//! type network-qos` classes with `pause` and `pfc-cos`; `policy-map type queuing` classes with
//! `bandwidth percent`, `priority` and `random-detect PROFILE`; `system qos` and Ethernet and
//! port-channel interfaces with `trust-map`, `qos-map traffic-class`, `service-policy
//! input|output type network-qos|queuing`, `ets mode on`, `priority-flow-control mode on`, `mtu`,
//! `speed`, `shutdown`, `description`. Everything else is counted in
//! [`DellConfig::unmodelled_lines`]; modelled lines that cannot be read warn.

use crate::cli_tree::{
    Named, Node, Threshold, after, class_map_match, classes, each_child, malformed, number, numbers, port_line,
    port_name, range_block, read_config,
};
use crate::{ParseResult, ParseWarning};
use serde::Serialize;
use std::collections::BTreeMap;

/// The QoS-relevant facts of one OS10 running-configuration.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DellConfig {
    /// `hostname`.
    pub hostname: Option<String>,
    /// `wred NAME` profiles by name.
    pub wred_profiles: BTreeMap<String, WredProfile>,
    /// `class-map type ... NAME` by name.
    pub class_maps: BTreeMap<String, ClassMap>,
    /// `trust dot1p-map NAME`: dot1p (PCP) → qos-group, by map name.
    pub dot1p_trust_maps: BTreeMap<String, BTreeMap<u8, u8>>,
    /// `trust dscp-map NAME`: DSCP → qos-group, by map name.
    pub dscp_trust_maps: BTreeMap<String, BTreeMap<u8, u8>>,
    /// `qos-map traffic-class NAME`: qos-group → queue, by map name.
    pub traffic_class_maps: BTreeMap<String, BTreeMap<u8, u8>>,
    /// `policy-map type network-qos NAME`: pause (PFC) per class, by name.
    pub network_qos_policies: BTreeMap<String, Vec<PfcClass>>,
    /// `policy-map type queuing NAME`: scheduling and WRED per class, by name.
    pub queuing_policies: BTreeMap<String, Vec<EtsClass>>,
    /// What `system qos` attaches device-wide.
    pub system_qos: QosAttachments,
    /// Ethernet and port-channel interfaces in input order.
    pub interfaces: Vec<DellInterface>,
    /// Configuration lines not modelled (counted, not warned about).
    pub unmodelled_lines: usize,
}

/// A `wred` profile.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct WredProfile {
    /// Thresholds per colour (`green`, `yellow`, `red`).
    pub colors: BTreeMap<String, ColorThresholds>,
    /// `random-detect ecn`: ECN-capable packets are marked instead of dropped.
    pub ecn: bool,
}

/// One colour's WRED thresholds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ColorThresholds {
    /// `minimum-threshold` (KB).
    pub min: Threshold,
    /// `maximum-threshold` (KB).
    pub max: Threshold,
    /// `drop-probability` (percent).
    pub drop_probability: Option<u32>,
}

/// A class map's match criteria.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ClassMap {
    /// `network-qos`, `queuing` or `qos`.
    pub kind: String,
    /// `match qos-group ...`.
    pub qos_groups: Vec<u8>,
    /// `match queue ...`.
    pub queues: Vec<u8>,
    /// `match cos ...`.
    pub cos: Vec<u8>,
    /// `match dscp ...`.
    pub dscp: Vec<u8>,
}

/// A class of a `policy-map type network-qos`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PfcClass {
    /// The class map's name.
    pub class: String,
    /// `pause [...]`: the class is lossless.
    pub pause: bool,
    /// `pfc-cos N...`: the priorities PFC pauses.
    pub pfc_cos: Vec<u8>,
}

/// A class of a `policy-map type queuing`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct EtsClass {
    /// The class map's name.
    pub class: String,
    /// `bandwidth percent N`.
    pub bandwidth_percent: Option<u32>,
    /// `priority`: strict priority.
    pub priority: bool,
    /// `random-detect NAME`: the `wred` profile applied.
    pub wred_profile: Option<String>,
}

/// QoS maps and policies attached to `system qos` or to an interface.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct QosAttachments {
    /// `trust-map dot1p NAME`.
    pub trust_dot1p_map: Option<String>,
    /// `trust-map dscp NAME`.
    pub trust_dscp_map: Option<String>,
    /// `qos-map traffic-class NAME`.
    pub traffic_class_map: Option<String>,
    /// `service-policy input type network-qos NAME`.
    pub network_qos: Option<String>,
    /// `service-policy output type queuing NAME`.
    pub queuing: Option<String>,
    /// `ets mode on`.
    pub ets: Option<bool>,
}

/// One Ethernet or port-channel interface.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DellInterface {
    /// The name as configured (`ethernet1/1/1`, `port-channel10`).
    pub name: String,
    /// `description`.
    pub description: Option<String>,
    /// `priority-flow-control mode on` (true) / `no priority-flow-control mode` (false).
    pub pfc_mode: Option<bool>,
    /// Maps and policies attached to the interface.
    pub attachments: QosAttachments,
    /// `mtu N`.
    pub mtu: Option<u32>,
    /// `speed N` in Mb/s (`auto`: `None`).
    pub speed_mbps: Option<u64>,
    /// `shutdown` (true) / `no shutdown` (false).
    pub shutdown: Option<bool>,
}

impl Named for PfcClass {
    fn set_name(&mut self, name: &str) {
        self.class = name.to_string();
    }
}

impl Named for EtsClass {
    fn set_name(&mut self, name: &str) {
        self.class = name.to_string();
    }
}

/// Parses `show running-configuration` of Dell OS10 (or a QoS section of it).
///
/// # Errors
/// Empty input, or no line that is OS10 configuration fabcheck knows.
pub fn parse(text: &str) -> ParseResult<DellConfig> {
    read_config(
        text,
        top_level,
        |cfg: &mut DellConfig| &mut cfg.unmodelled_lines,
        "empty running-configuration",
        "no OS10 configuration line fabcheck knows (hostname, interface, wred, policy-map ...): not an OS10 running-configuration",
    )
}

fn top_level(node: &Node<'_>, cfg: &mut DellConfig, w: &mut Vec<ParseWarning>) -> Option<usize> {
    let words = node.words();
    let mut unmodelled = 0;
    match words.as_slice() {
        ["hostname", name] => cfg.hostname = Some((*name).to_string()),
        ["wred", name] => {
            let mut profile = WredProfile::default();
            each_child(node, &mut unmodelled, |line| wred_line(&mut profile, line, w));
            cfg.wred_profiles.insert((*name).to_string(), profile);
        }
        ["class-map", "type", kind @ ("network-qos" | "queuing" | "qos"), .., name] => {
            let mut cm = ClassMap { kind: (*kind).to_string(), ..ClassMap::default() };
            each_child(node, &mut unmodelled, |line| {
                class_map_match(line, w, |kind| match kind {
                    "qos-group" => Some((&mut cm.qos_groups, 7)),
                    "queue" => Some((&mut cm.queues, 7)),
                    "cos" => Some((&mut cm.cos, 7)),
                    "dscp" => Some((&mut cm.dscp, 63)),
                    _ => None,
                })
            });
            cfg.class_maps.insert((*name).to_string(), cm);
        }
        ["trust", kind @ ("dot1p-map" | "dscp-map"), name] => {
            let (key, max) = if *kind == "dot1p-map" { ("dot1p", 7) } else { ("dscp", 63) };
            let mut map = BTreeMap::new();
            each_child(node, &mut unmodelled, |line| {
                let lw = line.words();
                let ["qos-group", group, k, ..] = lw.as_slice() else {
                    return false;
                };
                match (number(Some(group), 7), *k == key, numbers(&lw[3..], max)) {
                    (Some(g), true, Some(values)) => values.into_iter().for_each(|v| {
                        map.insert(v, g as u8);
                    }),
                    _ => w.push(malformed(line.n, line.text)),
                }
                true
            });
            let maps = if *kind == "dot1p-map" { &mut cfg.dot1p_trust_maps } else { &mut cfg.dscp_trust_maps };
            maps.insert((*name).to_string(), map);
        }
        ["qos-map", "traffic-class", name] => {
            let mut map = BTreeMap::new();
            each_child(node, &mut unmodelled, |line| {
                let lw = line.words();
                let ["queue", q, "qos-group", ..] = lw.as_slice() else {
                    return false;
                };
                match (number(Some(q), 7), numbers(&lw[3..], 7)) {
                    (Some(q), Some(groups)) => groups.into_iter().for_each(|g| {
                        map.insert(g, q as u8);
                    }),
                    _ => w.push(malformed(line.n, line.text)),
                }
                true
            });
            cfg.traffic_class_maps.insert((*name).to_string(), map);
        }
        ["policy-map", "type", "network-qos", name] => {
            let classes = classes(node, &mut unmodelled, pfc_line, w);
            cfg.network_qos_policies.insert((*name).to_string(), classes);
        }
        ["policy-map", "type", "queuing", name] => {
            let classes = classes(node, &mut unmodelled, ets_line, w);
            cfg.queuing_policies.insert((*name).to_string(), classes);
        }
        ["system", "qos"] => {
            each_child(node, &mut unmodelled, |line| attachment(line, &mut cfg.system_qos, w));
        }
        ["interface", "range", rest @ ..] => {
            // Laid over each port it names.
            if let Some((names, block)) = range_block(node, rest, &mut unmodelled, w, interface_line) {
                for name in names {
                    cfg.add_interface(DellInterface { name, ..block.clone() });
                }
            }
        }
        ["interface", rest @ ..] => match port_name(rest) {
            Some(name) => {
                let mut iface = DellInterface { name, ..DellInterface::default() };
                each_child(node, &mut unmodelled, |line| interface_line(line, &mut iface, w));
                cfg.add_interface(iface);
            }
            None => unmodelled += node.size(),
        },
        _ => return None,
    }
    Some(unmodelled)
}

impl DellConfig {
    /// A port's block: laid over an earlier block of the same port (`interface range` blocks
    /// overlap each other and single ports), whose settings it overrides where it states them.
    fn add_interface(&mut self, iface: DellInterface) {
        match self.interfaces.iter_mut().find(|i| i.name.eq_ignore_ascii_case(&iface.name)) {
            Some(existing) => existing.overlay(&iface),
            None => self.interfaces.push(iface),
        }
    }
}

impl DellInterface {
    /// What a later block states wins; what it does not state stays.
    fn overlay(&mut self, block: &DellInterface) {
        let a = &block.attachments;
        let mine = &mut self.attachments;
        for (to, from) in [
            (&mut mine.trust_dot1p_map, &a.trust_dot1p_map),
            (&mut mine.trust_dscp_map, &a.trust_dscp_map),
            (&mut mine.traffic_class_map, &a.traffic_class_map),
            (&mut mine.network_qos, &a.network_qos),
            (&mut mine.queuing, &a.queuing),
            (&mut self.description, &block.description),
        ] {
            if from.is_some() {
                to.clone_from(from);
            }
        }
        mine.ets = a.ets.or(mine.ets);
        self.pfc_mode = block.pfc_mode.or(self.pfc_mode);
        self.mtu = block.mtu.or(self.mtu);
        self.speed_mbps = block.speed_mbps.or(self.speed_mbps);
        self.shutdown = block.shutdown.or(self.shutdown);
    }
}

fn wred_line(p: &mut WredProfile, line: &Node<'_>, w: &mut Vec<ParseWarning>) -> bool {
    let words = line.words();
    match words.as_slice() {
        ["random-detect", "ecn"] => p.ecn = true,
        ["random-detect", "color", color, rest @ ..] => {
            let min = after(rest, "minimum-threshold");
            let max = after(rest, "maximum-threshold");
            let read =
                |what: &str, t: &[&str], w: &mut Vec<ParseWarning>| Threshold::read(what, t.first()?, "KB", line.n, w);
            let prob = after(rest, "drop-probability");
            let prob_ok = !rest.contains(&"drop-probability") || number(prob.first(), 100).is_some();
            match (read("minimum-threshold", min, w), read("maximum-threshold", max, w), prob_ok) {
                (Some(min), Some(max), true) => {
                    p.colors.insert(
                        (*color).to_string(),
                        ColorThresholds { min, max, drop_probability: number(prob.first(), 100) },
                    );
                }
                _ => w.push(malformed(line.n, line.text)),
            }
        }
        ["random-detect", ..] => w.push(malformed(line.n, line.text)),
        _ => return false,
    }
    true
}

fn pfc_line(c: &mut PfcClass, line: &Node<'_>, w: &mut Vec<ParseWarning>) -> bool {
    let words = line.words();
    match words.as_slice() {
        ["pause", ..] => c.pause = true,
        ["pfc-cos", rest @ ..] => match numbers(rest, 7) {
            Some(v) => c.pfc_cos.extend(v),
            None => w.push(malformed(line.n, line.text)),
        },
        _ => return false,
    }
    true
}

fn ets_line(c: &mut EtsClass, line: &Node<'_>, w: &mut Vec<ParseWarning>) -> bool {
    let words = line.words();
    match words.as_slice() {
        ["bandwidth", "percent", v] => match number(Some(v), 100) {
            Some(v) => c.bandwidth_percent = Some(v),
            None => w.push(malformed(line.n, line.text)),
        },
        ["priority"] => c.priority = true,
        ["random-detect", profile] => c.wred_profile = Some((*profile).to_string()),
        ["bandwidth", ..] | ["random-detect", ..] => w.push(malformed(line.n, line.text)),
        _ => return false,
    }
    true
}

/// The lines `system qos` and interfaces share; false for any other line.
fn attachment(line: &Node<'_>, a: &mut QosAttachments, w: &mut Vec<ParseWarning>) -> bool {
    let words = line.words();
    let name = |n: &&str| Some((*n).to_string());
    match words.as_slice() {
        ["trust-map", "dot1p", n] => a.trust_dot1p_map = name(n),
        ["trust-map", "dscp", n] => a.trust_dscp_map = name(n),
        ["qos-map", "traffic-class", n] => a.traffic_class_map = name(n),
        ["service-policy", "input", "type", "network-qos", n] => a.network_qos = name(n),
        ["service-policy", "output", "type", "queuing", n] => a.queuing = name(n),
        ["ets", "mode", "on"] => a.ets = Some(true),
        ["no", "ets", "mode", ..] | ["ets", "mode", "off"] => a.ets = Some(false),
        ["trust-map", ..] | ["qos-map", ..] | ["service-policy", ..] | ["ets", ..] => {
            w.push(malformed(line.n, line.text));
        }
        _ => return false,
    }
    true
}

fn interface_line(line: &Node<'_>, iface: &mut DellInterface, w: &mut Vec<ParseWarning>) -> bool {
    if attachment(line, &mut iface.attachments, w) {
        return true;
    }
    let words = line.words();
    match words.as_slice() {
        ["priority-flow-control", "mode", "on"] => iface.pfc_mode = Some(true),
        ["no", "priority-flow-control", "mode", ..] | ["priority-flow-control", "mode", "off"] => {
            iface.pfc_mode = Some(false);
        }
        ["priority-flow-control", ..] => w.push(malformed(line.n, line.text)),
        _ => {
            return port_line(
                line,
                &mut iface.mtu,
                &mut iface.speed_mbps,
                &mut iface.shutdown,
                &mut iface.description,
                w,
            );
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = include_str!("../../tests/fixtures/dell_os10/dell-os10-azurelocal-qos-section.cfg");

    #[test]
    fn malformed_lines_warn() {
        let text = "wred w\n  random-detect color green minimum-threshold x maximum-threshold 10\nqos-map traffic-class M\n  queue 9 qos-group 1\ninterface ethernet1/1/1\n  mtu huge\n  flowcontrol receive off\n";
        let parsed = parse(text).expect("parses");
        assert_eq!(parsed.warnings.iter().map(|w| w.line).collect::<Vec<_>>(), [2, 4, 6]);
        assert_eq!(parsed.value.unmodelled_lines, 1);
    }

    #[test]
    fn empty_and_foreign_text_are_errors() {
        assert!(parse("").is_err());
        assert!(parse("hello\nworld\n").is_err());
    }

    crate::lines::parser_never_panics!(parse, SAMPLE);
}
