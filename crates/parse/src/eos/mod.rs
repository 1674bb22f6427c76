//! Arista EOS.
//!
//! Each command has its module (`running_config`, `interfaces_status`, `pfc_counters`,
//! `queue_counters`, `qos_interfaces`) giving vendor facts, and `convert` turns the facts into the vendor-neutral
//! [`crate::switch`] model. The running-config is read with the indented-CLI tree
//! ([`crate::cli_tree`]) that Cisco NX-OS ([`crate::nxos`]) and Dell OS10
//! ([`crate::dell_os10`]) share.

pub mod convert;
pub mod interfaces_status;
pub mod pfc_counters;
pub mod qos_interfaces;
pub mod queue_counters;
pub mod running_config;

pub use crate::cli_tree::Threshold;

use crate::switch::{SwitchCounters, SwitchQos};
use crate::{ParseResult, to_json, with_model};

/// The `fabcheck parse` sources of this module.
pub const SOURCES: &[&str] = &["eos", "eos_interfaces", "eos_pfc_counters", "eos_qos", "eos_queue_counters"];

/// Parses `text` as `source` when `source` is one of [`SOURCES`]; the JSON holds `facts` and
/// `model` (`SwitchQos`, or `SwitchCounters` for the counters).
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
        "eos_queue_counters" => to_json(with_model(queue_counters::parse(text), |q| {
            let mut c = SwitchCounters::default();
            convert::add_queue_counters(&mut c, q, |_, tc| tc);
            c
        })),
        _ => return None,
    })
}
