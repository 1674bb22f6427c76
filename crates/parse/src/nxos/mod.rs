//! Cisco NX-OS: the QoS of `show running-config` (MQC policy maps applied through `system qos`
//! and interfaces, read with the indented-CLI tree [`crate::cli_tree`] shared with EOS and
//! OS10), `show interface status` and `show interface priority-flow-control`. `show queuing
//! interface` is not read: no published capture of its current (Nexus 9000) layout was found.
//!
//! Each command has its module giving vendor facts; `convert` turns them into the
//! vendor-neutral [`crate::switch`] model. `show lldp neighbors [detail]` is read by
//! [`crate::lldp`], which tells every vendor's LLDP format apart.

pub mod convert;
pub mod interfaces_status;
pub mod pfc;
pub mod running_config;

use crate::switch::{SwitchCounters, SwitchQos};
use crate::{ParseResult, to_json, with_model};

/// What `show interface priority-flow-control` gives the model: the lossless priorities of each
/// port and its PFC counters.
#[derive(serde::Serialize)]
struct PfcModel {
    qos: SwitchQos,
    counters: SwitchCounters,
}

/// The `fabcheck parse` sources of this module.
pub const SOURCES: &[&str] = &["nxos", "nxos_interfaces", "nxos_pfc"];

/// Parses `text` as `source` when `source` is one of [`SOURCES`]; the JSON holds `facts` and
/// `model` (`SwitchQos`; for `nxos_pfc` the lossless priorities and the `SwitchCounters`).
pub(crate) fn parse_to_json(source: &str, text: &str) -> Option<ParseResult<serde_json::Value>> {
    Some(match source {
        "nxos" => to_json(with_model(running_config::parse(text), convert::to_model)),
        "nxos_interfaces" => to_json(with_model(interfaces_status::parse(text), |f| {
            let mut m = SwitchQos::default();
            convert::apply_interfaces_status(&mut m, f);
            m
        })),
        "nxos_pfc" => to_json(with_model(pfc::parse(text), |f| {
            let mut qos = SwitchQos::default();
            convert::apply_pfc(&mut qos, f);
            PfcModel { qos, counters: convert::pfc_counters(f) }
        })),
        _ => return None,
    })
}
