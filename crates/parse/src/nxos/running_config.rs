//! Cisco NX-OS `show running-config`: the QoS policies (MQC) and the interfaces they reach.
//!
//! ```text
//! policy-map type network-qos QOS_NETWORK
//!   class type network-qos c-8q-nq3
//!     pause pfc-cos 3
//!     mtu 9216
//! class-map type qos match-all RDMA
//!   match cos 3
//! policy-map type qos AZS_SERVICES
//!   class RDMA
//!     set qos-group 3
//! policy-map type queuing QOS_EGRESS_PORT
//!   class type queuing c-out-8q-q3
//!     bandwidth remaining percent 50
//!     random-detect minimum-threshold 300 kbytes maximum-threshold 300 kbytes drop-probability 100 weight 0 ecn
//! system qos
//!   service-policy type queuing output QOS_EGRESS_PORT
//!   service-policy type network-qos QOS_NETWORK
//! interface Ethernet 1/1
//!   priority-flow-control mode on send-tlv
//!   service-policy type qos input AZS_SERVICES
//!   mtu 9216
//! ```
//!
//! Modelled: `hostname` (or `switchname`, which some releases write instead); `class-map type
//! qos|queuing|network-qos` with `match cos|dscp|qos-group` (kept by type: NX-OS lets a `qos`,
//! a `queuing` and a `network-qos` class map share a name, as Microsoft's Nexus 3132 RDMA
//! configuration does with `RDMA`); `policy-map type qos` classes with `set qos-group|dscp|cos`; `policy-map type network-qos` classes with `pause [no-drop]
//! [pfc-cos N...]` and `mtu`; `policy-map type queuing` classes with `bandwidth [remaining]
//! percent`, `priority [level N]`, `random-detect ...` and (input policies of the Nexus
//! 3000/5000) `pause buffer-size B pause-threshold P resume-threshold R`; `system qos`
//! service policies; `priority-flow-control watch-dog-interval on|off` (global and per
//! interface); Ethernet and port-channel interfaces with `priority-flow-control mode`,
//! `service-policy type qos|queuing`, `mtu`, `speed`, `shutdown`, `description`. Everything else
//! is counted in [`NxosConfig::unmodelled_lines`]; modelled lines that cannot be read warn.
//! Variants seen: `interface Ethernet 1/1` (a space before the number), configuration mode's
//! ranges as documents print them (`interface Ethernet1/1/1 - 2`: each port gets the block),
//! trailing spaces (`no shutdown `), `banner motd #` ... `#` bodies (which hold a second
//! `hostname` line), two-space indentation, no line end after the last line. A configuration
//! pasted without its indentation (as some documents print it) warns on each block line found
//! at the top level.

use crate::cli_tree::{
    Named, Node, Threshold, after, class_map_match, classes, each_child, malformed, number, numbers, port_line,
    port_name, range_block, read_config,
};
use crate::eos::running_config::wred;
use crate::lines::clip;
use crate::{ParseResult, ParseWarning};
use serde::Serialize;
use std::collections::BTreeMap;

/// The QoS-relevant facts of one NX-OS running-config.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct NxosConfig {
    /// `hostname`.
    pub hostname: Option<String>,
    /// `class-map type KIND NAME`, by kind (`qos`, `queuing`, `network-qos`), then name.
    pub class_maps: BTreeMap<String, BTreeMap<String, ClassMap>>,
    /// `policy-map type qos NAME`: classification into qos-groups, by name.
    pub qos_policies: BTreeMap<String, Vec<QosClass>>,
    /// `policy-map type network-qos NAME`: pause (PFC) and MTU per class, by name.
    pub network_qos_policies: BTreeMap<String, Vec<NetworkQosClass>>,
    /// `policy-map type queuing NAME`: egress scheduling and WRED/ECN per queue, by name.
    pub queuing_policies: BTreeMap<String, Vec<QueuingClass>>,
    /// The `system qos` service policies (device-wide).
    pub system_qos: ServicePolicies,
    /// `priority-flow-control watch-dog-interval on|off` (global).
    pub pfc_watchdog: Option<bool>,
    /// `system default switchport` (true: ports are Layer 2 unless they say `no switchport`) or
    /// `no system default switchport` (false: routed unless they say `switchport`).
    pub default_switchport: Option<bool>,
    /// Ethernet and port-channel interfaces in input order.
    pub interfaces: Vec<NxosInterface>,
    /// Configuration lines not modelled (counted, not warned about).
    pub unmodelled_lines: usize,
}

/// A class map's match criteria.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ClassMap {
    /// `match cos ...`.
    pub cos: Vec<u8>,
    /// `match dscp ...`.
    pub dscp: Vec<u8>,
    /// `match qos-group ...`.
    pub qos_groups: Vec<u8>,
}

/// Service policies attached to `system qos` or to an interface.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ServicePolicies {
    /// `service-policy type qos input NAME`.
    pub qos_input: Option<String>,
    /// `service-policy type queuing output NAME`.
    pub queuing_output: Option<String>,
    /// `service-policy type queuing input NAME`.
    pub queuing_input: Option<String>,
    /// `service-policy type network-qos NAME` (`system qos` only).
    pub network_qos: Option<String>,
}

/// A class of a `policy-map type qos`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct QosClass {
    /// The class map's name.
    pub class: String,
    /// `set qos-group N`: the traffic class.
    pub qos_group: Option<u8>,
    /// `set dscp N`.
    pub set_dscp: Option<u8>,
    /// `set cos N`.
    pub set_cos: Option<u8>,
}

/// A class of a `policy-map type network-qos`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct NetworkQosClass {
    /// The class name (`c-8q-nq3`, or a `class-map type network-qos`).
    pub class: String,
    /// `pause ...`: the class is no-drop.
    pub pause: bool,
    /// `pause pfc-cos N...`: the CoS values PFC pauses for this class.
    pub pfc_cos: Vec<u8>,
    /// `mtu N`.
    pub mtu: Option<u32>,
}

/// A class of a `policy-map type queuing`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct QueuingClass {
    /// The class name (`c-out-8q-q3`).
    pub class: String,
    /// The egress queue: N for the system classes `c-out-8q-qN`/`c-out-qN` (which take
    /// qos-group N), 0 for `...-q-default`; `None` for other class names.
    pub queue: Option<u8>,
    /// `bandwidth percent N`.
    pub bandwidth_percent: Option<u32>,
    /// `bandwidth remaining percent N`.
    pub bandwidth_remaining_percent: Option<u32>,
    /// `priority [level N]` (level 1 when none is given).
    pub priority_level: Option<u8>,
    /// `random-detect ...`.
    pub wred: Option<NxWred>,
    /// `pause buffer-size ... pause-threshold ... resume-threshold ...` (an input policy's
    /// no-drop class, Nexus 3000/5000): the class's ingress buffer and when it pauses.
    pub pause: Option<IngressPause>,
}

/// A no-drop class's ingress buffer, in bytes: PFC pauses the sender when `pause_threshold`
/// bytes are queued, and the rest of `buffer_size` is the headroom that absorbs what is in
/// flight; it resumes below `resume_threshold`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct IngressPause {
    /// `buffer-size B`.
    pub buffer_size: u64,
    /// `pause-threshold P`.
    pub pause_threshold: u64,
    /// `resume-threshold R`.
    pub resume_threshold: u64,
}

/// `random-detect` on a queuing class.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct NxWred {
    /// `minimum-threshold V UNIT`.
    pub min: Option<Threshold>,
    /// `maximum-threshold V UNIT`.
    pub max: Option<Threshold>,
    /// `drop-probability P` (percent).
    pub drop_probability: Option<u32>,
    /// `weight W`.
    pub weight: Option<u32>,
    /// The `ecn` keyword: mark instead of drop.
    pub ecn: bool,
    /// `threshold burst-optimized|mesh-optimized`: a preset instead of thresholds.
    pub preset: Option<String>,
}

/// One Ethernet or port-channel interface.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct NxosInterface {
    /// The name without the space NX-OS may print (`Ethernet1/1`, `port-channel50`).
    pub name: String,
    /// `description`.
    pub description: Option<String>,
    /// `priority-flow-control mode on|off|auto`.
    pub pfc_mode: Option<String>,
    /// `priority-flow-control watch-dog-interval on|off`.
    pub pfc_watchdog: Option<bool>,
    /// Service policies attached to the interface.
    pub service_policies: ServicePolicies,
    /// `mtu N`.
    pub mtu: Option<u32>,
    /// `switchport` (any `switchport ...` line: a Layer 2 port) or `no switchport` (a routed
    /// port); `None` when the running-config says neither (the system default).
    pub switchport: Option<bool>,
    /// `speed N` in Mb/s (`auto`: `None`).
    pub speed_mbps: Option<u64>,
    /// `shutdown` (true) / `no shutdown` (false).
    pub shutdown: Option<bool>,
}

/// Parses `show running-config` of Cisco NX-OS (or a QoS section of it).
///
/// # Errors
/// Empty input, or no line that is NX-OS configuration fabcheck knows.
pub fn parse(text: &str) -> ParseResult<NxosConfig> {
    read_config(
        text,
        top_level,
        |cfg: &mut NxosConfig| &mut cfg.unmodelled_lines,
        "empty running-config",
        "no NX-OS configuration line fabcheck knows (hostname, interface, policy-map ...): not an NX-OS running-config",
    )
}

/// Reads one top-level line and its block; `Some(lines not modelled)` when the line is one
/// fabcheck knows, `None` otherwise.
fn top_level(node: &Node<'_>, cfg: &mut NxosConfig, w: &mut Vec<ParseWarning>) -> Option<usize> {
    let words = node.words();
    let mut unmodelled = 0;
    match words.as_slice() {
        // Some releases and platforms write the host name as `switchname`.
        ["hostname" | "switchname", name] => cfg.hostname = Some((*name).to_string()),
        ["class-map", "type", kind @ ("qos" | "queuing" | "network-qos"), .., name] => {
            let mut cm = ClassMap::default();
            each_child(node, &mut unmodelled, |line| {
                class_map_match(line, w, |kind| match kind {
                    "cos" => Some((&mut cm.cos, 7)),
                    "dscp" => Some((&mut cm.dscp, 63)),
                    "qos-group" => Some((&mut cm.qos_groups, 7)),
                    _ => None,
                })
            });
            cfg.class_maps.entry((*kind).to_string()).or_default().insert((*name).to_string(), cm);
        }
        ["policy-map", "type", "qos", name] => {
            let classes = classes(node, &mut unmodelled, qos_class, w);
            cfg.qos_policies.insert((*name).to_string(), classes);
        }
        ["policy-map", "type", "network-qos", name] => {
            let classes = classes(node, &mut unmodelled, network_qos_class, w);
            cfg.network_qos_policies.insert((*name).to_string(), classes);
        }
        ["policy-map", "type", "queuing", name] => {
            let mut classes = classes(node, &mut unmodelled, queuing_class, w);
            for c in &mut classes {
                c.queue = system_queue(&c.class);
            }
            cfg.queuing_policies.insert((*name).to_string(), classes);
        }
        ["system", "qos"] => {
            each_child(node, &mut unmodelled, |line| service_policy(&line.words(), &mut cfg.system_qos));
        }
        ["priority-flow-control", "watch-dog-interval", state @ ("on" | "off")] => {
            cfg.pfc_watchdog = Some(*state == "on");
        }
        ["system", "default", "switchport"] => cfg.default_switchport = Some(true),
        ["no", "system", "default", "switchport"] => cfg.default_switchport = Some(false),
        ["interface", rest @ ..] => match port_name(rest) {
            // A range (`interface Ethernet1/1/1 - 2`): configuration mode's syntax, which
            // documents print; the block applies to each port it names.
            Some(name) if is_range(&name) => {
                if let Some((names, block)) = range_block(node, rest, &mut unmodelled, w, interface_line) {
                    for name in names {
                        cfg.add_interface(NxosInterface { name, ..block.clone() });
                    }
                }
            }
            Some(name) => {
                let mut iface = NxosInterface { name, ..NxosInterface::default() };
                each_child(node, &mut unmodelled, |line| interface_line(line, &mut iface, w));
                cfg.add_interface(iface);
            }
            None => unmodelled += node.size(),
        },
        [first, ..] if BLOCK_LINES.contains(first) => {
            w.push(ParseWarning::at(
                node.n,
                format!(
                    "`{}` belongs inside a block but is at the top level: the configuration has lost its indentation (copied from a page?), so the blocks above read as empty",
                    clip(node.text.trim(), 60)
                ),
            ));
            return None;
        }
        _ => return None,
    }
    Some(unmodelled)
}

impl NxosConfig {
    /// A port's block, laid over an earlier block of the same port: a range and a single port
    /// may both name it (in configuration mode, as documents print it); what the later block
    /// states wins, what it does not state stays.
    fn add_interface(&mut self, iface: NxosInterface) {
        let Some(existing) = self.interfaces.iter_mut().find(|i| i.name.eq_ignore_ascii_case(&iface.name)) else {
            self.interfaces.push(iface);
            return;
        };
        let (mine, theirs) = (&mut existing.service_policies, iface.service_policies);
        mine.qos_input = theirs.qos_input.or(mine.qos_input.take());
        mine.queuing_output = theirs.queuing_output.or(mine.queuing_output.take());
        mine.queuing_input = theirs.queuing_input.or(mine.queuing_input.take());
        mine.network_qos = theirs.network_qos.or(mine.network_qos.take());
        existing.description = iface.description.or(existing.description.take());
        existing.pfc_mode = iface.pfc_mode.or(existing.pfc_mode.take());
        existing.pfc_watchdog = iface.pfc_watchdog.or(existing.pfc_watchdog);
        existing.mtu = iface.mtu.or(existing.mtu);
        existing.speed_mbps = iface.speed_mbps.or(existing.speed_mbps);
        existing.shutdown = iface.shutdown.or(existing.shutdown);
    }
}

/// Whether an interface name is a range or list (`Ethernet1/1/1-2`, `ethernet1/1-4,ethernet1/7`):
/// a `-` or `,` after the type (`port-channel101` has one before).
fn is_range(name: &str) -> bool {
    name.find(|c: char| c.is_ascii_digit()).is_some_and(|at| name[at..].contains(['-', ',']))
}

/// First words of lines that NX-OS only has inside a block (class map, policy, `system qos`,
/// interface): at the top level they mean the indentation was lost, never a global command.
const BLOCK_LINES: [&str; 8] =
    ["match", "class", "set", "pause", "bandwidth", "service-policy", "random-detect", "mtu"];

impl Named for QosClass {
    fn set_name(&mut self, name: &str) {
        self.class = name.to_string();
    }
}

impl Named for NetworkQosClass {
    fn set_name(&mut self, name: &str) {
        self.class = name.to_string();
    }
}

impl Named for QueuingClass {
    fn set_name(&mut self, name: &str) {
        self.class = name.to_string();
    }
}

fn qos_class(c: &mut QosClass, line: &Node<'_>, w: &mut Vec<ParseWarning>) -> bool {
    let words = line.words();
    let (slot, max) = match words.as_slice() {
        ["set", "qos-group", _] => (&mut c.qos_group, 7),
        ["set", "dscp", _] => (&mut c.set_dscp, 63),
        ["set", "cos", _] => (&mut c.set_cos, 7),
        _ => return false,
    };
    match number(words.get(2), max) {
        Some(v) => *slot = Some(v as u8),
        None => w.push(malformed(line.n, line.text)),
    }
    true
}

fn network_qos_class(c: &mut NetworkQosClass, line: &Node<'_>, w: &mut Vec<ParseWarning>) -> bool {
    let words = line.words();
    match words.as_slice() {
        ["pause", rest @ ..] => {
            c.pause = true;
            if rest.contains(&"pfc-cos") {
                match numbers(after(rest, "pfc-cos"), 7) {
                    Some(v) => c.pfc_cos.extend(v),
                    None => w.push(malformed(line.n, line.text)),
                }
            }
        }
        ["mtu", v] => match number(Some(v), 65_535) {
            Some(v) => c.mtu = Some(v),
            None => w.push(malformed(line.n, line.text)),
        },
        _ => return false,
    }
    true
}

fn queuing_class(c: &mut QueuingClass, line: &Node<'_>, w: &mut Vec<ParseWarning>) -> bool {
    let words = line.words();
    let bad = |w: &mut Vec<ParseWarning>| w.push(malformed(line.n, line.text));
    match words.as_slice() {
        ["bandwidth", "percent", v] => match number(Some(v), 100) {
            Some(v) => c.bandwidth_percent = Some(v),
            None => bad(w),
        },
        ["bandwidth", "remaining", "percent", v] => match number(Some(v), 100) {
            Some(v) => c.bandwidth_remaining_percent = Some(v),
            None => bad(w),
        },
        ["priority"] => c.priority_level = Some(1),
        ["priority", "level", v] => match number(Some(v), 7) {
            Some(v) => c.priority_level = Some(v as u8),
            None => bad(w),
        },
        ["pause", "buffer-size", size, "pause-threshold", pause, "resume-threshold", resume] => {
            let byte_count = |v: &str| v.parse::<u64>().ok();
            match (byte_count(size), byte_count(pause), byte_count(resume)) {
                (Some(buffer_size), Some(pause_threshold), Some(resume_threshold)) => {
                    c.pause = Some(IngressPause { buffer_size, pause_threshold, resume_threshold })
                }
                _ => bad(w),
            }
        }
        ["pause", ..] => bad(w),
        ["random-detect", "threshold", preset, rest @ ..] => {
            c.wred =
                Some(NxWred { ecn: rest.contains(&"ecn"), preset: Some((*preset).to_string()), ..NxWred::default() });
        }
        ["random-detect", rest @ ..] => match wred(rest, "drop-probability", line.n, w) {
            Some(x) => {
                c.wred = Some(NxWred {
                    min: Some(x.min),
                    max: Some(x.max),
                    drop_probability: x.probability_percent,
                    weight: x.weight,
                    ecn: rest.contains(&"ecn"),
                    preset: None,
                })
            }
            None => bad(w),
        },
        ["bandwidth", ..] | ["priority", ..] => bad(w),
        _ => return false,
    }
    true
}

/// The queue a system queuing class serves: `c-out-8q-q3` → 3, `c-out-8q-q-default` → 0.
fn system_queue(class: &str) -> Option<u8> {
    if !class.starts_with("c-out-") && !class.starts_with("c-in-") {
        return None;
    }
    if class.ends_with("-q-default") {
        return Some(0);
    }
    let (_, n) = class.rsplit_once("-q")?;
    n.parse().ok().filter(|q| *q <= 7)
}

/// `service-policy type qos input X`, `service-policy type queuing output|input X`,
/// `service-policy type network-qos X`; false for any other line.
fn service_policy(words: &[&str], p: &mut ServicePolicies) -> bool {
    let name = |n: &&str| Some((*n).to_string());
    match words {
        ["service-policy", "type", "qos", "input", n] => p.qos_input = name(n),
        ["service-policy", "type", "queuing", "output", n] => p.queuing_output = name(n),
        ["service-policy", "type", "queuing", "input", n] => p.queuing_input = name(n),
        ["service-policy", "type", "network-qos", n] => p.network_qos = name(n),
        _ => return false,
    }
    true
}

fn interface_line(node: &Node<'_>, iface: &mut NxosInterface, w: &mut Vec<ParseWarning>) -> bool {
    let words = node.words();
    let bad = |w: &mut Vec<ParseWarning>| w.push(malformed(node.n, node.text));
    match words.as_slice() {
        ["priority-flow-control", "mode", mode @ ("on" | "off" | "auto"), ..] => {
            iface.pfc_mode = Some((*mode).to_string());
        }
        ["priority-flow-control", "watch-dog-interval", state @ ("on" | "off")] => {
            iface.pfc_watchdog = Some(*state == "on");
        }
        ["no", "priority-flow-control", "mode", ..] => iface.pfc_mode = Some("off".to_string()),
        ["switchport"] => iface.switchport = Some(true),
        ["no", "switchport"] => iface.switchport = Some(false),
        // `switchport mode trunk`...: a Layer 2 port, whose VLAN settings fabcheck does not model.
        ["switchport", ..] => {
            iface.switchport = Some(true);
            return false;
        }
        ["priority-flow-control", "mode", ..] => bad(w),
        ["service-policy", ..] => {
            if !service_policy(&words, &mut iface.service_policies) {
                bad(w);
            }
        }
        // NX-OS speeds are Mb/s (`speed 100000`), as port_line reads them.
        _ => {
            return port_line(
                node,
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

    const FULL: &str = include_str!("../../tests/fixtures/nxos/cisco-nxos-93180yc-fx3-azurelocal-tor-full.cfg");
    const SECTION: &str = include_str!("../../tests/fixtures/nxos/cisco-nxos-azurelocal-qos-section.cfg");

    #[test]
    fn system_queue_names() {
        assert_eq!(system_queue("c-out-8q-q3"), Some(3));
        assert_eq!(system_queue("c-out-8q-q-default"), Some(0));
        assert_eq!(system_queue("c-out-q7"), Some(7));
        assert_eq!(system_queue("RDMA"), None);
    }

    #[test]
    fn malformed_lines_warn() {
        let text = "policy-map type network-qos N\n  class type network-qos c-8q-nq3\n    pause pfc-cos 9\n    mtu x\ninterface Ethernet1/1\n  priority-flow-control mode sideways\n  speed fast\n";
        let parsed = parse(text).expect("parses");
        assert_eq!(parsed.warnings.iter().map(|w| w.line).collect::<Vec<_>>(), [3, 4, 6, 7]);
    }

    #[test]
    fn a_later_block_of_a_port_in_a_range_adds_to_the_range() {
        let text = "interface Ethernet1/1-2\n  priority-flow-control mode on\n  service-policy type qos input Q\n  mtu 9216\ninterface Ethernet1/1\n  description host\n  mtu 1500\n";
        let parsed = parse(text).expect("parses");
        assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
        let i = &parsed.value.interfaces;
        assert_eq!(i.iter().map(|i| i.name.as_str()).collect::<Vec<_>>(), ["Ethernet1/1", "Ethernet1/2"]);
        assert_eq!((i[0].pfc_mode.as_deref(), i[0].service_policies.qos_input.as_deref()), (Some("on"), Some("Q")));
        assert_eq!((i[0].description.as_deref(), i[0].mtu), (Some("host"), Some(1500)));
        assert_eq!((i[1].description.as_deref(), i[1].mtu), (None, Some(9216)));
    }

    #[test]
    fn empty_and_foreign_text_are_errors() {
        assert!(parse("").is_err());
        assert!(parse("hello\nworld\n").is_err());
    }

    crate::lines::parser_never_panics!(parse, [FULL, SECTION]);
}
