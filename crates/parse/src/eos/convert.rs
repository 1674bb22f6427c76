//! Arista EOS facts → the vendor-neutral model ([`crate::switch`]).
//!
//! [`to_model`] resolves each interface's `service-profile` into the `qos profile` it names and
//! lets the interface's own lines win, setting by setting (queue by queue, priority by priority),
//! as EOS does. The operational sources then refine the configured model:
//! [`apply_interfaces_status`] sets speed and oper state, [`apply_qos_interfaces`] the trust mode
//! and queue scheduling the switch reports, and [`to_counters`] turns PFC counters into
//! [`SwitchCounters`].
//!
//! Choices (the model cannot say "platform default", so nothing is guessed):
//! - PFC: EOS has PFC off unless `priority-flow-control on`, and a running-config is complete,
//!   so a port without it gets `Some([])`; `priority-flow-control all off` forces `Some([])`
//!   everywhere. A port with PFC on lists its `no-drop` priorities, and PFC on without any
//!   `no-drop` priority is lossless on none: `Some([])` too.
//! - DSCP → TC and TC → queue are the configured `qos map` lines only; EOS's built-in default
//!   maps are not filled in.
//! - Trust: `dscp`, `pcp` (EOS `cos`), or `untrusted` (`no qos trust`); `None` when the config
//!   does not say (EOS then trusts CoS on switchports and DSCP on routed ports).
//! - Scheduler: `priority strict` → strict; `no priority` → weighted with the queue's `bandwidth
//!   percent` (0 when none is configured); neither → `None` (EOS queues are strict by default
//!   unless a higher queue is round-robin, which is left to the operational `show qos interfaces`).
//! - ECN: `random-detect ecn` thresholds (bytes when the unit allows); a queue with only
//!   `random-detect drop` gets ECN `enabled: false` with the drop thresholds.
//! - MTU: `mtu`, else `l2 mtu`. Watchdog action: `notify-only` becomes `alert`, others are kept.

use super::interfaces_status::InterfacesStatus;
use super::pfc_counters::PfcCounters;
use super::qos_interfaces::{QosInterfaces, QueueFlag};
use super::queue_counters::QueueCounters;
use super::running_config::{EosConfig, Interface, QosSettings, TxQueue, WatchdogTimers, Wred};
use crate::cli_tree::Threshold;
use crate::status_table::{apply_port_statuses, is_fabric_port};
use crate::switch::{
    Ecn, PfcWatchdog, PortCounters, PortQos, QueueQos, Scheduler, SwitchCounters, SwitchQos, canonical_interface,
};
use std::collections::BTreeMap;

/// The model of one EOS running-config.
pub fn to_model(cfg: &EosConfig) -> SwitchQos {
    let mut out =
        SwitchQos { hostname: cfg.hostname.clone(), pfc_watchdog: watchdog(&cfg.pfc_watchdog), ..SwitchQos::default() };
    for iface in &cfg.interfaces {
        let profile = iface.service_profile.as_ref().and_then(|p| cfg.profiles.get(p));
        out.ports.insert(canonical_interface(&iface.name), port(cfg, iface, profile));
    }
    out
}

fn port(cfg: &EosConfig, iface: &Interface, profile: Option<&QosSettings>) -> PortQos {
    let empty = QosSettings::default();
    let (own, prof) = (&iface.qos, profile.unwrap_or(&empty));
    let pfc_on = !cfg.pfc_all_off && own.pfc.or(prof.pfc).unwrap_or(false);
    let mut no_drop = prof.pfc_no_drop.clone();
    no_drop.extend(own.pfc_no_drop.iter().map(|(p, nd)| (*p, *nd)));
    let lossless = no_drop.iter().filter(|(_, nd)| **nd).map(|(p, _)| *p);
    let trust = own.trust.as_ref().or(prof.trust.as_ref()).map(|t| match t.as_str() {
        "cos" => "pcp".to_string(),
        other => other.to_string(),
    });
    let mut queues = prof.tx_queues.clone();
    for (q, tx) in &own.tx_queues {
        let merged = merge_queue(queues.get(q), tx);
        queues.insert(*q, merged);
    }
    PortQos {
        lossless_priorities: Some(if pfc_on { lossless.collect() } else { Vec::new() }),
        trust,
        dscp_to_tc: cfg.dscp_to_tc.clone(),
        tc_to_queue: cfg.tc_to_queue.clone(),
        queues: queues.iter().filter_map(|(q, tx)| queue(tx).map(|m| (*q, m))).collect(),
        pfc_watchdog: own.pfc_watchdog.or(prof.pfc_watchdog),
        mtu: iface.mtu.or(iface.l2_mtu),
        speed_mbps: iface.speed_mbps,
        admin_up: iface.shutdown.map(|down| !down),
        oper_up: None,
        alias: None,
        ..PortQos::default()
    }
}

/// An interface's `tx-queue` block over its profile's: each setting the interface states wins.
fn merge_queue(base: Option<&TxQueue>, own: &TxQueue) -> TxQueue {
    let Some(base) = base else {
        return own.clone();
    };
    TxQueue {
        strict: own.strict.or(base.strict),
        bandwidth_percent: own.bandwidth_percent.or(base.bandwidth_percent),
        bandwidth_guaranteed_percent: own.bandwidth_guaranteed_percent.or(base.bandwidth_guaranteed_percent),
        ecn: own.ecn.clone().or_else(|| base.ecn.clone()),
        wred_drop: own.wred_drop.clone().or_else(|| base.wred_drop.clone()),
        ecn_count: own.ecn_count || base.ecn_count,
    }
}

fn queue(tx: &TxQueue) -> Option<QueueQos> {
    let scheduler = match tx.strict {
        Some(true) => Some(Scheduler::Strict),
        Some(false) => Some(Scheduler::Weighted { weight: tx.bandwidth_percent.unwrap_or(0) }),
        None => None,
    };
    let ecn = match (&tx.ecn, &tx.wred_drop) {
        (Some(e), _) => Some(ecn(e, true)),
        (None, Some(d)) => Some(ecn(d, false)),
        (None, None) => None,
    };
    (scheduler.is_some() || ecn.is_some()).then_some(QueueQos { scheduler, ecn })
}

fn ecn(w: &Wred, enabled: bool) -> Ecn {
    Ecn {
        enabled,
        min_bytes: w.min.bytes,
        max_bytes: w.max.bytes,
        probability_percent: w.probability_percent,
        uncertain_unit: Threshold::uncertain_pair(Some(&w.min), Some(&w.max)),
    }
}

fn watchdog(t: &WatchdogTimers) -> Option<PfcWatchdog> {
    if *t == WatchdogTimers::default() {
        return None;
    }
    let ms = |s: Option<f64>| s.map(|s| (s * 1000.0).round().min(u32::MAX as f64) as u32);
    Some(PfcWatchdog {
        enabled: t.timeout_s.is_some_and(|s| s > 0.0),
        detection_ms: ms(t.timeout_s),
        restoration_ms: ms(t.recovery_time_s),
        action: t.action.as_deref().map(|a| match a {
            "notify-only" => "alert".to_string(),
            other => other.to_string(),
        }),
        big_red_switch: None,
        note: None,
    })
}

/// Sets each port's speed and oper state from `show interfaces status` (only Ethernet and
/// port-channel ports). The operational speed replaces the configured one; ports the config did
/// not list are added.
pub fn apply_interfaces_status(model: &mut SwitchQos, status: &InterfacesStatus) {
    apply_port_statuses(model, &status.ports);
}

/// Sets each port's trust mode and queue scheduling from `show qos interfaces`: what the switch
/// reports replaces what the config implied (it resolves EOS's defaults). ECN thresholds stay as
/// configured; only whether marking is on comes from the table.
pub fn apply_qos_interfaces(model: &mut SwitchQos, qos: &QosInterfaces) {
    for i in qos.interfaces.iter().filter(|i| is_fabric_port(&i.name)) {
        let port = model.ports.entry(i.name.clone()).or_default();
        if let Some(t) = &i.trust {
            port.trust = Some(t.clone());
        }
        for q in &i.queues {
            let entry = port.queues.entry(q.queue).or_default();
            match q.strict {
                Some(true) => entry.scheduler = Some(Scheduler::Strict),
                Some(false) => entry.scheduler = Some(Scheduler::Weighted { weight: q.bandwidth_percent.unwrap_or(0) }),
                None => {}
            }
            match q.ecn_wred {
                Some(QueueFlag::Ecn) => entry.ecn.get_or_insert_with(Ecn::default).enabled = true,
                Some(QueueFlag::Wred | QueueFlag::Disabled) => {
                    entry.ecn.get_or_insert_with(Ecn::default).enabled = false;
                }
                None => {}
            }
        }
    }
}

/// PFC frames per port and priority from `show priority-flow-control counters detail`. Ports
/// printed only with totals (no priority) have no per-priority counters to give.
pub fn to_counters(c: &PfcCounters) -> SwitchCounters {
    let mut ports: BTreeMap<String, PortCounters> = BTreeMap::new();
    for p in c.ports.iter().filter(|p| is_fabric_port(&p.name)) {
        let port = ports.entry(p.name.clone()).or_default();
        for (prio, rx) in &p.rx {
            port.pfc_rx.insert(*prio, *rx);
        }
        for (prio, tx) in &p.tx {
            port.pfc_tx.insert(*prio, *tx);
        }
    }
    SwitchCounters { ports }
}

/// Adds the packets each port sent and dropped per traffic class from `show interfaces counters
/// queue detail`, summed over drop precedences and destination types, on the egress queue
/// `queue_of(port, class)` names: the table names classes, which the switch's configuration
/// maps to queues (`qos map traffic-class T to tx-queue Q`; EOS's default is Q = T).
pub fn add_queue_counters(counters: &mut SwitchCounters, q: &QueueCounters, queue_of: impl Fn(&str, u8) -> u8) {
    for r in q.rows.iter().filter(|r| is_fabric_port(&r.name)) {
        let queue = queue_of(&r.name, r.traffic_class);
        let port = counters.ports.entry(r.name.clone()).or_default();
        *port.queue_drops.entry(queue).or_default() += r.dropped;
        *port.queue_tx_packets.entry(queue).or_default() += r.enqueued;
    }
}
