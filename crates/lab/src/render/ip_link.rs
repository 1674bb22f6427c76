//! `ip [-j] link [show] [[dev] IF]` (iproute2); `ip rule` and `ip route` are `ip_route.rs`'s.
//!
//! JSON key order and values as iproute2 prints them (a real `ip -j link show` of the lab machine
//! and published ones): `ifindex, ifname, flags, mtu, qdisc, operstate, linkmode, group, txqlen,
//! link_type, address, broadcast`, compact on one line. A port without carrier has
//! `["NO-CARRIER","BROADCAST","MULTICAST","UP"]` and operstate `DOWN`. IPoIB has link_type
//! `infiniband`, a 20-byte address (4 bytes of QPN flags, then the port GID) and the IPoIB
//! broadcast address, txqlen 256. The text form is `ip link show`'s two lines per interface.

use super::common::{self, port_state};
use crate::shell::{Output, not_simulated};
use crate::state::{LabHost, LabNic, LinkLayer};
use std::fmt::Write as _;

/// One network interface.
pub(crate) struct Iface {
    pub ifindex: u32,
    pub name: String,
    pub flags: Vec<&'static str>,
    pub mtu: u32,
    pub qdisc: &'static str,
    pub operstate: &'static str,
    pub txqlen: u32,
    pub link_type: &'static str,
    pub address: String,
    pub broadcast: String,
    /// Link speed in Mb/s as `/sys/class/net/IF/speed` shows it (-1 when unknown).
    pub speed: i64,
}

const UP: [&str; 4] = ["BROADCAST", "MULTICAST", "UP", "LOWER_UP"];
const NO_CARRIER: [&str; 4] = ["NO-CARRIER", "BROADCAST", "MULTICAST", "UP"];

/// The host's interfaces: `lo`, the management `eth0`, then each NIC's netdev.
pub(crate) fn interfaces(host: &LabHost) -> Vec<Iface> {
    let h = host.name.bytes().fold(0u16, |h, b| h.wrapping_mul(31).wrapping_add(b as u16));
    let mut out = vec![
        Iface {
            ifindex: 1,
            name: "lo".into(),
            flags: vec!["LOOPBACK", "UP", "LOWER_UP"],
            mtu: 65536,
            qdisc: "noqueue",
            operstate: "UNKNOWN",
            txqlen: 1000,
            link_type: "loopback",
            address: "00:00:00:00:00:00".into(),
            broadcast: "00:00:00:00:00:00".into(),
            speed: -1,
        },
        Iface {
            ifindex: 2,
            name: "eth0".into(),
            flags: UP.to_vec(),
            mtu: 1500,
            qdisc: "mq",
            operstate: "UP",
            txqlen: 1000,
            link_type: "ether",
            address: common::mac_string(&[0x3c, 0xec, 0xef, 0x10, (h >> 8) as u8, h as u8]),
            broadcast: "ff:ff:ff:ff:ff:ff".into(),
            speed: 25000,
        },
    ];
    for (i, nic) in host.nics.iter().enumerate() {
        let carrier = port_state(nic).carrier();
        let (link_type, address, broadcast, txqlen) = match nic.link_layer {
            LinkLayer::Ethernet => ("ether", common::mac_string(&nic.mac), "ff:ff:ff:ff:ff:ff".to_string(), 1000),
            LinkLayer::InfiniBand => {
                let mut addr = vec![0x00, 0x00, 0x10, 0x87, 0xfe, 0x80, 0, 0, 0, 0, 0, 0];
                addr.extend_from_slice(&common::port_guid(nic).to_be_bytes());
                let brd = "00:ff:ff:ff:ff:12:40:1b:ff:ff:00:00:00:00:00:00:ff:ff:ff:ff".to_string();
                ("infiniband", common::mac_string(&addr), brd, 256)
            }
        };
        out.push(Iface {
            ifindex: 3 + i as u32,
            name: nic.netdev.clone(),
            flags: if carrier { UP.to_vec() } else { NO_CARRIER.to_vec() },
            mtu: nic.mtu,
            qdisc: "mq",
            operstate: if carrier { "UP" } else { "DOWN" },
            txqlen,
            link_type,
            address,
            broadcast,
            speed: if carrier { nic.rate_gbps as i64 * 1000 } else { -1 },
        });
    }
    out
}

fn json(i: &Iface) -> String {
    let q = |s: &str| serde_json::to_string(s).unwrap_or_default();
    let flags: Vec<String> = i.flags.iter().map(|f| q(f)).collect();
    format!(
        "{{\"ifindex\":{},\"ifname\":{},\"flags\":[{}],\"mtu\":{},\"qdisc\":{},\"operstate\":{},\"linkmode\":\"DEFAULT\",\"group\":\"default\",\"txqlen\":{},\"link_type\":{},\"address\":{},\"broadcast\":{}}}",
        i.ifindex,
        q(&i.name),
        flags.join(","),
        i.mtu,
        q(i.qdisc),
        q(i.operstate),
        i.txqlen,
        q(i.link_type),
        q(&i.address),
        q(&i.broadcast)
    )
}

fn text(i: &Iface) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{}: {}: <{}> mtu {} qdisc {} state {} mode DEFAULT group default qlen {}",
        i.ifindex,
        i.name,
        i.flags.join(","),
        i.mtu,
        i.qdisc,
        i.operstate,
        i.txqlen
    );
    let _ = writeln!(s, "    link/{} {} brd {}", i.link_type, i.address, i.broadcast);
    s
}

/// `ip` with the given arguments: the `link`, `rule` and `route` objects.
pub(crate) fn render(host: &LabHost, args: &[String]) -> Output {
    let mut json_out = false;
    let mut rest = args.iter().map(String::as_str).peekable();
    while let Some(opt) = rest.next_if(|a| a.starts_with('-')) {
        match opt {
            "-j" | "-json" | "--json" => json_out = true,
            "-d" | "-details" | "-s" | "-stats" => {}
            other => {
                return Output::fail(255, "", format!("Option \"{other}\" is unknown, try \"ip -help\".\n"));
            }
        }
    }
    match rest.next() {
        Some("link" | "l" | "li" | "lin") => {}
        Some("rule" | "ru" | "rul") => return super::ip_route::rules(json_out),
        Some("route" | "r" | "ro" | "rou" | "rout") => return super::ip_route::routes(host, json_out),
        Some(obj) => {
            return Output::fail(1, "", format!("Object \"{obj}\" is unknown, try \"ip help\".\n"));
        }
        None => return Output::fail(255, "", "Usage: ip [ OPTIONS ] OBJECT { COMMAND | help }\n"),
    }
    match rest.peek() {
        Some(&("set" | "change")) => {
            rest.next();
            return set(host, &rest.collect::<Vec<_>>());
        }
        None | Some(&("show" | "list" | "lst" | "sh" | "ls")) => {
            rest.next();
        }
        Some(_) => {}
    }
    let dev = match (rest.next(), rest.next()) {
        (Some("dev"), Some(name)) | (Some(name), None) if name != "dev" => Some(name),
        (None, _) => None,
        (Some(cmd), _) => {
            return Output::fail(255, "", format!("Command \"{cmd}\" is unknown, try \"ip link help\".\n"));
        }
    };
    let all = interfaces(host);
    let chosen: Vec<&Iface> = match dev {
        None => all.iter().collect(),
        Some(name) => match all.iter().find(|i| i.name == name) {
            Some(i) => vec![i],
            None => return Output::fail(1, "", format!("Device \"{name}\" does not exist.\n")),
        },
    };
    if json_out {
        let items: Vec<String> = chosen.iter().map(|i| json(i)).collect();
        Output::ok(format!("[{}]\n", items.join(",")))
    } else {
        Output::ok(chosen.iter().map(|i| text(i)).collect::<String>())
    }
}

/// `ip link set` keywords other than `dev` and `mtu`: they change what the lab does not keep.
const OTHER_SETTINGS: [&str; 24] = [
    "up",
    "down",
    "name",
    "address",
    "broadcast",
    "brd",
    "txqueuelen",
    "txqlen",
    "qlen",
    "arp",
    "multicast",
    "allmulticast",
    "promisc",
    "netns",
    "master",
    "nomaster",
    "alias",
    "group",
    "vf",
    "mode",
    "state",
    "xdp",
    "type",
    "addrgenmode",
];

/// The MTUs a netdev accepts: mlx5's Ethernet range (68 to 9978 on ConnectX-7) and IPoIB's in
/// datagram mode (up to the 4 KB IB MTU less the 4-byte IPoIB header).
fn mtu_range(nic: &LabNic) -> std::ops::RangeInclusive<u32> {
    match nic.link_layer {
        LinkLayer::Ethernet => 68..=9978,
        LinkLayer::InfiniBand => 68..=4092,
    }
}

/// iproute2's `get_unsigned()`: `strtoul` with base 0 (`0x` hex, a leading `0` octal), the whole
/// word, at most `u32::MAX`.
fn get_unsigned(word: &str) -> Option<u32> {
    let (digits, radix) = match word.strip_prefix("0x").or_else(|| word.strip_prefix("0X")) {
        Some(hex) => (hex, 16),
        None if word.len() > 1 && word.starts_with('0') => (&word[1..], 8),
        None => (word, 10),
    };
    u32::from_str_radix(digits, radix).ok()
}

/// `ip link set [dev] IF [mtu N]`: iproute2's parsing and messages (`Cannot find device "X"`,
/// status 1; a bad or repeated argument, status 255) and the kernel's range check (`Error: mtu
/// greater than device maximum.`, status 2); success is silent. Only the MTU of a NIC's netdev
/// is kept by the lab: other settings, and `lo`/`eth0`, are not simulated.
fn set(host: &LabHost, args: &[&str]) -> Output {
    let garbage = |message: String| Output::fail(255, "", message);
    let (mut dev, mut mtu): (Option<&str>, Option<u32>) = (None, None);
    let mut it = args.iter().copied();
    while let Some(word) = it.next() {
        let named = match word {
            "dev" | "mtu" => match it.next() {
                Some(value) => Some(value),
                None => return garbage("Command line is not complete. Try option \"help\"\n".into()),
            },
            setting if OTHER_SETTINGS.contains(&setting) => return not_simulated("ip link set", setting),
            _ => None,
        };
        match (word, named) {
            ("mtu", Some(value)) if mtu.is_some() => {
                return garbage(format!("Error: duplicate \"mtu\": \"{value}\" is the second value.\n"));
            }
            ("mtu", Some(value)) => match get_unsigned(value) {
                Some(n) => mtu = Some(n),
                None => return garbage(format!("Error: argument \"{value}\" is wrong: Invalid \"mtu\" value\n\n")),
            },
            (_, name) if dev.is_none() => dev = Some(name.unwrap_or(word)),
            (_, name) => {
                let name = name.unwrap_or(word);
                return garbage(format!("Error: either \"dev\" is duplicate, or \"{name}\" is a garbage.\n"));
            }
        }
    }
    let Some(dev) = dev else {
        return garbage("Not enough information: \"dev\" argument is required.\n".into());
    };
    if !interfaces(host).iter().any(|i| i.name == dev) {
        return Output::fail(1, "", format!("Cannot find device \"{dev}\"\n"));
    }
    let Some(index) = host.nics.iter().position(|n| n.netdev == dev) else {
        return not_simulated("ip link set", dev);
    };
    let Some(mtu) = mtu else {
        return Output::ok("");
    };
    let range = mtu_range(&host.nics[index]);
    if mtu < *range.start() {
        return Output::fail(2, "", "Error: mtu less than device minimum.\n");
    }
    if mtu > *range.end() {
        return Output::fail(2, "", "Error: mtu greater than device maximum.\n");
    }
    if host.nics[index].mtu == mtu {
        return Output::ok("");
    }
    let mut changed = host.clone();
    changed.nics[index].mtu = mtu;
    Output { changed: Some(Box::new(changed)), ..Output::ok("") }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::healthy_host;
    use crate::faults::{Fault, apply};

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn json_keys_in_iproute2_order() {
        let out = render(&healthy_host(0), &args("-j link show")).stdout;
        assert!(out.starts_with("[{\"ifindex\":1,\"ifname\":\"lo\",\"flags\":[\"LOOPBACK\",\"UP\",\"LOWER_UP\"],\"mtu\":65536,\"qdisc\":\"noqueue\",\"operstate\":\"UNKNOWN\",\"linkmode\":\"DEFAULT\",\"group\":\"default\",\"txqlen\":1000,\"link_type\":\"loopback\",\"address\":\"00:00:00:00:00:00\",\"broadcast\":\"00:00:00:00:00:00\"},"));
        assert!(out.ends_with("}]\n") && out.lines().count() == 1);
        assert!(out.contains("\"ifname\":\"ib0\",\"flags\":[\"BROADCAST\",\"MULTICAST\",\"UP\",\"LOWER_UP\"],\"mtu\":4092,\"qdisc\":\"mq\",\"operstate\":\"UP\",\"linkmode\":\"DEFAULT\",\"group\":\"default\",\"txqlen\":256,\"link_type\":\"infiniband\",\"address\":\"00:00:10:87:fe:80:00:00:00:00:00:00:94:6d:ae:03:00:00:00:02\""));
    }

    #[test]
    fn parses_back_to_the_state() {
        let mut host = healthy_host(0);
        apply(&mut host, &"gpu001=mtu@mlx5_1".parse::<Fault>().unwrap()).unwrap();
        apply(&mut host, &"gpu001=link-down@mlx5_0".parse::<Fault>().unwrap()).unwrap();
        let p = fabcheck_parse::linux::ip_link::parse(&render(&host, &args("-j link show")).stdout).expect("parses");
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        let link = |n: &str| p.value.links.iter().find(|l| l.ifname == n).unwrap().clone();
        assert_eq!((link("ens2np0").mtu, link("ens2np0").operstate.as_str()), (1500, "UP"));
        let down = link("ens1np0");
        assert_eq!((down.mtu, down.operstate.as_str()), (4200, "DOWN"));
        assert!(down.flags.contains(&"NO-CARRIER".to_string()) && !down.flags.contains(&"LOWER_UP".to_string()));
        assert_eq!(link("ib0").link_type.as_deref(), Some("infiniband"));
        assert_eq!(link("eth0").mtu, 1500);
    }

    #[test]
    fn one_device_text_form_and_errors() {
        let host = healthy_host(0);
        let one = render(&host, &args("-j link show dev ens1np0")).stdout;
        assert!(one.starts_with("[{\"ifindex\":3,\"ifname\":\"ens1np0\"") && one.ends_with("}]\n"));
        assert_eq!(render(&host, &args("-j link show ens1np0")).stdout, one);
        let text = render(&host, &args("link show ens1np0")).stdout;
        assert_eq!(
            text,
            "3: ens1np0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 4200 qdisc mq state UP mode DEFAULT group default qlen 1000\n    link/ether 94:6d:ae:00:00:00 brd ff:ff:ff:ff:ff:ff\n"
        );
        let missing = render(&host, &args("-j link show dev nosuch"));
        assert_eq!((missing.status, missing.stderr.as_str()), (1, "Device \"nosuch\" does not exist.\n"));
    }

    #[test]
    fn set_mtu_in_any_order_within_the_device_range() {
        let host = healthy_host(0);
        let mtu = |a: &str| {
            let out = render(&host, &args(a));
            assert_eq!((out.status, out.stdout.as_str(), out.stderr.as_str()), (0, "", ""), "{a}");
            out.changed.map(|h| (h.nics[0].mtu, h.nics[1].mtu, h.nics[2].mtu))
        };
        assert_eq!(mtu("link set mtu 9000 dev ens1np0"), Some((9000, 4200, 4092)));
        assert_eq!(mtu("link change ens2np0 mtu 0x2328"), Some((4200, 9000, 4092)), "strtoul's base 0");
        assert_eq!(mtu("link set dev ib0 mtu 2044"), Some((4200, 4200, 2044)));
        assert_eq!(mtu("link set dev ens1np0"), None, "nothing to change");
        let refused = |a: &str| {
            let out = render(&host, &args(a));
            assert_eq!(out.changed, None, "{a}");
            (out.status, out.stderr)
        };
        assert_eq!(refused("link set dev ib0 mtu 4096"), (2, "Error: mtu greater than device maximum.\n".into()));
        assert_eq!(
            refused("link set eth0 mtu 9000"),
            (1, "ip link set: eth0: not simulated by the fabcheck lab\n".into())
        );
        assert_eq!(
            refused("link set mtu 4200"),
            (255, "Not enough information: \"dev\" argument is required.\n".into())
        );
        assert_eq!(
            refused("link set ens1np0 ens2np0"),
            (255, "Error: either \"dev\" is duplicate, or \"ens2np0\" is a garbage.\n".into())
        );
        assert_eq!(
            refused("link set ens1np0 mtu 4200 mtu 4200"),
            (255, "Error: duplicate \"mtu\": \"4200\" is the second value.\n".into())
        );
    }
}
