//! ssh_config's `KnownHostsCommand`, run as ssh runs it (`load_hostkeys_command` in
//! sshconnect.c): with no shell, stdin from /dev/null and the environment kept, once before the
//! key exchange (`%I` is `ORDER`: which key types to ask for) and once for the key the host
//! presents (`HOSTNAME`, with `%t`, `%f` and `%K` its type, fingerprint and base64). What it
//! prints is read as known_hosts lines for the host, after its files.
//!
//! As in ssh (`subprocess` in misc.c): a command whose program is not an absolute path or does
//! not exist gives no keys, and the host is judged by its files alone, with why kept for the
//! error that follows; one that exists but cannot be run (not executable, a missing
//! interpreter), or exits with an error, refuses the host; a key found through the command is
//! never recorded.

use super::TransportError;
use super::known_hosts::KnownHosts;
use fabcheck_inventory::ssh_config::KnownHostsCommand;
use russh::keys::{Certificate, HashAlg, PublicKey};
use std::path::Path;
use std::process::Stdio;
use tokio::io::{AsyncRead, AsyncReadExt as _};

/// The most of its output read: a host's keys are a few lines.
const MAX_OUTPUT: usize = 1 << 20;
/// The most of its standard error kept for a message.
const MAX_STDERR: usize = 4096;

/// What one call of the command gave for one host name.
#[derive(Debug)]
pub(crate) struct CommandKeys {
    /// Its lines, as a known_hosts file named after the call (`KnownHostsCommand-HOSTNAME`).
    pub(crate) known: KnownHosts,
    /// The name they were asked for (`%H`): only that name is looked up in them.
    pub(crate) name: String,
    /// Why the command gave nothing, when it could not be started.
    pub(crate) unstarted: Option<String>,
}

/// A host key as the command's `%t`, `%f` and `%K` give it.
pub(crate) struct KeyTokens {
    kind: String,
    fingerprint: String,
    base64: String,
}

impl KeyTokens {
    pub(crate) fn of_key(key: &PublicKey) -> KeyTokens {
        KeyTokens {
            kind: key.algorithm().as_str().to_owned(),
            fingerprint: key.fingerprint(HashAlg::Sha256).to_string(),
            base64: second_field(key.to_openssh().ok()),
        }
    }

    /// A certificate: its type, its key's fingerprint (ssh's fingerprint of a certificate is
    /// its key's) and the certificate's own base64.
    pub(crate) fn of_certificate(certificate: &Certificate) -> KeyTokens {
        let key = PublicKey::new(certificate.public_key().clone(), "");
        KeyTokens {
            kind: certificate.algorithm().to_certificate_type(),
            fingerprint: key.fingerprint(HashAlg::Sha256).to_string(),
            base64: second_field(certificate.to_openssh().ok()),
        }
    }
}

/// The base64 of `type base64 [comment]`.
fn second_field(line: Option<String>) -> String {
    line.and_then(|l| l.split_whitespace().nth(1).map(str::to_owned)).unwrap_or_default()
}

/// Runs `command` for `name` (the name the host's keys are looked up by): the `ORDER` call when
/// `key` is `None`, else the `HOSTNAME` call for it.
pub(crate) async fn keys_for(
    command: &KnownHostsCommand,
    name: &str,
    key: Option<&KeyTokens>,
) -> Result<CommandKeys, TransportError> {
    let invocation = if key.is_some() { "HOSTNAME" } else { "ORDER" };
    let refused = |why: String| TransportError::HostKeyUnknown {
        host: name.to_owned(),
        fingerprint: key.map_or_else(|| "before the key exchange".into(), |k| k.fingerprint.clone()),
        files: format!("KnownHostsCommand at {}:{}", command.set_at.file, command.set_at.line),
        hint: format!("{why}; ssh refuses the host then too"),
    };
    let none = "NONE";
    let call = [
        ('H', name),
        ('I', invocation),
        ('t', key.map_or(none, |k| k.kind.as_str())),
        ('f', key.map_or(none, |k| k.fingerprint.as_str())),
        ('K', key.map_or(none, |k| k.base64.as_str())),
    ];
    let argv = command.argv(&call, &|var| std::env::var(var).ok()).map_err(refused)?;
    let tag = format!("KnownHostsCommand-{invocation}");
    let mut keys = CommandKeys { known: KnownHosts::default(), name: name.to_owned(), unstarted: None };
    if !argv[0].starts_with('/') {
        keys.unstarted = Some(format!("{tag}: {} is not an absolute path", argv[0]));
        return Ok(keys);
    }
    if let Err(e) = tokio::fs::metadata(&argv[0]).await {
        keys.unstarted = Some(format!("{tag}: {}: {e}", argv[0]));
        return Ok(keys);
    }
    let spawned = tokio::process::Command::new(&argv[0])
        .args(&argv[1..])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn();
    // It exists: ssh's child fails then, and so does ssh (`exited_cleanly`).
    let mut child = spawned.map_err(|e| refused(format!("{} cannot be run: {e}", argv[0])))?;
    let (out, err, status) = tokio::join!(
        drain(child.stdout.take(), MAX_OUTPUT, Keep::Head),
        drain(child.stderr.take(), MAX_STDERR, Keep::Tail),
        child.wait()
    );
    let said = err.map(|(e, _)| {
        String::from_utf8_lossy(&e).lines().rfind(|l| !l.trim().is_empty()).unwrap_or("").trim().to_owned()
    });
    let said = said.ok().filter(|s| !s.is_empty()).map(|s| format!(": {s}")).unwrap_or_default();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => return Err(refused(format!("{} failed ({s}{said})", argv[0]))),
        Err(e) => return Err(refused(format!("{} failed: {e}", argv[0]))),
    }
    let out = match out {
        Ok((_, true)) => return Err(refused(format!("{} printed more than {} MiB", argv[0], MAX_OUTPUT >> 20))),
        Ok((out, false)) => out,
        Err(e) => return Err(refused(format!("reading what {} printed: {e}", argv[0]))),
    };
    keys.known.add(&String::from_utf8_lossy(&out), Path::new(&tag));
    Ok(keys)
}

/// Which bytes of a stream are kept.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Keep {
    /// The first: what it printed, whole unless too long.
    Head,
    /// The last: the end of what it said on stderr, where its error is.
    Tail,
}

/// Reads `stream` to its end, so the command never blocks on a full pipe, keeping `keep` bytes
/// of it as `which` says; whether more came.
async fn drain(stream: Option<impl AsyncRead + Unpin>, keep: usize, which: Keep) -> std::io::Result<(Vec<u8>, bool)> {
    let (mut kept, mut more) = (Vec::new(), false);
    let Some(mut stream) = stream else {
        return Ok((kept, more));
    };
    let mut buffer = [0u8; 8192];
    loop {
        let n = stream.read(&mut buffer).await?;
        if n == 0 {
            return Ok((kept, more));
        }
        match which {
            Keep::Head => {
                let room = keep.saturating_sub(kept.len()).min(n);
                kept.extend_from_slice(&buffer[..room]);
                more |= room < n;
            }
            Keep::Tail => {
                kept.extend_from_slice(&buffer[..n]);
                let excess = kept.len().saturating_sub(keep);
                kept.drain(..excess);
                more |= excess > 0;
            }
        }
    }
}
