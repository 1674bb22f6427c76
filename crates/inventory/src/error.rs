//! The crate's one error type: which file, where in it, and what is wrong.
//!
//! Every failure to read an inventory, a `--limit` pattern or an ssh_config ends up here, so
//! the CLI has a single thing to print (after `fabcheck:`) and to map to exit code 2.

use std::fmt;

/// An inventory, `--limit` pattern or ssh_config that fabcheck cannot use.
///
/// Its `Display` is one line, `file:line[:column]: what is wrong`, for example
/// `inventories/bad.ini:7: unterminated quote in host line`: the form compilers use, so that
/// editors and terminals can jump to the place. [`InventoryError::kind`] gives the structured
/// cause for callers that branch on it.
#[derive(Debug)]
pub struct InventoryError {
    file: String,
    line: Option<u32>,
    column: Option<u32>,
    kind: ErrorKind,
}

impl InventoryError {
    /// An error in `file`, at `line` when it is known.
    pub(crate) fn new(file: &str, line: Option<u32>, kind: ErrorKind) -> Self {
        InventoryError { file: file.to_owned(), line, column: None, kind }
    }

    /// The same error, pointing at a column of its line too.
    pub(crate) fn with_column(mut self, column: u32) -> Self {
        self.column = Some(column);
        self
    }

    /// The file the error is in, as the caller named it.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// The 1-based line, when the error is about one line.
    pub fn line(&self) -> Option<u32> {
        self.line
    }

    /// The 1-based column (in characters), when it is known.
    pub fn column(&self) -> Option<u32> {
        self.column
    }

    /// What is wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }
}

impl fmt::Display for InventoryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(column) = self.column {
                write!(f, ":{column}")?;
            }
        }
        write!(f, ": {}", self.kind)
    }
}

impl std::error::Error for InventoryError {}

/// What is wrong; messages are lower-case fragments that name the offending value.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file could not be read (missing, unreadable, not UTF-8).
    #[error("cannot read {what}: {error}")]
    Read {
        /// What was being read ("inventory", "ssh_config").
        what: &'static str,
        /// The I/O error (kept in the message rather than as a source, so a one-line print
        /// says everything).
        error: std::io::Error,
    },
    /// A quote opened in a line is never closed.
    #[error("unterminated quote in {context}")]
    UnterminatedQuote {
        /// The kind of line ("host line", "ssh_config line").
        context: &'static str,
    },
    /// A line ends in a backslash that escapes nothing.
    #[error("trailing backslash in {context}")]
    TrailingBackslash {
        /// The kind of line.
        context: &'static str,
    },
    /// An INI section header `[group:type]` with a type other than `vars` or `children`.
    #[error("unknown section type [{group}:{kind}] (expected [{group}], [{group}:vars] or [{group}:children])")]
    UnknownSectionType {
        /// The group named in the header.
        group: String,
        /// The unknown type.
        kind: String,
    },
    /// A line that looks like a section header but is not one (spaces, stray characters).
    #[error("invalid section header `{header}` (no spaces or `:` in group names)")]
    BadSectionHeader {
        /// The line as written.
        header: String,
    },
    /// A word after the host name in a host line that is not `key=value`.
    #[error("expected key=value after host `{host}`, got `{token}`")]
    ExpectedHostVar {
        /// The host the line defines.
        host: String,
        /// The offending word.
        token: String,
    },
    /// A line in a `[group:vars]` section that is not `key=value`.
    #[error("expected key=value in [{group}:vars], got `{line}`")]
    ExpectedGroupVar {
        /// The group whose vars section it is.
        group: String,
        /// The line as written.
        line: String,
    },
    /// A line in a `[group:children]` section that is not a group name.
    #[error("expected a group name in [{group}:children], got `{line}`")]
    ExpectedChildGroup {
        /// The parent group.
        group: String,
        /// The line as written.
        line: String,
    },
    /// A host range such as `gpu[10:01]` that cannot be expanded.
    #[error("bad host range {pattern}: {reason}")]
    BadHostRange {
        /// The host pattern as written.
        pattern: String,
        /// Why it is wrong.
        reason: String,
    },
    /// A host entry that is not a host name, address or `name:port`.
    #[error("bad host `{pattern}`: {reason}")]
    BadHostPattern {
        /// The host pattern as written.
        pattern: String,
        /// Why it is wrong.
        reason: String,
    },
    /// `[parent:children]` lists a group that no section defines.
    #[error("[{parent}:children] includes undefined group `{child}`")]
    UndefinedChildGroup {
        /// The parent group.
        parent: String,
        /// The child that is never defined.
        child: String,
    },
    /// `[group:vars]` for a group that no section defines.
    #[error("[{group}:vars] is for group `{group}`, which is never defined")]
    VarsForUndefinedGroup {
        /// The group.
        group: String,
    },
    /// The `children` relation loops back on itself.
    #[error("group `{group}` is its own descendant")]
    GroupCycle {
        /// A group on the loop.
        group: String,
    },
    /// YAML that does not parse, or that is not shaped like an Ansible inventory.
    #[error("{message}")]
    Yaml {
        /// serde-saphyr's message, without its location (which is in the error's line and column).
        message: String,
    },
    /// A `fabcheck_nics` entry that is not a safe interface or HCA name.
    #[error(
        "host `{host}`: fabcheck_nics entry `{value}` is not a valid interface or HCA name (letters, digits, `_.:-`, at most 32)"
    )]
    InvalidNic {
        /// The host.
        host: String,
        /// The entry as written.
        value: String,
    },
    /// An inventory name that cannot also serve as a directory name in the evidence snapshot.
    #[error(
        "host name `{host}` cannot be used: it names the device's evidence directory, so it may not be empty, start with `.`, be `manifest.json` or `_bench`, be longer than 200 bytes, or contain `/`, `\\` or a control character"
    )]
    InvalidHostName {
        /// The name as written.
        host: String,
    },
    /// An address (`ansible_host`, or the inventory name when it is absent) SSH cannot be given.
    #[error("host `{host}`: address `{value}` is not a host name, IPv4 or IPv6 address")]
    InvalidAddress {
        /// The host.
        host: String,
        /// The address as written.
        value: String,
    },
    /// An `ansible_port` (or `name:port`) that is not 1-65535.
    #[error("host `{host}`: ansible_port `{value}` is not a port number (1-65535)")]
    InvalidPort {
        /// The host.
        host: String,
        /// The value as written.
        value: String,
    },
    /// A `fabcheck_role` other than host, leaf, spine, superspine or collector.
    #[error("host `{host}`: unknown fabcheck_role `{value}` (expected host, leaf, spine, superspine or collector)")]
    UnknownRole {
        /// The host.
        host: String,
        /// The value as written.
        value: String,
    },
    /// Another variable fabcheck reads whose value has the wrong shape.
    #[error("host `{host}`: {var} `{value}` is not {expected}")]
    InvalidVar {
        /// The host.
        host: String,
        /// The variable.
        var: &'static str,
        /// The value as written.
        value: String,
        /// What it should be.
        expected: &'static str,
    },
    /// An `ansible_group_priority` that is not an integer.
    #[error("group `{group}`: ansible_group_priority `{value}` is not an integer")]
    InvalidGroupPriority {
        /// The group.
        group: String,
        /// The value as written.
        value: String,
    },
    /// A host range or pattern that would expand to an unreasonable number of hosts.
    #[error("host pattern `{pattern}` expands to more than {limit} hosts")]
    TooManyHosts {
        /// The pattern as written.
        pattern: String,
        /// The limit.
        limit: usize,
    },
    /// One term of a `--limit` pattern matches no host and no group (probably a typo).
    #[error("limit pattern `{pattern}` matches no host or group")]
    NoMatch {
        /// The term.
        pattern: String,
    },
    /// The `--limit` pattern as a whole selects no host.
    #[error("limit `{limit}` selects no host")]
    EmptySelection {
        /// The whole pattern.
        limit: String,
    },
    /// A `~regex` term of a `--limit` pattern that is not a valid regex.
    #[error("bad regex in limit pattern `{pattern}`: {message}")]
    BadRegex {
        /// The term.
        pattern: String,
        /// The regex crate's message.
        message: String,
    },
    /// An ssh_config keyword given no value.
    #[error("{keyword} needs a value")]
    SshMissingValue {
        /// The keyword as written.
        keyword: String,
    },
    /// An ssh_config value of the wrong shape.
    #[error("{keyword} `{value}` is not {expected}")]
    SshBadValue {
        /// The keyword as written.
        keyword: String,
        /// The value as written.
        value: String,
        /// What it should be.
        expected: &'static str,
    },
    /// ssh_config `Include` nested deeper than ssh allows (or including itself).
    #[error("Include nested more than {limit} levels deep (does a file include itself?)")]
    SshIncludeTooDeep {
        /// The limit.
        limit: usize,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_is_one_line_with_location() {
        let e =
            InventoryError::new("inventories/bad.ini", Some(7), ErrorKind::UnterminatedQuote { context: "host line" });
        assert_eq!(e.to_string(), "inventories/bad.ini:7: unterminated quote in host line");
        let e = e.with_column(12);
        assert_eq!(e.to_string(), "inventories/bad.ini:7:12: unterminated quote in host line");
        let e = InventoryError::new("lab.ini", None, ErrorKind::NoMatch { pattern: "gpu9*".into() });
        assert_eq!(e.to_string(), "lab.ini: limit pattern `gpu9*` matches no host or group");
    }
}
