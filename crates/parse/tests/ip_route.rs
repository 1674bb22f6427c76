//! `ip route` on the real samples in tests/fixtures/ip_route (see SOURCES.md there).
use fabcheck_parse::linux::ip_route::parse;

#[test]
fn connected_routes_of_eight_rails() {
    let parsed = parse(include_str!("fixtures/ip_route/spiderpool-pod-8rail-ip-route-main.txt")).expect("parses");
    assert_eq!(parsed.warnings.iter().map(|w| w.line).collect::<Vec<_>>(), [1], "the prompt");
    let r = &parsed.value.routes;
    assert_eq!(r.len(), 14);
    let net1 = &r[1];
    assert_eq!(
        (net1.dst.as_str(), net1.dev.as_deref(), net1.protocol.as_str(), net1.scope.as_str(), net1.prefsrc.as_deref()),
        ("172.16.11.0/24", Some("net1"), "kernel", "link", Some("172.16.11.10"))
    );
    assert_eq!(
        (r[0].dst.as_str(), r[0].gateway.as_deref(), r[0].table.as_str()),
        ("default", Some("169.254.1.1"), "main")
    );
    assert_eq!(r.iter().filter(|r| r.protocol == "kernel").count(), 8);
}

#[test]
fn detailed_json_of_every_table() {
    let parsed =
        parse(include_str!("fixtures/ip_route/netplan-test-status-ip-d-j-4-route-table-all-TEST-FIXTURE.json"))
            .expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let r = &parsed.value.routes;
    let connected: Vec<(&str, &str)> = r
        .iter()
        .filter(|r| r.protocol == "kernel" && r.table == "main")
        .filter_map(|r| Some((r.dev.as_deref()?, r.prefsrc.as_deref()?)))
        .collect();
    assert!(connected.contains(&("enp0s31f6", "192.168.178.62")) && connected.contains(&("wlan0", "192.168.178.142")));
    assert!(r.iter().any(|r| r.table == "1234" && r.dev.as_deref() == Some("enp0s31f6")));
    assert!(r.iter().any(|r| r.kind == "broadcast" && r.table == "local"));
    // The two defaults of one subnet differ by metric only: wired 100, wireless 600.
    let defaults: Vec<(Option<&str>, Option<u32>)> =
        r.iter().filter(|r| r.dst == "default").map(|r| (r.dev.as_deref(), r.metric)).collect();
    assert_eq!(defaults, [(Some("enp0s31f6"), Some(100)), (Some("wlan0"), Some(600))]);
    assert!(r.iter().all(|r| r.flags.is_empty()));
}

proptest::proptest! {
    /// The routing readers never panic, on any text or on a real sample with bytes changed.
    #[test]
    fn routing_readers_never_panic(text in "\\PC{0,300}", cut in 0usize..600, byte in proptest::num::u8::ANY) {
        let _ = parse(&text);
        let _ = fabcheck_parse::linux::ip_rule::parse(&text);
        let _ = fabcheck_parse::linux::net_conf::parse(&text);
        for sample in [
            include_str!("fixtures/ip_route/netplan-test-status-ip-d-j-4-route-table-all-TEST-FIXTURE.json"),
            include_str!("fixtures/ip_route/spiderpool-pod-8rail-ip-route-main.txt"),
            include_str!("fixtures/ip_rule/spiderpool-pod-8rail-ip-rule-then-table100-route.txt"),
        ] {
            let mut bytes = sample.as_bytes().to_vec();
            let at = cut % bytes.len();
            bytes[at] = byte;
            let mutated = String::from_utf8_lossy(&bytes);
            let _ = parse(&mutated);
            let _ = fabcheck_parse::linux::ip_rule::parse(&mutated);
            let _ = fabcheck_parse::linux::net_conf::parse(&mutated);
        }
    }
}
