//! `dell_os10_interfaces` (Dell OS10 `show interface status`) on the real sample in
//! tests/fixtures/dell_os10_interfaces (see SOURCES.md there).
use fabcheck_parse::dell_os10::convert::{apply_interfaces_status, to_model};
use fabcheck_parse::dell_os10::interfaces_status::{PortStatus, parse};

const SAMPLE: &str =
    include_str!("fixtures/dell_os10_interfaces/dell-os10-show-interface-status-cray-csm-aggregate-PARTIAL.txt");

/// (canonical name, description, status, oper up, Mb/s, mode, vlan, tagged).
type Row<'a> =
    (&'a str, Option<&'a str>, &'a str, bool, Option<u64>, Option<&'a str>, Option<&'a str>, Option<&'a str>);

fn row(p: &PortStatus) -> Row<'_> {
    (
        p.name.as_str(),
        p.description.as_deref(),
        p.status.as_str(),
        p.oper_up,
        p.speed_mbps,
        p.mode.as_deref(),
        p.vlan.as_deref(),
        p.tagged_vlans.as_deref(),
    )
}

#[test]
fn aggregate_switch_with_routed_uplinks_and_unused_ports() {
    let parsed = parse(SAMPLE).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let p = &parsed.value.ports;
    assert_eq!(p.len(), 54);
    assert_eq!(p[0].port, "Eth 1/1/1");
    assert_eq!(row(&p[0]), ("Ethernet1/1/1", Some("LEAF_CONN_1"), "up", true, Some(10_000), Some("-"), None, None));
    assert_eq!(p[0].duplex.as_deref(), Some("full"));
    assert_eq!(row(&p[8]), ("Ethernet1/1/9", Some("LEAF_CONN_9"), "up", true, Some(10_000), Some("-"), None, None));
    assert_eq!(row(&p[9]), ("Ethernet1/1/10", None, "down", false, None, Some("A"), Some("1"), Some("-")));
    assert_eq!(p[9].speed.as_deref(), Some("0"));
    assert_eq!(row(&p[24]), ("Ethernet1/1/25", None, "up", true, Some(100_000), Some("-"), None, None));
    assert_eq!(row(&p[26]), ("Ethernet1/1/27", None, "up", true, Some(40_000), Some("-"), None, None));
    assert_eq!(row(&p[53]), ("Ethernet1/1/54", None, "down", false, None, Some("A"), Some("1"), Some("-")));
    assert_eq!(p.iter().filter(|p| p.oper_up).count(), 13);
}

#[test]
fn status_names_the_ports_as_the_running_configuration_does() {
    let cfg = "interface ethernet1/1/25\n  mtu 9216\n  no shutdown\ninterface ethernet1/1/26\n  shutdown\n";
    let mut model = to_model(&fabcheck_parse::dell_os10::running_config::parse(cfg).expect("parses").value);
    apply_interfaces_status(&mut model, &parse(SAMPLE).expect("parses").value);
    let up = &model.ports["Ethernet1/1/25"];
    assert_eq!((up.mtu, up.speed_mbps, up.oper_up, up.admin_up), (Some(9216), Some(100_000), Some(true), Some(true)));
    let down = &model.ports["Ethernet1/1/26"];
    assert_eq!((down.oper_up, down.admin_up), (Some(false), Some(false)), "`down` leaves the configured admin state");
    assert_eq!(model.ports.len(), 54);
    let json = fabcheck_parse::parse_to_json("dell_os10_interfaces", SAMPLE).expect("known").expect("parses").value;
    assert_eq!(json["model"]["ports"]["Ethernet1/1/29"]["speed_mbps"], 100_000);
    assert_eq!(json["facts"]["ports"][0]["port"], "Eth 1/1/1");
}
