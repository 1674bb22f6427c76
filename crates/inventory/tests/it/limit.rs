//! `--limit` patterns on fixtures/lab.ini: each operator, Ansible's evaluation order, and
//! errors for patterns that match nothing.

use fabcheck_inventory::{ErrorKind, Inventory};

use crate::{load, names};

fn select(pattern: &str) -> Vec<String> {
    let inv = load("lab.ini");
    let hosts = inv.select(pattern).unwrap_or_else(|e| panic!("{pattern}: {e}"));
    names(hosts).into_iter().map(str::to_owned).collect()
}

fn select_err(pattern: &str) -> String {
    load("lab.ini").select(pattern).unwrap_err().to_string()
}

const GPUS: [&str; 6] = ["gpu01", "gpu02", "gpu03", "gpu04", "gpu05", "gpu06"];

#[test]
fn all_and_star() {
    assert_eq!(select("all").len(), 11);
    assert_eq!(select("*").len(), 11);
    assert_eq!(select(" all "), select("*"));
}

#[test]
fn names_groups_globs_and_regexes() {
    assert_eq!(select("gpus"), GPUS);
    assert_eq!(select("leaf2"), ["leaf2"]);
    assert_eq!(select("gpu0*"), GPUS);
    assert_eq!(select("spine?"), ["spinea", "spineb"]);
    assert_eq!(select("rack*"), GPUS, "a glob matching groups");
    assert_eq!(select("~gpu0[1-3]"), ["gpu01", "gpu02", "gpu03"]);
    assert_eq!(select("~(leaf|spine)"), ["leaf1", "leaf2", "spinea", "spineb"]);
    assert_eq!(select("~spine.$"), ["spinea", "spineb"]);
}

#[test]
fn unions() {
    assert_eq!(select("leaf1:spinea"), ["leaf1", "spinea"]);
    assert_eq!(select("leaf1,spinea"), ["leaf1", "spinea"]);
    assert_eq!(select("spinea:gpu01"), ["gpu01", "spinea"], "inventory order, not pattern order");
    assert_eq!(select("rack1:rack1:gpu01"), ["gpu01", "gpu02", "gpu03"], "no duplicates");
}

#[test]
fn intersections_and_exclusions() {
    assert_eq!(select("gpus:&rack1"), ["gpu01", "gpu02", "gpu03"]);
    assert_eq!(select("gpus:!rack1"), ["gpu04", "gpu05", "gpu06"]);
    assert_eq!(select("&rack2"), ["gpu04", "gpu05", "gpu06"], "starts from all");
    assert_eq!(select("!gpus"), ["bastion", "leaf1", "leaf2", "spinea", "spineb"]);
    // The regex matches group rack1 as well as hosts, as in Ansible.
    assert_eq!(select("fabric:gpus:&~.*[13a]$:!spinea"), ["gpu01", "gpu02", "gpu03", "leaf1"]);
}

#[test]
fn ansible_evaluation_order() {
    // Exclusions apply after unions whatever their place in the pattern...
    assert_eq!(select("!rack1:gpus"), select("gpus:!rack1"));
    // ...and intersections after unions.
    assert_eq!(select("&rack1:gpus:leaf1"), ["gpu01", "gpu02", "gpu03"]);
    assert_eq!(select("!gpu01,&rack1,gpus"), ["gpu02", "gpu03"]);
}

#[test]
fn patterns_that_select_nothing_are_errors() {
    assert_eq!(select_err("nosuch"), "lab.ini: limit pattern `nosuch` matches no host or group");
    assert_eq!(select_err("gpus:!nosuch"), "lab.ini: limit pattern `nosuch` matches no host or group");
    assert_eq!(select_err("gpu9*"), "lab.ini: limit pattern `gpu9*` matches no host or group");
    assert_eq!(select_err("~pine"), "lab.ini: limit pattern `~pine` matches no host or group", "anchored");
    assert_eq!(select_err("gpus:&fabric"), "lab.ini: limit `gpus:&fabric` selects no host");
    assert_eq!(select_err(""), "lab.ini: limit `` selects no host");
    let err = load("lab.ini").select("~gpu(").unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::BadRegex { .. }), "{err}");
    assert!(err.to_string().starts_with("lab.ini: bad regex in limit pattern `~gpu(`: "), "{err}");
}

#[test]
fn ipv6_hosts_need_commas() {
    let inv = Inventory::parse_ini("2001:db8::1\n[g]\nh1\n", "v6.ini").unwrap();
    assert_eq!(names(inv.select("2001:db8::1").unwrap()), ["2001:db8::1"]);
    assert_eq!(names(inv.select("2001:db8::1,h1").unwrap()), ["2001:db8::1", "h1"]);
}

#[test]
fn a_group_name_does_not_also_match_a_host_of_that_name() {
    let inv = Inventory::parse_ini("[gpu01]\nother\n[g]\ngpu01\n", "t.ini").unwrap();
    assert_eq!(names(inv.select("gpu01").unwrap()), ["other"]);
    assert_eq!(names(inv.select("gpu0*").unwrap()), ["other", "gpu01"]);
}

/// Ansible's subscripts (`InventoryManager._apply_subscript`): `[i]` one host (negative from
/// the end), `[x:y]` inclusive, `[x:]` to the end, in the group's order; combined with the other
/// operators; out of range matches nothing, which is an error.
#[test]
fn subscripts_slice_a_group() {
    assert_eq!(select("gpus[0]"), ["gpu01"]);
    assert_eq!(select("gpus[-1]"), ["gpu06"]);
    assert_eq!(select("gpus[0:2]"), ["gpu01", "gpu02", "gpu03"], "inclusive, as Ansible");
    assert_eq!(select("gpus[4:]"), ["gpu05", "gpu06"]);
    assert_eq!(select("gpus[4:99]"), ["gpu05", "gpu06"]);
    assert_eq!(select("gpus[0:3]:!gpu02"), ["gpu01", "gpu03", "gpu04"]);
    assert_eq!(select("gpu0*[1]"), ["gpu02"], "a glob's hosts sliced");
    assert!(select_err("gpus[6]").contains("gpus[6]"), "{}", select_err("gpus[6]"));
}
