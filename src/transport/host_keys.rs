//! Which host keys each device is trusted with: its known_hosts files (ssh_config's
//! `UserKnownHostsFile` and `GlobalKnownHostsFile` for that device, or `--known-hosts` for all)
//! and whether a key not seen before is recorded (`--accept-new-hostkeys`, or ssh_config's
//! `StrictHostKeyChecking accept-new` for that device). A changed or revoked key is always
//! refused, whatever ssh_config says.
//!
//! Each file is read once for the whole run, whichever devices list it, and a key recorded in
//! it is trusted by every later connection that reads it; recording is one append under the
//! write lock, so devices connecting at once never interleave their lines or record a key twice.

use super::TransportError;
use super::known_hosts::{CertificateStatus, FileId, HostKeyStatus, KnownHosts, Listed, Lookup};
use super::known_hosts_command::CommandKeys;
use super::revoked_keys::RevokedKeys;
use fabcheck_inventory::ssh_config::KnownHostsCommand;
use russh::keys::{Certificate, HashAlg, PublicKey};
use std::collections::{BTreeMap, HashMap};
use std::io::{Read as _, Seek as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

/// The known_hosts files of a device, as ssh reads them: the user's files, then the global ones.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KnownHostsFiles {
    /// The user's files; a key accepted as new is recorded in the first (none: never recorded).
    pub user: Vec<PathBuf>,
    /// The system's files, only read.
    pub global: Vec<PathBuf>,
}

/// How one device's host key is checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostKeyRule {
    /// Its known_hosts files, one copy shared by every device that reads the same.
    pub files: Arc<KnownHostsFiles>,
    /// Whether a key for a host not listed is recorded and trusted (trust on first use).
    pub accept_new: bool,
    /// ssh_config's `RevokedHostKeys`: keys refused whatever known_hosts says.
    pub revoked: Option<Arc<RevocationFiles>>,
    /// ssh_config's `HostKeyAlias`: the name its keys are looked up and recorded by.
    pub alias: Option<String>,
    /// ssh_config's `CASignatureAlgorithms`, as written (`None`: ssh's default).
    pub ca_signatures: Option<String>,
    /// ssh_config's `KnownHostsCommand`: run for the host's keys besides its files.
    pub command: Option<Arc<KnownHostsCommand>>,
}

/// The files of one `RevokedHostKeys` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RevocationFiles {
    /// Each a KRL or a list of keys.
    pub files: Vec<PathBuf>,
    /// `FILE:LINE` of the line, for messages.
    pub set_at: String,
}

impl HostKeyRule {
    /// How `host` on `port` is looked up under this rule.
    pub(crate) fn lookup(&self, host: &str, port: u16) -> Lookup {
        Lookup::new(host, port, self.alias.as_deref())
    }
}

/// The known_hosts and revocation files of every device of a run, each read once.
#[derive(Debug, Default)]
pub struct HostKeyStores {
    /// Read by every connection at once; written only to read a file or record a key.
    loaded: RwLock<Loaded>,
    /// Each `RevokedHostKeys` file's slot.
    revocations: Mutex<HashMap<PathBuf, Arc<RevocationSlot>>>,
    /// `KnownHostsCommand` lines whose program could not be started, by `FILE:LINE`: the first
    /// reason, and how many calls it failed.
    unstarted: Mutex<BTreeMap<String, (String, usize)>>,
}

/// A `RevokedHostKeys` file once read, or why it cannot be used.
type RevocationSlot = OnceLock<Result<RevokedKeys, String>>;

/// A host key as presented: plain, or within a certificate.
#[derive(Clone, Copy)]
enum Presented<'a> {
    Key(&'a PublicKey),
    Certificate(&'a Certificate),
}

#[derive(Debug, Default)]
struct Loaded {
    known: KnownHosts,
    /// The files of each list, once read.
    lists: HashMap<Arc<KnownHostsFiles>, Vec<FileId>>,
    /// Keys recorded this run, by file.
    recorded: BTreeMap<PathBuf, usize>,
}

impl HostKeyStores {
    /// Reads `files` before any device needs them, so that an unreadable file stops the run
    /// before it starts; returns the lines of the files read now that ssh would skip too, as
    /// `file:line: reason` (each file's once).
    pub fn preload(&self, files: &Arc<KnownHostsFiles>) -> std::io::Result<Vec<String>> {
        let mut loaded = self.write();
        let before = loaded.known.skipped.len();
        loaded.ids(files)?;
        Ok(loaded.known.skipped[before..].to_vec())
    }

    /// How many keys this run recorded, by file (trusted on first use).
    pub fn recorded(&self) -> Vec<(PathBuf, usize)> {
        self.read().recorded.iter().map(|(file, n)| (file.clone(), *n)).collect()
    }

    /// The `KnownHostsCommand` lines (`FILE:LINE`) whose program could not be started this run,
    /// each with why and how many calls: ssh says so at every call; fabcheck once, at the end.
    pub fn unstarted_commands(&self) -> Vec<(String, String, usize)> {
        let unstarted = self.unstarted.lock().unwrap_or_else(|p| p.into_inner());
        unstarted.iter().map(|(at, (why, n))| (at.clone(), why.clone(), *n)).collect()
    }

    /// Notes that the `KnownHostsCommand` at `at` could not be started, and why.
    pub(crate) fn note_unstarted(&self, at: &str, why: &str) {
        let mut unstarted = self.unstarted.lock().unwrap_or_else(|p| p.into_inner());
        unstarted.entry(at.to_owned()).or_insert_with(|| (why.to_owned(), 0)).1 += 1;
    }

    /// What is listed for `host` that decides what to ask it for, in its files and in what its
    /// `KnownHostsCommand` printed (`command`, the `ORDER` call).
    pub(crate) fn listed(
        &self,
        rule: &HostKeyRule,
        host: &str,
        port: u16,
        command: Option<&CommandKeys>,
    ) -> Result<Listed, TransportError> {
        let ids = self.ids(&rule.files)?;
        Ok(self.read().known.view(&ids).with_command(command).listed(&rule.lookup(host, port)))
    }

    /// Checks `key` presented by `host`; records it when the rule accepts new keys and the host
    /// is not listed in its files or by `command` (its `KnownHostsCommand`'s `HOSTNAME` call).
    pub(crate) fn verify(
        &self,
        rule: &HostKeyRule,
        host: &str,
        port: u16,
        key: &PublicKey,
        command: Option<&CommandKeys>,
    ) -> Result<(), TransportError> {
        self.refuse_revoked(rule, host, port, Presented::Key(key))?;
        self.verify_listed(rule, host, port, key, command)
    }

    /// ssh's first check of a host key (`sshkey_check_revoked` for each `RevokedHostKeys`
    /// file): refused when a file revokes it, or when a file cannot be read or understood.
    fn refuse_revoked(
        &self,
        rule: &HostKeyRule,
        host: &str,
        port: u16,
        key: Presented<'_>,
    ) -> Result<(), TransportError> {
        let Some(revocation) = &rule.revoked else {
            return Ok(());
        };
        let refused = |detail| TransportError::HostKeyMismatch { host: rule.lookup(host, port).name, detail };
        for file in &revocation.files {
            let (path, set_at) = (file.display(), &revocation.set_at);
            let why = match self.revocations(file).get_or_init(|| read_revocations(file)) {
                Err(e) => Some(format!(
                    "{path} cannot be used ({e}), and ssh refuses every host then (RevokedHostKeys at {set_at})"
                )),
                Ok(revoked) => match key {
                    Presented::Key(key) => revoked.revokes_key(key.key_data()),
                    Presented::Certificate(certificate) => revoked.revokes_certificate(certificate),
                }
                .map(|why| format!("revoked by {path}: {why} (RevokedHostKeys at {set_at})")),
            };
            if let Some(why) = why {
                return Err(refused(why));
            }
        }
        Ok(())
    }

    /// The slot of `file`, read by the first device that needs it: the map is locked only to
    /// find the slot, so reading one file holds back only the devices that need that file.
    fn revocations(&self, file: &Path) -> Arc<RevocationSlot> {
        let mut slots = self.revocations.lock().unwrap_or_else(|p| p.into_inner());
        slots.entry(file.to_path_buf()).or_default().clone()
    }

    /// Checks `key` against the host's known_hosts files and what its `KnownHostsCommand` printed.
    fn verify_listed(
        &self,
        rule: &HostKeyRule,
        host: &str,
        port: u16,
        key: &PublicKey,
        command: Option<&CommandKeys>,
    ) -> Result<(), TransportError> {
        let ids = self.ids(&rule.files)?;
        let at = rule.lookup(host, port);
        let status = self.read().known.view(&ids).with_command(command).check(&at, key);
        match status {
            HostKeyStatus::Trusted => Ok(()),
            HostKeyStatus::Revoked => {
                Err(TransportError::HostKeyMismatch { host: at.name, detail: "key is @revoked".into() })
            }
            HostKeyStatus::Changed { listed_at } => Err(TransportError::HostKeyMismatch {
                host: at.name,
                detail: format!("the host is listed with another key, at {listed_at}"),
            }),
            HostKeyStatus::Unknown => self.record(rule, &ids, &at, key, command),
        }
    }

    /// Checks `certificate` presented by `host`: refused when `RevokedHostKeys` revokes it, its
    /// key or its authority; trusted when a listed authority vouches for it. Otherwise, unless
    /// `@revoked`, its key is checked as a plain key, as ssh does ("No matching CA found. Retry
    /// with plain key"), and when that fails too, the error says both.
    pub(crate) fn verify_certificate(
        &self,
        rule: &HostKeyRule,
        host: &str,
        port: u16,
        certificate: &Certificate,
        command: Option<&CommandKeys>,
    ) -> Result<(), TransportError> {
        self.refuse_revoked(rule, host, port, Presented::Certificate(certificate))?;
        let ids = self.ids(&rule.files)?;
        let at = rule.lookup(host, port);
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let signatures = rule.ca_signatures.as_deref();
        let status =
            self.read().known.view(&ids).with_command(command).check_certificate(&at, certificate, signatures, now);
        let plain = PublicKey::new(certificate.public_key().clone(), "");
        match status {
            CertificateStatus::Trusted => Ok(()),
            CertificateStatus::Revoked(detail) => Err(TransportError::HostKeyMismatch { host: at.name, detail }),
            CertificateStatus::NoAuthority => self.verify_listed(rule, host, port, &plain, command),
            CertificateStatus::Invalid(why) => {
                self.verify_listed(rule, host, port, &plain, command).map_err(|e| match e {
                    TransportError::HostKeyMismatch { host, detail } => {
                        TransportError::HostKeyMismatch { host, detail: format!("{why}; and its key alone: {detail}") }
                    }
                    TransportError::HostKeyUnknown { host, fingerprint, files, hint } => {
                        TransportError::HostKeyMismatch {
                            host,
                            detail: format!("{why}; and its key alone ({fingerprint}) is not in {files}: {hint}"),
                        }
                    }
                    other => other,
                })
            }
        }
    }

    /// A key of a host not listed: recorded in the rule's first user file when it accepts new
    /// keys. Under the write lock, the host is looked up again first: another connection may
    /// have recorded it meanwhile, and it is never written twice.
    fn record(
        &self,
        rule: &HostKeyRule,
        ids: &[FileId],
        at: &Lookup,
        key: &PublicKey,
        command: Option<&CommandKeys>,
    ) -> Result<(), TransportError> {
        let mut loaded = self.write();
        let view = loaded.known.view(ids).with_command(command);
        let unknown = |hint: &str| TransportError::HostKeyUnknown {
            host: at.name.clone(),
            fingerprint: key.fingerprint(HashAlg::Sha256).to_string(),
            files: view.describe(),
            hint: hint.into(),
        };
        if !rule.accept_new {
            return Err(unknown("add it (ssh-keyscan) or pass --accept-new-hostkeys"));
        }
        if view.check(at, key) == HostKeyStatus::Trusted {
            return Ok(());
        }
        let (Some(&file), Some(path)) = (ids.first(), rule.files.user.first()) else {
            return Err(unknown("accepting new keys needs a user known_hosts file to record them in"));
        };
        let Some(line) = at.entry_line(key) else {
            return Err(unknown("its name holds a character ssh will not record in known_hosts: add it by hand"));
        };
        append(path, &line)
            .map_err(|e| TransportError::Session(format!("cannot record host key in {}: {e}", path.display())))?;
        loaded.known.record(file, &line);
        *loaded.recorded.entry(path.clone()).or_default() += 1;
        Ok(())
    }

    /// The files of `files`, read now if no device has used them yet.
    fn ids(&self, files: &Arc<KnownHostsFiles>) -> Result<Vec<FileId>, TransportError> {
        if let Some(ids) = self.read().lists.get(files) {
            return Ok(ids.clone());
        }
        self.write().ids(files).map_err(unreadable)
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Loaded> {
        self.loaded.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Loaded> {
        self.loaded.write().unwrap_or_else(|p| p.into_inner())
    }
}

impl Loaded {
    /// The files of `files`, read now if they were not.
    fn ids(&mut self, files: &Arc<KnownHostsFiles>) -> std::io::Result<Vec<FileId>> {
        if let Some(ids) = self.lists.get(files) {
            return Ok(ids.clone());
        }
        let mut ids = Vec::with_capacity(files.user.len() + files.global.len());
        for path in files.user.iter().chain(&files.global) {
            ids.push(self.known.read(path)?);
        }
        self.lists.insert(files.clone(), ids.clone());
        Ok(ids)
    }
}

/// The most ssh reads of a file (`SSHBUF_SIZE_MAX`, 128 MiB).
const MAX_REVOCATION_FILE: u64 = 0x800_0000;

/// A `RevokedHostKeys` file, read whole as ssh reads it, at most [`MAX_REVOCATION_FILE`] bytes.
fn read_revocations(file: &Path) -> Result<RevokedKeys, String> {
    let mut bytes = Vec::new();
    std::fs::File::open(file)
        .and_then(|f| f.take(MAX_REVOCATION_FILE + 1).read_to_end(&mut bytes))
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > MAX_REVOCATION_FILE {
        return Err(format!("larger than the {} MiB ssh reads", MAX_REVOCATION_FILE >> 20));
    }
    RevokedKeys::parse(&bytes)
}

/// Appends `line` to `file` as ssh does: the directory made if missing (mode 0700), a line end first if the
/// file lacks its last one (or the new line would join it and both be unreadable), and the
/// line written in one call.
fn append(file: &Path, line: &str) -> std::io::Result<()> {
    if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty() && !d.exists()) {
        // As ssh makes ~/.ssh: readable by its owner only.
        std::os::unix::fs::DirBuilderExt::mode(std::fs::DirBuilder::new().recursive(true), 0o700).create(dir)?;
    }
    let mut f = std::fs::OpenOptions::new().create(true).read(true).append(true).open(file)?;
    let mut last = [0u8; 1];
    let ends_open = f.seek(std::io::SeekFrom::End(-1)).is_ok() && f.read_exact(&mut last).is_ok() && last[0] != b'\n';
    let text = if ends_open { format!("\n{line}\n") } else { format!("{line}\n") };
    f.write_all(text.as_bytes())
}

fn unreadable(e: std::io::Error) -> TransportError {
    TransportError::Session(format!("reading known_hosts: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_appended_on_a_line_of_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("new/.ssh/known_hosts");
        append(&file, "a key").unwrap();
        append(&file, "b key").unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "a key\nb key\n", "the directory made, lines kept apart");
        std::fs::write(&file, "last line without its end").unwrap();
        append(&file, "c key").unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "last line without its end\nc key\n");
    }

    #[test]
    fn a_file_listed_by_two_devices_is_read_once_and_a_key_recorded_for_one_is_seen_by_the_other() {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("known_hosts");
        std::fs::write(&user, "bad line\n").unwrap();
        let list = |global: &str| {
            Arc::new(KnownHostsFiles { user: vec![user.clone()], global: vec![dir.path().join(global)] })
        };
        let (a, b) = (list("global_a"), list("global_b"));
        let stores = HostKeyStores::default();
        assert_eq!(stores.preload(&a).unwrap().len(), 1, "the bad line, said once");
        assert_eq!(stores.preload(&b).unwrap(), Vec::<String>::new(), "its file was read already");
        let key =
            PublicKey::from_openssh("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl")
                .unwrap();
        let rule = |files, accept_new| HostKeyRule {
            files,
            accept_new,
            revoked: None,
            alias: None,
            ca_signatures: None,
            command: None,
        };
        let (accepting, strict) = (rule(a, true), rule(b, false));
        assert_eq!(stores.verify(&strict, "gpu01", 22, &key, None).unwrap_err().code(), "ssh.hostkey_unknown");
        stores.verify(&accepting, "gpu01", 22, &key, None).unwrap();
        stores.verify(&strict, "gpu01", 22, &key, None).unwrap();
        assert_eq!(stores.recorded(), vec![(user.clone(), 1)]);
        assert_eq!(std::fs::read_to_string(&user).unwrap().lines().count(), 2);
    }

    /// A key `RevokedHostKeys` revokes is refused before known_hosts is looked at: never
    /// trusted on first use, never recorded.
    #[test]
    fn a_revoked_key_is_never_recorded_as_new() {
        let dir = tempfile::tempdir().unwrap();
        let (user, revoked) = (dir.path().join("known_hosts"), dir.path().join("revoked_keys"));
        let text = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl";
        std::fs::write(&revoked, format!("{text} gpu01\n")).unwrap();
        let rule = HostKeyRule {
            files: Arc::new(KnownHostsFiles { user: vec![user.clone()], global: Vec::new() }),
            accept_new: true,
            revoked: Some(Arc::new(RevocationFiles { files: vec![revoked.clone()], set_at: "cfg:3".into() })),
            alias: None,
            ca_signatures: None,
            command: None,
        };
        let stores = HostKeyStores::default();
        let error = stores.verify(&rule, "gpu01", 22, &PublicKey::from_openssh(text).unwrap(), None).unwrap_err();
        let why = format!("revoked by {}: the key is listed (RevokedHostKeys at cfg:3)", revoked.display());
        assert_eq!((error.code(), error.to_string().contains(&why)), ("ssh.hostkey_mismatch", true), "{error}");
        assert!(stores.recorded().is_empty() && !user.exists(), "nothing recorded");
    }
}
