//! `ip rule` on the real samples in tests/fixtures/ip_rule (see SOURCES.md there).
use fabcheck_parse::linux::ip_rule::parse;

#[test]
fn pretty_json_from_iproute2() {
    let parsed = parse(include_str!("fixtures/ip_rule/iproute2-patch-sport-mask-ip-j-p-rule.json")).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let r = &parsed.value.rules;
    assert_eq!(r.len(), 1);
    assert_eq!((r[0].priority, r[0].src.as_deref(), r[0].table.as_deref()), (32762, None, Some("400")));
    // Not a rule for all traffic: only for source port 291 under the mask.
    assert_eq!(r[0].selectors, ["sport 291/0xfff"]);
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
    let selectors: Vec<&[String]> = parsed.value.rules.iter().map(|r| r.selectors.as_slice()).collect();
    assert_eq!(selectors[1], ["dport 0x4/0xff"]);
    assert_eq!(selectors[3], ["dport 1000-2000"]);
    assert_eq!(selectors[5], ["sport 80"]);
    assert!(selectors[0].is_empty() && selectors[6].is_empty());
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

#[test]
fn mark_and_user_rules_match_only_part_of_the_traffic() {
    let parsed = parse(include_str!("fixtures/ip_rule/vpn-egress-uidrange-fwmark-per-user-tables-PROVENANCE-WEAK.txt"))
        .expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let r = &parsed.value.rules;
    assert_eq!(r.len(), 22);
    let rule = |i: usize| (r[i].priority, r[i].src.as_deref(), r[i].selectors.clone(), r[i].table.as_deref());
    assert_eq!(rule(1), (50, None, vec!["fwmark 0x77".to_string()], Some("70")));
    assert_eq!(rule(3), (60, None, vec!["uidrange 995-995".to_string()], Some("100")));
    assert_eq!(rule(4), (100, Some("10.0.0.2"), vec![], Some("100")));
    assert_eq!(rule(21), (32767, None, vec![], Some("default")));
}

#[test]
fn a_mark_in_json() {
    let parsed =
        parse(include_str!("fixtures/ip_rule/alpine3.24-ip-j-rule-fwmark-0x10-table-7710-PROVENANCE-WEAK.json"))
            .expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let r = &parsed.value.rules;
    assert_eq!(r.len(), 4);
    assert_eq!((r[1].priority, r[1].src.as_deref(), r[1].table.as_deref()), (7710, None, Some("7710")));
    assert_eq!(r[1].selectors, ["fwmark 0x10"]);
    assert!(r.iter().enumerate().all(|(i, x)| i == 1 || x.selectors.is_empty()));
}
