//! The vendor-neutral model of a switch's lossless configuration and counters.
//!
//! Every vendor parser (SONiC, Arista EOS, NVIDIA Cumulus/NVUE, NX-OS, Dell OS10) converts its
//! facts into these types, and the checks only ever see these (Batfish's rule: vendor text →
//! vendor facts → one model → questions). Units are converted explicitly when converting: every
//! threshold here is in bytes, every speed in Mb/s, every interface name canonical.

use serde::Serialize;
use std::collections::BTreeMap;

/// One switch's QoS configuration, as far as the lossless chain is concerned.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SwitchQos {
    /// Host name, when the configuration names it.
    pub hostname: Option<String>,
    /// Per port, by canonical interface name ([`canonical_interface`]).
    pub ports: BTreeMap<String, PortQos>,
    /// Device-wide PFC watchdog settings (ports may override).
    pub pfc_watchdog: Option<PfcWatchdog>,
    /// Buffer profiles by name (headroom for lossless priority groups).
    pub buffer_profiles: BTreeMap<String, BufferProfile>,
    /// Named DSCP → traffic class maps, as defined (whether or not a port uses them).
    pub dscp_to_tc_maps: BTreeMap<String, BTreeMap<u8, u8>>,
    /// Named 802.1p (PCP) → traffic class maps.
    pub dot1p_to_tc_maps: BTreeMap<String, BTreeMap<u8, u8>>,
    /// Named ECN/WRED profiles.
    pub ecn_profiles: BTreeMap<String, Ecn>,
    /// Named schedulers.
    pub schedulers: BTreeMap<String, Scheduler>,
}

impl SwitchQos {
    /// The name the device prints for the port whose canonical name is `canonical`: its
    /// [`PortQos::name`] where the platform spells it otherwise, else the canonical name. Findings
    /// and reports name ports this way; canonical names are for matching only.
    pub fn printed<'a>(&'a self, canonical: &'a str) -> &'a str {
        self.ports.get(canonical).and_then(|p| p.name.as_deref()).unwrap_or(canonical)
    }
}

/// One port's configuration.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PortQos {
    /// The port's name as the device prints it, where that differs from the canonical key
    /// (Dell OS10's `ethernet1/1/4` for `Ethernet1/1/4`): what findings and reports show.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Another name the port answers to (SONiC's front-panel alias, `etp1`), which neighbours
    /// may advertise in LLDP instead of the port's name.
    pub alias: Option<String>,
    /// Priorities with PFC on (ascending). `None`: the configuration does not say (so it cannot be
    /// judged); `Some(vec![])`: PFC explicitly off on every priority.
    pub lossless_priorities: Option<Vec<u8>>,
    /// How the port classifies: `dscp` or `pcp` (`None`: not stated).
    pub trust: Option<String>,
    /// DSCP → traffic class, resolved for this port (from the port's map or the device default).
    pub dscp_to_tc: BTreeMap<u8, u8>,
    /// Traffic class → egress queue.
    pub tc_to_queue: BTreeMap<u8, u8>,
    /// Per egress queue: scheduler and ECN.
    pub queues: BTreeMap<u8, QueueQos>,
    /// Traffic class → ingress priority group.
    pub tc_to_pg: BTreeMap<u8, u8>,
    /// Ingress priority group → buffer profile name ([`SwitchQos::buffer_profiles`]); a group
    /// whose headroom the switch computes itself (SONiC's `NULL` profile) is absent.
    pub priority_groups: BTreeMap<u8, String>,
    /// Cable length in metres (SONiC's `CABLE_LENGTH`), for the headroom the port needs.
    pub cable_length_m: Option<u32>,
    /// Policies and maps the port applies (itself or through the device-wide setting) that the
    /// configuration never defines: the switch applies nothing in their place.
    pub undefined: Vec<UndefinedReference>,
    /// PFC watchdog on this port (`None`: not stated here; see the device setting).
    pub pfc_watchdog: Option<bool>,
    /// MTU in bytes.
    pub mtu: Option<u32>,
    /// Configured or operational speed in Mb/s.
    pub speed_mbps: Option<u64>,
    /// Administratively up.
    pub admin_up: Option<bool>,
    /// Operationally up.
    pub oper_up: Option<bool>,
}

/// A name a port applies that no definition of its kind carries.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct UndefinedReference {
    /// What the port applies, as the vendor writes it: `service-policy input type network-qos`.
    pub applied_as: String,
    /// The kind of definition it needs: `policy-map type network-qos`.
    pub kind: String,
    /// The name applied.
    pub name: String,
    /// A defined name (of any kind) that differs from it only in case, `-` or `_`: the likely
    /// intended one, with its kind.
    pub similar: Option<(String, String)>,
}

impl UndefinedReference {
    /// The reference `applied_as` `name` to a `kind` that `defined` (every defined name, with its
    /// kind) lacks; `None` when it is defined.
    pub fn unless_defined<'a>(
        applied_as: &str,
        kind: &str,
        name: &str,
        defined: impl IntoIterator<Item = (&'a str, &'a str)> + Clone,
    ) -> Option<UndefinedReference> {
        if defined.clone().into_iter().any(|(k, n)| k == kind && n == name) {
            return None;
        }
        let key = |n: &str| n.to_ascii_lowercase().replace('-', "_");
        Some(UndefinedReference {
            applied_as: applied_as.to_string(),
            kind: kind.to_string(),
            name: name.to_string(),
            similar: defined
                .into_iter()
                .find(|(_, n)| key(n) == key(name))
                .map(|(k, n)| (n.to_string(), k.to_string())),
        })
    }
}

/// One egress queue.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct QueueQos {
    /// How the queue is served.
    pub scheduler: Option<Scheduler>,
    /// ECN marking.
    pub ecn: Option<Ecn>,
}

/// How a queue is scheduled.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Scheduler {
    /// Strict priority: served before every weighted queue (what CNPs need).
    Strict,
    /// Weighted (DWRR/WRR/ETS) with this weight or bandwidth percent.
    Weighted {
        /// Weight or percent as configured.
        weight: u32,
    },
}

/// ECN/WRED marking on a queue, thresholds in bytes.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Ecn {
    /// Marking on (ECN, not just WRED drop).
    pub enabled: bool,
    /// Kmin: marking starts at this queue depth.
    pub min_bytes: Option<u64>,
    /// Kmax: every packet is marked from this depth.
    pub max_bytes: Option<u64>,
    /// Marking probability at Kmax, percent.
    pub probability_percent: Option<u32>,
    /// The thresholds as the configuration writes them (`150 kbytes / 1500 kbytes`) when their
    /// unit is a kilo- or megabyte the vendor does not define as 1,000 or 1,024: the bytes above
    /// read it as 1,024, and the checks judge both readings. `None`: the bytes are exact.
    pub uncertain_unit: Option<String>,
}

/// A buffer profile.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct BufferProfile {
    /// Pool it draws from.
    pub pool: Option<String>,
    /// Reserved size in bytes.
    pub size_bytes: Option<u64>,
    /// XON threshold in bytes.
    pub xon_bytes: Option<u64>,
    /// XOFF (headroom) in bytes.
    pub xoff_bytes: Option<u64>,
}

/// PFC watchdog: detects queues stuck by pause storms and breaks the deadlock.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PfcWatchdog {
    /// On.
    pub enabled: bool,
    /// Detection time in ms.
    pub detection_ms: Option<u32>,
    /// Restoration time in ms.
    pub restoration_ms: Option<u32>,
    /// What it does to a stuck queue (`drop`, `forward`, `alert`).
    pub action: Option<String>,
    /// SONiC's `BIG_RED_SWITCH`: when on, the watchdog holds every lossless queue of its ports in
    /// the stormed state and drops their traffic (a switch-wide emergency knob).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub big_red_switch: Option<bool>,
    /// Why the model says what it does where the configuration has no line for the watchdog and
    /// the vendor's documented default decides (NX-OS: no `priority-flow-control
    /// watch-dog-interval` line); `None` where the configuration states it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Counters of one switch, by canonical port name.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SwitchCounters {
    /// Per port.
    pub ports: BTreeMap<String, PortCounters>,
}

/// Counters of one port.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PortCounters {
    /// PFC frames received, per priority.
    pub pfc_rx: BTreeMap<u8, u64>,
    /// PFC frames sent, per priority.
    pub pfc_tx: BTreeMap<u8, u64>,
    /// Packets dropped on transmit, per egress queue.
    pub queue_drops: BTreeMap<u8, u64>,
    /// Packets discarded on receive for want of buffer, per priority (NVUE's RoCE
    /// `no-buffer-discard`).
    pub rx_no_buffer: BTreeMap<u8, u64>,
    /// Packets ECN-marked, per egress queue.
    pub ecn_marked: BTreeMap<u8, u64>,
    /// Packets sent, per egress queue.
    pub queue_tx_packets: BTreeMap<u8, u64>,
    /// The PFC watchdog's statistics, per queue (SONiC `pfcwd show stats`) or traffic class
    /// (NVUE's `qos pfc-watchdog`): what it did about PFC storms.
    pub watchdog: BTreeMap<u8, WatchdogStats>,
}

/// What a port's PFC watchdog saw on one queue: storms (a peer pausing the queue for longer than
/// the detection time) and the packets it dropped to break them. Cumulative since the counters
/// were last cleared; `None` where the platform does not say.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct WatchdogStats {
    /// The queue is in a storm now (SONiC `stormed`, NVUE `DEADLOCK`).
    pub stormed: Option<bool>,
    /// Storms detected (NVUE: its deadlock count).
    pub storms_detected: Option<u64>,
    /// Storms over (restored).
    pub storms_restored: Option<u64>,
    /// Packets the watchdog dropped on transmit.
    pub tx_drop: Option<u64>,
    /// Packets the watchdog dropped on receive.
    pub rx_drop: Option<u64>,
}

/// An LLDP neighbour seen on a local port.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct LldpNeighbor {
    /// Local port (canonical).
    pub local_port: String,
    /// Chassis ID as advertised (`mac 0c:42:...` becomes `0c:42:...`).
    pub chassis_id: Option<String>,
    /// The neighbour's system name.
    pub system_name: Option<String>,
    /// The neighbour's port ID (interface name or MAC).
    pub port_id: Option<String>,
    /// The neighbour's port description.
    pub port_description: Option<String>,
    /// A management address.
    pub management_ip: Option<String>,
}

/// Canonical interface names, one function for every vendor (Batfish's
/// `canonicalizeInterfaceName`): `Et1/1`, `Et2` and `Eth1/1` → `Ethernet1/1`, `Ethernet2`,
/// `Ethernet0` stays, `swp1` stays, `Po10` → `Port-Channel10`. Linux names (`eth0`, `ens1np0`)
/// stay as they are: `eth0` is a host's or a switch's management port, not SONiC's `Ethernet0`.
pub fn canonical_interface(name: &str) -> String {
    let name = name.trim();
    let lower = name.to_ascii_lowercase();
    for (short, long, needs_slot) in [
        ("ethernet", "Ethernet", false),
        ("eth", "Ethernet", true),
        ("et", "Ethernet", false),
        ("port-channel", "Port-Channel", false),
        ("po", "Port-Channel", false),
    ] {
        if let Some(rest) = lower.strip_prefix(short)
            && rest.starts_with(|c: char| c.is_ascii_digit())
            && (!needs_slot || rest.contains('/'))
        {
            return format!("{long}{}", &name[short.len()..]);
        }
    }
    name.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interface_names_are_canonical() {
        assert_eq!(canonical_interface("Et1/1"), "Ethernet1/1");
        assert_eq!(canonical_interface("eth1/10"), "Ethernet1/10");
        assert_eq!(canonical_interface("Ethernet8"), "Ethernet8");
        assert_eq!(canonical_interface(" swp16 "), "swp16");
        assert_eq!(canonical_interface("Po10"), "Port-Channel10");
        assert_eq!(canonical_interface("etcd"), "etcd");
        assert_eq!(canonical_interface("eth0"), "eth0", "a Linux management port, not SONiC's Ethernet0");
        assert_eq!(canonical_interface("Et2"), "Ethernet2");
        assert_eq!(canonical_interface("é1"), "é1");
        // Dell OS10: the running-configuration's `ethernet1/1/1`, the status table's `Eth 1/1/1`
        // without its space, and breakouts, all one name.
        assert_eq!(canonical_interface("ethernet1/1/1"), "Ethernet1/1/1");
        assert_eq!(canonical_interface("Eth1/1/1"), "Ethernet1/1/1");
        assert_eq!(canonical_interface("ethernet1/1/1:1"), "Ethernet1/1/1:1");
        assert_eq!(canonical_interface("port-channel128"), "Port-Channel128");
        assert_eq!(canonical_interface("Po128"), "Port-Channel128");
    }
}
