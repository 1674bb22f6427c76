//! Switches: every port with a configuration judged against the policy ([`port`]), and the
//! switch's counters judged by the same rules as a NIC's.

pub mod big_red_switch;
mod lossless;
pub mod port;
pub mod unknown;
pub mod watchdog;

use super::counters::judge_port;
use crate::policy::Policy;
use fabcheck_model::facts::{CounterRead, SwitchFacts};
use fabcheck_model::switch::PortCounters;
use fabcheck_model::{CounterSample, Finding};
use std::collections::BTreeMap;

/// Judges a switch's counter deltas.
pub fn counters(device: &str, facts: &SwitchFacts, policy: &Policy) -> (Vec<Finding>, Vec<CounterSample>) {
    let mut findings = Vec::new();
    let mut samples = Vec::new();
    let Some(reads) = &facts.counters else { return (findings, samples) };
    findings.extend(watchdog::storms(device, reads));
    findings.extend(lossless::not_effective(device, facts, policy));
    for (port, after_port) in &reads.after.counters.ports {
        let Some(before_port) = reads.before.counters.ports.get(port) else { continue };
        let read = |c: &PortCounters, (started_ms, finished_ms): (u64, u64), files: &[String]| CounterRead {
            values: named(c),
            started_ms,
            finished_ms,
            files: files.to_vec(),
        };
        let (f, s) = judge_port(
            device,
            port,
            &read(before_port, reads.before_ms, &reads.before.files),
            &read(after_port, reads.after_ms, &reads.after.files),
            policy,
        );
        findings.extend(f);
        samples.extend(s);
    }
    // Counters are keyed by canonical name; findings name ports as the device prints them.
    for f in &mut findings {
        if let Some(port) = f.port.take() {
            f.port = Some(facts.qos.printed(&port).to_string());
        }
    }
    (findings, samples)
}

/// The ports judged against the policy, by the names the device prints
/// ([`fabcheck_model::switch::SwitchQos::printed`]): every port with a configuration, except
/// those down with no link seen to them (unused front-panel ports); `linked` are the ports LLDP
/// pairs, named the same way.
pub fn judged_ports<'a>(facts: &'a SwitchFacts, linked: &[String]) -> Vec<&'a str> {
    facts
        .qos
        .ports
        .iter()
        .map(|(key, p)| (p.name.as_deref().unwrap_or(key), p))
        .filter(|(name, p)| {
            linked.iter().any(|l| l == *name) || (p.oper_up != Some(false) && p.admin_up != Some(false))
        })
        .map(|(name, _)| name)
        .collect()
}

/// A switch port's counters under NIC-style names, so one set of policy rules judges both:
/// `rx_prio3_pause`, `tx_prio3_pause`, `queue3_drops`, `queue3_ecn_marked`.
fn named(c: &PortCounters) -> BTreeMap<String, u64> {
    let mut m = BTreeMap::new();
    for (p, v) in &c.pfc_rx {
        m.insert(format!("rx_prio{p}_pause"), *v);
    }
    for (p, v) in &c.pfc_tx {
        m.insert(format!("tx_prio{p}_pause"), *v);
    }
    for (q, v) in &c.queue_drops {
        m.insert(format!("queue{q}_drops"), *v);
    }
    for (q, v) in &c.ecn_marked {
        m.insert(format!("queue{q}_ecn_marked"), *v);
    }
    m
}
