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

#[test]
fn dual_port_hca_keeps_each_port_guid() {
    let text = include_str!("fixtures/iblinkinfo/connectx3-qdr-infiniscale-iv-dual-port-ca-cc-rdma-test-readme.txt");
    let parsed = parse(text).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let nodes = &parsed.value.nodes;
    assert_eq!(nodes.len(), 9);
    let dual = nodes.iter().find(|n| n.name == "teaker-9 HCA-1").expect("teaker-9");
    assert_eq!((dual.kind.as_str(), dual.guid.as_deref()), ("CA", Some("0xf45214030091ba51")));
    let ports: Vec<String> = dual
        .links
        .iter()
        .map(|l| format!("{:?} lid {:?} port {} -> {:?}", l.guid, l.lid, l.port, l.peer_port))
        .collect();
    assert_eq!(
        ports,
        [
            r#"Some("0xf45214030091ba51") lid Some(6) port 1 -> Some(3)"#,
            r#"Some("0xf45214030091ba52") lid Some(4) port 2 -> Some(14)"#
        ]
    );
    let switch = nodes.iter().find(|n| n.kind == "Switch").expect("switch");
    assert_eq!(
        (switch.guid.as_deref(), switch.name.as_str()),
        (Some("0x0002c902004b2678"), "Infiniscale-IV Mellanox Technologies")
    );
    assert_eq!(switch.links.len(), 18);
    assert!(switch.links.iter().all(|l| l.guid.is_none() && l.lid == Some(2)), "a switch's port lines carry no GUID");
    let down: Vec<u32> = switch.links.iter().filter(|l| l.state.as_deref() == Some("Down")).map(|l| l.port).collect();
    assert_eq!(down, [8, 10, 11, 12, 13, 15, 16, 17, 18]);
    assert_eq!((switch.links[0].width.as_deref(), switch.links[0].speed_gbps), (Some("4X"), Some(10.0)));
}

#[test]
fn line_mode_ports_with_their_node_and_peer_guids() {
    let text = include_str!("fixtures/iblinkinfo/ibsim-line-mode-l-switches-only-leaf-uplink-down-lab08.txt");
    let parsed = parse(text).expect("parses");
    // The three prompt lines are not iblinkinfo's.
    assert_eq!(parsed.warnings.iter().map(|w| w.line).collect::<Vec<_>>(), [1, 4, 5]);
    let nodes = &parsed.value.nodes;
    let summary: Vec<(&str, &str, Option<&str>, usize)> =
        nodes.iter().map(|n| (n.kind.as_str(), n.name.as_str(), n.guid.as_deref(), n.links.len())).collect();
    assert_eq!(
        summary,
        [
            ("", "hxa-su1-leaf-r1", Some("0x0000000000200002"), 2),
            ("", "hxa-su2-leaf-r2", Some("0x0000000000200005"), 2)
        ]
    );
    let l = &nodes[0].links[1];
    assert_eq!((l.guid.as_deref(), l.lid, l.port), (Some("0x0000000000200002"), Some(4), 2));
    assert_eq!((l.width.as_deref(), l.speed_gbps, l.state.as_deref()), (Some("4X"), Some(2.5), Some("Active")));
    assert_eq!((l.peer_lid, l.peer_port, l.peer_name.as_deref()), (Some(10), Some(1), Some("hxa-gpu02 mlx5_0")));
    assert_eq!((l.could_be_width.as_deref(), l.could_be_gbps), (Some("12X"), Some(10.0)));
    let up = &nodes[1].links[0];
    assert_eq!(
        (up.lid, up.port, up.peer_lid, up.peer_port, up.peer_name.as_deref()),
        (Some(9), 33, Some(2), Some(4), Some("hxa-spine01"))
    );
    let down = &nodes[1].links[1];
    assert_eq!((down.port, down.state.as_deref(), down.physical_state.as_deref()), (34, Some("Down"), Some("Polling")));
    assert_eq!((down.width.as_deref(), down.peer_lid, down.peer_name.as_deref()), (None, None, None));
}
