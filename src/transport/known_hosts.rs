//! OpenSSH known_hosts, checked the way `ssh` checks it (`check_host_key` in sshconnect.c,
//! `check_hostkeys_by_key_or_type` in hostfile.c).
//!
//! russh's own check misses wildcards, tab separators, negation, `@revoked` and
//! `@cert-authority`, so the file is parsed here: each line is `[marker] patterns keytype base64`,
//! patterns are comma separated, may be `[host]:port`, globs with `*`/`?`, negated with `!`, or a
//! single hashed name `|1|salt|hash` (HMAC-SHA1 of the host name keyed with the salt).
//!
//! Every file a run reads is read once, into one [`KnownHosts`]; each device looks through a
//! [`View`] of its own files, in its order (its user files, then the global ones), as if they
//! were one file, which is how ssh reads them. A host is looked up as `host`, or `[host]:port`
//! off port 22, and then, when nothing names it so, by its bare name too (accepting only a match
//! there, as ssh does). Host names are compared in lower case, as ssh lowercases them.

use super::host_certificate;
use super::known_hosts_command::CommandKeys;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, KeyInit, Mac};
use russh::keys::ssh_key::public::KeyData;
use russh::keys::{Algorithm, Certificate, PublicKey};
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
    /// The host is listed with other keys (of any type, as for ssh): a changed key, possibly an
    /// attack.
    Changed {
        /// Where the first key listed for it is (`file:line`).
        listed_at: String,
    },
    /// The host is not listed.
    Unknown,
}

/// The verdict on a server's host certificate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CertificateStatus {
    /// Signed by an authority listed for the host, and valid for it now.
    Trusted,
    /// Its key or its authority is `@revoked`: refused, and its key is not tried alone.
    Revoked(String),
    /// Its signer is not an authority listed for the host: its key is judged as a plain key.
    NoAuthority,
    /// Signed by a listed authority but not valid for this host now (another host's, expired,
    /// signed with SHA-1...): its key is judged as a plain key, as ssh does, and why the
    /// certificate was not enough is kept for the error.
    Invalid(String),
}

/// What is listed for a host that decides what a connection asks it for, as ssh decides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// An `@cert-authority` is listed for it: ask for a certificate first (a server with one
    /// presents it in place of its plain key).
    pub authority: bool,
    /// The types of its keys, first listed first: ask for these first, so that a host listed
    /// with one type is not met with another (ssh's `order_hostkeyalgs`).
    pub key_types: Vec<Algorithm>,
}

/// What the marker of a line makes of its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Marker {
    /// No marker: a host key.
    HostKey,
    /// `@revoked`: never to be accepted, as a host key or as a certificate's authority.
    Revoked,
    /// `@cert-authority`: signs the host certificates of the hosts the line names.
    CertAuthority,
}

/// One usable line of a known_hosts file.
#[derive(Debug, Clone)]
struct Entry {
    file: FileId,
    marker: Marker,
    patterns: Patterns,
    key: PublicKey,
    source: String,
}

#[derive(Debug, Clone)]
enum Patterns {
    List(Vec<String>),
    Hashed { salt: Vec<u8>, hash: Vec<u8> },
}

/// A file read into a [`KnownHosts`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(usize);

/// The entries of the known_hosts files read so far.
#[derive(Debug, Clone, Default)]
pub struct KnownHosts {
    files: Vec<PathBuf>,
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
    /// The file at `path`, read now unless it was already; a missing file is an empty one.
    pub fn read(&mut self, path: &Path) -> std::io::Result<FileId> {
        if let Some(id) = self.id_of(path) {
            return Ok(id);
        }
        // Bytes, as ssh reads them: a line that is not UTF-8 is a line skipped, not a failed run.
        match std::fs::read(path) {
            Ok(bytes) => Ok(self.add(&String::from_utf8_lossy(&bytes), path)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(self.file(path)),
            Err(e) => Err(std::io::Error::new(e.kind(), format!("{}: {e}", path.display()))),
        }
    }

    /// Adds the lines of `text` as the lines of `file` (once per file: for tests and fuzzing,
    /// which have no file on disk).
    pub fn add(&mut self, text: &str, file: &Path) -> FileId {
        let id = self.file(file);
        for (i, line) in text.lines().enumerate() {
            let source = format!("{}:{}", file.display(), i + 1);
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Err(reason) = self.push(id, line, &source) {
                self.skipped.push(format!("{source}: {reason}"));
            }
        }
        id
    }

    /// Adds `line`, just appended to the file `id` by this run (a key accepted as new), so that
    /// the devices that read that file trust it from now on. The line is fabcheck's own.
    pub fn record(&mut self, id: FileId, line: &str) {
        let source = format!("{} (recorded by this run)", self.path(id).display());
        let _ = self.push(id, line, &source);
    }

    /// Parses `line` of the file `id` and files its entry.
    fn push(&mut self, id: FileId, line: &str, source: &str) -> Result<(), String> {
        let (marker, patterns, key) = parse_line(line)?;
        self.index(self.entries.len(), &patterns);
        self.entries.push(Entry { file: id, marker, patterns, key, source: source.to_string() });
        Ok(())
    }

    /// The path a file was read from.
    pub fn path(&self, id: FileId) -> &Path {
        &self.files[id.0]
    }

    /// Every file read, in the order read: for one list of files, the view ssh has of them.
    pub fn all(&self) -> View<'_> {
        View { known: self, files: (0..self.files.len()).map(FileId).collect(), command: None }
    }

    /// The entries of `files` only, in that order, as one file.
    pub fn view(&self, files: &[FileId]) -> View<'_> {
        View { known: self, files: files.to_vec(), command: None }
    }

    fn id_of(&self, path: &Path) -> Option<FileId> {
        self.files.iter().position(|f| f == path).map(FileId)
    }

    fn file(&mut self, path: &Path) -> FileId {
        self.id_of(path).unwrap_or_else(|| {
            self.files.push(path.to_path_buf());
            FileId(self.files.len() - 1)
        })
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
}

/// Some files of a [`KnownHosts`], in order: what one device's key is checked against.
#[derive(Debug, Clone)]
pub struct View<'a> {
    known: &'a KnownHosts,
    files: Vec<FileId>,
    /// What `KnownHostsCommand` printed for the host, read after the files.
    command: Option<&'a CommandKeys>,
}

impl<'a> View<'a> {
    /// This view with what `KnownHostsCommand` printed after its files, as ssh loads them (for
    /// the name it was asked for only: ssh does not ask it for a port's bare name).
    pub(crate) fn with_command(mut self, command: Option<&'a CommandKeys>) -> View<'a> {
        self.command = command;
        self
    }

    /// Checks `key` presented by the host `at` names. Off port 22, a host that nothing names as
    /// `[host]:port` is looked up by its bare name too, as ssh does, where only a match or a
    /// revocation counts (another key listed there is no proof of a change).
    pub fn check(&self, at: &Lookup, key: &PublicKey) -> HostKeyStatus {
        let status = self.check_name(&at.name, key);
        match (&status, &at.bare) {
            (HostKeyStatus::Unknown, Some(bare)) => match self.check_name(bare, key) {
                found @ (HostKeyStatus::Trusted | HostKeyStatus::Revoked) => found,
                _ => status,
            },
            _ => status,
        }
    }

    /// What is listed for the host `at` names that decides what to ask it for, from one pass
    /// over its lines (a hashed file costs an HMAC per line per pass): the key types are those
    /// of the name its keys are checked by, as ssh's `order_hostkeyalgs`.
    pub fn listed(&self, at: &Lookup) -> Listed {
        let mut listed = Listed { authority: false, key_types: Vec::new() };
        for name in at.names() {
            let mut types = Vec::new();
            for e in self.matching(name) {
                match e.marker {
                    Marker::CertAuthority => listed.authority = true,
                    Marker::HostKey if !types.contains(&e.key.algorithm()) => types.push(e.key.algorithm()),
                    _ => {}
                }
            }
            if listed.key_types.is_empty() {
                listed.key_types = types;
            }
        }
        listed
    }

    /// Judges `certificate` presented by the host `at` names, at `now` (seconds since 1970),
    /// signed with one of `signatures` (ssh_config's `CASignatureAlgorithms`).
    pub fn check_certificate(
        &self,
        at: &Lookup,
        certificate: &Certificate,
        signatures: Option<&str>,
        now: u64,
    ) -> CertificateStatus {
        // Revoked under any of its names is revoked, whichever name an authority is listed by.
        let matching: Vec<Vec<&Entry>> = at.names().map(|name| self.matching(name)).collect();
        let revoked =
            |key: &KeyData| matching.iter().flatten().any(|e| e.marker == Marker::Revoked && e.key.key_data() == key);
        if revoked(certificate.public_key()) {
            return CertificateStatus::Revoked("its key is @revoked".into());
        }
        if revoked(certificate.signature_key()) {
            return CertificateStatus::Revoked("its certificate authority is @revoked".into());
        }
        let signer = matching
            .iter()
            .flatten()
            .find(|e| e.marker == Marker::CertAuthority && e.key.key_data() == certificate.signature_key());
        if let Some(signer) = signer {
            return match host_certificate::judge(certificate, &signer.key, &at.principal, signatures, now) {
                Ok(()) => CertificateStatus::Trusted,
                Err(why) => CertificateStatus::Invalid(format!(
                    "its certificate, signed by the authority at {}, {why}",
                    signer.source
                )),
            };
        }
        CertificateStatus::NoAuthority
    }

    /// The files this view reads, as a list for messages.
    pub fn describe(&self) -> String {
        let mut paths: Vec<String> = self.files.iter().map(|&f| self.known.path(f).display().to_string()).collect();
        if let Some(command) = self.command {
            paths.push(match &command.unstarted {
                Some(why) => format!("KnownHostsCommand, which gave nothing ({why})"),
                None => "KnownHostsCommand".into(),
            });
        }
        if paths.is_empty() { "no known_hosts file".into() } else { paths.join(", ") }
    }

    fn check_name(&self, name: &str, key: &PublicKey) -> HostKeyStatus {
        let matching = self.matching(name);
        if matching.iter().any(|e| e.marker == Marker::Revoked && e.key.key_data() == key.key_data()) {
            return HostKeyStatus::Revoked;
        }
        let host_keys = || matching.iter().filter(|e| e.marker == Marker::HostKey);
        if host_keys().any(|e| e.key.key_data() == key.key_data()) {
            return HostKeyStatus::Trusted;
        }
        // ssh's "Offending key" is the last one listed (`check_hostkeys_by_key_or_type`).
        match host_keys().next_back() {
            Some(e) => HostKeyStatus::Changed { listed_at: e.source.clone() },
            None => HostKeyStatus::Unknown,
        }
    }

    /// The lines of this view's files that name `name`, file by file in the view's order, and in
    /// file order within each (the last listed key is the one a changed key is reported against).
    fn matching(&self, name: &str) -> Vec<&'a Entry> {
        let known = self.known;
        let mut candidates: Vec<usize> = known.by_name.get(name).cloned().unwrap_or_default();
        candidates.extend(&known.tried_for_all);
        let rank = |i: usize| self.files.iter().position(|&f| f == known.entries[i].file);
        let mut ranked: Vec<(usize, usize)> = candidates.into_iter().filter_map(|i| rank(i).map(|r| (r, i))).collect();
        ranked.sort_unstable();
        ranked.dedup();
        let mut found: Vec<&'a Entry> =
            ranked.into_iter().map(|(_, i)| &known.entries[i]).filter(|e| e.patterns.matches(name)).collect();
        if let Some(command) = self.command.filter(|c| c.name == name) {
            found.extend(command.known.all().matching(name));
        }
        found
    }
}

/// How ssh looks a host up in known_hosts (`check_host_key` in sshconnect.c).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lookup {
    /// The name its lines are looked up and recorded by, in lower case: ssh_config's
    /// `HostKeyAlias`, else `host`, or `[host]:port` off port 22.
    pub name: String,
    /// Its bare name, looked up when nothing names `name` (off port 22, without an alias).
    pub bare: Option<String>,
    /// What a certificate's principals must name: the alias, else the host, in lower case.
    pub principal: String,
}

impl Lookup {
    /// `host` reached on `port`, under `alias` if ssh_config gives one.
    pub fn new(host: &str, port: u16, alias: Option<&str>) -> Lookup {
        let host = host.to_lowercase();
        match alias {
            // ssh lower-cases the alias (ssh.c) before a certificate's principals are compared with it.
            Some(alias) => Lookup { name: alias.to_lowercase(), bare: None, principal: alias.to_lowercase() },
            None if port == 22 => Lookup { name: host.clone(), bare: None, principal: host },
            None => Lookup { name: format!("[{host}]:{port}"), bare: Some(host.clone()), principal: host },
        }
    }

    fn names(&self) -> impl Iterator<Item = &String> {
        std::iter::once(&self.name).chain(&self.bare)
    }

    /// The line recorded for a host seen for the first time, as ssh writes it; `None` when its
    /// name holds a character ssh will not record (`*?[]#@|'"\`, a comma or a space would make
    /// the line name other hosts, or none).
    pub fn entry_line(&self, key: &PublicKey) -> Option<String> {
        let host = self.bare.as_deref().unwrap_or(&self.name);
        if host.chars().any(|c| "*?[]#@|'\"\\,".contains(c) || c.is_whitespace()) {
            return None;
        }
        let openssh = key.to_openssh().ok()?;
        Some(format!("{} {openssh}", self.name))
    }
}

type ParsedLine = (Marker, Patterns, PublicKey);

fn parse_line(line: &str) -> Result<ParsedLine, String> {
    let mut fields = line.split_whitespace();
    let mut first = fields.next().ok_or("empty line")?;
    let mut marker = Marker::HostKey;
    if let Some(name) = first.strip_prefix('@') {
        marker = match name {
            "revoked" => Marker::Revoked,
            "cert-authority" => Marker::CertAuthority,
            other => return Err(format!("unknown marker @{other}")),
        };
        first = fields.next().ok_or("marker without host patterns")?;
    }
    let patterns = parse_patterns(first)?;
    let key_type = fields.next().ok_or("no key type")?;
    let key_data = fields.next().ok_or("no key")?;
    let key = PublicKey::from_openssh(&format!("{key_type} {key_data}")).map_err(|e| format!("bad key: {e}"))?;
    Ok((marker, patterns, key))
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

/// Case-insensitive glob with `*` and `?`, as ssh matches host names (`match_hostname`).
pub fn glob(pattern: &str, text: &str) -> bool {
    glob_exact(&pattern.to_lowercase(), &text.to_lowercase())
}

/// Case-sensitive glob with `*` and `?`, as ssh's `match_pattern` (a certificate's principals):
/// the inventory's matcher, which `--limit` and ssh_config `Host` patterns use too.
pub fn glob_exact(pattern: &str, text: &str) -> bool {
    fabcheck_inventory::wildcard_match(pattern, text)
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
        assert_eq!(k.all().check(&at("gpu01", 22), &key(ED)), HostKeyStatus::Trusted);
        assert_eq!(k.all().check(&at("10.0.0.1", 22), &key(ED)), HostKeyStatus::Trusted);
        assert_eq!(k.all().check(&at("10.0.0.2", 2222), &key(ED)), HostKeyStatus::Trusted);
        assert_eq!(k.all().check(&at("10.0.0.2", 22), &key(ED)), HostKeyStatus::Unknown);
        assert_eq!(k.all().check(&at("gpu02", 22), &key(ED)), HostKeyStatus::Unknown);
    }

    #[test]
    fn a_changed_key_is_reported_with_where_the_old_one_is() {
        let k = kh(&format!("# comment\ngpu01 {ED}\n"));
        assert_eq!(
            k.all().check(&at("gpu01", 22), &key(ED2)),
            HostKeyStatus::Changed { listed_at: "known_hosts:2".into() }
        );
    }

    #[test]
    fn wildcards_and_negation() {
        let k = kh(&format!("gpu*,!gpu13 {ED}\n"));
        assert_eq!(k.all().check(&at("gpu07", 22), &key(ED)), HostKeyStatus::Trusted);
        assert_eq!(k.all().check(&at("GPU07", 22), &key(ED)), HostKeyStatus::Trusted);
        assert_eq!(k.all().check(&at("gpu13", 22), &key(ED)), HostKeyStatus::Unknown);
        assert_eq!(k.all().check(&at("leaf1", 22), &key(ED)), HostKeyStatus::Unknown);
        assert!(glob("g?u*1", "gpu001"));
        assert!(!glob("g?u*2", "gpu001"));
    }

    #[test]
    fn revoked_keys_are_refused_even_when_also_listed() {
        let k = kh(&format!("@revoked * {ED}\ngpu01 {ED}\n"));
        assert_eq!(k.all().check(&at("gpu01", 22), &key(ED)), HostKeyStatus::Revoked);
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
        assert_eq!(k.all().check(&at("gpu01", 22), &key(ED)), HostKeyStatus::Trusted);
        assert_eq!(k.all().check(&at("gpu02", 22), &key(ED)), HostKeyStatus::Unknown);
    }

    #[test]
    fn bad_lines_are_skipped_and_named() {
        let k = kh(&format!("gpu01 ssh-ed25519 !!!notbase64\n@bogus gpu02 {ED}\ngpu03 {ED}\n"));
        assert_eq!(k.skipped.len(), 2);
        assert!(k.skipped[0].starts_with("known_hosts:1: bad key"));
        assert!(k.skipped[1].contains("unknown marker @bogus"));
        assert_eq!(k.all().check(&at("gpu03", 22), &key(ED)), HostKeyStatus::Trusted);
    }

    #[test]
    fn indexed_names_keep_ssh_rules_and_file_order() {
        let text = format!("gpu0* {ED2}\nGPU01 {ED}\ngpu02,!gpu02 {ED}\n[gpu03]:2222 {ED}\n");
        let k = kh(&text);
        assert_eq!(k.all().check(&at("gpu01", 22), &key(ED)), HostKeyStatus::Trusted, "names match case-insensitively");
        assert_eq!(
            k.all().check(&at("gpu02", 22), &key(ED)),
            HostKeyStatus::Changed { listed_at: "known_hosts:1".into() }
        );
        assert_eq!(k.all().check(&at("gpu03", 2222), &key(ED)), HostKeyStatus::Trusted);
        assert_eq!(
            k.all().check(&at("gpu04", 22), &key(ED)),
            HostKeyStatus::Changed { listed_at: "known_hosts:1".into() }
        );
        let many: String = (0..5000).map(|i| format!("gpu{i:05} {ED}\n")).collect();
        let k = kh(&many);
        assert_eq!(k.tried_for_all.len(), 0, "plain names are all indexed");
        assert_eq!(k.all().check(&at("gpu04999", 22), &key(ED)), HostKeyStatus::Trusted);
        assert_eq!(k.all().check(&at("gpu05000", 22), &key(ED)), HostKeyStatus::Unknown);
    }

    use super::super::host_certificate::made_by_ssh_keygen::Signer;

    /// `host` on `port`, without an alias.
    fn at(host: &str, port: u16) -> Lookup {
        Lookup::new(host, port, None)
    }

    fn now() -> u64 {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs()
    }

    #[test]
    fn a_certificate_is_trusted_through_an_authority_listed_for_its_host() {
        let s = Signer::new();
        let k = kh(&format!("@cert-authority gpu*,10.0.0.* {}\n", s.public("ca")));
        let cert = s.sign("ca", &["-h", "-n", "gpu01,10.0.0.*"]);
        assert_eq!(k.all().check_certificate(&at("gpu01", 22), &cert, None, now()), CertificateStatus::Trusted);
        assert_eq!(
            k.all().check_certificate(&at("GPU01", 22), &cert, None, now()),
            CertificateStatus::Trusted,
            "ssh lowercases"
        );
        assert_eq!(k.all().check_certificate(&at("10.0.0.7", 22), &cert, None, now()), CertificateStatus::Trusted);
        assert_eq!(
            k.all().check_certificate(&at("gpu01", 2222), &cert, None, now()),
            CertificateStatus::Trusted,
            "nothing names `[gpu01]:2222`, so the bare name is looked up, as ssh does"
        );
        let authority = Listed { authority: true, key_types: vec![] };
        assert_eq!(k.all().listed(&at("gpu01", 22)), authority, "the authority's key is no host key");
        assert_eq!(k.all().listed(&at("gpu01", 2222)), authority);
        assert!(!k.all().listed(&at("leaf1", 22)).authority);
        assert_eq!(k.all().check(&at("gpu01", 22), &key(&s.public("ca"))), HostKeyStatus::Unknown);

        // Not valid for the host: its key is to be judged alone, with the reason kept.
        match k.all().check_certificate(&at("gpu02", 22), &cert, None, now()) {
            CertificateStatus::Invalid(why) => assert_eq!(
                why,
                "its certificate, signed by the authority at known_hosts:1, is not for gpu02 (its principals: gpu01, 10.0.0.*)"
            ),
            other => panic!("{other:?}"),
        }
        // Signed by an authority not listed, or for a host it is not listed for: judged alone.
        let other = s.sign("other_ca", &["-h", "-n", "gpu01"]);
        assert_eq!(k.all().check_certificate(&at("gpu01", 22), &other, None, now()), CertificateStatus::NoAuthority);
        assert_eq!(k.all().check_certificate(&at("leaf1", 22), &cert, None, now()), CertificateStatus::NoAuthority);
    }

    #[test]
    fn a_revoked_authority_or_key_refuses_its_certificates() {
        let s = Signer::new();
        let cert = s.sign("ca", &["-h", "-n", "gpu01"]);
        let listed = format!("@cert-authority * {}\n", s.public("ca"));
        let k = kh(&format!("{listed}@revoked gpu* {}\n", s.public("ca")));
        assert_eq!(
            k.all().check_certificate(&at("gpu01", 22), &cert, None, now()),
            CertificateStatus::Revoked("its certificate authority is @revoked".into())
        );
        let k = kh(&format!("{listed}@revoked * {}\n", s.public("host")));
        assert_eq!(
            k.all().check_certificate(&at("gpu01", 22), &cert, None, now()),
            CertificateStatus::Revoked("its key is @revoked".into())
        );
    }

    #[test]
    fn a_host_listed_with_a_key_of_another_type_has_changed_as_for_ssh() {
        let ecdsa = "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBIb3BhJZk+vUQPg5TQc1koIzuGqloCq7wjr9LjlhG24IBeiFHLsdWw74HDlH4DrOmlxToVYk2lTdnjARleRByjk=";
        let k = kh(&format!("gpu01 {ecdsa}\n"));
        assert_eq!(
            k.all().check(&at("gpu01", 22), &key(ED)),
            HostKeyStatus::Changed { listed_at: "known_hosts:1".into() }
        );
        assert_eq!(k.all().listed(&at("gpu01", 22)).key_types, vec![key(ecdsa).algorithm()]);
    }

    #[test]
    fn off_port_22_the_bare_name_is_looked_up_only_to_trust() {
        let k = kh(&format!("gpu01 {ED}\n[gpu02]:2222 {ED2}\ngpu02 {ED}\n"));
        assert_eq!(k.all().check(&at("gpu01", 2222), &key(ED)), HostKeyStatus::Trusted);
        assert_eq!(
            k.all().check(&at("gpu01", 2222), &key(ED2)),
            HostKeyStatus::Unknown,
            "not `changed`: only a match counts"
        );
        assert_eq!(
            k.all().check(&at("gpu02", 2222), &key(ED)),
            HostKeyStatus::Changed { listed_at: "known_hosts:2".into() },
            "`[gpu02]:2222` names it: the bare name is not looked up"
        );
        assert_eq!(k.all().listed(&at("gpu01", 2222)).key_types, vec![key(ED).algorithm()]);
    }

    #[test]
    fn off_port_22_a_key_revoked_under_the_bare_name_stays_revoked() {
        let s = Signer::new();
        let k = kh(&format!(
            "@revoked gpu01 {ED}\n@revoked gpu02 {}\n@cert-authority * {}\n",
            s.public("host"),
            s.public("ca")
        ));
        assert_eq!(
            k.all().check(&at("gpu01", 2222), &key(ED)),
            HostKeyStatus::Revoked,
            "never Unknown, to be recorded"
        );
        let cert = s.sign("ca", &["-h", "-n", "gpu02"]);
        assert_eq!(
            k.all().check_certificate(&at("gpu02", 2222), &cert, None, now()),
            CertificateStatus::Revoked("its key is @revoked".into())
        );
    }

    #[test]
    fn a_host_key_alias_is_the_only_name_looked_up_and_the_principal() {
        let s = Signer::new();
        let k = kh(&format!(
            "cluster {ED}\n[10.0.0.1]:2222 {ED2}\n10.0.0.1 {ED2}\n@cert-authority cluster {}\n",
            s.public("ca")
        ));
        let aliased = Lookup::new("10.0.0.1", 2222, Some("Cluster"));
        assert_eq!(aliased.name, "cluster");
        assert_eq!(k.all().check(&aliased, &key(ED)), HostKeyStatus::Trusted);
        assert_eq!(k.all().check(&aliased, &key(ED2)), HostKeyStatus::Changed { listed_at: "known_hosts:1".into() });
        let cert = s.sign("ca", &["-h", "-n", "cluster"]);
        assert_eq!(k.all().check_certificate(&aliased, &cert, None, now()), CertificateStatus::Trusted);
        // ssh matches principals case-sensitively, against the alias in lower case: `Cluster` is not it.
        let upper = s.sign("ca", &["-h", "-n", "Cluster"]);
        let verdict = k.all().check_certificate(&aliased, &upper, None, now());
        assert!(matches!(&verdict, CertificateStatus::Invalid(why) if why.contains("cluster")), "{verdict:?}");
        assert_eq!(aliased.entry_line(&key(ED)), Some(format!("cluster {ED}")));
    }

    #[test]
    fn a_name_ssh_would_not_record_is_not_recorded() {
        assert_eq!(at("gpu01", 2222).entry_line(&key(ED)), Some(format!("[gpu01]:2222 {ED}")));
        assert_eq!(at("GPU01", 22).entry_line(&key(ED)), Some(format!("gpu01 {ED}")));
        for host in ["gpu*", "gpu?", "a,b", "a b", "!x@y", "[x]", "a|b", "#a", "a'b", "a\\b"] {
            assert_eq!(at(host, 22).entry_line(&key(ED)), None, "{host}");
        }
    }

    #[test]
    fn a_view_reads_its_own_files_in_its_order() {
        let mut k = KnownHosts::default();
        let a = k.add(&format!("gpu01 {ED}\n"), Path::new("a"));
        let b = k.add(&format!("gpu01 {ED2}\ngpu02 {ED2}\n"), Path::new("b"));
        assert_eq!(k.view(&[a]).check(&at("gpu02", 22), &key(ED2)), HostKeyStatus::Unknown, "b is not a's");
        assert_eq!(k.view(&[b, a]).check(&at("gpu01", 22), &key(ED)), HostKeyStatus::Trusted);
        let changed =
            |files: &[FileId]| k.view(files).check(&at("gpu01", 22), &key(ED.replace("OMqq", "OMqr").as_str()));
        assert_eq!(changed(&[b, a]), HostKeyStatus::Changed { listed_at: "a:1".into() }, "as ssh: the last listed");
        assert_eq!(changed(&[a, b]), HostKeyStatus::Changed { listed_at: "b:1".into() });
        k.record(a, &format!("gpu03 {ED}"));
        assert_eq!(k.view(&[a]).check(&at("gpu03", 22), &key(ED)), HostKeyStatus::Trusted, "recorded in a");
        assert_eq!(k.view(&[b]).check(&at("gpu03", 22), &key(ED)), HostKeyStatus::Unknown);
        assert_eq!(k.view(&[b, a]).describe(), "b, a");
    }

    /// OpenSSH's own test file for its known_hosts reader (tests/fixtures/known_hosts), read
    /// as ssh reads it: its keys, numbered as its generator numbers them.
    #[test]
    fn openssh_own_known_hosts_test_file_reads_as_ssh_reads_it() {
        let k = kh(include_str!("../../tests/fixtures/known_hosts/openssh-regress-hostkeys-known_hosts"));
        let ed = |n: u8| {
            let blob = match n {
                1 => "AAAAC3NzaC1lZDI1NTE5AAAAIK9ks7jkua5YWIwByRnnnc6UPJQWI75O0e/UJdPYU1JI",
                2 => "AAAAC3NzaC1lZDI1NTE5AAAAIIBp6PVW0z2o9C4Ukv/JOgmK7QMFe1pD1s3ADFF7IQob",
                3 => "AAAAC3NzaC1lZDI1NTE5AAAAIBlYfExtYZAPqYvYdrlpGlSWhh/XNHcH3v3c2JzsVNbB",
                4 => "AAAAC3NzaC1lZDI1NTE5AAAAIDFP8L9REfN/iYy1KIRtFqSCn3V2+vOCpoZYENFGLdOF",
                5 => "AAAAC3NzaC1lZDI1NTE5AAAAINf63qSV8rD57N+digID8t28WVhd3Yf2K2UhaoG8TsWQ",
                _ => "AAAAC3NzaC1lZDI1NTE5AAAAIPLW0ZwCkRQldpLa4I5BpwGa/om+WE6OgC8jdVqakt0Z",
            };
            key(&format!("ssh-ed25519 {blob}"))
        };
        let lines: Vec<&str> = k.skipped.iter().map(|s| s.split(": ").next().unwrap()).collect();
        let invalid: Vec<String> = (37..=42).map(|n| format!("known_hosts:{n}")).collect();
        assert_eq!(lines, invalid, "the six invalid lines, and only they: {:#?}", k.skipped);
        assert!(k.skipped[0].ends_with("unknown marker @what"), "{}", k.skipped[0]);

        let sisyphus = "sisyphus.example.com";
        assert_eq!(k.all().check(&at(sisyphus, 22), &ed(1)), HostKeyStatus::Trusted, "plain name");
        assert_eq!(k.all().check(&at(sisyphus, 22), &ed(5)), HostKeyStatus::Trusted, "hashed name");
        assert_eq!(k.all().check(&at(sisyphus, 22), &ed(3)), HostKeyStatus::Trusted, "*.example.com");
        assert_eq!(k.all().check(&at(sisyphus, 22), &ed(4)), HostKeyStatus::Revoked);
        assert_eq!(
            k.all().check(&at(sisyphus, 22), &ed(2)),
            HostKeyStatus::Changed { listed_at: "known_hosts:19".into() },
            "changed, since keys of any type are listed for it; reported, as ssh's Offending key, at the last: its hashed line"
        );
        for name in ["prometheus.example.com", "192.0.2.1", "2001:db8::1"] {
            assert_eq!(k.all().check(&at(name, 22), &ed(2)), HostKeyStatus::Trusted, "{name}");
            assert_eq!(k.all().check(&at(name, 22), &ed(6)), HostKeyStatus::Trusted, "{name}, hashed");
        }
        assert_eq!(k.all().check(&at("192.0.2.77", 22), &ed(3)), HostKeyStatus::Trusted, "192.0.2.*");
        assert_eq!(
            k.all().check(&at("192.0.2.77", 22), &ed(1)),
            HostKeyStatus::Changed { listed_at: "known_hosts:14".into() },
            "the last of the wildcard lines (ECDSA, Ed25519, RSA) that name it"
        );
        assert_eq!(k.all().check(&at("gpu01.example.org", 22), &ed(1)), HostKeyStatus::Unknown);
        assert!(k.all().listed(&at("prometheus.example.com", 22)).authority);
        assert!(!k.all().listed(&at(sisyphus, 22)).authority);
    }
}
