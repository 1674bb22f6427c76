//! SONiC: the config DB as JSON and the `show` commands of sonic-utilities.

use super::{Probe, probe};

/// Configuration, status, PFC watchdog and LLDP.
pub fn config() -> Vec<Probe> {
    vec![
        probe("config", "sonic", "show runningconfiguration all"),
        probe("interfaces", "sonic_interfaces", "show interfaces status"),
        probe("pfcwd", "sonic_pfcwd", "pfcwd show config"),
        probe("lldp", "lldp", "show lldp neighbors"),
    ]
}

/// PFC frames per priority and queue drops per port.
pub fn counters(phase: &str, _ports: &[String]) -> Vec<Probe> {
    vec![
        probe(format!("pfc_counters.{phase}"), "sonic_pfc_counters", "show pfc counters"),
        probe(format!("queue_counters.{phase}"), "sonic_queue_counters", "show queue counters"),
    ]
}
