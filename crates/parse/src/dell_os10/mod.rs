//! Dell OS10: the QoS of `show running-configuration` (WRED profiles, trust and traffic-class
//! maps, network-qos and queuing policy maps, `system qos`, read with the indented-CLI tree
//! [`crate::cli_tree`] shared with EOS and NX-OS), `show interface status`, and each port's
//! `show queuing statistics` (packets sent and dropped per queue). PFC counters are not read: no
//! published capture of an OS10 PFC statistics command was found to read them from.
//!
//! Each command has its module giving vendor facts; `convert` turns them into the
//! vendor-neutral [`crate::switch`] model. `show lldp neighbors detail` is read by
//! [`crate::lldp`], which tells every vendor's LLDP format apart.

pub mod convert;
pub mod interfaces_status;
pub mod queuing_statistics;
pub mod running_config;

use crate::switch::{SwitchCounters, SwitchQos};
use crate::{ParseResult, to_json, with_model};

/// The `fabcheck parse` sources of this module.
pub const SOURCES: &[&str] = &["dell_os10", "dell_os10_interfaces", "dell_os10_queuing"];

/// Parses `text` as `source` when `source` is one of [`SOURCES`]; the JSON holds `facts` and
/// `model`.
pub(crate) fn parse_to_json(source: &str, text: &str) -> Option<ParseResult<serde_json::Value>> {
    Some(match source {
        "dell_os10" => to_json(with_model(running_config::parse(text), convert::to_model)),
        "dell_os10_interfaces" => to_json(with_model(interfaces_status::parse(text), |f| {
            let mut m = SwitchQos::default();
            convert::apply_interfaces_status(&mut m, f);
            m
        })),
        "dell_os10_queuing" => to_json(with_model(queuing_statistics::parse(text), |q| {
            let mut c = SwitchCounters::default();
            convert::add_queuing_statistics(&mut c, q);
            c
        })),
        _ => return None,
    })
}
