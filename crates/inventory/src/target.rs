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
    /// ssh_config's host-key settings (known_hosts files, `StrictHostKeyChecking`...).
    pub host_keys: crate::ssh_config::HostKeySettings,
    /// ssh_config `ConnectTimeout`, in seconds.
    pub connect_timeout: Option<u64>,
    /// ssh_config `KexAlgorithms`, `Ciphers`, `MACs` and `HostKeyAlgorithms`, as written.
    pub algorithms: Vec<crate::ssh_config::AlgorithmSetting>,
    /// Why ssh would refuse to connect: an ssh_config `HostName`, `IdentityFile` or
    /// `RevokedHostKeys` it cannot expand (`UserKnownHostsFile`'s is in `host_keys`).
    pub refused: Option<String>,
}

impl Host {
    /// Combines this host's inventory variables with `ssh` (looked up by the host's
    /// [`address`](Host::address), which is what Ansible hands to `ssh`) and the defaults.
    pub fn ssh_target(&self, ssh: &SshConfig) -> SshTarget {
        let given = crate::ssh_config::Given { user: self.user(), port: self.port(), jump: None };
        let config = ssh.resolve_given(self.address(), given);
        let mut identity_files: Vec<PathBuf> = self.key_file().map(PathBuf::from).into_iter().collect();
        identity_files.extend(config.identity_files);
        let port = self.port().or(config.port).unwrap_or(22);
        let user = self
            .user()
            .map(str::to_owned)
            .or(config.user)
            .or_else(|| ssh.local_user().map(str::to_owned))
            .unwrap_or_else(|| "root".to_owned());
        SshTarget {
            address: config.hostname.unwrap_or_else(|| self.address().to_owned()),
            port,
            user,
            identity_files,
            proxy_jump: config.proxy_jump,
            host_keys: config.host_keys,
            connect_timeout: config.connect_timeout,
            algorithms: config.algorithms,
            refused: config.refused,
        }
    }
}
