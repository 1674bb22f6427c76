//! Real iblinkinfo outputs read by a host's facts stage and judged by the InfiniBand fabric
//! check.

use crate::check::ib_fabric::*;
use crate::policy::Policy;
use fabcheck_model::Finding;
use fabcheck_model::host::iblinkinfo::Iblinkinfo;
use std::collections::BTreeSet;

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
        fabcheck_model::facts::DeviceKind::Host(h) => h.iblinkinfo.expect("iblinkinfo read"),
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
