//! What must change on a switch for a finding to clear, vendor-neutral: worked out once from
//! the finding's values, the policy and the switch's facts, so that each platform's module only
//! writes it in its syntax and no two platforms re-derive the same values apart.
//!
//! A finding whose values do not say what a command needs (a policy without the priorities, a
//! finding without a port) gives no change: no fix is better than one guessed.

use crate::policy::Policy;
use fabcheck_model::Finding;
use fabcheck_model::facts::SwitchFacts;
use fabcheck_model::switch::{PortQos, canonical_interface};

/// What restores the policy, or what to look at where nothing does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// PFC on exactly `on` (the policy's priorities); `off` are those on now that must not be.
    Pfc { on: Vec<u8>, off: Vec<u8> },
    /// Classify by DSCP; `classes` are the policy's DSCP → traffic class pairs the map needs.
    TrustDscp { classes: Vec<(u8, u8)> },
    /// DSCP `dscp` to traffic class `tc`; `now` is where it goes today (`None`: unmapped).
    DscpToTc { dscp: u8, tc: u8, now: Option<u8> },
    /// ECN marking on the RoCE traffic class `tc` (egress queue `queue`) from `min_kb` to
    /// `max_kb` (KiB: the midpoints of the policy's ranges).
    Ecn { tc: u8, queue: u8, min_kb: u64, max_kb: u64 },
    /// The CNP traffic class `tc` (egress queue `queue`) served strict priority.
    StrictQueue { tc: u8, queue: u8 },
    /// The PFC watchdog on the port.
    Watchdog,
    /// SONiC's PFC watchdog BIG_RED_SWITCH off (switch-wide).
    BigRedSwitchOff,
    /// The port's MTU at least this.
    Mtu(u32),
    /// Buffer profile `profile`'s xoff (headroom) raised to `xoff` bytes.
    Headroom { profile: String, xoff: u64 },
    /// The port applies `name` as `applied_as` (the vendor's words), which is not defined; the
    /// defined `similar` is the likely intended one.
    Repoint { applied_as: String, name: String, similar: String },
    /// The link is down or slow: the physical layer, nothing to configure.
    InspectLink { down: bool },
    /// Lossless priority `priority` dropped without a pause: PFC is not in effect at the port
    /// or its peer although configured.
    InspectLossless { priority: u8 },
}

/// The change that clears finding `f` of a switch, if one follows from what is known.
pub fn of(f: &Finding, facts: &SwitchFacts, policy: &Policy) -> Option<Change> {
    let port = || f.port.as_deref().and_then(|p| facts.qos.ports.get(&canonical_interface(p)));
    match f.code.as_str() {
        "switch.pfc_mismatch" => {
            let on = policy.lossless_priorities().filter(|p| !p.is_empty())?;
            let off = priorities(&f.actual)?.into_iter().filter(|p| !on.contains(p)).collect();
            Some(Change::Pfc { on, off })
        }
        "switch.trust_mismatch" if f.expected == "trust dscp" => {
            let classes = classes(policy);
            (!classes.is_empty()).then_some(Change::TrustDscp { classes })
        }
        "switch.dscp_map_mismatch" => {
            // `DSCP 26 → TC 3` expected; `DSCP 26 → TC 0` or `DSCP 26 → unmapped` found.
            let (dscp, tc) = dscp_tc(&f.expected)?;
            let now = dscp_tc(&f.actual).map(|(_, t)| t);
            Some(Change::DscpToTc { dscp, tc, now })
        }
        "switch.ecn_disabled" | "switch.ecn_threshold" => {
            // The check names the queue in its message (`... on queue 4 ...`): the class whose
            // queue that is, of the policy's lossless classes (the first when it names none).
            let queue: Option<u8> = f
                .message
                .split("queue ")
                .nth(1)
                .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
                .and_then(|q| q.parse().ok());
            let tcs = policy.lossless_classes().into_iter().filter_map(|c| c.switch_tc());
            let tc = tcs.clone().find(|tc| Some(queue_of(port(), *tc)) == queue).or_else(|| tcs.clone().next())?;
            let ecn = policy.ecn.as_ref()?;
            let (min_kb, max_kb) = (midpoint(ecn.min_threshold_kb?), midpoint(ecn.max_threshold_kb?));
            (min_kb < max_kb).then(|| Change::Ecn { tc, queue: queue_of(port(), tc), min_kb, max_kb })
        }
        "switch.cnp_queue_not_strict" => {
            let tc = policy.cnp_queue_strict()?;
            Some(Change::StrictQueue { tc, queue: queue_of(port(), tc) })
        }
        "switch.pfc_watchdog_disabled" => Some(Change::Watchdog),
        "switch.pfc_watchdog_big_red_switch" => Some(Change::BigRedSwitchOff),
        // The check says the MTU the hosts need in what it expected: `MTU ≥ 4200`.
        "switch.mtu_mismatch" => f.expected.strip_prefix("MTU ≥ ")?.trim().parse().ok().map(Change::Mtu),
        "switch.pfc_headroom_insufficient" => {
            // `xoff ≥ 62712 bytes` expected; `xoff 55120 bytes (pg_lossless_40000_300m_profile)` found.
            let xoff = f.expected.strip_prefix("xoff ≥ ")?.strip_suffix(" bytes")?.parse().ok()?;
            let profile = f.actual.rsplit_once(" (")?.1.strip_suffix(')')?.to_string();
            Some(Change::Headroom { profile, xoff })
        }
        "switch.qos_policy_undefined" => port()?.undefined.iter().find_map(|u| {
            let applied = format!("{} {} applied, not defined", u.applied_as, u.name);
            let (similar, _) = u.similar.clone().filter(|_| applied == f.actual)?;
            Some(Change::Repoint { applied_as: u.applied_as.clone(), name: u.name.clone(), similar })
        }),
        "switch.port_down" => Some(Change::InspectLink { down: true }),
        "switch.link_degraded" => Some(Change::InspectLink { down: false }),
        "switch.lossless_not_effective" => {
            // `no drops on priority 3, or pause frames before them`.
            let p = f.expected.strip_prefix("no drops on priority ")?.split(',').next()?;
            p.parse().ok().map(|priority| Change::InspectLossless { priority })
        }
        _ => None,
    }
}

/// The priorities of a finding's list (`3,4`, `none`).
fn priorities(list: &str) -> Option<Vec<u8>> {
    match list.trim() {
        "none" | "" => Some(Vec::new()),
        l => l.split(',').map(|p| p.trim().parse().ok()).collect(),
    }
}

/// `DSCP 26 → TC 3` → (26, 3).
fn dscp_tc(text: &str) -> Option<(u8, u8)> {
    let (dscp, tc) = text.strip_prefix("DSCP ")?.split_once(" → TC ")?;
    Some((dscp.parse().ok()?, tc.parse().ok()?))
}

/// Every DSCP the policy's lossless and CNP classes name, with the switch traffic class it must
/// reach.
pub fn classes(policy: &Policy) -> Vec<(u8, u8)> {
    policy
        .lossless_classes()
        .into_iter()
        .chain(policy.cnp.as_ref())
        .filter_map(|c| Some((c.dscps(), c.switch_tc()?)))
        .flat_map(|(dscps, tc)| dscps.iter().map(move |d| (*d, tc)))
        .collect()
}

/// A value well inside a range, whichever kilobyte the vendor means.
fn midpoint([lo, hi]: [u64; 2]) -> u64 {
    lo + (hi.saturating_sub(lo)) / 2
}

/// The egress queue of traffic class `tc` on the port (the class's own number when the facts
/// do not map it), as the port check reads it.
fn queue_of(port: Option<&PortQos>, tc: u8) -> u8 {
    port.map_or(tc, |p| crate::check::switch::port::queue_of(p, tc))
}

#[cfg(test)]
mod tests {
    use super::*;
    use fabcheck_model::Severity;

    fn change(code: &str, expected: &str, actual: &str) -> Option<Change> {
        let policy = Policy::parse(crate::policy::DEFAULT_POLICY, "built-in").unwrap();
        let f = Finding::new(code, Severity::Error, "leaf1", "m").port("Ethernet8").expected_actual(expected, actual);
        of(&f, &SwitchFacts::default(), &policy)
    }

    /// Issue 36: with several lossless classes, the ECN fix is for the class whose queue the
    /// finding names, and PFC goes on every lossless priority.
    #[test]
    fn with_several_lossless_classes_the_fix_is_for_the_queue_the_finding_names() {
        let policy = crate::policy::library::Design::find("sonic-lossless-3-4").unwrap().policy().unwrap();
        let at = |code: &str, message: &str, expected: &str, actual: &str| {
            let f = Finding::new(code, Severity::Error, "leaf1", message)
                .port("Ethernet8")
                .expected_actual(expected, actual);
            of(&f, &SwitchFacts::default(), &policy)
        };
        let ecn = at(
            "switch.ecn_threshold",
            "ECN Kmin on queue 4 is 20 KB, outside 512-2048 KB",
            "Kmin 512-2048 KB",
            "Kmin 20 KB",
        );
        assert_eq!(ecn, Some(Change::Ecn { tc: 4, queue: 4, min_kb: 1280, max_kb: 2560 }));
        let pfc = at("switch.pfc_mismatch", "PFC", "3,4", "3");
        assert_eq!(pfc, Some(Change::Pfc { on: vec![3, 4], off: vec![] }));
        assert_eq!(at("switch.cnp_queue_not_strict", "m", "", ""), None, "SONiC's design weights the CNP queue");
    }

    #[test]
    fn values_come_from_the_finding_and_the_policy() {
        assert_eq!(change("switch.pfc_mismatch", "3", "3,4"), Some(Change::Pfc { on: vec![3], off: vec![4] }));
        assert_eq!(change("switch.pfc_mismatch", "3", "none"), Some(Change::Pfc { on: vec![3], off: vec![] }));
        assert_eq!(
            change("switch.dscp_map_mismatch", "DSCP 26 → TC 3", "DSCP 26 → unmapped"),
            Some(Change::DscpToTc { dscp: 26, tc: 3, now: None })
        );
        // The built-in policy: Kmin 100-400 KB, Kmax 1000-3000 KB.
        assert_eq!(
            change("switch.ecn_threshold", "Kmin 100-400 KB", "Kmin 20 KB"),
            Some(Change::Ecn { tc: 3, queue: 3, min_kb: 250, max_kb: 2000 })
        );
        assert_eq!(change("switch.cnp_queue_not_strict", "", ""), Some(Change::StrictQueue { tc: 6, queue: 6 }));
        assert_eq!(change("switch.mtu_mismatch", "MTU ≥ 4200", "MTU 1500"), Some(Change::Mtu(4200)));
        assert_eq!(
            change("switch.pfc_headroom_insufficient", "xoff ≥ 62712 bytes", "xoff 55120 bytes (pg_lossless_300m)"),
            Some(Change::Headroom { profile: "pg_lossless_300m".into(), xoff: 62712 })
        );
        assert_eq!(
            change("switch.lossless_not_effective", "no drops on priority 3, or pause frames before them", ""),
            Some(Change::InspectLossless { priority: 3 })
        );
        assert_eq!(
            change("switch.trust_mismatch", "trust dscp", "trust pcp"),
            Some(Change::TrustDscp { classes: vec![(26, 3), (48, 6)] })
        );
    }

    #[test]
    fn what_the_finding_does_not_say_gives_no_change() {
        assert_eq!(change("switch.pfc_mismatch", "3", "3,x"), None, "an unreadable list");
        assert_eq!(change("switch.mtu_mismatch", "", ""), None);
        assert_eq!(change("switch.qos_policy_undefined", "", ""), None, "no such reference on the port");
        assert_eq!(change("switch.trust_mismatch", "trust pcp", "trust dscp"), None, "the policy is not DSCP");
        assert_eq!(change("counter.rx_discards", "", ""), None, "a consequence");
    }
}
