//! From the inventory (and ~/.ssh/config) to the devices to collect from. Precedence, as Ansible:
//! inventory vars (`ansible_*`) > ~/.ssh/config > defaults (port 22, user $USER); see
//! `fabcheck_inventory::Host::ssh_target`.

use super::app::SshArgs;
use crate::collect::{DeviceTarget, Reach};
use crate::transport::{Algorithms, HostKeyRule, KnownHostsFiles, RevocationFiles, SshTarget, config_line_warning};
use anyhow::Context;
use fabcheck_inventory::ssh_config::{
    AlgorithmSetting, Given, HostKeySettings, JumpHop, SshConfig, StrictHostKeyChecking,
};
use fabcheck_inventory::{Host, Inventory, Role};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// The hosts of the inventory chosen by `--limit` (a pattern) and `--nodelist` (a job's Slurm
/// host list), as collection targets reached as `ssh` would with the run's SSH arguments and its
/// ssh_config (`--ssh-config`, else ~/.ssh/config). Hosts are chosen first, so that what is said
/// about the inventory and ssh_config concerns only the devices of the run.
pub fn from_inventory(
    inventory: &Path,
    limit: Option<&str>,
    nodelist: Option<&str>,
    ssh: &SshArgs,
) -> anyhow::Result<Vec<DeviceTarget>> {
    let ssh_config = &ssh_config(ssh.ssh_config.as_deref())?;
    let inv = Inventory::load(inventory).map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut hosts: Vec<&Host> = match limit {
        Some(pattern) => inv.select(pattern).map_err(|e| anyhow::anyhow!("--limit {pattern}: {e}"))?,
        None => inv.hosts().iter().collect(),
    };
    if let Some(list) = nodelist {
        hosts = for_nodelist(hosts, list)?;
    }
    if hosts.is_empty() {
        anyhow::bail!("{}: no hosts", inventory.display());
    }
    warn_ignored_vars(inventory, &hosts);
    let mut rules = Rules { offers: Offers::default(), host_keys: HostKeyRules::new(ssh) };
    let targets: Vec<DeviceTarget> = hosts.into_iter().map(|h| target(h, ssh_config, &mut rules)).collect();
    if let Some(t) = targets.iter().find(|t| t.role == "collector" && t.flows_command.is_none()) {
        anyhow::bail!(
            "{}: collector `{}` has no fabcheck_flows_command (the read-only command that prints its rdma-flow-record/1 lines)",
            inventory.display(),
            t.name
        );
    }
    Ok(targets)
}

/// One warning per `ansible_*` variable fabcheck does not use, with how many hosts set it.
pub fn warn_ignored_vars(inventory: &Path, hosts: &[&Host]) {
    for (name, count) in Inventory::ignored_ansible_vars(hosts) {
        eprintln!(
            "fabcheck: warning: {}: {name} (on {count} host{}) is not used: fabcheck connects with ansible_host, ansible_port, ansible_user and ansible_ssh_private_key_file (or ~/.ssh/config) and runs read-only commands without privilege escalation",
            inventory.display(),
            if count == 1 { "" } else { "s" }
        );
    }
}

/// The devices of a job given as a Slurm host list: its hosts, and every switch (the job's
/// paths cross them). A name of the list that is no host of the inventory is an error.
fn for_nodelist<'a>(hosts: Vec<&'a Host>, list: &str) -> anyhow::Result<Vec<&'a Host>> {
    let names = fabcheck_inventory::hostlist::expand(list).map_err(|e| anyhow::anyhow!("--nodelist: {e}"))?;
    let is_gpu_host = |h: &Host| h.role() == Role::Host;
    let known: HashSet<&str> = hosts.iter().filter(|h| is_gpu_host(h)).map(|h| h.name()).collect();
    let missing: Vec<&str> = names.iter().map(String::as_str).filter(|n| !known.contains(n)).collect();
    if !missing.is_empty() {
        let shown = missing.iter().take(10).copied().collect::<Vec<_>>().join(", ");
        let more = if missing.len() > 10 { format!(" and {} more", missing.len() - 10) } else { String::new() };
        anyhow::bail!("--nodelist {list}: not hosts of the inventory: {shown}{more}");
    }
    let wanted: HashSet<&str> = names.iter().map(String::as_str).collect();
    Ok(hosts.into_iter().filter(|h| !is_gpu_host(h) || wanted.contains(h.name())).collect())
}

/// The algorithms of the devices so far, one copy for all the devices whose ssh_config lines
/// are the same (most runs have two: modern, and legacy for old switches); what fabcheck leaves
/// out of each line is said once, and only for lines that apply to a device of the run.
#[derive(Default)]
struct Offers {
    shared: HashMap<(bool, Vec<AlgorithmSetting>), Arc<Algorithms>>,
    warned: HashSet<AlgorithmSetting>,
}

impl Offers {
    fn get(&mut self, legacy: bool, settings: Vec<AlgorithmSetting>) -> Arc<Algorithms> {
        for setting in &settings {
            if self.warned.contains(setting) {
                continue;
            }
            self.warned.insert(setting.clone());
            if let Some(warning) = config_line_warning(setting) {
                eprintln!("fabcheck: warning: {warning}");
            }
        }
        self.shared
            .entry((legacy, settings))
            .or_insert_with_key(|(legacy, settings)| Arc::new(Algorithms::for_device(*legacy, settings)))
            .clone()
    }
}

/// What is worked out once for the devices that share it.
struct Rules<'a> {
    offers: Offers,
    host_keys: HostKeyRules<'a>,
}

/// Which known_hosts files each device is checked against, and whether its key is recorded when
/// not listed: `--known-hosts` and `--accept-new-hostkeys` for every device, else what
/// ssh_config says for the device, else ssh's defaults. One copy of each list of files for all
/// the devices that read it. `StrictHostKeyChecking accept-new` is honoured as ssh does, but not
/// into `--known-hosts` files; `no` is not (ssh would go on past a changed key), and that is
/// said once per line that says it.
struct HostKeyRules<'a> {
    given: &'a [PathBuf],
    accept_new: bool,
    shared: HashSet<Arc<KnownHostsFiles>>,
    warned: HashSet<(String, u32)>,
}

impl<'a> HostKeyRules<'a> {
    fn new(ssh: &'a SshArgs) -> HostKeyRules<'a> {
        HostKeyRules {
            given: &ssh.known_hosts,
            accept_new: ssh.accept_new_hostkeys,
            shared: HashSet::new(),
            warned: HashSet::new(),
        }
    }

    /// Why ssh would refuse a host for its ssh_config: `refused` (a `HostName`, `IdentityFile` or
    /// `RevokedHostKeys` it cannot expand), else its `UserKnownHostsFile`'s, when those files are
    /// used (not replaced by `--known-hosts`).
    fn refusal(&self, refused: Option<&String>, config: &HostKeySettings) -> Option<String> {
        refused.or(config.user_known_hosts_refused.as_ref().filter(|_| self.given.is_empty())).cloned()
    }

    fn rule(&mut self, config: &HostKeySettings) -> HostKeyRule {
        let files = if self.given.is_empty() {
            KnownHostsFiles {
                user: config.user_known_hosts_files.clone().unwrap_or_else(default_user_files),
                global: config.global_known_hosts_files.clone().unwrap_or_else(default_global_files),
            }
        } else {
            KnownHostsFiles { user: self.given.to_vec(), global: Vec::new() }
        };
        let files = match self.shared.get(&files) {
            Some(shared) => shared.clone(),
            None => {
                let files = Arc::new(files);
                self.shared.insert(files.clone());
                files
            }
        };
        let checking = config.strict_host_key_checking.as_ref();
        let mode = checking.map(|c| c.mode);
        if let Some(c) = checking.filter(|c| c.mode == StrictHostKeyChecking::No)
            && self.warned.insert((c.file.clone(), c.line))
        {
            eprintln!(
                "fabcheck: warning: {}:{}: StrictHostKeyChecking no is not honoured: fabcheck always refuses a changed host key, and an unknown one unless --accept-new-hostkeys is given (or StrictHostKeyChecking accept-new)",
                c.file, c.line
            );
        }
        // `--known-hosts` files are fabcheck's own: only `--accept-new-hostkeys` adds to them.
        let config_accepts = self.given.is_empty() && mode == Some(StrictHostKeyChecking::AcceptNew);
        let accept_new = self.accept_new || config_accepts;
        let revoked = config.revoked_host_keys.as_ref().map(|r| {
            // Said once here, not only as each of perhaps thousands of devices' findings.
            let missing = r.files.iter().filter(|f| !f.exists()).map(|f| f.display().to_string()).collect::<Vec<_>>();
            if !missing.is_empty() && self.warned.insert((r.set_at.file.clone(), r.set_at.line)) {
                eprintln!(
                    "fabcheck: warning: {}:{}: RevokedHostKeys {} not found: as ssh, fabcheck refuses every host this line applies to",
                    r.set_at.file,
                    r.set_at.line,
                    missing.join(", ")
                );
            }
            Arc::new(RevocationFiles { files: r.files.clone(), set_at: format!("{}:{}", r.set_at.file, r.set_at.line) })
        });
        HostKeyRule {
            files,
            accept_new,
            revoked,
            alias: config.host_key_alias.clone(),
            ca_signatures: config.ca_signature_algorithms.clone(),
            command: config.known_hosts_command.clone().map(Arc::new),
        }
    }
}

/// ssh's own user files when ssh_config names none.
fn default_user_files() -> Vec<PathBuf> {
    let home = PathBuf::from(std::env::var_os("HOME").unwrap_or_default());
    vec![home.join(".ssh/known_hosts"), home.join(".ssh/known_hosts2")]
}

/// ssh's own system files when ssh_config names none (where clusters often list every node's key).
fn default_global_files() -> Vec<PathBuf> {
    vec![PathBuf::from("/etc/ssh/ssh_known_hosts"), PathBuf::from("/etc/ssh/ssh_known_hosts2")]
}

fn target(host: &Host, ssh_config: &SshConfig, rules: &mut Rules<'_>) -> DeviceTarget {
    let t = host.ssh_target(ssh_config);
    let proxy_jump = t.proxy_jump.as_deref().and_then(|spec| jump_chain(spec, ssh_config, rules, 0));
    let host_keys = rules.host_keys.rule(&t.host_keys);
    let config_error = rules.host_keys.refusal(t.refused.as_ref(), &t.host_keys);
    DeviceTarget {
        name: host.name().to_string(),
        role: host.role().as_str().to_string(),
        platform: host.platform().to_string(),
        address: format!("{}:{}", t.address, t.port),
        nics: host.nics(),
        ib_fabric_view: flag(host, "fabcheck_iblinkinfo"),
        capture_command: host.var("fabcheck_capture_command").and_then(|v| v.as_str()).map(String::from),
        flows_command: host.var("fabcheck_flows_command").and_then(|v| v.as_str()).map(String::from),
        reach: Reach::Ssh(Box::new(SshTarget {
            host: t.address,
            port: t.port,
            user: t.user,
            identity_files: t.identity_files,
            proxy_jump,
            algorithms: rules.offers.get(flag(host, "fabcheck_ssh_legacy"), t.algorithms),
            connect_timeout: seconds(t.connect_timeout),
            host_keys,
            config_error,
        })),
    }
}

/// A boolean inventory variable: `fabcheck_ssh_legacy=true` (old switch firmware: offer SHA-1 key
/// exchange, CBC ciphers and hmac-sha1 to that device only), `fabcheck_iblinkinfo=true` (read
/// the InfiniBand fabric's links from this host).
fn flag(host: &Host, name: &str) -> bool {
    host.var(name).is_some_and(|v| v.as_bool() == Some(true) || matches!(v.as_str(), Some("true" | "yes")))
}

/// The most jump hosts one device is reached through: a bound on `ProxyJump` lines that name
/// each other, where ssh would loop.
const MAX_JUMPS: usize = 8;

/// The jump hosts of a `ProxyJump` list `a,b,...`, chained as ssh chains them: the device is
/// reached through the last, each hop through the one before it, and the first through its own
/// `ProxyJump` in ssh_config, if it has one.
fn jump_chain(spec: &str, ssh_config: &SshConfig, rules: &mut Rules<'_>, depth: usize) -> Option<Box<SshTarget>> {
    let mut previous: Option<Box<SshTarget>> = None;
    let hops: Vec<&str> = spec.split(',').map(str::trim).filter(|h| !h.is_empty()).collect();
    for (i, hop) in hops.iter().enumerate() {
        if depth + i >= MAX_JUMPS {
            break;
        }
        // ssh runs a hop after the first with `-J` and the hop before it.
        let before = i.checked_sub(1).map(|b| hops[b]);
        let (mut target, own_jump) = jump_target(hop, before, ssh_config, rules);
        target.proxy_jump = match i {
            0 => own_jump.and_then(|own| jump_chain(&own, ssh_config, rules, depth + 1)),
            _ => previous.take(),
        };
        previous = Some(target);
    }
    previous
}

/// One hop, `[user@]host[:port]`, resolved through ~/.ssh/config too; with its own `ProxyJump`
/// (`jump`: the hop it is reached through, given over ssh_config's for its `%j`).
fn jump_target(
    hop: &str,
    jump: Option<&str>,
    ssh_config: &SshConfig,
    rules: &mut Rules<'_>,
) -> (Box<SshTarget>, Option<String>) {
    let JumpHop { user, host: alias, port } = JumpHop::parse(hop);
    let resolved = ssh_config.resolve_given(alias, Given { user, port, jump });
    let (port, user) = (
        port.or(resolved.port).unwrap_or(22),
        user.map(str::to_owned).or(resolved.user.clone()).unwrap_or_else(local_user),
    );
    let target = Box::new(SshTarget {
        host: resolved.hostname.clone().unwrap_or_else(|| alias.to_string()),
        port,
        user,
        identity_files: resolved.identity_files.clone(),
        proxy_jump: None,
        algorithms: rules.offers.get(false, resolved.algorithms.clone()),
        connect_timeout: seconds(resolved.connect_timeout),
        host_keys: rules.host_keys.rule(&resolved.host_keys),
        config_error: rules
            .host_keys
            .refusal(resolved.refused.as_ref(), &resolved.host_keys)
            .map(|why| format!("jump host {hop}: {why}")),
    });
    (target, resolved.proxy_jump)
}

/// ssh_config's `ConnectTimeout`; 0, as in ssh, is no limit of its own (the run's applies).
fn seconds(config: Option<u64>) -> Option<Duration> {
    config.filter(|s| *s > 0).map(Duration::from_secs)
}

/// This machine, for `audit --local`.
/// This machine, named `name` (its host name when `None`).
pub fn local(name: Option<&str>) -> anyhow::Result<DeviceTarget> {
    let name = match name {
        Some(n) if fabcheck_inventory::is_safe_name(n) => n.to_string(),
        Some(n) => anyhow::bail!("--local-name {n:?}: not a name (letters, digits, `.`, `-`, `_`)"),
        None => std::fs::read_to_string("/proc/sys/kernel/hostname")
            .map(|s| s.trim().to_string())
            .unwrap_or_else(|_| "localhost".into()),
    };
    Ok(DeviceTarget {
        name,
        role: "host".into(),
        platform: "linux".into(),
        address: "local".into(),
        nics: Vec::new(),
        ib_fabric_view: false,
        capture_command: None,
        flows_command: None,
        reach: Reach::Local,
    })
}

fn local_user() -> String {
    std::env::var("USER").unwrap_or_else(|_| "root".into())
}

/// Reads the ssh config given, or ~/.ssh/config, and says what in it fabcheck leaves aside (an
/// unsupported `Match`).
pub fn ssh_config(path: Option<&Path>) -> anyhow::Result<SshConfig> {
    let config = match path {
        Some(p) => {
            SshConfig::load(p).map_err(|e| anyhow::anyhow!("{e}")).with_context(|| format!("reading {}", p.display()))
        }
        None => SshConfig::load_default().map_err(|e| anyhow::anyhow!("{e}")),
    }?;
    for warning in config.warnings() {
        eprintln!("fabcheck: warning: {warning}");
    }
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ssh_args(config: &Path) -> SshArgs {
        SshArgs {
            forks: 1,
            accept_new_hostkeys: false,
            known_hosts: vec![config.with_file_name("known_hosts")],
            ssh_config: Some(config.to_path_buf()),
            connect_timeout: Duration::from_secs(1),
            command_timeout: Duration::from_secs(1),
            device_timeout: Duration::from_secs(1),
            max_output: 1,
        }
    }

    /// The hops a device is reached through, nearest first: `host:port user`.
    fn hops(target: &DeviceTarget) -> Vec<String> {
        let Reach::Ssh(t) = &target.reach else { panic!("not over SSH") };
        let mut hops = Vec::new();
        let mut next = t.proxy_jump.as_deref();
        while let Some(hop) = next {
            hops.push(format!("{}:{} {}", hop.host, hop.port, hop.user));
            next = hop.proxy_jump.as_deref();
        }
        hops
    }

    #[test]
    fn a_proxyjump_list_is_chained_as_ssh_chains_it() {
        let dir = tempfile::tempdir().unwrap();
        let (inventory, config) = (dir.path().join("inventory.ini"), dir.path().join("ssh_config"));
        std::fs::write(&inventory, "[gpu]\ngpu01\nloop01\n").unwrap();
        let text = "Host gpu01\n  ProxyJump ssh://ops@a:2201,b\nHost a\n  HostName 10.0.0.1\n  ProxyJump z\n\
                    Host b\n  HostName 10.0.0.2\n  ProxyJump ignored\nHost loop*\n  ProxyJump loop01\n\
                    Host z\n  IdentityFile ${FABCHECK_TEST_UNSET_VARIABLE}/k\n\
                    Host *\n  User u\n  IdentityFile /keys/%j\n";
        std::fs::write(&config, text).unwrap();
        let targets = from_inventory(&inventory, None, None, &ssh_args(&config)).unwrap();
        // gpu01 through b; b through a (its own ProxyJump is not used: it is a later hop); a
        // through its own jump host, z.
        assert_eq!(hops(&targets[0]), ["10.0.0.2:22 u", "10.0.0.1:2201 ops", "z:22 u"]);
        // Each one's `%j`, as ssh has it: b is run with `-J ssh://ops@a:2201`, a with its own z.
        let Reach::Ssh(device) = &targets[0].reach else { panic!("not over SSH") };
        let chain: Vec<&SshTarget> = std::iter::successors(Some(&**device), |t| t.proxy_jump.as_deref()).collect();
        let keys: Vec<_> = chain.iter().map(|t| t.identity_files.last().cloned().unwrap_or_default()).collect();
        assert_eq!(keys[..3], [PathBuf::from("/keys/b"), PathBuf::from("/keys/a"), PathBuf::from("/keys/z")]);
        // A jump host's setting ssh cannot expand refuses that hop, saying which.
        let refused: Vec<_> = chain.iter().map(|t| t.config_error.clone()).collect();
        assert_eq!(refused[..3], [None, None, None]);
        let z = refused[3].clone().unwrap_or_default();
        assert!(z.starts_with("jump host z: IdentityFile ${FABCHECK_TEST_UNSET_VARIABLE}/k: "), "{z}");
        // ProxyJump lines that name each other end after MAX_JUMPS hops instead of looping.
        assert_eq!(hops(&targets[1]).len(), MAX_JUMPS);
    }
}
