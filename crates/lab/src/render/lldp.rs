//! LLDP as each device shows its neighbours: lldpd's `lldpctl` / `lldpcli show neighbors` text
//! (GPU hosts, SONiC's `show lldp neighbors`, Cumulus), and `show lldp neighbors detail` of
//! Arista EOS, Cisco NX-OS and Dell OS10.
//!
//! What a device advertises follows its software: lldpd on a host with `portidsubtype ifname`
//! (port ID `ifname ens1np0`, as the lab's hosts are set up), SONiC's lldpmgrd (`portidsubtype
//! local` with the port's alias, which the lab's SONiC switches set to the port name, and the
//! port's description), EOS (interface name, interface description), Cumulus lldpd (interface
//! name; no description: lldpd sends the name). Both ends of every cable come from the same
//! wiring ([`Fabric`]), so the two views agree unless a fault says otherwise: `lldp-missing`
//! takes the entry out of one switch's table only.
//!
//! Layouts: the lldpctl blocks follow `cumulus-4.1-lldpcli-show-neighbors-cl59-docs-PARTIAL.txt`
//! (rules of 79 dashes, `Key:` padded to 14 characters, `Time: 0 day, 17:38:08`) with lldpd 1.0's
//! `TTL` line under `Port:`; the EOS blocks follow `arista-veos-4.15-show-lldp-neighbors-detail`
//! and the OPNsense lldpd peer sample (`Interface X detected N LLDP neighbors:`, quoted strings,
//! dotted MACs), with a `detected 0 LLDP neighbors` block for a port without one; the NX-OS
//! blocks follow `cisco-nxos-9.3-show-lldp-neighbors-detail-ntc2.txt` (capability legend and
//! column header first, dotted chassis IDs, `not advertised`, a blank line after each block,
//! `Total entries displayed: N`); the OS10 blocks follow
//! `dell-os10-show-lldp-neighbors-detail-breakout-nics-PROVENANCE-WEAK.txt` (`Remote ...` keys,
//! colon MACs, a rule of 75 dashes after each block, only ports with a neighbour).

use super::common::KERNEL_RELEASE;
use super::ip_link;
use crate::state::{Fabric, HostLldp, LabSwitch, LinkLayer, Peer, Platform};
use std::fmt::Write as _;
use std::net::Ipv4Addr;
use std::time::Duration;

/// How long the neighbours have been known when the lab starts (seconds).
pub(crate) const KNOWN_FOR: u64 = 2 * 3600 + 13 * 60 + 45;

/// lldpd's rules.
const RULE: &str = "-------------------------------------------------------------------------------";

/// The port ID's subtype.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PortIdKind {
    /// Interface name (5): lldpd `ifname`.
    Ifname,
    /// Locally assigned (7): lldpd `local` (SONiC's alias).
    Local,
    /// MAC address (3): lldpd's default for a host port.
    Mac,
}

/// What a device advertises on one port, as its neighbour receives it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Advert {
    /// System name.
    pub(crate) system_name: String,
    /// Chassis MAC, `aa:bb:cc:dd:ee:ff`.
    pub(crate) chassis: String,
    /// Port ID.
    pub(crate) port_id: String,
    /// Its subtype.
    pub(crate) port_kind: PortIdKind,
    /// Port description.
    pub(crate) port_descr: String,
    /// System description.
    pub(crate) sys_descr: String,
    /// Management address.
    pub(crate) mgmt_ip: Ipv4Addr,
    /// A switch (bridge and router) rather than a host (station).
    pub(crate) switch: bool,
}

/// The system description a switch sends (and prints as its version); an NVUE switch names the
/// Cumulus Linux release it runs.
pub(crate) fn sys_descr(fabric: &Fabric, switch: &LabSwitch) -> String {
    match switch.platform {
        Platform::Sonic => {
            "SONiC Software Version: SONiC.202311.1 - HwSku: Mellanox-SN5600-V256 - Distribution: Debian 12.5 - Kernel: 6.1.0-11-2-amd64".into()
        }
        Platform::Eos => "Arista Networks EOS version 4.31.2F running on an Arista Networks DCS-7060X6-64PE".into(),
        Platform::Nvue => {
            format!("Cumulus Linux version {} running on Nvidia SN5600", super::nvue::release(fabric, switch))
        }
        Platform::Nxos => "Cisco Nexus Operating System (NX-OS) Software 10.3(4a)".into(),
        Platform::DellOs10 => "Dell SmartFabric OS10 Enterprise 10.5.6.0, Dell PowerSwitch Z9432F-ON".into(),
    }
}

/// A switch port's description (SONiC `PORT|description`, EOS `description`): its peer.
pub(crate) fn port_description(fabric: &Fabric, peer: Peer) -> String {
    match peer {
        Peer::Host { host, rail } => {
            let h = &fabric.hosts[host];
            let nic = h.nics.iter().filter(|n| n.link_layer == LinkLayer::Ethernet).nth(rail);
            format!("{}:{}", h.name, nic.map_or("", |n| n.netdev.as_str()))
        }
        Peer::Switch { switch, port } => {
            let s = &fabric.switches[switch];
            format!("{}:{}", s.name, s.ports[port].name)
        }
    }
}

/// What the device at `peer` advertises on that port.
pub(crate) fn advert(fabric: &Fabric, peer: Peer) -> Advert {
    match peer {
        Peer::Host { host, rail } => {
            let h = &fabric.hosts[host];
            let netdev = h
                .nics
                .iter()
                .filter(|n| n.link_layer == LinkLayer::Ethernet)
                .nth(rail)
                .map_or_else(String::new, |n| n.netdev.clone());
            let interfaces = ip_link::interfaces(h);
            let mac_of = |name: &str| interfaces.iter().find(|i| i.name == name).map(|i| i.address.clone());
            let (port_id, port_kind) = match h.lldp {
                HostLldp::Mac => (mac_of(&netdev).unwrap_or_default(), PortIdKind::Mac),
                HostLldp::Ifname | HostLldp::Off => (netdev.clone(), PortIdKind::Ifname),
            };
            Advert {
                system_name: h.name.clone(),
                chassis: mac_of("eth0").unwrap_or_default(),
                port_id,
                port_kind,
                port_descr: netdev,
                sys_descr: format!(
                    "Ubuntu 22.04.4 LTS Linux {KERNEL_RELEASE} #115-Ubuntu SMP Mon Apr 15 09:52:04 UTC 2024 x86_64"
                ),
                mgmt_ip: h.mgmt_ipv4,
                switch: false,
            }
        }
        Peer::Switch { switch, port } => {
            let s = &fabric.switches[switch];
            let p = &s.ports[port];
            let (port_kind, port_descr) = match s.platform {
                Platform::Sonic => (PortIdKind::Local, port_description(fabric, p.peer)),
                Platform::Eos | Platform::Nxos | Platform::DellOs10 => {
                    (PortIdKind::Ifname, port_description(fabric, p.peer))
                }
                Platform::Nvue => (PortIdKind::Ifname, p.name.clone()),
            };
            Advert {
                system_name: s.name.clone(),
                chassis: super::common::mac_string(&s.mac),
                port_id: p.name.clone(),
                port_kind,
                port_descr,
                sys_descr: sys_descr(fabric, s),
                mgmt_ip: s.mgmt_ipv4,
                switch: true,
            }
        }
    }
}

/// A host's LLDP entries: each RoCE rail cabled to a leaf, by netdev.
pub(crate) fn host_entries(fabric: &Fabric, host: usize) -> Vec<(String, Advert)> {
    let h = &fabric.hosts[host];
    let rails = h.nics.iter().filter(|n| n.link_layer == LinkLayer::Ethernet && n.up);
    rails
        .enumerate()
        .filter_map(|(rail, nic)| {
            let (switch, port) = fabric.host_link(host, rail)?;
            let leaf = &fabric.switches[switch];
            leaf.ports[port].up.then(|| (nic.netdev.clone(), advert(fabric, Peer::Switch { switch, port })))
        })
        .collect()
}

/// A switch's LLDP entry of each port (`None`: nothing seen there).
pub(crate) fn switch_entries(fabric: &Fabric, switch: &LabSwitch) -> Vec<(String, Option<Advert>)> {
    switch
        .ports
        .iter()
        .map(|p| {
            // A host without lldpd sends nothing: the port shows no neighbour.
            let peer_up = match p.peer {
                Peer::Host { host, rail } => {
                    fabric.hosts[host].lldp != HostLldp::Off
                        && fabric.hosts[host]
                            .nics
                            .iter()
                            .filter(|n| n.link_layer == LinkLayer::Ethernet)
                            .nth(rail)
                            .is_some_and(|n| n.up)
                }
                Peer::Switch { switch, port } => fabric.switches[switch].ports[port].up,
            };
            (p.name.clone(), (p.lldp && p.up && peer_up).then(|| advert(fabric, p.peer)))
        })
        .collect()
}

/// `0 day, 02:13:45`, as lldpd prints a time.
fn lldpd_time(secs: u64) -> String {
    let d = secs / 86_400;
    let plural = if d > 1 { "s" } else { "" };
    format!("{d} day{plural}, {:02}:{:02}:{:02}", secs / 3600 % 24, secs / 60 % 60, secs % 60)
}

/// `2:13:45` or `1 day, 2:13:45`, as EOS prints a duration.
fn eos_time(secs: u64) -> String {
    let d = secs / 86_400;
    let hms = format!("{}:{:02}:{:02}", secs / 3600 % 24, secs / 60 % 60, secs % 60);
    match d {
        0 => hms,
        1 => format!("1 day, {hms}"),
        d => format!("{d} days, {hms}"),
    }
}

/// `lldpctl` / `lldpcli show neighbors` with these entries (local interface, advert).
pub(crate) fn lldpctl<'a>(entries: impl IntoIterator<Item = (&'a str, &'a Advert)>, elapsed: Duration) -> String {
    let mut out = format!("{RULE}\nLLDP neighbors:\n{RULE}\n");
    let time = lldpd_time(KNOWN_FOR + elapsed.as_secs());
    let mut rids: Vec<&str> = Vec::new();
    for (local, a) in entries {
        let rid = match rids.iter().position(|n| *n == a.system_name) {
            Some(i) => i + 1,
            None => {
                rids.push(&a.system_name);
                rids.len()
            }
        };
        let kv = |out: &mut String, indent: &str, key: &str, value: &str| {
            let _ = writeln!(out, "{indent}{:<14}{value}", format!("{key}:"));
        };
        kv(&mut out, "", "Interface", &format!("{local}, via: LLDP, RID: {rid}, Time: {time}"));
        out.push_str("  Chassis:\n");
        kv(&mut out, "    ", "ChassisID", &format!("mac {}", a.chassis));
        kv(&mut out, "    ", "SysName", &a.system_name);
        kv(&mut out, "    ", "SysDescr", &a.sys_descr);
        kv(&mut out, "    ", "MgmtIP", &a.mgmt_ip.to_string());
        let caps: &[(&str, bool)] = if a.switch {
            &[("Bridge", true), ("Router", true)]
        } else {
            &[("Bridge", false), ("Router", false), ("Wlan", false), ("Station", true)]
        };
        for (cap, on) in caps {
            kv(&mut out, "    ", "Capability", &format!("{cap}, {}", if *on { "on" } else { "off" }));
        }
        out.push_str("  Port:\n");
        let kind = match a.port_kind {
            PortIdKind::Ifname => "ifname",
            PortIdKind::Local => "local",
            PortIdKind::Mac => "mac",
        };
        kv(&mut out, "    ", "PortID", &format!("{kind} {}", a.port_id));
        kv(&mut out, "    ", "PortDescr", &a.port_descr);
        kv(&mut out, "    ", "TTL", "120");
        let _ = writeln!(out, "{RULE}");
    }
    out
}

/// `aa:bb:cc:dd:ee:ff` → `aabb.ccdd.eeff`, as EOS and NX-OS print a MAC.
pub(crate) fn dotted(mac: &str) -> String {
    let hex: String = mac.chars().filter(char::is_ascii_hexdigit).collect();
    if hex.len() != 12 {
        return mac.to_string();
    }
    format!("{}.{}.{}", &hex[..4], &hex[4..8], &hex[8..])
}

/// Arista EOS `show lldp neighbors detail`: one block per port, in port order.
/// `show lldp neighbors detail | json` (EOS eAPI), in the shape of napalm's EOS test data
/// (tests/fixtures/lldp/arista-eos-show-lldp-neighbors-detail-json-napalm-*.json): ports keyed
/// by name, each `lldpNeighborInfo` list empty or with the neighbour; MACs dotted, names quoted
/// inside the string as EOS does.
pub(crate) fn eos_json(entries: &[(String, Option<Advert>)], elapsed: Duration) -> String {
    let mut ports = serde_json::Map::new();
    let now = 1_700_000_000.0 + elapsed.as_secs_f64();
    for (local, advert) in entries {
        let infos: Vec<serde_json::Value> = advert
            .iter()
            .map(|a| {
                let (id_type, port_id) = match a.port_kind {
                    PortIdKind::Mac => ("macAddress", dotted(&a.port_id)),
                    PortIdKind::Ifname => ("interfaceName", format!("\"{}\"", a.port_id)),
                    PortIdKind::Local => ("local", format!("\"{}\"", a.port_id)),
                };
                serde_json::json!({
                    "systemCapabilities": {"bridge": a.switch, "router": a.switch, "stationOnly": !a.switch},
                    "lastChangeTime": now - KNOWN_FOR as f64,
                    "neighborInterfaceInfo": {
                        "interfaceIdType": id_type,
                        "interfaceId": port_id,
                        "interfaceDescription": a.port_descr,
                        "maxFrameSize": if a.switch { 9236 } else { 4222 },
                    },
                    "neighborDiscoveryTime": now - KNOWN_FOR as f64,
                    "lastContactTime": now,
                    "chassisId": dotted(&a.chassis),
                    "systemName": a.system_name,
                    "systemDescription": a.sys_descr,
                    "ttl": 120,
                    "managementAddresses": [{"oidString": "", "interfaceNumType": "ifIndex", "interfaceNum": 2, "address": a.mgmt_ip.to_string(), "addressType": "ipv4"}],
                    "chassisIdType": "macAddress",
                })
            })
            .collect();
        ports.insert(local.clone(), serde_json::json!({ "lldpNeighborInfo": infos }));
    }
    let root = serde_json::json!({ "lldpNeighbors": ports });
    format!("{}\n", serde_json::to_string_pretty(&root).unwrap_or_default())
}

pub(crate) fn eos_detail(entries: &[(String, Option<Advert>)], elapsed: Duration) -> String {
    let mut out = String::new();
    let known = eos_time(KNOWN_FOR + elapsed.as_secs());
    for (i, (local, advert)) in entries.iter().enumerate() {
        let Some(a) = advert else {
            let _ = writeln!(out, "Interface {local} detected 0 LLDP neighbors:\n");
            continue;
        };
        let age = (elapsed.as_secs() + i as u64 * 7) % 30;
        let chassis = dotted(&a.chassis);
        let _ = writeln!(out, "Interface {local} detected 1 LLDP neighbors:\n");
        // EOS quotes a name and prints a MAC in its dotted form, unquoted.
        let port_id = match a.port_kind {
            PortIdKind::Mac => dotted(&a.port_id),
            PortIdKind::Ifname | PortIdKind::Local => format!("\"{}\"", a.port_id),
        };
        let _ = writeln!(out, "  Neighbor {chassis}/{port_id}, age {age} seconds");
        let _ = writeln!(out, "  Discovered {known} ago; Last changed {known} ago");
        let _ = writeln!(out, "  - Chassis ID type: MAC address (4)\n    Chassis ID     : {chassis}");
        let kind = match a.port_kind {
            PortIdKind::Ifname => "Interface name (5)",
            PortIdKind::Local => "Locally assigned (7)",
            PortIdKind::Mac => "MAC address (3)",
        };
        let _ = writeln!(out, "  - Port ID type: {kind}\n    Port ID     : {port_id}");
        let _ = writeln!(out, "  - Time To Live: 120 seconds");
        let _ = writeln!(out, "  - Port Description: \"{}\"", a.port_descr);
        let _ = writeln!(out, "  - System Name: \"{}\"", a.system_name);
        let _ = writeln!(out, "  - System Description: \"{}\"", a.sys_descr);
        let (caps, enabled) = if a.switch {
            ("Bridge, Router", "Bridge, Router")
        } else {
            ("Bridge, Router, Station Only", "Station Only")
        };
        let _ = writeln!(out, "  - System Capabilities : {caps}\n    Enabled Capabilities: {enabled}");
        let _ = writeln!(
            out,
            "  - Management Address Subtype: IPv4 \n    Management Address        : {}\n    Interface Number Subtype  : ifIndex (2)\n    Interface Number          : 2\n    OID String                : ",
            a.mgmt_ip
        );
        let frame = if a.switch { 9236 } else { 4222 };
        let _ = writeln!(out, "  - IEEE802.3 Maximum Frame Size: {frame} bytes\n");
    }
    out
}

/// NX-OS's one-letter capability codes.
fn nxos_capabilities(a: &Advert) -> &'static str {
    if a.switch { "B, R" } else { "S" }
}

/// Cisco NX-OS `show lldp neighbors detail`: one block per port with a neighbour.
pub(crate) fn nxos_detail(entries: &[(String, Option<Advert>)], elapsed: Duration) -> String {
    let mut out = String::from(
        "Capability codes:\n  (R) Router, (B) Bridge, (T) Telephone, (C) DOCSIS Cable Device\n  (W) WLAN Access Point, (P) Repeater, (S) Station, (O) Other\nDevice ID            Local Intf      Hold-time  Capability  Port ID  \n\n",
    );
    let mut shown = 0;
    for (i, (local, advert)) in entries.iter().enumerate() {
        let Some(a) = advert else {
            continue;
        };
        shown += 1;
        let port = local.strip_prefix("Ethernet").map_or_else(|| local.clone(), |rest| format!("Eth{rest}"));
        let remaining = 120 - (elapsed.as_secs() + i as u64 * 7) % 30;
        // NX-OS prints a MAC, chassis or port, in its dotted form.
        let port_id = if a.port_kind == PortIdKind::Mac { dotted(&a.port_id) } else { a.port_id.clone() };
        let _ = writeln!(out, "Chassis id: {}\nPort id: {port_id}\nLocal Port id: {port}", dotted(&a.chassis));
        let _ = writeln!(out, "Port Description: {}\nSystem Name: {}", a.port_descr, a.system_name);
        let _ = writeln!(out, "System Description: {}\nTime remaining: {remaining} seconds", a.sys_descr);
        let caps = nxos_capabilities(a);
        let _ = writeln!(out, "System Capabilities: {caps}\nEnabled Capabilities: {caps}");
        let _ = writeln!(
            out,
            "Management Address: {}\nManagement Address IPV6: not advertised\nVlan ID: not advertised",
            a.mgmt_ip
        );
        // NX-OS 10.x (the lab's 10.3(4a)) adds the frame size and the VLAN-name and
        // link-aggregation TLVs, `not advertised` where the neighbour sends none (an NX-OS 10.3
        // capture: crates/parse/tests/fixtures/lldp/cisco-nxos-10.3-...).
        let frame = if a.switch { "9216".to_string() } else { "not advertised".to_string() };
        let _ = writeln!(
            out,
            "Max Frame Size: {frame}\nVlan Name TLV:\n[Vlan ID: Vlan Name]  not advertised\nLink Aggregation TLV: \nCapability: not advertised\nStatus : not advertised\nLink agg ID : 0\n\n"
        );
    }
    let _ = writeln!(out, "Total entries displayed: {shown}");
    out
}

/// `3 weeks 4 days 21:30:16`, as OS10 prints how long a neighbour's information has not changed.
fn os10_time(secs: u64) -> String {
    let (weeks, days) = (secs / (7 * 86_400), secs / 86_400 % 7);
    format!("{weeks} weeks {days} days {:02}:{:02}:{:02}", secs / 3600 % 24, secs / 60 % 60, secs % 60)
}

/// Dell OS10 `show lldp neighbors detail`: one block per port with a neighbour, each closed by a
/// rule.
pub(crate) fn os10_detail(entries: &[(String, Option<Advert>)], elapsed: Duration) -> String {
    let mut out = String::new();
    let changed = os10_time(KNOWN_FOR + elapsed.as_secs());
    for (i, (local, advert)) in entries.iter().enumerate() {
        let Some(a) = advert else {
            continue;
        };
        if !out.is_empty() {
            out.push('\n');
        }
        let subtype = match a.port_kind {
            PortIdKind::Ifname => "Interface name (5)",
            PortIdKind::Local => "Locally assigned (7)",
            PortIdKind::Mac => "Mac address (3)",
        };
        let valid = 120 - (elapsed.as_secs() + i as u64 * 7) % 30;
        let _ = writeln!(out, "Remote Chassis ID Subtype: Mac address (4)\nRemote Chassis ID: {}", a.chassis);
        let _ = writeln!(out, "Remote Port Subtype: {subtype}\nRemote Port ID: {}", a.port_id);
        let _ = writeln!(out, "Remote Port Description: {}\nLocal Port ID: {local}", a.port_descr);
        let _ = writeln!(out, "Locally assigned remote Neighbor Index: {}\nRemote TTL: 120", 4000 + i);
        let _ = writeln!(out, "Information valid for next {valid} seconds");
        let _ = writeln!(out, "Time since last information change of this neighbor: {changed}");
        let _ = writeln!(out, "Remote System Name: {}\nRemote System Desc: {}", a.system_name, a.sys_descr);
        let frame = if a.switch { 9236 } else { 4222 };
        let _ = writeln!(out, "Remote Max Frame Size: {frame}\nRemote Aggregation Status: false");
        let _ = writeln!(
            out,
            "MAC PHY Configuration:\n    Auto-neg supported: 0\n    Auto-neg enabled: 0\n{}",
            "-".repeat(75)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_and_macs_print_as_the_tools_do() {
        assert_eq!(lldpd_time(17 * 3600 + 38 * 60 + 8), "0 day, 17:38:08");
        assert_eq!(lldpd_time(86_400 + 1), "1 day, 00:00:01");
        assert_eq!(lldpd_time(3 * 86_400), "3 days, 00:00:00");
        assert_eq!(eos_time(71), "0:01:11");
        assert_eq!(eos_time(86_400 + 71), "1 day, 0:01:11");
        assert_eq!(dotted("2c:c2:60:81:ea:f9"), "2cc2.6081.eaf9");
        assert_eq!(os10_time(3 * 7 * 86_400 + 4 * 86_400 + 21 * 3600 + 30 * 60 + 16), "3 weeks 4 days 21:30:16");
        let sample =
            include_str!("../../../parse/tests/fixtures/lldp/cumulus-4.1-lldpcli-show-neighbors-cl59-docs-PARTIAL.txt");
        assert!(sample.lines().any(|l| l == RULE));
    }
}
