//! The catalogue: which command gives which fact, per platform. Commands are fixed strings plus
//! interface and HCA names that passed `is_safe_name`, so no inventory or device value can inject
//! shell syntax. Vendor commands live in vendor files; nothing else knows them.

pub mod eos;
pub mod linux;
pub mod nvue;
pub mod sonic;

/// One command to run and the parser for its output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// Evidence name, unique per device: `mlnx_qos.ens1np0`, `ethtool_stats.ens1np0.t1`.
    pub key: String,
    /// Parser (`fabcheck parse SOURCE`).
    pub source: &'static str,
    /// The command line sent to the device.
    pub command: String,
}

pub(crate) fn probe(key: impl Into<String>, source: &'static str, command: impl Into<String>) -> Probe {
    Probe { key: key.into(), source, command: command.into() }
}

/// Commands for each of a list of ports.
pub type PortProbes = fn(ports: &[String]) -> Vec<Probe>;

/// A switch platform's commands.
pub struct SwitchCatalogue {
    /// Configuration, status and LLDP, read once.
    pub config: fn() -> Vec<Probe>,
    /// Per linked port (from LLDP), read once after the configuration, where the platform has
    /// per-port state the configuration does not show.
    pub ports: Option<PortProbes>,
    /// Counters, read before and after the window; `ports` are the linked ports (from LLDP).
    pub counters: fn(phase: &str, ports: &[String]) -> Vec<Probe>,
}

/// The catalogue of a switch platform (`fabcheck_platform`), if fabcheck knows it.
pub fn switch(platform: &str) -> Option<SwitchCatalogue> {
    match platform {
        "sonic" => Some(SwitchCatalogue { config: sonic::config, ports: None, counters: sonic::counters }),
        "eos" => Some(SwitchCatalogue { config: eos::config, ports: None, counters: eos::counters }),
        "nvue" | "cumulus" => {
            Some(SwitchCatalogue { config: nvue::config, ports: Some(nvue::ports), counters: nvue::counters })
        }
        _ => None,
    }
}
