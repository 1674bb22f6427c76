//! Parsers for nccl-tests output and the NCCL log lines (`NCCL_DEBUG=INFO`) printed with it.

mod debug_log;
pub mod nccl_tests;
mod table;

/// The `fabcheck parse` sources of this module.
pub const SOURCES: &[&str] = &["nccl_tests"];

/// Parses `text` as `source` when `source` is one of [`SOURCES`].
pub(crate) fn parse_to_json(source: &str, text: &str) -> Option<crate::ParseResult<serde_json::Value>> {
    match source {
        "nccl_tests" => Some(crate::to_json(nccl_tests::parse(text))),
        _ => None,
    }
}
