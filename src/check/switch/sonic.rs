//! SONiC: the config DB, with live interface status and PFC watchdog laid over it.

use crate::check::outputs::Outputs;
use fabcheck_parse::sonic::{config_db, convert, interfaces_status, pfc_counters, pfcwd, queue_counters};
use fabcheck_model::switch::{SwitchCounters, SwitchQos};

pub fn qos(out: &mut Outputs, _linked: &[String]) -> SwitchQos {
    let mut qos = out.get("config", None, config_db::parse).map(|db| convert::to_model(&db)).unwrap_or_default();
    if let Some(status) = out.get("interfaces", None, interfaces_status::parse) {
        convert::add_interfaces(&mut qos, &status);
    }
    // Last: the watchdog table also says which ports have it off.
    if let Some(wd) = out.get("pfcwd", None, pfcwd::parse) {
        convert::add_pfcwd(&mut qos, &wd);
    }
    qos
}

pub fn counters(out: &mut Outputs, phase: &str, _linked: &[String]) -> Option<(SwitchCounters, Vec<String>)> {
    let (pfc_key, queue_key) = (format!("pfc_counters.{phase}"), format!("queue_counters.{phase}"));
    let pfc = out.get(&pfc_key, None, pfc_counters::parse)?;
    let mut c = SwitchCounters::default();
    convert::add_pfc_counters(&mut c, &pfc);
    let mut files = vec![out.file(&pfc_key)];
    if let Some(queues) = out.get(&queue_key, None, queue_counters::parse) {
        convert::add_queue_counters(&mut c, &queues);
        files.push(out.file(&queue_key));
    }
    Some((c, files))
}
