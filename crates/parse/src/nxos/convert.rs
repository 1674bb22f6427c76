//! Cisco NX-OS facts → the vendor-neutral model.
//!
//! NX-OS QoS is device-wide policy (`system qos`) that interfaces inherit, some of which an
//! interface can replace (`service-policy type qos|queuing`). [`system_policy`] is what every
//! port gets from `system qos`; [`to_model`] applies it to each Ethernet and port-channel
//! interface with the interface's own settings on top.
//!
//! Choices:
//! - PFC: the no-drop CoS values are the `pause pfc-cos` values of the system network-qos policy.
//!   A port with `priority-flow-control mode on` gets them; `mode off` gets `Some([])`; `mode
//!   auto` (the default) depends on DCBX negotiation with the peer, which a config cannot tell:
//!   `None`.
//! - Classification: the `policy-map type qos` on the port (else the system one): DSCP matches give
//!   `dscp_to_tc` (DSCP → qos-group) and trust `dscp`; CoS-only matches give trust `pcp` (the model
//!   has no CoS map); both kinds together leave trust `None`.
//! - Queues: the system classes `c-out-8q-qN` take qos-group N, so each class present gives TC N →
//!   queue N; `priority [level]` is strict, `bandwidth remaining percent`/`bandwidth percent` the
//!   weight; `random-detect ... ecn` is ECN on, without `ecn` it is WRED dropping (`enabled:
//!   false`); a `threshold burst-optimized` preset has no thresholds to give.
//! - MTU: the smaller of the interface `mtu` and the network-qos MTU of the no-drop classes (the
//!   largest lossless frame the port carries); whichever exists when only one does.

use super::running_config::{NxosConfig, NxosInterface, QueuingClass, ServicePolicies};
use crate::switch::{Ecn, PfcWatchdog, PortQos, QueueQos, Scheduler, SwitchQos, canonical_interface};

/// The model of one NX-OS running-config.
pub fn to_model(cfg: &NxosConfig) -> SwitchQos {
    let mut out = SwitchQos {
        hostname: cfg.hostname.clone(),
        pfc_watchdog: cfg.pfc_watchdog.map(|enabled| PfcWatchdog { enabled, ..PfcWatchdog::default() }),
        ..SwitchQos::default()
    };
    for iface in &cfg.interfaces {
        out.ports.insert(canonical_interface(&iface.name), port(cfg, Some(iface)));
    }
    out
}

/// What `system qos` gives every port: classification, queues and the lossless MTU. PFC is left
/// `None`: it is switched on per interface.
pub fn system_policy(cfg: &NxosConfig) -> PortQos {
    port(cfg, None)
}

/// The CoS values the system network-qos policy makes no-drop (`pause pfc-cos`), ascending.
pub fn no_drop_cos(cfg: &NxosConfig) -> Vec<u8> {
    let mut cos: Vec<u8> = network_qos(cfg).flat_map(|c| c.pfc_cos.iter().copied()).collect();
    cos.sort_unstable();
    cos.dedup();
    cos
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
            Some("on") => Some(no_drop_cos(cfg)),
            Some("off") => Some(Vec::new()),
            _ => None,
        },
        ..PortQos::default()
    };
    if let Some(policy) = own.qos_input.as_ref().or(sys.qos_input.as_ref()).and_then(|p| cfg.qos_policies.get(p)) {
        let (mut by_dscp, mut by_cos) = (false, false);
        for class in policy {
            let Some(cm) = cfg.class_maps.get(&class.class) else {
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
        if let Some(q) = class.queue {
            out.tc_to_queue.insert(q, q);
            out.queues.insert(q, queue(class));
        }
    }
    let class_mtu = network_qos(cfg).filter_map(|c| c.mtu).min();
    out.mtu = match (iface.and_then(|i| i.mtu), class_mtu) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
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
    });
    QueueQos { scheduler, ecn }
}
