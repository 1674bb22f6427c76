//! Where and as whom to connect to a host: inventory variables, then ~/.ssh/config, then
//! defaults, combined in one place so every transport gets the same answer.

use std::path::PathBuf;

use crate::host::Host;
use crate::ssh_config::SshConfig;

/// The SSH connection parameters for one inventory host, after precedence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SshTarget {
    /// What to connect to: the ssh_config `HostName` for the host's address, else the
    /// address itself.
    pub address: String,
    /// `ansible_port`, else ssh_config `Port`, else 22.
    pub port: u16,
    /// `ansible_user`, else ssh_config `User`, else the local user (`$USER`), else `root`.
    pub user: String,
    /// `ansible_ssh_private_key_file` first, then ssh_config's `IdentityFile`s (as `ssh -i`
    /// puts its key before the configured ones). Empty: use the agent and ssh's defaults.
    pub identity_files: Vec<PathBuf>,
    /// ssh_config `ProxyJump`.
    pub proxy_jump: Option<String>,
    /// ssh_config `UserKnownHostsFile`; `None` means ssh's defaults, empty means `none`.
    pub user_known_hosts_files: Option<Vec<PathBuf>>,
    /// ssh_config `GlobalKnownHostsFile`, likewise.
    pub global_known_hosts_files: Option<Vec<PathBuf>>,
    /// ssh_config `StrictHostKeyChecking`, with its line.
    pub strict_host_key_checking: Option<crate::ssh_config::HostKeyChecking>,
    /// Where ssh_config sets `RevokedHostKeys` for this host.
    pub revoked_host_keys: Option<crate::ssh_config::ConfigLine>,
    /// ssh_config `HostKeyAlias`.
    pub host_key_alias: Option<String>,
    /// Where ssh_config sets `KnownHostsCommand` for this host.
    pub known_hosts_command: Option<crate::ssh_config::ConfigLine>,
    /// ssh_config `CASignatureAlgorithms`, as written.
    pub ca_signature_algorithms: Option<String>,
    /// ssh_config `ConnectTimeout`, in seconds.
    pub connect_timeout: Option<u64>,
    /// ssh_config `KexAlgorithms`, `Ciphers`, `MACs` and `HostKeyAlgorithms`, as written.
    pub algorithms: Vec<crate::ssh_config::AlgorithmSetting>,
}

impl Host {
    /// Combines this host's inventory variables with `ssh` (looked up by the host's
    /// [`address`](Host::address), which is what Ansible hands to `ssh`) and the defaults.
    pub fn ssh_target(&self, ssh: &SshConfig) -> SshTarget {
        let config = ssh.resolve(self.address());
        let mut identity_files: Vec<PathBuf> = self.key_file().map(PathBuf::from).into_iter().collect();
        identity_files.extend(config.identity_files);
        SshTarget {
            address: config.hostname.unwrap_or_else(|| self.address().to_owned()),
            port: self.port().or(config.port).unwrap_or(22),
            user: self
                .user()
                .map(str::to_owned)
                .or(config.user)
                .or_else(|| ssh.local_user().map(str::to_owned))
                .unwrap_or_else(|| "root".to_owned()),
            identity_files,
            proxy_jump: config.proxy_jump,
            user_known_hosts_files: config.user_known_hosts_files,
            global_known_hosts_files: config.global_known_hosts_files,
            strict_host_key_checking: config.strict_host_key_checking,
            revoked_host_keys: config.revoked_host_keys,
            host_key_alias: config.host_key_alias,
            known_hosts_command: config.known_hosts_command,
            ca_signature_algorithms: config.ca_signature_algorithms,
            connect_timeout: config.connect_timeout,
            algorithms: config.algorithms,
        }
    }
}
