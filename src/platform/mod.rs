//! Platforms: for each kind of device, the read-only commands fabcheck runs on it and how their
//! outputs become facts, one file per platform. [`kind`] is the one registry: collection and the
//! facts stage dispatch on what it says a device is (a Linux host, a flow collector, a switch of
//! one of [`SWITCHES`]), and `fabcheck_platform` validation looks a switch platform up here.
//!
//! Commands are fixed strings plus interface and HCA names that passed `is_safe_name`, so no
//! inventory or device value can inject shell syntax. Adding a switch vendor is: a parser module
//! in `fabcheck-parse` producing the switch model, a file here, an entry in [`SWITCHES`], and a
//! renderer in the lab (docs/architecture.md has the checklist).

mod dell_os10;
mod eos;
pub mod flow_collector;
pub mod linux;
mod nvue;
mod nxos;
mod sonic;

use crate::facts::CounterTable;
use crate::facts::reader::Reader;
use fabcheck_model::switch::SwitchQos;

/// One command to run and the parser for its output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// Evidence name, unique per device: `mlnx_qos.ens1np0`, `ethtool_stats.ens1np0.t1`.
    pub key: String,
    /// Parser (`fabcheck parse SOURCE`).
    pub source: &'static str,
    /// The command line sent to the device.
    pub command: String,
    /// The same command asking for JSON (`show interfaces status | json`), tried first where the
    /// platform has one: the text command runs only when the device refuses it, and a refused
    /// JSON form is not asked again of that device during the run.
    pub json: Option<String>,
    /// It reads kernel state and ends in milliseconds (a file, `ip`, `ethtool`, `lsmod`): on a
    /// Linux host it may share a channel with the host's other quick reads, run one after
    /// another (`collect::bundle`). Slow tools (`mlnx_qos`, `nvidia-smi`, `show_gids`, the subnet
    /// manager's queries) are not.
    pub quick: bool,
}

pub(crate) fn probe(key: impl Into<String>, source: &'static str, command: impl Into<String>) -> Probe {
    Probe { key: key.into(), source, command: command.into(), json: None, quick: false }
}

impl Probe {
    /// Tries `json` first; `command` is the text fallback.
    pub(crate) fn preferring_json(self, json: impl Into<String>) -> Probe {
        Probe { json: Some(json.into()), ..self }
    }

    /// Marks it [`Probe::quick`].
    pub(crate) fn quick(self) -> Probe {
        Probe { quick: true, ..self }
    }
}

/// Commands for each of a list of ports.
pub type PortProbes = fn(ports: &[String]) -> Vec<Probe>;

/// A switch platform: what to run, and how its outputs become the vendor-neutral model.
pub struct SwitchPlatform {
    /// `fabcheck_platform` value.
    pub name: &'static str,
    /// Other `fabcheck_platform` values meaning the same.
    pub aliases: &'static [&'static str],
    /// Configuration, status and LLDP, read once.
    pub config: fn() -> Vec<Probe>,
    /// Per port, read once after the configuration, where the platform has per-port state the
    /// configuration does not show; `ports` are those [`ports_to_query`] names.
    pub ports: Option<PortProbes>,
    /// Counters, read before and after the window.
    pub counters: fn(phase: &str, ports: &[String]) -> Vec<Probe>,
    /// The configuration and state in the model; `ports` as for `ports`.
    pub qos: fn(&mut Reader, ports: &[String]) -> SwitchQos,
    /// One phase's counters in the model, with the evidence files they came from; `qos` is the
    /// switch's configuration as read (a platform whose counters name traffic classes maps them
    /// to its queues with it).
    pub read_counters: fn(&mut Reader, phase: &str, ports: &[String], qos: &SwitchQos) -> Option<CounterTable>,
    /// Ports the configuration names (for platforms whose state is read port by port), so ports
    /// whose neighbour runs no LLDP are still read.
    pub configured_ports: fn(text: &str) -> Vec<String>,
}

impl SwitchPlatform {
    /// A platform whose state is read from whole-device tables: no per-port commands.
    const fn new(
        name: &'static str,
        config: fn() -> Vec<Probe>,
        counters: fn(&str, &[String]) -> Vec<Probe>,
        qos: fn(&mut Reader, &[String]) -> SwitchQos,
        read_counters: fn(&mut Reader, &str, &[String], &SwitchQos) -> Option<CounterTable>,
    ) -> SwitchPlatform {
        SwitchPlatform {
            name,
            aliases: &[],
            config,
            ports: None,
            counters,
            qos,
            read_counters,
            configured_ports: no_ports,
        }
    }

    /// Other `fabcheck_platform` values meaning the same.
    const fn aliases(self, aliases: &'static [&'static str]) -> SwitchPlatform {
        SwitchPlatform { aliases, ..self }
    }

    /// Per-port commands, for the ports LLDP or the configuration (`configured_ports`) names.
    const fn per_port(self, ports: PortProbes, configured_ports: fn(&str) -> Vec<String>) -> SwitchPlatform {
        SwitchPlatform { ports: Some(ports), configured_ports, ..self }
    }
}

/// Every switch platform fabcheck audits.
pub const SWITCHES: &[SwitchPlatform] =
    &[sonic::PLATFORM, eos::PLATFORM, nvue::PLATFORM, nxos::PLATFORM, dell_os10::PLATFORM];

/// A switch's QoS: its configuration, with `state` applied (the tables that say what each
/// configured port runs: status, PFC, watchdog). With the configuration unknown (not collected,
/// cut short, unreadable) nothing is: a port the state tables name would be judged on their part
/// alone, its DSCP map read as empty and its PFC as off. The caller reads the state outputs
/// before, whatever the configuration, so what their reading found is still reported.
pub(crate) fn configured_with_state(config: Option<SwitchQos>, state: impl FnOnce(&mut SwitchQos)) -> SwitchQos {
    let Some(mut qos) = config else { return SwitchQos::default() };
    state(&mut qos);
    qos
}

/// The switch platform named `name` (`fabcheck_platform`), if fabcheck knows it.
pub fn switch(name: &str) -> Option<&'static SwitchPlatform> {
    SWITCHES.iter().find(|p| p.name == name || p.aliases.contains(&name))
}

/// What a device is, by its inventory role and `fabcheck_platform`: the one key every stage
/// (collection, facts) dispatches on, so no stage decides it by another rule.
#[derive(Clone, Copy)]
pub enum Kind {
    /// A GPU host on Linux (`linux`, the default platform): [`linux`]'s commands and readers.
    Host,
    /// A flow collector (`fabcheck_role=collector`): [`flow_collector`]'s one command.
    FlowCollector,
    /// A switch of a platform fabcheck reads.
    Switch(&'static SwitchPlatform),
    /// A switch role on a platform fabcheck has no reader for, or a host on another OS.
    Unsupported,
}

/// The kind of a device with `role` and `platform`.
pub fn kind(role: &str, platform: &str) -> Kind {
    if role == "collector" {
        Kind::FlowCollector
    } else if fabcheck_model::is_switch_role(role) {
        switch(platform).map_or(Kind::Unsupported, Kind::Switch)
    } else if platform == linux::PLATFORM {
        Kind::Host
    } else {
        Kind::Unsupported
    }
}

/// The ports of a switch whose per-port state and counters are read: those with an LLDP
/// neighbour, and those its configuration names.
pub fn ports_to_query(platform: &SwitchPlatform, lldp: Option<&str>, config: Option<&str>) -> Vec<String> {
    let mut ports: Vec<String> = lldp
        .and_then(|text| fabcheck_parse::lldp::parse(text).ok())
        .map(|p| p.value.neighbors.into_iter().map(|n| n.local_port).collect())
        .unwrap_or_default();
    ports.extend(config.map(|c| (platform.configured_ports)(c)).unwrap_or_default());
    ports.sort();
    ports.dedup();
    ports
}

/// For platforms that read every port from their configuration or tables: nothing to add.
fn no_ports(_: &str) -> Vec<String> {
    Vec::new()
}
