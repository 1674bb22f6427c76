//! How a Linux host bounds a command on itself: its `timeout`, in the form that host's
//! `timeout` accepts. fabcheck tries GNU coreutils' `timeout -k K N` first; a `timeout` that
//! refuses `-k` is asked once what it takes and the host's later commands use that form:
//! BusyBox before 1.30 takes `timeout -t N` (its usage line then is `timeout [-t SECS] [-s SIG]
//! PROG ARGS`: busybox `coreutils/timeout.c`, changed to coreutils' arguments in 1.30), and any
//! other `timeout` `timeout N`. A host with no `timeout` at all gets its commands as they are.
//!
//! A command the host stopped exits 124 under coreutils; BusyBox's `timeout` exits with the
//! signal's status, 143 for TERM and 137 for KILL.

use crate::transport::CommandOutput;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

/// Seconds `timeout -k` waits after its TERM before it sends KILL.
pub const KILL_AFTER_S: u64 = 2;

/// The exit status coreutils' `timeout` gives a command it stopped.
pub const TIMED_OUT_STATUS: u32 = 124;

/// What a stopped command exits with: coreutils' 124, BusyBox's TERM (143) and KILL (137).
const STOPPED_STATUSES: [u32; 3] = [TIMED_OUT_STATUS, 143, 137];

/// The forms of `timeout`, in the order they are tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum Form {
    /// `timeout -k K N command` (coreutils 8 and later, BusyBox 1.30 and later).
    KillAfter = 0,
    /// `timeout -t N command` (BusyBox before 1.30).
    BusyboxSeconds = 1,
    /// `timeout N command` (a `timeout` without `-k`).
    Plain = 2,
    /// No `timeout` on the host.
    None = 3,
}

impl Form {
    /// The form a bounded line was sent in.
    fn of(line: &str) -> Form {
        match line.split(' ').nth(1) {
            Some("-k") => Form::KillAfter,
            Some("-t") => Form::BusyboxSeconds,
            _ => Form::Plain,
        }
    }

    fn from_u8(v: u8) -> Form {
        match v {
            0 => Form::KillAfter,
            1 => Form::BusyboxSeconds,
            2 => Form::Plain,
            _ => Form::None,
        }
    }
}

/// One host's way of bounding its commands, found out on its first commands and kept; shared
/// by the host's concurrent commands.
#[derive(Debug, Default)]
pub struct HostTimeout {
    form: AtomicU8,
}

/// What a run under the current form says of it.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The form works (or the command failed for its own reasons): keep the output.
    Kept,
    /// The host's `timeout` refused the form, or it has none: run the command again, as the
    /// host's later commands will be.
    Again,
}

impl HostTimeout {
    /// `command` bounded to `limit` in the host's form; `None` when the host has no `timeout`.
    pub fn line(&self, command: &str, limit: Duration) -> Option<String> {
        let seconds = limit.as_secs_f64().ceil().max(1.0);
        match Form::from_u8(self.form.load(Ordering::Relaxed)) {
            Form::KillAfter => Some(format!("timeout -k {KILL_AFTER_S} {seconds} {command}")),
            Form::BusyboxSeconds => Some(format!("timeout -t {seconds} {command}")),
            Form::Plain => Some(format!("timeout {seconds} {command}")),
            Form::None => None,
        }
    }

    /// Judges what `line` gave: a `timeout` that refused the form moves the host to the form its
    /// usage names, a missing `timeout` to none.
    pub fn judge(&self, line: &str, out: &CommandOutput, ran_ok: bool) -> Verdict {
        if !ran_ok || !line.starts_with("timeout ") {
            return Verdict::Kept;
        }
        let stderr = String::from_utf8_lossy(&out.stderr);
        let next = if out.exit_status == Some(127)
            && (stderr.contains("timeout: command not found") || stderr.contains("timeout: not found"))
        {
            Form::None
        } else if refused_form(out.exit_status, &stderr) {
            // From the form this line was sent in: another command may have moved the host on.
            match Form::of(line) {
                Form::KillAfter if stderr.contains("[-t SECS]") => Form::BusyboxSeconds,
                Form::KillAfter | Form::BusyboxSeconds => Form::Plain,
                Form::Plain | Form::None => Form::None,
            }
        } else {
            return Verdict::Kept;
        };
        self.form.fetch_max(next as u8, Ordering::Relaxed);
        Verdict::Again
    }
}

/// `timeout` itself refused its arguments (coreutils exits 125 with `timeout: invalid option`,
/// BusyBox 1 with the same line and its usage), as opposed to the command failing.
fn refused_form(status: Option<u32>, stderr: &str) -> bool {
    let first = stderr.lines().next().unwrap_or("");
    matches!(status, Some(1) | Some(125))
        && (first.starts_with("timeout: invalid option") || first.starts_with("timeout: unrecognized option"))
}

/// The command a probe line runs, without the `timeout` that bounds it on a Linux host, in any
/// of its forms: `timeout -k 2 30 mlnx_qos -i ens1np0` → `mlnx_qos -i ens1np0`.
pub fn unbounded(line: &str) -> &str {
    let Some(rest) = line.strip_prefix("timeout ") else { return line };
    let skip = match rest.split(' ').next() {
        Some("-k") => 3,
        Some("-t") => 2,
        Some(n) if n.parse::<f64>().is_ok() => 1,
        _ => return line,
    };
    rest.splitn(skip + 1, ' ').nth(skip).unwrap_or(line)
}

/// The host's `timeout` stopped the command at its limit: the line is bounded, the status is
/// one a stopped command exits with, and it ran at least its limit (a command that exits 143
/// on its own, early, is not one the host stopped).
pub fn stopped_on_host(line: &str, status: Option<u32>, duration_ms: u64) -> bool {
    let bounded = unbounded(line);
    if bounded == line || !status.is_some_and(|s| STOPPED_STATUSES.contains(&s)) {
        return false;
    }
    status == Some(TIMED_OUT_STATUS) || limit_s(line).is_some_and(|limit| duration_ms + 500 >= (limit * 1000.0) as u64)
}

/// The limit a bounded line names, in seconds.
fn limit_s(line: &str) -> Option<f64> {
    let words: Vec<&str> = line.splitn(5, ' ').collect();
    let n = match words.get(1) {
        Some(&"-k") => words.get(3),
        Some(&"-t") => words.get(2),
        _ => words.get(1),
    };
    n?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out(status: u32, stderr: &str) -> CommandOutput {
        CommandOutput {
            stderr: stderr.as_bytes().to_vec(),
            exit_status: Some(status),
            ..CommandOutput::nothing("", std::time::SystemTime::UNIX_EPOCH)
        }
    }

    /// What BusyBox 1.29's `timeout` prints for `-k` (its usage of coreutils/timeout.c then),
    /// and coreutils' for an option it lacks.
    const OLD_BUSYBOX: &str = "timeout: invalid option -- 'k'\nBusyBox v1.29.3 (2019-01-24 07:45:07 UTC) multi-call binary.\n\nUsage: timeout [-t SECS] [-s SIG] PROG ARGS\n\nRuns PROG. Sends SIG to it if it is not gone in SECS seconds.\nDefaults: SECS: 10, SIG: TERM\n";
    const NO_KILL_AFTER: &str = "timeout: invalid option -- 'k'\nTry 'timeout --help' for more information.\n";

    #[test]
    fn an_old_busybox_host_moves_to_its_own_form_once_and_keeps_it() {
        let host = HostTimeout::default();
        let limit = Duration::from_secs(30);
        let first = host.line("ibstat", limit).unwrap();
        assert_eq!(first, "timeout -k 2 30 ibstat");
        assert_eq!(host.judge(&first, &out(1, OLD_BUSYBOX), true), Verdict::Again);
        assert_eq!(host.line("ibstat", limit).unwrap(), "timeout -t 30 ibstat");
        // Its later commands keep the form, and their own failures are theirs.
        let later = host.line("lsmod", limit).unwrap();
        assert_eq!(host.judge(&later, &out(1, "Error: could not get list of modules\n"), true), Verdict::Kept);
        assert_eq!(host.line("lsmod", limit).unwrap(), "timeout -t 30 lsmod");
    }

    #[test]
    fn a_timeout_without_kill_after_gets_the_plain_form_and_a_host_without_one_none() {
        let host = HostTimeout::default();
        let line = host.line("ibstat", Duration::from_millis(1500)).unwrap();
        assert_eq!(host.judge(&line, &out(125, NO_KILL_AFTER), true), Verdict::Again);
        assert_eq!(host.line("ibstat", Duration::from_millis(1500)).unwrap(), "timeout 2 ibstat");
        let none = HostTimeout::default();
        let line = none.line("ibstat", Duration::from_secs(1)).unwrap();
        assert_eq!(none.judge(&line, &out(127, "sh: 1: timeout: not found\n"), true), Verdict::Again);
        assert_eq!(none.line("ibstat", Duration::from_secs(1)), None);
        // A command `timeout` cannot find is the command's failure, not timeout's.
        let host = HostTimeout::default();
        let line = host.line("ibstat", Duration::from_secs(1)).unwrap();
        let missing = out(127, "timeout: failed to run command 'ibstat': No such file or directory\n");
        assert_eq!(host.judge(&line, &missing, true), Verdict::Kept);
    }

    #[test]
    fn every_form_is_stripped_and_a_stop_is_told_from_a_commands_own_status() {
        for line in [
            "timeout -k 2 30 mlnx_qos -i ens1np0",
            "timeout -t 30 mlnx_qos -i ens1np0",
            "timeout 30 mlnx_qos -i ens1np0",
        ] {
            assert_eq!(unbounded(line), "mlnx_qos -i ens1np0");
        }
        assert_eq!(unbounded("mlnx_qos -i ens1np0"), "mlnx_qos -i ens1np0");
        assert_eq!(unbounded("timeout-ish"), "timeout-ish");
        assert!(stopped_on_host("timeout -k 2 30 x", Some(124), 30_000));
        // BusyBox's TERM status, at the limit: stopped; early: the command's own.
        assert!(stopped_on_host("timeout -k 2 30 x", Some(143), 30_010));
        assert!(!stopped_on_host("timeout -k 2 30 x", Some(143), 200));
        assert!(stopped_on_host("timeout -t 5 x", Some(137), 7_000));
        assert!(!stopped_on_host("x", Some(124), 30_000));
    }
}
