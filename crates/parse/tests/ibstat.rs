//! `ibstat` on every real sample in tests/fixtures/ibstat (see SOURCES.md there).
use fabcheck_parse::linux::ibstat::{Ca, Port, parse};

fn port<'a>(cas: &'a [Ca], name: &str) -> &'a Port {
    let ca = cas.iter().find(|c| c.name == name).expect("CA present");
    &ca.ports[0]
}

#[test]
fn cx7_roce_and_cx6dx_disabled_cut_in_third_ca() {
    let text = include_str!("fixtures/ibstat/ibstat-cx7-roce-200g-plus-cx6dx-disabled-mooncake-1999-PARTIAL.txt");
    let parsed = parse(text).expect("parses");
    let cas = &parsed.value.cas;
    assert_eq!(cas.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["mlx5_0", "mlx5_1", "mlx5_10"]);
    assert_eq!(cas[0].ca_type.as_deref(), Some("MT4129"));
    assert_eq!(cas[0].firmware_version.as_deref(), Some("28.39.1002"));
    assert_eq!(cas[2].firmware_version.as_deref(), Some("22.31.1014"));
    let p = port(cas, "mlx5_1");
    assert_eq!((p.state.as_str(), p.physical_state.as_str()), ("Active", "LinkUp"));
    assert_eq!((p.rate_gbps, p.link_layer.as_deref()), (Some(200.0), Some("Ethernet")));
    assert_eq!(p.port_guid.as_deref(), Some("0x5aa2e1fffedae627"));
    // The cut CA keeps what was printed.
    let p = port(cas, "mlx5_10");
    assert_eq!((p.state.as_str(), p.physical_state.as_str()), ("Down", "Disabled"));
    assert_eq!((p.rate_gbps, p.link_layer.clone()), (None, None));
    // The `$ ibstat` prompt and the cut last line are warned about.
    let lines: Vec<usize> = parsed.warnings.iter().map(|w| w.line).collect();
    assert_eq!(lines, [1, 45]);
}

#[test]
fn cx6dx_two_ethernet_ports() {
    let text = include_str!("fixtures/ibstat/ibstat-cx6dx-mt4125-fw22.32-ethernet-100g-l2fwd-nv-6.txt");
    let parsed = parse(text).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let cas = &parsed.value.cas;
    assert_eq!(cas.len(), 2);
    assert_eq!(cas[1].node_guid.as_deref(), Some("0x0c42a103001dd12b"));
    assert_eq!(cas[1].system_image_guid.as_deref(), Some("0x0c42a103001dd12a"));
    for ca in cas {
        let p = &ca.ports[0];
        assert_eq!((p.rate_gbps, p.base_lid, p.sm_lid), (Some(100.0), Some(0), Some(0)));
        assert_eq!(p.capability_mask.as_deref(), Some("0x00010000"));
        assert_eq!(p.link_layer.as_deref(), Some("Ethernet"));
    }
}

#[test]
fn tab_indented_ib_with_one_port_disabled_cut_in_third_ca() {
    let text =
        include_str!("fixtures/ibstat/ibstat-cx6-hdr-mt4123-fw20.26-ib-one-port-disabled-lustreperfmon-27-PARTIAL.txt");
    let parsed = parse(text).expect("parses");
    let cas = &parsed.value.cas;
    assert_eq!(cas.len(), 3);
    let p = port(cas, "mlx5_4");
    assert_eq!((p.state.as_str(), p.rate_gbps, p.base_lid, p.sm_lid), ("Active", Some(200.0), Some(90), Some(2)));
    assert_eq!(p.link_layer.as_deref(), Some("InfiniBand"));
    let p = port(cas, "mlx5_2");
    assert_eq!((p.state.as_str(), p.physical_state.as_str()), ("Down", "Disabled"));
    assert_eq!((p.rate_gbps, p.base_lid, p.sm_lid), (Some(10.0), Some(65535), Some(0)));
    // Cut after `Node GUID` of mlx5_0: no port, no system image GUID.
    assert_eq!(cas[2].node_guid.as_deref(), Some("0x0c42a1030017c090"));
    assert!(cas[2].ports.is_empty() && cas[2].system_image_guid.is_none());
    let lines: Vec<usize> = parsed.warnings.iter().map(|w| w.line).collect();
    assert_eq!(lines, [1, 41]);
}

#[test]
fn vf_down_while_physically_up_crlf() {
    let text = include_str!("fixtures/ibstat/ibstat-cx6-vf-mt4124-state-down-physical-linkup-magnate3.txt");
    let parsed = parse(text).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let ca = &parsed.value.cas[0];
    assert_eq!((ca.name.as_str(), ca.ca_type.as_deref()), ("mlx5_6", Some("MT4124")));
    assert_eq!(ca.node_guid.as_deref(), Some("0x1122334477667790"));
    let p = &ca.ports[0];
    assert_eq!((p.state.as_str(), p.physical_state.as_str()), ("Down", "LinkUp"));
    assert_eq!((p.base_lid, p.sm_lid, p.lmc), (Some(65535), Some(4), Some(0)));
    assert_eq!(p.capability_mask.as_deref(), Some("0x2651ec48"));
}

#[test]
fn hdr_active_after_sm_fix() {
    let text = include_str!("fixtures/ibstat/ibstat-cx6-hdr-mt4123-active-after-sm-fix-magnate3.txt");
    let parsed = parse(text).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let ca = &parsed.value.cas[0];
    assert_eq!((ca.num_ports, ca.firmware_version.as_deref()), (Some(1), Some("20.30.1004")));
    let p = &ca.ports[0];
    assert_eq!((p.port, p.state.as_str(), p.rate_gbps), (1, "Active", Some(200.0)));
    assert_eq!((p.base_lid, p.sm_lid), (Some(18), Some(4)));
}

#[test]
fn json_field_names_follow_the_contract() {
    let text = include_str!("fixtures/ibstat/ibstat-cx6-hdr-mt4123-active-after-sm-fix-magnate3.txt");
    let json = fabcheck_parse::parse_to_json("ibstat", text).expect("known source").expect("parses").value;
    let port = &json["cas"][0]["ports"][0];
    assert_eq!(port["state"], "Active");
    assert_eq!(port["physical_state"], "LinkUp");
    assert_eq!(port["rate_gbps"], 200.0);
    assert_eq!(port["link_layer"], "InfiniBand");
    assert_eq!(port["sm_lid"], 4);
}

/// ibstat gave up on a device after listing eight (`ibpanic: ... 'mlx5_8' failed`, exit 255):
/// the eight are read, and the incomplete list is said in so many words.
#[test]
fn an_ibpanic_after_eight_cas_says_the_list_is_incomplete() {
    let text = include_str!("fixtures/ibstat/gpud-a100-8ca-hdr-200-ibpanic-partial-exit255.txt");
    let parsed = parse(text).expect("parses");
    let cas = &parsed.value.cas;
    assert_eq!(cas.len(), 8);
    let p = port(cas, "mlx5_7");
    assert_eq!((p.state.as_str(), p.rate_gbps, p.base_lid, p.sm_lid), ("Active", Some(200.0), Some(13305), Some(1)));
    assert_eq!(cas[0].firmware_version.as_deref(), Some("20.41.1000"));
    assert_eq!(parsed.warnings.len(), 1, "{:?}", parsed.warnings);
    assert_eq!(parsed.warnings[0].line, 137);
    assert!(parsed.warnings[0].message.contains("ibstat stopped") && parsed.warnings[0].message.contains("'mlx5_8'"));
}
