//! The first-run hint: when most ports fail one design check the same way (80 % of the RoCE
//! ports lossless on priorities 3 and 4 where the policy says 3), the fabric was most likely
//! built to another design, not broken everywhere at once. The verdict says so once, before the
//! incidents, names the reference design the fabric matches if one does, and points to
//! `fabcheck policy infer`; the findings are reported all the same.

use super::infer;
use super::sample::DeviceSample;
use crate::policy::library::LIBRARY;
use crate::policy::{Policy, Requirement};
use fabcheck_model::{DesignHint, Finding};
use std::collections::{BTreeMap, BTreeSet};

/// The share of ports that must fail a check the same way: four in five.
const MOST: (usize, usize) = (4, 5);
/// Fewer ports than this are too few to call anything a design.
const FEWEST_PORTS: usize = 3;

/// Checks of a host NIC port's design settings.
const HOST_DESIGN_CHECKS: [&str; 5] =
    ["nic.pfc_mismatch", "nic.dscp_map_mismatch", "nic.cnp_mismatch", "nic.dcqcn_disabled", "nic.trust_mismatch"];
/// Checks of a switch port's design settings.
const SWITCH_DESIGN_CHECKS: [&str; 7] = [
    "switch.pfc_mismatch",
    "switch.dscp_map_mismatch",
    "switch.ecn_disabled",
    "switch.ecn_threshold",
    "switch.cnp_queue_not_strict",
    "switch.trust_mismatch",
    "switch.pfc_watchdog_disabled",
];

/// A port, as `(device, port)`.
type Port<'a> = (&'a str, &'a str);

/// The hint, when most ports fail a design check with the same actual value.
pub fn hint(samples: &[DeviceSample], policy: &Policy, findings: &[Finding]) -> Option<DesignHint> {
    let ports = |switch: bool| samples.iter().filter(|d| d.switch == switch).map(|d| d.ports.len()).sum::<usize>();
    let (host_ports, switch_ports) = (ports(false), ports(true));
    // Per (code, expected, actual), the ports that fail that way.
    let mut failing: BTreeMap<(&str, &str, &str), BTreeSet<Port>> = BTreeMap::new();
    for f in findings {
        if HOST_DESIGN_CHECKS.contains(&f.code.as_str()) || SWITCH_DESIGN_CHECKS.contains(&f.code.as_str()) {
            let port = f.port.as_deref().unwrap_or("");
            failing.entry((&f.code, &f.expected, &f.actual)).or_default().insert((&f.device, port));
        }
    }
    let widespread: Vec<String> = failing
        .iter()
        .filter_map(|((code, expected, actual), at)| {
            let (of, unit) =
                if code.starts_with("nic.") { (host_ports, "host ports") } else { (switch_ports, "switch ports") };
            (of >= FEWEST_PORTS && at.len() * MOST.1 >= of * MOST.0)
                .then(|| format!("{code} on {} of {of} {unit}: {actual} (the policy: {expected})", at.len()))
        })
        .collect();
    if widespread.is_empty() {
        return None;
    }
    let fleet = infer(samples, "inferred").ok()?.policy;
    let matches: Vec<String> = LIBRARY
        .iter()
        .filter(|d| Some(d.name) != policy.name.as_deref())
        .filter(|d| d.policy().is_ok_and(|design| fits(&fleet, &design)))
        .map(|d| d.name.to_string())
        .collect();
    let matching = match matches.as_slice() {
        [] => "no reference design matches it".to_string(),
        [one] => format!("it matches the reference design {one} (`--policy {one}`)"),
        several => format!("it matches the reference designs {}", several.join(", ")),
    };
    Some(DesignHint {
        message: format!(
            "the fabric looks built to another design than the policy {}: most ports fail the same check the same way; {matching}; `fabcheck policy infer` writes the policy it runs",
            policy.display_name()
        ),
        widespread,
        matches,
    })
}

/// Whether a fleet that runs `fleet` (an inferred policy) is built to `design`: the same
/// lossless priorities; each of the design's classes on the same priority and traffic class with
/// all its DSCPs; its CNP class where it has one; DCQCN and ECN where it asks for them, and not
/// DCQCN where it leaves it out on purpose.
pub fn fits(fleet: &Policy, design: &Policy) -> bool {
    if design.lossless_priorities() != fleet.lossless_priorities() {
        return false;
    }
    let fleet_classes = fleet.lossless_classes();
    let classes_fit = design.lossless_classes().iter().all(|want| {
        fleet_classes.iter().any(|have| {
            have.priority == want.priority
                && have.switch_tc() == want.switch_tc()
                && want.dscps().iter().all(|d| have.dscps().contains(d))
                && (fleet.class_ecn(have) == Some(true) || design.class_ecn(want) != Some(true))
        })
    });
    let cnp_fits = match (&design.cnp, &fleet.cnp) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some(want), Some(have)) => {
            want.dscps() == have.dscps()
                && want.priority.is_none_or(|p| have.priority == Some(p))
                && want.switch_tc().is_none_or(|t| have.switch_tc() == Some(t))
                && (design.cnp_queue_strict().is_none() || fleet.cnp_queue_strict().is_some())
        }
    };
    let dcqcn = |p: &Policy| p.nic.as_ref().and_then(|n| n.dcqcn);
    let dcqcn_fits = match dcqcn(design) {
        Some(Requirement::Required) => dcqcn(fleet) == Some(Requirement::Required),
        Some(Requirement::Ignore) => dcqcn(fleet) != Some(Requirement::Required),
        None => true,
    };
    classes_fit && cnp_fits && dcqcn_fits
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::library::Design;

    fn design(name: &str) -> Policy {
        Design::find(name).unwrap().policy().unwrap()
    }

    /// Each reference design fits itself and no other: the hint never offers two designs for
    /// one fabric built to a reference.
    #[test]
    fn each_design_fits_itself_and_no_other() {
        for a in LIBRARY {
            for b in LIBRARY {
                let fit = fits(&design(a.name), &design(b.name));
                assert_eq!(fit, a.name == b.name, "a fleet built to {} fits {}: {fit}", a.name, b.name);
            }
        }
    }

    #[test]
    fn a_fleet_on_sonics_design_audited_by_the_built_in_policy_gets_the_hint() {
        let sonic_port = |name: &str| super::super::sample::PortSample { port: name.into(), ..Default::default() };
        let samples: Vec<DeviceSample> = (0..4)
            .map(|i| DeviceSample {
                name: format!("gpu{i}"),
                ports: vec![sonic_port("mlx5_0"), sonic_port("mlx5_1")],
                ..DeviceSample::default()
            })
            .collect();
        let finding = |device: &str, port: &str| {
            Finding::new("nic.pfc_mismatch", fabcheck_model::Severity::Critical, device, "PFC")
                .port(port)
                .expected_actual("PFC on priorities 3", "PFC on priorities 3,4")
        };
        let policy = design("roce-lossless-prio3");
        let all: Vec<Finding> =
            samples.iter().flat_map(|d| [finding(&d.name, "mlx5_0"), finding(&d.name, "mlx5_1")]).collect();
        assert_eq!(hint(&samples, &policy, &all[..6]), None, "6 of 8 is not most");
        let hinted = hint(&samples, &policy, &all[..7]).expect("7 of 8 is most");
        assert_eq!(
            hinted.widespread,
            ["nic.pfc_mismatch on 7 of 8 host ports: PFC on priorities 3,4 (the policy: PFC on priorities 3)"]
        );
        assert!(hinted.message.contains("`fabcheck policy infer`"), "{}", hinted.message);
    }
}
