//! OpenSSH known_hosts, checked the way `ssh` checks it.
//!
//! russh's own check misses wildcards, tab separators, negation, `@revoked` and `@cert-authority`
//! (see crates.md), so the file is parsed here: each line is `[marker] patterns keytype base64`,
//! patterns are comma separated, may be `[host]:port`, globs with `*`/`?`, negated with `!`, or a
//! single hashed name `|1|salt|hash` (HMAC-SHA1 of the host name keyed with the salt).

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, KeyInit, Mac};
use russh::keys::PublicKey;
use sha1::Sha1;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The verdict on a server's host key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostKeyStatus {
    /// The key is listed for this host.
    Trusted,
    /// The key is marked `@revoked`.
    Revoked,
    /// The host is listed with other keys of the same type: a changed key, possibly an attack.
    Changed {
        /// Where the listed key is (`file:line`).
        listed_at: String,
    },
    /// The host is not listed with a key of this type.
    Unknown,
}

/// One usable line of a known_hosts file.
#[derive(Debug, Clone)]
struct Entry {
    revoked: bool,
    patterns: Patterns,
    key: PublicKey,
    source: String,
}

#[derive(Debug, Clone)]
enum Patterns {
    List(Vec<String>),
    Hashed { salt: Vec<u8>, hash: Vec<u8> },
}

/// The entries of one or more known_hosts files.
#[derive(Debug, Clone, Default)]
pub struct KnownHosts {
    entries: Vec<Entry>,
    /// Entries by each plain name they list (lowercased), so that checking a host reads its own
    /// lines, not the whole file: with one line per host, reading every line for every host made
    /// an audit quadratic in its hosts.
    by_name: HashMap<String, Vec<usize>>,
    /// Entries every host must be tried against: hashed names, wildcard patterns.
    tried_for_all: Vec<usize>,
    /// Lines that could not be read, as `file:line: reason` (ssh skips them too).
    pub skipped: Vec<String>,
}

impl KnownHosts {
    /// Reads every file that exists; a missing file is an empty one (as for ssh).
    pub fn load(files: &[PathBuf]) -> std::io::Result<KnownHosts> {
        let mut kh = KnownHosts::default();
        for file in files {
            match std::fs::read_to_string(file) {
                Ok(text) => kh.add(&text, file),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    return Err(std::io::Error::new(e.kind(), format!("{}: {e}", file.display())));
                }
            }
        }
        Ok(kh)
    }

    /// Adds the lines of one file.
    pub fn add(&mut self, text: &str, file: &Path) {
        for (i, line) in text.lines().enumerate() {
            let source = format!("{}:{}", file.display(), i + 1);
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            match parse_line(line) {
                Ok(Some((revoked, patterns, key))) => {
                    self.index(self.entries.len(), &patterns);
                    self.entries.push(Entry { revoked, patterns, key, source });
                }
                Ok(None) => {}
                Err(reason) => self.skipped.push(format!("{source}: {reason}")),
            }
        }
    }

    /// Files entry `i` under the plain names it lists, or with the entries tried for every host.
    /// A negated pattern only ever excludes, so it does not decide where an entry is filed.
    fn index(&mut self, i: usize, patterns: &Patterns) {
        match patterns {
            Patterns::List(list) if !list.iter().any(|p| !p.starts_with('!') && p.contains(['*', '?'])) => {
                for p in list.iter().filter(|p| !p.starts_with('!')) {
                    self.by_name.entry(p.to_lowercase()).or_default().push(i);
                }
            }
            _ => self.tried_for_all.push(i),
        }
    }

    /// Checks `key` presented by `host` on `port` (22 is written without brackets, as ssh does).
    pub fn check(&self, host: &str, port: u16, key: &PublicKey) -> HostKeyStatus {
        let name = lookup_name(host, port);
        let mut candidates: Vec<usize> = self.by_name.get(&name.to_lowercase()).cloned().unwrap_or_default();
        candidates.extend(&self.tried_for_all);
        // File order: the first listed key is the one a changed key is reported against.
        candidates.sort_unstable();
        candidates.dedup();
        let matching: Vec<&Entry> =
            candidates.iter().map(|&i| &self.entries[i]).filter(|e| e.patterns.matches(&name)).collect();
        if matching.iter().any(|e| e.revoked && e.key.key_data() == key.key_data()) {
            return HostKeyStatus::Revoked;
        }
        if matching.iter().any(|e| !e.revoked && e.key.key_data() == key.key_data()) {
            return HostKeyStatus::Trusted;
        }
        match matching.iter().find(|e| !e.revoked && e.key.algorithm() == key.algorithm()) {
            Some(e) => HostKeyStatus::Changed { listed_at: e.source.clone() },
            None => HostKeyStatus::Unknown,
        }
    }
}

/// The name ssh looks up: `host`, or `[host]:port` off port 22.
pub fn lookup_name(host: &str, port: u16) -> String {
    if port == 22 { host.to_string() } else { format!("[{host}]:{port}") }
}

/// The line `--accept-new-hostkeys` appends for a host seen for the first time.
pub fn entry_line(host: &str, port: u16, key: &PublicKey) -> Option<String> {
    let openssh = key.to_openssh().ok()?;
    Some(format!("{} {openssh}", lookup_name(host, port)))
}

type ParsedLine = (bool, Patterns, PublicKey);

fn parse_line(line: &str) -> Result<Option<ParsedLine>, String> {
    let mut fields = line.split_whitespace();
    let mut first = fields.next().ok_or("empty line")?;
    let mut revoked = false;
    if let Some(marker) = first.strip_prefix('@') {
        match marker {
            "revoked" => revoked = true,
            // Certificate authorities sign host certificates; fabcheck checks plain keys only.
            "cert-authority" => return Ok(None),
            other => return Err(format!("unknown marker @{other}")),
        }
        first = fields.next().ok_or("marker without host patterns")?;
    }
    let patterns = parse_patterns(first)?;
    let key_type = fields.next().ok_or("no key type")?;
    let key_data = fields.next().ok_or("no key")?;
    let key = PublicKey::from_openssh(&format!("{key_type} {key_data}")).map_err(|e| format!("bad key: {e}"))?;
    Ok(Some((revoked, patterns, key)))
}

fn parse_patterns(field: &str) -> Result<Patterns, String> {
    if let Some(rest) = field.strip_prefix("|1|") {
        let (salt, hash) = rest.split_once('|').ok_or("bad hashed host name")?;
        let salt = STANDARD.decode(salt).map_err(|_| "bad salt in hashed host name")?;
        let hash = STANDARD.decode(hash).map_err(|_| "bad hash in hashed host name")?;
        return Ok(Patterns::Hashed { salt, hash });
    }
    Ok(Patterns::List(field.split(',').filter(|p| !p.is_empty()).map(str::to_string).collect()))
}

impl Patterns {
    /// ssh's rule: a negated pattern that matches excludes the host; otherwise any positive match.
    fn matches(&self, name: &str) -> bool {
        match self {
            Patterns::Hashed { salt, hash } => {
                let Ok(mut mac) = Hmac::<Sha1>::new_from_slice(salt) else {
                    return false;
                };
                mac.update(name.as_bytes());
                mac.verify_slice(hash).is_ok()
            }
            Patterns::List(list) => {
                let mut positive = false;
                for p in list {
                    if let Some(neg) = p.strip_prefix('!') {
                        if glob(neg, name) {
                            return false;
                        }
                    } else if glob(p, name) {
                        positive = true;
                    }
                }
                positive
            }
        }
    }
}

/// Case-insensitive glob with `*` and `?`, as ssh's `match_pattern`.
pub fn glob(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.to_lowercase().chars().collect();
    let t: Vec<char> = text.to_lowercase().chars().collect();
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    const ED: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl";
    const ED2: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILM+rvN+ot98qgEN796jTiQfZfG1KaT0PtFDJ/XFSqti";

    fn key(s: &str) -> PublicKey {
        PublicKey::from_openssh(s).unwrap()
    }

    fn kh(text: &str) -> KnownHosts {
        let mut k = KnownHosts::default();
        k.add(text, Path::new("known_hosts"));
        k
    }

    #[test]
    fn plain_bracketed_and_tab_separated_entries() {
        let k = kh(&format!("gpu01,10.0.0.1 {ED}\n[10.0.0.2]:2222\t{}\n", ED.replace(' ', "\t")));
        assert_eq!(k.check("gpu01", 22, &key(ED)), HostKeyStatus::Trusted);
        assert_eq!(k.check("10.0.0.1", 22, &key(ED)), HostKeyStatus::Trusted);
        assert_eq!(k.check("10.0.0.2", 2222, &key(ED)), HostKeyStatus::Trusted);
        assert_eq!(k.check("10.0.0.2", 22, &key(ED)), HostKeyStatus::Unknown);
        assert_eq!(k.check("gpu02", 22, &key(ED)), HostKeyStatus::Unknown);
    }

    #[test]
    fn a_changed_key_is_reported_with_where_the_old_one_is() {
        let k = kh(&format!("# comment\ngpu01 {ED}\n"));
        assert_eq!(k.check("gpu01", 22, &key(ED2)), HostKeyStatus::Changed { listed_at: "known_hosts:2".into() });
    }

    #[test]
    fn wildcards_and_negation() {
        let k = kh(&format!("gpu*,!gpu13 {ED}\n"));
        assert_eq!(k.check("gpu07", 22, &key(ED)), HostKeyStatus::Trusted);
        assert_eq!(k.check("GPU07", 22, &key(ED)), HostKeyStatus::Trusted);
        assert_eq!(k.check("gpu13", 22, &key(ED)), HostKeyStatus::Unknown);
        assert_eq!(k.check("leaf1", 22, &key(ED)), HostKeyStatus::Unknown);
        assert!(glob("g?u*1", "gpu001"));
        assert!(!glob("g?u*2", "gpu001"));
    }

    #[test]
    fn revoked_keys_are_refused_even_when_also_listed() {
        let k = kh(&format!("@revoked * {ED}\ngpu01 {ED}\n"));
        assert_eq!(k.check("gpu01", 22, &key(ED)), HostKeyStatus::Revoked);
    }

    #[test]
    fn hashed_names_match_only_their_host() {
        // Written by `ssh-keygen -H` for "gpu01": HMAC-SHA1(salt, "gpu01").
        let salt = b"0123456789abcdefghij";
        let mut mac = Hmac::<Sha1>::new_from_slice(salt).unwrap();
        mac.update(b"gpu01");
        let hash = mac.finalize().into_bytes();
        let line = format!("|1|{}|{} {ED}", STANDARD.encode(salt), STANDARD.encode(hash));
        let k = kh(&line);
        assert_eq!(k.check("gpu01", 22, &key(ED)), HostKeyStatus::Trusted);
        assert_eq!(k.check("gpu02", 22, &key(ED)), HostKeyStatus::Unknown);
    }

    #[test]
    fn bad_lines_are_skipped_and_named() {
        let k = kh(&format!("gpu01 ssh-ed25519 !!!notbase64\n@bogus gpu02 {ED}\ngpu03 {ED}\n"));
        assert_eq!(k.skipped.len(), 2);
        assert!(k.skipped[0].starts_with("known_hosts:1: bad key"));
        assert!(k.skipped[1].contains("unknown marker @bogus"));
        assert_eq!(k.check("gpu03", 22, &key(ED)), HostKeyStatus::Trusted);
    }

    #[test]
    fn indexed_names_keep_ssh_rules_and_file_order() {
        let text = format!("gpu0* {ED2}\nGPU01 {ED}\ngpu02,!gpu02 {ED}\n[gpu03]:2222 {ED}\n");
        let k = kh(&text);
        assert_eq!(k.check("gpu01", 22, &key(ED)), HostKeyStatus::Trusted, "names match case-insensitively");
        assert_eq!(k.check("gpu02", 22, &key(ED)), HostKeyStatus::Changed { listed_at: "known_hosts:1".into() });
        assert_eq!(k.check("gpu03", 2222, &key(ED)), HostKeyStatus::Trusted);
        assert_eq!(k.check("gpu04", 22, &key(ED)), HostKeyStatus::Changed { listed_at: "known_hosts:1".into() });
        let many: String = (0..5000).map(|i| format!("gpu{i:05} {ED}\n")).collect();
        let k = kh(&many);
        assert_eq!(k.tried_for_all.len(), 0, "plain names are all indexed");
        assert_eq!(k.check("gpu04999", 22, &key(ED)), HostKeyStatus::Trusted);
        assert_eq!(k.check("gpu05000", 22, &key(ED)), HostKeyStatus::Unknown);
    }
}
