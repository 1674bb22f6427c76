//! Arista EOS: the running-config and the show commands of the EOS CLI.

use super::{Probe, probe};

/// Configuration, status, QoS state and LLDP.
pub fn config() -> Vec<Probe> {
    vec![
        probe("config", "eos", "show running-config"),
        probe("interfaces", "eos_interfaces", "show interfaces status"),
        probe("qos", "eos_qos", "show qos interfaces"),
        probe("lldp", "lldp", "show lldp neighbors detail"),
    ]
}

/// PFC frames per priority and port.
pub fn counters(phase: &str, _ports: &[String]) -> Vec<Probe> {
    vec![probe(format!("pfc_counters.{phase}"), "eos_pfc_counters", "show priority-flow-control counters detail")]
}
