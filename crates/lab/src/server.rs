//! The lab's SSH side: one russh server per simulated host, and the files an auditor needs to
//! reach them (inventory, known_hosts, client key).

use crate::build::healthy_host;
use crate::faults::{self, Fault};
use crate::shell;
use crate::state::LabHost;
use russh::keys::ssh_key::LineEnding;
use russh::keys::{Algorithm, PrivateKey, PublicKey};
use russh::server::{Auth, Handle, Msg, Session};
use russh::{Channel, ChannelId};
use std::fmt::Write as _;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::TcpListener;
use tokio::task::JoinSet;

/// What to build.
#[derive(Debug, Clone)]
pub struct LabConfig {
    /// Number of GPU hosts.
    pub hosts: usize,
    /// Faults to inject.
    pub faults: Vec<Fault>,
    /// Where the inventory, known_hosts and client key are written.
    pub dir: PathBuf,
}

/// Why the lab could not start.
#[derive(Debug, thiserror::Error)]
pub enum LabError {
    /// A fault names a host or NIC the lab does not have.
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

/// A running lab. Dropping it stops every server.
pub struct Lab {
    hosts: Arc<Vec<LabHost>>,
    addrs: Vec<SocketAddr>,
    dir: PathBuf,
    tasks: JoinSet<()>,
}

/// The user name the lab's inventory logs in as.
pub const LAB_USER: &str = "fabcheck";

struct Shared {
    hosts: Arc<Vec<LabHost>>,
    client_key: PublicKey,
    started: Instant,
}

impl Lab {
    /// Builds the hosts, applies the faults, binds one loopback port per host and writes
    /// `inventory.ini`, `known_hosts` and `id_ed25519` into `config.dir`.
    pub async fn start(config: LabConfig) -> Result<Lab, LabError> {
        let mut hosts: Vec<LabHost> = (0..config.hosts).map(healthy_host).collect();
        for fault in &config.faults {
            let bad = |reason: String| LabError::BadFault { fault: fault.to_string(), reason };
            let host = hosts
                .iter_mut()
                .find(|h| h.name == fault.host)
                .ok_or_else(|| bad(format!("no host `{}` in a lab of {}", fault.host, config.hosts)))?;
            faults::apply(host, fault).map_err(bad)?;
        }
        let hosts = Arc::new(hosts);
        let io = |what, path: &Path| {
            let path = path.display().to_string();
            move |source| LabError::Io { what, path, source }
        };
        std::fs::create_dir_all(&config.dir).map_err(io("creating", &config.dir))?;

        let client = random_key()?;
        let key_path = config.dir.join("id_ed25519");
        write_private(&key_path, &client)?;
        let shared =
            Arc::new(Shared { hosts: hosts.clone(), client_key: client.public_key().clone(), started: Instant::now() });

        let mut tasks = JoinSet::new();
        let mut addrs = Vec::with_capacity(hosts.len());
        let mut known_hosts = String::new();
        for (index, host) in hosts.iter().enumerate() {
            let listener =
                TcpListener::bind(("127.0.0.1", 0)).await.map_err(io("binding", Path::new("127.0.0.1:0")))?;
            let addr = listener.local_addr().map_err(io("binding", Path::new("127.0.0.1:0")))?;
            addrs.push(addr);
            let key = random_key()?;
            let _ = writeln!(known_hosts, "[{}]:{} {}", addr.ip(), addr.port(), openssh_public(&key)?);
            let presented = if host.ssh.change_host_key { random_key()? } else { key };
            if host.ssh.refuse {
                drop(listener); // Nothing listens: connections are refused.
            } else if host.ssh.hang_banner {
                tasks.spawn(accept_and_hang(listener));
            } else {
                tasks.spawn(serve(listener, presented, shared.clone(), index));
            }
        }
        let kh_path = config.dir.join("known_hosts");
        std::fs::write(&kh_path, known_hosts).map_err(io("writing", &kh_path))?;
        let inv_path = config.dir.join("inventory.ini");
        std::fs::write(&inv_path, inventory(&hosts, &addrs, &key_path)).map_err(io("writing", &inv_path))?;
        Ok(Lab { hosts, addrs, dir: config.dir, tasks })
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
        self.hosts.iter().map(|h| h.name.as_str()).zip(self.addrs.iter().copied())
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

/// The lab's Ansible inventory: one `[gpu]` group, address and port per host.
fn inventory(hosts: &[LabHost], addrs: &[SocketAddr], key: &Path) -> String {
    let mut out =
        String::from("# Written by `fabcheck lab`: the simulated GPU hosts, one loopback port each.\n[gpu]\n");
    for (host, addr) in hosts.iter().zip(addrs) {
        let _ = writeln!(out, "{} ansible_host={} ansible_port={}", host.name, addr.ip(), addr.port());
    }
    let _ = write!(
        out,
        "\n[gpu:vars]\nfabcheck_role=host\nfabcheck_platform=linux\nansible_user={LAB_USER}\nansible_ssh_private_key_file={}\n",
        key.display()
    );
    out
}

async fn accept_and_hang(listener: TcpListener) {
    let mut held = Vec::new();
    while let Ok((socket, _)) = listener.accept().await {
        held.push(socket); // Keep it open, say nothing.
    }
}

async fn serve(listener: TcpListener, key: PrivateKey, shared: Arc<Shared>, host: usize) {
    let config = Arc::new(russh::server::Config {
        keys: vec![key],
        auth_rejection_time: Duration::from_millis(5),
        auth_rejection_time_initial: Some(Duration::ZERO),
        inactivity_timeout: Some(Duration::from_secs(600)),
        ..Default::default()
    });
    let mut server = Server { shared, host };
    let _ = russh::server::Server::run_on_socket(&mut server, config, &listener).await;
}

#[derive(Clone)]
struct Server {
    shared: Arc<Shared>,
    host: usize,
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
        let host = &self.shared.hosts[self.host];
        if host.ssh.hang_commands {
            return Ok(()); // The command "runs" forever: no output, no exit status.
        }
        let command = String::from_utf8_lossy(data);
        let out = shell::exec(&self.shared.hosts, self.host, &command, self.shared.started.elapsed());
        if out.marks.is_empty() && !out.hangs {
            if !out.stdout.is_empty() {
                session.data(channel, out.stdout.into_bytes())?;
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
        let host = &self.shared.hosts[self.host];
        if !host.ssh.deny_auth && key.key_data() == self.shared.client_key.key_data() {
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
            hosts,
            faults: faults.iter().map(|f| f.parse().unwrap()).collect(),
            dir: dir.path().join("lab"),
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
