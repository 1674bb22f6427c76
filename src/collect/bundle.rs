//! A Linux host's quick reads (procfs and sysfs files, `ip`, `ethtool`, `lsmod`...) sent on one
//! channel as one `sh -c` script that runs them one after another, and its output split back
//! into each command's own stdout, stderr and exit status.
//!
//! Why: every channel costs a round of SSH packets on both ends and a fork of the user's shell by
//! sshd on the host, and a host's quick reads are most of its commands (an eight-rail host reads
//! 8 × `ethtool`, 8 × the DCQCN tree, and 9 counter reads per phase). Run one after another they
//! take milliseconds; the slow tools (`mlnx_qos`, `nvidia-smi`, `show_gids`, the subnet
//! manager's queries) keep channels of their own and still run side by side. Each command keeps its own `timeout`,
//! so one that hangs is stopped on the host and the next ones still run.
//!
//! The framing: after each command the script prints, on stdout, a line `\x1e<tag> <i> <status>`
//! and, on stderr, `\x1e<tag> <i>`, each after a line end (so an output without a final line end
//! is kept as it is: exactly one line end before the mark belongs to the mark). The tag carries
//! a random nonce, so no output can end another command's by chance.

use crate::transport::{CommandOutput, TransportError};
use std::hash::{BuildHasher, Hasher};

/// The output of one command, and whether it ran to its end.
pub type Ran = (CommandOutput, Result<(), TransportError>);

/// Commands to run one after another on one channel.
pub struct Bundle {
    tag: String,
    lines: Vec<String>,
    script: String,
}

/// A bundle's output cut back into its commands'.
pub struct Split {
    /// Each command's output and how it ended, in order.
    pub parts: Vec<Ran>,
    /// How many commands printed their mark (ran to their end).
    pub ended: usize,
}

impl Bundle {
    /// A bundle of `lines` (each a command line as it would be sent alone).
    pub fn new(lines: Vec<String>) -> Bundle {
        let nonce = std::collections::hash_map::RandomState::new().build_hasher().finish();
        let tag = format!("fabcheck-{nonce:016x}");
        let script = script(&tag, &lines);
        Bundle { tag, lines, script }
    }

    /// The command line that runs them all.
    pub fn script(&self) -> &str {
        &self.script
    }

    /// Each command's output, in order, from the bundle's `out` and how it ended; `cap` is the
    /// most one command may keep of each stream. A command the bundle did not reach gets the
    /// bundle's error; the one it was running then keeps what it printed, as partial. A command
    /// whose stderr was cut off (the bundle's output reached its cap) is marked truncated.
    pub fn split(&self, (out, result): Ran, cap: usize) -> Split {
        let stdout = marked(&out.stdout, &self.tag);
        let stderr = marked(&out.stderr, &self.tag);
        let script = self.script();
        let mut parts = Vec::with_capacity(self.lines.len());
        for (i, line) in self.lines.iter().enumerate() {
            let ended = stdout.ends.get(i);
            let running = i == stdout.ends.len();
            let text = match ended {
                Some(end) => end.text,
                None if running => stdout.rest,
                None => &[][..],
            };
            let error_text = match stderr.ends.get(i) {
                Some(end) => end.text,
                None if stderr.ends.len() == i => stderr.rest,
                None => &[][..],
            };
            let mut part = CommandOutput {
                exit_status: ended.and_then(|end| end.status),
                duration: out.duration,
                truncated: out.truncated && stderr.ends.len() <= i,
                ..CommandOutput::nothing(line, out.started)
            };
            part.truncated |= crate::transport::append_capped(&mut part.stdout, text, cap);
            part.truncated |= crate::transport::append_capped(&mut part.stderr, error_text, cap);
            let outcome = match (ended, &result) {
                (Some(_), _) => Ok(()),
                (None, Err(e)) if running => Err(renamed(e, script, line)),
                (None, Err(e)) => Err(not_started(e, script, line, &self.lines[stdout.ends.len()])),
                // The bundle ended without this command's mark: its output was cut at the cap...
                (None, Ok(())) if out.truncated => {
                    part.truncated = true;
                    Ok(())
                }
                // ... or the shell running them was stopped.
                (None, Ok(())) => Err(TransportError::Session(format!(
                    "no exit status for `{line}`: the shell running it ended first"
                ))),
            };
            parts.push((part, outcome));
        }
        Split { parts, ended: stdout.ends.len() }
    }
}

/// The command line that runs `lines` one after another, each followed by its marks:
/// `sh -c '...'`, so the framing's `$?` and `>&2` mean the same whatever the user's login shell
/// is (a csh would read `>&2` as a file).
fn script(tag: &str, lines: &[String]) -> String {
    let body: String = lines
        .iter()
        .enumerate()
        .map(|(i, line)| format!("{line}; printf '\\n\\036{tag} {i} %s\\n' $?; printf '\\n\\036{tag} {i}\\n' >&2; "))
        .collect();
    format!("sh -c {}", single_quoted(body.trim_end()))
}

/// `text` in single quotes for a POSIX shell (`'` as `'\''`).
fn single_quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// One command's part of a stream: its bytes, and its exit status where the mark carries one.
struct End<'a> {
    text: &'a [u8],
    status: Option<u32>,
}

/// A stream cut at its marks: the parts that ended, and what follows the last mark.
struct Marked<'a> {
    ends: Vec<End<'a>>,
    rest: &'a [u8],
}

/// Cuts `stream` at each `\n\x1e<tag> <i>[ <status>]\n`; a mark cut off before its line end is
/// not one (the stream was cut at the cap).
fn marked<'a>(stream: &'a [u8], tag: &str) -> Marked<'a> {
    let needle = format!("\n\x1e{tag} ");
    let needle = needle.as_bytes();
    let mut ends = Vec::new();
    let mut start = 0;
    let mut from = 0;
    let finder = memchr::memmem::Finder::new(needle);
    while let Some(at) = finder.find(&stream[from..]).map(|p| p + from) {
        let fields_at = at + needle.len();
        let Some(line_end) = stream[fields_at..].iter().position(|&b| b == b'\n').map(|p| p + fields_at) else {
            break;
        };
        let fields = String::from_utf8_lossy(&stream[fields_at..line_end]);
        let mut words = fields.split(' ');
        let index = words.next().and_then(|w| w.parse::<usize>().ok());
        match index {
            Some(index) if index == ends.len() => {
                let status = words.next().and_then(|w| w.parse::<u32>().ok());
                ends.push(End { text: &stream[start..at], status });
                start = line_end + 1;
                from = start;
            }
            // Not a mark of ours in order: part of an output.
            _ => from = at + 1,
        }
    }
    Marked { ends, rest: &stream[start..] }
}

/// The bundle's error told as `line`'s: the script's text in it becomes the command's.
fn renamed(e: &TransportError, script: &str, line: &str) -> TransportError {
    let name = |text: &str| text.replace(script, line);
    match e {
        TransportError::Timeout { stage, after } => TransportError::Timeout { stage: name(stage), after: *after },
        TransportError::Session(m) => TransportError::Session(name(m)),
        TransportError::Protocol(m) => TransportError::Protocol(name(m)),
        TransportError::NoCommonAlgorithm(m) => TransportError::NoCommonAlgorithm(name(m)),
        other => other.clone(),
    }
}

/// The error of a command the bundle never reached, because `running` had not finished.
fn not_started(e: &TransportError, script: &str, line: &str, running: &str) -> TransportError {
    match renamed(e, script, running) {
        TransportError::Timeout { stage, after } => {
            TransportError::Timeout { stage: format!("`{line}` (not started: it waited for {stage})"), after }
        }
        TransportError::Session(m) => TransportError::Session(format!("`{line}` did not start: {m}")),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collect::TIMED_OUT_STATUS;
    use crate::transport::LocalSession;
    use std::time::{Duration, SystemTime};

    fn run(bundle: &Bundle, limit: Duration) -> Vec<Ran> {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let ran = rt.block_on(LocalSession::new(1 << 20).run_capped(bundle.script(), limit, 1 << 20));
        bundle.split(ran, 1 << 20).parts
    }

    fn texts(part: &Ran) -> (&str, &str, Option<u32>) {
        let (o, _) = part;
        (std::str::from_utf8(&o.stdout).unwrap(), std::str::from_utf8(&o.stderr).unwrap(), o.exit_status)
    }

    /// Commands that print every kind of output: with and without a final line end, nothing,
    /// blank lines, stderr without a line end and a non-zero status, and quotes.
    fn every_kind_of_output() -> Bundle {
        Bundle::new(vec![
            "echo one".into(),
            "printf 'no line end'".into(),
            "true".into(),
            "printf '\\n\\nblank lines\\n\\n'".into(),
            "sh -c 'printf \"err without line end\" >&2; exit 3'".into(),
            "echo last".into(),
        ])
    }

    /// Each command got exactly its own stdout, stderr and exit status back.
    fn assert_each_got_its_own(parts: &[Ran]) {
        assert_eq!(parts.len(), 6);
        assert_eq!(texts(&parts[0]), ("one\n", "", Some(0)));
        assert_eq!(texts(&parts[1]), ("no line end", "", Some(0)));
        assert_eq!(texts(&parts[2]), ("", "", Some(0)));
        assert_eq!(texts(&parts[3]), ("\n\nblank lines\n\n", "", Some(0)));
        assert_eq!(texts(&parts[4]), ("", "err without line end", Some(3)));
        assert_eq!(texts(&parts[5]), ("last\n", "", Some(0)));
        assert!(parts.iter().all(|(o, r)| r.is_ok() && !o.truncated));
        assert_eq!(parts[0].0.command, "echo one");
    }

    /// Through a real `sh` (dash here, as on Debian and Ubuntu hosts): each command gets exactly
    /// its own output back, and quotes in a command survive the script's own quoting.
    #[test]
    fn each_command_gets_its_own_output_and_status_back() {
        let bundle = every_kind_of_output();
        assert_each_got_its_own(&run(&bundle, Duration::from_secs(10)));
    }

    /// The same where `sh` is bash, as on RHEL and Rocky hosts (bash's `printf` and `$?` under
    /// the name `sh`, which puts it in POSIX mode), and where the login shell is bash too.
    #[test]
    fn each_command_gets_its_own_output_and_status_back_where_sh_is_bash() {
        let bash = ["/bin/bash", "/usr/bin/bash"].into_iter().find(|p| std::path::Path::new(p).exists());
        let bash = bash.expect("bash is needed by this test (Debian's essential package set has it)");
        let bin = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(bash, bin.path().join("sh")).unwrap();
        let path = format!("{}:{}", bin.path().display(), std::env::var("PATH").unwrap_or_default());
        let bundle = every_kind_of_output();
        let ran = std::process::Command::new(bash).arg("-c").arg(bundle.script()).env("PATH", path).output().unwrap();
        let out = CommandOutput {
            stdout: ran.stdout,
            stderr: ran.stderr,
            exit_status: ran.status.code().and_then(|c| u32::try_from(c).ok()),
            ..output("", "")
        };
        assert_each_got_its_own(&bundle.split((out, Ok(())), 1 << 20).parts);
    }

    /// A shell that ends before a command's mark (stopped from outside) leaves that command and
    /// the ones after it without an exit status, each with an error that says so.
    #[test]
    fn commands_after_the_shell_ended_have_no_status() {
        let bundle = Bundle::new(vec!["echo one".into(), "kill -9 $$".into(), "echo never".into()]);
        let parts = run(&bundle, Duration::from_secs(10));
        assert_eq!(texts(&parts[0]), ("one\n", "", Some(0)));
        for (out, result) in &parts[1..] {
            assert_eq!(out.exit_status, None);
            let message = result.as_ref().unwrap_err().to_string();
            assert!(message.contains("the shell running it ended first"), "{message}");
        }
    }

    #[test]
    fn a_failing_command_and_a_missing_tool_keep_their_status_and_message() {
        let bundle = Bundle::new(vec!["grep -H '' /nonexistent/file".into(), "no-such-tool-fabcheck".into()]);
        let parts = run(&bundle, Duration::from_secs(10));
        let (out, err, status) = texts(&parts[0]);
        assert_eq!((out, status), ("", Some(2)));
        assert!(err.contains("/nonexistent/file"), "{err}");
        let (out, err, status) = texts(&parts[1]);
        assert_eq!((out, status), ("", Some(127)));
        assert!(err.contains("no-such-tool-fabcheck") && err.contains("not found"), "{err}");
    }

    /// A command that hangs is stopped by its own `timeout` (exit 124, what it printed kept) and
    /// the next command still runs.
    #[test]
    fn a_hung_command_is_stopped_and_the_next_one_runs() {
        let bundle =
            Bundle::new(vec!["timeout -k 1 1 sh -c 'echo partial; exec sleep 30'".into(), "echo after".into()]);
        let parts = run(&bundle, Duration::from_secs(10));
        assert_eq!(texts(&parts[0]), ("partial\n", "", Some(TIMED_OUT_STATUS)));
        assert_eq!(texts(&parts[1]), ("after\n", "", Some(0)));
    }

    fn output(stdout: &str, stderr: &str) -> CommandOutput {
        CommandOutput {
            stdout: stdout.as_bytes().to_vec(),
            stderr: stderr.as_bytes().to_vec(),
            duration: Duration::from_millis(5),
            ..CommandOutput::nothing("bundle", SystemTime::UNIX_EPOCH)
        }
    }

    /// The connection went while the second command ran: the first is whole, the second keeps
    /// what it printed with the error, the third never started and says which one it waited for.
    #[test]
    fn a_bundle_cut_short_keeps_what_ended_and_names_what_did_not_start() {
        let bundle = Bundle::new(vec!["a".into(), "b".into(), "c".into()]);
        let tag = bundle.tag.clone();
        let script = bundle.script().to_string();
        let stdout = format!("A\n\n\x1e{tag} 0 0\nB partial");
        let stderr = format!("\n\x1e{tag} 0\n");
        let error = TransportError::Timeout { stage: format!("`{script}`"), after: Duration::from_secs(3) };
        let parts = bundle.split((output(&stdout, &stderr), Err(error)), 1 << 20).parts;
        assert_eq!(texts(&parts[0]), ("A\n", "", Some(0)));
        assert!(parts[0].1.is_ok());
        assert_eq!(texts(&parts[1]), ("B partial", "", None));
        assert_eq!(parts[1].1.as_ref().unwrap_err().to_string(), "`b` timed out after 3s");
        assert_eq!(texts(&parts[2]), ("", "", None));
        assert_eq!(
            parts[2].1.as_ref().unwrap_err().to_string(),
            "`c` (not started: it waited for `b`) timed out after 3s"
        );
    }

    /// A bundle's output cut at every byte (the connection lost there): each command that had
    /// printed its mark is whole, the one running keeps a prefix of its output, none is lost.
    #[test]
    fn an_output_cut_anywhere_splits_into_whole_parts_and_one_partial() {
        let bundle = Bundle::new(vec!["a".into(), "b".into(), "c".into()]);
        let tag = bundle.tag.clone();
        let texts = ["one\n", "", "three, no line end"];
        let stdout: String = texts.iter().enumerate().map(|(i, t)| format!("{t}\n\x1e{tag} {i} {}\n", i * 2)).collect();
        let lost = TransportError::Session("connection lost".into());
        for cut in 0..=stdout.len() {
            let parts = bundle.split((output(&stdout[..cut], ""), Err(lost.clone())), 1 << 20).parts;
            assert_eq!(parts.len(), 3);
            let whole = parts.iter().take_while(|(o, r)| r.is_ok() && o.exit_status.is_some()).count();
            for (i, (out, _)) in parts.iter().enumerate().take(whole) {
                assert_eq!((out.stdout.as_slice(), out.exit_status), (texts[i].as_bytes(), Some(i as u32 * 2)));
            }
            if let Some((out, result)) = parts.get(whole) {
                assert!(
                    texts[whole].as_bytes().starts_with(&out.stdout) || out.stdout.starts_with(texts[whole].as_bytes())
                );
                assert!(result.is_err());
            }
        }
    }

    /// Marks of another nonce, or out of order, are output; one cut before its line end is not a
    /// mark; each command keeps at most `cap` bytes.
    #[test]
    fn only_whole_marks_of_this_bundle_in_order_cut_the_stream() {
        let bundle = Bundle::new(vec!["a".into(), "b".into()]);
        let tag = bundle.tag.clone();
        let stdout =
            format!("x\n\x1efabcheck-0000000000000000 0 0\n\n\x1e{tag} 1 0\nmore\n\x1e{tag} 0 0\nB\n\x1e{tag} 1");
        // The bundle's output was cut at its cap inside the last mark (its stderr has the first
        // command's mark, as a real bundle's does).
        let cut = CommandOutput { truncated: true, ..output(&stdout, &format!("\n\x1e{tag} 0\n")) };
        let parts = bundle.split((cut, Ok(())), 1 << 20).parts;
        assert_eq!(texts(&parts[0]).0, format!("x\n\x1efabcheck-0000000000000000 0 0\n\n\x1e{tag} 1 0\nmore").as_str());
        assert_eq!(texts(&parts[1]), (format!("B\n\x1e{tag} 1").as_str(), "", None));
        assert!(parts[1].0.truncated && parts[1].1.is_ok() && !parts[0].0.truncated);
        // Only the stderr was cut: the second command ended, but its stderr is incomplete.
        let stdout = format!("A\n\x1e{tag} 0 0\nB\n\x1e{tag} 1 0\n");
        let cut = CommandOutput { truncated: true, ..output(&stdout, &format!("\n\x1e{tag} 0\nlong err")) };
        let parts = bundle.split((cut, Ok(())), 1 << 20).parts;
        assert_eq!(texts(&parts[1]), ("B", "long err", Some(0)));
        assert!(parts[1].0.truncated && !parts[0].0.truncated);
        let capped = bundle.split((output(&format!("123456\n\x1e{tag} 0 0\n"), ""), Ok(())), 4).parts;
        assert_eq!((texts(&capped[0]).0, capped[0].0.truncated), ("1234", true));
    }

    /// A lab host's quick reads, sent as one bundle, read exactly as each sent alone: the lab's
    /// `sh -c` runs the same script a real host's dash does (the script's `printf` and `$?`), and
    /// a tool the host lacks is `timeout`'s message either way.
    #[test]
    fn a_lab_hosts_quick_reads_in_one_bundle_read_as_one_by_one() {
        use crate::platform::linux::{counter_probes, host_probes, netdev_probes};
        let mut fabric = fabcheck_lab::build::build_fabric(2, 2, 2);
        fabric.hosts[0].missing_tools.insert("lsmod".into());
        let mut probes = host_probes();
        probes.extend(netdev_probes("ens1np0").unwrap());
        probes.extend(counter_probes("t0", &["ens1np0".into()], &[("mlx5_2".into(), 1)]));
        let lines: Vec<String> =
            probes.iter().filter(|p| p.quick).map(|p| format!("timeout -k 2 30 {}", p.command)).collect();
        assert!(lines.len() >= 12, "{lines:#?}");
        let bundle = Bundle::new(lines.clone());
        let exec = |command: &str| fabcheck_lab::shell::exec_on(&fabric, 0, command, Duration::from_secs(100));
        let whole = exec(bundle.script());
        let out = CommandOutput {
            stdout: whole.stdout.into_bytes(),
            stderr: whole.stderr.into_bytes(),
            exit_status: Some(whole.status),
            ..output("", "")
        };
        let parts = bundle.split((out, Ok(())), 1 << 20).parts;
        for (line, (part, result)) in lines.iter().zip(&parts) {
            let alone = exec(line);
            assert!(result.is_ok(), "{line}");
            assert_eq!(std::str::from_utf8(&part.stdout).unwrap(), alone.stdout, "{line}");
            assert_eq!(part.exit_status, Some(alone.status), "{line}");
            assert_eq!(std::str::from_utf8(&part.stderr).unwrap(), alone.stderr, "{line}");
            if line.ends_with(" lsmod") {
                let missing = b"timeout: failed to run command 'lsmod': No such file or directory\n";
                assert_eq!((alone.status, part.stderr.as_slice()), (127, missing.as_slice()));
            }
        }
    }
}
