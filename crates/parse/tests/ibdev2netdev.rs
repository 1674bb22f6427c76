//! `ibdev2netdev` on the real samples in tests/fixtures/ibdev2netdev (see SOURCES.md there).
use fabcheck_parse::linux::ibdev2netdev::parse;

#[test]
fn eight_mlx5_mixed_ethernet_and_ib_after_a_prompt() {
    let text = include_str!("fixtures/ibdev2netdev/ibdev2netdev-8-mlx5-mixed-eth-ib-centos12-magnate3.txt");
    let parsed = parse(text).expect("parses");
    let m = &parsed.value.mappings;
    assert_eq!(m.len(), 8);
    let row = |i: usize| (m[i].hca.as_str(), m[i].port, m[i].netdev.as_str(), m[i].up);
    assert_eq!(row(0), ("mlx5_0", 1, "ens4f0", Some(false)));
    assert_eq!(row(2), ("mlx5_2", 1, "ens6", Some(true)));
    assert_eq!(row(5), ("mlx5_5", 1, "ib0", Some(true)));
    assert_eq!(row(7), ("mlx5_7", 1, "ens6f2", Some(true)));
    assert!(m.iter().all(|x| x.pci.is_none() && x.firmware.is_none()));
    // The `root@centos12:/home/centos12# ibdev2netdev ` prompt line.
    assert_eq!(parsed.warnings.len(), 1);
    assert_eq!(parsed.warnings[0].line, 1);
}

#[test]
fn verbose_form_with_sriov_vfs() {
    let text = include_str!("fixtures/ibdev2netdev/ibdev2netdev-v-cx4-sriov-vfs-intel-sriov-cni-readme.txt");
    let parsed = parse(text).expect("parses");
    let m = &parsed.value.mappings;
    assert_eq!(m.len(), 6);
    assert_eq!((m[0].pci.as_deref(), m[0].hca.as_str()), (Some("0000:02:00.0"), "mlx5_0"));
    assert_eq!((m[0].port_state.as_deref(), m[0].up), (Some("ACTIVE"), Some(true)));
    assert_eq!(m[0].netdev, "enp2s0f0");
    // VFs: padded `(DOWN  )`, PCI functions out of order.
    assert_eq!((m[5].pci.as_deref(), m[5].hca.as_str()), (Some("0000:02:00.2"), "mlx5_5"));
    assert_eq!((m[5].port_state.as_deref(), m[5].up, m[5].netdev.as_str()), (Some("DOWN"), Some(false), "enp2s0f5"));
    assert!(m.iter().all(|x| x.firmware.as_deref() == Some("12.23.1020") && x.port == 1));
    assert_eq!(parsed.warnings.iter().map(|w| w.line).collect::<Vec<_>>(), [1]);
}

#[test]
fn legacy_mlx4_verbose_line_without_the_pci_address() {
    let text = include_str!("fixtures/ibdev2netdev/ibdev2netdev-v-mlx4-kestrel-qdr-no-pci-prefix.txt");
    let parsed = parse(text).expect("parses");
    let m = &parsed.value.mappings;
    assert_eq!(m.len(), 1);
    assert_eq!((m[0].hca.as_str(), m[0].port, m[0].netdev.as_str(), m[0].up), ("mlx4_0", 1, "ib0", Some(true)));
    assert_eq!((m[0].pci.as_deref(), m[0].firmware.as_deref()), (None, Some("2.9.1000")));
    assert_eq!(m[0].port_state.as_deref(), Some("ACTIVE"));
    assert_eq!(
        (m[0].adapter.as_deref(), m[0].description.as_deref()),
        (Some("mt26428 - MT1037X01146"), Some("KESTREL        QDR"))
    );
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
}

#[test]
fn verbose_form_with_socket_direct_padding_and_two_space_vfs() {
    let text = include_str!("fixtures/ibdev2netdev/ibdev2netdev-v-8dev-cx4lx-cx5-vf-cx6-socket-direct-padded-desc.txt");
    let parsed = parse(text).expect("parses");
    let m = &parsed.value.mappings;
    let row =
        |i: usize| (m[i].pci.as_deref(), m[i].hca.as_str(), m[i].netdev.as_str(), m[i].up, m[i].firmware.as_deref());
    assert_eq!(m.len(), 8);
    assert_eq!(row(0), (Some("0000:31:00.0"), "mlx5_0", "ens4f0", Some(false), Some("14.27.1016")));
    assert_eq!(row(2), (Some("0000:4b:00.0"), "mlx5_2", "ens6", Some(true), Some("16.27.1016")));
    // The Socket Direct card's description is padded by about 90 spaces before `fw`.
    assert_eq!(row(5), (Some("0000:b1:00.0"), "mlx5_5", "ib0", Some(true), Some("20.30.1004")));
    assert_eq!(m[5].port_state.as_deref(), Some("ACTIVE"));
    assert_eq!(
        m[5].description.as_deref(),
        Some("ConnectX-6 VPI adapter card, HDR IB (200Gb/s) and 200GbE, single-port QSFP56, Socket Direct")
    );
    // VFs: `(MT4120 - NA)  fw`, listed after the PFs.
    assert_eq!(row(7), (Some("0000:4b:00.2"), "mlx5_7", "ens6f2", Some(false), Some("16.27.1016")));
    assert_eq!(m[7].port_state.as_deref(), Some("DOWN"));
    // The adapter in parentheses and the description after it; a VF has none.
    assert_eq!(
        (m[0].adapter.as_deref(), m[0].description.as_deref()),
        (Some("MT4117 - MT2138K10121"), Some("CX4121A - ConnectX-4 LX SFP28"))
    );
    assert_eq!((m[7].adapter.as_deref(), m[7].description.as_deref()), (Some("MT4120 - NA"), None));
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
}
