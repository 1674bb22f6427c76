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
