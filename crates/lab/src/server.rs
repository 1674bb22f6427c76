//! The lab's SSH side: one russh server per simulated device (host or switch), and the files an
//! auditor needs to reach them (inventory, known_hosts, client key).

use crate::build::{build_fabric, build_fabric_on, build_fabric_with_platforms, default_platforms};
use crate::design::Design;
use crate::faults::{self, Fault};
use crate::shell;
use crate::state::{Fabric, Platform, SshBehaviour, SwitchRole};
use russh::keys::ssh_key::LineEnding;
use russh::keys::{Algorithm, PrivateKey, PublicKey};
use russh::server::{Auth, Handle, Msg, Session};
use russh::{Channel, ChannelId};
use std::fmt::Write as _;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard};
use std::time::{Duration, Instant};
use tokio::net::TcpListener;
use tokio::task::JoinSet;

/// What to build.
#[derive(Debug, Clone)]
pub struct LabConfig {
    /// Number of GPU hosts.
    pub hosts: usize,
    /// Number of leaf switches (0: hosts only, on no switch). Leaf `i` runs SONiC, EOS, NVUE, SONiC
    /// ... by `i`; the hosts are split between the leaves in contiguous blocks.
    pub leaves: usize,
    /// Number of spine switches (NVUE, SONiC, EOS, NVUE ...), each linked to every leaf; none
    /// without leaves.
    pub spines: usize,
    /// Faults to inject.
    pub faults: Vec<Fault>,
    /// Where the inventory, known_hosts and client key are written.
    pub dir: PathBuf,
    /// Channels a NIC, for hosts of real size ([`crate::build::with_channels`]); `None` keeps
    /// the default lab's 8 IRQs a NIC, 32 CPUs and no per-queue counters.
    pub channels: Option<u32>,
}

impl LabConfig {
    /// The command line's default fabric: two leaves (SONiC, EOS) and two spines (NVUE, SONiC).
    pub const DEFAULT_LEAVES: usize = 2;
    /// See [`LabConfig::DEFAULT_LEAVES`].
    pub const DEFAULT_SPINES: usize = 2;

    /// `hosts` hosts on no switch, no fault.
    pub fn hosts_only(hosts: usize, dir: impl Into<PathBuf>) -> LabConfig {
        LabConfig { hosts, leaves: 0, spines: 0, faults: Vec::new(), dir: dir.into(), channels: None }
    }
}

/// Why the lab could not start.
#[derive(Debug, thiserror::Error)]
pub enum LabError {
    /// A fault names a device, NIC or port the lab does not have, or a fault that kind of device
    /// cannot have.
    #[error("fault `{fault}`: {reason}")]
    BadFault {
        /// The fault as given.
        fault: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A file could not be written, or a port could not be bound.
    #[error("{what} {path}: {source}")]
    Io {
        /// What was being done.
        what: &'static str,
        /// The file or address.
        path: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// Key generation failed.
    #[error("generating an ssh key: {0}")]
    Key(String),
}

/// Why [`Lab::run_on`] has no output to give.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// No host or switch of the lab has that name.
    #[error("no device `{0}` in the lab")]
    NoDevice(String),
    /// The command never exits there (a `command-hang` device, a benchmark with a hung host): over
    /// SSH the channel would stay open with no exit status.
    #[error("`{command}` never exits on {device}")]
    Hangs {
        /// The device.
        device: String,
        /// The command.
        command: String,
    },
}

/// A running lab. Dropping it stops every server.
pub struct Lab {
    shared: Arc<Shared>,
    /// Hosts' names, then switches' (they never change: read without the lock).
    names: Vec<String>,
    /// Hosts' addresses, then switches'.
    addrs: Vec<SocketAddr>,
    /// How many of the devices are hosts.
    hosts: usize,
    dir: PathBuf,
    tasks: JoinSet<()>,
}

/// The user name the lab's inventory logs in as.
pub const LAB_USER: &str = "fabcheck";

/// What every connection of the lab shares.
struct Shared {
    /// The devices' state. Commands read it under the read lock, concurrently (an audit of a
    /// thousand hosts only reads); only a configuration command takes the write lock.
    fabric: RwLock<Fabric>,
    /// How each device (hosts, then switches) behaves over SSH: fixed by the faults at start.
    ssh: Vec<SshBehaviour>,
    client_key: PublicKey,
    started: Instant,
}

impl Shared {
    /// How device `d` (hosts, then switches) behaves over SSH.
    fn ssh(&self, d: usize) -> SshBehaviour {
        self.ssh.get(d).copied().unwrap_or_default()
    }

    /// The state, for reading.
    fn read(&self) -> RwLockReadGuard<'_, Fabric> {
        self.fabric.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// What an exec request for `command` on device `device` runs, now; `None` when the device's
    /// commands never finish (`command-hang`). A command that changes its host (see
    /// [`shell::Output::changed`]) is run again under the write lock and its change stored there,
    /// so that it applies to the state as it is then (two concurrent changes never undo each
    /// other) and every later command, on any connection, sees it.
    fn exec(&self, device: usize, command: &str) -> Option<shell::Output> {
        if self.ssh(device).hang_commands {
            return None;
        }
        let elapsed = self.started.elapsed();
        let out = shell::exec_on(&self.read(), device, command, elapsed);
        if out.changed.is_none() {
            return Some(out);
        }
        let mut fabric = self.fabric.write().unwrap_or_else(PoisonError::into_inner);
        let mut out = shell::exec_on(&fabric, device, command, elapsed);
        if let (Some(host), Some(slot)) = (out.changed.take(), fabric.hosts.get_mut(device)) {
            *slot = *host;
        }
        Some(out)
    }
}

impl Lab {
    /// Builds the hosts and switches, applies the faults, binds one loopback port per device and
    /// writes `inventory.ini`, `known_hosts` and `id_ed25519` into `config.dir`.
    pub async fn start(config: LabConfig) -> Result<Lab, LabError> {
        let fabric = build_fabric(config.hosts, config.leaves, config.spines);
        Lab::start_fabric(fabric, config).await
    }

    /// [`Lab::start`] with one leaf per entry of `leaf_platforms` and one spine per entry of
    /// `spine_platforms`, running those platforms (for NX-OS or OS10 switches, which the default
    /// rotation does not include); `config.leaves` and `config.spines` are not used.
    pub async fn start_with_platforms(
        config: LabConfig,
        leaf_platforms: &[Platform],
        spine_platforms: &[Platform],
    ) -> Result<Lab, LabError> {
        let fabric = build_fabric_with_platforms(config.hosts, leaf_platforms, spine_platforms);
        Lab::start_fabric(fabric, config).await
    }

    /// [`Lab::start`] (or, with `platforms`, [`Lab::start_with_platforms`]) with every host and
    /// switch built to `design` instead of the built-in policy's; the faults follow it too, and
    /// one that cannot exist in it is refused ([`crate::faults::exists_in`]).
    pub async fn start_on(
        design: &Design,
        config: LabConfig,
        platforms: Option<(&[Platform], &[Platform])>,
    ) -> Result<Lab, LabError> {
        let platforms = match platforms {
            Some((leaves, spines)) => (leaves.to_vec(), spines.to_vec()),
            None => default_platforms(config.leaves, config.spines),
        };
        Lab::start_fabric(build_fabric_on(design, config.hosts, &platforms), config).await
    }

    async fn start_fabric(mut fabric: Fabric, config: LabConfig) -> Result<Lab, LabError> {
        if let Some(channels) = config.channels {
            fabric.hosts.iter_mut().for_each(|host| crate::build::with_channels(host, channels));
        }
        for fault in &config.faults {
            faults::apply_to_fabric(&mut fabric, fault)
                .map_err(|reason| LabError::BadFault { fault: fault.to_string(), reason })?;
        }
        fabric.started_unix_ns =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
        let io = |what, path: &Path| {
            let path = path.display().to_string();
            move |source| LabError::Io { what, path, source }
        };
        std::fs::create_dir_all(&config.dir).map_err(io("creating", &config.dir))?;

        let client = random_key()?;
        let key_path = config.dir.join("id_ed25519");
        write_private(&key_path, &client)?;
        let hosts = fabric.hosts.iter().map(|h| (h.name.clone(), h.ssh));
        let (names, ssh): (Vec<String>, Vec<SshBehaviour>) =
            hosts.chain(fabric.switches.iter().map(|s| (s.name.clone(), s.ssh))).unzip();
        let hosts = fabric.hosts.len();
        let shared = Arc::new(Shared {
            fabric: RwLock::new(fabric),
            ssh,
            client_key: client.public_key().clone(),
            started: Instant::now(),
        });

        let mut tasks = JoinSet::new();
        let devices = names.len();
        let mut addrs = Vec::with_capacity(devices);
        let mut known_hosts = String::new();
        for device in 0..devices {
            let listener =
                TcpListener::bind(("127.0.0.1", 0)).await.map_err(io("binding", Path::new("127.0.0.1:0")))?;
            let addr = listener.local_addr().map_err(io("binding", Path::new("127.0.0.1:0")))?;
            addrs.push(addr);
            let key = random_key()?;
            let _ = writeln!(known_hosts, "[{}]:{} {}", addr.ip(), addr.port(), openssh_public(&key)?);
            let ssh = shared.ssh(device);
            let presented = if ssh.change_host_key { random_key()? } else { key };
            if ssh.refuse {
                drop(listener); // Nothing listens: connections are refused.
            } else if ssh.hang_banner {
                tasks.spawn(accept_and_hang(listener));
            } else if ssh.not_ssh {
                tasks.spawn(answer_not_ssh(listener));
            } else {
                tasks.spawn(serve(listener, presented, shared.clone(), device, ssh.drop_first));
            }
        }
        let kh_path = config.dir.join("known_hosts");
        std::fs::write(&kh_path, known_hosts).map_err(io("writing", &kh_path))?;
        let inv_path = config.dir.join("inventory.ini");
        let inventory = inventory(&shared.read(), &addrs, &key_path);
        std::fs::write(&inv_path, inventory).map_err(io("writing", &inv_path))?;
        Ok(Lab { shared, names, addrs, hosts, dir: config.dir, tasks })
    }

    /// The Ansible inventory of the lab.
    pub fn inventory_path(&self) -> PathBuf {
        self.dir.join("inventory.ini")
    }

    /// The known_hosts file with every host's key.
    pub fn known_hosts_path(&self) -> PathBuf {
        self.dir.join("known_hosts")
    }

    /// The private key the lab's hosts accept.
    pub fn client_key_path(&self) -> PathBuf {
        self.dir.join("id_ed25519")
    }

    /// Host names and the address each listens on.
    pub fn hosts(&self) -> impl Iterator<Item = (&str, SocketAddr)> {
        self.names.iter().map(String::as_str).zip(self.addrs.iter().copied()).take(self.hosts)
    }

    /// Switch names and the address each listens on (leaves, then spines).
    pub fn switches(&self) -> impl Iterator<Item = (&str, SocketAddr)> {
        self.names.iter().map(String::as_str).zip(self.addrs.iter().copied()).skip(self.hosts)
    }

    /// A copy of the simulated devices as they are now: as built (faults applied), with the
    /// changes configuration commands made since.
    pub fn fabric(&self) -> Fabric {
        self.shared.read().clone()
    }

    /// Runs `command` on the device named `device` (a host or a switch) exactly as an SSH exec
    /// request for it does, through the same dispatch, changes included: what a test needs to
    /// apply a printed fix to a lab host, and then to read the result back. Returns standard
    /// output (binary output, a capture, lossily as text), standard error and the exit status,
    /// once the command has exited: a command that takes time (a benchmark) takes it here too.
    /// Transport faults that stop an SSH session from starting (`refuse`, `auth-denied` ...) do
    /// not apply: the command is run as on a session already open.
    pub async fn run_on(&self, device: &str, command: &str) -> Result<(String, String, u32), RunError> {
        let index = self.names.iter().position(|n| n == device).ok_or_else(|| RunError::NoDevice(device.into()))?;
        let hangs = || RunError::Hangs { device: device.into(), command: command.into() };
        let out = self.shared.exec(index, command).ok_or_else(hangs)?;
        if out.hangs {
            return Err(hangs());
        }
        tokio::time::sleep(out.duration()).await;
        let stdout = match out.binary {
            Some(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            None => out.stdout,
        };
        Ok((stdout, out.stderr, out.status))
    }

    /// Serves until the process is interrupted.
    pub async fn run_forever(mut self) {
        while self.tasks.join_next().await.is_some() {}
        std::future::pending::<()>().await
    }
}

fn random_key() -> Result<PrivateKey, LabError> {
    PrivateKey::random(&mut rand::rng(), Algorithm::Ed25519).map_err(|e| LabError::Key(e.to_string()))
}

fn openssh_public(key: &PrivateKey) -> Result<String, LabError> {
    key.public_key().to_openssh().map_err(|e| LabError::Key(e.to_string()))
}

fn write_private(path: &Path, key: &PrivateKey) -> Result<(), LabError> {
    let text = key.to_openssh(LineEnding::LF).map_err(|e| LabError::Key(e.to_string()))?;
    let io = |source| LabError::Io { what: "writing", path: path.display().to_string(), source };
    std::fs::write(path, text.as_bytes()).map_err(io)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(io)?;
    }
    Ok(())
}

/// The read-only capture command the lab's hosts answer (`audit --capture` runs it on each RoCE
/// port): 2,000 RoCEv2 packets' headers, ten seconds at most.
const CAPTURE: &str =
    "timeout 10 tcpdump -U -i {netdev} --time-stamp-precision nano -w - -c 2000 -s 128 udp dst port 4791";

/// The lab's Ansible inventory: a `[gpu]` group (with the hosts' capture command), then `[leaf]`
/// and `[spine]` groups when the lab has switches, with each device's address, port and
/// (switches) platform.
fn inventory(fabric: &Fabric, addrs: &[SocketAddr], key: &Path) -> String {
    let what = if fabric.switches.is_empty() { "the simulated GPU hosts" } else { "the simulated fabric" };
    let mut out = format!("# Written by `fabcheck lab`: {what}, one loopback port each.\n[gpu]\n");
    for (host, addr) in fabric.hosts.iter().zip(addrs) {
        let _ = writeln!(
            out,
            "{} ansible_host={} ansible_port={} fabcheck_capture_command=\"{CAPTURE}\"",
            host.name,
            addr.ip(),
            addr.port()
        );
    }
    let vars = format!("ansible_user={LAB_USER}\nansible_ssh_private_key_file={}\n", key.display());
    let _ = write!(out, "\n[gpu:vars]\nfabcheck_role=host\nfabcheck_platform=linux\n{vars}");
    let switch_addrs = &addrs[fabric.hosts.len().min(addrs.len())..];
    for role in [SwitchRole::Leaf, SwitchRole::Spine] {
        let members: Vec<_> = fabric.switches.iter().zip(switch_addrs).filter(|(s, _)| s.role == role).collect();
        if members.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n[{}]", role.name());
        for (s, addr) in members {
            let _ = writeln!(
                out,
                "{} ansible_host={} ansible_port={} fabcheck_role={} fabcheck_platform={}",
                s.name,
                addr.ip(),
                addr.port(),
                role.name(),
                s.platform.name()
            );
        }
        let _ = write!(out, "\n[{}:vars]\n{vars}", role.name());
    }
    out
}

async fn accept_and_hang(listener: TcpListener) {
    let mut held = Vec::new();
    while let Ok((socket, _)) = listener.accept().await {
        held.push(socket); // Keep it open, say nothing.
    }
}

/// A web server where SSH was expected: an HTTP error page, then the connection closes.
async fn answer_not_ssh(listener: TcpListener) {
    use tokio::io::AsyncWriteExt as _;
    while let Ok((mut socket, _)) = listener.accept().await {
        let page =
            "HTTP/1.1 400 Bad Request\r\nContent-Type: text/html\r\nConnection: close\r\n\r\n<html>400</html>\r\n";
        let _ = socket.write_all(page.as_bytes()).await;
        let _ = socket.shutdown().await;
    }
}

/// Serves SSH on `listener`, after closing the first `drop_first` connections as soon as they
/// are accepted (sshd's `MaxStartups` under a burst of connections).
async fn serve(listener: TcpListener, key: PrivateKey, shared: Arc<Shared>, device: usize, drop_first: u32) {
    for _ in 0..drop_first {
        match listener.accept().await {
            Ok((socket, _)) => drop(socket),
            Err(_) => return,
        }
    }
    let config = Arc::new(russh::server::Config {
        keys: vec![key],
        auth_rejection_time: Duration::from_millis(5),
        auth_rejection_time_initial: Some(Duration::ZERO),
        inactivity_timeout: Some(Duration::from_secs(600)),
        ..Default::default()
    });
    let mut server = Server { shared, device };
    let _ = russh::server::Server::run_on_socket(&mut server, config, &listener).await;
}

#[derive(Clone)]
struct Server {
    shared: Arc<Shared>,
    /// Hosts first, then switches.
    device: usize,
}

impl russh::server::Server for Server {
    type Handler = Server;
    fn new_client(&mut self, _: Option<SocketAddr>) -> Server {
        self.clone()
    }
}

impl russh::server::Handler for Server {
    type Error = russh::Error;

    async fn auth_publickey_offered(
        &mut self,
        _user: &str,
        offer: russh::server::PublicKeyOffer<'_>,
    ) -> Result<Auth, Self::Error> {
        Ok(self.judge(offer.public_key))
    }

    async fn auth_publickey(
        &mut self,
        _user: &str,
        key: russh::server::VerifiedPublicKey<'_>,
    ) -> Result<Auth, Self::Error> {
        Ok(self.judge(key.public_key))
    }

    async fn channel_open_session(
        &mut self,
        _channel: Channel<Msg>,
        reply: russh::server::ChannelOpenHandle,
        _session: &mut Session,
    ) -> Result<(), Self::Error> {
        reply.accept().await;
        Ok(())
    }

    async fn exec_request(
        &mut self,
        channel: ChannelId,
        data: &[u8],
        session: &mut Session,
    ) -> Result<(), Self::Error> {
        session.channel_success(channel)?;
        let command = String::from_utf8_lossy(data);
        let Some(out) = self.shared.exec(self.device, &command) else {
            return Ok(()); // The command "runs" forever: no output, no exit status.
        };
        if out.marks.is_empty() && !out.hangs {
            let stdout = out.binary.unwrap_or_else(|| out.stdout.into_bytes());
            if !stdout.is_empty() {
                session.data(channel, stdout)?;
            }
            if !out.stderr.is_empty() {
                session.extended_data(channel, 1, out.stderr.into_bytes())?;
            }
            session.exit_status_request(channel, out.status)?;
            session.eof(channel)?;
            session.close(channel)?;
        } else {
            // A command that takes time (a benchmark): play its output out from a task, so the
            // connection's other channels (pairs of a pairwise run) go on meanwhile.
            tokio::spawn(play(session.handle(), channel, out));
        }
        Ok(())
    }
}

/// Writes `out` on `channel` as its marks say, then exits, unless the command hangs: then the
/// channel stays open with no exit status until the client gives up.
async fn play(handle: Handle, channel: ChannelId, out: shell::Output) {
    let start = tokio::time::Instant::now();
    let (mut o, mut e) = (0, 0);
    let end = shell::Mark { at: out.duration(), stdout: out.stdout.len(), stderr: out.stderr.len() };
    let marks = out.marks.iter().copied();
    let marks: Vec<shell::Mark> = if out.hangs { marks.collect() } else { marks.chain(std::iter::once(end)).collect() };
    for m in marks {
        tokio::time::sleep_until(start + m.at).await;
        if m.stdout > o {
            let chunk = out.stdout.as_bytes()[o..m.stdout].to_vec();
            if handle.data(channel, chunk).await.is_err() {
                return;
            }
            o = m.stdout;
        }
        if m.stderr > e {
            let chunk = out.stderr.as_bytes()[e..m.stderr].to_vec();
            if handle.extended_data(channel, 1, chunk).await.is_err() {
                return;
            }
            e = m.stderr;
        }
    }
    if out.hangs {
        return;
    }
    let _ = handle.exit_status_request(channel, out.status).await;
    let _ = handle.eof(channel).await;
    let _ = handle.close(channel).await;
}

impl Server {
    fn judge(&self, key: &PublicKey) -> Auth {
        if !self.shared.ssh(self.device).deny_auth && key.key_data() == self.shared.client_key.key_data() {
            Auth::Accept
        } else {
            Auth::reject()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use russh::ChannelMsg;
    use russh::client::{self, AuthResult};
    use russh::keys::{PrivateKeyWithHashAlg, PublicKeyOrCertificate};
    use std::sync::atomic::{AtomicUsize, Ordering};

    struct AnyKey;

    impl client::Handler for AnyKey {
        type Error = russh::Error;

        async fn check_server_key(&mut self, _key: &PublicKeyOrCertificate) -> Result<bool, Self::Error> {
            Ok(true)
        }
    }

    async fn start(hosts: usize, faults: &[&str]) -> (Lab, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let lab = Lab::start(LabConfig {
            faults: faults.iter().map(|f| f.parse().unwrap()).collect(),
            ..LabConfig::hosts_only(hosts, dir.path().join("lab"))
        })
        .await
        .unwrap();
        (lab, dir)
    }

    async fn connect(lab: &Lab, host: usize) -> client::Handle<AnyKey> {
        let config = Arc::new(client::Config::default());
        let mut handle = client::connect(config, lab.addrs[host], AnyKey).await.unwrap();
        let key = russh::keys::load_secret_key(lab.client_key_path(), None).unwrap();
        let auth =
            handle.authenticate_publickey(LAB_USER, PrivateKeyWithHashAlg::new(Arc::new(key), None)).await.unwrap();
        assert!(matches!(auth, AuthResult::Success));
        handle
    }

    /// Runs `command` on a new channel: stdout, exit status, and the order it finished in.
    async fn exec(handle: &client::Handle<AnyKey>, command: &str, done: &AtomicUsize) -> (String, Option<u32>, usize) {
        let mut channel = handle.channel_open_session().await.unwrap();
        channel.exec(true, command).await.unwrap();
        let (mut out, mut status) = (Vec::new(), None);
        while let Some(msg) = channel.wait().await {
            match msg {
                ChannelMsg::Data { data } => out.extend_from_slice(&data),
                ChannelMsg::ExitStatus { exit_status } => status = Some(exit_status),
                ChannelMsg::Close => break,
                _ => {}
            }
        }
        let order = done.fetch_add(1, Ordering::SeqCst);
        (String::from_utf8(out).unwrap(), status, order)
    }

    const PAIR: &str = "mpirun --allow-run-as-root -np 16 -H gpu001:8,gpu002:8 -x NCCL_DEBUG=INFO all_reduce_perf -b 8 -e 8G -f 2 -g 1";

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_benchmark_streams_without_blocking_other_channels_or_pairs() {
        let (lab, _dir) = start(4, &[]).await;
        let (a, b) = (connect(&lab, 0).await, connect(&lab, 2).await);
        let done = AtomicUsize::new(0);
        let pair_b = PAIR.replace("gpu001", "gpu003").replace("gpu002", "gpu004");
        let (first, quick, second) = tokio::join!(
            exec(&a, PAIR, &done),
            async {
                // Sent once the benchmark is running on the same connection.
                tokio::time::sleep(Duration::from_millis(50)).await;
                exec(&a, "hostname", &done).await
            },
            exec(&b, &pair_b, &done),
        );
        assert_eq!((quick.0.as_str(), quick.1, quick.2), ("gpu001\n", Some(0), 0));
        for (out, status, _) in [&first, &second] {
            assert_eq!(*status, Some(0));
            assert!(out.contains("# Avg bus bandwidth    : "), "{out}");
            assert!(out.ends_with("#\n\n"));
        }
        assert!(first.0.contains("on     gpu002 device  7"));
        assert!(second.0.contains("on     gpu004 device  7"));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn switches_listen_and_are_in_the_inventory() {
        let dir = tempfile::tempdir().unwrap();
        let config = LabConfig {
            leaves: LabConfig::DEFAULT_LEAVES,
            spines: LabConfig::DEFAULT_SPINES,
            faults: vec!["leaf2=pfcwd-off@Ethernet2/1".parse().unwrap()],
            ..LabConfig::hosts_only(4, dir.path().join("lab"))
        };
        let lab = Lab::start(config).await.unwrap();
        let names: Vec<&str> = lab.switches().map(|(n, _)| n).collect();
        assert_eq!(names, ["leaf1", "leaf2", "spine1", "spine2"]);
        assert_eq!(lab.hosts().count(), 4);
        let inventory = std::fs::read_to_string(lab.inventory_path()).unwrap();
        let (_, leaf2) = lab.switches().nth(1).unwrap();
        assert!(inventory.contains(&format!(
            "\n[leaf]\nleaf1 ansible_host=127.0.0.1 ansible_port={} fabcheck_role=leaf fabcheck_platform=sonic\nleaf2 ansible_host=127.0.0.1 ansible_port={} fabcheck_role=leaf fabcheck_platform=eos\n",
            lab.addrs[4].port(),
            leaf2.port()
        )));
        assert!(inventory.contains("fabcheck_role=spine fabcheck_platform=nvue\n"));
        assert!(inventory.contains("\n[spine:vars]\nansible_user=fabcheck\n"));
        assert_eq!(std::fs::read_to_string(lab.known_hosts_path()).unwrap().lines().count(), 8);
        // An EOS switch over SSH: its CLI, the fault in its configuration.
        let handle = connect(&lab, 5).await;
        let (config, status, _) = exec(&handle, "show running-config", &AtomicUsize::new(0)).await;
        assert_eq!(status, Some(0));
        assert!(config.contains("interface Ethernet2/1\n   description gpu003:ens2np0\n"));
        assert_eq!(config.matches("no priority-flow-control pause watchdog").count(), 1);
        let (out, status, _) = exec(&handle, "show version", &AtomicUsize::new(0)).await;
        assert_eq!((out.as_str(), status), ("% Invalid input (at token 1: 'version')\n", Some(1)));
        // A host sees its leaf.
        let handle = connect(&lab, 0).await;
        let (lldp, status, _) = exec(&handle, "lldpctl", &AtomicUsize::new(0)).await;
        assert_eq!(status, Some(0));
        assert!(lldp.contains("    SysName:      leaf1\n") && lldp.contains("    PortID:       local Ethernet4\n"));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn hosts_only_inventory_is_unchanged() {
        let (lab, _dir) = start(2, &[]).await;
        let inventory = std::fs::read_to_string(lab.inventory_path()).unwrap();
        assert!(inventory.starts_with(
            "# Written by `fabcheck lab`: the simulated GPU hosts, one loopback port each.\n[gpu]\ngpu001 "
        ));
        assert!(inventory.ends_with(&format!("\n[gpu:vars]\nfabcheck_role=host\nfabcheck_platform=linux\nansible_user=fabcheck\nansible_ssh_private_key_file={}\n", lab.client_key_path().display())));
        assert_eq!(lab.switches().count(), 0);
        let err = Lab::start(LabConfig {
            faults: vec!["leaf1=ecn-off".parse().unwrap()],
            ..LabConfig::hosts_only(2, lab.dir.join("again"))
        })
        .await
        .err()
        .unwrap();
        assert_eq!(err.to_string(), "fault `leaf1=ecn-off`: no device `leaf1` in a lab of 2 hosts and 0 switches");
    }

    /// A fix sent over SSH changes the host for every connection, and `run_on` agrees with SSH.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_fix_over_ssh_is_seen_by_every_connection() {
        let (lab, _dir) = start(2, &["gpu001=pfc-off"]).await;
        let (first, second) = (connect(&lab, 0).await, connect(&lab, 0).await);
        let done = AtomicUsize::new(0);
        let read = "timeout -k 2 30 mlnx_qos -i ens1np0";
        let (broken, _, _) = exec(&second, read, &done).await;
        assert!(broken.contains("\tenabled     0   0   0   0   0   0   0   0   \n"), "{broken}");
        let (printed, status, _) = exec(&first, "sudo mlnx_qos -i ens1np0 --pfc 0,0,0,1,0,0,0,0", &done).await;
        assert_eq!(status, Some(0));
        let (fixed, status, _) = exec(&second, read, &done).await;
        assert_eq!((fixed.as_str(), status), (printed.as_str(), Some(0)));
        assert_eq!(lab.run_on("gpu001", read).await.unwrap(), (fixed.clone(), String::new(), 0));
        assert_eq!(lab.run_on("gpu002", read).await.unwrap().0, fixed, "as healthy as gpu002");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_hung_job_keeps_its_channel_open() {
        let (lab, _dir) = start(2, &["gpu002=nccl-hang"]).await;
        let handle = connect(&lab, 0).await;
        let mut channel = handle.channel_open_session().await.unwrap();
        channel.exec(true, PAIR).await.unwrap();
        let mut out = Vec::new();
        while !String::from_utf8_lossy(&out).contains("#        (B)") {
            match channel.wait().await {
                Some(ChannelMsg::Data { data }) => out.extend_from_slice(&data),
                Some(ChannelMsg::Success | ChannelMsg::WindowAdjusted { .. }) => {}
                Some(other) => panic!("{other:?} before the init lines"),
                None => panic!("closed"),
            }
        }
        // Then nothing: no rows, no exit status, no EOF, until the client gives up.
        let quiet = tokio::time::timeout(Duration::from_millis(1500), async {
            loop {
                match channel.wait().await {
                    Some(ChannelMsg::Data { .. } | ChannelMsg::WindowAdjusted { .. }) => {}
                    other => return other,
                }
            }
        })
        .await;
        assert!(quiet.is_err(), "{quiet:?}");
        // The connection still answers.
        let (host, status, _) = exec(&handle, "hostname", &AtomicUsize::new(0)).await;
        assert_eq!((host.as_str(), status), ("gpu001\n", Some(0)));
    }
}
