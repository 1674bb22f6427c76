use std::time::{Duration, SystemTime};

/// What one command printed, and how it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandOutput {
    /// The command line as sent.
    pub command: String,
    /// Standard output (at most the output cap).
    pub stdout: Vec<u8>,
    /// Standard error (at most the output cap).
    pub stderr: Vec<u8>,
    /// Exit status; `None` when the command was killed by a signal.
    pub exit_status: Option<u32>,
    /// When the command started.
    pub started: SystemTime,
    /// How long it ran.
    pub duration: Duration,
    /// Whether stdout or stderr was cut at the output cap.
    pub truncated: bool,
}

impl CommandOutput {
    /// Nothing yet from `command`, started at `started`: what a run fills in, or gives back as it
    /// is when the command could not run.
    pub fn nothing(command: &str, started: SystemTime) -> CommandOutput {
        CommandOutput {
            command: command.to_string(),
            stdout: Vec::new(),
            stderr: Vec::new(),
            exit_status: None,
            started,
            duration: Duration::ZERO,
            truncated: false,
        }
    }
}

/// Appends `data` to `buf` up to `cap` bytes; returns whether anything was dropped.
pub(crate) fn append_capped(buf: &mut Vec<u8>, data: &[u8], cap: usize) -> bool {
    let room = cap.saturating_sub(buf.len());
    buf.extend_from_slice(&data[..data.len().min(room)]);
    data.len() > room
}
