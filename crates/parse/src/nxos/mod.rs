//! Cisco NX-OS: the QoS of `show running-config` (MQC policy maps applied through `system qos`
//! and interfaces, read with the indented-CLI tree [`crate::cli_tree`] shared with EOS and
//! OS10), `show interface status` and `show interface priority-flow-control`.
//!
//! Each command has its module giving vendor facts; `convert` turns them into the
//! vendor-neutral [`crate::switch`] model. `show lldp neighbors [detail]` is read by
//! [`crate::lldp`], which tells every vendor's LLDP format apart.

pub mod convert;
pub mod running_config;

use crate::{ParseResult, to_json, with_model};

/// The `fabcheck parse` sources of this module.
pub const SOURCES: &[&str] = &["nxos"];

/// Parses `text` as `source` when `source` is one of [`SOURCES`]; the JSON holds `facts` and
/// `model`.
pub(crate) fn parse_to_json(source: &str, text: &str) -> Option<ParseResult<serde_json::Value>> {
    Some(match source {
        "nxos" => to_json(with_model(running_config::parse(text), convert::to_model)),
        _ => return None,
    })
}
