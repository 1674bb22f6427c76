//! The `local` transport: the same collectors on this machine, for `fabcheck audit --local` fanned
//! out by Slurm or Kubernetes. Commands run through `sh -c`, as sshd runs them through the shell.

use super::output::append_capped;
use super::{CommandOutput, TransportError};
use std::time::{Duration, Instant, SystemTime};
use tokio::process::Command;

/// In tests, a command holding this panics, as a bug in running it would: how one command's
/// panic is contained is tested through it.
#[cfg(test)]
pub(crate) const PANICS: &str = "fabcheck-test-panics";

/// This machine.
pub struct LocalSession {
    pub(super) max_output: usize,
}

impl LocalSession {
    /// Commands keep at most `max_output` bytes of each stream.
    pub fn new(max_output: usize) -> LocalSession {
        LocalSession { max_output }
    }

    /// Runs `command` with `sh -c` for at most `limit`, keeping at most `cap` bytes of each
    /// stream; a command that times out is killed and its output is lost (only the SSH transport
    /// streams output as it comes; on a Linux host the collector bounds commands with `timeout`
    /// first, which keeps it).
    pub async fn run_capped(
        &self,
        command: &str,
        limit: Duration,
        cap: usize,
    ) -> (CommandOutput, Result<(), TransportError>) {
        match self.run_with_limit(command, limit, cap).await {
            Ok(out) => (out, Ok(())),
            Err(e) => (CommandOutput { duration: limit, ..CommandOutput::nothing(command, SystemTime::now()) }, Err(e)),
        }
    }

    async fn run_with_limit(
        &self,
        command: &str,
        limit: Duration,
        cap: usize,
    ) -> Result<CommandOutput, TransportError> {
        #[cfg(test)]
        assert!(!command.contains(PANICS), "a bug while running `{command}`");
        let started = SystemTime::now();
        let clock = Instant::now();
        let child = Command::new("sh").arg("-c").arg(command).kill_on_drop(true).output();
        let out = tokio::time::timeout(limit, child)
            .await
            .map_err(|_| TransportError::Timeout { stage: format!("`{command}`"), after: limit })?
            .map_err(|e| TransportError::Session(format!("cannot start sh: {e}")))?;
        let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
        let truncated = append_capped(&mut stdout, &out.stdout, cap) | append_capped(&mut stderr, &out.stderr, cap);
        Ok(CommandOutput {
            command: command.to_string(),
            stdout,
            stderr,
            exit_status: out.status.code().map(|c| c as u32),
            started,
            duration: clock.elapsed(),
            truncated,
        })
    }
}
