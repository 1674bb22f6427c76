//! NVIDIA Cumulus/NVUE: the applied configuration (with Cumulus' documented defaults filled in),
//! or `nv show qos roce` applied to the linked ports when the configuration names none.

use crate::check::outputs::Outputs;
use fabcheck_parse::nvue::{config, convert, roce, roce_counters, roce_status};
use fabcheck_model::switch::{SwitchCounters, SwitchQos, canonical_interface};

pub fn qos(out: &mut Outputs, linked: &[String]) -> SwitchQos {
    let from_config = out.get("config", None, config::parse).map(|cfg| convert::to_model(&cfg).value);
    let mut qos = configured(out, from_config, linked);
    // What each port runs wins over what the configuration says it should.
    for port in linked {
        let key = format!("roce_status.{port}");
        let Some(status) = out.get(&key, Some(port), |text| roce_status::parse_for(port, text)) else { continue };
        let entry = qos.ports.entry(canonical_interface(port)).or_default();
        if status.lossless_priorities.is_some() {
            entry.lossless_priorities = status.lossless_priorities;
        }
        entry.dscp_to_tc.extend(status.dscp_to_tc);
        for (q, state) in status.queues {
            let queue = entry.queues.entry(q).or_default();
            if state.scheduler.is_some() {
                queue.scheduler = state.scheduler;
            }
            if state.ecn.is_some() {
                queue.ecn = state.ecn;
            }
        }
    }
    qos
}

fn configured(out: &mut Outputs, from_config: Option<SwitchQos>, linked: &[String]) -> SwitchQos {
    match from_config {
        Some(qos) if !qos.ports.is_empty() => qos,
        other => {
            let mut qos =
                out.get("roce", None, roce::parse).map(|r| convert::roce_to_model(&r, linked)).unwrap_or_default();
            qos.hostname = other.and_then(|q| q.hostname);
            qos
        }
    }
}

pub fn counters(out: &mut Outputs, phase: &str, linked: &[String]) -> Option<(SwitchCounters, Vec<String>)> {
    let classes = convert::RoceClasses::default();
    let mut c = SwitchCounters::default();
    let mut files = Vec::new();
    for port in linked {
        let key = format!("roce_counters.{port}.{phase}");
        if let Some(counters) = out.get(&key, Some(port), roce_counters::parse) {
            c.ports.insert(canonical_interface(port), convert::counters_to_port(&counters, &classes));
            files.push(out.file(&key));
        }
    }
    (!files.is_empty()).then_some((c, files))
}
