//! Parsers for the output of the commands fabcheck runs on GPU hosts and switches.
//!
//! Every parser is pure (text in, typed facts out: no I/O, no clock), never panics on any input,
//! and never drops input silently: lines it does not recognise come back as [`ParseWarning`]s with
//! their line numbers, so the report can say how much of a device's output was understood.
//!
//! Module paths are fact ids: `linux::mlnx_qos` parses `mlnx_qos -i IF`. The evidence file, the
//! test fixture directory and `fabcheck parse SOURCE` all use the source name in [`SOURCES`].
#![deny(missing_docs)]

mod cli_tree;
mod common;
pub mod dell_os10;
pub mod eos;
mod lines;
pub mod linux;
pub mod lldp;
pub mod nccl;
pub mod nvue;
pub mod nxos;
pub mod sonic;
mod status_table;
pub mod switch;

pub use common::{ParseError, ParseResult, ParseWarning, Parsed};

/// Every source name `fabcheck parse` accepts: the host tools, then each vendor's.
pub fn sources() -> Vec<&'static str> {
    let mut all = LINUX_SOURCES.to_vec();
    for vendor in
        [sonic::SOURCES, eos::SOURCES, nxos::SOURCES, dell_os10::SOURCES, nvue::SOURCES, lldp::SOURCES, nccl::SOURCES]
    {
        all.extend_from_slice(vendor);
    }
    all
}

/// The host tools' source names, in the order `--help` lists them.
const LINUX_SOURCES: &[&str] = &[
    "mlnx_qos",
    "ethtool",
    "ethtool_link",
    "ip_link",
    "lsmod",
    "interrupts",
    "irq_affinity",
    "hw_counters",
    "ibstat",
    "ibdev2netdev",
    "show_gids",
    "perfquery",
    "sminfo",
    "iblinkinfo",
    "nvidia_smi_topo",
    "port_rate",
    "roce_ecn",
    "saquery_sm",
    "ip_rule",
    "ip_route",
    "net_conf",
];

/// Parses `text` as the output of `source` and returns its facts as JSON (for `fabcheck parse`).
///
/// Returns `None` when `source` is not one of [`sources`].
pub fn parse_to_json(source: &str, text: &str) -> Option<ParseResult<serde_json::Value>> {
    use linux::*;
    Some(match source {
        "mlnx_qos" => to_json(mlnx_qos::parse(text)),
        "ethtool" => to_json(ethtool_stats::parse(text)),
        "ethtool_link" => to_json(ethtool_link::parse(text)),
        "ip_link" => to_json(ip_link::parse(text)),
        "lsmod" => to_json(lsmod::parse(text)),
        "interrupts" => to_json(interrupts::parse(text)),
        "irq_affinity" => to_json(irq_affinity::parse(text)),
        "hw_counters" => to_json(hw_counters::parse(text)),
        "ibstat" => to_json(ibstat::parse(text)),
        "ibdev2netdev" => to_json(ibdev2netdev::parse(text)),
        "show_gids" => to_json(show_gids::parse(text)),
        "perfquery" => to_json(perfquery::parse(text)),
        "sminfo" => to_json(sminfo::parse(text)),
        "iblinkinfo" => to_json(iblinkinfo::parse(text)),
        "nvidia_smi_topo" => to_json(nvidia_smi_topo::parse(text)),
        "port_rate" => to_json(port_rate::parse(text)),
        "roce_ecn" => to_json(roce_ecn::parse(text)),
        "saquery_sm" => to_json(saquery_sm::parse(text)),
        "ip_rule" => to_json(ip_rule::parse(text)),
        "ip_route" => to_json(ip_route::parse(text)),
        "net_conf" => to_json(net_conf::parse(text)),
        _ => {
            return sonic::parse_to_json(source, text)
                .or_else(|| eos::parse_to_json(source, text))
                .or_else(|| nxos::parse_to_json(source, text))
                .or_else(|| dell_os10::parse_to_json(source, text))
                .or_else(|| nvue::parse_to_json(source, text))
                .or_else(|| lldp::parse_to_json(source, text))
                .or_else(|| nccl::parse_to_json(source, text));
        }
    })
}

/// Turns typed facts into the JSON `fabcheck parse` prints (every vendor module uses it).
pub(crate) fn to_json<T: serde::Serialize>(result: ParseResult<T>) -> ParseResult<serde_json::Value> {
    result.map(|parsed| Parsed {
        value: serde_json::to_value(parsed.value).unwrap_or(serde_json::Value::Null),
        warnings: parsed.warnings,
    })
}

/// What `fabcheck parse` prints for a switch source: the vendor facts as read and the model
/// they convert to, so that a user sees both what the switch said and what fabcheck makes of it.
#[derive(serde::Serialize)]
pub(crate) struct FactsAndModel<F, M> {
    facts: F,
    model: M,
}

/// Pairs parsed vendor facts with the model `model` makes of them (every switch vendor's
/// `parse_to_json` uses it).
pub(crate) fn with_model<F, M: serde::Serialize>(
    result: ParseResult<F>,
    model: impl Fn(&F) -> M,
) -> ParseResult<FactsAndModel<F, M>> {
    result.map(|p| Parsed { value: FactsAndModel { model: model(&p.value), facts: p.value }, warnings: p.warnings })
}
