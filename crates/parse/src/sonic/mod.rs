//! Parsers for SONiC, one module per command, and their conversion into the vendor-neutral
//! [`crate::switch`] model (`convert`).
//!
//! `fabcheck parse` prints the model each source converts into (what the checks see):
//! `sonic` and `sonic_interfaces` and `sonic_pfcwd` a [`SwitchQos`], the counter sources a
//! [`SwitchCounters`]. The typed vendor facts are each module's `parse` result.

pub mod config_db;
mod config_keys;
mod config_read;
pub mod convert;
pub mod interfaces_status;
mod json_lines;
pub mod pfc_counters;
pub mod pfcwd;
pub mod queue_counters;
mod table;

use crate::switch::{SwitchCounters, SwitchQos};
use crate::{ParseResult, Parsed, to_json};

/// The `fabcheck parse` sources of this module.
pub const SOURCES: &[&str] =
    &["sonic", "sonic_interfaces", "sonic_pfc_counters", "sonic_queue_counters", "sonic_pfcwd"];

/// Parses `text` as `source` when `source` is one of [`SOURCES`].
pub(crate) fn parse_to_json(source: &str, text: &str) -> Option<ParseResult<serde_json::Value>> {
    fn model<T, M>(parsed: ParseResult<T>, convert: impl FnOnce(&T) -> M) -> ParseResult<M> {
        parsed.map(|p| Parsed { value: convert(&p.value), warnings: p.warnings })
    }
    fn qos<T>(add: impl FnOnce(&mut SwitchQos, &T)) -> impl FnOnce(&T) -> SwitchQos {
        |facts| {
            let mut m = SwitchQos::default();
            add(&mut m, facts);
            m
        }
    }
    fn counters<T>(add: impl FnOnce(&mut SwitchCounters, &T)) -> impl FnOnce(&T) -> SwitchCounters {
        |facts| {
            let mut c = SwitchCounters::default();
            add(&mut c, facts);
            c
        }
    }
    Some(match source {
        "sonic" => to_json(model(config_db::parse(text), convert::to_model)),
        "sonic_interfaces" => to_json(model(interfaces_status::parse(text), qos(convert::add_interfaces))),
        "sonic_pfcwd" => to_json(model(pfcwd::parse(text), qos(convert::add_pfcwd))),
        "sonic_pfc_counters" => to_json(model(pfc_counters::parse(text), counters(convert::add_pfc_counters))),
        "sonic_queue_counters" => to_json(model(queue_counters::parse(text), counters(convert::add_queue_counters))),
        _ => return None,
    })
}
