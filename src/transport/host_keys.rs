//! Which host keys each device is trusted with: its known_hosts files (ssh_config's
//! `UserKnownHostsFile` and `GlobalKnownHostsFile` for that device, or `--known-hosts` for all)
//! and whether a key not seen before is recorded (`--accept-new-hostkeys`, or ssh_config's
//! `StrictHostKeyChecking accept-new` for that device). A changed or revoked key is always
//! refused, whatever ssh_config says.

use super::TransportError;
use super::known_hosts::{CertificateStatus, HostKeyStatus, KnownHosts, entry_line, lookup_name};
use russh::keys::{Certificate, HashAlg, PublicKey};
use std::collections::HashMap;
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// The known_hosts files of a device, as ssh reads them: the user's files, then the global ones.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KnownHostsFiles {
    /// The user's files; a key accepted as new is recorded in the first (none: never recorded).
    pub user: Vec<PathBuf>,
    /// The system's files, only read.
    pub global: Vec<PathBuf>,
}

impl KnownHostsFiles {
    fn all(&self) -> Vec<PathBuf> {
        self.user.iter().chain(&self.global).cloned().collect()
    }
}

/// How one device's host key is checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostKeyRule {
    /// Its known_hosts files, one copy shared by every device that reads the same.
    pub files: Arc<KnownHostsFiles>,
    /// Whether a key for a host not listed is recorded and trusted (trust on first use).
    pub accept_new: bool,
}

/// The known_hosts of every list of files the run's devices use, each read once and shared by
/// every connection of the run (a key recorded as new is trusted by the next connection).
#[derive(Debug, Default)]
pub struct HostKeyStores {
    loaded: Mutex<HashMap<Arc<KnownHostsFiles>, Arc<HostKeyStore>>>,
}

impl HostKeyStores {
    /// Reads `files` before any device needs them, so that an unreadable file stops the run
    /// before it starts; returns the lines ssh would skip too, as `file:line: reason` (nothing
    /// when they were read already).
    pub fn preload(&self, files: &Arc<KnownHostsFiles>) -> std::io::Result<Vec<String>> {
        self.load(files).map(|(_, skipped)| skipped)
    }

    /// The store for `files`, as a transport error when they cannot be read.
    pub(crate) fn store(&self, files: &Arc<KnownHostsFiles>) -> Result<Arc<HostKeyStore>, TransportError> {
        self.load(files)
            .map(|(store, _)| store)
            .map_err(|e| TransportError::Session(format!("reading known_hosts: {e}")))
    }

    /// The store for `files`, read now if no device has used them yet, with the lines skipped
    /// when it was read.
    fn load(&self, files: &Arc<KnownHostsFiles>) -> std::io::Result<(Arc<HostKeyStore>, Vec<String>)> {
        let mut loaded = self.loaded.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(store) = loaded.get(files) {
            return Ok((store.clone(), Vec::new()));
        }
        let known = KnownHosts::load(&files.all())?;
        let skipped = known.skipped.clone();
        let store = Arc::new(HostKeyStore { known: Mutex::new(known), record_into: files.user.first().cloned() });
        loaded.insert(files.clone(), store.clone());
        Ok((store, skipped))
    }
}

/// The keys read from one list of known_hosts files, and those recorded since.
#[derive(Debug)]
pub(crate) struct HostKeyStore {
    known: Mutex<KnownHosts>,
    /// Where keys accepted as new are appended (the first user file).
    record_into: Option<PathBuf>,
}

impl HostKeyStore {
    /// Whether `host` is to be asked for a certificate: an authority is listed for it.
    pub(crate) fn has_authority_for(&self, host: &str, port: u16) -> bool {
        self.known.lock().unwrap_or_else(|p| p.into_inner()).has_authority_for(host, port)
    }

    /// Checks `key` presented by `host`; records it when `accept_new` and the host is not listed.
    pub(crate) fn verify(
        &self,
        host: &str,
        port: u16,
        key: &PublicKey,
        accept_new: bool,
    ) -> Result<(), TransportError> {
        let mut known = self.known.lock().unwrap_or_else(|p| p.into_inner());
        self.verify_key(&mut known, host, port, key, accept_new)
    }

    /// Checks `certificate` presented by `host`: trusted when a listed authority vouches for it;
    /// when none listed for the host signed it, its key is checked as a plain key, as ssh does.
    pub(crate) fn verify_certificate(
        &self,
        host: &str,
        port: u16,
        certificate: &Certificate,
        accept_new: bool,
    ) -> Result<(), TransportError> {
        let mut known = self.known.lock().unwrap_or_else(|p| p.into_inner());
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
        match known.check_certificate(host, port, certificate, now) {
            CertificateStatus::Trusted => Ok(()),
            CertificateStatus::Refused(detail) => {
                Err(TransportError::HostKeyMismatch { host: lookup_name(host, port), detail })
            }
            CertificateStatus::NoAuthority => {
                let key = PublicKey::new(certificate.public_key().clone(), "");
                self.verify_key(&mut known, host, port, &key, accept_new)
            }
        }
    }

    fn verify_key(
        &self,
        known: &mut KnownHosts,
        host: &str,
        port: u16,
        key: &PublicKey,
        accept_new: bool,
    ) -> Result<(), TransportError> {
        let name = lookup_name(host, port);
        match known.check(host, port, key) {
            HostKeyStatus::Trusted => Ok(()),
            HostKeyStatus::Revoked => {
                Err(TransportError::HostKeyMismatch { host: name, detail: "key is @revoked".into() })
            }
            HostKeyStatus::Changed { listed_at } => {
                Err(TransportError::HostKeyMismatch { host: name, detail: format!("listed at {listed_at}") })
            }
            HostKeyStatus::Unknown => {
                let fingerprint = key.fingerprint(HashAlg::Sha256).to_string();
                let (true, Some(file), Some(line)) = (accept_new, &self.record_into, entry_line(host, port, key))
                else {
                    return Err(TransportError::HostKeyUnknown { host: name, fingerprint });
                };
                let appended = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(file)
                    .and_then(|mut f| writeln!(f, "{line}"));
                if let Err(e) = appended {
                    return Err(TransportError::Session(format!("cannot record host key in {}: {e}", file.display())));
                }
                known.add(&line, file);
                Ok(())
            }
        }
    }
}
