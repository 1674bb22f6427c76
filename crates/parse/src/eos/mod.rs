//! Arista EOS, and the other indented-CLI switch configurations that share its reading
//! machinery ([`nxos`]: Cisco NX-OS, [`dell_os10`]: Dell OS10).
//!
//! Each command has its module (`running_config`, `interfaces_status`, `pfc_counters`,
//! `qos_interfaces`) giving vendor facts, and `convert` turns the facts into the vendor-neutral
//! [`crate::switch`] model. NX-OS and Dell OS10 live here as submodules because their
//! configurations are read with the same tree of indented lines (`cli`); each has its own
//! facts and its own `convert`.

mod cli;
pub mod convert;
pub mod dell_os10;
pub mod interfaces_status;
pub mod nxos;
pub mod pfc_counters;
pub mod qos_interfaces;
pub mod running_config;

pub use cli::Threshold;

use crate::switch::SwitchQos;
use crate::{ParseResult, to_json};
use serde::Serialize;

/// The `fabcheck parse` sources of this module.
pub const SOURCES: &[&str] = &["eos", "eos_interfaces", "eos_pfc_counters", "eos_qos", "nxos", "dell_os10"];

/// What `fabcheck parse` prints for a switch source: the vendor facts as read and the model
/// they convert to, so that a user sees both what the switch said and what fabcheck makes of it.
#[derive(Serialize)]
struct FactsAndModel<F, M> {
    facts: F,
    model: M,
}

fn with_model<F, M: Serialize>(result: ParseResult<F>, model: impl Fn(&F) -> M) -> ParseResult<FactsAndModel<F, M>> {
    result.map(|p| crate::Parsed {
        value: FactsAndModel { model: model(&p.value), facts: p.value },
        warnings: p.warnings,
    })
}

/// Parses `text` as `source` when `source` is one of [`SOURCES`]; the JSON holds `facts` and
/// `model` (`SwitchQos`, or `SwitchCounters` for `eos_pfc_counters`).
pub(crate) fn parse_to_json(source: &str, text: &str) -> Option<ParseResult<serde_json::Value>> {
    Some(match source {
        "eos" => to_json(with_model(running_config::parse(text), convert::to_model)),
        "eos_interfaces" => to_json(with_model(interfaces_status::parse(text), |f| {
            let mut m = SwitchQos::default();
            convert::apply_interfaces_status(&mut m, f);
            m
        })),
        "eos_pfc_counters" => to_json(with_model(pfc_counters::parse(text), convert::to_counters)),
        "eos_qos" => to_json(with_model(qos_interfaces::parse(text), |f| {
            let mut m = SwitchQos::default();
            convert::apply_qos_interfaces(&mut m, f);
            m
        })),
        "nxos" => to_json(with_model(nxos::running_config::parse(text), nxos::convert::to_model)),
        "dell_os10" => to_json(with_model(dell_os10::running_config::parse(text), dell_os10::convert::to_model)),
        _ => return None,
    })
}
