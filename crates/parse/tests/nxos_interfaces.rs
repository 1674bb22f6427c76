//! `nxos_interfaces` (Cisco NX-OS `show interface status`) on the real samples in
//! tests/fixtures/nxos_interfaces (see SOURCES.md there).
use fabcheck_parse::nxos::convert::{apply_interfaces_status, to_model};
use fabcheck_parse::nxos::interfaces_status::{PortStatus, parse};
use fabcheck_parse::switch::SwitchQos;

fn ports(text: &str) -> Vec<PortStatus> {
    let parsed = parse(text).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    parsed.value.ports
}

/// (canonical name, status, oper up, admin up, Mb/s).
fn row(p: &PortStatus) -> (&str, &str, bool, Option<bool>, Option<u64>) {
    (p.name.as_str(), p.status.as_str(), p.oper_up, p.admin_up, p.speed_mbps)
}

fn port<'a>(ps: &'a [PortStatus], printed: &str) -> &'a PortStatus {
    ps.iter().find(|p| p.port == printed).unwrap_or_else(|| panic!("no {printed}"))
}

#[test]
fn nexus_with_cut_statuses_lags_vlans_and_nve() {
    let p = ports(include_str!("fixtures/nxos_interfaces/cisco_nxos_show_interface_status.raw"));
    assert_eq!(p.len(), 73);
    let mgmt = port(&p, "mgmt0");
    assert_eq!(row(mgmt), ("mgmt0", "connected", true, Some(true), Some(100)));
    assert_eq!(
        (mgmt.description.clone(), mgmt.vlan.as_deref(), mgmt.duplex.as_deref(), mgmt.media.clone()),
        (None, Some("routed"), Some("full"), None)
    );
    let e11 = port(&p, "Eth1/1");
    assert_eq!(row(e11), ("Ethernet1/1", "disabled", false, Some(false), None));
    assert_eq!(
        (e11.description.as_deref(), e11.speed.as_deref(), e11.media.as_deref()),
        (Some("managed by puppet"), Some("auto"), Some("SFP-H10GB-CU2M"))
    );
    assert_eq!(row(port(&p, "Eth1/3")), ("Ethernet1/3", "xcvrAbsen", false, Some(true), None));
    assert_eq!(port(&p, "Eth1/4").vlan.as_deref(), Some("trunk"));
    assert_eq!(port(&p, "Eth1/10").description.as_deref(), Some("managed by puppet"));
    let e21 = port(&p, "Eth2/1");
    assert_eq!(row(e21), ("Ethernet2/1", "notconnec", false, Some(true), None));
    assert_eq!(e21.media.as_deref(), Some("QSFP-40G-SR-BD"));
    assert_eq!(row(port(&p, "Eth2/11")), ("Ethernet2/11", "disabled", false, Some(false), None));
    assert_eq!(row(port(&p, "Po10")), ("Port-Channel10", "noOperMem", false, None, None));
    assert_eq!(row(port(&p, "Lo10")), ("Lo10", "connected", true, Some(true), None));
    let v146 = port(&p, "Vlan146");
    assert_eq!((row(v146), v146.description.as_deref()), (("Vlan146", "down", false, None, None), Some("my vlan 146")));
    let nve = port(&p, "nve1");
    assert_eq!((row(nve), nve.vlan.clone()), (("nve1", "connected", true, Some(true), None), None));
}

#[test]
fn negotiated_speeds_and_the_tunnel_table() {
    let p = ports(include_str!("fixtures/nxos_interfaces/cisco_nxos_show_interface_status_tunnel.raw"));
    assert_eq!(p.len(), 9);
    assert_eq!(row(&p[0]), ("mgmt0", "connected", true, Some(true), Some(1_000)));
    assert_eq!(p[0].speed.as_deref(), Some("a-1000"));
    assert_eq!(row(&p[1]), ("Ethernet1/1", "connected", true, Some(true), Some(10_000)));
    assert_eq!(
        (p[1].description.as_deref(), p[1].speed.as_deref(), p[1].media.as_deref()),
        (Some("TEST1"), Some("a-10G"), Some("10Gbase-SR"))
    );
    assert_eq!(row(&p[3]), ("Ethernet1/3", "disabled", false, Some(false), None));
    assert_eq!(
        (p[4].port.as_str(), p[4].description.as_deref(), p[4].status.as_str()),
        ("Tunnel13", Some("Test Tun13"), "connected")
    );
    assert_eq!((p[4].reason.as_deref(), p[4].vlan.clone()), (Some("none none"), None));
    assert_eq!((p[5].status.as_str(), p[5].reason.as_deref()), ("down", Some("admin down Administratively down")));
    assert_eq!(p[8].reason.as_deref(), Some("Link not connected tunnel link is not connected"));
}

#[test]
fn names_that_overflow_their_column_and_fex_ports() {
    let p = ports(include_str!("fixtures/nxos_interfaces/cisco_nxos_show_interface_status3.raw"));
    assert_eq!(p.len(), 15);
    // `upk peerLink_XXXX connected`: the name runs into the status column.
    assert_eq!(row(&p[0]), ("Ethernet1/1", "connected", true, Some(true), Some(10_000)));
    assert_eq!(p[0].description.as_deref(), Some("upk peerLink_XXXX"));
    assert_eq!(row(&p[8]), ("Ethernet1/9", "channelDo", false, None, Some(10_000)));
    assert_eq!(p[8].media.as_deref(), Some("Fabric Exte"));
    assert_eq!((p[13].vlan.as_deref(), p[13].description.as_deref()), (Some("f-path"), Some("FP-port")));
    assert_eq!(
        (p[14].description.as_deref(), p[14].media.as_deref()),
        (Some("\"FEX151\""), Some("Fabric Extender Transceiver"))
    );
}

#[test]
fn one_interface_with_the_command_echoed() {
    let p = ports(include_str!("fixtures/nxos_interfaces/genie-nxos-show-interface-ethernet-status-golden3.txt"));
    assert_eq!(p.len(), 1);
    assert_eq!(row(&p[0]), ("Ethernet1/1", "connected", true, Some(true), Some(100_000)));
    assert_eq!(p[0].media.as_deref(), Some("QSFP-100G-SR1.2"));
    // No line end after the last line; `linkFlapE` (link-flap err-disabled) is neither up nor down admin-wise.
    let p = ports(include_str!("fixtures/nxos_interfaces/genie-nxos-show-interface-ethernet-status-golden6.txt"));
    assert_eq!(row(&p[0]), ("Ethernet1/15", "linkFlapE", false, None, None));
    assert_eq!(p[0].media.as_deref(), Some("QSFP-100G-CR4"));
}

#[test]
fn status_sets_speed_and_link_state_on_fabric_ports_only() {
    let config = "interface Ethernet1/1\n  mtu 9216\n  speed 40000\ninterface Ethernet2/1\n  no shutdown\n";
    let cfg = fabcheck_parse::nxos::running_config::parse(config).expect("parses").value;
    let mut model = to_model(&cfg);
    let status =
        parse(include_str!("fixtures/nxos_interfaces/cisco_nxos_show_interface_status.raw")).expect("parses").value;
    apply_interfaces_status(&mut model, &status);
    let e11 = &model.ports["Ethernet1/1"];
    assert_eq!(
        (e11.mtu, e11.speed_mbps, e11.oper_up, e11.admin_up),
        (Some(9216), Some(40_000), Some(false), Some(false)),
        "`auto` keeps the configured speed"
    );
    assert_eq!((model.ports["Ethernet2/1"].oper_up, model.ports["Ethernet2/1"].admin_up), (Some(false), Some(true)));
    assert_eq!(model.ports["Port-Channel10"].oper_up, Some(false));
    for other in ["mgmt0", "Lo10", "Vlan1", "nve1"] {
        assert!(!model.ports.contains_key(other), "{other} is no fabric port");
    }
    let mut empty = SwitchQos::default();
    apply_interfaces_status(&mut empty, &status);
    assert_eq!(empty.ports.len(), 63, "60 Ethernet ports and 3 port-channels");
    let json = fabcheck_parse::parse_to_json(
        "nxos_interfaces",
        include_str!("fixtures/nxos_interfaces/genie-nxos-show-interface-ethernet-status-golden3.txt"),
    )
    .expect("known")
    .expect("parses")
    .value;
    assert_eq!(json["model"]["ports"]["Ethernet1/1"]["speed_mbps"], 100_000);
    assert_eq!(json["facts"]["ports"][0]["status"], "connected");
}

/// Three more contributors' outputs: names ended by a tab, two tables, FEX host ports.
#[test]
fn tabs_after_names_two_tables_and_fex_ports() {
    let p = ports(include_str!("fixtures/nxos_interfaces/cisco_nxos_show_interface_status1.raw"));
    assert_eq!(p.len(), 9);
    assert_eq!((p[0].name.as_str(), p[0].speed_mbps), ("mgmt0", Some(1000)));
    assert!(p[1..].iter().all(|p| p.oper_up && p.speed_mbps == Some(10_000)), "{p:?}");
    assert_eq!(p[1].name, "Ethernet1/1");

    let p = ports(include_str!("fixtures/nxos_interfaces/cisco_nxos_show_interface_status2.raw"));
    assert_eq!(p.len(), 55);
    assert_eq!((p[0].name.as_str(), p[0].status.as_str(), p[0].oper_up), ("mgmt0", "notconnec", false));
    assert_eq!((p[1].name.as_str(), p[1].speed_mbps, p[1].oper_up), ("Ethernet1/1", Some(1000), true));
    assert_eq!((p[2].status.as_str(), p[2].speed_mbps), ("xcvrAbsen", None));

    let p = ports(include_str!("fixtures/nxos_interfaces/cisco_nxos_show_interface_status5.raw"));
    let names: Vec<&str> = p.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "Ethernet1/1",
            "Ethernet1/3",
            "Ethernet1/5",
            "Ethernet1/7",
            "Ethernet1/35",
            "Ethernet101/1/1",
            "Ethernet105/1/1"
        ]
    );
    assert_eq!((p[4].status.as_str(), p[4].oper_up, p[4].speed_mbps), ("sfpAbsent", false, Some(10_000)));
    assert_eq!((p[6].status.as_str(), p[6].speed_mbps), ("notconnec", Some(1000)));
}
