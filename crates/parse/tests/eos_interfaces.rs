//! `eos_interfaces` (`show interfaces status`) on the real samples in
//! tests/fixtures/eos_interfaces (see SOURCES.md there).
use fabcheck_parse::eos::convert::{apply_interfaces_status, to_model};
use fabcheck_parse::eos::interfaces_status::{PortStatus, parse};
use fabcheck_parse::switch::SwitchQos;

fn ports(text: &str) -> Vec<PortStatus> {
    let parsed = parse(text).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    parsed.value.ports
}

fn row(p: &PortStatus) -> (&str, &str, bool, Option<bool>, Option<u64>) {
    (p.name.as_str(), p.status.as_str(), p.oper_up, p.admin_up, p.speed_mbps)
}

#[test]
fn aligned_table_with_descriptions_that_hold_status_words() {
    let p = ports(include_str!("fixtures/eos_interfaces/arista_eos_show_interfaces_status.raw"));
    assert_eq!(p.len(), 6);
    assert_eq!(row(&p[0]), ("Ethernet3/1/1", "connected", true, Some(true), Some(40_000)));
    assert_eq!(p[0].description.as_deref(), Some("I am a 40G port !! Hi"));
    assert_eq!((p[0].speed.as_deref(), p[0].media.as_deref()), (Some("a-40G"), Some("40GBASE-CR4")));
    assert_eq!(row(&p[1]), ("Ethernet3/1/4", "inactive", false, None, None));
    assert_eq!((p[1].duplex.as_deref(), p[1].speed.as_deref()), (Some("unconf"), Some("unconf")));
    assert_eq!(row(&p[3]), ("Ethernet3/2/2", "errdisabled", false, None, Some(10_000)));
    // "- DISABLED routed (" is the description; the status is the column's.
    assert_eq!(p[4].description.as_deref(), Some("- DISABLED routed ("));
    assert_eq!(row(&p[4]), ("Ethernet3/2/4", "disabled", false, Some(false), Some(10_000)));
    assert_eq!(p[4].vlan.as_deref(), Some("routed"));
}

#[test]
fn collapsed_rows_lag_members_and_flags() {
    let p = ports(include_str!("fixtures/eos_interfaces/arista_eos_show_interfaces_status_flags.raw"));
    let names: Vec<&str> = p.iter().map(|p| p.port.as_str()).collect();
    assert_eq!(names, ["Et1", "Et2", "Et3", "Ma1", "Et49", "Et52", "Ma1", "Po49"]);
    assert_eq!(row(&p[0]), ("Ethernet1", "notconnect", false, Some(true), None));
    assert_eq!(p[0].media.as_deref(), Some("10GBASE-T"));
    assert_eq!(row(&p[4]), ("Ethernet49", "notconnect", false, Some(true), Some(10_000)));
    assert_eq!((p[4].vlan.as_deref(), p[4].media.as_deref()), (Some("in Po49"), Some("Not Present")));
    assert_eq!(p[4].description.as_deref(), Some("Core: drxx.yul01"));
    assert_eq!(row(&p[7]), ("Port-Channel49", "connected", true, Some(true), Some(20_000)));
    assert_eq!(row(&p[6]), ("Ma1", "notconnect", false, Some(true), Some(10)));
}

#[test]
fn encapsulation_column_and_port_channel_table() {
    let p = ports(include_str!("fixtures/eos_interfaces/arista_eos_show_interfaces_status_encap.raw"));
    assert_eq!(p.len(), 8);
    assert!(p[..7].iter().all(|p| p.oper_up && p.speed_mbps == Some(1000)));
    assert_eq!(p[6].vlan.as_deref(), Some("7"));
    assert_eq!(row(&p[7]), ("Ma1", "disabled", false, Some(false), Some(1000)));
    let p = ports(include_str!("fixtures/eos_interfaces/arista_eos_show_interfaces_status_port_channel.raw"));
    assert_eq!(p[0].description.as_deref(), Some("Cust: (SERV-XXXXX"));
    assert_eq!(row(&p[1]), ("Ethernet47", "disabled", false, Some(false), None));
    assert_eq!(row(&p[3]), ("Ethernet52", "connected", true, Some(true), Some(10_000)));
}

#[test]
fn json_form() {
    let p =
        ports(include_str!("fixtures/eos_interfaces/veos-4.33.2F-show-interfaces-status-json-PROVENANCE-WEAK.json"));
    assert_eq!(p.len(), 13);
    let e7 = p.iter().find(|p| p.name == "Ethernet7").expect("Ethernet7");
    assert_eq!(row(e7), ("Ethernet7", "notconnect", false, Some(true), Some(1000)));
    assert_eq!((e7.vlan.as_deref(), e7.media.as_deref()), (Some("1"), Some("EbraTestPhyPort")));
    let ma = p.iter().find(|p| p.name == "Management1").expect("Management1");
    assert_eq!((ma.oper_up, ma.vlan.as_deref()), (true, Some("routed")));
}

#[test]
fn status_sets_speed_and_oper_state_on_the_model() {
    let config = "interface Ethernet52\n   mtu 9214\n   speed forced 25gfull\n";
    let cfg = fabcheck_parse::eos::running_config::parse(config).expect("parses").value;
    let mut model = to_model(&cfg);
    let status = parse(include_str!("fixtures/eos_interfaces/arista_eos_show_interfaces_status_flags.raw"))
        .expect("parses")
        .value;
    apply_interfaces_status(&mut model, &status);
    let e52 = &model.ports["Ethernet52"];
    assert_eq!(
        (e52.mtu, e52.speed_mbps, e52.oper_up, e52.admin_up),
        (Some(9214), Some(10_000), Some(true), Some(true))
    );
    assert_eq!(model.ports["Ethernet1"].speed_mbps, None, "`auto` keeps no speed");
    assert!(!model.ports.contains_key("Ma1"), "management ports are not fabric ports");
    let mut empty = SwitchQos::default();
    apply_interfaces_status(&mut empty, &status);
    assert_eq!(empty.ports.len(), 6);
}
