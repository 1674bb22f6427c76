//! Facts of `grep -H '' /proc/sys/net/ipv4/conf/*/{arp_ignore,arp_announce,rp_filter}`, as its
//! parser (`fabcheck_parse::linux::net_conf`) produces them: per interface (and `all`,
//! `default`), the IPv4 settings that decide which NIC answers ARP and which packets are dropped.

use serde::Serialize;
use std::collections::BTreeMap;

/// The settings by interface name (`all`, `default`, `lo`, `ens1np0` ...).
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct NetConf {
    /// Interface → its settings.
    pub interfaces: BTreeMap<String, ConfValues>,
}

/// One interface's settings; `None` where the file was not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct ConfValues {
    /// 0 (any local address, any interface), 1 (only the address of the receiving interface),
    /// 2 (also from a sender of that interface's subnet), ... up to 8.
    pub arp_ignore: Option<u32>,
    /// 0 (any local address), 1 (avoid addresses outside the target's subnet), 2 (the best local
    /// address for the target).
    pub arp_announce: Option<u32>,
    /// 0 (off), 1 (strict: drop what would not be routed back out of the same interface),
    /// 2 (loose).
    pub rp_filter: Option<u32>,
}

impl NetConf {
    /// What the kernel applies on `interface`: the higher of `all` and the interface's own value
    /// (for arp_ignore, arp_announce and rp_filter alike).
    pub fn effective(&self, interface: &str) -> ConfValues {
        let all = self.interfaces.get("all").copied().unwrap_or_default();
        let own = self.interfaces.get(interface).copied().unwrap_or_default();
        let max = |a: Option<u32>, b: Option<u32>| match (a, b) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        ConfValues {
            arp_ignore: max(all.arp_ignore, own.arp_ignore),
            arp_announce: max(all.arp_announce, own.arp_announce),
            rp_filter: max(all.rp_filter, own.rp_filter),
        }
    }
}
