//! The `local` transport: the same collectors on this machine, for `fabcheck audit --local` fanned
//! out by Slurm or Kubernetes. Commands run through `sh -c`, as sshd runs them through the shell.

use super::output::append_capped;
use super::{CommandOutput, TransportError};
use std::time::{Duration, Instant, SystemTime};
use tokio::process::Command;

/// This machine.
pub struct LocalSession {
    timeout: Duration,
    max_output: usize,
}

impl LocalSession {
    /// Commands time out after `timeout` and keep at most `max_output` bytes of each stream.
    pub fn new(timeout: Duration, max_output: usize) -> LocalSession {
        LocalSession {
            timeout,
            max_output,
        }
    }

    /// Runs `command` with `sh -c`.
    pub async fn run(&self, command: &str) -> Result<CommandOutput, TransportError> {
        let started = SystemTime::now();
        let clock = Instant::now();
        let child = Command::new("sh")
            .arg("-c")
            .arg(command)
            .kill_on_drop(true)
            .output();
        let out = tokio::time::timeout(self.timeout, child)
            .await
            .map_err(|_| TransportError::Timeout {
                stage: format!("`{command}`"),
                after: self.timeout,
            })?
            .map_err(|e| TransportError::Session(format!("cannot start sh: {e}")))?;
        let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
        let truncated = append_capped(&mut stdout, &out.stdout, self.max_output)
            | append_capped(&mut stderr, &out.stderr, self.max_output);
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
