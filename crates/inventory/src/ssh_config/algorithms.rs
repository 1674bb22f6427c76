//! `KexAlgorithms`, `Ciphers`, `MACs` and `HostKeyAlgorithms`: the lists an operator writes for
//! a device whose sshd speaks only some algorithms (old switch firmware), read with ssh's rules.
//!
//! A list replaces the default (`a,b`), or changes it: `+a,b` appends, `-a*` removes, `^a,b`
//! puts first. Every name may be a `*`/`?` pattern, matched case-sensitively against the
//! algorithms the client supports, in the client's order, as OpenSSH's `kex_assemble_names`
//! does (ssh itself takes patterns only in `-` lists and `HostKeyAlgorithms`; accepting them
//! everywhere changes no list ssh accepts). A `-` list may keep names with `!pattern`
//! (`-*-cbc,!aes256-cbc`), as ssh's pattern lists do; elsewhere a negation is left out and
//! reported, where ssh refuses it. This module knows no algorithm: the caller gives its default
//! and supported lists.

use crate::names::wildcard_match;

/// Which list a line sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AlgorithmKind {
    /// `KexAlgorithms`.
    Kex,
    /// `Ciphers`.
    Ciphers,
    /// `MACs`.
    Macs,
    /// `HostKeyAlgorithms`: the host key types accepted from the server.
    HostKeys,
}

impl AlgorithmKind {
    /// Every kind, in ssh_config(5)'s order.
    pub const ALL: [AlgorithmKind; 4] =
        [AlgorithmKind::Kex, AlgorithmKind::Ciphers, AlgorithmKind::Macs, AlgorithmKind::HostKeys];

    /// The keyword as ssh_config(5) spells it.
    pub fn keyword(self) -> &'static str {
        match self {
            AlgorithmKind::Kex => "KexAlgorithms",
            AlgorithmKind::Ciphers => "Ciphers",
            AlgorithmKind::Macs => "MACs",
            AlgorithmKind::HostKeys => "HostKeyAlgorithms",
        }
    }

    /// The kind a keyword (in any case) sets.
    pub(crate) fn from_keyword(keyword: &str) -> Option<AlgorithmKind> {
        AlgorithmKind::ALL.into_iter().find(|k| k.keyword().eq_ignore_ascii_case(keyword))
    }
}

/// One algorithm line as written, with where: the caller checks it against what it supports
/// and names the line in what it says.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AlgorithmSetting {
    /// Which list.
    pub kind: AlgorithmKind,
    /// The value as written (`+diffie-hellman-group14-sha1`).
    pub list: String,
    /// The file it is in.
    pub file: String,
    /// Its 1-based line.
    pub line: u32,
}

/// What a list made of a default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assembled<'a> {
    /// The algorithms to offer, most preferred first, each once.
    pub names: Vec<&'a str>,
    /// What of the list is not offered.
    pub left_out: LeftOut,
}

/// The names of a list that are not offered, for the caller to say so.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LeftOut {
    /// Names of the list (outside a `-` list) that match no supported algorithm.
    pub unsupported: Vec<String>,
    /// `!` names outside a `-` list, where they mean nothing.
    pub negated: Vec<String>,
}

/// Applies `list` to `default` as ssh does, keeping only names of `supported`.
pub fn assemble<'a>(list: &str, default: &[&'a str], supported: &[&'a str]) -> Assembled<'a> {
    let (mode, rest) = match list.as_bytes().first() {
        Some(b'+' | b'-' | b'^') => (list.as_bytes()[0], &list[1..]),
        _ => (b'=', list),
    };
    let entries = rest.split(',').filter(|p| !p.is_empty());
    let (negated, patterns): (Vec<&str>, Vec<&str>) = entries.partition(|p| p.starts_with('!'));
    if mode == b'-' {
        // ssh's match_pattern_list: a name is matched when a pattern matches it and no `!pattern` does.
        let kept_back = |name: &str| negated.iter().any(|n| wildcard_match(&n[1..], name));
        let removed = |name: &str| patterns.iter().any(|p| wildcard_match(p, name)) && !kept_back(name);
        let names = default.iter().copied().filter(|name| !removed(name)).collect();
        return Assembled { names, left_out: LeftOut::default() };
    }
    let mut unsupported = Vec::new();
    let mut listed = Vec::new();
    for pattern in &patterns {
        let before = listed.len();
        listed.extend(supported.iter().copied().filter(|name| wildcard_match(pattern, name)));
        if listed.len() == before {
            unsupported.push((*pattern).to_owned());
        }
    }
    let ordered: Vec<&'a str> = match mode {
        b'+' => default.iter().copied().chain(listed).collect(),
        b'^' => listed.into_iter().chain(default.iter().copied()).collect(),
        _ => listed,
    };
    let mut names: Vec<&'a str> = Vec::with_capacity(ordered.len());
    for name in ordered {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    let negated = negated.into_iter().map(str::to_owned).collect();
    Assembled { names, left_out: LeftOut { unsupported, negated } }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUPPORTED: &[&str] =
        &["mlkem768x25519-sha256", "curve25519-sha256", "diffie-hellman-group14-sha1", "ecdh-sha2-nistp256"];
    const DEFAULT: &[&str] = &["mlkem768x25519-sha256", "curve25519-sha256"];

    fn names(list: &str) -> Vec<&'static str> {
        assemble(list, DEFAULT, SUPPORTED).names
    }

    #[test]
    fn a_list_replaces_the_default_in_its_own_order() {
        assert_eq!(names("curve25519-sha256,mlkem768x25519-sha256"), ["curve25519-sha256", "mlkem768x25519-sha256"]);
        assert_eq!(names("curve25519-sha256,,ecdh-sha2-nistp256"), ["curve25519-sha256", "ecdh-sha2-nistp256"]);
        let spaced = assemble("curve25519-sha256, ecdh-sha2-nistp256", DEFAULT, SUPPORTED);
        assert_eq!(spaced.names, ["curve25519-sha256"], "a name is not trimmed, as in ssh");
        assert_eq!(spaced.left_out.unsupported, [" ecdh-sha2-nistp256"]);
    }

    #[test]
    fn plus_appends_minus_removes_caret_puts_first() {
        assert_eq!(
            names("+diffie-hellman-group14-sha1"),
            ["mlkem768x25519-sha256", "curve25519-sha256", "diffie-hellman-group14-sha1"]
        );
        assert_eq!(names("-mlkem*"), ["curve25519-sha256"]);
        assert_eq!(names("^curve25519-sha256"), ["curve25519-sha256", "mlkem768x25519-sha256"]);
        assert_eq!(names("+curve25519-sha256"), DEFAULT, "a name already offered is offered once, where it was");
        assert!(names("-*").is_empty());
    }

    #[test]
    fn patterns_expand_in_the_supported_order_and_match_case() {
        assert_eq!(names("*25519*"), ["mlkem768x25519-sha256", "curve25519-sha256"]);
        assert_eq!(names("ecdh-sha2-nistp???"), ["ecdh-sha2-nistp256"]);
        assert!(names("CURVE25519-SHA256").is_empty(), "algorithm names are case-sensitive, as in ssh");
    }

    #[test]
    fn names_matching_nothing_supported_are_reported_not_offered() {
        let made = assemble("sntrup761x25519-sha512@openssh.com,curve25519-sha256,x*", DEFAULT, SUPPORTED);
        assert_eq!(made.names, ["curve25519-sha256"]);
        assert_eq!(made.left_out.unsupported, ["sntrup761x25519-sha512@openssh.com", "x*"]);
        let removed = assemble("-sntrup761x25519-sha512@openssh.com", DEFAULT, SUPPORTED);
        assert_eq!(removed.names, DEFAULT);
        assert!(removed.left_out.unsupported.is_empty(), "removing what is not offered asks nothing");
    }

    #[test]
    fn a_negation_keeps_names_back_from_a_removal_and_is_refused_elsewhere() {
        assert_eq!(names("-*,!curve*"), ["curve25519-sha256"], "in any order");
        assert_eq!(names("-!curve*,*"), ["curve25519-sha256"]);
        assert_eq!(names("-!curve*"), DEFAULT, "a negation alone removes nothing");
        let made = assemble("^!mlkem*,curve25519-sha256", DEFAULT, SUPPORTED);
        assert_eq!(made.names, ["curve25519-sha256", "mlkem768x25519-sha256"]);
        assert_eq!(made.left_out.negated, ["!mlkem*"]);
        assert!(made.left_out.unsupported.is_empty());
    }

    #[test]
    fn keywords_in_any_case() {
        assert_eq!(AlgorithmKind::from_keyword("kexalgorithms"), Some(AlgorithmKind::Kex));
        assert_eq!(AlgorithmKind::from_keyword("macs"), Some(AlgorithmKind::Macs));
        assert_eq!(AlgorithmKind::from_keyword("hostkeyalgorithms"), Some(AlgorithmKind::HostKeys));
        assert_eq!(AlgorithmKind::from_keyword("pubkeyacceptedalgorithms"), None);
    }
}
