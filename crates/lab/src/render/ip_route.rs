//! `ip [-j] rule show` and `ip [-j] route show table all` (iproute2), and the IPv4 interface
//! settings under `/proc/sys/net/ipv4/conf` that `grep` reads.
//!
//! The lab's hosts have no policy routing: the three default rules (local, main, default), the
//! kernel's connected route per address, a default route via the management network, and the
//! local table's local and broadcast routes. Each rail sits in a /16 of its own (10.100/16,
//! 10.101/16 ...) until `one-subnet` moves a second rail into the first one's. JSON as iproute2's
//! `ip/iprule.c` and `ip/iproute.c` print it compactly: defaults left out (`type` unicast, `table`
//! main, `protocol` boot, `scope` global), `table` a string. ARP settings are the kernel's defaults
//! (0); `rp_filter` is systemd's (`50-default.conf`: 2 on every interface, `all` left at 0).

use super::common::port_state;
use crate::shell::Output;
use crate::state::LabHost;
use std::net::Ipv4Addr;

/// The management network's gateway.
const GATEWAY_HOST: u8 = 1;

/// An IPv4 address on an interface, with its /16.
struct Address {
    dev: String,
    ip: Ipv4Addr,
    /// The interface has carrier: without, the kernel keeps the address and its connected route,
    /// marked `linkdown`.
    carrier: bool,
}

impl Address {
    fn subnet(&self) -> String {
        let o = self.ip.octets();
        format!("{}.{}.0.0/16", o[0], o[1])
    }

    fn broadcast(&self) -> String {
        let o = self.ip.octets();
        format!("{}.{}.255.255", o[0], o[1])
    }
}

/// `eth0`'s, then each NIC's.
fn addresses(host: &LabHost) -> Vec<Address> {
    let mut out = vec![Address { dev: "eth0".into(), ip: host.mgmt_ipv4, carrier: true }];
    for nic in &host.nics {
        if let Some(ip) = nic.ipv4 {
            out.push(Address { dev: nic.netdev.clone(), ip, carrier: port_state(nic).carrier() });
        }
    }
    out
}

/// `ip rule show`.
pub(crate) fn rules(json: bool) -> Output {
    let rules = [(0, "local"), (32766, "main"), (32767, "default")];
    if json {
        let items: Vec<String> =
            rules.iter().map(|(p, t)| format!("{{\"priority\":{p},\"src\":\"all\",\"table\":\"{t}\"}}")).collect();
        Output::ok(format!("[{}]\n", items.join(",")))
    } else {
        Output::ok(rules.iter().map(|(p, t)| format!("{p}:\tfrom all lookup {t}\n")).collect::<String>())
    }
}

/// One route: JSON members in iproute2's order, and the text form.
struct Route {
    kind: Option<&'static str>,
    dst: String,
    gateway: Option<String>,
    dev: String,
    table: Option<&'static str>,
    protocol: &'static str,
    scope: Option<&'static str>,
    prefsrc: Option<String>,
    /// Its device has no carrier: the kernel prints `linkdown` on the connected route and the
    /// local table's broadcast route of a NIC whose cable is out, not on its `local` host route.
    linkdown: bool,
}

impl Route {
    fn json(&self) -> String {
        let mut s = String::from("{");
        if let Some(k) = self.kind {
            s.push_str(&format!("\"type\":\"{k}\","));
        }
        s.push_str(&format!("\"dst\":\"{}\",", self.dst));
        if let Some(g) = &self.gateway {
            s.push_str(&format!("\"gateway\":\"{g}\","));
        }
        s.push_str(&format!("\"dev\":\"{}\",", self.dev));
        if let Some(t) = self.table {
            s.push_str(&format!("\"table\":\"{t}\","));
        }
        s.push_str(&format!("\"protocol\":\"{}\",", self.protocol));
        if let Some(sc) = self.scope {
            s.push_str(&format!("\"scope\":\"{sc}\","));
        }
        if let Some(p) = &self.prefsrc {
            s.push_str(&format!("\"prefsrc\":\"{p}\","));
        }
        s.push_str(if self.linkdown { "\"flags\":[\"linkdown\"]}" } else { "\"flags\":[]}" });
        s
    }

    fn text(&self) -> String {
        let mut words: Vec<String> = self.kind.map(String::from).into_iter().collect();
        words.push(self.dst.clone());
        if let Some(g) = &self.gateway {
            words.push(format!("via {g}"));
        }
        words.push(format!("dev {}", self.dev));
        if let Some(t) = self.table {
            words.push(format!("table {t}"));
        }
        words.push(format!("proto {}", self.protocol));
        if let Some(sc) = self.scope {
            words.push(format!("scope {sc}"));
        }
        if let Some(p) = &self.prefsrc {
            words.push(format!("src {p}"));
        }
        if self.linkdown {
            words.push("linkdown".into());
        }
        format!("{}\n", words.join(" "))
    }
}

/// `ip route show table all`: the main table, then the local one.
pub(crate) fn routes(host: &LabHost, json: bool) -> Output {
    let addrs = addresses(host);
    let mgmt = host.mgmt_ipv4.octets();
    let mut all = vec![Route {
        kind: None,
        dst: "default".into(),
        gateway: Some(Ipv4Addr::new(mgmt[0], mgmt[1], 0, GATEWAY_HOST).to_string()),
        dev: "eth0".into(),
        table: None,
        protocol: "static",
        scope: None,
        prefsrc: None,
        linkdown: false,
    }];
    for a in &addrs {
        all.push(Route {
            kind: None,
            dst: a.subnet(),
            gateway: None,
            dev: a.dev.clone(),
            table: None,
            protocol: "kernel",
            scope: Some("link"),
            prefsrc: Some(a.ip.to_string()),
            linkdown: !a.carrier,
        });
    }
    for a in &addrs {
        for (kind, dst, scope) in [("local", a.ip.to_string(), "host"), ("broadcast", a.broadcast(), "link")] {
            all.push(Route {
                kind: Some(kind),
                dst,
                gateway: None,
                dev: a.dev.clone(),
                table: Some("local"),
                protocol: "kernel",
                scope: Some(scope),
                prefsrc: Some(a.ip.to_string()),
                linkdown: kind == "broadcast" && !a.carrier,
            });
        }
    }
    if json {
        let items: Vec<String> = all.iter().map(Route::json).collect();
        Output::ok(format!("[{}]\n", items.join(",")))
    } else {
        Output::ok(all.iter().map(Route::text).collect::<String>())
    }
}

/// A setting under `/proc/sys/net/ipv4/conf/IF/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ConfFile {
    ArpIgnore,
    ArpAnnounce,
    RpFilter,
}

impl ConfFile {
    /// Every setting, with its file name.
    pub(crate) const ALL: [(&'static str, ConfFile); 3] = [
        ("arp_announce", ConfFile::ArpAnnounce),
        ("arp_ignore", ConfFile::ArpIgnore),
        ("rp_filter", ConfFile::RpFilter),
    ];

    /// Its value on `interface`.
    pub(crate) fn value(self, interface: &str) -> u32 {
        match self {
            ConfFile::ArpIgnore | ConfFile::ArpAnnounce => 0,
            ConfFile::RpFilter => u32::from(interface != "all") * 2,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::healthy_host;
    use crate::faults::{Fault, apply};

    #[test]
    fn rails_in_their_own_subnets_until_one_subnet() {
        let mut host = healthy_host(0);
        let parse =
            |h: &LabHost| fabcheck_parse::linux::ip_route::parse(&routes(h, true).stdout).expect("parses").value;
        let connected = |h: &LabHost| -> Vec<(String, String)> {
            parse(h)
                .routes
                .into_iter()
                .filter(|r| r.protocol == "kernel" && r.table == "main")
                .map(|r| (r.dev.unwrap_or_default(), r.dst))
                .collect()
        };
        let before = connected(&host);
        assert!(before.contains(&("ens1np0".into(), "10.100.0.0/16".into())), "{before:?}");
        assert!(before.contains(&("ens2np0".into(), "10.101.0.0/16".into())), "{before:?}");
        apply(&mut host, &"gpu001=one-subnet".parse::<Fault>().unwrap()).unwrap();
        let after = connected(&host);
        assert!(after.contains(&("ens2np0".into(), "10.100.0.0/16".into())), "{after:?}");
        let rules = fabcheck_parse::linux::ip_rule::parse(&rules(true).stdout).expect("parses").value.rules;
        assert_eq!(
            rules.iter().map(|r| r.table.as_deref().unwrap_or("")).collect::<Vec<_>>(),
            ["local", "main", "default"]
        );
        let text = fabcheck_parse::linux::ip_route::parse(&super::routes(&host, false).stdout).expect("text parses");
        assert_eq!(text.value, parse(&host), "the text and JSON forms agree");
    }

    #[test]
    fn a_nic_without_carrier_keeps_its_route_marked_linkdown() {
        let mut host = healthy_host(0);
        apply(&mut host, &"gpu001=link-down@ens2np0".parse::<Fault>().unwrap()).unwrap();
        for json in [true, false] {
            let routes = fabcheck_parse::linux::ip_route::parse(&routes(&host, json).stdout).expect("parses").value;
            let down: Vec<(&str, &str, bool)> = routes
                .routes
                .iter()
                .filter(|r| r.dev.as_deref() == Some("ens2np0"))
                .map(|r| (r.table.as_str(), r.dst.as_str(), r.flags.iter().any(|f| f == "linkdown")))
                .collect();
            assert_eq!(
                down,
                [("main", "10.101.0.0/16", true), ("local", "10.101.0.1", false), ("local", "10.101.255.255", true)],
                "json: {json}"
            );
            assert!(
                routes
                    .routes
                    .iter()
                    .filter(|r| r.dev.as_deref() == Some("ens1np0"))
                    .all(|r| !r.flags.iter().any(|f| f == "linkdown"))
            );
        }
    }
}
