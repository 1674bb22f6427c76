use std::time::Duration;

/// Why a device could not be reached or a command could not be run. Each kind is a finding code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TransportError {
    /// Nothing answered: connection refused, no route, unknown host name.
    #[error("cannot connect to {address}: {reason}")]
    Unreachable {
        /// `host:port`.
        address: String,
        /// The OS error.
        reason: String,
    },
    /// The connection, handshake, authentication or a command took too long.
    #[error("{stage} timed out after {}s", .after.as_secs_f64())]
    Timeout {
        /// `connect`, `ssh handshake`, `authentication`, or the command.
        stage: String,
        /// The limit that was hit.
        after: Duration,
    },
    /// The server's host key is not the one in known_hosts, or is revoked, or its certificate
    /// is not valid for it.
    #[error("host key of {host} does not match known_hosts ({detail})")]
    HostKeyMismatch {
        /// The name looked up (`[10.0.0.1]:2222`).
        host: String,
        /// Why: `the host is listed with another key, at FILE:LINE`, `key is @revoked`, what is
        /// wrong with its certificate.
        detail: String,
    },
    /// The host is not in known_hosts and its key was not recorded.
    #[error("host key of {host} is not in known_hosts ({files}; {fingerprint}); {hint}")]
    HostKeyUnknown {
        /// The name looked up.
        host: String,
        /// SHA256 fingerprint of the presented key.
        fingerprint: String,
        /// The files looked through.
        files: String,
        /// What to do about it.
        hint: String,
    },
    /// No key was accepted.
    #[error("authentication as {user} failed ({tried})")]
    AuthFailed {
        /// The user name.
        user: String,
        /// What was tried: key files, agent keys.
        tried: String,
    },
    /// The server did not speak SSH as it should before the session was set up: not an SSH
    /// server, a bad packet, the connection reset or closed during the handshake (sshd's
    /// `MaxStartups` dropping a connection looks like this).
    #[error("ssh protocol error: {0}")]
    Protocol(String),
    /// Nothing in common between what fabcheck offers the device and what its sshd speaks, or
    /// nothing left to offer (an ssh_config list that names nothing fabcheck speaks): not cured
    /// by asking again, so never retried.
    #[error("no common algorithm: {0}")]
    NoCommonAlgorithm(String),
    /// ssh_config gives the device, or a jump host on its way, something ssh refuses before
    /// connecting (a `HostName` or file name with a token it does not know there, or an unset
    /// `${VAR}`): no connection is tried.
    #[error("ssh_config: {0} (ssh refuses the host too)")]
    Config(String),
    /// The SSH session failed after it was set up (closed mid-command).
    #[error("ssh session failed: {0}")]
    Session(String),
    /// This machine ran out of file descriptors (EMFILE: the process's `ulimit -n`; ENFILE: the
    /// system's) while connecting: the auditor's limit, not the device's fault, so it is not
    /// `ssh.unreachable`; the collector retries with fewer connections open.
    #[error(
        "this machine's open-file limit stopped fabcheck {doing} ({reason}): the auditor's limit, not the device's"
    )]
    FdLimit {
        /// What fabcheck was doing: `connecting to HOST:PORT`, `reading KEY_FILE`...
        doing: String,
        /// The OS error, or why no connection could be had.
        reason: String,
    },
}

/// The finding code of a device that fabcheck could not connect to for want of file descriptors
/// of its own.
pub use fabcheck_model::facts::unreachable::FD_LIMIT;

/// Whether `e` is this process (EMFILE) or the whole system (ENFILE) out of file descriptors.
pub fn is_fd_limit(e: &std::io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE))
}

impl TransportError {
    /// The finding code this failure is reported under.
    pub fn code(&self) -> &'static str {
        match self {
            TransportError::Unreachable { .. } => "ssh.unreachable",
            TransportError::Timeout { .. } => "ssh.timeout",
            TransportError::HostKeyMismatch { .. } => "ssh.hostkey_mismatch",
            TransportError::HostKeyUnknown { .. } => "ssh.hostkey_unknown",
            TransportError::AuthFailed { .. } => "ssh.auth_failed",
            TransportError::Protocol(_) | TransportError::NoCommonAlgorithm(_) | TransportError::Config(_) => {
                "ssh.protocol_error"
            }
            TransportError::Session(_) => "collect.command_failed",
            TransportError::FdLimit { .. } => FD_LIMIT,
        }
    }
}
