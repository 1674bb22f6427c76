use serde::Serialize;
use std::fmt;

/// A line of input the parser did not understand and skipped. Skipping is never silent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ParseWarning {
    /// 1-based line number in the input.
    pub line: usize,
    /// What was wrong, a lower-case fragment ("unrecognised line `foo`").
    pub message: String,
}

impl ParseWarning {
    /// A warning at a line (the counterpart of [`ParseError::at`], so that parsers need not spell
    /// out the struct at every skipped line).
    pub(crate) fn at(line: usize, message: impl Into<String>) -> ParseWarning {
        ParseWarning { line, message: message.into() }
    }
}

/// The input could not be parsed at all (empty, or not this command's output).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ParseError {
    /// 1-based line number where parsing gave up (0: the input as a whole).
    pub line: usize,
    /// What was wrong, a lower-case fragment.
    pub message: String,
}

impl ParseError {
    /// An error at a line.
    pub fn at(line: usize, message: impl Into<String>) -> ParseError {
        ParseError { line, message: message.into() }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 { f.write_str(&self.message) } else { write!(f, "line {}: {}", self.line, self.message) }
    }
}

impl std::error::Error for ParseError {}

/// Facts parsed from one output, with the lines that were skipped.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Parsed<T> {
    /// The facts.
    pub value: T,
    /// Lines that were not understood.
    pub warnings: Vec<ParseWarning>,
}

impl<T> Parsed<T> {
    /// Facts with no warnings.
    pub fn clean(value: T) -> Parsed<T> {
        Parsed { value, warnings: Vec::new() }
    }
}

/// What every parser returns.
pub type ParseResult<T> = Result<Parsed<T>, ParseError>;
