//! Parsers for NVIDIA Cumulus Linux 5.x switches, configured and queried with NVUE (`nv`).
//!
//! One module per command, and [`convert`] from their facts to the vendor-neutral model:
//! `nv config show -o yaml` ([`config`]), `nv show qos roce` ([`roce`]),
//! `nv show interface IF qos roce status` ([`roce_status`]) and
//! `nv show interface IF qos roce counters` ([`roce_counters`]), `nv show interface IF qos
//! pfc-watchdog` ([`pfc_watchdog`]); the table layout the `nv show`
//! commands share is read once (module `table`).

pub mod config;
pub mod convert;
pub mod pfc_watchdog;
pub mod roce;
pub mod roce_counters;
pub mod roce_status;
mod table;

/// The `fabcheck parse` sources of this module.
pub const SOURCES: &[&str] = &["nvue", "nvue_roce", "nvue_roce_status", "nvue_roce_counters", "nvue_pfc_watchdog"];

/// Parses `text` as `source` when `source` is one of [`SOURCES`]: the configuration as the
/// model's `SwitchQos`, the show commands as their facts.
pub(crate) fn parse_to_json(source: &str, text: &str) -> Option<crate::ParseResult<serde_json::Value>> {
    use crate::to_json;
    Some(match source {
        "nvue" => to_json(config::parse(text).map(|parsed| {
            let model = convert::to_model(&parsed.value);
            let mut warnings = parsed.warnings;
            warnings.extend(model.warnings);
            crate::Parsed { value: model.value, warnings }
        })),
        "nvue_roce" => to_json(roce::parse(text)),
        "nvue_roce_status" => to_json(roce_status::parse(text)),
        "nvue_roce_counters" => to_json(roce_counters::parse(text)),
        "nvue_pfc_watchdog" => to_json(pfc_watchdog::parse(text)),
        _ => return None,
    })
}
