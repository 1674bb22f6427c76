//! Cisco NX-OS facts → the vendor-neutral model.
//!
//! NX-OS QoS is device-wide policy (`system qos`) that interfaces inherit, some of which an
//! interface can replace (`service-policy type qos|queuing`). [`system_policy`] is what every
//! port gets from `system qos`; [`to_model`] applies it to each Ethernet and port-channel
//! interface with the interface's own settings on top.
//!
//! Choices:
//! - PFC: the no-drop CoS values are the `pause pfc-cos` values of the system network-qos policy;
//!   a class that says `pause no-drop` without them (Nexus 3000/5000) is no-drop for the CoS
//!   values the system qos policy classifies into its qos-groups (`match cos 3` → `set qos-group
//!   3`, network-qos class `match qos-group 3`); when that classification is by DSCP only, the CoS
//!   values are not in the configuration and the port's PFC is left to what `show interface
//!   priority-flow-control` says runs. A port with `priority-flow-control mode on` gets them;
//!   `mode off` gets `Some([])`; `mode auto` (the default) depends on DCBX negotiation with the
//!   peer, which a config cannot tell: `None`.
//! - Classification: the `policy-map type qos` on the port (else the system one): DSCP matches give
//!   `dscp_to_tc` (DSCP → qos-group) and trust `dscp`; CoS-only matches give trust `pcp` (the model
//!   has no CoS map); both kinds together leave trust `None`.
//! - Queues: the system classes `c-out-8q-qN` take qos-group N, a user-defined queuing class the
//!   one qos-group its class map matches, `class-default` qos-group 0; each class present gives
//!   TC N → queue N; `priority [level]` is strict, `bandwidth remaining percent`/`bandwidth
//!   percent` the weight; `random-detect ... ecn` is ECN on, without `ecn` it is WRED dropping
//!   (`enabled: false`); a `threshold burst-optimized` preset has no thresholds to give.
//! - MTU: on a routed port (`no switchport`), the interface's `mtu`, else NX-OS's default of
//!   1500: "All Layer 3 ports, regardless of platform, are configured on a per-port basis" (Cisco
//!   TechNote 118994, "Configure and Verify Maximum Transmission Unit on Nexus Platforms"), so a
//!   network-qos class MTU does not reach them. On a Layer 2 port (or one the running-config
//!   does not say), the smaller of the interface `mtu` and the network-qos MTU of the no-drop
//!   classes, which "Layer 2 MTU is set ... through" (the same TechNote); whichever exists when
//!   only one does.
//! - PFC watchdog: `priority-flow-control watch-dog-interval on|off`, global and per interface
//!   (the interface's wins). A running-config with neither is a watchdog never turned on: Cisco's
//!   Nexus 9000 NX-OS Quality of Service Configuration Guide ("Configuring Priority Flow
//!   Control", "Configuring a Priority Flow Control Watchdog Interval", releases 7.x, 9.2(x),
//!   10.4(x), 10.5(x)) has the watchdog configured by that command and documents no default that
//!   turns it on, and `show running-config` shows what was configured, not defaults (`show
//!   running-config all` adds those). So the device-wide setting is off with a note saying why,
//!   which the watchdog finding carries, rather than unknown.
//! - Headroom: an input queuing class's `pause buffer-size B pause-threshold P` is a buffer
//!   profile `POLICY CLASS` whose xoff (headroom) is B − P, the priority group of the class's
//!   qos-group on every port the policy reaches.
//!
//! The operational sources then refine the configured model: [`apply_interfaces_status`] sets
//! speed and link state, [`apply_pfc`] the priorities PFC runs on (which resolves `mode auto`),
//! and [`pfc_counters`] turns the PFC frame counts into [`SwitchCounters`].

use super::interfaces_status::InterfaceStatus;
use super::pfc::PfcStatus;
use super::running_config::{ClassMap, NxosConfig, NxosInterface, QueuingClass, ServicePolicies};
use crate::cli_tree::Threshold;
use crate::status_table::{apply_port_statuses, is_fabric_port};
use crate::switch::{
    BufferProfile, Ecn, PfcWatchdog, PortCounters, PortQos, QueueQos, Scheduler, SwitchCounters, SwitchQos,
    canonical_interface,
};

/// The model of one NX-OS running-config.
pub fn to_model(cfg: &NxosConfig) -> SwitchQos {
    let mut out = SwitchQos {
        hostname: cfg.hostname.clone(),
        pfc_watchdog: Some(match cfg.pfc_watchdog {
            Some(enabled) => PfcWatchdog { enabled, ..PfcWatchdog::default() },
            None => PfcWatchdog { enabled: false, note: Some(UNSET_WATCHDOG.to_string()), ..PfcWatchdog::default() },
        }),
        ..SwitchQos::default()
    };
    for iface in &cfg.interfaces {
        out.ports.insert(canonical_interface(&iface.name), port(cfg, Some(iface)));
    }
    for (policy, classes) in &cfg.queuing_policies {
        for class in classes {
            if let Some(p) = &class.pause {
                let profile = BufferProfile {
                    pool: None,
                    size_bytes: Some(p.buffer_size),
                    xon_bytes: Some(p.resume_threshold),
                    xoff_bytes: Some(p.buffer_size.saturating_sub(p.pause_threshold)),
                };
                out.buffer_profiles.insert(profile_name(policy, &class.class), profile);
            }
        }
    }
    out
}

/// Why a running-config without any watchdog line has the watchdog off (see the module's notes).
pub const UNSET_WATCHDOG: &str =
    "no `priority-flow-control watch-dog-interval on` in the running-config, globally or on the port";

/// The MTU of a routed NX-OS interface without an `mtu` line: 1500 bytes, the default the Cisco
/// Nexus 9000 Series NX-OS Interfaces Configuration Guide gives for Layer 3 interfaces (and
/// `show running-config` leaves defaults out).
const ROUTED_DEFAULT_MTU: u32 = 1500;

/// The buffer profile of an input queuing class's `pause buffer-size ...`.
fn profile_name(policy: &str, class: &str) -> String {
    format!("{policy} {class}")
}

fn class_map<'a>(cfg: &'a NxosConfig, kind: &str, name: &str) -> Option<&'a ClassMap> {
    cfg.class_maps.get(kind)?.get(name)
}

/// The qos-group (and queue) a queuing class serves: a system class's number, 0 for
/// `class-default`, else the one qos-group its class map matches.
fn queue_of(cfg: &NxosConfig, class: &QueuingClass) -> Option<u8> {
    if class.queue.is_some() {
        return class.queue;
    }
    if class.class == "class-default" {
        return Some(0);
    }
    match class_map(cfg, "queuing", &class.class)?.qos_groups.as_slice() {
        [group] => Some(*group),
        _ => None,
    }
}

/// The qos-groups a network-qos class takes: `c-8q-nq3`/`c-nq3` → 3, else its class map's.
fn network_qos_groups(cfg: &NxosConfig, class: &str) -> Vec<u8> {
    let system = class.strip_prefix("c-8q-nq").or_else(|| class.strip_prefix("c-nq")).and_then(|n| n.parse().ok());
    match system {
        Some(group) => vec![group],
        None => class_map(cfg, "network-qos", class).map(|cm| cm.qos_groups.clone()).unwrap_or_default(),
    }
}

/// What `system qos` gives every port: classification, queues and the lossless MTU. PFC is left
/// `None`: it is switched on per interface.
pub fn system_policy(cfg: &NxosConfig) -> PortQos {
    port(cfg, None)
}

/// The CoS values the system network-qos policy makes no-drop, ascending: its `pause pfc-cos`
/// values, or for a class without them, the CoS values the system qos policy puts in its
/// qos-groups. `None` when a no-drop class's CoS values cannot be told that way (classified by
/// DSCP only): the port's PFC priorities are then what `show interface priority-flow-control`
/// says runs, not a guess.
pub fn no_drop_cos(cfg: &NxosConfig) -> Option<Vec<u8>> {
    let classified = |groups: &[u8]| -> Vec<u8> {
        let policy = cfg.system_qos.qos_input.as_ref().and_then(|p| cfg.qos_policies.get(p));
        policy
            .into_iter()
            .flatten()
            .filter(|c| c.qos_group.is_some_and(|g| groups.contains(&g)))
            .filter_map(|c| class_map(cfg, "qos", &c.class))
            .flat_map(|cm| cm.cos.iter().copied())
            .collect()
    };
    let mut cos = Vec::new();
    for class in network_qos(cfg) {
        let values = match class.pfc_cos.is_empty() {
            false => class.pfc_cos.clone(),
            true => classified(&network_qos_groups(cfg, &class.class)),
        };
        if values.is_empty() {
            return None;
        }
        cos.extend(values);
    }
    cos.sort_unstable();
    cos.dedup();
    Some(cos)
}

fn network_qos(cfg: &NxosConfig) -> impl Iterator<Item = &super::running_config::NetworkQosClass> {
    cfg.system_qos
        .network_qos
        .as_ref()
        .and_then(|p| cfg.network_qos_policies.get(p))
        .into_iter()
        .flatten()
        .filter(|c| c.pause)
}

fn port(cfg: &NxosConfig, iface: Option<&NxosInterface>) -> PortQos {
    let empty = ServicePolicies::default();
    let own = iface.map_or(&empty, |i| &i.service_policies);
    let sys = &cfg.system_qos;
    let mut out = PortQos {
        lossless_priorities: match iface.and_then(|i| i.pfc_mode.as_deref()) {
            Some("on") => no_drop_cos(cfg),
            Some("off") => Some(Vec::new()),
            _ => None,
        },
        ..PortQos::default()
    };
    if let Some(policy) = own.qos_input.as_ref().or(sys.qos_input.as_ref()).and_then(|p| cfg.qos_policies.get(p)) {
        let (mut by_dscp, mut by_cos) = (false, false);
        for class in policy {
            let Some(cm) = class_map(cfg, "qos", &class.class) else {
                continue;
            };
            by_cos |= !cm.cos.is_empty();
            by_dscp |= !cm.dscp.is_empty();
            if let Some(group) = class.qos_group {
                for d in &cm.dscp {
                    out.dscp_to_tc.insert(*d, group);
                }
            }
        }
        out.trust = match (by_dscp, by_cos) {
            (true, false) => Some("dscp".to_string()),
            (false, true) => Some("pcp".to_string()),
            _ => None,
        };
    }
    let queuing = own.queuing_output.as_ref().or(sys.queuing_output.as_ref());
    for class in queuing.and_then(|p| cfg.queuing_policies.get(p)).into_iter().flatten() {
        if let Some(q) = queue_of(cfg, class) {
            out.tc_to_queue.insert(q, q);
            out.queues.insert(q, queue(class));
        }
    }
    let input = own.queuing_input.as_ref().or(sys.queuing_input.as_ref());
    if let Some((policy, classes)) = input.and_then(|p| Some((p, cfg.queuing_policies.get(p)?))) {
        for class in classes.iter().filter(|c| c.pause.is_some()) {
            if let Some(group) = queue_of(cfg, class) {
                out.priority_groups.insert(group, profile_name(policy, &class.class));
            }
        }
    }
    let class_mtu = network_qos(cfg).filter_map(|c| c.mtu).min();
    let port_mtu = iface.and_then(|i| i.mtu);
    // A port that says neither `switchport` nor `no switchport` is what `system default
    // switchport` makes it; unsaid there too, it is taken as Layer 2 (the class MTU can only
    // lower what is read, never raise it).
    let switchport = iface.and_then(|i| i.switchport).or(cfg.default_switchport);
    out.mtu = match (switchport, port_mtu, class_mtu) {
        (Some(false), port, _) => Some(port.unwrap_or(ROUTED_DEFAULT_MTU)),
        (_, Some(a), Some(b)) => Some(a.min(b)),
        (_, a, b) => a.or(b),
    };
    if let Some(i) = iface {
        out.pfc_watchdog = i.pfc_watchdog;
        out.speed_mbps = i.speed_mbps;
        out.admin_up = i.shutdown.map(|down| !down);
    }
    out
}

fn queue(c: &QueuingClass) -> QueueQos {
    let scheduler = if c.priority_level.is_some() {
        Some(Scheduler::Strict)
    } else {
        c.bandwidth_remaining_percent.or(c.bandwidth_percent).map(|weight| Scheduler::Weighted { weight })
    };
    let ecn = c.wred.as_ref().map(|x| Ecn {
        enabled: x.ecn,
        min_bytes: x.min.as_ref().and_then(|t| t.bytes),
        max_bytes: x.max.as_ref().and_then(|t| t.bytes),
        probability_percent: x.drop_probability,
        uncertain_unit: Threshold::uncertain_pair(x.min.as_ref(), x.max.as_ref()),
    });
    QueueQos { scheduler, ecn }
}

/// Sets each Ethernet and port-channel port's speed and link state from `show interface
/// status`; ports the config did not list are added.
pub fn apply_interfaces_status(model: &mut SwitchQos, status: &InterfaceStatus) {
    apply_port_statuses(model, &status.ports);
}

/// Sets each port's lossless priorities from `show interface priority-flow-control`: PFC
/// operationally on gives the priorities of its VL bitmap, off gives `Some([])` whatever the
/// configuration (this is what resolves `mode auto`, which the configuration cannot). A port
/// shown on without a bitmap keeps what the configuration said.
pub fn apply_pfc(model: &mut SwitchQos, pfc: &PfcStatus) {
    for p in pfc.ports.iter().filter(|p| is_fabric_port(&p.name)) {
        if p.oper_on && p.vl_bitmap.is_none() {
            continue;
        }
        let priorities = if p.oper_on { p.priorities.clone() } else { Vec::new() };
        model.ports.entry(p.name.clone()).or_default().lossless_priorities = Some(priorities);
    }
}

/// PFC frames per port and priority from `show interface priority-flow-control`. The command
/// counts all priorities together, so a port's count is the count of its one PFC priority when
/// exactly one is operational; with PFC off, or on several priorities, the split cannot be
/// told and the port has no per-priority counter (its totals stay in the facts).
pub fn pfc_counters(pfc: &PfcStatus) -> SwitchCounters {
    let mut out = SwitchCounters::default();
    for p in pfc.ports.iter().filter(|p| is_fabric_port(&p.name)) {
        let port = out.ports.entry(p.name.clone()).or_insert_with(PortCounters::default);
        if let (true, [prio]) = (p.oper_on, p.priorities.as_slice()) {
            port.pfc_rx.insert(*prio, p.rx_frames);
            port.pfc_tx.insert(*prio, p.tx_frames);
        }
    }
    out
}
