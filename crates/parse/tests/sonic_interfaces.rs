//! `sonic_interfaces` (`show interfaces status`) on every sample in tests/fixtures/sonic_interfaces
//! (see SOURCES.md there).
use fabcheck_parse::sonic::convert::add_interfaces;
use fabcheck_parse::sonic::interfaces_status::parse;
use fabcheck_parse::switch::SwitchQos;

#[test]
fn ports_and_port_channels_with_spaces_in_cells() {
    let text = include_str!("fixtures/sonic_interfaces/show-interfaces-status-sonic-utilities-intfutil-test.txt");
    let parsed = parse(text).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let i = &parsed.value.interfaces;
    assert_eq!(i.len(), 15);
    let e0 = &i[0];
    assert_eq!((e0.name.as_str(), e0.speed_mbps, e0.mtu), ("Ethernet0", Some(25_000), Some(9100)));
    assert_eq!((e0.oper.as_deref(), e0.admin.as_deref()), (Some("down"), Some("up")));
    assert_eq!((e0.fec.as_deref(), e0.port_type.as_deref()), (Some("rs"), Some("QSFP28 or later")));
    assert_eq!(e0.asym_pfc.as_deref(), Some("off"));
    let speeds: Vec<Option<u64>> = i[..6].iter().map(|i| i.speed_mbps).collect();
    assert_eq!(speeds, [Some(25_000), Some(100), Some(1000), Some(1000), Some(40_000), Some(10)]);
    assert_eq!(i[2].port_type.as_deref(), Some("DPU-NPU Data Port"));
    assert_eq!((i[4].lanes.as_deref(), i[4].vlan.as_deref()), (Some("13,14,15,16"), Some("PortChannel1001")));
    assert_eq!(i[9].fec.as_deref(), Some("auto"));
    let pc = &i[14];
    assert_eq!(
        (pc.name.as_str(), pc.lanes.clone(), pc.oper.clone(), pc.admin.clone()),
        ("PortChannel1001", None, None, None)
    );

    let mut m = SwitchQos::default();
    add_interfaces(&mut m, &parsed.value);
    let p = &m.ports["Ethernet0"];
    assert_eq!((p.speed_mbps, p.mtu, p.admin_up, p.oper_up), (Some(25_000), Some(9100), Some(true), Some(false)));
    assert_eq!(m.ports["PortChannel1001"].oper_up, None);
    assert_eq!(m.ports["Ethernet124"].oper_up, Some(true));
}

#[test]
fn single_port_narrow_columns() {
    let text =
        include_str!("fixtures/sonic_interfaces/show-interfaces-status-Ethernet32-sonic-utilities-intfutil-test.txt");
    let parsed = parse(text).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let i = &parsed.value.interfaces[0];
    assert_eq!((i.name.as_str(), i.speed_mbps, i.alias.as_deref()), ("Ethernet32", Some(40_000), Some("etp9")));
    assert_eq!(i.port_type, None, "N/A");
    let json = fabcheck_parse::parse_to_json("sonic_interfaces", text).expect("known source").expect("parses").value;
    assert_eq!(json["ports"]["Ethernet32"]["speed_mbps"], 40_000);
    assert_eq!(json["ports"]["Ethernet32"]["oper_up"], true);
}

/// An output saved through a pager (`| more`): its `--More--` lines are warned about, never
/// read as ports (the bare prompt after the output is warned about too, as everywhere).
#[test]
fn a_paged_output_has_no_pager_port() {
    let text = include_str!(
        "fixtures/sonic_interfaces/edgecore-sonic-show-interfaces-status-more-paged-empty-type-PROVENANCE-WEAK.txt"
    );
    let parsed = parse(text).expect("parses");
    assert_eq!(parsed.warnings.iter().map(|w| w.line).collect::<Vec<_>>(), [14, 27, 39], "{:?}", parsed.warnings);
    assert!(parsed.warnings[..2].iter().all(|w| w.message.contains("--More--")));
    let i = &parsed.value.interfaces;
    assert!(i.iter().all(|i| i.name.starts_with("Ethernet")), "{:?}", i.iter().map(|i| &i.name).collect::<Vec<_>>());
    let e4 = i.iter().find(|i| i.name == "Ethernet4").unwrap();
    assert_eq!(
        (e4.speed_mbps, e4.mtu, e4.admin.as_deref(), e4.alias.as_deref()),
        (Some(25_000), Some(9100), Some("down"), Some("Eth7/3(Port5)"))
    );
    let e76 = i.iter().find(|i| i.name == "Ethernet76").unwrap();
    assert_eq!((e76.speed_mbps, e76.oper.as_deref()), (Some(100_000), Some("down")));
}

#[test]
fn an_elision_line_is_no_port() {
    let text = include_str!(
        "fixtures/sonic_interfaces/sonic-msn2700-show-interface-status-header-misaligned-elided-sonic-mgmt-api-wiki.txt"
    );
    let parsed = parse(text).expect("parses");
    let names: Vec<&str> = parsed.value.interfaces.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names, ["Ethernet0", "Ethernet4", "Ethernet8"]);
    let e8 = &parsed.value.interfaces[2];
    assert_eq!((e8.speed_mbps, e8.mtu, e8.lanes.as_deref()), (Some(40_000), Some(9100), Some("8,9,10,11")));
    assert_eq!((e8.alias.as_deref(), e8.vlan.as_deref()), (Some("etp3"), Some("PortChannel0005")));
    // `...`: rows the author left out, said so rather than read as a port named `...`.
    assert_eq!(parsed.warnings.iter().map(|w| w.line).collect::<Vec<_>>(), [6]);
}
