//! `ethtool IF` on the real samples in tests/fixtures/ethtool_link (see SOURCES.md there).

use fabcheck_parse::linux::ethtool_link::parse;

#[test]
fn connectx4_100g_dac_link_up_with_continued_mode_lists() {
    let path = format!(
        "{}/tests/fixtures/ethtool_link/cx4-edr-vpi-mcx455a-eth-100g-enp1s0np0-terrencemiao-blog.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    let parsed = parse(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(parsed.warnings, vec![]);
    let l = parsed.value;
    assert_eq!(l.interface.as_deref(), Some("enp1s0np0"));
    assert_eq!(l.speed_mbps, Some(100_000));
    assert_eq!(l.duplex.as_deref(), Some("Full"));
    assert_eq!(l.auto_negotiation, Some(true));
    assert_eq!(l.port.as_deref(), Some("Direct Attach Copper"));
    assert_eq!(l.link_detected, Some(true));
    assert_eq!(l.supported_link_modes.len(), 16);
    assert_eq!(l.supported_link_modes.first().map(String::as_str), Some("1000baseKX/Full"));
    assert_eq!(l.supported_link_modes.last().map(String::as_str), Some("100000baseLR4_ER4/Full"));
    assert!(l.supported_link_modes.iter().any(|m| m == "100000baseCR4/Full"));
    assert!(l.supported_link_modes.iter().any(|m| m == "56000baseKR4/Full"));
    assert_eq!(l.advertised_link_modes, l.supported_link_modes);
}

/// A link down whose driver says why (ethtool's extended link state): the reason is kept.
#[test]
fn connectx4_lx_link_training_failure_keeps_its_reason() {
    let text = include_str!("fixtures/ethtool_link/cx4lx-25g-linkdown-link-training-failure-pve-blog.txt");
    let parsed = parse(text).unwrap();
    assert_eq!(parsed.warnings, vec![]);
    let l = parsed.value;
    assert_eq!(l.interface.as_deref(), Some("nic_pve02_stor"));
    assert_eq!((l.speed_mbps, l.duplex.as_deref(), l.link_detected), (None, None, Some(false)));
    assert_eq!(l.link_down_reason.as_deref(), Some("Link training failure, Remote side is not ready yet"));
    assert_eq!(l.supported_link_modes.len(), 5);
    assert_eq!(l.advertised_link_modes.last().map(String::as_str), Some("25000baseSR/Full"));
}
