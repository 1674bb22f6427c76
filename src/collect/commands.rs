//! Running a device's probes on its session: concurrently (the session bounds its channels), a
//! command's JSON form first where it has one (the text form once the device refuses it), and on
//! Linux hosts each command bounded on the host itself, so nothing fabcheck starts outlives its
//! limit there.
//!
//! Why on the host: a command that never ends keeps its process running after fabcheck gives up
//! on it, and OpenSSH's sshd keeps the session of a live process open (it honours a KILL signal
//! request only for non-root logins with privilege separation), so hung commands pile up past
//! `MaxSessions` and the device's later commands get no channel. Under `timeout -k`, the host
//! kills the command's whole process group at the limit and the session ends with exit status 124
//! and what it printed. Switches get no wrapper (their CLIs have no `timeout`): a timed-out
//! command's channel is sent a KILL request and closed ([`crate::transport`]).

use super::bundle::{Bundle, Ran, Split};
use super::timeout::{HostTimeout, KILL_AFTER_S, Verdict};
use crate::evidence::{DeviceError, Evidence};
use crate::platform::Probe;
use crate::transport::{CommandOutput, Session, TransportError};
use futures::FutureExt;
use std::collections::HashSet;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// One device's session, how its commands are bounded, and the JSON forms it refused; a clone
/// shares them (each probe runs in a task of its own).
#[derive(Clone)]
pub struct Commands {
    session: Arc<Session>,
    refused_json: Arc<Mutex<HashSet<String>>>,
    /// The limit of one command on the device itself (`None`: not bounded there).
    remote_limit: Option<Duration>,
    /// How long fabcheck waits for one command.
    limit: Duration,
    /// How the device's `timeout` bounds its commands (none: sent as they are).
    timeout: Arc<HostTimeout>,
}

impl Commands {
    /// Commands on `session`, each waited for `limit`; `bound_on_device` (Linux hosts) runs each
    /// under `timeout -k` for `limit` on the device, and waits a little longer for its answer, so
    /// the device stops the command first and its output arrives.
    pub fn new(session: Arc<Session>, limit: Duration, bound_on_device: bool) -> Commands {
        let (remote_limit, limit) = match bound_on_device {
            true => (Some(limit), limit + Duration::from_secs(KILL_AFTER_S + 1)),
            false => (None, limit),
        };
        Commands { session, refused_json: Arc::default(), remote_limit, limit, timeout: Arc::default() }
    }

    /// Runs the probes concurrently on the session (the session bounds its channels), within
    /// the device's task: a task per command would cost a spawn and a cross-thread wake-up each
    /// for no gain, as they all wait on the same connection. On a Linux host the quick probes
    /// share one channel ([`Bundle`]). A command whose handling panics (a bug) becomes that
    /// command's internal error; the device's other outputs are kept. The evidence comes back in
    /// the probes' order.
    pub async fn run_all(&self, probes: Vec<Probe>) -> Vec<Evidence> {
        let shares = |p: &Probe| self.remote_limit.is_some() && p.quick && p.json.is_none();
        // One quick probe alone gains nothing from the framing.
        let sharing = probes.iter().filter(|p| shares(p)).count() > 1;
        let (quick, alone): (Numbered, Numbered) =
            probes.into_iter().enumerate().partition(|(_, p)| sharing && shares(p));
        let one_by_one = futures::future::join_all(alone.into_iter().map(|(i, probe)| async move {
            let started = SystemTime::now();
            let failed = Probe { json: None, ..probe.clone() };
            let run = AssertUnwindSafe(self.run_preferring_json(&probe)).catch_unwind().await;
            let evidence = match run {
                Ok((command, ran, fallback)) => evidence(Probe { command, ..probe }, started, ran, fallback),
                Err(_) => internal_error(failed, started),
            };
            (i, evidence)
        }));
        let (mut all, shared) = futures::future::join(one_by_one, self.run_shared(quick)).await;
        all.extend(shared);
        all.sort_by_key(|(i, _)| *i);
        all.into_iter().map(|(_, e)| e).collect()
    }

    /// Runs `probes` one after another on one channel, each bounded on the host as it would be
    /// alone, and hands each its own evidence.
    async fn run_shared(&self, probes: Numbered) -> Vec<(usize, Evidence)> {
        if probes.is_empty() {
            return Vec::new();
        }
        let started = SystemTime::now();
        let commands: Vec<&str> = probes.iter().map(|(_, p)| p.command.as_str()).collect();
        let run = AssertUnwindSafe(self.run_bundle(&commands)).catch_unwind().await;
        match run {
            Ok(parts) => probes
                .into_iter()
                .zip(parts)
                .map(|((i, probe), (out, result))| {
                    let command = out.command.clone();
                    (i, evidence(Probe { command, ..probe }, started, (out, result), None))
                })
                .collect(),
            Err(_) => probes.into_iter().map(|(i, probe)| (i, internal_error(probe, started))).collect(),
        }
    }

    /// Each command's output from one bundle of `commands`; as [`Commands::run`], a host whose
    /// `timeout` refuses the form gets them again in the form it takes, from then on.
    async fn run_bundle(&self, commands: &[&str]) -> Vec<Ran> {
        loop {
            let lines: Option<Vec<String>> = commands.iter().map(|c| self.bounded(c)).collect();
            let Some(lines) = lines else { break };
            let parts = self.run_bundle_of(commands, lines.clone()).await;
            let again = lines
                .iter()
                .zip(&parts)
                .any(|(line, (out, result))| self.timeout.judge(line, out, result.is_ok()) == Verdict::Again);
            if !again {
                return parts;
            }
        }
        self.run_bundle_of(commands, commands.iter().map(|c| c.to_string()).collect()).await
    }

    /// Runs `lines` (`commands` as sent) as one bundle, and gives the commands it could not
    /// finish for the others' sake a channel each, side by side: those after one that hung
    /// (bounded on the host, a hung command is stopped at its limit, so the bundle has two
    /// limits: one for a command that hangs, one for the rest; a command the kernel keeps
    /// from dying holds the channel), and those cut short by another's output filling the
    /// bundle's room (alone, each gets its own `--max-output`).
    async fn run_bundle_of(&self, commands: &[&str], lines: Vec<String>) -> Vec<Ran> {
        let n = lines.len();
        let cap = self.session.max_output();
        // Each command's cap, and room for the marks.
        let bundle_cap = cap.saturating_mul(n).saturating_add(n * 64);
        let limit = if self.remote_limit.is_some() { self.limit.saturating_mul(2) } else { self.limit };
        let bundle = Bundle::new(lines);
        let (out, result) = self.session.run_capped(bundle.script(), limit, bundle_cap).await;
        let (truncated, timed_out) = (out.truncated, matches!(result, Err(TransportError::Timeout { .. })));
        let Split { mut parts, ended } = bundle.split((out, result), cap);
        let again = match (truncated, timed_out) {
            (true, _) => ended..n,
            (false, true) => (ended + 1).min(n)..n,
            (false, false) => n..n,
        };
        let alone = futures::future::join_all(again.clone().map(|i| self.run(commands[i]))).await;
        for (i, (_, ran)) in again.zip(alone) {
            parts[i] = ran;
        }
        parts
    }

    /// `command` bounded on the device in the form its `timeout` takes; `None` where commands
    /// are not bounded on the device, or it has no `timeout`.
    fn bounded(&self, command: &str) -> Option<String> {
        self.timeout.line(command, self.remote_limit?)
    }

    /// The command line sent for `command`, and what came of it. A device whose `timeout`
    /// refuses the form (or that has none) gets the command again in the form it takes.
    async fn run(&self, command: &str) -> (String, Ran) {
        while let Some(line) = self.bounded(command) {
            let ran = self.session.run_bounded(&line, self.limit).await;
            if self.timeout.judge(&line, &ran.0, ran.1.is_ok()) == Verdict::Kept {
                return (line, ran);
            }
        }
        (command.to_string(), self.session.run_bounded(command, self.limit).await)
    }

    /// The command that ran, what came of it, and why its JSON form was not used when refused.
    async fn run_preferring_json(&self, probe: &Probe) -> (String, Ran, Option<String>) {
        let refused = |j: &String| self.refused_json.lock().map(|r| r.contains(j)).unwrap_or(false);
        let Some(json) = probe.json.as_ref().filter(|j| !refused(j)) else {
            let (line, ran) = self.run(&probe.command).await;
            return (line, ran, None);
        };
        let (line, ran) = self.run(json).await;
        let why = match &ran {
            (out, Ok(())) => json_refusal(out),
            (_, Err(_)) => None,
        };
        let Some(why) = why else {
            return (line, ran, None);
        };
        if let Ok(mut r) = self.refused_json.lock() {
            r.insert(json.clone());
        }
        let fallback = format!("`{json}` refused ({why}): read as text");
        let (line, ran) = self.run(&probe.command).await;
        (line, ran, Some(fallback))
    }
}

/// Probes with their place in the device's list, so their evidence comes back in order.
type Numbered = Vec<(usize, Probe)>;

/// Why an output asked for as JSON is not JSON: a non-zero exit, a CLI error line (EOS's
/// `% This is an unconverted command`, `% Invalid input`), or eAPI's `{"errors": [...]}`.
fn json_refusal(out: &CommandOutput) -> Option<String> {
    let text = String::from_utf8_lossy(&out.stdout);
    let first = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    let quote = |l: &str| l.chars().take(100).collect::<String>();
    match out.exit_status {
        Some(0) => {}
        Some(status) => return Some(format!("exit status {status}: {}", quote(first))),
        None => return Some("no exit status".into()),
    }
    if !first.starts_with(['{', '[']) {
        return Some(if first.is_empty() { "empty output".into() } else { quote(first) });
    }
    let errors = serde_json::from_str::<serde_json::Value>(&text).ok().and_then(|v| v.get("errors").cloned());
    errors.map(|e| quote(&e.to_string()))
}

fn millis(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

/// The evidence of one probe: what it printed, also when the transport gave up on it (the output
/// received before a timeout or a lost connection is evidence too, read as partial).
fn evidence(probe: Probe, started: SystemTime, (out, result): Ran, json_refused: Option<String>) -> Evidence {
    let transport_error = result.err().map(|err| DeviceError { code: err.code().into(), message: err.to_string() });
    Evidence {
        key: probe.key,
        source: probe.source.to_string(),
        command: probe.command,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        exit_status: out.exit_status,
        transport_error,
        started_ms: millis(if out.duration.is_zero() { started } else { out.started }),
        duration_ms: out.duration.as_millis() as u64,
        truncated: out.truncated,
        stdout: out.stdout,
        json_refused,
    }
}

/// The evidence of a probe whose handling panicked: no output, and the error that says so.
fn internal_error(probe: Probe, started: SystemTime) -> Evidence {
    Evidence {
        key: probe.key,
        source: probe.source.to_string(),
        command: probe.command,
        stdout: Vec::new(),
        stderr: String::new(),
        exit_status: None,
        transport_error: Some(DeviceError {
            code: "collect.internal_error".into(),
            message: "fabcheck failed while running this command (a bug: please report it)".into(),
        }),
        started_ms: millis(started),
        duration_ms: 0,
        truncated: false,
        json_refused: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collect::timeout::{TIMED_OUT_STATUS, unbounded};
    use crate::transport::LocalSession;

    fn local(limit: Duration, bound: bool) -> Commands {
        local_capped(limit, bound, 1 << 20)
    }

    fn local_capped(limit: Duration, bound: bool, max_output: usize) -> Commands {
        let session = Arc::new(Session::Local(LocalSession::new(max_output)));
        Commands::new(session, limit, bound)
    }

    fn quick(key: &str, command: &str) -> Probe {
        Probe { key: key.into(), source: "lsmod", command: command.into(), json: None, quick: true }
    }

    /// A command whose handling panics (a bug) is that command's `collect.internal_error`, and
    /// the device's other commands keep their outputs; a panic in the shared channel costs its
    /// reads and no other.
    #[tokio::test]
    async fn a_commands_panic_costs_that_command_and_no_other() {
        use crate::transport::PANICS;
        let commands = local(Duration::from_secs(10), true);
        let alone = |key: &str, command: &str| Probe { quick: false, ..quick(key, command) };
        let probes =
            vec![alone("before", "echo before"), alone("bug", &format!("echo {PANICS}")), alone("after", "echo after")];
        let got: Vec<(String, Option<String>, Vec<u8>)> = commands
            .run_all(probes)
            .await
            .into_iter()
            .map(|e| (e.key, e.transport_error.map(|t| t.code), e.stdout))
            .collect();
        let expected = [
            ("before", None, &b"before\n"[..]),
            ("bug", Some("collect.internal_error"), b""),
            ("after", None, b"after\n"),
        ];
        assert_eq!(got, expected.map(|(k, c, o)| (k.to_string(), c.map(String::from), o.to_vec())));

        let probes =
            vec![quick("shared", "echo shared"), quick("bug", &format!("echo {PANICS}")), alone("alone", "echo alone")];
        let e = commands.run_all(probes).await;
        let codes: Vec<Option<&str>> = e.iter().map(|e| e.transport_error.as_ref().map(|t| t.code.as_str())).collect();
        assert_eq!(codes, [Some("collect.internal_error"), Some("collect.internal_error"), None], "{e:#?}");
        assert_eq!(e[2].stdout, b"alone\n");
        assert_eq!(
            (e[0].command.as_str(), e[1].command.contains(PANICS)),
            ("echo shared", true),
            "each its own command"
        );
    }

    /// One quick read printing more than `--max-output` fills the shared channel's room: it and
    /// the reads after it run again alone, each then cut at its own cap with its exit status.
    #[tokio::test]
    async fn reads_cut_short_by_anothers_output_run_again_alone() {
        let commands = local_capped(Duration::from_secs(10), true, 100);
        let big = quick("big", "head -c 1000 /dev/zero | tr '\\0' x");
        let probes = vec![quick("first", "echo first"), big, quick("after", "echo after"), quick("last", "echo last")];
        let e = commands.run_all(probes).await;
        let got: Vec<(&str, Option<u32>, usize, bool)> =
            e.iter().map(|e| (e.key.as_str(), e.exit_status, e.stdout.len(), e.truncated)).collect();
        assert_eq!(
            got,
            [
                ("first", Some(0), 6, false),
                ("big", Some(0), 100, true),
                ("after", Some(0), 6, false),
                ("last", Some(0), 5, false)
            ]
        );
        assert!(e.iter().all(|e| e.transport_error.is_none() && e.command.starts_with("timeout -k 2 10 ")), "{e:#?}");
    }

    /// Quick reads that each hang until the host stops them outlast the shared channel's two
    /// limits: the ones the channel never reached run alone, side by side, so every read is
    /// stopped on the host and none is lost to another's hang.
    #[tokio::test]
    async fn reads_a_hung_shared_channel_never_reached_run_alone() {
        let commands = local(Duration::from_secs(1), true);
        let probes: Vec<Probe> = (0..10).map(|i| quick(&format!("hang{i}"), "sleep 30")).collect();
        let e = commands.run_all(probes).await;
        let stopped = e.iter().filter(|e| e.exit_status == Some(TIMED_OUT_STATUS)).count();
        let waited = e.iter().filter(|e| e.transport_error.as_ref().is_some_and(|t| t.code == "ssh.timeout")).count();
        assert_eq!((stopped + waited, e.len()), (10, 10), "{e:#?}");
        assert!(waited <= 1, "only the read running when the channel gave up: {e:#?}");
        assert!(e.iter().all(|e| !e.transport_error.as_ref().is_some_and(|t| t.message.contains("not started"))));
    }

    /// A JSON form the device refuses is read as text, and not asked again of that device: the
    /// second probe goes straight to text (the JSON command's side effect happens once).
    #[tokio::test]
    async fn a_refused_json_form_falls_back_to_text_once_per_device() {
        let dir = tempfile::tempdir().unwrap();
        let tally = dir.path().join("asked");
        let json = format!("echo asked >> {}; echo '% This is an unconverted command'", tally.display());
        let commands = local(Duration::from_secs(10), false);
        let probe = Probe {
            key: "interfaces".into(),
            source: "eos_interfaces",
            command: "echo text".into(),
            json: Some(json.clone()),
            quick: false,
        };
        let first = commands.run_all(vec![probe.clone()]).await;
        assert_eq!((first[0].command.as_str(), first[0].stdout.as_slice()), ("echo text", b"text\n".as_slice()));
        assert_eq!(
            first[0].json_refused.as_deref(),
            Some(format!("`{json}` refused (% This is an unconverted command): read as text").as_str())
        );
        let second = commands.run_all(vec![probe]).await;
        assert_eq!((second[0].command.as_str(), second[0].json_refused.as_deref()), ("echo text", None));
        assert_eq!(std::fs::read_to_string(&tally).unwrap(), "asked\n", "the refused form was asked once");
        // A device that answers JSON is read as JSON.
        let ok = Probe { json: Some("echo '{\"a\": 1}'".into()), ..second_probe() };
        let read = commands.run_all(vec![ok]).await;
        assert_eq!((read[0].command.as_str(), read[0].json_refused.as_deref()), ("echo '{\"a\": 1}'", None));
    }

    fn second_probe() -> Probe {
        Probe { key: "lldp".into(), source: "lldp", command: "echo text".into(), json: None, quick: false }
    }

    /// On a Linux host a command runs under `timeout -k`: one that never ends is stopped on the
    /// host at the limit (exit 124) with what it printed, and its evidence names the line sent.
    #[tokio::test]
    async fn a_hung_command_is_stopped_on_the_device_with_its_output() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("hang.sh");
        std::fs::write(&script, "echo partial\nsleep 600\n").unwrap();
        let commands = local(Duration::from_secs(1), true);
        let command = format!("sh {}", script.display());
        let probe = Probe { key: "hang".into(), source: "lsmod", command: command.clone(), json: None, quick: false };
        let e = &commands.run_all(vec![probe]).await[0];
        assert_eq!(e.command, format!("timeout -k 2 1 {command}"));
        assert_eq!(
            (e.exit_status, e.stdout.as_slice(), &e.transport_error),
            (Some(TIMED_OUT_STATUS), b"partial\n".as_slice(), &None)
        );
        assert_eq!(unbounded(&e.command), command);
        assert_eq!(unbounded("mlnx_qos -i ens1np0"), "mlnx_qos -i ens1np0");
    }
}
