//! LLDP neighbours on every real sample in tests/fixtures/lldp (see SOURCES.md there), each
//! through the format detection of `lldp::parse`.
use fabcheck_parse::Parsed;
use fabcheck_parse::lldp::{LldpFormat, LldpNeighbors, parse};
use fabcheck_parse::switch::LldpNeighbor;

fn read(text: &str, format: LldpFormat) -> Parsed<LldpNeighbors> {
    let parsed = parse(text).expect("parses");
    assert_eq!(parsed.value.format, format);
    parsed
}

fn lines(parsed: &Parsed<LldpNeighbors>) -> Vec<usize> {
    parsed.warnings.iter().map(|w| w.line).collect()
}

fn nb(local: &str, chassis: &str, name: &str, port: &str, descr: Option<&str>, ip: Option<&str>) -> LldpNeighbor {
    LldpNeighbor {
        local_port: local.into(),
        chassis_id: Some(chassis.into()),
        system_name: Some(name.into()),
        port_id: Some(port.into()),
        port_description: descr.map(Into::into),
        management_ip: ip.map(Into::into),
    }
}

#[test]
fn cumulus_41_lldpcli_show_neighbors_docs_cut_with_dots() {
    let text = include_str!("fixtures/lldp/cumulus-4.1-lldpcli-show-neighbors-cl59-docs-PARTIAL.txt");
    let parsed = read(text, LldpFormat::Lldpcli);
    let n = &parsed.value.neighbors;
    assert_eq!(n.len(), 4);
    // The management port keeps its Linux name: `eth0` is not `Ethernet0`.
    assert_eq!(n[0], nb("eth0", "08:9e:01:e9:66:5a", "PIONEERMS22", "swp47", Some("swp47"), Some("192.168.0.22")));
    // Two addresses advertised: the IPv4 one is kept.
    assert_eq!(n[1], nb("swp1", "00:01:00:00:09:00", "MSP-1", "swp1", Some("swp1"), Some("192.0.2.9")));
    assert_eq!(n[2].local_port, "swp2");
    assert_eq!(n[3], nb("swp3", "00:01:00:00:0a:00", "MSP-2", "swp1", Some("swp1"), Some("192.0.2.10")));
    assert!(parsed.value.advertised.is_empty());
    // The documentation author's `...`.
    assert_eq!(lines(&parsed), [55]);
}

#[test]
fn lldpcli_show_interfaces_zero_chassis_mac_is_the_local_view() {
    let text = include_str!("fixtures/lldp/lldpcli-show-interfaces-zero-chassis-mac-lldpd-541-PARTIAL.txt");
    let parsed = read(text, LldpFormat::LldpcliInterfaces);
    assert!(parsed.value.neighbors.is_empty(), "advertisements are not neighbours");
    let a = &parsed.value.advertised;
    assert_eq!(a.len(), 3);
    assert_eq!(
        a[0],
        nb("gretap0", "00:00:00:00:00:00", "AikryBot", "00:00:00:00:00:00", Some("gretap0"), Some("10.54.91.6"))
    );
    assert_eq!(a[1].local_port, "erspan0");
    // Cut after `ChassisID` of the third block: what was printed is kept.
    assert_eq!(a[2].local_port, "eth0");
    assert_eq!(a[2].chassis_id.as_deref(), Some("00:00:00:00:00:00"));
    assert_eq!((a[2].system_name.clone(), a[2].port_id.clone()), (None, None));
    assert_eq!(lines(&parsed), [38]);
    assert!(parsed.warnings[0].message.contains("no line end"));
}

#[test]
fn arista_eos_table() {
    let text = include_str!("fixtures/lldp/arista-eos-show-lldp-neighbors-ntc2.txt");
    let parsed = read(text, LldpFormat::EosTable);
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let n = &parsed.value.neighbors;
    let ports: Vec<_> = n.iter().map(|x| x.local_port.as_str()).collect();
    assert_eq!(ports, ["Ethernet2", "Ethernet3", "Ethernet4", "Ethernet5", "Ethernet6", "Ethernet7"]);
    assert_eq!(n[0].system_name.as_deref(), Some("arista2"));
    assert_eq!(n[0].port_id.as_deref(), Some("Ethernet2"));
    assert_eq!(n[5].port_id.as_deref(), Some("Ethernet7"));
    assert_eq!((n[0].chassis_id.clone(), n[0].management_ip.clone()), (None, None));
}

#[test]
fn arista_veos_415_detail_many_interfaces() {
    let text = include_str!("fixtures/lldp/arista-veos-4.15-show-lldp-neighbors-detail-ntc.txt");
    let parsed = read(text, LldpFormat::EosDetail);
    let n = &parsed.value.neighbors;
    assert_eq!(n.len(), 20);
    // A MAC advertised as management address is not an IP.
    assert_eq!(
        n[0],
        LldpNeighbor {
            management_ip: None,
            ..nb("Ethernet1", "2c:c2:60:81:ea:f9", "spine2.company.com", "Ethernet1", None, None)
        }
    );
    assert_eq!(n[4], nb("Management1", "00:05:86:71:4e:c0", "vmx1", "fxp0", Some("fxp0"), Some("10.0.0.31")));
    let eth8: Vec<_> = n.iter().filter(|x| x.local_port == "Ethernet8").collect();
    assert_eq!(eth8.len(), 3);
    assert_eq!(eth8[1].management_ip.as_deref(), Some("172.16.2.142"));
    // A locally assigned port ID; the port ID under Link Aggregation is not the neighbour's.
    let eth9 = n.iter().find(|x| x.local_port == "Ethernet9").expect("Ethernet9");
    assert_eq!(eth9.port_id.as_deref(), Some("Eth1/23"));
    assert_eq!(eth9.port_description.as_deref(), Some("topology/pod-1/paths-101/pathep-[AVS_Policy_Group]"));
    let eth23 = n.iter().find(|x| x.local_port == "Ethernet23").expect("Ethernet23");
    assert_eq!(eth23.port_id.as_deref(), Some("527"));
    assert_eq!(eth23.chassis_id.as_deref(), Some("3c:8a:b0:89:98:98"));
    // A MAC port ID, and IPv4 preferred over IPv6.
    let compute = n.iter().find(|x| x.system_name.as_deref() == Some("aci-compute")).expect("aci-compute");
    assert_eq!(compute.port_id.as_deref(), Some("00:50:56:ac:4c:d9"));
    assert_eq!(compute.management_ip.as_deref(), Some("172.16.2.222"));
    // A description that is itself quoted keeps its own quotes.
    let sw1 = n.iter().find(|x| x.local_port == "Ethernet49/1").expect("Ethernet49/1");
    assert_eq!(sw1.port_description.as_deref(), Some("\" To R4-Arista-L2-SDNLAB -DC1\""));
    assert_eq!(sw1.management_ip.as_deref(), Some("2.2.2.2"));
    assert_eq!(
        n[19],
        nb("Management1", "0c:ca:01:c0:e8:e1", "test-host.domain.com", "Management1", None, Some("172.16.208.5"))
    );
    // The file ends without a line end.
    assert_eq!(lines(&parsed), [659]);
}

#[test]
fn arista_detail_with_lldpd_peer_locally_assigned_chassis() {
    let text = include_str!("fixtures/lldp/arista-eos-show-lldp-neighbors-detail-lldpd-peer-opnsense-4561-PARTIAL.txt");
    let parsed = read(text, LldpFormat::EosDetail);
    assert_eq!(
        parsed.value.neighbors,
        [nb("Ethernet31", "OPNsense", "RTR01", "igb2", Some("lagg0"), Some("10.0.0.153"))]
    );
    // The echoed `SW03#sh ll n e 31-32 d` is no warning; the cut MAC/PHY line is.
    assert_eq!(lines(&parsed), [33]);
}

#[test]
fn cisco_nxos_93_detail() {
    let text = include_str!("fixtures/lldp/cisco-nxos-9.3-show-lldp-neighbors-detail-ntc2.txt");
    let parsed = read(text, LldpFormat::NxosDetail);
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let n = &parsed.value.neighbors;
    assert_eq!(
        n[0],
        nb(
            "Ethernet1/52",
            "34:73:2d:00:00:01",
            "SW-NEXUS",
            "Ethernet1/52",
            Some("SW-NEXUS-UPLINK"),
            Some("192.168.1.2")
        )
    );
    // A fabric-extender port, a MAC port ID, no management address (`not advertised`).
    assert_eq!(
        n[1],
        nb("Ethernet101/1/10", "24:a9:37:00:00:01", "pure-storage", "1a:51:48:00:00:01", Some("eth0"), None)
    );
    assert_eq!(n.len(), 2);
}

/// NX-OS 10.3's blocks carry the Vlan Name and Link Aggregation TLV sections: every line is
/// read (a host NIC's `System Name: null` is kept as printed: lldpd on a host without a name).
#[test]
fn cisco_nxos_103_detail_with_tlv_sections() {
    let text = include_str!(
        "fixtures/lldp/cisco-nxos-10.3-show-lldp-neighbors-detail-vlan-name-link-aggregation-tlv-PROVENANCE-WEAK.txt"
    );
    let parsed = read(text, LldpFormat::NxosDetail);
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let n = &parsed.value.neighbors;
    assert_eq!(n.len(), 4);
    assert_eq!(n[0].local_port, "Ethernet1/1");
    assert_eq!(n[0].chassis_id.as_deref(), Some("11:11:22:22:33:01"));
    assert_eq!(n[0].port_id.as_deref(), Some("11:11:22:22:33:01"));
    assert_eq!(n[0].port_description.as_deref(), Some("ConnectX-4 Lx, 25G/10G/1G SFP"));
    assert_eq!((n[0].system_name.as_deref(), n[0].management_ip.as_deref()), (Some("null"), None));
    // A management address printed as a MAC (`1234.5678.90ab`) is no IP address.
    assert_eq!(
        n[1],
        nb(
            "Ethernet1/41",
            "24:16:9d:9f:08:b0",
            "CONTOSO-DC1-TOR-01.contoso.local",
            "Ethernet1/41",
            Some("MLAG Heartbeat and iBGP TOR1-TOR2"),
            None
        )
    );
    assert_eq!(
        n[2],
        nb(
            "Ethernet1/47",
            "68:9e:0b:af:91:6a",
            "CONTOSO-DC1-SPINE-01.contoso.com",
            "Ethernet1/12/3",
            Some("INFRA:PTP:Uplink-to-Spine:Eth1/47:HL"),
            Some("2001:db8:1234:5678::1001")
        )
    );
    assert_eq!((n[3].local_port.as_str(), n[3].port_id.as_deref()), ("Ethernet1/49", Some("Ethernet1/49")));
}

#[test]
fn nxos_interface_table_sees_an_idrac() {
    let text = include_str!("fixtures/lldp/nxos-show-lldp-neighbors-interface-idrac-issue-301.txt");
    let parsed = read(text, LldpFormat::NxosTable);
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let n = &parsed.value.neighbors;
    assert_eq!(n.len(), 1);
    assert_eq!(n[0].local_port, "Ethernet1/10");
    assert_eq!(n[0].system_name.as_deref(), Some("PowerEdge R750"));
    // The server's BMC port, not its data NIC: spaces kept.
    assert_eq!(n[0].port_id.as_deref(), Some("DSMPMM3 Dedicated"));
    assert_eq!(n[0].chassis_id, None);
}

#[test]
fn lldpd_json_two_neighbours_on_one_port() {
    let text = include_str!("fixtures/lldp/lldpctl-json-two-macs-one-port-sonic-utilities-test.json");
    let parsed = read(text, LldpFormat::LldpdJson);
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let n = &parsed.value.neighbors;
    assert_eq!(
        n[0],
        nb("Ethernet0", "00:00:00:00:00:01", "dummy", "00:00:00:00:00:01", Some("First MAC"), Some("192.0.2.1"))
    );
    // `capability` an object, no `mgmt-ip`: the json format's one-element quirks.
    assert_eq!(n[1], nb("Ethernet0", "00:00:00:00:00:02", "dummy", "00:00:00:00:00:02", Some("Second MAC"), None));
}

#[test]
fn lldpd_json_cut_inside_the_port_tlvs() {
    let text = include_str!("fixtures/lldp/lldpctl-json-sonic-leaf-c6500-neighbor-suzieq-259-PARTIAL.txt");
    let parsed = read(text, LldpFormat::LldpdJson);
    assert_eq!(
        parsed.value.neighbors,
        [nb("eth0", "00:1c:0f:5f:c7:c0", "c6500-vxlan", "Gi3/36", Some("GigabitEthernet3/36"), Some("172.31.1.254"))]
    );
    assert_eq!(lines(&parsed), [43]);
}

#[test]
fn json_field_names_follow_the_model() {
    let text = include_str!("fixtures/lldp/cisco-nxos-9.3-show-lldp-neighbors-detail-ntc2.txt");
    let json = fabcheck_parse::parse_to_json("lldp", text).expect("known source").expect("parses").value;
    assert_eq!(json["format"], "nxos_detail");
    let first = &json["neighbors"][0];
    assert_eq!(first["local_port"], "Ethernet1/52");
    assert_eq!(first["chassis_id"], "34:73:2d:00:00:01");
    assert_eq!(first["system_name"], "SW-NEXUS");
    assert_eq!(first["port_id"], "Ethernet1/52");
    assert_eq!(first["port_description"], "SW-NEXUS-UPLINK");
    assert_eq!(first["management_ip"], "192.168.1.2");
}

#[test]
fn dell_os10_detail_of_breakout_ports_facing_nics() {
    let text = include_str!("fixtures/lldp/dell-os10-show-lldp-neighbors-detail-breakout-nics-PROVENANCE-WEAK.txt");
    let parsed = read(text, LldpFormat::Os10Detail);
    // The last rule has no line end; a rule holds no value, so nothing may be cut.
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let n = &parsed.value.neighbors;
    assert_eq!(n.len(), 2);
    // The NICs advertise no system name (`Not Advertised`) and a MAC as their port ID.
    let nic = |local: &str, mac: &str| LldpNeighbor {
        local_port: local.into(),
        chassis_id: Some(mac.into()),
        system_name: None,
        port_id: Some(mac.into()),
        port_description: Some("NIC 25Gb QSFP".into()),
        management_ip: None,
    };
    assert_eq!(n[0], nic("Ethernet1/1/1:1", "c8:4b:d6:90:c7:27"));
    assert_eq!(n[1], nic("Ethernet1/1/2:1", "c8:4b:d6:90:c8:0d"));
}

/// (local port, system name, port ID) of each neighbour.
fn rows(parsed: &Parsed<LldpNeighbors>) -> Vec<(String, String, String)> {
    parsed
        .value
        .neighbors
        .iter()
        .map(|n| {
            (n.local_port.clone(), n.system_name.clone().unwrap_or_default(), n.port_id.clone().unwrap_or_default())
        })
        .collect()
}

fn row(local: &str, name: &str, port: &str) -> (String, String, String) {
    (local.into(), name.into(), port.into())
}

/// NX-OSv with device IDs too long for their column, each alone on its line.
#[test]
fn nxos_table_with_wrapped_device_ids() {
    let parsed =
        read(include_str!("fixtures/lldp/cisco-nxosv-show-lldp-neighbors-long-ids-ntc.txt"), LldpFormat::NxosTable);
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    assert_eq!(
        rows(&parsed),
        [
            row("Ethernet1/1", "nx-osv9000-3-long-name.com", "Ethernet1/1"),
            row("Ethernet1/2", "nx-osv9000-4-extremely-long-name", "Ethernet1/1"),
            row("Ethernet1/3", "nx-osv9000-2", "Ethernet1/3"),
        ]
    );
}

/// Wrapped IDs, empty capabilities, and a row whose columns sit left of the header's: all 15
/// entries the switch counts are read.
#[test]
fn nxos_table_with_a_misaligned_row() {
    let parsed = read(
        include_str!("fixtures/lldp/cisco-nxos-show-lldp-neighbors-multiline-misaligned-ntc.txt"),
        LldpFormat::NxosTable,
    );
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let r = rows(&parsed);
    assert_eq!(r.len(), 15);
    assert_eq!(r[0], row("mgmt0", "dcx3.org.local", "Gi1/0/37"));
    assert_eq!(r[3], row("Ethernet1/5", "fw1-clinical-partner", "ethernet1/9"));
    assert_eq!(r[7], row("Ethernet3/1", "cr-ebc.org.local", "Fo1/0/8"));
    assert_eq!(r[11], row("Ethernet4/1", "cr-park.org.local", "Fo1/0/8"));
    assert_eq!(r[14], row("Ethernet4/24", "fw2-services", "ethernet1/24"));
}

/// A table the reader cannot fully follow says so against the switch's own count.
#[test]
fn nxos_entries_missing_against_the_total_are_a_warning() {
    let text = include_str!("fixtures/lldp/cisco-nxosv-show-lldp-neighbors-long-ids-ntc.txt")
        .replace("Total entries displayed: 3", "Total entries displayed: 4");
    let parsed = read(&text, LldpFormat::NxosTable);
    let w: Vec<(usize, &str)> = parsed.warnings.iter().map(|w| (w.line, w.message.as_str())).collect();
    assert_eq!(w, [(10, "the switch counts 4 entries (`Total entries displayed: 4`), 3 were read")]);
}

/// EOS's eAPI JSON of `show lldp neighbors detail`: every neighbour of every port, MACs written
/// one way, the IPv4 management address preferred, empty ports skipped.
#[test]
fn eos_json_detail() {
    let parsed = read(
        include_str!("fixtures/lldp/arista-eos-show-lldp-neighbors-detail-json-napalm-normal.json"),
        LldpFormat::EosJson,
    );
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let n = &parsed.value.neighbors;
    assert_eq!(n.len(), 41);
    assert_eq!(
        n.iter().find(|n| n.local_port == "Ethernet8").unwrap(),
        &nb("Ethernet8", "2c:60:0c:ad:30:de", "78m3", "00:0f:53:2e:ce:d1", Some("eth3"), Some("192.168.8.21"))
    );
    // A locally assigned port ID keeps its value without EOS's quotes (`"\"597\""`).
    assert_eq!(n.iter().find(|n| n.local_port == "Ethernet47").and_then(|n| n.port_id.as_deref()), Some("597"));
    let host = read(
        include_str!("fixtures/lldp/arista-eos-show-lldp-neighbors-detail-json-napalm-issue1153.json"),
        LldpFormat::EosJson,
    );
    assert_eq!(host.value.neighbors.len(), 3);
    let first = &host.value.neighbors.iter().find(|n| n.local_port == "Ethernet1/1").unwrap();
    assert_eq!(
        (first.port_id.as_deref(), first.management_ip.as_deref()),
        (Some("1c:e7:10:03:54:13"), Some("10.0.0.1"))
    );
    // An 11-digit chassis ID is no MAC: kept as advertised.
    let odd = read(
        include_str!("fixtures/lldp/arista-eos-show-lldp-neighbors-detail-json-napalm-issue903.json"),
        LldpFormat::EosJson,
    );
    assert_eq!(odd.value.neighbors[0].chassis_id.as_deref(), Some("00c.297b.d2a8"));
    assert_eq!(odd.value.neighbors[0].port_id.as_deref(), Some("00:0c:29:7b:d2:a8"));
}

/// (local port, system name, port ID) of each neighbour.
fn named_ports(parsed: &Parsed<LldpNeighbors>) -> Vec<(&str, Option<&str>, Option<&str>)> {
    parsed.value.neighbors.iter().map(named_port).collect()
}

fn named_port(x: &LldpNeighbor) -> (&str, Option<&str>, Option<&str>) {
    (x.local_port.as_str(), x.system_name.as_deref(), x.port_id.as_deref())
}

#[test]
fn arista_eos_table_without_a_dash_line() {
    let text = include_str!("fixtures/lldp/arista-eos-show-lldp-neighbors-ntc1.txt");
    let parsed = read(text, LldpFormat::EosTable);
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    assert_eq!(
        named_ports(&parsed),
        [
            ("Ethernet1", Some("localhost"), Some("Ethernet1")),
            ("Ethernet2", Some("localhost"), Some("Ethernet2")),
            ("Ethernet3/1", Some("tg104.sjc.aristanetworks.com"), Some("Ethernet3/2")),
            ("Ma1/1", Some("dc1-rack11-tor1.sjc"), Some("1/1")),
        ]
    );
}

/// (local port, system name, chassis ID, port ID, port description) of each neighbour.
type SonicRow<'a> = (&'a str, Option<&'a str>, Option<&'a str>, Option<&'a str>, Option<&'a str>);

fn sonic_rows(parsed: &Parsed<LldpNeighbors>) -> Vec<SonicRow<'_>> {
    parsed.value.neighbors.iter().map(sonic_row).collect()
}

fn sonic_row(x: &LldpNeighbor) -> SonicRow<'_> {
    (
        x.local_port.as_str(),
        x.system_name.as_deref(),
        x.chassis_id.as_deref(),
        x.port_id.as_deref(),
        x.port_description.as_deref(),
    )
}

#[test]
fn sonic_lldp_table_with_neighbours_that_send_no_name() {
    let text = include_str!("fixtures/lldp/sonic-show-lldp-table-empty-remotedevice-cells-issue-11645.txt");
    let parsed = read(text, LldpFormat::SonicTable);
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let rows = sonic_rows(&parsed);
    assert_eq!(rows.len(), 8);
    assert_eq!(rows[0], ("Ethernet0", Some("ARISTA01T1"), None, Some("fortyGigE0/0"), Some("Ethernet1")));
    assert_eq!(rows[2], ("Ethernet4", None, None, Some("fortyGigE0/0"), Some("Ethernet1")));
    assert_eq!(rows[7], ("Ethernet21", Some("ARISTA04T1"), None, Some("fortyGigE0/4"), Some("Ethernet2")));
}

#[test]
fn sonic_lldp_table_with_mac_and_spaced_port_ids() {
    let text = include_str!("fixtures/lldp/sonic-dx010-show-lldp-table-mac-portids-spaces-issue-18871.txt");
    let parsed = read(text, LldpFormat::SonicTable);
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let rows = sonic_rows(&parsed);
    assert_eq!(rows.len(), 7);
    assert_eq!(rows[0], ("Ethernet104", Some("sw0"), None, Some("FortyGigabitEthernet 1/0/49"), None));
    assert_eq!(rows[2], ("Ethernet116", None, None, Some("48:df:37:e0:24:e0"), None));
    assert_eq!(rows[6], ("Ethernet125", None, None, Some("te1/0/2"), None));
}

#[test]
fn sonic_lldp_table_with_the_management_port() {
    let text = include_str!("fixtures/lldp/sonic-show-lldp-table-t0-eth0-numeric-port-pr-5698.txt");
    let parsed = read(text, LldpFormat::SonicTable);
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let rows = sonic_rows(&parsed);
    assert_eq!(rows.len(), 5);
    assert_eq!(rows[3], ("Ethernet248", Some("ARISTA04T1"), None, Some("Ethernet1"), None));
    assert_eq!(rows[4], ("eth0", Some("MTR-F-1-S-LAB-R2-5-SW01"), None, Some("35"), Some("35")));
}

#[test]
fn sonic_lldp_table_two_neighbours_on_one_port_without_a_final_line_end() {
    let text = include_str!("fixtures/lldp/sonic-show-lldp-table-two-macs-one-port-sonic-utilities-lldp-test.txt");
    let parsed = read(text, LldpFormat::SonicTable);
    // `Total entries displayed:  2` has no line end, and it is the table's whole last line.
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let rows = sonic_rows(&parsed);
    assert_eq!(
        rows,
        [
            ("Ethernet0", Some("dummy"), None, Some("00:00:00:00:00:01"), Some("First MAC")),
            ("Ethernet0", Some("dummy"), None, Some("00:00:00:00:00:02"), Some("Second MAC")),
        ]
    );
}

#[test]
fn arista_eos_summary_json_with_mac_port_ids() {
    let text = include_str!("fixtures/lldp/arista-eos-show-lldp-neighbors-json-mac-portids-napalm.json");
    let parsed = read(text, LldpFormat::EosJson);
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    assert_eq!(
        named_ports(&parsed),
        [
            ("Ethernet1", Some("precise64"), Some("08:00:27:4f:33:2d")),
            ("Ethernet2", Some("precise64"), Some("08:00:27:ca:c5:be"))
        ]
    );
    assert!(parsed.value.neighbors.iter().all(|x| x.chassis_id.is_none() && x.management_ip.is_none()));
}
