//! A device's configuration values, flattened from its facts for comparison across runs
//! (`--state`, `fabcheck diff`): a switch's neutral model port by port, a host's RDMA ports'
//! QoS, link, DCQCN and GID settings, and its host-wide RDMA settings.
//!
//! Counters and other values that move on their own (LIDs aside) are left out: a drift is a
//! change someone or something made.

use super::{DeviceFacts, DeviceKind, HostFacts};
use crate::config::{DeviceConfig, StoredConfig, flatten_value};
use serde::Serialize;
use std::collections::BTreeMap;

/// Kernel modules whose loading is a setting of the RDMA path (the others come and go).
const RDMA_MODULE_PREFIXES: [&str; 6] = ["mlx", "ib_", "rdma", "nvidia_peermem", "nv_peer_mem", "nvme_rdma"];

/// The device's configuration values; `None` when nothing about it was read (unreachable,
/// unsupported, a flow collector).
pub fn values(facts: &DeviceFacts) -> Option<DeviceConfig> {
    let settings = settings(facts)?;
    Some(settings.into_iter().map(|(port, leaves)| (port, leaves.into_iter().collect())).collect())
}

/// [`values`] as they are kept until the reports: compact JSON text, written from the sorted
/// settings without building the maps first.
pub fn stored(facts: &DeviceFacts) -> Option<StoredConfig> {
    settings(facts).map(|settings| StoredConfig::of_sorted(&settings))
}

/// The settings by port, each port's sorted by name with one value per name.
fn settings(facts: &DeviceFacts) -> Option<Leaves> {
    match &facts.kind {
        DeviceKind::Host(host) => Some(host_values(host)),
        DeviceKind::Switch(switch) => {
            let mut config = Leaves::new();
            let mut qos = switch.qos.clone();
            for (name, port) in std::mem::take(&mut qos.ports) {
                set(&mut config, &name, "", &port);
            }
            set(&mut config, "", "", &qos);
            Some(sorted(config))
        }
        DeviceKind::Unreachable { .. } | DeviceKind::Unsupported | DeviceKind::Collector(_) => None,
    }
}

fn host_values(host: &HostFacts) -> Leaves {
    let mut config = Leaves::new();
    for nic in &host.nics {
        let port = nic.port.label();
        set(&mut config, &port, "hca", &nic.port.hca);
        set(&mut config, &port, "mlnx_qos", &nic.qos);
        if let Some(link) = &nic.link {
            set(&mut config, &port, "mtu", &link.mtu);
            set(&mut config, &port, "operstate", &link.operstate);
        }
        if let Some(ethtool) = &nic.ethtool {
            set(&mut config, &port, "speed_mbps", &ethtool.speed_mbps);
        }
        set(&mut config, &port, "rocev2_gid_index", &nic.rocev2_gid_index);
        if let super::Dcqcn::Read(ecn) = &nic.dcqcn {
            set(&mut config, &port, "dcqcn", ecn);
        }
    }
    for ib in &host.ib_ports {
        let port = ib.port.label();
        if let Some(p) = &ib.ibstat {
            set(&mut config, &port, "state", &p.state);
            set(&mut config, &port, "physical_state", &p.physical_state);
            set(&mut config, &port, "rate_gbps", &p.rate_gbps);
            set(&mut config, &port, "link_layer", &p.link_layer);
        }
        set(&mut config, &port, "sysfs_rate_gbps", &ib.rate.as_ref().map(|r| r.rate_gbps));
    }
    if let Some(modules) = &host.modules {
        let rdma = modules.modules.iter().filter(|m| RDMA_MODULE_PREFIXES.iter().any(|p| m.name.starts_with(p)));
        let names: Vec<&str> = rdma.map(|m| m.name.as_str()).collect();
        set(&mut config, "", "modules", &names);
    }
    if let Some(net) = &host.net_conf {
        for (interface, conf) in &net.interfaces {
            let port = if interface == "all" || interface == "default" { "" } else { interface.as_str() };
            let name = if port.is_empty() { format!("conf.{interface}") } else { "conf".into() };
            set(&mut config, port, &name, conf);
        }
    }
    if let Some(rules) = &host.rules {
        // Keyed by priority, so a rule added elsewhere does not renumber the others; rules that
        // share a priority are told apart by their order within it.
        let mut seen: BTreeMap<u32, usize> = BTreeMap::new();
        for rule in rules {
            let n = seen.entry(rule.priority).or_default();
            *n += 1;
            let key =
                if *n == 1 { format!("ip_rule.{}", rule.priority) } else { format!("ip_rule.{}#{n}", rule.priority) };
            set(&mut config, "", &key, rule);
        }
    }
    let mut config = sorted(config);
    config.retain(|_, values| !values.is_empty());
    config
}

/// A device's settings by port, in the order they were read (or, once [`sorted`], by name).
type Leaves = BTreeMap<String, Vec<(String, String)>>;

/// Adds `value`'s leaves under port `port` (`""`: the device) and setting prefix `name`.
fn set(config: &mut Leaves, port: &str, name: &str, value: &impl Serialize) {
    let leaves = match config.get_mut(port) {
        Some(leaves) => leaves,
        None => config.entry(port.to_string()).or_default(),
    };
    flatten_value(value, name, leaves);
}

/// The settings sorted by name, the last read of a name kept (as inserting them one by one into
/// a map did): a list sorted once is quicker than hundreds of inserts.
fn sorted(config: Leaves) -> Leaves {
    config.into_iter().map(|(port, leaves)| (port, last_of_each(leaves))).collect()
}

/// `leaves` sorted by name (stable: a name's reads keep their order), each name's last kept.
fn last_of_each(mut leaves: Vec<(String, String)>) -> Vec<(String, String)> {
    leaves.sort_by(|a, b| a.0.cmp(&b.0));
    leaves.reverse();
    leaves.dedup_by(|later, earlier| later.0 == earlier.0);
    leaves.reverse();
    leaves
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A setting read twice keeps its last value, as a map's insert would have.
    #[test]
    fn the_last_read_of_a_setting_wins_and_names_come_sorted() {
        let leaves = [("b", "1"), ("a", "1"), ("b", "2"), ("c", "1"), ("b", "3"), ("a", "2")];
        let leaves = leaves.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let got: Vec<(String, String)> = last_of_each(leaves);
        let got: Vec<(&str, &str)> = got.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(got, [("a", "2"), ("b", "3"), ("c", "1")]);
    }
}
