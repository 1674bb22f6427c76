//! Ansible's INI inventory format, read line by line as `ansible.plugins.inventory.ini` does.
//!
//! ```ini
//! gpu00                                  # before any section: ungrouped
//! [gpus]                                 # hosts of group `gpus`
//! gpu[01:16] fabcheck_nics="mlx5_0,mlx5_1" ansible_user='ops'
//! [gpus:vars]                            # one key=value per line, the rest of the line is the value
//! fabcheck_gpus=8
//! [fabric:children]                      # child groups; they may be defined further down
//! leaves
//! ```
//!
//! Host lines are split like Python's `shlex.split(line, comments=True)`; values are typed
//! as `ast.literal_eval` would type them ([`crate::ini_value`]). Comments start with `#` or
//! `;` at the start of a line; on host lines `#` also starts one anywhere outside quotes, and
//! on vars lines after whitespace (Ansible would keep such a comment in the value; fabcheck
//! drops it, which is what the author meant).

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

use crate::builder::{ALL, Builder, UNGROUPED};
use crate::error::{ErrorKind, InventoryError};
use crate::hostpattern;
use crate::ini_value::parse_value;
use crate::shlex::{self, Comments, SplitError};

/// `[group]`, `[group:vars]`, `[group:children]`, optionally followed by a comment.
static SECTION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\[([^:\]\s]+)(?::(\w+))?\]\s*(?:[#;].*)?$").expect("valid section regex"));

/// A group name on a `[group:children]` line, optionally followed by a comment.
static CHILD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^([^:\]\s]+)\s*(?:[#;].*)?$").expect("valid child regex"));

/// What the lines of the current section declare.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Hosts,
    Vars,
    Children,
}

/// A reference to a group that must be defined by a section somewhere in the file.
struct Pending {
    line: u32,
    kind: PendingKind,
}

enum PendingKind {
    /// `[parent:children]` named it.
    Child { parent: String },
    /// `[group:vars]` was its only section so far.
    Vars,
}

/// Parses INI inventory text into declarations.
pub(crate) fn parse(text: &str, file: &str) -> Result<Builder, InventoryError> {
    let mut b = Builder::new(file);
    let mut group = UNGROUPED.to_owned();
    let mut state = State::Hosts;
    let mut defined: BTreeMap<String, ()> = BTreeMap::new();
    defined.insert(ALL.to_owned(), ());
    defined.insert(UNGROUPED.to_owned(), ());
    let mut pending: BTreeMap<String, Pending> = BTreeMap::new();

    for (index, raw) in text.lines().enumerate() {
        let lineno = u32::try_from(index + 1).unwrap_or(u32::MAX);
        let line = raw.trim_start_matches('\u{feff}').trim();
        if line.is_empty() || line.starts_with(['#', ';']) {
            continue;
        }
        if let Some(caps) = SECTION.captures(line) {
            group = caps[1].to_owned();
            state = match caps.get(2).map(|m| m.as_str()) {
                None | Some("hosts") => State::Hosts,
                Some("vars") => State::Vars,
                Some("children") => State::Children,
                Some(kind) => {
                    return Err(b.error(Some(lineno), ErrorKind::UnknownSectionType { group, kind: kind.to_owned() }));
                }
            };
            b.add_group(&group);
            if state == State::Vars {
                if !defined.contains_key(&group) && !pending.contains_key(&group) {
                    pending.insert(group.clone(), Pending { line: lineno, kind: PendingKind::Vars });
                }
            } else {
                defined.insert(group.clone(), ());
                pending.remove(&group);
            }
            continue;
        }
        if line.starts_with('[') && line.ends_with(']') {
            return Err(b.error(Some(lineno), ErrorKind::BadSectionHeader { header: line.to_owned() }));
        }
        match state {
            State::Hosts => host_line(&mut b, &group, line, raw, lineno)?,
            State::Vars => vars_line(&mut b, &group, line, lineno)?,
            State::Children => {
                let Some(caps) = CHILD.captures(line) else {
                    return Err(b.error(
                        Some(lineno),
                        ErrorKind::ExpectedChildGroup { group: group.clone(), line: line.to_owned() },
                    ));
                };
                let child = &caps[1];
                b.add_child(&group, child, Some(lineno))?;
                if !defined.contains_key(child) {
                    // A later `[child]` section may still define it; Ansible allows that.
                    pending
                        .entry(child.to_owned())
                        .or_insert(Pending { line: lineno, kind: PendingKind::Child { parent: group.clone() } });
                }
            }
        }
    }

    // Like Ansible, refuse references to groups no section defines; report the first one.
    if let Some((name, p)) = pending.into_iter().min_by_key(|(_, p)| p.line) {
        let kind = match p.kind {
            PendingKind::Child { parent } => ErrorKind::UndefinedChildGroup { parent, child: name },
            PendingKind::Vars => ErrorKind::VarsForUndefinedGroup { group: name },
        };
        return Err(b.error(Some(p.line), kind));
    }
    Ok(b)
}

/// `name[:port] key=value ...`: declares hosts in `group` and sets their variables.
fn host_line(b: &mut Builder, group: &str, line: &str, raw: &str, lineno: u32) -> Result<(), InventoryError> {
    let words = shlex::split(line, Comments::Anywhere).map_err(|e| {
        // Report the column in the line as written, not as trimmed.
        let indent = u32::try_from(raw.chars().count() - raw.trim_start().chars().count()).unwrap_or(0);
        let (kind, column) = match e {
            SplitError::UnterminatedQuote(c) => (ErrorKind::UnterminatedQuote { context: "host line" }, c),
            SplitError::TrailingBackslash(c) => (ErrorKind::TrailingBackslash { context: "host line" }, c),
        };
        b.error(Some(lineno), kind).with_column(column + indent)
    })?;
    let Some((pattern, assignments)) = words.split_first() else {
        return Ok(());
    };
    let expanded = hostpattern::expand(pattern).map_err(|kind| b.error(Some(lineno), kind))?;
    let mut vars = Vec::new();
    for word in assignments {
        match word.split_once('=') {
            Some((key, value)) if !key.is_empty() => vars.push((key, value)),
            _ => {
                return Err(
                    b.error(Some(lineno), ErrorKind::ExpectedHostVar { host: pattern.clone(), token: word.clone() })
                );
            }
        }
    }
    for name in &expanded.names {
        let host = b.add_host(group, name, Some(lineno));
        if let Some(port) = expanded.port {
            b.set_host_var(host, "ansible_port", i64::from(port).into(), Some(lineno));
        }
        for (key, value) in &vars {
            if let Some(value) = parse_value(value) {
                b.set_host_var(host, key, value, Some(lineno));
            }
        }
    }
    Ok(())
}

/// `key=value` in a `[group:vars]` section: everything after the first `=` is the value.
fn vars_line(b: &mut Builder, group: &str, line: &str, lineno: u32) -> Result<(), InventoryError> {
    match line.split_once('=') {
        Some((key, value)) if !key.trim().is_empty() => {
            if let Some(value) = parse_value(strip_trailing_comment(value).trim()) {
                b.set_group_var(group, key.trim(), value, Some(lineno));
            }
            Ok(())
        }
        _ => Err(b.error(Some(lineno), ErrorKind::ExpectedGroupVar { group: group.to_owned(), line: line.to_owned() })),
    }
}

/// Cuts a `#` comment that follows whitespace and is outside quotes.
fn strip_trailing_comment(value: &str) -> &str {
    let mut quote = None;
    let mut previous = ' ';
    for (i, c) in value.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '#') if previous.is_whitespace() && i > 0 => return &value[..i],
            _ => {}
        }
        previous = c;
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trailing_comments_in_vars() {
        assert_eq!(strip_trailing_comment("8080 # all members"), "8080 ");
        assert_eq!(strip_trailing_comment("'a # b'"), "'a # b'");
        assert_eq!(strip_trailing_comment("a#b"), "a#b");
        assert_eq!(strip_trailing_comment("#x"), "#x");
    }

    #[test]
    fn sections() {
        let b = parse("h0\n[g]\nh1 a=1\n[g:vars]\nv = x y # note\n[p:children]\ng\n", "t.ini").unwrap();
        assert_eq!(b.hosts.len(), 2);
        assert_eq!(b.groups["g"].vars["v"].value, "x y".into());
        assert!(b.groups["p"].children.contains("g"));
        assert!(b.groups[UNGROUPED].hosts.contains(&0));
    }
}
