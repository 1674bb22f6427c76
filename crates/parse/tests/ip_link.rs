//! `ip -j link` on the real samples in tests/fixtures/ip_link (see SOURCES.md there).

use fabcheck_parse::linux::ip_link::parse;

#[test]
fn eight_ipoib_ports_compact_json() {
    let path = format!(
        "{}/tests/fixtures/ip_link/8x-ipoib-ndr-mlx5-gcm-test_check_ibstat-pass_ib_interfaces.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let parsed = parse(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(parsed.warnings, vec![]);
    let links = parsed.value.links;
    assert_eq!(links.len(), 8);
    let names: Vec<_> = links.iter().map(|l| l.ifname.as_str()).collect();
    assert_eq!(names, ["ibp12s0", "ibp18s0", "ibp75s0", "ibp84s0", "ibp141s0", "ibp148s0", "ibp186s0", "ibp204s0"]);
    let indexes: Vec<_> = links.iter().map(|l| l.ifindex).collect();
    assert_eq!(indexes, [7, 8, 9, 10, 11, 12, 13, 14]);
    assert!(links.iter().all(|l| l.mtu == 2044 && l.operstate == "UP"));
    assert!(links.iter().all(|l| l.link_type.as_deref() == Some("infiniband")));
    assert_eq!(links[0].flags, ["BROADCAST", "MULTICAST", "UP", "LOWER_UP"]);
    assert_eq!(links[0].address.as_deref(), Some("00:00:10:29:fe:80:00:00:00:00:00:00:0c:42:a1:03:00:0b:cc:d6"));
    assert_eq!(links[7].address.as_deref(), Some("00:00:10:29:fe:80:00:00:00:00:00:00:0c:42:a1:03:00:74:7a:3e"));
}
