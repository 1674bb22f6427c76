//! PLACEHOLDER: sonic parsers, being written.

/// The `fabcheck parse` sources of this module.
pub const SOURCES: &[&str] = &[];

/// Parses `text` as `source` when `source` is one of [`SOURCES`].
pub(crate) fn parse_to_json(_source: &str, _text: &str) -> Option<crate::ParseResult<serde_json::Value>> {
    None
}
