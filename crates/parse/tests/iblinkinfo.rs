//! `iblinkinfo` on the real sample in tests/fixtures/iblinkinfo (see SOURCES.md there).
use fabcheck_parse::linux::iblinkinfo::parse;

#[test]
fn hdr_switch_with_edr_hosts_elided_and_cut() {
    let text = include_str!("fixtures/iblinkinfo/iblinkinfo-mqm8700-hdr-switch-25g-lanes-nccl-tests-71-PARTIAL.txt");
    let parsed = parse(text).expect("parses");
    let nodes = &parsed.value.nodes;
    let names: Vec<&str> = nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "gpu-v100-3 HCA-1",
            "Mellanox Technologies Aggregation Node",
            "gpu-v100-1 HCA-1",
            "gpu-v100-0 HCA-1",
            "MF0;ibswitch254:MQM8700/U1"
        ]
    );
    let host = &nodes[0];
    assert_eq!((host.kind.as_str(), host.guid.as_deref()), ("CA", Some("0xb88303ffff7f61c4")));
    let l = &host.links[0];
    assert_eq!((l.lid, l.port, l.width.as_deref(), l.speed_gbps), (Some(6), 1, Some("4X"), Some(25.78125)));
    assert_eq!((l.state.as_deref(), l.physical_state.as_deref()), (Some("Active"), Some("LinkUp")));
    assert_eq!(
        (l.peer_lid, l.peer_port, l.peer_name.as_deref()),
        (Some(3), Some(3), Some("MF0;ibswitch254:MQM8700/U1"))
    );
    // The SHARP aggregation node runs HDR lanes.
    assert_eq!(nodes[1].links[0].speed_gbps, Some(53.125));
    assert_eq!(nodes[1].links[0].peer_port, Some(41));
    let sw = &nodes[4];
    assert_eq!((sw.kind.as_str(), sw.guid.as_deref()), ("Switch", Some("0x0c42a10300b95bfa")));
    assert_eq!(sw.links.len(), 4);
    let l = &sw.links[3];
    assert_eq!((l.lid, l.port, l.peer_lid, l.peer_port), (Some(3), 4, Some(5), Some(1)));
    assert_eq!(l.peer_name.as_deref(), Some("gpu-v100-2 HCA-1"));
    // Line 14 is the reporter's `...`; line 15 is cut mid-word.
    let warnings: Vec<(usize, &str)> = parsed.warnings.iter().map(|w| (w.line, w.message.as_str())).collect();
    assert_eq!(warnings.len(), 3, "{warnings:?}");
    assert!(warnings[0].0 == 14 && warnings[0].1.starts_with("elided line"));
    assert!(warnings[1..].iter().all(|w| w.0 == 15));
}

/// A Quantum switch whose HDR-capable host links trained at EDR: iblinkinfo's `Could be` note is
/// kept with the link.
#[test]
fn could_be_notes_are_kept() {
    let text = include_str!("fixtures/iblinkinfo/quantum-hdr-switch-S-41port-edr-hosts-could-be-53.125-polling.txt");
    let parsed = parse(text).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let switch = &parsed.value.nodes[0];
    assert_eq!(switch.links.len(), 41);
    let p21 = switch.links.iter().find(|l| l.port == 21).unwrap();
    assert_eq!(
        (p21.width.as_deref(), p21.speed_gbps, p21.could_be_gbps, p21.could_be_width.as_deref()),
        (Some("4X"), Some(25.78125), Some(53.125), None)
    );
    assert_eq!(p21.peer_name.as_deref(), Some("node3 HCA-2"));
    assert_eq!(switch.links.iter().filter(|l| l.could_be_gbps.is_some()).count(), 4);
    assert_eq!(switch.links.iter().filter(|l| l.physical_state.as_deref() == Some("Polling")).count(), 35);
}
