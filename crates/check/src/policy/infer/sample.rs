//! What one device says of the fabric's design: per port, the settings a policy names (PFC set,
//! trust, DSCP map, ECN and scheduling per traffic class, watchdog, MTU, speed, DCQCN, GID), and
//! per host GPUDirect, InfiniBand rate and width, and the subnet manager. Small and typed, so an
//! audit can keep one per device (for the first-run hint) after its raw outputs are dropped.

use crate::check::host::PEERMEM_MODULES;
use crate::check::switch::port::{classifies_by, queue_of};
use fabcheck_model::facts::{Dcqcn, DeviceFacts, DeviceKind, HostFacts, SmAnswer, SwitchFacts};
use fabcheck_model::switch::Scheduler;

/// One device's design settings.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DeviceSample {
    /// The device.
    pub name: String,
    /// A switch (its ports are switch ports), else a host.
    pub switch: bool,
    /// Its RoCE NIC ports, or its switch ports that are not down.
    pub ports: Vec<PortSample>,
    /// nvidia_peermem (or nv_peer_mem) loaded; `None`: modules not read.
    pub gdr: Option<bool>,
    /// Its InfiniBand ports that are active.
    pub ib: Vec<IbSample>,
    /// A subnet manager answered `sminfo`; `None`: not asked.
    pub sm: Option<bool>,
}

/// One port's settings; `None` (or an empty map): not read, which is no vote.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PortSample {
    /// As reports name it.
    pub port: String,
    /// Priorities with PFC on.
    pub pfc: Option<Vec<u8>>,
    /// What the port classifies by: `dscp`, `pcp` or `untrusted`.
    pub trust: Option<&'static str>,
    /// DSCP → priority (a host NIC trusting DSCP) or → traffic class (a switch port).
    pub dscp_map: SmallMap<u8>,
    /// Per traffic class, the ECN of its queue (switch ports whose queues were read).
    pub ecn: SmallMap<EcnSample>,
    /// Per traffic class, whether its queue is strict priority (switch ports).
    pub strict: SmallMap<bool>,
    /// PFC watchdog on (switch ports: the port's, else the switch's).
    pub watchdog: Option<bool>,
    /// MTU.
    pub mtu: Option<u32>,
    /// Link speed.
    pub speed_mbps: Option<u64>,
    /// The NIC's DCQCN (hosts whose driver exposes it).
    pub dcqcn: Option<DcqcnSample>,
    /// Has a RoCEv2 GID with an IPv4 address; `None`: GIDs not read.
    pub rocev2_gid: Option<bool>,
}

/// A queue's ECN marking.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EcnSample {
    /// Marking on.
    pub enabled: bool,
    /// Kmin, KB.
    pub min_kb: Option<u64>,
    /// Kmax, KB.
    pub max_kb: Option<u64>,
}

/// A NIC's DCQCN.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DcqcnSample {
    /// Reaction point on, per priority.
    pub rp: SmallMap<bool>,
    /// Notification point on, per priority.
    pub np: SmallMap<bool>,
    /// DSCP of its CNPs.
    pub cnp_dscp: Option<u8>,
    /// 802.1p priority of its CNPs.
    pub cnp_priority: Option<u8>,
}

/// An active InfiniBand port.
#[derive(Debug, Clone, PartialEq)]
pub struct IbSample {
    /// Rate, Gb/s.
    pub rate_gbps: Option<f64>,
    /// Width (`4X`).
    pub width: Option<String>,
}

/// A small map keyed by a DSCP, priority or traffic class, as a sorted vector: an audit keeps
/// every device's sample to the end of the run, and for 64 one-byte values a B-tree's nodes cost
/// ten times what they hold (10,000 hosts and their switch ports: tens of megabytes).
#[derive(Debug, Clone, PartialEq)]
pub struct SmallMap<V>(Vec<(u8, V)>);

impl<V> Default for SmallMap<V> {
    fn default() -> Self {
        SmallMap(Vec::new())
    }
}

impl<V> SmallMap<V> {
    /// The value of `key`.
    pub fn get(&self, key: &u8) -> Option<&V> {
        self.0.binary_search_by_key(key, |(k, _)| *k).ok().map(|i| &self.0[i].1)
    }

    /// Whether it holds nothing (not read).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Sets `key` to `value`.
    pub fn insert(&mut self, key: u8, value: V) {
        match self.0.binary_search_by_key(&key, |(k, _)| *k) {
            Ok(i) => self.0[i].1 = value,
            Err(i) => self.0.insert(i, (key, value)),
        }
    }

    /// Every value, to change in place.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut V> {
        self.0.iter_mut().map(|(_, v)| v)
    }
}

impl<V> FromIterator<(u8, V)> for SmallMap<V> {
    /// From pairs in any order; a key given twice keeps its last value, as a map's would.
    fn from_iter<I: IntoIterator<Item = (u8, V)>>(pairs: I) -> Self {
        let mut map = SmallMap::default();
        for (k, v) in pairs {
            map.insert(k, v);
        }
        map
    }
}

impl DeviceSample {
    /// The sample of a host or switch whose settings were read; `None` for the others.
    pub fn of(facts: &DeviceFacts) -> Option<DeviceSample> {
        let mut sample = DeviceSample { name: facts.name.clone(), ..DeviceSample::default() };
        match &facts.kind {
            DeviceKind::Host(host) => sample.read_host(host),
            DeviceKind::Switch(switch) => sample.read_switch(switch),
            _ => return None,
        }
        Some(sample)
    }

    fn read_host(&mut self, host: &HostFacts) {
        for nic in &host.nics {
            let qos = nic.qos.as_ref();
            let trust = qos.and_then(|q| q.trust.as_deref()).and_then(classifies_by);
            let dcqcn = match &nic.dcqcn {
                Dcqcn::Read(ecn) => Some(DcqcnSample {
                    rp: ecn.rp_enabled.iter().map(|(p, on)| (*p, *on)).collect(),
                    np: ecn.np_enabled.iter().map(|(p, on)| (*p, *on)).collect(),
                    cnp_dscp: ecn.cnp_dscp().and_then(|d| u8::try_from(d).ok()),
                    cnp_priority: ecn.cnp_802p_prio().and_then(|p| u8::try_from(p).ok()),
                }),
                _ => None,
            };
            self.ports.push(PortSample {
                port: nic.port.label(),
                pfc: qos.map(|q| q.pfc_enabled.clone()),
                trust,
                dscp_map: qos
                    .filter(|_| trust == Some("dscp"))
                    .map(|q| q.dscp_to_priority.iter().map(|(d, p)| (*d, *p)).collect())
                    .unwrap_or_default(),
                mtu: nic.link.as_ref().map(|l| l.mtu),
                speed_mbps: nic.ethtool.as_ref().and_then(|e| e.speed_mbps),
                dcqcn,
                rocev2_gid: nic.gids_read.then_some(nic.rocev2_gid_index.is_some()),
                ..PortSample::default()
            });
        }
        self.gdr = host.modules.as_ref().map(|m| PEERMEM_MODULES.iter().any(|name| m.has(name)));
        for ib in host.ib_ports.iter().filter(|p| p.ibstat.as_ref().is_some_and(|s| s.state == "Active")) {
            let rate = ib.rate.as_ref();
            self.ib.push(IbSample {
                rate_gbps: rate.map(|r| r.rate_gbps).or(ib.ibstat.as_ref().and_then(|s| s.rate_gbps)),
                width: rate.and_then(|r| r.width.clone()),
            });
        }
        if !host.ib_ports.is_empty() {
            self.sm = match host.sm {
                SmAnswer::Lid(lid) => Some(lid != 0),
                SmAnswer::NoAnswer => Some(false),
                SmAnswer::Unknown => None,
            };
        }
    }

    fn read_switch(&mut self, switch: &SwitchFacts) {
        self.switch = true;
        let global_watchdog = switch.qos.pfc_watchdog.as_ref().map(|w| w.enabled);
        for (name, port) in switch.qos.ports.iter().filter(|(_, p)| p.oper_up != Some(false)) {
            let queues_read = !port.queues.is_empty();
            let tcs = 0..8u8;
            let ecn = tcs
                .clone()
                .filter(|_| queues_read)
                .map(|tc| {
                    let ecn = port.queues.get(&queue_of(port, tc)).and_then(|q| q.ecn.clone());
                    let kb = |b: Option<u64>| b.map(|b| b / 1024);
                    let sample = ecn.map_or(EcnSample::default(), |e| EcnSample {
                        enabled: e.enabled,
                        min_kb: kb(e.min_bytes).filter(|_| e.enabled),
                        max_kb: kb(e.max_bytes).filter(|_| e.enabled),
                    });
                    (tc, sample)
                })
                .collect();
            let strict = tcs
                .filter_map(|tc| {
                    let scheduler = port.queues.get(&queue_of(port, tc))?.scheduler.as_ref()?;
                    Some((tc, *scheduler == Scheduler::Strict))
                })
                .collect();
            self.ports.push(PortSample {
                port: name.clone(),
                pfc: port.lossless_priorities.clone(),
                trust: port.trust.as_deref().and_then(classifies_by),
                dscp_map: port.dscp_to_tc.iter().map(|(d, tc)| (*d, *tc)).collect(),
                ecn,
                strict,
                watchdog: port.pfc_watchdog.or(global_watchdog),
                mtu: port.mtu,
                speed_mbps: port.speed_mbps,
                ..PortSample::default()
            });
        }
    }
}
