//! What the configurations of the CLI switch platforms (EOS, NX-OS, OS10) derive the same way
//! from a [`LabSwitch`]: the egress-queue profiles its ports need and its DSCP classification,
//! so that every platform writes the same lab state in its own syntax.
//!
//! A queue profile (ECN thresholds of the RoCE queue, CNP queue strict or not) is a device-wide
//! policy on these platforms that a port can replace with another one; a port whose queues
//! differ from the healthy profile (the `ecn-off`, `ecn-threshold` and `cnp-queue` faults) gets
//! a profile of its own, as an operator would write one.

use crate::build::{CNP_DSCP, ECN, ROCE_DSCP};
use crate::state::{EcnThresholds, LabSwitch, SwitchPort};
use std::fmt::Write as _;

/// The queue settings a port's profile carries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct QueueSettings {
    /// ECN marking thresholds of the RoCE queue (`None`: no marking).
    pub(crate) ecn: Option<EcnThresholds>,
    /// The CNP queue is strict priority.
    pub(crate) cnp_strict: bool,
}

impl QueueSettings {
    /// The profile of a healthy port.
    pub(crate) const HEALTHY: QueueSettings = QueueSettings { ecn: Some(ECN), cnp_strict: true };

    /// The settings of port `p`.
    pub(crate) fn of(p: &SwitchPort) -> QueueSettings {
        QueueSettings { ecn: p.ecn, cnp_strict: p.cnp_strict }
    }

    /// `ROCE_LOSSLESS`, with what differs from the healthy profile appended
    /// (`_ECN_20K_50K`, `_NO_ECN`, `_CNP_RR`).
    pub(crate) fn profile_name(self) -> String {
        let mut name = String::from("ROCE_LOSSLESS");
        match self.ecn {
            Some(e) if e == ECN => {}
            Some(e) => {
                let _ = write!(name, "_ECN_{}K_{}K", e.min_bytes / 1024, e.max_bytes / 1024);
            }
            None => name.push_str("_NO_ECN"),
        }
        if !self.cnp_strict {
            name.push_str("_CNP_RR");
        }
        name
    }
}

/// Every queue profile the switch's ports use, the healthy one included, sorted by name.
pub(crate) fn queue_profiles(sw: &LabSwitch) -> Vec<QueueSettings> {
    let mut profiles = vec![QueueSettings::HEALTHY];
    for p in &sw.ports {
        let q = QueueSettings::of(p);
        if !profiles.contains(&q) {
            profiles.push(q);
        }
    }
    profiles.sort_by_key(|q| q.profile_name());
    profiles
}

/// The DSCP classification a configuration states, by traffic class (ascending, DSCPs
/// ascending): the RoCE and CNP DSCPs always, and every DSCP off its class-selector default
/// (DSCP / 8), which the platforms apply without configuration.
pub(crate) fn dscp_classes(sw: &LabSwitch) -> Vec<(u8, Vec<usize>)> {
    let mut by_tc: Vec<(u8, Vec<usize>)> = Vec::new();
    for (d, &tc) in sw.dscp_to_tc.iter().enumerate() {
        if d == ROCE_DSCP || d == CNP_DSCP || tc as usize != d / 8 {
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
