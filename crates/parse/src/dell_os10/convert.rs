//! Dell OS10 facts → the vendor-neutral model.
//!
//! OS10 QoS is maps and policies attached to `system qos` (every port) or to an interface (that
//! port, replacing the system one of the same kind). [`system_policy`] is what every port gets
//! from `system qos`; [`to_model`] applies it to each Ethernet and port-channel interface with the
//! interface's own attachments on top.
//!
//! Choices:
//! - PFC: OS10 has PFC off unless `priority-flow-control mode on`, so a port without it gets
//!   `Some([])`; with it, the `pfc-cos` values of the `pause` classes of its network-qos policy
//!   (`Some([])` when no policy is attached). [`system_policy`] leaves PFC `None`.
//! - Trust: a `trust-map dscp` makes the port trust `dscp` (and gives `dscp_to_tc`); else a
//!   `trust-map dot1p` makes it `pcp` (the model has no PCP map); else `None`.
//! - Queues: a queuing class's class map `match queue N` names the queue; `priority` is strict,
//!   `bandwidth percent` the weight; its `random-detect PROFILE` gives ECN from the profile's
//!   green thresholds (KB → bytes, 1024), `enabled` when the profile has `random-detect ecn`.
//! - TC → queue: the attached `qos-map traffic-class` (qos-group → queue).
//! - PFC watchdog: not read from the configuration (`pfc_watchdog` stays `None`): the PFC
//!   chapter of Dell's SmartFabric OS10 User Guide (10.5.3, "Priority flow control") documents
//!   no watchdog to read, so the checks say it is unknown once per switch.
//! - Names: each port keeps the name OS10 prints (`ethernet1/1/4`, `port-channel10`: the
//!   running-configuration's `interface` lines) in [`PortQos::name`], for findings and reports;
//!   the key is canonical, for matching.
//!
//! [`apply_interfaces_status`] then sets each port's speed and link state from `show interface
//! status`.

use super::interfaces_status::InterfaceStatus;
use super::queuing_statistics::QueuingStatistics;
use super::running_config::{DellConfig, DellInterface, EtsClass, QosAttachments};
use crate::cli_tree::Threshold;
use crate::status_table::apply_port_statuses;
use crate::switch::{
    Ecn, PortQos, QueueQos, Scheduler, SwitchCounters, SwitchQos, UndefinedReference, canonical_interface,
};

/// The model of one OS10 running-configuration.
pub fn to_model(cfg: &DellConfig) -> SwitchQos {
    let mut out = SwitchQos { hostname: cfg.hostname.clone(), ..SwitchQos::default() };
    for iface in &cfg.interfaces {
        out.ports.insert(canonical_interface(&iface.name), port(cfg, Some(iface)));
    }
    name_ports(&mut out);
    out
}

/// The name OS10 prints for a canonical port name: `Ethernet1/1/4` → `ethernet1/1/4`,
/// `Port-Channel10` → `port-channel10` (how its running-configuration and CLI write them).
pub fn os10_name(canonical: &str) -> String {
    for (long, os10) in [("Ethernet", "ethernet"), ("Port-Channel", "port-channel")] {
        if let Some(rest) = canonical.strip_prefix(long) {
            return format!("{os10}{rest}");
        }
    }
    canonical.to_string()
}

/// Gives every port without one the name OS10 prints for it.
fn name_ports(model: &mut SwitchQos) {
    for (key, p) in &mut model.ports {
        let printed = os10_name(key);
        if p.name.is_none() && printed != *key {
            p.name = Some(printed);
        }
    }
}

/// What `system qos` gives every port; PFC is left `None` (it is switched on per interface).
pub fn system_policy(cfg: &DellConfig) -> PortQos {
    port(cfg, None)
}

fn port(cfg: &DellConfig, iface: Option<&DellInterface>) -> PortQos {
    let sys = &cfg.system_qos;
    let empty = QosAttachments::default();
    let own = iface.map_or(&empty, |i| &i.attachments);
    let pick = |f: fn(&QosAttachments) -> &Option<String>| f(own).as_ref().or(f(sys).as_ref());
    let mut out = PortQos::default();
    if let Some(i) = iface {
        let pfc_cos = pick(|a| &a.network_qos)
            .and_then(|p| cfg.network_qos_policies.get(p))
            .into_iter()
            .flatten()
            .filter(|c| c.pause)
            .flat_map(|c| c.pfc_cos.iter().copied());
        let mut cos: Vec<u8> = if i.pfc_mode == Some(true) { pfc_cos.collect() } else { Vec::new() };
        cos.sort_unstable();
        cos.dedup();
        out.lossless_priorities = Some(cos);
        out.mtu = i.mtu;
        out.speed_mbps = i.speed_mbps;
        out.admin_up = i.shutdown.map(|down| !down);
    }
    if let Some(map) = pick(|a| &a.trust_dscp_map).and_then(|m| cfg.dscp_trust_maps.get(m)) {
        out.trust = Some("dscp".to_string());
        out.dscp_to_tc = map.clone();
    } else if pick(|a| &a.trust_dot1p_map).is_some() {
        out.trust = Some("pcp".to_string());
    }
    if let Some(map) = pick(|a| &a.traffic_class_map).and_then(|m| cfg.traffic_class_maps.get(m)) {
        out.tc_to_queue = map.clone();
    }
    out.undefined = undefined(cfg, own, sys);
    for class in pick(|a| &a.queuing).and_then(|p| cfg.queuing_policies.get(p)).into_iter().flatten() {
        let queues = cfg.class_maps.get(&class.class).map(|cm| cm.queues.as_slice()).unwrap_or_default();
        for q in queues {
            out.queues.insert(*q, queue(cfg, class));
        }
    }
    out
}

/// One attachment of an interface or `system qos`.
type Attachment = fn(&QosAttachments) -> &Option<String>;

/// What a port may apply, as OS10 writes it, and the kind of definition it names.
const APPLIED: [(Attachment, &str, &str); 5] = [
    (|a| &a.network_qos, "service-policy input type network-qos", "policy-map type network-qos"),
    (|a| &a.queuing, "service-policy output type queuing", "policy-map type queuing"),
    (|a| &a.trust_dscp_map, "trust-map dscp", "trust dscp-map"),
    (|a| &a.trust_dot1p_map, "trust-map dot1p", "trust dot1p-map"),
    (|a| &a.traffic_class_map, "qos-map traffic-class", "qos-map traffic-class"),
];

/// Every defined name, by kind.
fn definitions(cfg: &DellConfig) -> [(&'static str, Vec<&String>); 6] {
    [
        ("policy-map type network-qos", cfg.network_qos_policies.keys().collect()),
        ("policy-map type queuing", cfg.queuing_policies.keys().collect()),
        ("trust dscp-map", cfg.dscp_trust_maps.keys().collect()),
        ("trust dot1p-map", cfg.dot1p_trust_maps.keys().collect()),
        ("qos-map traffic-class", cfg.traffic_class_maps.keys().collect()),
        ("class-map", cfg.class_maps.keys().collect()),
    ]
}

/// The maps and policies a port applies (its own, else `system qos`'s) that are not defined,
/// each with the defined name that differs from it only in case, `-` or `_`.
fn undefined(cfg: &DellConfig, own: &QosAttachments, sys: &QosAttachments) -> Vec<UndefinedReference> {
    let defs = definitions(cfg);
    let defined = defs.iter().flat_map(|(k, names)| names.iter().map(move |n| (*k, n.as_str())));
    APPLIED
        .iter()
        .filter_map(|(get, applied_as, kind)| {
            let name = get(own).as_ref().or(get(sys).as_ref())?;
            UndefinedReference::unless_defined(applied_as, kind, name, defined.clone())
        })
        .collect()
}

fn queue(cfg: &DellConfig, c: &EtsClass) -> QueueQos {
    let scheduler = if c.priority {
        Some(Scheduler::Strict)
    } else {
        c.bandwidth_percent.map(|weight| Scheduler::Weighted { weight })
    };
    let profile = c.wred_profile.as_ref().and_then(|p| cfg.wred_profiles.get(p));
    let ecn = profile.map(|p| {
        let green = p.colors.get("green");
        Ecn {
            enabled: p.ecn,
            min_bytes: green.and_then(|g| g.min.bytes),
            max_bytes: green.and_then(|g| g.max.bytes),
            probability_percent: green.and_then(|g| g.drop_probability),
            uncertain_unit: Threshold::uncertain_pair(green.map(|g| &g.min), green.map(|g| &g.max)),
        }
    });
    QueueQos { scheduler, ecn }
}

/// Sets each Ethernet and port-channel port's speed and link state from `show interface
/// status`; ports the configuration did not list are added. The table does not tell an
/// administratively shut port from one without link (both are `down`): `up` alone says the port
/// is administratively up.
pub fn apply_interfaces_status(model: &mut SwitchQos, status: &InterfaceStatus) {
    apply_port_statuses(model, &status.ports);
    name_ports(model);
}

/// Adds each port's packets sent and dropped per egress queue from `show queuing statistics`.
pub fn add_queuing_statistics(counters: &mut SwitchCounters, q: &QueuingStatistics) {
    for p in &q.ports {
        let port = counters.ports.entry(p.name.clone()).or_default();
        for (queue, stats) in &p.queues {
            port.queue_drops.insert(*queue, stats.dropped_packets);
            port.queue_tx_packets.insert(*queue, stats.packets);
        }
    }
}
