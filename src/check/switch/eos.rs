//! Arista EOS: the running-config, with interface status and the QoS state laid over it.

use crate::check::outputs::Outputs;
use fabcheck_parse::eos::{convert, interfaces_status, pfc_counters, qos_interfaces, running_config};
use fabcheck_model::switch::{SwitchCounters, SwitchQos};

pub fn qos(out: &mut Outputs, _linked: &[String]) -> SwitchQos {
    let mut qos = out.get("config", None, running_config::parse).map(|cfg| convert::to_model(&cfg)).unwrap_or_default();
    if let Some(status) = out.get("interfaces", None, interfaces_status::parse) {
        convert::apply_interfaces_status(&mut qos, &status);
    }
    if let Some(state) = out.get("qos", None, qos_interfaces::parse) {
        convert::apply_qos_interfaces(&mut qos, &state);
    }
    qos
}

pub fn counters(out: &mut Outputs, phase: &str, _linked: &[String]) -> Option<(SwitchCounters, Vec<String>)> {
    let key = format!("pfc_counters.{phase}");
    let pfc = out.get(&key, None, pfc_counters::parse)?;
    Some((convert::to_counters(&pfc), vec![out.file(&key)]))
}
