//! `ip rule` on the real samples in tests/fixtures/ip_rule (see SOURCES.md there).
use fabcheck_parse::linux::ip_rule::parse;

#[test]
fn pretty_json_from_iproute2() {
    let parsed = parse(include_str!("fixtures/ip_rule/iproute2-patch-sport-mask-ip-j-p-rule.json")).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let r = &parsed.value.rules;
    assert_eq!(r.len(), 1);
    assert_eq!((r[0].priority, r[0].src.as_deref(), r[0].table.as_deref()), (32762, None, Some("400")));
}

#[test]
fn text_with_port_selectors() {
    let parsed = parse(include_str!("fixtures/ip_rule/iproute2-patch-sport-mask-ip-rule.txt")).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let tables: Vec<(u32, Option<&str>)> =
        parsed.value.rules.iter().map(|r| (r.priority, r.table.as_deref())).collect();
    assert_eq!(tables[1], (32761, Some("500")));
    assert_eq!(tables.last(), Some(&(32767, Some("default"))));
    assert_eq!(tables.len(), 8);
}

#[test]
fn a_hosts_source_rule_and_its_not_to_rule() {
    let parsed = parse(include_str!("fixtures/ip_rule/spiderpool-host-sriov-roce-ip-rule-not-to.txt")).expect("parses");
    assert_eq!(parsed.warnings.iter().map(|w| w.line).collect::<Vec<_>>(), [1], "the prompt");
    let r = &parsed.value.rules;
    assert_eq!(r.len(), 5);
    assert!(r[1].not && r[1].dst.as_deref() == Some("172.16.0.0/16") && r[1].table.as_deref() == Some("main"));
    assert_eq!((r[2].src.as_deref(), r[2].table.as_deref()), (Some("172.16.0.10"), Some("152")));
}

#[test]
fn one_rule_per_nic_then_another_commands_output() {
    let parsed =
        parse(include_str!("fixtures/ip_rule/spiderpool-pod-8rail-ip-rule-then-table100-route.txt")).expect("parses");
    let from: Vec<(&str, &str)> =
        parsed.value.rules.iter().filter_map(|r| Some((r.src.as_deref()?, r.table.as_deref()?))).collect();
    assert_eq!(from.len(), 8);
    assert_eq!(from[0], ("172.16.11.10", "107"));
    assert_eq!(from[7], ("172.16.18.10", "100"));
    // The two prompts and the route line are not rules.
    assert_eq!(parsed.warnings.iter().map(|w| w.line).collect::<Vec<_>>(), [1, 14, 15]);
}

#[test]
fn a_catch_all_rule_with_an_annotation() {
    let parsed =
        parse(include_str!("fixtures/ip_rule/spidernet-cni-plugins-pr186-from-all-lookup-100.txt")).expect("parses");
    let r = &parsed.value.rules;
    assert_eq!(r.len(), 5);
    assert_eq!((r[1].src.as_deref(), r[1].table.as_deref()), (Some("10.6.212.241"), Some("100")));
    assert_eq!((r[2].priority, r[2].src.as_deref()), (32765, None));
    assert_eq!(parsed.warnings.iter().map(|w| w.line).collect::<Vec<_>>(), [3], "`##` is not a selector");
}
