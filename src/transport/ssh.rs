//! The SSH transport on russh: one connection per device, its commands on at most
//! `SshOptions::channels` concurrent channels (sshd's `MaxSessions` is 10), host keys checked
//! against known_hosts as OpenSSH checks them, keys from files and from ssh-agent, ProxyJump, and
//! timeouts at every stage (russh has none of its own for connect and auth).
//!
//! # Errors
//! Every failure maps to one [`TransportError`], which the collector turns into a finding for
//! that device; nothing here aborts a run.

use super::algorithms::Algorithms;
use super::host_keys::{HostKeyRule, HostKeyStores};
use super::identity::KeyFiles;
use super::known_hosts_command::{CommandKeys, KeyTokens, keys_for};
use super::output::append_capped;
use super::{CommandOutput, TransportError, is_fd_limit};
use fabcheck_inventory::ssh_config::KnownHostsCommand;
use russh::client::{self, AuthResult, Handle};
use russh::keys::agent::client::AgentClient;
use russh::keys::{Algorithm, PrivateKeyWithHashAlg, PublicKeyOrCertificate};
use russh::{ChannelMsg, Disconnect};
use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};
use tokio::net::TcpStream;
use tokio::sync::Semaphore;

/// Where and as whom to log in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SshTarget {
    /// Address or host name to connect to.
    pub host: String,
    /// TCP port.
    pub port: u16,
    /// Login name.
    pub user: String,
    /// Private key files to try, in order (then the agent).
    pub identity_files: Vec<PathBuf>,
    /// The jump host to go through (OpenSSH's ProxyJump), itself possibly behind another.
    pub proxy_jump: Option<Box<SshTarget>>,
    /// What to offer: the defaults, the old algorithms when the inventory asks
    /// (`fabcheck_ssh_legacy`), changed by ssh_config's lists; shared by the devices offered the
    /// same.
    pub algorithms: Arc<Algorithms>,
    /// ssh_config's `ConnectTimeout` for this device, in place of the run's
    /// [`SshOptions::connect_timeout`] (a slow bastion's hosts may need longer).
    pub connect_timeout: Option<Duration>,
    /// Its known_hosts files, and whether a key not seen before is recorded.
    pub host_keys: HostKeyRule,
    /// Why ssh would not connect to it, from ssh_config (a `HostName` or file name it cannot
    /// expand, the device's or a jump host's): no connection is tried.
    pub config_error: Option<String>,
}

/// Settings shared by every connection of a run.
#[derive(Debug, Clone)]
pub struct SshOptions {
    /// Limit for the TCP connect and for the SSH handshake, each.
    pub connect_timeout: Duration,
    /// Limit for authentication.
    pub auth_timeout: Duration,
    /// Limit for one command.
    pub command_timeout: Duration,
    /// Bytes kept of each command's stdout and of its stderr.
    pub max_output: usize,
    /// Concurrent channels per connection.
    pub channels: usize,
    /// Extra attempts when a handshake is refused or cut (sshd's MaxStartups drops connections
    /// beyond 10 unauthenticated ones).
    pub retries: u32,
    /// Whether to offer ssh-agent keys after the key files.
    pub use_agent: bool,
    /// Turns for handshakes per address (see [`SshSession::connect`]).
    pub handshakes: Arc<HandshakeGate>,
    /// The known_hosts of the run's devices.
    pub host_keys: Arc<HostKeyStores>,
    /// The private key files read so far, shared by every connection of the run.
    pub keys: Arc<KeyFiles>,
}

/// An authenticated connection.
pub struct SshSession {
    handle: Handle<Verifier>,
    channels: Semaphore,
    /// The channel limit now: `SshOptions::channels`, lowered when the server refuses channels.
    slots: AtomicUsize,
    options: SshOptions,
    /// Keeps the jump host's connection open while this one is used.
    _jump: Option<Box<SshSession>>,
}

struct Verifier {
    host: String,
    port: u16,
    stores: Arc<HostKeyStores>,
    rule: HostKeyRule,
    rejection: Arc<Mutex<Option<TransportError>>>,
    /// The most a `KnownHostsCommand` call may take.
    limit: Duration,
}

impl client::Handler for Verifier {
    type Error = russh::Error;

    async fn check_server_key(&mut self, key: &PublicKeyOrCertificate) -> Result<bool, Self::Error> {
        let verdict = self.verdict(key).await;
        let accepted = verdict.is_ok();
        if let Err(e) = verdict {
            *self.rejection.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
        }
        Ok(accepted)
    }
}

impl Verifier {
    /// Whether `key` is the host's, by its files and its `KnownHostsCommand`, if any, asked
    /// about this key.
    async fn verdict(&self, key: &PublicKeyOrCertificate) -> Result<(), TransportError> {
        let command = match &self.rule.command {
            Some(command) => {
                let tokens = match key {
                    PublicKeyOrCertificate::PublicKey { key, .. } => KeyTokens::of_key(key),
                    PublicKeyOrCertificate::Certificate(certificate) => KeyTokens::of_certificate(certificate),
                };
                let name = self.rule.lookup(&self.host, self.port).name;
                // Within a limit of its own: the handshake's cannot stop this call, which russh
                // runs in a task that outlives the handshake's future.
                Some(ask_command(&self.stores, command, &name, Some(&tokens), self.limit).await?)
            }
            None => None,
        };
        let (rule, host, port, command) = (&self.rule, self.host.as_str(), self.port, command.as_ref());
        match key {
            PublicKeyOrCertificate::PublicKey { key, .. } => self.stores.verify(rule, host, port, key, command),
            PublicKeyOrCertificate::Certificate(certificate) => {
                self.stores.verify_certificate(rule, host, port, certificate, command)
            }
        }
    }
}

impl SshSession {
    /// Connects, checks the host key and logs in, retrying cut handshakes with backoff.
    ///
    /// sshd's `MaxStartups` (10:30:100 by default) drops unauthenticated connections beyond 10
    /// at random, so a burst of connections to one server (many inventory names behind one
    /// bastion or one sshd) loses some: handshakes to one address are throttled to
    /// [`HANDSHAKES_PER_ADDRESS`] at a time, and a cut handshake is retried after 1 s, 2 s,
    /// 4 s... plus up to a second of jitter, so the retries do not arrive together again. A
    /// refused TCP connection (nothing listening) is retried once.
    pub async fn connect(target: &SshTarget, options: &SshOptions) -> Result<SshSession, TransportError> {
        if let Some(why) = &target.config_error {
            return Err(TransportError::Config(why.clone()));
        }
        if let Some(why) = target.algorithms.unusable() {
            return Err(TransportError::NoCommonAlgorithm(format!(
                "nothing to offer {} (ssh_config): {why}",
                target.host
            )));
        }
        let mut attempt = 0;
        loop {
            let result = {
                let _turn = options.handshakes.turn(&target.host, target.port).await;
                Box::pin(connect_once(target, options)).await
            };
            match result {
                Err(e) if attempt < retries_for(&e, options.retries) => {
                    attempt += 1;
                    tokio::time::sleep(backoff(attempt)).await;
                }
                result => return result,
            }
        }
    }

    /// Runs `command` on its own channel; waits for a free channel first.
    pub async fn run(&self, command: &str) -> Result<CommandOutput, TransportError> {
        let (out, result) = self.run_bounded(command, self.options.command_timeout).await;
        result.map(|()| out)
    }

    /// Runs `command` for at most `limit` and returns what it printed even when it had to stop
    /// waiting (a hung benchmark's last lines are the evidence of where it hung).
    pub async fn run_bounded(&self, command: &str, limit: Duration) -> (CommandOutput, Result<(), TransportError>) {
        self.run_capped(command, limit, self.options.max_output).await
    }

    /// As [`SshSession::run_bounded`], keeping at most `cap` bytes of each stream.
    pub async fn run_capped(
        &self,
        command: &str,
        limit: Duration,
        cap: usize,
    ) -> (CommandOutput, Result<(), TransportError>) {
        let started = SystemTime::now();
        let clock = Instant::now();
        let mut out = CommandOutput::nothing(command, started);
        let result = match self.open_channel(command, limit).await {
            Ok((channel, _permit)) => self.exec(channel, command, &mut out, limit, cap).await,
            Err(e) => Err(e),
        };
        out.duration = clock.elapsed();
        (out, result)
    }

    /// A channel of its own for `command`, and the permit that holds its slot. Waiting for a free
    /// slot is not the command's time (the device's deadline bounds it). A server that refuses a
    /// channel while others are open has a lower session limit than `channels` (sshd's
    /// `MaxSessions`, smaller on some switches): the slot is given up for good and the command
    /// waits for a running one to end, down to one channel at a time.
    async fn open_channel(
        &self,
        command: &str,
        limit: Duration,
    ) -> Result<(russh::Channel<client::Msg>, tokio::sync::SemaphorePermit<'_>), TransportError> {
        let closed = || TransportError::Session("session closed".into());
        let mut permit = self.channels.acquire().await.map_err(|_| closed())?;
        loop {
            match tokio::time::timeout(limit, self.handle.channel_open_session()).await {
                Err(_) => {
                    return Err(TransportError::Timeout {
                        stage: format!("opening a channel for `{command}`"),
                        after: limit,
                    });
                }
                Ok(Ok(channel)) => return Ok((channel, permit)),
                Ok(Err(russh::Error::ChannelOpenFailure(_))) if self.give_up_a_slot() => {
                    permit.forget();
                    permit = self.channels.acquire().await.map_err(|_| closed())?;
                }
                Ok(Err(e)) => return Err(TransportError::Session(format!("`{command}`: {e}"))),
            }
        }
    }

    /// Lowers the channel limit by one, unless it is down to one already.
    fn give_up_a_slot(&self) -> bool {
        self.slots.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| (n > 1).then(|| n - 1)).is_ok()
    }

    /// Runs `command` on a channel of its own until it ends or `deadline`. A command still
    /// running then is sent a KILL signal request (sshd kills the process when it honours the
    /// request; OpenSSH's does) and its channel is closed, so it does not keep one of the
    /// server's `MaxSessions` slots for the rest of the run; what it printed is kept.
    async fn exec(
        &self,
        mut channel: russh::Channel<client::Msg>,
        command: &str,
        out: &mut CommandOutput,
        limit: Duration,
        cap: usize,
    ) -> Result<(), TransportError> {
        let deadline = tokio::time::Instant::now() + limit;
        let lost = |e: russh::Error| TransportError::Session(format!("`{command}`: {e}"));
        let timed_out = || TransportError::Timeout { stage: format!("`{command}`"), after: limit };
        let mut signalled = false;
        let ran = tokio::time::timeout_at(deadline, async {
            channel.exec(true, command).await.map_err(lost)?;
            while let Some(msg) = channel.wait().await {
                match msg {
                    ChannelMsg::Data { data } => out.truncated |= append_capped(&mut out.stdout, &data, cap),
                    ChannelMsg::ExtendedData { data, .. } => {
                        out.truncated |= append_capped(&mut out.stderr, &data, cap)
                    }
                    ChannelMsg::ExitStatus { exit_status } => out.exit_status = Some(exit_status),
                    ChannelMsg::ExitSignal { .. } => signalled = true,
                    ChannelMsg::Close => break,
                    _ => {}
                }
            }
            Ok(())
        })
        .await;
        match ran {
            Err(_) => {
                // Best effort, each: the server may be gone, or may not honour signals.
                let _ = channel.signal(russh::Sig::KILL).await;
                let _ = channel.close().await;
                return Err(timed_out());
            }
            Ok(Err(e)) => return Err(e),
            Ok(Ok(())) => {}
        }
        // No exit status and no signal: the connection went away mid-command (crates.md: an
        // inactivity timeout looks like this too), so the output may be incomplete.
        if out.exit_status.is_none() && !signalled {
            return Err(TransportError::Session(format!("connection lost before `{command}` finished")));
        }
        Ok(())
    }

    /// The most a command keeps of each stream (`--max-output`).
    pub fn max_output(&self) -> usize {
        self.options.max_output
    }

    /// Says goodbye to the server.
    pub async fn close(self) {
        let _ = self.handle.disconnect(Disconnect::ByApplication, "", "en").await;
    }
}

/// How many times a failure to connect is retried: a cut handshake `retries` times; a refused
/// or unroutable TCP connection once (a host that is down stays down); the others never (a
/// wrong key or a timeout is not cured by asking again).
fn retries_for(e: &TransportError, retries: u32) -> u32 {
    match e {
        TransportError::Protocol(_) => retries,
        TransportError::Unreachable { .. } => retries.min(1),
        _ => 0,
    }
}

/// The wait before retry `attempt` (1, 2...): 2^(attempt-1) seconds and up to one more of jitter.
fn backoff(attempt: u32) -> Duration {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u32(attempt);
    let jitter = Duration::from_millis(hasher.finish() % 1000);
    Duration::from_secs(1 << (attempt - 1).min(5)) + jitter
}

/// Bytes read from a device's socket at once. Enough for the many small packets of a device's
/// commands (a larger read bypasses the buffer), and small, since every session keeps its own
/// for the whole run, counter window included: 8 KiB × 10,000 hosts is 80 MiB.
const READ_BUFFER: usize = 8 * 1024;

/// Handshakes to one address at a time, at most: below sshd's `MaxStartups` start (10).
pub const HANDSHAKES_PER_ADDRESS: usize = 8;

/// Turns for handshakes, per address, shared by every connection of a run.
#[derive(Debug, Default)]
pub struct HandshakeGate {
    by_address: Mutex<std::collections::HashMap<(String, u16), Arc<Semaphore>>>,
}

impl HandshakeGate {
    /// Waits for a turn to hand-shake with `host:port`; the turn ends when the result is dropped.
    async fn turn(&self, host: &str, port: u16) -> Option<tokio::sync::OwnedSemaphorePermit> {
        let semaphore = {
            let mut map = self.by_address.lock().unwrap_or_else(|p| p.into_inner());
            map.entry((host.to_string(), port))
                .or_insert_with(|| Arc::new(Semaphore::new(HANDSHAKES_PER_ADDRESS)))
                .clone()
        };
        semaphore.acquire_owned().await.ok()
    }
}

/// One call of a device's `KnownHostsCommand` for `name`, within `limit` (`key`: the `HOSTNAME`
/// call for it, else `ORDER`); a command that could not be started is noted for the run's end.
async fn ask_command(
    stores: &HostKeyStores,
    command: &KnownHostsCommand,
    name: &str,
    key: Option<&KeyTokens>,
    limit: Duration,
) -> Result<CommandKeys, TransportError> {
    let invocation = if key.is_some() { "HOSTNAME" } else { "ORDER" };
    let stage = format!("KnownHostsCommand ({invocation}) for {name}");
    let keys = tokio::time::timeout(limit, keys_for(command, name, key))
        .await
        .map_err(|_| TransportError::Timeout { stage, after: limit })??;
    if let Some(why) = &keys.unstarted {
        stores.note_unstarted(&format!("{}:{}", command.set_at.file, command.set_at.line), why);
    }
    Ok(keys)
}

async fn connect_once(target: &SshTarget, options: &SshOptions) -> Result<SshSession, TransportError> {
    let rejection = Arc::new(Mutex::new(None));
    let limit = target.connect_timeout.unwrap_or(options.connect_timeout);
    let order = match &target.host_keys.command {
        Some(command) => {
            let name = target.host_keys.lookup(&target.host, target.port).name;
            Some(ask_command(&options.host_keys, command, &name, None, limit).await?)
        }
        None => None,
    };
    let listed = options.host_keys.listed(&target.host_keys, &target.host, target.port, order.as_ref())?;
    let mut preferred = target.algorithms.preferred();
    preferred.key = Cow::Owned(listed_first(&preferred.key, &listed.key_types));
    if listed.authority {
        // Not ssh-rsa-cert-v01: ssh stopped asking for it in 8.8 (a SHA-1 signature).
        let certified = preferred.key.iter().filter(|a| **a != (Algorithm::Rsa { hash: None })).cloned().collect();
        preferred.host_key_certificates = Cow::Owned(certified);
    }
    let verifier = Verifier {
        host: target.host.clone(),
        port: target.port,
        stores: options.host_keys.clone(),
        rule: target.host_keys.clone(),
        rejection: rejection.clone(),
        limit,
    };
    let config = Arc::new(client::Config {
        inactivity_timeout: None,
        keepalive_interval: Some(Duration::from_secs(15)),
        keepalive_max: 3,
        nodelay: true,
        preferred,
        ..Default::default()
    });
    let address = format!("{}:{}", target.host, target.port);
    let timeout = |stage: &str| TransportError::Timeout { stage: format!("{stage} to {address}"), after: limit };

    let (handshake, jump) = match &target.proxy_jump {
        None => {
            let tcp = tokio::time::timeout(limit, TcpStream::connect((target.host.as_str(), target.port)))
                .await
                .map_err(|_| timeout("tcp connect"))?
                .map_err(|e| match is_fd_limit(&e) {
                    true => {
                        TransportError::FdLimit { doing: format!("connecting to {address}"), reason: e.to_string() }
                    }
                    false => TransportError::Unreachable { address: address.clone(), reason: e.to_string() },
                })?;
            let _ = tcp.set_nodelay(true);
            // russh reads each packet in two exact reads (length, then the rest) straight from the
            // stream: unbuffered, that is two `recvfrom` calls per packet, 13 per command. A read
            // buffer takes whatever has arrived in one call (writes pass through unbuffered).
            let tcp = tokio::io::BufReader::with_capacity(READ_BUFFER, tcp);
            (tokio::time::timeout(limit, client::connect_stream(config, tcp, verifier)).await, None)
        }
        Some(jump_target) => {
            let jump = Box::pin(SshSession::connect(jump_target, options)).await?;
            let channel = jump
                .handle
                .channel_open_direct_tcpip(target.host.clone(), u32::from(target.port), "127.0.0.1", 0)
                .await
                .map_err(|e| TransportError::Unreachable {
                    address: address.clone(),
                    reason: format!("via jump host: {e}"),
                })?;
            let stream = channel.into_stream();
            (tokio::time::timeout(limit, client::connect_stream(config, stream, verifier)).await, Some(Box::new(jump)))
        }
    };
    let mut handle = match handshake {
        Err(_) => return Err(timeout("ssh handshake")),
        Ok(Err(e)) => {
            let rejected = rejection.lock().unwrap_or_else(|p| p.into_inner()).take();
            let refused = match e {
                russh::Error::Disconnect => TransportError::Protocol(format!(
                    "ssh handshake with {address}: the server closed the connection before the handshake finished (not an SSH server, or sshd's MaxStartups dropping it)"
                )),
                e @ russh::Error::NoCommonAlgo { .. } => TransportError::NoCommonAlgorithm(format!(
                    "ssh handshake with {address}: {e} ({})",
                    target.algorithms.remedy()
                )),
                other => TransportError::Protocol(format!("ssh handshake with {address}: {other}")),
            };
            return Err(rejected.unwrap_or(refused));
        }
        Ok(Ok(handle)) => handle,
    };
    let auth_limit = options.auth_timeout;
    tokio::time::timeout(auth_limit, authenticate(&mut handle, target, options))
        .await
        .map_err(|_| TransportError::Timeout { stage: format!("authentication to {address}"), after: auth_limit })??;
    let slots = options.channels.max(1);
    Ok(SshSession {
        handle,
        channels: Semaphore::new(slots),
        slots: AtomicUsize::new(slots),
        options: options.clone(),
        _jump: jump,
    })
}

/// Tries each key file, then each agent key, as `ssh` does.
async fn authenticate(
    handle: &mut Handle<Verifier>,
    target: &SshTarget,
    options: &SshOptions,
) -> Result<(), TransportError> {
    let mut tried = Vec::new();
    let session_lost = |e: russh::Error| TransportError::Protocol(format!("authentication: {e}"));
    let rsa_hash = handle.best_supported_rsa_hash().await.map_err(session_lost)?.flatten();
    for file in identity_files(target) {
        let loaded = options.keys.get(&file)?;
        let identity = match &*loaded {
            Ok(identity) => identity,
            Err(e) => {
                tried.push(format!("{}: unusable ({e})", file.display()));
                continue;
            }
        };
        let result = match identity.fast_signer() {
            Some((public, mut signer)) => handle
                .authenticate_publickey_with(&target.user, public, None, &mut signer)
                .await
                .map_err(|e| TransportError::Protocol(format!("authentication: {e}")))?,
            None => {
                let key = PrivateKeyWithHashAlg::new(identity.key.clone(), rsa_hash);
                handle.authenticate_publickey(&target.user, key).await.map_err(session_lost)?
            }
        };
        if let AuthResult::Success = result {
            return Ok(());
        }
        tried.push(format!("{}: rejected", file.display()));
    }
    if options.use_agent && std::env::var_os("SSH_AUTH_SOCK").is_some() {
        match AgentClient::connect_env().await {
            Ok(mut agent) => {
                let identities = agent.request_identities().await.unwrap_or_default();
                for identity in identities {
                    let key = identity.public_key().into_owned();
                    let result = handle.authenticate_publickey_with(&target.user, key, rsa_hash, &mut agent).await;
                    if let Ok(AuthResult::Success) = result {
                        return Ok(());
                    }
                }
                tried.push("ssh-agent keys: rejected".into());
            }
            Err(russh::keys::Error::IO(e)) if is_fd_limit(&e) => {
                return Err(TransportError::FdLimit { doing: "reaching ssh-agent".into(), reason: e.to_string() });
            }
            Err(e) => tried.push(format!("ssh-agent: {e}")),
        }
    }
    if tried.is_empty() {
        tried.push("no key file and no ssh-agent".into());
    }
    Err(TransportError::AuthFailed { user: target.user.clone(), tried: tried.join("; ") })
}

/// `offered` with the types of the keys listed for the host first, in the order offered, as ssh
/// orders them (`order_hostkeyalgs`): a host listed with an ECDSA key is asked for that one, not
/// for an Ed25519 key it also has, which would be a changed key. Any RSA key listed puts every
/// RSA signature first.
fn listed_first(offered: &[Algorithm], listed: &[Algorithm]) -> Vec<Algorithm> {
    let rsa = |a: &Algorithm| matches!(a, Algorithm::Rsa { .. });
    let is_listed = |a: &Algorithm| listed.iter().any(|l| l == a || (rsa(l) && rsa(a)));
    let (first, rest): (Vec<Algorithm>, Vec<Algorithm>) = offered.iter().cloned().partition(is_listed);
    first.into_iter().chain(rest).collect()
}

/// The target's key files, or OpenSSH's defaults that exist.
fn identity_files(target: &SshTarget) -> Vec<PathBuf> {
    if !target.identity_files.is_empty() {
        return target.identity_files.clone();
    }
    let Some(home) = std::env::var_os("HOME") else {
        return Vec::new();
    };
    let ssh = PathBuf::from(home).join(".ssh");
    ["id_ed25519", "id_ecdsa", "id_rsa"].iter().map(|n| ssh.join(n)).filter(|p| p.exists()).collect()
}
