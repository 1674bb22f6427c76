//! Switches: each platform's outputs turned into the vendor-neutral model (its own file per
//! vendor; nothing else knows vendor syntax), and the switch's counters judged like a NIC's.

mod eos;
mod nvue;
mod sonic;

use super::counters::{Read, judge_port};
use super::outputs::Outputs;
use crate::policy::Policy;
use fabcheck_model::{CounterSample, Finding};
use fabcheck_model::switch::{LldpNeighbor, PortCounters, SwitchCounters, SwitchQos};
use std::collections::BTreeMap;

/// What the checks need from a switch.
#[derive(Debug, Clone, Default)]
pub struct SwitchFacts {
    /// Configuration and state in the neutral model.
    pub qos: SwitchQos,
    /// LLDP neighbours.
    pub lldp: Vec<LldpNeighbor>,
    /// Evidence file of the configuration (for findings).
    pub config_file: String,
    /// Evidence file of the LLDP table.
    pub lldp_file: String,
}

/// One phase's counters of a switch, and the evidence files they came from.
type CounterRead = (SwitchCounters, Vec<String>);

/// A platform's reading of its outputs.
struct Platform {
    qos: fn(&mut Outputs, &[String]) -> SwitchQos,
    counters: fn(&mut Outputs, &str, &[String]) -> Option<CounterRead>,
}

fn platform(name: &str) -> Option<Platform> {
    match name {
        "sonic" => Some(Platform { qos: sonic::qos, counters: sonic::counters }),
        "eos" => Some(Platform { qos: eos::qos, counters: eos::counters }),
        "nvue" | "cumulus" => Some(Platform { qos: nvue::qos, counters: nvue::counters }),
        _ => None,
    }
}

/// Reads a switch's facts and judges its counters; `None` for a platform fabcheck does not know.
pub fn check(
    out: &mut Outputs,
    platform_name: &str,
    policy: &Policy,
) -> Option<(SwitchFacts, Vec<Finding>, Vec<CounterSample>)> {
    let p = platform(platform_name)?;
    let lldp = out.get("lldp", None, fabcheck_parse::lldp::parse).map(|l| l.neighbors).unwrap_or_default();
    let mut linked: Vec<String> = lldp.iter().map(|n| n.local_port.clone()).collect();
    linked.sort();
    linked.dedup();
    let facts =
        SwitchFacts { qos: (p.qos)(out, &linked), lldp, config_file: out.file("config"), lldp_file: out.file("lldp") };
    let mut findings = Vec::new();
    let mut samples = Vec::new();
    if let (Some((before, files0)), Some((after, files1))) =
        ((p.counters)(out, "t0", &linked), (p.counters)(out, "t1", &linked))
    {
        let started = |phase: &str| files_started(out, phase);
        for (port, after_port) in &after.ports {
            let Some(before_port) = before.ports.get(port) else { continue };
            let read = |c: &PortCounters, started_ms: u64, files: &[String]| Read {
                values: named(c),
                started_ms,
                files: files.to_vec(),
            };
            let (f, s) = judge_port(
                out.device(),
                port,
                &read(before_port, started("t0"), &files0),
                &read(after_port, started("t1"), &files1),
                policy,
            );
            findings.extend(f);
            samples.extend(s);
        }
    }
    Some((facts, findings, samples))
}

/// When a phase's counter reads started: the earliest of its outputs.
fn files_started(out: &Outputs, phase: &str) -> u64 {
    out.started_ms_of_phase(phase).unwrap_or(0)
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
