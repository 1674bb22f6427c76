//! Topology: links from LLDP seen from both ends, and the paths GPU traffic takes over them.
//!
//! A link is trusted only when both ends see each other on the ports they name (each device's
//! LLDP neighbour table is the evidence); a one-sided or contradictory view is `path.unknown`.
//! A neighbour's port ID is resolved against the neighbour's own interfaces by name, alias
//! (SONiC's `etp1`), MAC (lldpd advertises a host port as `mac <its MAC>` by default) and port
//! description, in that order (`port_of`).
//! Paths are built from half-paths, host NIC → leaf port → leaf uplink → spine port: every
//! GPU-to-GPU path between hosts of different leaves is two half-paths joined at a spine (one per
//! spine under ECMP), and hosts on one leaf meet at the leaf. A problem at a hop is therefore on
//! exactly the half-paths through that hop, which is how findings and the report name paths.

use fabcheck_model::switch::{LldpNeighbor, canonical_interface};
use fabcheck_model::{Finding, Severity};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// One end of a link.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct End {
    /// Inventory name.
    pub device: String,
    /// Canonical port name (switch port, or the host's netdev).
    pub port: String,
}

impl End {
    /// `device:port`, how paths print a hop.
    pub fn hop(&self) -> String {
        format!("{}:{}", self.device, self.port)
    }
}

/// A link both ends agree on.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Link {
    /// One end (the lower in sort order).
    pub a: End,
    /// The other.
    pub b: End,
}

/// What one device's LLDP says, with the file that shows it.
#[derive(Debug, Clone)]
pub struct LldpView {
    /// Inventory name.
    pub device: String,
    /// Names the device is known by in LLDP (inventory name, hostname).
    pub aliases: Vec<String>,
    /// `host`, `leaf`, `spine`...
    pub role: String,
    /// Neighbours.
    pub neighbors: Vec<LldpNeighbor>,
    /// Whether its LLDP was read at all (`false`: a host whose `lldpctl` is missing or failed,
    /// whose view is unknown rather than empty).
    pub read: bool,
    /// Its own interfaces, for resolving what neighbours advertise (empty: unknown).
    pub interfaces: Vec<Interface>,
    /// Evidence file.
    pub evidence: String,
}

/// One of a device's interfaces and the other names a neighbour may know it by.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Interface {
    /// The name the device prints (matched by its canonical form).
    pub name: String,
    /// Alias (SONiC front-panel name).
    pub alias: Option<String>,
    /// MAC address.
    pub mac: Option<String>,
}

/// One device's LLDP view with its lookups built once: a leaf sees every port of its hosts, and
/// searching its lists for each of them made building the topology quadratic in a leaf's ports.
struct Indexed<'a> {
    view: &'a LldpView,
    /// Neighbours by canonical local port (the first entry of a port).
    on_port: HashMap<String, &'a LldpNeighbor>,
    /// Interfaces by canonical name, lowercase alias and lowercase MAC (the first of each).
    by_name: HashMap<String, &'a Interface>,
    by_alias: HashMap<String, &'a Interface>,
    by_mac: HashMap<String, &'a Interface>,
}

impl<'a> Indexed<'a> {
    /// The name `device` prints for its port that LLDP calls `local` (the canonical form where
    /// the device lists no such interface).
    fn local_name(&self, local: &str) -> String {
        let canonical = canonical_interface(local);
        self.by_name.get(&canonical).map_or(canonical, |i| i.name.clone())
    }

    fn new(view: &'a LldpView) -> Indexed<'a> {
        let mut index = Indexed {
            view,
            on_port: HashMap::new(),
            by_name: HashMap::new(),
            by_alias: HashMap::new(),
            by_mac: HashMap::new(),
        };
        for n in &view.neighbors {
            index.on_port.entry(canonical_interface(&n.local_port)).or_insert(n);
        }
        for i in &view.interfaces {
            index.by_name.entry(canonical_interface(&i.name)).or_insert(i);
            if let Some(alias) = &i.alias {
                index.by_alias.entry(alias.to_ascii_lowercase()).or_insert(i);
            }
            if let Some(mac) = &i.mac {
                index.by_mac.entry(mac.to_ascii_lowercase()).or_insert(i);
            }
        }
        index
    }
}

/// The port of `device` that neighbour entry `n` (seen from elsewhere) names: its port ID as an
/// interface name, alias or MAC, else its port description as a name or alias. When none of
/// those match a known interface, the port ID as advertised (so a real contradiction shows).
fn port_of(device: &Indexed, n: &LldpNeighbor) -> Option<String> {
    let id = n.port_id.as_deref()?;
    let named = |text: &str| {
        let canonical = canonical_interface(text);
        device
            .by_name
            .get(canonical.as_str())
            .or_else(|| device.by_alias.get(&text.trim().to_ascii_lowercase()))
            .copied()
    };
    let found = named(id)
        .or_else(|| device.by_mac.get(&id.to_ascii_lowercase()).copied())
        .or_else(|| n.port_description.as_deref().and_then(named));
    Some(found.map_or_else(|| canonical_interface(id), |i| i.name.clone()))
}

/// The links, and the findings about LLDP views that do not add up.
#[derive(Debug, Clone, Default)]
pub struct Topology {
    /// Links seen from both ends.
    pub links: Vec<Link>,
    /// Roles by device.
    pub roles: BTreeMap<String, String>,
    /// `path.unknown` findings.
    pub findings: Vec<Finding>,
}

/// Builds the links from every device's LLDP view.
pub fn build(views: &[LldpView]) -> Topology {
    let mut topo = Topology::default();
    let indexed: Vec<Indexed> = views.iter().map(Indexed::new).collect();
    let by_alias: BTreeMap<String, &Indexed> = indexed
        .iter()
        .flat_map(|i| {
            let v = i.view;
            v.aliases.iter().chain(std::iter::once(&v.device)).map(move |a| (a.to_ascii_lowercase(), i))
        })
        .collect();
    let resolve = |name: &Option<String>| name.as_deref().and_then(|n| by_alias.get(&n.to_ascii_lowercase()).copied());
    let mut seen: BTreeSet<Link> = BTreeSet::new();
    for index in &indexed {
        let view = index.view;
        topo.roles.insert(view.device.clone(), view.role.clone());
        for n in &view.neighbors {
            let Some(peer) = resolve(&n.system_name) else {
                continue;
            }; // Not audited: outside the fabric we check.
            let here = End { device: view.device.clone(), port: index.local_name(&n.local_port) };
            let Some(peer_port) = port_of(peer, n) else {
                continue;
            };
            let there = End { device: peer.view.device.clone(), port: peer_port };
            // The other end must see us on the port we name, on the port it names.
            let back = peer.on_port.get(&canonical_interface(&there.port)).copied();
            let agrees = back.is_some_and(|m| {
                resolve(&m.system_name).is_some_and(|v| v.view.device == view.device)
                    && port_of(index, m).as_deref() == Some(here.port.as_str())
            });
            // Where the other end's LLDP was not read at all (a host without `lldpctl`), this
            // end's view is the only one there is, and it places the link.
            if agrees || !peer.view.read {
                let (a, b) = if here <= there { (here, there) } else { (there, here) };
                seen.insert(Link { a, b });
                continue;
            }
            let actual = match back {
                None => format!("{} sees nothing on {}", there.device, there.port),
                Some(m) => format!(
                    "{} sees {} {} on {}",
                    there.device,
                    m.system_name.as_deref().unwrap_or("an unnamed device"),
                    m.port_id.as_deref().unwrap_or("on an unnamed port"),
                    there.port
                ),
            };
            let mut f = Finding::new(
                "path.unknown",
                Severity::Error,
                &view.device,
                format!("LLDP on {} says {} is behind {}, but {actual}: the link cannot be trusted, so paths through it are not checked", here.hop(), there.hop(), here.port),
            )
            .port(here.port.clone())
            .expected_actual(format!("{} sees {}", there.hop(), here.hop()), actual)
            .evidence(view.evidence.clone())
            .evidence(peer.view.evidence.clone());
            f.path = vec![here.hop(), there.hop()];
            topo.findings.push(f);
        }
    }
    topo.links = seen.into_iter().collect();
    topo
}

/// A host NIC to a spine: the unit paths are made of.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct HalfPath {
    /// Hops in order: host NIC, leaf host port, leaf uplink, spine port (the last two absent when
    /// the leaf has no spine).
    pub hops: Vec<End>,
}

impl HalfPath {
    /// The hops as `device:port` strings (what findings carry in `path`).
    pub fn names(&self) -> Vec<String> {
        self.hops.iter().map(End::hop).collect()
    }
}

impl Topology {
    fn role(&self, device: &str) -> &str {
        self.roles.get(device).map_or("host", String::as_str)
    }

    /// The other end of each link at each device: built once, since looking a device's links up
    /// in the whole list for every host would make paths quadratic in hosts.
    fn adjacency(&self) -> HashMap<&str, Vec<(&End, &End)>> {
        let mut at: HashMap<&str, Vec<(&End, &End)>> = HashMap::new();
        for l in &self.links {
            at.entry(l.a.device.as_str()).or_default().push((&l.a, &l.b));
            at.entry(l.b.device.as_str()).or_default().push((&l.b, &l.a));
        }
        at
    }

    /// Every half-path: each host NIC, through its leaf, to each spine of that leaf.
    pub fn half_paths(&self) -> Vec<HalfPath> {
        let at = self.adjacency();
        let neighbours = |device: &str| at.get(device).map_or(&[][..], Vec::as_slice);
        let mut uplinks_of: HashMap<&str, Vec<(&End, &End)>> = HashMap::new();
        let mut out = Vec::new();
        for (device, role) in &self.roles {
            if role != "host" {
                continue;
            }
            for &(nic, leaf_port) in neighbours(device) {
                if self.role(&leaf_port.device) != "leaf" {
                    continue;
                }
                let uplinks = uplinks_of.entry(leaf_port.device.as_str()).or_insert_with(|| {
                    neighbours(&leaf_port.device)
                        .iter()
                        .copied()
                        .filter(|(_, far)| self.role(&far.device) == "spine")
                        .collect()
                });
                if uplinks.is_empty() {
                    out.push(HalfPath { hops: vec![nic.clone(), leaf_port.clone()] });
                }
                for &(up, spine_port) in uplinks.iter() {
                    out.push(HalfPath { hops: vec![nic.clone(), leaf_port.clone(), up.clone(), spine_port.clone()] });
                }
            }
        }
        out.sort();
        out
    }
}

/// An LLDP neighbour for tests: `system` seen on `local`, on its port `port`.
#[cfg(test)]
pub(crate) fn neighbor(local: &str, system: &str, port: &str) -> LldpNeighbor {
    LldpNeighbor {
        local_port: local.into(),
        system_name: Some(system.into()),
        port_id: Some(port.into()),
        ..LldpNeighbor::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(local: &str, system: &str, port: &str) -> LldpNeighbor {
        neighbor(local, system, port)
    }

    fn view(device: &str, role: &str, neighbors: Vec<LldpNeighbor>) -> LldpView {
        LldpView {
            device: device.into(),
            aliases: vec![],
            role: role.into(),
            neighbors,
            read: true,
            interfaces: vec![],
            evidence: format!("{device}/lldp.txt"),
        }
    }

    fn fabric() -> Vec<LldpView> {
        vec![
            view("gpu001", "host", vec![n("ens1np0", "leaf1", "Ethernet0")]),
            view("gpu002", "host", vec![n("ens1np0", "leaf2", "Ethernet1/1")]),
            view("leaf1", "leaf", vec![n("Ethernet0", "gpu001", "ens1np0"), n("Ethernet48", "spine1", "swp1")]),
            view("leaf2", "leaf", vec![n("Et1/1", "gpu002", "ens1np0"), n("Ethernet49/1", "spine1", "swp2")]),
            view("spine1", "spine", vec![n("swp1", "leaf1", "Ethernet48"), n("swp2", "leaf2", "Et49/1")]),
        ]
    }

    #[test]
    fn links_seen_from_both_ends_make_half_paths() {
        let topo = build(&fabric());
        assert!(topo.findings.is_empty(), "{:#?}", topo.findings);
        assert_eq!(topo.links.len(), 4);
        let paths: Vec<Vec<String>> = topo.half_paths().iter().map(HalfPath::names).collect();
        assert_eq!(
            paths,
            [
                vec!["gpu001:ens1np0", "leaf1:Ethernet0", "leaf1:Ethernet48", "spine1:swp1"],
                vec!["gpu002:ens1np0", "leaf2:Ethernet1/1", "leaf2:Ethernet49/1", "spine1:swp2"],
            ]
        );
    }

    #[test]
    fn a_one_sided_view_is_path_unknown_with_both_files() {
        let mut views = fabric();
        views[2].neighbors.remove(0); // leaf1 no longer sees gpu001.
        let topo = build(&views);
        assert_eq!(topo.findings.len(), 1, "{:#?}", topo.findings);
        let f = &topo.findings[0];
        assert_eq!(
            (f.code.as_str(), f.device.as_str(), f.port.as_deref()),
            ("path.unknown", "gpu001", Some("ens1np0"))
        );
        assert_eq!(f.evidence, ["gpu001/lldp.txt", "leaf1/lldp.txt"]);
        assert_eq!(f.actual, "leaf1 sees nothing on Ethernet0");
        assert_eq!(topo.half_paths().len(), 1);
    }

    #[test]
    fn a_contradictory_view_is_path_unknown() {
        let mut views = fabric();
        views[2].neighbors[0] = n("Ethernet0", "gpu009", "ens1np0");
        let topo = build(&views);
        assert_eq!(topo.findings[0].actual, "leaf1 sees gpu009 ens1np0 on Ethernet0");
    }

    #[test]
    fn port_ids_resolve_by_name_alias_mac_and_description() {
        let mut views = fabric();
        views[0].interfaces =
            vec![Interface { name: "ens1np0".into(), alias: None, mac: Some("0c:42:a1:00:00:01".into()) }];
        views[2].interfaces = vec![
            Interface { name: "Ethernet0".into(), alias: Some("etp1".into()), mac: None },
            Interface { name: "Ethernet48".into(), alias: Some("etp13".into()), mac: None },
        ];
        // leaf1 sees gpu001 by the MAC of its port (lldpd's default); gpu001 sees leaf1's alias.
        views[2].neighbors[0].port_id = Some("0C:42:A1:00:00:01".into());
        views[0].neighbors[0].port_id = Some("etp1".into());
        // spine1 sees leaf1's uplink by a locally assigned ID, with its name as the description.
        views[4].neighbors[0].port_id = Some("uplink-a".into());
        views[4].neighbors[0].port_description = Some("Ethernet48".into());
        let topo = build(&views);
        assert!(topo.findings.is_empty(), "{:#?}", topo.findings);
        assert_eq!(topo.links.len(), 4);
        assert_eq!(topo.half_paths()[0].names()[..2], ["gpu001:ens1np0", "leaf1:Ethernet0"]);
    }

    #[test]
    fn an_unknown_port_id_is_still_a_contradiction() {
        let mut views = fabric();
        views[0].interfaces =
            vec![Interface { name: "ens1np0".into(), alias: None, mac: Some("0c:42:a1:00:00:01".into()) }];
        views[2].neighbors[0].port_id = Some("0c:42:a1:00:00:99".into());
        let topo = build(&views);
        let claims: Vec<(&str, &str)> = topo.findings.iter().map(|f| (f.code.as_str(), f.device.as_str())).collect();
        assert_eq!(claims, [("path.unknown", "gpu001"), ("path.unknown", "leaf1")], "each end's claim fails");
    }
}
