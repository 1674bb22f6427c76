//! Cisco NX-OS: the running-config and the show commands of the NX-OS CLI. The running-config
//! gives the system QoS policy each port inherits; `show interface priority-flow-control` says
//! what PFC each port actually runs (it wins over the configuration's `mode auto`) and counts
//! its pause frames; interface status gives speed and state.

use super::{Probe, SwitchPlatform, configured_with_state, probe};
use crate::facts::CounterTable;
use crate::facts::reader::Reader;
use fabcheck_model::switch::SwitchQos;
use fabcheck_parse::nxos::{convert, interfaces_status, pfc, running_config};

pub const PLATFORM: SwitchPlatform = SwitchPlatform::new("nxos", config, counters, qos, read_counters);

/// Configuration, status, PFC state and LLDP.
fn config() -> Vec<Probe> {
    vec![
        probe("config", "nxos", "show running-config"),
        probe("interfaces", "nxos_interfaces", "show interface status"),
        probe("pfc", "nxos_pfc", "show interface priority-flow-control"),
        probe("lldp", "lldp", "show lldp neighbors detail"),
    ]
}

/// PFC frames per port (NX-OS counts them per port, not per priority).
fn counters(phase: &str, _ports: &[String]) -> Vec<Probe> {
    vec![probe(format!("pfc_counters.{phase}"), "nxos_pfc", "show interface priority-flow-control")]
}

fn qos(out: &mut Reader, _ports: &[String]) -> SwitchQos {
    let config = out.get("config", None, running_config::parse).map(|cfg| convert::to_model(&cfg));
    let status = out.get("interfaces", None, interfaces_status::parse);
    let pfc = out.get("pfc", None, pfc::parse);
    configured_with_state(config, |qos| {
        if let Some(status) = &status {
            convert::apply_interfaces_status(qos, status);
        }
        if let Some(state) = &pfc {
            convert::apply_pfc(qos, state);
        }
    })
}

fn read_counters(out: &mut Reader, phase: &str, _ports: &[String], _qos: &SwitchQos) -> Option<CounterTable> {
    let key = format!("pfc_counters.{phase}");
    let state = out.get(&key, None, pfc::parse)?;
    Some(CounterTable { counters: convert::pfc_counters(&state), files: vec![out.file(&key)] })
}
