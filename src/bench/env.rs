//! The NCCL variables, from what the audit found on the hosts (NCCL environment variables
//! documentation: make NCCL use the right NIC): NCCL_IB_HCA = the RDMA NICs found, NCCL_IB_GID_INDEX = their RoCEv2 GID index,
//! NCCL_SOCKET_IFNAME = the interface the hosts talk TCP on, NCCL_DEBUG=INFO with INIT,NET so the
//! run's log says which transport, HCAs and GPUDirect mode NCCL picked. `--env` overrides any.

use crate::facts::RdmaPort;
use crate::facts::{DeviceFacts, DeviceKind};
use std::collections::{BTreeMap, BTreeSet};

/// What the hosts' first reads say NCCL should use.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NcclFacts {
    /// RDMA devices NCCL should use (`mlx5_0`), the same on every host.
    pub hcas: Vec<String>,
    /// Whether those are InfiniBand ports (else RoCE).
    pub infiniband: bool,
    /// RoCEv2 GID index (RoCE only).
    pub gid_index: Option<u32>,
    /// Interface for NCCL's bootstrap and MPI's TCP traffic.
    pub socket_ifname: Option<String>,
    /// Link speed of those NICs in Gb/s (for the reference floor).
    pub rate_gbps: Option<u32>,
    /// Hosts whose HCA names or GID index differ from the others (NCCL_IB_HCA is one value for all).
    pub odd_hosts: Vec<String>,
    /// Each host's own RDMA devices for NCCL: what a run on that host should use.
    pub per_host: BTreeMap<String, Vec<String>>,
    /// Per host (whose `nvidia-smi topo -m` was read), per RDMA device: the GPUs next to it
    /// (PIX/PXB), which NCCL pairs with it.
    pub near_gpus: BTreeMap<String, BTreeMap<String, Vec<u32>>>,
    /// Per host: the fewest NVLinks between two of its GPUs, where every pair has some.
    pub nvlinks: BTreeMap<String, u32>,
}

impl NcclFacts {
    /// Derives the facts from each reachable host's first read; the most common answer wins.
    pub fn from_facts(devices: &[DeviceFacts]) -> NcclFacts {
        let mut hca_sets: BTreeMap<(Vec<String>, bool), Vec<String>> = BTreeMap::new();
        let mut gids: BTreeMap<u32, Vec<String>> = BTreeMap::new();
        let mut ifnames: BTreeMap<String, usize> = BTreeMap::new();
        let mut rates: BTreeMap<u32, usize> = BTreeMap::new();
        let mut facts = NcclFacts::default();
        // Which answer came first: a tie goes to the launching host's (the first record).
        let mut order: BTreeMap<(Vec<String>, bool), usize> = BTreeMap::new();
        let hosts = devices.iter().filter_map(|d| match &d.kind {
            DeviceKind::Host(h) => Some((d.name.as_str(), h.as_ref())),
            _ => None,
        });
        for (position, (name, host)) in hosts.enumerate() {
            let ports = &host.ports;
            let roce: Vec<&RdmaPort> = ports.iter().filter(|p| !p.infiniband).collect();
            let ib = roce.is_empty();
            let chosen: Vec<&RdmaPort> = if ib { ports.iter().collect() } else { roce };
            let names: Vec<String> = chosen.iter().map(|p| p.hca.clone()).collect();
            // Every chosen port's GID index (RoCE ports have one; InfiniBand ports none).
            let nic_of = |p: &&RdmaPort| host.nics.iter().find(|n| &n.port == *p);
            for gid in chosen.iter().filter_map(nic_of).filter_map(|n| n.rocev2_gid_index) {
                let hosts = gids.entry(gid).or_default();
                if !hosts.iter().any(|h| h == name) {
                    hosts.push(name.to_string());
                }
            }
            let first = chosen.first().and_then(nic_of);
            let rdma: BTreeSet<&str> = ports.iter().filter_map(|p| p.netdev.as_deref()).collect();
            if let Some(l) = host
                .netdevs
                .iter()
                .find(|l| l.ifname != "lo" && l.operstate == "UP" && !rdma.contains(l.ifname.as_str()))
            {
                *ifnames.entry(l.ifname.clone()).or_default() += 1;
            }
            if let Some(mbps) = first.and_then(|n| n.ethtool.as_ref()).and_then(|e| e.speed_mbps) {
                *rates.entry((mbps / 1000) as u32).or_default() += 1;
            }
            if let Some(topo) = &host.gpu_topo {
                let near = ports.iter().map(|p| (p.hca.clone(), topo.gpus_near(&p.hca))).collect();
                facts.near_gpus.insert(name.to_string(), near);
                if let Some(links) = topo.min_nvlinks() {
                    facts.nvlinks.insert(name.to_string(), links);
                }
            }
            facts.per_host.insert(name.to_string(), names.clone());
            order.entry((names.clone(), ib)).or_insert(position);
            hca_sets.entry((names, ib)).or_default().push(name.to_string());
        }
        if let Some(((hcas, ib), _)) = hca_sets
            .iter()
            .max_by_key(|(set, hosts)| (hosts.len(), std::cmp::Reverse(order.get(*set).copied().unwrap_or(usize::MAX))))
        {
            facts.hcas = hcas.clone();
            facts.infiniband = *ib;
            for (set, hosts) in &hca_sets {
                if set != &(hcas.clone(), *ib) {
                    facts.odd_hosts.extend(hosts.iter().cloned());
                }
            }
        }
        // One NCCL_IB_GID_INDEX serves every rank: set it only when every port agrees. Where they
        // differ, an index valid on most hosts would be wrong on the others (the audit names
        // them: nic.gid_index_inconsistent), so NCCL is left to find each port's RoCEv2 GID.
        if let Some((gid, _)) = gids.iter().max_by_key(|(_, hosts)| hosts.len()) {
            facts.gid_index = (gids.len() == 1).then_some(*gid);
            for (other, hosts) in &gids {
                if other != gid {
                    facts.odd_hosts.extend(hosts.iter().cloned());
                }
            }
        }
        facts.socket_ifname = ifnames.into_iter().max_by_key(|(_, n)| *n).map(|(name, _)| name);
        facts.rate_gbps = rates.into_iter().max_by_key(|(_, n)| *n).map(|(rate, _)| rate);
        facts.odd_hosts.sort();
        facts.odd_hosts.dedup();
        facts
    }

    /// The NVLink count most hosts show between every pair of their GPUs (a host whose GPU lost
    /// its NVLinks is the odd one, not the reference).
    pub fn typical_nvlinks(&self) -> Option<u32> {
        let mut counts: BTreeMap<u32, usize> = BTreeMap::new();
        for links in self.nvlinks.values() {
            *counts.entry(*links).or_default() += 1;
        }
        counts.into_iter().max_by_key(|(links, n)| (*n, *links)).map(|(links, _)| links)
    }

    /// The variables to export, with `overrides` (from `--env`) applied last.
    pub fn env(&self, overrides: &BTreeMap<String, String>) -> BTreeMap<String, String> {
        let mut env = BTreeMap::new();
        if !self.hcas.is_empty() {
            // A leading `=` makes NCCL match names exactly: `mlx5_1` alone would also take mlx5_10.
            env.insert("NCCL_IB_HCA".to_string(), format!("={}", self.hcas.join(",")));
        }
        if let (Some(gid), false) = (self.gid_index, self.infiniband) {
            env.insert("NCCL_IB_GID_INDEX".to_string(), gid.to_string());
        }
        if let Some(ifname) = &self.socket_ifname {
            env.insert("NCCL_SOCKET_IFNAME".to_string(), format!("={ifname}"));
        }
        env.insert("NCCL_DEBUG".to_string(), "INFO".to_string());
        env.insert("NCCL_DEBUG_SUBSYS".to_string(), "INIT,NET".to_string());
        env.extend(overrides.iter().map(|(k, v)| (k.clone(), v.clone())));
        env
    }
}
