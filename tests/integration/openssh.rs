//! Interoperability with OpenSSH's sshd on loopback: key authentication, known_hosts written by
//! OpenSSH's own tools (hashed), a changed host key refused, and a command's stdout, stderr and
//! exit status. In CI (CI=true) a missing sshd fails the test instead of skipping it.

use fabcheck::transport::{
    Algorithms, HostKeyRule, KnownHostsFiles, RevocationFiles, SshOptions, SshSession, SshTarget, TransportError,
};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::Arc;
use std::time::{Duration, Instant};

struct Sshd {
    child: Child,
    port: u16,
    dir: tempfile::TempDir,
}

impl Sshd {
    /// The public key `NAME.pub` made in the server's directory.
    fn public(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(format!("{name}.pub"))).unwrap()
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn find(names: &[&str]) -> Option<PathBuf> {
    names.iter().map(PathBuf::from).find(|p| p.exists())
}

/// Starts sshd on a free loopback port, or returns `None` (skip) outside CI when it is missing.
fn start_sshd() -> Option<Sshd> {
    start_sshd_with("")
}

/// As [`start_sshd`], with more sshd_config lines.
fn start_sshd_with(extra_config: &str) -> Option<Sshd> {
    start_sshd_prepared(|_| extra_config.to_string())
}

/// As [`start_sshd`], with the sshd_config lines `prepare` returns once the server's directory
/// holds its keys (`host_key`, `client_key`), before it starts.
fn start_sshd_prepared(prepare: impl FnOnce(&Path) -> String) -> Option<Sshd> {
    let Some(sshd) = find(&["/usr/sbin/sshd", "/usr/bin/sshd", "/usr/local/sbin/sshd"]) else {
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "CI=true but OpenSSH's sshd is not installed: .ci/run must install openssh-server"
        );
        eprintln!("SKIPPED openssh interop: sshd not installed (apt-get install openssh-server)");
        return None;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    keygen(&d.join("host_key"));
    keygen(&d.join("client_key"));
    std::fs::copy(d.join("client_key.pub"), d.join("authorized_keys")).unwrap();
    let extra_config = prepare(d);
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let config = format!(
        "Port {port}\nListenAddress 127.0.0.1\nHostKey {hk}\nAuthorizedKeysFile {ak}\nPidFile {pid}\nStrictModes no\nUsePAM no\n\
         PasswordAuthentication no\nKbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\nLogLevel ERROR\n{extra_config}",
        hk = d.join("host_key").display(),
        ak = d.join("authorized_keys").display(),
        pid = d.join("sshd.pid").display(),
    );
    std::fs::write(d.join("sshd_config"), config).unwrap();
    // Privilege separation needs this directory when sshd runs as root.
    let _ = std::fs::create_dir_all("/run/sshd");
    let child = Command::new(sshd).arg("-D").arg("-e").arg("-f").arg(d.join("sshd_config")).spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "sshd did not start listening on {port}");
        std::thread::sleep(Duration::from_millis(50));
    }
    Some(Sshd { child, port, dir })
}

fn keygen(path: &Path) {
    ssh_keygen(&["-t", "ed25519", "-N", ""], path);
}

/// `ssh-keygen -q ARGS -f PATH`, or `ssh-keygen -q ARGS PATH` when ARGS sign (`-s`).
fn ssh_keygen(args: &[&str], path: &Path) {
    let mut command = Command::new("ssh-keygen");
    command.arg("-q").args(args);
    if !args.contains(&"-s") {
        command.arg("-f");
    }
    assert!(command.arg(path).status().unwrap().success(), "{command:?}");
}

fn user() -> String {
    std::env::var("USER").unwrap_or_else(|_| "root".into())
}

/// The sshd as a device whose host key is checked against `known_hosts` alone, strictly.
fn target(sshd: &Sshd, key: &str, known_hosts: &Path) -> SshTarget {
    SshTarget {
        host: "127.0.0.1".into(),
        port: sshd.port,
        user: user(),
        identity_files: vec![sshd.dir.path().join(key)],
        proxy_jump: None,
        algorithms: Arc::new(Algorithms::modern()),
        connect_timeout: None,
        host_keys: HostKeyRule {
            files: Arc::new(KnownHostsFiles { user: vec![known_hosts.to_path_buf()], global: Vec::new() }),
            accept_new: false,
            revoked: None,
            alias: None,
            ca_signatures: None,
            command: None,
        },
        config_error: None,
    }
}

/// `target` with a key not seen before recorded and trusted.
fn accepting_new(mut target: SshTarget) -> SshTarget {
    target.host_keys.accept_new = true;
    target
}

fn options() -> SshOptions {
    SshOptions {
        connect_timeout: Duration::from_secs(10),
        auth_timeout: Duration::from_secs(10),
        command_timeout: Duration::from_secs(10),
        max_output: 1 << 20,
        channels: 8,
        retries: 2,
        use_agent: false,
        host_keys: Arc::default(),
        handshakes: Arc::default(),
        keys: Arc::default(),
    }
}

/// known_hosts as OpenSSH writes it for this server: `ssh-keyscan -H` (hashed names).
fn keyscan(sshd: &Sshd) -> PathBuf {
    let out = Command::new("ssh-keyscan")
        .args(["-H", "-t", "ed25519", "-p", &sshd.port.to_string(), "127.0.0.1"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("|1|"), "ssh-keyscan -H gave {text:?}");
    let path = sshd.dir.path().join("known_hosts");
    std::fs::write(&path, text).unwrap();
    path
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

#[test]
fn key_auth_and_a_commands_stdout_stderr_and_exit_status() {
    let Some(sshd) = start_sshd() else { return };
    let kh = keyscan(&sshd);
    rt().block_on(async {
        let session = SshSession::connect(&target(&sshd, "client_key", &kh), &options()).await.unwrap();
        let out = session.run("echo out; echo err >&2; exit 3").await.unwrap();
        assert_eq!(out.stdout, b"out\n");
        assert_eq!(out.stderr, b"err\n");
        assert_eq!(out.exit_status, Some(3));
        let missing = session.run("fabcheck-no-such-tool --version").await.unwrap();
        assert_eq!(missing.exit_status, Some(127));
        session.close().await;
    });
}

#[test]
fn a_changed_host_key_is_refused() {
    let Some(sshd) = start_sshd() else { return };
    let other = sshd.dir.path().join("other_key");
    keygen(&other);
    let pubkey = std::fs::read_to_string(other.with_extension("pub")).unwrap();
    let kh = sshd.dir.path().join("known_hosts");
    std::fs::write(&kh, format!("[127.0.0.1]:{} {}", sshd.port, pubkey)).unwrap();
    rt().block_on(async {
        let err =
            SshSession::connect(&accepting_new(target(&sshd, "client_key", &kh)), &options()).await.err().unwrap();
        assert!(matches!(err, TransportError::HostKeyMismatch { .. }), "{err}");
        assert_eq!(err.code(), "ssh.hostkey_mismatch");
    });
}

#[test]
fn an_unknown_host_is_refused_unless_accept_new_which_records_it() {
    let Some(sshd) = start_sshd() else { return };
    let kh = sshd.dir.path().join("known_hosts");
    rt().block_on(async {
        let err = SshSession::connect(&target(&sshd, "client_key", &kh), &options()).await.err().unwrap();
        assert_eq!(err.code(), "ssh.hostkey_unknown", "{err}");
        SshSession::connect(&accepting_new(target(&sshd, "client_key", &kh)), &options()).await.unwrap().close().await;
        let recorded = std::fs::read_to_string(&kh).unwrap();
        assert!(recorded.starts_with(&format!("[127.0.0.1]:{} ssh-ed25519 ", sshd.port)), "{recorded}");
        // Now strict checking accepts it.
        SshSession::connect(&target(&sshd, "client_key", &kh), &options()).await.unwrap().close().await;
    });
}

/// OpenSSH's sshd presenting a host certificate signed by `ssh-keygen -s CA -h -n 127.0.0.1`:
/// trusted through the `@cert-authority` listed for it with no host key listed, unless a KRL
/// made by ssh-keygen revokes its key ID; reached by a name it does not give, or signed by an
/// authority not listed, judged by its plain key alone, as ssh does (refused when that key is
/// not listed, trusted when it is).
#[test]
fn a_host_certificate_is_trusted_through_its_listed_authority() {
    let Some(sshd) = start_sshd_prepared(|d| {
        keygen(&d.join("ca"));
        keygen(&d.join("other_ca"));
        let ca = d.join("ca").display().to_string();
        ssh_keygen(&["-s", &ca, "-I", "fabcheck-test", "-h", "-n", "127.0.0.1"], &d.join("host_key.pub"));
        format!("HostCertificate {}\n", d.join("host_key-cert.pub").display())
    }) else {
        return;
    };
    let public = |name: &str| sshd.public(name);
    let kh = sshd.dir.path().join("known_hosts");
    rt().block_on(async {
        std::fs::write(&kh, format!("@cert-authority * {}", public("ca"))).unwrap();
        let session = SshSession::connect(&target(&sshd, "client_key", &kh), &options()).await.unwrap();
        assert_eq!(session.run("echo certified").await.unwrap().stdout, b"certified\n");
        session.close().await;

        // Its key ID revoked for its authority, in a KRL: refused, whatever known_hosts says.
        let (spec, krl) = (sshd.dir.path().join("krl_spec"), sshd.dir.path().join("revoked.krl"));
        std::fs::write(&spec, "id: fabcheck-test\n").unwrap();
        let ca = sshd.dir.path().join("ca.pub").display().to_string();
        ssh_keygen(&["-k", "-s", &ca, "-f", krl.to_str().unwrap()], &spec);
        let mut revoked = target(&sshd, "client_key", &kh);
        revoked.host_keys.revoked =
            Some(Arc::new(RevocationFiles { files: vec![krl.clone()], set_at: "ssh_config:3".into() }));
        let err = SshSession::connect(&revoked, &options()).await.err().unwrap();
        assert_eq!(err.code(), "ssh.hostkey_mismatch", "{err}");
        let why = format!(
            "revoked by {}: its certificate's key ID \"fabcheck-test\" is revoked for its authority",
            krl.display()
        );
        assert!(err.to_string().contains(&why), "{err}");

        // Reached by a name the certificate does not give: its key alone decides, as for ssh.
        let mut by_name = target(&sshd, "client_key", &kh);
        by_name.host = "localhost".into();
        let err = SshSession::connect(&by_name, &options()).await.err().unwrap();
        assert_eq!(err.code(), "ssh.hostkey_mismatch", "{err}");
        let message = err.to_string();
        assert!(message.contains("is not for localhost (its principals: 127.0.0.1); and its key alone"), "{message}");
        let plain = format!("[localhost]:{} {}", sshd.port, public("host_key"));
        std::fs::write(&kh, format!("@cert-authority * {}{plain}", public("ca"))).unwrap();
        SshSession::connect(&by_name, &options()).await.unwrap().close().await;

        let plain = format!("[127.0.0.1]:{} {}", sshd.port, public("host_key"));
        std::fs::write(&kh, format!("@cert-authority * {}{plain}", public("other_ca"))).unwrap();
        SshSession::connect(&target(&sshd, "client_key", &kh), &options()).await.unwrap().close().await;
        std::fs::write(&kh, format!("@cert-authority * {}", public("other_ca"))).unwrap();
        let err = SshSession::connect(&target(&sshd, "client_key", &kh), &options()).await.err().unwrap();
        assert_eq!(err.code(), "ssh.hostkey_unknown", "{err}");
    });
}

/// As ssh, fabcheck asks a host for the key types listed for it first: sshd has an Ed25519 and
/// an ECDSA key, only the ECDSA one is listed, and it is the one presented. Where only a type
/// the server lacks is listed, the key it presents instead is a changed key, never a new one to
/// record.
#[test]
fn the_key_types_listed_for_a_host_are_asked_for_first() {
    let Some(sshd) = start_sshd_prepared(|d| {
        ssh_keygen(&["-t", "ecdsa", "-N", ""], &d.join("host_ecdsa"));
        format!("HostKey {}\n", d.join("host_ecdsa").display())
    }) else {
        return;
    };
    let public = |name: &str| sshd.public(name);
    let kh = sshd.dir.path().join("known_hosts");
    rt().block_on(async {
        std::fs::write(&kh, format!("[127.0.0.1]:{} {}", sshd.port, public("host_ecdsa"))).unwrap();
        SshSession::connect(&target(&sshd, "client_key", &kh), &options()).await.unwrap().close().await;
    });

    let Some(sshd) = start_sshd() else { return };
    let kh = sshd.dir.path().join("known_hosts");
    std::fs::write(&kh, format!("[127.0.0.1]:{} {}", sshd.port, public("host_ecdsa"))).unwrap();
    rt().block_on(async {
        let err =
            SshSession::connect(&accepting_new(target(&sshd, "client_key", &kh)), &options()).await.err().unwrap();
        assert_eq!(err.code(), "ssh.hostkey_mismatch", "{err}");
        assert!(err.to_string().contains("the host is listed with another key, at"), "{err}");
    });
    assert_eq!(std::fs::read_to_string(&kh).unwrap().lines().count(), 1, "nothing recorded");
}

#[test]
fn a_key_sshd_does_not_know_fails_authentication() {
    let Some(sshd) = start_sshd() else { return };
    keygen(&sshd.dir.path().join("stranger"));
    let kh = keyscan(&sshd);
    rt().block_on(async {
        let err = SshSession::connect(&target(&sshd, "stranger", &kh), &options()).await.err().unwrap();
        assert_eq!(err.code(), "ssh.auth_failed", "{err}");
    });
}

/// Through one jump host, and through a chain of two (a `ProxyJump a,b` list), each hop a
/// connection tunnelled through the one before it.
#[test]
fn proxy_jump_through_sshd() {
    let Some(sshd) = start_sshd() else { return };
    let kh = keyscan(&sshd);
    let behind = |jump: Option<Box<SshTarget>>| {
        let mut t = target(&sshd, "client_key", &kh);
        t.proxy_jump = jump;
        Box::new(t)
    };
    let one = behind(Some(behind(None)));
    let two = behind(Some(behind(Some(behind(None)))));
    rt().block_on(async {
        for via in [one, two] {
            let session = SshSession::connect(&via, &options()).await.unwrap();
            let out = session.run("echo through the jump hosts").await.unwrap();
            assert_eq!(out.stdout, b"through the jump hosts\n");
            session.close().await;
        }
    });
}

/// Runs `fabcheck audit` on `inventory` (with `ssh_config`) against the sshd, with `env` set and
/// no inherited agent; returns findings.json and stderr.
fn audit_through_sshd(
    sshd: &Sshd,
    inventory: &str,
    ssh_config: &str,
    known_hosts: &Path,
    env: &[(&str, &std::ffi::OsStr)],
) -> (serde_json::Value, String) {
    audit_through_sshd_with(sshd, inventory, ssh_config, known_hosts, env, &[])
}

/// As [`audit_through_sshd`], with more arguments to `fabcheck audit`.
fn audit_through_sshd_with(
    sshd: &Sshd,
    inventory: &str,
    ssh_config: &str,
    known_hosts: &Path,
    env: &[(&str, &std::ffi::OsStr)],
    args: &[&str],
) -> (serde_json::Value, String) {
    let d = sshd.dir.path();
    std::fs::write(d.join("inventory.ini"), inventory).unwrap();
    std::fs::write(d.join("ssh_config"), ssh_config).unwrap();
    let out = d.join("report");
    let mut command = Command::new(env!("CARGO_BIN_EXE_fabcheck"));
    command
        .args(["audit", "--window", "0", "-i"])
        .arg(d.join("inventory.ini"))
        .arg("--known-hosts")
        .arg(known_hosts)
        .arg("--ssh-config")
        .arg(d.join("ssh_config"))
        .arg("--out")
        .arg(&out)
        .args(args)
        .env_remove("SSH_AUTH_SOCK");
    for (k, v) in env {
        command.env(k, v);
    }
    let run = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
    let text = std::fs::read_to_string(out.join("findings.json")).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    (serde_json::from_str(&text).unwrap(), stderr)
}

#[test]
fn the_binary_audits_a_real_sshd_with_a_key_from_ssh_agent() {
    let Some(sshd) = start_sshd() else { return };
    let d = sshd.dir.path();
    let kh = keyscan(&sshd);
    let socket = d.join("agent.sock");
    let mut agent =
        Command::new("ssh-agent").arg("-D").arg("-a").arg(&socket).stdout(std::process::Stdio::null()).spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !socket.exists() {
        assert!(Instant::now() < deadline, "ssh-agent did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    let added = Command::new("ssh-add").arg(d.join("client_key")).env("SSH_AUTH_SOCK", &socket).output().unwrap();
    assert!(added.status.success(), "{}", String::from_utf8_lossy(&added.stderr));
    // No key file anywhere: HOME is empty and the inventory names none, so only the agent can log in.
    let home = d.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let inventory = format!("[gpu]\nnode1 ansible_host=127.0.0.1 ansible_port={} ansible_user={}\n", sshd.port, user());
    let (json, stderr) = audit_through_sshd(
        &sshd,
        &inventory,
        "",
        &kh,
        &[("HOME", home.as_os_str()), ("SSH_AUTH_SOCK", socket.as_os_str())],
    );
    let _ = agent.kill();
    let _ = agent.wait();
    let out = d.join("report");
    assert_eq!(json["devices"][0]["reachable"], true, "{json:#}\n{stderr}");
    let ssh_findings: Vec<_> = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"].as_str().unwrap().starts_with("ssh."))
        .collect();
    assert!(ssh_findings.is_empty(), "{ssh_findings:#?}");
    let interrupts = std::fs::read_to_string(out.join("evidence/node1/interrupts.txt")).unwrap();
    assert!(interrupts.contains("CPU0"), "the real /proc/interrupts came back over SSH: {interrupts}");
}

#[test]
fn openssh_client_talks_to_the_lab() {
    // The lab must be indistinguishable from a real host to any SSH client, not only to fabcheck.
    if Command::new("ssh").arg("-V").output().is_err() {
        assert_ne!(std::env::var("CI").as_deref(), Ok("true"), "CI=true but the OpenSSH client is missing");
        eprintln!("SKIPPED: ssh client not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut lab = Command::new(env!("CARGO_BIN_EXE_fabcheck"))
        .args(["lab", "--hosts", "2", "--fault", "gpu002=trust-pcp", "--dir"])
        .arg(dir.path())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(lab.stdout.take().unwrap()));
    while let Some(Ok(line)) = lines.next() {
        if line.starts_with("inventory:") {
            break;
        }
    }
    let inventory = std::fs::read_to_string(dir.path().join("inventory.ini")).unwrap();
    let port = |host: &str| {
        let line = inventory.lines().find(|l| l.starts_with(host)).unwrap();
        line.split("ansible_port=").nth(1).unwrap().split_whitespace().next().unwrap().to_string()
    };
    let ssh = |host: &str, command: &str| {
        Command::new("ssh")
            .args(["-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes", "-F", "/dev/null"])
            .arg("-o")
            .arg(format!("UserKnownHostsFile={}", dir.path().join("known_hosts").display()))
            .arg("-i")
            .arg(dir.path().join("id_ed25519"))
            .args(["-p", &port(host), "fabcheck@127.0.0.1", command])
            .output()
            .unwrap()
    };
    let healthy = ssh("gpu001", "mlnx_qos -i ens1np0");
    let faulty = ssh("gpu002", "mlnx_qos -i ens1np0");
    let missing = ssh("gpu001", "no-such-tool --version");
    let _ = lab.kill();
    let _ = lab.wait();
    assert!(healthy.status.success(), "{}", String::from_utf8_lossy(&healthy.stderr));
    assert!(String::from_utf8_lossy(&healthy.stdout).contains("Priority trust state: dscp"));
    assert!(String::from_utf8_lossy(&faulty.stdout).contains("Priority trust state: pcp"));
    assert_eq!(missing.status.code(), Some(127));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no-such-tool: command not found"));
}

#[test]
fn output_beyond_the_cap_is_cut_and_flagged() {
    let Some(sshd) = start_sshd() else { return };
    let kh = keyscan(&sshd);
    let mut opts = options();
    opts.max_output = 1000;
    rt().block_on(async {
        let session = SshSession::connect(&target(&sshd, "client_key", &kh), &opts).await.unwrap();
        let out = session.run("head -c 300000 /dev/zero; echo done >&2").await.unwrap();
        assert_eq!(out.stdout.len(), 1000);
        assert!(out.truncated);
        assert_eq!(out.stderr, b"done\n");
        assert_eq!(out.exit_status, Some(0));
        session.close().await;
    });
}

#[test]
fn ssh_config_supplies_hostname_port_user_and_identity_file() {
    let Some(sshd) = start_sshd() else { return };
    let d = sshd.dir.path();
    let kh = keyscan(&sshd);
    let config = format!(
        "Host gpu-*\n  HostName 127.0.0.1\n  Port {}\n  User {}\n  IdentityFile {}\nHost *\n  Port 1\n",
        sshd.port,
        user(),
        d.join("client_key").display()
    );
    let (json, _) = audit_through_sshd(&sshd, "[gpu]\ngpu-a1\n", &config, &kh, &[("HOME", d.as_os_str())]);
    assert_eq!(
        json["devices"][0]["address"],
        format!("127.0.0.1:{}", sshd.port),
        "first obtained value wins: {json:#}"
    );
    assert_eq!(json["devices"][0]["reachable"], true, "{json:#}");
}

#[test]
fn old_algorithms_are_offered_only_to_a_device_that_asks() {
    // An sshd that speaks only what old switch firmware speaks.
    let Some(sshd) = start_sshd_with("KexAlgorithms diffie-hellman-group14-sha1\nCiphers aes128-cbc\nMACs hmac-sha1\n")
    else {
        return;
    };
    let host_key = std::fs::read_to_string(sshd.dir.path().join("host_key.pub")).unwrap();
    let kh = sshd.dir.path().join("known_hosts");
    std::fs::write(&kh, format!("[127.0.0.1]:{} {host_key}", sshd.port)).unwrap();
    rt().block_on(async {
        let modern = SshSession::connect(&target(&sshd, "client_key", &kh), &options()).await;
        assert!(modern.is_err(), "SHA-1 key exchange is not offered by default");
        let mut old = target(&sshd, "client_key", &kh);
        old.algorithms = Arc::new(Algorithms::legacy());
        let session = SshSession::connect(&old, &options()).await.unwrap();
        assert_eq!(session.run("echo old").await.unwrap().stdout, b"old\n");
        session.close().await;
    });
}

/// The same old sshd reached through the lists an operator writes in ~/.ssh/config for `ssh`
/// (`+` to add to the defaults), by the binary: a name fabcheck does not speak is warned about at
/// its line and left out; a line of a block no device uses is not looked at; a list that leaves
/// nothing, or nothing in common with the server, is that device's finding, and the run goes on.
#[test]
fn ssh_config_algorithm_lists_reach_a_device_that_speaks_only_old_ones() {
    let Some(sshd) = start_sshd_with("KexAlgorithms diffie-hellman-group14-sha1\nCiphers aes128-cbc\nMACs hmac-sha1\n")
    else {
        return;
    };
    let d = sshd.dir.path();
    let host_key = std::fs::read_to_string(d.join("host_key.pub")).unwrap();
    let kh = d.join("known_hosts");
    std::fs::write(&kh, format!("[127.0.0.1]:{} {host_key}", sshd.port)).unwrap();
    let block = format!(
        "Host *\n  HostName 127.0.0.1\n  Port {}\n  User {}\n  IdentityFile {}\n",
        sshd.port,
        user(),
        d.join("client_key").display()
    );
    let home = [("HOME", d.as_os_str())];
    let finding = |json: &serde_json::Value, device: &str| {
        let findings = json["findings"].as_array().unwrap();
        let f = findings.iter().find(|f| f["device"] == device && f["code"].as_str().unwrap().starts_with("ssh."));
        f.map(|f| format!("{} {}", f["code"].as_str().unwrap(), f["message"].as_str().unwrap())).unwrap_or_default()
    };
    let (json, _) = audit_through_sshd(&sshd, "[gpu]\nold-a1\n", &block, &kh, &home);
    assert_eq!(json["devices"][0]["reachable"], false, "not without the lists: {json:#}");
    let told = finding(&json, "old-a1");
    assert!(told.starts_with("ssh.protocol_error no common algorithm: ssh handshake with 127.0.0.1:"), "{told}");
    assert!(told.contains("fabcheck_ssh_legacy=true, or ssh_config's KexAlgorithms"), "says what to do: {told}");

    let config = format!(
        "Host old-*\n  KexAlgorithms +diffie-hellman-group14-sha1\n  Ciphers ^aes128-cbc\n  MACs +hmac-sha1\n  HostKeyAlgorithms ssh-ed25519,ssh-dss\n\
         Host wrong-key-*\n  HostKeyAlgorithms ecdsa-sha2-nistp256\n  KexAlgorithms +diffie-hellman-group14-sha1\n  Ciphers +aes128-cbc\n  MACs +hmac-sha1\n\
         Host no-cipher-*\n  Ciphers 3des-cbc\n\
         Host unused-*\n  Ciphers blowfish-cbc\n{block}"
    );
    let inventory = "[gpu]\nold-a1\nwrong-key-a2\nno-cipher-a3\n";
    let (json, stderr) = audit_through_sshd(&sshd, inventory, &config, &kh, &home);
    let reachable = |name: &str| {
        json["devices"].as_array().unwrap().iter().find(|d| d["name"] == name).map(|d| d["reachable"].clone())
    };
    assert_eq!(reachable("old-a1"), Some(serde_json::json!(true)), "{stderr}\n{json:#}");
    let config_file = d.join("ssh_config").display().to_string();
    assert!(
        stderr.contains(&format!(
            "{config_file}:5: HostKeyAlgorithms: `ssh-dss` not spoken by fabcheck (it speaks ssh-ed25519,"
        )),
        "{stderr}"
    );
    assert!(!stderr.contains("blowfish"), "a block no device uses is not looked at: {stderr}");

    assert_eq!(reachable("wrong-key-a2"), Some(serde_json::json!(false)), "the sshd has an ed25519 host key only");
    let told = finding(&json, "wrong-key-a2");
    assert!(told.contains("No common Key algorithm"), "{told}");

    assert_eq!(reachable("no-cipher-a3"), Some(serde_json::json!(false)));
    let told = finding(&json, "no-cipher-a3");
    assert!(
        told.starts_with(&format!("ssh.protocol_error no common algorithm: nothing to offer 127.0.0.1 (ssh_config): {config_file}:12: Ciphers `3des-cbc` leaves nothing to offer")),
        "{told}"
    );
}

/// A flow collector (`fabcheck_role=collector`) behind a real sshd: its read-only command prints
/// `rdma-flow-record/1` lines (here `cat` of records fabcheck wrote from a real ConnectX capture,
/// with a line that is not a record): the records are judged, the bad line is kept as unread.
#[test]
fn a_collectors_flow_records_are_read_over_real_ssh() {
    let Some(sshd) = start_sshd() else { return };
    let d = sshd.dir.path();
    let kh = keyscan(&sshd);
    let capture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("crates/flows/tests/fixtures/pcap/cx-mlx5-rc-send-write-ack-dscp26-ect0-magnate3.pcap");
    let records = d.join("records.jsonl");
    let wrote = Command::new(env!("CARGO_BIN_EXE_fabcheck"))
        .arg("flows")
        .arg(&capture)
        .arg("--records")
        .arg(&records)
        .output()
        .unwrap();
    assert!(records.exists(), "{}", String::from_utf8_lossy(&wrote.stderr));
    let mut text = std::fs::read_to_string(&records).unwrap();
    let lines = text.lines().count();
    text.push_str("{\"schema\": \"netflow/9\"}\n");
    std::fs::write(&records, text).unwrap();
    let inventory = format!(
        "[collectors]\nflows1 ansible_host=127.0.0.1 ansible_port={} ansible_user={} ansible_ssh_private_key_file={} \
         fabcheck_role=collector fabcheck_flows_command=\"cat {}\"\n",
        sshd.port,
        user(),
        d.join("client_key").display(),
        records.display()
    );
    let (json, stderr) = audit_through_sshd(&sshd, &inventory, "", &kh, &[]);
    assert_eq!(json["devices"][0]["role"], "collector", "{json:#}\n{stderr}");
    assert_eq!((json["summary"]["hosts"].as_u64(), json["summary"]["switches"].as_u64()), (Some(0), Some(0)));
    let codes: Vec<&str> = json["findings"].as_array().unwrap().iter().map(|f| f["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["flow.dscp_mismatch", "flow.dscp_mismatch"], "{json:#}");
    assert_eq!(json["flows_total"], 2, "the two data flows of the capture");
    let unread = &json["devices"][0]["unread"][0];
    assert_eq!(unread["status"], "partial");
    assert_eq!(unread["lines"][0]["line"], lines + 1, "{unread:#}");
    assert!(unread["lines"][0]["why"].as_str().unwrap().contains("schema `netflow/9`"), "{unread:#}");
}

/// A server that allows fewer sessions per connection than fabcheck opens channels (sshd's
/// `MaxSessions`, 2 here): refused channels lower the limit and every command still runs.
#[test]
fn a_session_limit_below_our_channel_count_is_adapted_to() {
    let Some(sshd) = start_sshd_with("MaxSessions 2\n") else { return };
    let kh = keyscan(&sshd);
    rt().block_on(async {
        let session = Arc::new(SshSession::connect(&target(&sshd, "client_key", &kh), &options()).await.unwrap());
        let mut runs = tokio::task::JoinSet::new();
        for i in 0..6 {
            let session = session.clone();
            runs.spawn(async move {
                (i, session.run_bounded(&format!("sleep 0.3; echo {i}"), Duration::from_secs(10)).await)
            });
        }
        while let Some(joined) = runs.join_next().await {
            let (i, (out, result)) = joined.unwrap();
            assert!(result.is_ok(), "command {i}: {result:?}");
            assert_eq!(out.stdout, format!("{i}\n").into_bytes());
        }
        if let Ok(session) = Arc::try_unwrap(session) {
            session.close().await;
        }
    });
}

/// Tools that never end on a real host behind OpenSSH's sshd, logged in as root (where sshd
/// refuses signal requests): the host's own `timeout` stops each at --command-timeout, so no
/// process outlives the run and their sessions end; each is a `collect.command_timeout`
/// finding, and every other command of the host still runs.
#[test]
fn hung_tools_are_stopped_on_the_host_and_the_audit_goes_on() {
    let bin = tempfile::tempdir().unwrap();
    let marker = 700_000 + std::process::id() % 100_000;
    // The tools every host runs (sminfo and saquery run only where there are InfiniBand ports).
    let hung = ["ibdev2netdev", "ibstat", "show_gids", "lsmod", "nvidia-smi"];
    for tool in hung {
        let script = bin.path().join(tool);
        std::fs::write(&script, format!("#!/bin/sh\necho {tool} started\nexec sleep {marker}\n")).unwrap();
        Command::new("chmod").arg("+x").arg(&script).status().unwrap();
    }
    let path = format!("SetEnv PATH={}:/usr/local/bin:/usr/bin:/bin\n", bin.path().display());
    let Some(sshd) = start_sshd_with(&format!("MaxSessions 4\n{path}")) else { return };
    let d = sshd.dir.path();
    let kh = keyscan(&sshd);
    let inventory = format!(
        "[gpu]\nhost1 ansible_host=127.0.0.1 ansible_port={} ansible_user={} ansible_ssh_private_key_file={}\n",
        sshd.port,
        user(),
        d.join("client_key").display()
    );
    let (json, stderr) = audit_through_sshd_with(&sshd, &inventory, "", &kh, &[], &["--command-timeout", "1s"]);
    let findings = json["findings"].as_array().unwrap();
    let stopped: Vec<&str> = findings
        .iter()
        .filter(|f| f["code"] == "collect.command_timeout")
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    let codes: Vec<&str> = findings.iter().map(|f| f["message"].as_str().unwrap()).collect();
    assert_eq!(stopped.len(), hung.len(), "{codes:#?}\n{stderr}");
    assert!(stopped.iter().any(|m| m.starts_with("`lsmod` did not finish within --command-timeout")), "{stopped:#?}");
    assert!(
        !findings.iter().any(|f| f["message"].as_str().unwrap_or("").contains("open channel")),
        "every command got a session: {json:#}"
    );
    let unread = json["devices"][0]["unread"].as_array().unwrap();
    assert!(
        unread.iter().any(|u| u["error"].as_str().unwrap_or("").starts_with("cut short (stopped on the host")),
        "{unread:#?}"
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left = Command::new("pgrep").args(["-f", &format!("sleep {marker}")]).output().unwrap();
        if left.stdout.is_empty() {
            break;
        }
        assert!(Instant::now() < deadline, "still running on the host: {}", String::from_utf8_lossy(&left.stdout));
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// `KnownHostsCommand` against OpenSSH's own client: for one ssh_config, `ssh` and fabcheck call
/// the command with the same arguments, in the same order (`ORDER` before the key exchange,
/// `HOSTNAME` with the key presented). The command lists only sshd's ECDSA key, so both must
/// have asked for that type first (sshd also has an Ed25519 key, which would be a changed key).
#[test]
fn known_hosts_command_is_called_as_openssh_calls_it() {
    let Some(sshd) = start_sshd_prepared(|d| {
        ssh_keygen(&["-t", "ecdsa", "-N", ""], &d.join("host_ecdsa"));
        format!("HostKey {}\n", d.join("host_ecdsa").display())
    }) else {
        return;
    };
    let d = sshd.dir.path();
    let (log, script, listed) = (d.join("calls.log"), d.join("keys.sh"), d.join("listed"));
    // Under both names: OpenSSH before 9.6 asks its `ORDER` call for the host without its port
    // (bz3643).
    let key = sshd.public("host_ecdsa");
    std::fs::write(&listed, format!("[127.0.0.1]:{} {key}127.0.0.1 {key}", sshd.port)).unwrap();
    let text = format!("#!/bin/sh\necho \"$*\" >> {}\ncat {}\n", log.display(), listed.display());
    std::fs::write(&script, text).unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let config = d.join("ssh_config");
    let text = format!(
        "Host sshd-under-test\n  HostName 127.0.0.1\n  Port {port}\n  User {user}\n  IdentityFile {key}\n  \
         UserKnownHostsFile {empty}\n  GlobalKnownHostsFile none\n  BatchMode yes\n  \
         KnownHostsCommand {script} %I %H %n %h %p %r %k %t %f %K %C\n",
        port = sshd.port,
        user = user(),
        key = d.join("client_key").display(),
        empty = d.join("no_known_hosts").display(),
        script = script.display(),
    );
    std::fs::write(&config, &text).unwrap();

    let ssh = Command::new("ssh").arg("-F").arg(&config).args(["sshd-under-test", "true"]).output().unwrap();
    let by_ssh = std::fs::read_to_string(&log).unwrap();
    assert!(ssh.status.success(), "ssh: {}\n{by_ssh}", String::from_utf8_lossy(&ssh.stderr));
    std::fs::remove_file(&log).unwrap();

    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_default();
    let resolved = fabcheck_inventory::SshConfig::parse_with_home(&text, config.to_str().unwrap(), &home)
        .unwrap()
        .with_local_user(&user())
        .resolve("sshd-under-test");
    let mut target = target(&sshd, "client_key", &d.join("no_known_hosts"));
    target.host_keys.command = resolved.host_keys.known_hosts_command.map(Arc::new);
    rt().block_on(async { SshSession::connect(&target, &options()).await.unwrap().close().await });
    let by_fabcheck = std::fs::read_to_string(&log).unwrap();
    let (ours, theirs): (Vec<&str>, Vec<&str>) = (by_fabcheck.lines().collect(), by_ssh.lines().collect());
    assert_eq!((ours.len(), theirs.len()), (2, 2), "{by_fabcheck}\n{by_ssh}");
    assert_eq!(ours[1], theirs[1], "HOSTNAME");
    assert!(ours[1].starts_with("HOSTNAME ") && ours[1].contains(" ecdsa-sha2-nistp256 SHA256:"), "{by_fabcheck}");
    // `ORDER`: the same but for the name, which OpenSSH gives without its port before 9.6.
    let name = format!("[127.0.0.1]:{}", sshd.port);
    assert_eq!(ours[0], theirs[0].replacen("ORDER 127.0.0.1 ", &format!("ORDER {name} "), 1), "ORDER");
    let fixed = openssh_version() >= (9, 6);
    assert_eq!(theirs[0].starts_with(&format!("ORDER {name} ")), fixed, "{by_ssh}");
}

/// The version of OpenSSH's `ssh` here, as (major, minor).
fn openssh_version() -> (u32, u32) {
    let out = Command::new("ssh").arg("-V").output().unwrap();
    let text = String::from_utf8_lossy(&out.stderr).into_owned();
    let version = text.strip_prefix("OpenSSH_").and_then(|v| v.split(['p', ' ', ',']).next()).unwrap_or("");
    let (major, minor) = version.split_once('.').unwrap_or((version, "0"));
    (major.parse().unwrap_or(0), minor.parse().unwrap_or(0))
}
