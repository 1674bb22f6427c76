//! DCQCN's loop, end to end: a switch port marks ECN on packets it queues; the receiving NIC
//! (notification point) answers each marked flow with CNPs; the sending NIC (reaction point) slows
//! down when they arrive (PFC, ECN and DCQCN alike at every hop: Zhu et al., "Congestion Control for
//! Large-Scale RDMA Deployments", SIGCOMM 2015). When the switches on
//! a host's paths marked packets during the window and that host's NIC did not do its part, the
//! marks were lost and PFC pauses did all the work: `nic.dcqcn_inactive`, on the host side that
//! does not close the loop.
//!
//! Which side is judged follows where the marks were set. A port that sends toward the host (the
//! leaf's host port, the spine's port down to the host's leaf) marks packets the host receives:
//! its `np_cnp_sent` must grow. A leaf uplink marks packets the leaf's hosts send: their
//! `rp_cnp_handled` must grow, provided CNPs were sent at all (some host's `np_cnp_sent` grew).

use crate::topology::{End, Topology};
use fabcheck_model::{CounterSample, Finding, Severity};
use std::collections::{BTreeMap, BTreeSet};

/// Fewer marks than this in the window prove nothing: the NIC rate-limits CNPs
/// (`min_time_between_cnps`) and each device's two reads are taken at their own moments.
pub const MIN_MARKS: u64 = 100;

/// The `nic.dcqcn_inactive` findings for the half-paths of `topo`, from the counters' deltas;
/// each names as `caused_by` the NIC's own `nic.dcqcn_disabled` finding where there is one.
pub fn open_loops(topo: &Topology, counters: &[CounterSample], findings: &[Finding]) -> Vec<Finding> {
    let marks = deltas(counters, |name| name.starts_with("queue") && name.ends_with("_ecn_marked"));
    let cnp_sent = deltas(counters, |name| name == "np_cnp_sent");
    let cnp_handled = deltas(counters, |name| name == "rp_cnp_handled");
    let cnps_flowing = cnp_sent.values().any(|d| *d > 0);
    let mut toward: BTreeMap<End, (u64, BTreeSet<String>)> = BTreeMap::new();
    let mut away: BTreeMap<End, (u64, BTreeSet<String>)> = BTreeMap::new();
    for path in topo.half_paths() {
        let [nic, hops @ ..] = path.hops.as_slice() else { continue };
        // hops: leaf host port (toward the host), leaf uplink (away), spine port (toward).
        for (i, hop) in hops.iter().enumerate() {
            let Some(&n) = marks.get(hop).filter(|n| **n > 0) else { continue };
            let side = if i == 1 { &mut away } else { &mut toward };
            let entry = side.entry(nic.clone()).or_default();
            entry.0 = entry.0.max(n);
            entry.1.insert(hop.hop());
        }
    }
    let mut out = Vec::new();
    for (nic, (n, hops)) in &toward {
        if *n >= MIN_MARKS && cnp_sent.get(nic) == Some(&0) {
            out.push(finding(nic, "NP", "np_cnp_sent", *n, hops, "it sent no CNP", findings));
        }
    }
    for (nic, (n, hops)) in &away {
        if *n >= MIN_MARKS && cnps_flowing && cnp_handled.get(nic) == Some(&0) {
            out.push(finding(nic, "RP", "rp_cnp_handled", *n, hops, "it handled no CNP", findings));
        }
    }
    out
}

/// Deltas over the window of the counters `wanted` selects, summed per port.
fn deltas(counters: &[CounterSample], wanted: impl Fn(&str) -> bool) -> BTreeMap<End, u64> {
    let mut out: BTreeMap<End, u64> = BTreeMap::new();
    for c in counters.iter().filter(|c| wanted(&c.counter)) {
        if let Some(d) = c.delta {
            *out.entry(End { device: c.device.clone(), port: c.port.clone() }).or_default() += d;
        }
    }
    out
}

fn finding(
    nic: &End,
    point: &str,
    counter: &str,
    marks: u64,
    hops: &BTreeSet<String>,
    what: &str,
    findings: &[Finding],
) -> Finding {
    let hops: Vec<&str> = hops.iter().map(String::as_str).collect();
    let mut f = Finding::new(
        "nic.dcqcn_inactive",
        Severity::Error,
        &nic.device,
        format!(
            "{} marked up to {marks} packets with ECN on {}'s paths during the window, but {what} ({counter} +0): the DCQCN {point} side does not close the loop, so congestion is left to PFC pauses",
            hops.join(", "),
            nic.hop()
        ),
    )
    .port(nic.port.clone())
    .expected_actual(format!("{counter} growing with the ECN marks"), format!("{counter} +0"));
    f.path = std::iter::once(nic.hop()).chain(hops.iter().map(|h| h.to_string())).collect();
    if findings.iter().any(|d| {
        d.code == "nic.dcqcn_disabled" && d.device == nic.device && d.port.as_deref() == Some(nic.port.as_str())
    }) {
        f.caused_by.push("nic.dcqcn_disabled".into());
    }
    f
}
