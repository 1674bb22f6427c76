//! OpenSSH known_hosts, checked the way `ssh` checks it.
//!
//! russh's own check misses wildcards, tab separators, negation, `@revoked` and `@cert-authority`
//! (see crates.md), so the file is parsed here: each line is `[marker] patterns keytype base64`,
//! patterns are comma separated, may be `[host]:port`, globs with `*`/`?`, negated with `!`, or a
//! single hashed name `|1|salt|hash` (HMAC-SHA1 of the host name keyed with the salt).
//!
//! A host certificate is judged as ssh judges one (`check_host_cert` in OpenSSH's
//! sshconnect.c): signed by an `@cert-authority` listed for the host, neither it nor its
//! authority `@revoked`, a host certificate, within its validity, naming the host among its
//! principals (which may be patterns), with no critical options. A certificate whose signer is
//! not listed for the host is not refused outright: as ssh does, its key is checked as a plain
//! key ("No matching CA found. Retry with plain key").

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, KeyInit, Mac};
use russh::keys::ssh_key::certificate::CertType;
use russh::keys::ssh_key::public::KeyData;
use russh::keys::{Certificate, HashAlg, PublicKey};
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

/// The verdict on a server's host certificate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CertificateStatus {
    /// Signed by an authority listed for the host, and valid for it now.
    Trusted,
    /// Its signer is not an authority listed for the host: judge its key as a plain key.
    NoAuthority,
    /// Refused, and why (an `@revoked` key or authority, another host's or an expired
    /// certificate...).
    Refused(String),
}

/// What the marker of a line makes of its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Marker {
    /// A host key.
    None,
    /// `@revoked`: never to be accepted, as a host key or as a certificate's authority.
    Revoked,
    /// `@cert-authority`: signs the host certificates of the hosts the line names.
    CertAuthority,
}

/// One usable line of a known_hosts file.
#[derive(Debug, Clone)]
struct Entry {
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
                Ok((marker, patterns, key)) => {
                    self.index(self.entries.len(), &patterns);
                    self.entries.push(Entry { marker, patterns, key, source });
                }
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
        let matching = self.matching(host, port);
        if matching.iter().any(|e| e.marker == Marker::Revoked && e.key.key_data() == key.key_data()) {
            return HostKeyStatus::Revoked;
        }
        let host_keys = || matching.iter().filter(|e| e.marker == Marker::None);
        if host_keys().any(|e| e.key.key_data() == key.key_data()) {
            return HostKeyStatus::Trusted;
        }
        match host_keys().find(|e| e.key.algorithm() == key.algorithm()) {
            Some(e) => HostKeyStatus::Changed { listed_at: e.source.clone() },
            None => HostKeyStatus::Unknown,
        }
    }

    /// Whether an `@cert-authority` is listed for `host` on `port`: only then are certificates
    /// asked of it (a server with one presents it in place of its plain key).
    pub fn has_authority_for(&self, host: &str, port: u16) -> bool {
        self.matching(host, port).iter().any(|e| e.marker == Marker::CertAuthority)
    }

    /// Judges `certificate` presented by `host` on `port` at `now` (seconds since 1970).
    pub fn check_certificate(&self, host: &str, port: u16, certificate: &Certificate, now: u64) -> CertificateStatus {
        let matching = self.matching(host, port);
        let revoked = |key: &KeyData| matching.iter().any(|e| e.marker == Marker::Revoked && e.key.key_data() == key);
        if revoked(certificate.public_key()) {
            return CertificateStatus::Refused("its key is @revoked".into());
        }
        if revoked(certificate.signature_key()) {
            return CertificateStatus::Refused("its certificate authority is @revoked".into());
        }
        let signer = matching
            .iter()
            .find(|e| e.marker == Marker::CertAuthority && e.key.key_data() == certificate.signature_key());
        let Some(signer) = signer else {
            return CertificateStatus::NoAuthority;
        };
        let authority = format!("certificate signed by the authority at {}", signer.source);
        if certificate.cert_type() != CertType::Host {
            return CertificateStatus::Refused(format!("{authority} is a user certificate, not a host's"));
        }
        let fingerprint = signer.key.fingerprint(HashAlg::Sha256);
        if certificate.validate_at(now, [&fingerprint]).is_err() {
            return CertificateStatus::Refused(format!(
                "{authority} is expired, not yet valid or badly signed (valid from {} to {}, Unix time)",
                certificate.valid_after(),
                certificate.valid_before()
            ));
        }
        if !certificate.critical_options().is_empty() {
            let options: Vec<&str> = certificate.critical_options().keys().map(String::as_str).collect();
            return CertificateStatus::Refused(format!(
                "{authority} has critical options ({}), which no host certificate may have",
                options.join(", ")
            ));
        }
        let principals = certificate.valid_principals();
        if !principals.iter().any(|p| glob(p, host)) {
            return CertificateStatus::Refused(format!(
                "{authority} is not for {host} (its principals: {})",
                if principals.is_empty() { "none".to_string() } else { principals.join(", ") }
            ));
        }
        CertificateStatus::Trusted
    }

    /// The lines that name `host` on `port`, in file order (the first listed key is the one a
    /// changed key is reported against).
    fn matching(&self, host: &str, port: u16) -> Vec<&Entry> {
        let name = lookup_name(host, port);
        let mut candidates: Vec<usize> = self.by_name.get(&name.to_lowercase()).cloned().unwrap_or_default();
        candidates.extend(&self.tried_for_all);
        candidates.sort_unstable();
        candidates.dedup();
        candidates.iter().map(|&i| &self.entries[i]).filter(|e| e.patterns.matches(&name)).collect()
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

type ParsedLine = (Marker, Patterns, PublicKey);

fn parse_line(line: &str) -> Result<ParsedLine, String> {
    let mut fields = line.split_whitespace();
    let mut first = fields.next().ok_or("empty line")?;
    let mut marker = Marker::None;
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

    /// A certificate authority and a host key made by ssh-keygen (OpenSSH's own certificates,
    /// not ones built by the code under test), and certificates of the host key it signs.
    struct Signer {
        dir: tempfile::TempDir,
        signed: std::cell::Cell<u32>,
    }

    impl Signer {
        fn new() -> Signer {
            let dir = tempfile::tempdir().unwrap();
            for name in ["ca", "other_ca", "host"] {
                keygen(&dir.path().join(name));
            }
            Signer { dir, signed: std::cell::Cell::new(0) }
        }

        fn public(&self, name: &str) -> String {
            std::fs::read_to_string(self.dir.path().join(format!("{name}.pub"))).unwrap().trim().to_string()
        }

        /// `ssh-keygen -s CA -I id ARGS` on a copy of the host's public key.
        fn sign(&self, ca: &str, args: &[&str]) -> Certificate {
            let n = self.signed.get() + 1;
            self.signed.set(n);
            let copy = self.dir.path().join(format!("host{n}.pub"));
            std::fs::copy(self.dir.path().join("host.pub"), &copy).unwrap();
            let status = std::process::Command::new("ssh-keygen")
                .args(["-q", "-s"])
                .arg(self.dir.path().join(ca))
                .args(["-I", "test"])
                .args(args)
                .arg(&copy)
                .status()
                .expect("ssh-keygen (openssh-client) is needed by this test");
            assert!(status.success());
            let text = std::fs::read_to_string(self.dir.path().join(format!("host{n}-cert.pub"))).unwrap();
            Certificate::from_openssh(text.trim()).unwrap()
        }
    }

    fn keygen(path: &Path) {
        let status = std::process::Command::new("ssh-keygen")
            .args(["-q", "-t", "ed25519", "-N", "", "-f"])
            .arg(path)
            .status()
            .expect("ssh-keygen (openssh-client) is needed by this test");
        assert!(status.success());
    }

    fn now() -> u64 {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs()
    }

    #[test]
    fn a_host_certificate_is_judged_as_ssh_judges_it() {
        let s = Signer::new();
        let k = kh(&format!("@cert-authority gpu*,10.0.0.* {}\n", s.public("ca")));
        let cert = s.sign("ca", &["-h", "-n", "gpu01,10.0.0.*"]);
        assert_eq!(k.check_certificate("gpu01", 22, &cert, now()), CertificateStatus::Trusted);
        assert_eq!(
            k.check_certificate("10.0.0.7", 22, &cert, now()),
            CertificateStatus::Trusted,
            "a pattern principal"
        );
        assert!(k.has_authority_for("gpu01", 22));
        assert!(!k.has_authority_for("gpu01", 2222), "off port 22 ssh looks up `[gpu01]:2222`, which `gpu*` misses");
        assert!(!k.has_authority_for("leaf1", 22));
        // The authority's key is no host key.
        assert_eq!(k.check("gpu01", 22, &key(&s.public("ca"))), HostKeyStatus::Unknown);

        let refused = |host: &str, cert: &Certificate| match k.check_certificate(host, 22, cert, now()) {
            CertificateStatus::Refused(why) => why,
            other => panic!("{host}: {other:?}"),
        };
        let why = refused("gpu02", &cert);
        assert!(why.ends_with("is not for gpu02 (its principals: gpu01, 10.0.0.*)"), "{why}");
        assert!(why.starts_with("certificate signed by the authority at known_hosts:1"), "{why}");
        let why = refused("gpu01", &s.sign("ca", &["-h"]));
        assert!(why.ends_with("(its principals: none)"), "a host certificate must name its host: {why}");
        let why = refused("gpu01", &s.sign("ca", &["-h", "-n", "gpu01", "-V", "20200101:20200102"]));
        assert!(why.contains("is expired, not yet valid or badly signed (valid from 1577836800"), "{why}");
        let why = refused("gpu01", &s.sign("ca", &["-n", "gpu01"]));
        assert!(why.ends_with("is a user certificate, not a host's"), "{why}");

        // Signed by an authority not listed for the host, or for another host: its key is judged
        // as a plain key.
        let other = s.sign("other_ca", &["-h", "-n", "gpu01"]);
        assert_eq!(k.check_certificate("gpu01", 22, &other, now()), CertificateStatus::NoAuthority);
        assert_eq!(k.check_certificate("leaf1", 22, &cert, now()), CertificateStatus::NoAuthority);
    }

    #[test]
    fn a_revoked_authority_or_key_refuses_its_certificates() {
        let s = Signer::new();
        let cert = s.sign("ca", &["-h", "-n", "gpu01"]);
        let listed = format!("@cert-authority * {}\n", s.public("ca"));
        let k = kh(&format!("{listed}@revoked gpu* {}\n", s.public("ca")));
        assert_eq!(
            k.check_certificate("gpu01", 22, &cert, now()),
            CertificateStatus::Refused("its certificate authority is @revoked".into())
        );
        let k = kh(&format!("{listed}@revoked * {}\n", s.public("host")));
        assert_eq!(
            k.check_certificate("gpu01", 22, &cert, now()),
            CertificateStatus::Refused("its key is @revoked".into())
        );
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
        assert_eq!(k.check(sisyphus, 22, &ed(1)), HostKeyStatus::Trusted, "plain name");
        assert_eq!(k.check(sisyphus, 22, &ed(5)), HostKeyStatus::Trusted, "hashed name");
        assert_eq!(k.check(sisyphus, 22, &ed(3)), HostKeyStatus::Trusted, "*.example.com");
        assert_eq!(k.check(sisyphus, 22, &ed(4)), HostKeyStatus::Revoked);
        assert_eq!(k.check(sisyphus, 22, &ed(2)), HostKeyStatus::Changed { listed_at: "known_hosts:3".into() });
        for name in ["prometheus.example.com", "192.0.2.1", "2001:db8::1"] {
            assert_eq!(k.check(name, 22, &ed(2)), HostKeyStatus::Trusted, "{name}");
            assert_eq!(k.check(name, 22, &ed(6)), HostKeyStatus::Trusted, "{name}, hashed");
        }
        assert_eq!(k.check("192.0.2.77", 22, &ed(3)), HostKeyStatus::Trusted, "192.0.2.*");
        assert_eq!(k.check("192.0.2.77", 22, &ed(1)), HostKeyStatus::Changed { listed_at: "known_hosts:13".into() });
        assert_eq!(k.check("gpu01.example.org", 22, &ed(1)), HostKeyStatus::Unknown);
        assert!(k.has_authority_for("prometheus.example.com", 22));
        assert!(!k.has_authority_for(sisyphus, 22));
    }
}
