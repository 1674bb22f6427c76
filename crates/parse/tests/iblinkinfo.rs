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
