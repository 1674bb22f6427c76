//! What the configurations of the CLI switch platforms (EOS, NX-OS, OS10) derive the same way
//! from a [`LabSwitch`]: the egress-queue profiles its ports need and its DSCP classification,
//! so that every platform writes the same lab state in its own syntax.
//!
//! A queue profile (ECN thresholds of each lossless queue, CNP queue strict or not) is a
//! device-wide policy on these platforms that a port can replace with another one; a port whose
//! queues differ from the design's healthy profile (the `ecn-off`, `ecn-threshold` and
//! `cnp-queue` faults) gets a profile of its own, as an operator would write one.

use crate::build::ROCE_QUEUE_WEIGHT;
use crate::design::Design;
use crate::state::{EcnThresholds, LabSwitch, SwitchPort};
use std::fmt::Write as _;

/// The queue settings a port's profile carries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct QueueSettings {
    /// ECN marking thresholds of each queue (`None`: no marking).
    pub(crate) ecn: [Option<EcnThresholds>; 8],
    /// The CNP queue is strict priority.
    pub(crate) cnp_strict: bool,
}

impl QueueSettings {
    /// The profile of a healthy port of `design`.
    pub(crate) fn healthy(design: &Design) -> QueueSettings {
        QueueSettings { ecn: design.queue_ecn(), cnp_strict: design.cnp_strict() }
    }

    /// The settings of port `p`.
    pub(crate) fn of(p: &SwitchPort) -> QueueSettings {
        QueueSettings { ecn: p.ecn, cnp_strict: p.cnp_strict }
    }

    /// `ROCE_LOSSLESS`, with what differs from `design`'s healthy profile appended
    /// (`_ECN_20K_50K`, `_NO_ECN`, `_CNP_RR`; `_Q4` before them for a queue other than the RoCE
    /// class's).
    pub(crate) fn profile_name(self, design: &Design) -> String {
        let healthy = QueueSettings::healthy(design);
        let mut name = String::from("ROCE_LOSSLESS");
        for (q, (have, want)) in self.ecn.iter().zip(healthy.ecn).enumerate() {
            if *have == want {
                continue;
            }
            if q != usize::from(design.roce().tc) {
                let _ = write!(name, "_Q{q}");
            }
            match have {
                Some(e) => {
                    let _ = write!(name, "_ECN_{}K_{}K", e.min_bytes / 1024, e.max_bytes / 1024);
                }
                None => name.push_str("_NO_ECN"),
            }
        }
        if self.cnp_strict != healthy.cnp_strict {
            name.push_str(if self.cnp_strict { "_CNP_SP" } else { "_CNP_RR" });
        }
        name
    }

    /// The queues that mark ECN, ascending, with their thresholds.
    pub(crate) fn marking(&self) -> impl Iterator<Item = (usize, EcnThresholds)> + '_ {
        self.ecn.iter().enumerate().filter_map(|(q, e)| e.map(|e| (q, e)))
    }
}

/// The DWRR weight (bandwidth percent) of each lossless queue: [`ROCE_QUEUE_WEIGHT`] shared
/// between the design's lossless queues (50 for one, 25 each for two).
pub(crate) fn lossless_weight(design: &Design) -> u32 {
    ROCE_QUEUE_WEIGHT / design.lossless_tcs().len().max(1) as u32
}

/// Every queue profile the switch's ports use, the healthy one included, sorted by name.
pub(crate) fn queue_profiles(design: &Design, sw: &LabSwitch) -> Vec<QueueSettings> {
    let mut profiles = vec![QueueSettings::healthy(design)];
    for p in &sw.ports {
        let q = QueueSettings::of(p);
        if !profiles.contains(&q) {
            profiles.push(q);
        }
    }
    profiles.sort_by_key(|q| q.profile_name(design));
    profiles
}

/// The DSCP classification a configuration states, by traffic class (ascending, DSCPs
/// ascending): the design's DSCPs always, and every DSCP off its class-selector default
/// (DSCP / 8), which the platforms apply without configuration.
pub(crate) fn dscp_classes(design: &Design, sw: &LabSwitch) -> Vec<(u8, Vec<usize>)> {
    let named = design.named_dscps();
    let mut by_tc: Vec<(u8, Vec<usize>)> = Vec::new();
    for (d, &tc) in sw.dscp_to_tc.iter().enumerate() {
        if named.contains(&d) || tc as usize != d / 8 {
            match by_tc.iter_mut().find(|(t, _)| *t == tc) {
                Some((_, ds)) => ds.push(d),
                None => by_tc.push((tc, vec![d])),
            }
        }
    }
    by_tc.sort();
    by_tc
}

/// Numbers joined with `sep`: `26 48`, `26,48`.
pub(crate) fn joined(values: &[usize], sep: &str) -> String {
    values.iter().map(usize::to_string).collect::<Vec<_>>().join(sep)
}
