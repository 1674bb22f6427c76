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

#[cfg(test)]
mod tests {
    use super::*;

    /// A real Quantum HDR switch with V100 hosts whose links trained at EDR speed (nccl-tests#71).
    const SAMPLE: &str = include_str!(
        "../../crates/parse/tests/fixtures/iblinkinfo/iblinkinfo-mqm8700-hdr-switch-25g-lanes-nccl-tests-71-PARTIAL.txt"
    );

    /// The sample as the facts stage reads it from a host's evidence.
    fn sample_view() -> Iblinkinfo {
        view_of("gpu-v100-0", SAMPLE)
    }

    /// `text`, host `host`'s iblinkinfo output, as the facts stage reads it.
    fn view_of(host: &str, text: &str) -> Iblinkinfo {
        use crate::evidence::testing::{host_record, output};
        let record = host_record(host, vec![output("iblinkinfo", text, 0)]);
        match crate::facts::build(&record).kind {
            crate::facts::DeviceKind::Host(h) => h.iblinkinfo.expect("iblinkinfo read"),
            _ => unreachable!("a reachable linux host"),
        }
    }

    fn policy(text: &str) -> Policy {
        Policy::parse(text, "p").unwrap()
    }

    #[test]
    fn edr_links_on_an_hdr_fabric_are_reported_once_per_link() {
        let view = sample_view();
        let found = check(&view, "gpu-v100-0/iblinkinfo.txt", &policy("infiniband: { rate_gbps: 200, width: 4X }\n"));
        let degraded: BTreeSet<String> =
            found.iter().filter(|f| f.code == "ib.link_degraded").map(|f| f.path.join(" ↔ ")).collect();
        assert_eq!(
            degraded,
            BTreeSet::from([
                "gpu-v100-0:1 ↔ MF0;ibswitch254:MQM8700/U1:1".to_string(),
                "gpu-v100-1:1 ↔ MF0;ibswitch254:MQM8700/U1:2".to_string(),
                "gpu-v100-2:1 ↔ MF0;ibswitch254:MQM8700/U1:4".to_string(),
                "gpu-v100-3:1 ↔ MF0;ibswitch254:MQM8700/U1:3".to_string(),
            ]),
            "the four hosts at 4X 25.78125 Gb/s (103 Gb/s); the aggregation node at 53.125 is fine: {found:#?}"
        );
        let one = found.iter().find(|f| f.path.contains(&"gpu-v100-0:1".to_string())).unwrap();
        assert_eq!((one.expected.as_str(), one.actual.as_str()), ("200 Gb/s", "103 Gb/s"));
        assert_eq!(one.evidence, ["gpu-v100-0/iblinkinfo.txt"]);
        assert!(found.iter().all(|f| f.code == "ib.link_degraded"), "no link is down in the sample");
    }

    #[test]
    fn a_fabric_at_its_rate_is_clean_and_a_down_link_is_named() {
        let view = sample_view();
        assert!(check(&view, "f", &policy("infiniband: { rate_gbps: 100, width: 4X }\n")).is_empty());
        let mut down = view.clone();
        down.nodes[0].links[0].state = Some("Down".into());
        down.nodes[0].links[0].physical_state = Some("Polling".into());
        let found = check(&down, "f", &policy("infiniband: { rate_gbps: 100 }\n"));
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].code.as_str(), found[0].actual.as_str()), ("ib.port_down", "Down / Polling"));
    }

    /// HDR-capable ends trained at EDR (`Could be 53.125 Gbps`) are degraded links even when the
    /// policy asks nothing of the rate: four such links on a Quantum switch, once each.
    #[test]
    fn links_trained_below_what_both_ends_support_are_degraded() {
        let text = include_str!(
            "../../crates/parse/tests/fixtures/iblinkinfo/quantum-hdr-switch-S-41port-edr-hosts-could-be-53.125-polling.txt"
        );
        let view = view_of("ubuntu", text);
        let found = check(&view, "ubuntu/iblinkinfo.txt", &policy(""));
        let degraded: Vec<&Finding> = found.iter().filter(|f| f.code == "ib.link_degraded").collect();
        assert_eq!(degraded.len(), 4, "{found:#?}");
        assert!(found.iter().all(|f| f.code == "ib.link_degraded"), "down ports without a peer are not links");
        let one = degraded[0];
        assert_eq!((one.expected.as_str(), one.actual.as_str()), ("4X × 53.125 Gb/s", "4X × 25.78125 Gb/s"));
        assert!(one.message.contains("while both ends support 53.125 Gb/s"), "{}", one.message);
    }
}
