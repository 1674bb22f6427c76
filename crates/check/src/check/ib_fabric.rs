//! The InfiniBand fabric from `iblinkinfo` (one host's view of every link, read where the
//! inventory sets `fabcheck_iblinkinfo=true`): each link down, narrower or slower than the policy,
//! or trained below what both its ends support (iblinkinfo's `Could be` note), is reported once,
//! on the pair of ports it joins.

use crate::policy::Policy;
use fabcheck_model::host::iblinkinfo::Iblinkinfo;
use fabcheck_model::{Finding, Severity};
use std::collections::BTreeSet;

/// Findings for the links `iblinkinfo` shows; `file` is its evidence.
pub fn check(view: &Iblinkinfo, file: &str, policy: &Policy) -> Vec<Finding> {
    let rules = policy.infiniband.clone().unwrap_or_default();
    let mut seen: BTreeSet<(String, String)> = BTreeSet::new();
    let mut findings = Vec::new();
    for node in &view.nodes {
        for link in &node.links {
            let Some(peer) = link.peer_name.as_deref().filter(|p| !p.is_empty()) else { continue };
            let (device, port) = end(&node.name, link.port);
            let here = format!("{device}:{port}");
            let there = match link.peer_port {
                Some(p) => {
                    let (d, p) = end(peer, p);
                    format!("{d}:{p}")
                }
                None => format!("{peer}:?"),
            };
            // Every link is listed from both of its ends: report it once.
            let key = if here <= there { (here.clone(), there.clone()) } else { (there.clone(), here.clone()) };
            if !seen.insert(key) {
                continue;
            }
            // Paths read host first, as a GPU's traffic leaves it.
            let path = if node.kind != "CA" && end(peer, 0).0 != peer {
                vec![there.clone(), here.clone()]
            } else {
                vec![here.clone(), there.clone()]
            };
            let f = |code: &str, severity, expected: String, actual: String, message: String| {
                let mut f = Finding::new(code, severity, &device, message)
                    .port(port.clone())
                    .expected_actual(expected, actual)
                    .evidence(file);
                f.path = path.clone();
                f
            };
            let state = link.state.as_deref().unwrap_or("unknown");
            let physical = link.physical_state.as_deref().unwrap_or("unknown");
            if state != "Active" || physical != "LinkUp" {
                findings.push(f(
                    "ib.port_down",
                    Severity::Critical,
                    "Active / LinkUp".into(),
                    format!("{state} / {physical}"),
                    format!("the InfiniBand link {here} ↔ {there} is {state} / {physical}"),
                ));
                continue;
            }
            let lanes = link.width.as_deref().and_then(|w| w.trim_end_matches(['X', 'x']).parse::<f64>().ok());
            let rate = lanes.zip(link.speed_gbps).map(|(l, s)| l * s);
            let width = link.width.clone().unwrap_or_default();
            if let Some(want) = rules.width.as_deref().filter(|w| !w.eq_ignore_ascii_case(&width)) {
                findings.push(f(
                    "ib.link_degraded",
                    Severity::Error,
                    want.to_string(),
                    width.clone(),
                    format!("the InfiniBand link {here} ↔ {there} trained at width {width} instead of {want}"),
                ));
            } else if let Some(message) = trained_down(link) {
                // Both ends say they support more: a cable, an optic or a port trained it down,
                // whatever the policy asks.
                let could = format!(
                    "{} × {} Gb/s",
                    link.could_be_width.as_deref().unwrap_or(&width),
                    link.could_be_gbps.or(link.speed_gbps).unwrap_or_default()
                );
                findings.push(f(
                    "ib.link_degraded",
                    Severity::Error,
                    could,
                    format!("{width} × {} Gb/s", link.speed_gbps.unwrap_or_default()),
                    format!("the InfiniBand link {here} ↔ {there} {message}"),
                ));
            } else if let (Some(want), Some(have)) = (rules.rate_gbps, rate)
                && have < want * 0.95
            {
                findings.push(f(
                    "ib.link_degraded",
                    Severity::Error,
                    format!("{want} Gb/s"),
                    format!("{have:.0} Gb/s"),
                    format!(
                        "the InfiniBand link {here} ↔ {there} runs {width} × {} Gb/s = {have:.0} Gb/s, below {want} Gb/s",
                        link.speed_gbps.unwrap_or_default()
                    ),
                ));
            }
        }
    }
    findings
}

/// What iblinkinfo's `Could be` note says of `link`, when both ends support more than it
/// trained at.
fn trained_down(link: &fabcheck_model::host::iblinkinfo::Link) -> Option<String> {
    let width = link.width.as_deref().unwrap_or("?");
    let speed = link.speed_gbps.unwrap_or_default();
    match (&link.could_be_width, link.could_be_gbps) {
        (None, None) => None,
        (Some(w), None) => Some(format!("trained at width {width} while both ends support {w}")),
        (None, Some(g)) => Some(format!("trained at {speed} Gb/s per lane while both ends support {g} Gb/s")),
        (Some(w), Some(g)) => Some(format!("trained at {width} × {speed} Gb/s while both ends support {w} × {g} Gb/s")),
    }
}

/// A port as the rest of fabcheck names it. iblinkinfo names a host's HCA by its node
/// description: `gpu01 mlx5_2` (current OFED: host and HCA, so port 1 is `mlx5_2/1`, as the host
/// checks name it) or `gpu-v100-0 HCA-1` (older: the port number only). Switches keep their name.
fn end(node: &str, port: u32) -> (String, String) {
    match node.split_once(' ') {
        Some((host, hca)) if hca.starts_with("mlx") => (host.to_string(), format!("{hca}/{port}")),
        Some((host, hca)) if hca.starts_with("HCA") => (host.to_string(), port.to_string()),
        _ => (node.to_string(), port.to_string()),
    }
}
