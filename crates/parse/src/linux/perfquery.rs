//! PLACEHOLDER: to be written.
use crate::{ParseError, ParseResult};

/// Placeholder.
pub fn parse(_text: &str) -> ParseResult<()> {
    Err(ParseError::at(0, "not yet implemented"))
}
