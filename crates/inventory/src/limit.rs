//! `--limit` patterns, evaluated as Ansible's `InventoryManager` does.
//!
//! A pattern is a list of terms. Each term selects hosts by group name, host name, glob
//! (`gpu0*`, `leaf?`) or regex (`~gpu0[1-4]`, anchored at the start like Python's
//! `re.match`). A name matches groups first; hosts are tried too when no group matched or
//! the term is a glob or regex. Unions apply first, then `&` intersections, then `!`
//! exclusions, whatever the order in which they are written.
//!
//! Stricter than Ansible, which only warns: a term that matches nothing is an error, since
//! a typo in `--limit` would otherwise audit the wrong set of hosts without saying so.

use std::collections::BTreeSet;
use std::net::Ipv6Addr;

use regex::Regex;

use crate::error::{ErrorKind, InventoryError};
use crate::host::Host;
use crate::inventory::Inventory;
use crate::names::{has_wildcard, wildcard_match};

/// How a term combines with the selection so far.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Op {
    Union,
    Intersect,
    Exclude,
}

/// Evaluates `limit` against `inventory`.
pub(crate) fn select<'a>(inventory: &'a Inventory, limit: &str) -> Result<Vec<&'a Host>, InventoryError> {
    let error = |kind| InventoryError::new(inventory.file(), None, kind);
    let terms: Vec<(Op, &str)> = split_terms(limit).into_iter().map(classify).collect();
    if terms.is_empty() {
        return Err(error(ErrorKind::EmptySelection { limit: limit.to_owned() }));
    }
    let mut selected: BTreeSet<usize> = if terms.iter().any(|(op, _)| *op == Op::Union) {
        BTreeSet::new()
    } else {
        (0..inventory.hosts().len()).collect()
    };
    for wanted in [Op::Union, Op::Intersect, Op::Exclude] {
        for (_, term) in terms.iter().filter(|(op, _)| *op == wanted) {
            let matched = matches(inventory, term)?;
            match wanted {
                Op::Union => selected.extend(matched),
                Op::Intersect => selected.retain(|h| matched.contains(h)),
                Op::Exclude => selected.retain(|h| !matched.contains(h)),
            }
        }
    }
    if selected.is_empty() {
        return Err(error(ErrorKind::EmptySelection { limit: limit.to_owned() }));
    }
    Ok(selected.into_iter().map(|i| &inventory.hosts()[i]).collect())
}

/// Splits a pattern into terms: on `,` if it has one; else it is one IPv6 address, or terms
/// separated by `:` outside `[...]` (Ansible's `split_host_pattern`).
fn split_terms(limit: &str) -> Vec<&str> {
    let limit = limit.trim();
    let terms: Vec<&str> = if limit.contains(',') {
        limit.split(',').collect()
    } else if limit.parse::<Ipv6Addr>().is_ok() {
        vec![limit]
    } else {
        let mut terms = Vec::new();
        let (mut depth, mut start) = (0i32, 0);
        for (i, c) in limit.char_indices() {
            match c {
                '[' => depth += 1,
                ']' => depth -= 1,
                ':' if depth <= 0 => {
                    terms.push(&limit[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
        }
        terms.push(&limit[start..]);
        terms
    };
    terms.into_iter().map(str::trim).filter(|t| !t.is_empty()).collect()
}

fn classify(term: &str) -> (Op, &str) {
    if let Some(rest) = term.strip_prefix('!') {
        (Op::Exclude, rest)
    } else if let Some(rest) = term.strip_prefix('&') {
        (Op::Intersect, rest)
    } else {
        (Op::Union, term)
    }
}

/// The hosts one term (without its operator) selects; an error if it matches nothing.
fn matches(inventory: &Inventory, term: &str) -> Result<BTreeSet<usize>, InventoryError> {
    let matcher = Matcher::new(term).map_err(|message| {
        InventoryError::new(inventory.file(), None, ErrorKind::BadRegex { pattern: term.to_owned(), message })
    })?;
    let mut hosts = BTreeSet::new();
    let mut any_group = false;
    for group in inventory.groups().iter().filter(|g| matcher.is_match(g.name())) {
        any_group = true;
        hosts.extend(group.hosts().iter().filter_map(|h| inventory.host_position(h)));
    }
    if !any_group || matcher.is_pattern() {
        for (i, host) in inventory.hosts().iter().enumerate() {
            if matcher.is_match(host.name()) {
                hosts.insert(i);
            }
        }
    }
    if hosts.is_empty() && !any_group {
        return Err(InventoryError::new(inventory.file(), None, ErrorKind::NoMatch { pattern: term.to_owned() }));
    }
    Ok(hosts)
}

/// One term's matching rule.
enum Matcher<'a> {
    Exact(&'a str),
    Glob(&'a str),
    Regex(Regex),
}

impl<'a> Matcher<'a> {
    fn new(term: &'a str) -> Result<Self, String> {
        if let Some(re) = term.strip_prefix('~') {
            // Python's re.match anchors at the start only.
            return Regex::new(&format!("^(?:{re})"))
                .map(Matcher::Regex)
                .map_err(|e| e.to_string().lines().last().unwrap_or_default().trim().to_owned());
        }
        Ok(if has_wildcard(term) { Matcher::Glob(term) } else { Matcher::Exact(term) })
    }

    /// Whether the term is a glob or regex (and so also matches hosts when a group matched).
    fn is_pattern(&self) -> bool {
        !matches!(self, Matcher::Exact(_))
    }

    fn is_match(&self, name: &str) -> bool {
        match self {
            Matcher::Exact(term) => *term == name,
            Matcher::Glob(glob) => wildcard_match(glob, name),
            Matcher::Regex(re) => re.is_match(name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitting() {
        assert_eq!(split_terms("a:b:&c:!d"), ["a", "b", "&c", "!d"]);
        assert_eq!(split_terms("a, b ,,!c"), ["a", "b", "!c"]);
        assert_eq!(split_terms("2001:db8::1"), ["2001:db8::1"]);
        assert_eq!(split_terms("2001:db8::1,::1"), ["2001:db8::1", "::1"]);
        assert_eq!(split_terms("gpu[1:2]:b"), ["gpu[1:2]", "b"]);
        assert!(split_terms("  ").is_empty());
    }
}
