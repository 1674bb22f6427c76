//! Reaching devices: SSH (russh) or this machine (`local`). The only module that does I/O with
//! devices. A transport runs a command and returns its raw output; it knows nothing of facts.

mod algorithms;
mod error;
mod host_certificate;
mod host_keys;
mod identity;
#[cfg(test)]
mod kex_interop;
pub mod known_hosts;
mod known_hosts_command;
mod local;
mod output;
pub mod revoked_keys;
mod ssh;

pub use algorithms::{Algorithms, config_line_warning};
pub use error::{FD_LIMIT, TransportError, is_fd_limit};
pub use host_keys::{HostKeyRule, HostKeyStores, KnownHostsFiles, RevocationFiles};
pub use identity::KeyFiles;
pub use local::LocalSession;
#[cfg(test)]
pub(crate) use local::PANICS;
pub use output::CommandOutput;
pub(crate) use output::append_capped;
pub use ssh::{HANDSHAKES_PER_ADDRESS, HandshakeGate, SshOptions, SshSession, SshTarget};

/// A connected device.
pub enum Session {
    /// Over SSH.
    Ssh(Box<SshSession>),
    /// This machine.
    Local(LocalSession),
}

impl Session {
    /// Runs one command for at most `limit`, keeping what it printed when it had to stop waiting;
    /// a non-zero exit status is not an error.
    pub async fn run_bounded(
        &self,
        command: &str,
        limit: std::time::Duration,
    ) -> (CommandOutput, Result<(), TransportError>) {
        self.run_capped(command, limit, self.max_output()).await
    }

    /// As [`Session::run_bounded`], keeping at most `cap` bytes of each stream (a command that
    /// stands for several).
    pub async fn run_capped(
        &self,
        command: &str,
        limit: std::time::Duration,
        cap: usize,
    ) -> (CommandOutput, Result<(), TransportError>) {
        match self {
            Session::Ssh(s) => s.run_capped(command, limit, cap).await,
            Session::Local(l) => l.run_capped(command, limit, cap).await,
        }
    }

    /// The most a command keeps of each stream.
    pub fn max_output(&self) -> usize {
        match self {
            Session::Ssh(s) => s.max_output(),
            Session::Local(l) => l.max_output,
        }
    }

    /// Closes the connection politely.
    pub async fn close(self) {
        if let Session::Ssh(s) = self {
            s.close().await;
        }
    }
}
