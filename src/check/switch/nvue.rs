//! NVIDIA Cumulus/NVUE: the applied configuration (with Cumulus' documented defaults filled in),
//! or `nv show qos roce` applied to the linked ports when the configuration names none.

use crate::check::outputs::Outputs;
use fabcheck_parse::nvue::{config, convert, roce, roce_counters};
use fabcheck_parse::switch::{SwitchCounters, SwitchQos, canonical_interface};

pub fn qos(out: &mut Outputs, linked: &[String]) -> SwitchQos {
    let from_config = out.get("config", None, config::parse).map(|cfg| convert::to_model(&cfg).value);
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
