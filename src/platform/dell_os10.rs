//! Dell OS10: the running configuration and the show commands of the OS10 CLI. No PFC counters
//! are read: no published OS10 output of them was found to build a reader from, so a Dell switch's
//! counters are not judged (its configuration, state and LLDP are).

use super::{Probe, SwitchPlatform, configured_with_state, probe};
use crate::facts::CounterTable;
use crate::facts::reader::Reader;
use fabcheck_model::switch::SwitchQos;
use fabcheck_parse::dell_os10::{convert, interfaces_status, running_config};

pub const PLATFORM: SwitchPlatform =
    SwitchPlatform::new("dell_os10", config, counters, qos, read_counters).aliases(&["os10"]);

/// Configuration, status and LLDP.
fn config() -> Vec<Probe> {
    vec![
        probe("config", "dell_os10", "show running-configuration"),
        probe("interfaces", "dell_os10_interfaces", "show interface status"),
        probe("lldp", "lldp", "show lldp neighbors detail"),
    ]
}

fn counters(_phase: &str, _ports: &[String]) -> Vec<Probe> {
    Vec::new()
}

fn qos(out: &mut Reader, _ports: &[String]) -> SwitchQos {
    let config = out.get("config", None, running_config::parse).map(|cfg| convert::to_model(&cfg));
    let status = out.get("interfaces", None, interfaces_status::parse);
    configured_with_state(config, |qos| {
        if let Some(status) = &status {
            convert::apply_interfaces_status(qos, status);
        }
    })
}

fn read_counters(_out: &mut Reader, _phase: &str, _ports: &[String]) -> Option<CounterTable> {
    None
}
