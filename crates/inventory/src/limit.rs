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

/// A term's subscript, as Ansible's `PATTERN_WITH_SUBSCRIPT` reads it: `[i]` (negative from the
/// end), `[x:y]` (inclusive) or `[x:]` (to the end); the term without it.
fn subscript(term: &str) -> Option<(&str, i64, Option<i64>)> {
    let (base, inside) = term.strip_suffix(']')?.rsplit_once('[')?;
    if base.is_empty() {
        return None;
    }
    let number = |s: &str| s.parse::<i64>().ok();
    match inside.split_once(':') {
        None if !inside.is_empty() => Some((base, number(inside)?, None)),
        None => None,
        Some((start, end)) if start.bytes().all(|b| b.is_ascii_digit()) && !start.is_empty() => {
            let end = if end.is_empty() { -1 } else { number(end).filter(|e| *e >= 0)? };
            Some((base, number(start)?, Some(end)))
        }
        Some(_) => None,
    }
}

/// The hosts one term (without its operator) selects, sliced by its subscript (`gpu[0:3]`, in
/// the order the hosts come in the inventory); an error if it matches nothing.
fn matches(inventory: &Inventory, term: &str) -> Result<BTreeSet<usize>, InventoryError> {
    let Some((base, start, end)) = subscript(term) else { return matches_unsliced(inventory, term) };
    let hosts: Vec<usize> = matches_unsliced(inventory, base)?.into_iter().collect();
    let len = hosts.len() as i64;
    let picked: Vec<usize> = match end {
        None => {
            let i = if start < 0 { len + start } else { start };
            hosts.get(usize::try_from(i).unwrap_or(usize::MAX)).copied().into_iter().collect()
        }
        Some(end) => {
            let last = if end == -1 { len - 1 } else { end.min(len - 1) };
            (start..=last).filter_map(|i| hosts.get(usize::try_from(i).ok()?).copied()).collect()
        }
    };
    if picked.is_empty() {
        return Err(InventoryError::new(inventory.file(), None, ErrorKind::NoMatch { pattern: term.to_owned() }));
    }
    Ok(picked.into_iter().collect())
}

/// The hosts one term selects, without a subscript.
fn matches_unsliced(inventory: &Inventory, term: &str) -> Result<BTreeSet<usize>, InventoryError> {
    let matcher = Matcher::new(term).map_err(|message| {
        InventoryError::new(inventory.file(), None, ErrorKind::BadRegex { pattern: term.to_owned(), message })
    })?;
    let mut hosts = BTreeSet::new();
    let mut any_group = false;
    for group in inventory.groups().iter().filter(|g| matcher.is_match(g.name())) {
        any_group = true;
        hosts.extend(group.host_positions());
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

    #[test]
    fn subscripts_as_ansible_reads_them() {
        assert_eq!(subscript("gpu[0]"), Some(("gpu", 0, None)));
        assert_eq!(subscript("gpu[-1]"), Some(("gpu", -1, None)));
        assert_eq!(subscript("gpu[0:2]"), Some(("gpu", 0, Some(2))));
        assert_eq!(subscript("gpu[1:]"), Some(("gpu", 1, Some(-1))));
        assert_eq!(subscript("gpu[:2]"), None, "Ansible needs a start");
        assert_eq!(subscript("gpu[a]"), None);
        assert_eq!(subscript("gpu"), None);
        assert_eq!(subscript("[1]"), None);
    }
}
