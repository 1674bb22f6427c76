//! The login shell of a lab host: what `bash -c COMMAND` prints there, as sshd runs it.
//!
//! The command is split into words as bash does (single and double quotes, backslashes, `#`
//! comments, pathname expansion over the host's procfs/sysfs files, sorted bytewise as in the C
//! locale sshd gives a command). One redirection of standard output to a file is run (`echo 1 >
//! /sys/class/net/IF/ecn/roce_np/enable/3`: how DCQCN is configured), writing the sysfs files the
//! driver lets be written and the lab keeps. Pipelines, other redirections, lists and expansions
//! are not run: such a command is answered as bash answers a command it cannot find. The error
//! texts are those of bash 5.2 run by OpenSSH's sshd (checked on a real one): `bash: foo: command
//! not found` (status 127), `bash: /path: No such file or directory` (127), `bash: -c: line 1:
//! unexpected EOF while looking for matching `''` (status 2).
//!
//! Commands: `ibdev2netdev [-v]`, `ibstat [CA]`, `show_gids [DEV]`, `sminfo`, `perfquery [-x] [-C CA]
//! [-P PORT]`, `lsmod`, `cat FILE...`, `grep [-H] PATTERN FILE...`, `ip [-j] link [show] [[dev] IF]`,
//! `mlnx_qos -i IF`, `ethtool IF`, `ethtool -S IF`, `nvidia-smi topo -m`, plus `echo`, `hostname`,
//! `true`, `false`, `lldpctl` / `lldpcli show neighbors` (the leaf ports the RoCE rails are
//! cabled to), `sh -c SCRIPT` (dash, for scripts of simple commands: [`crate::script`]), and
//! `sudo`/`VAR=value` prefixes (the assignments are the command's environment).
//! A tool in the host's `missing_tools` is not found.
//!
//! Configuration commands, which change the host ([`Output::changed`]): `mlnx_qos -i IF --pfc
//! LIST`, `--trust dscp|pcp`, `--dscp2prio set|del,DSCP,PRIO` (`render/mlnx_qos.rs`), `ip link set
//! [dev] IF mtu N` (`render/ip_link.rs`), `modprobe MODULE` (`render/lsmod.rs`) and the sysfs
//! writes above (`render/sysfs.rs`), each accepting and refusing what the real one does.
//!
//! Switches ([`exec_on`]): SONiC and Cumulus run commands through bash as well (the same word
//! splitting, no files to glob), then their platform's programs (`render/sonic.rs`,
//! `render/nvue.rs`); EOS, NX-OS and OS10 run them through their CLIs (`render/eos.rs`,
//! `render/nxos.rs`, `render/dell_os10.rs`).
//!
//! Benchmarks: `mpirun`/`mpiexec` (Open MPI 4.1, as HPC-X ships it) and `srun` (Slurm) start
//! nccl-tests (`all_reduce_perf`, `all_gather_perf`, `alltoall_perf`, `sendrecv_perf`,
//! `reduce_scatter_perf`, `broadcast_perf`) on any hosts of the lab, which is why [`exec`] takes
//! the whole lab; a test binary run directly uses the GPUs of the host it runs on. Their output
//! takes time to appear (see [`Output::marks`]); see `render/mpirun.rs` and `render/nccl_tests.rs`.

use crate::render::nccl::Env;
use crate::render::{
    capture, dell_os10, eos, ethtool, ethtool_stats, ibdev2netdev, iblinkinfo, ibstat, ip_link, lldp, lsmod, mlnx_qos,
    mpirun, nccl_tests, nvidia_smi_topo, nvue, nxos, perfquery, show_gids, sminfo, sonic, sysfs,
};
use crate::script;
use crate::state::{Fabric, LabHost, Platform};
use std::borrow::Cow;
use std::cell::OnceCell;
use std::fmt::Write as _;
use std::time::Duration;

/// What a command printed and how it exited.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Output {
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// Exit status (0-255).
    pub status: u32,
    /// When the output appears, for a command that takes time (a benchmark): in order, each mark
    /// says how much of stdout and stderr has been written by then. Empty: everything at once.
    /// Whatever follows the last mark is written at the last mark's time, followed by the exit.
    pub marks: Vec<Mark>,
    /// The command never exits: after the last mark, no more output, exit status, EOF or close.
    pub hangs: bool,
    /// Binary standard output (a capture), written instead of `stdout`, all at once.
    pub binary: Option<Vec<u8>>,
    /// The host's state after the command, when the command changed it (a configuration command:
    /// `mlnx_qos --pfc`, `ip link set mtu`, `echo 1 > /sys/...`, `modprobe`). Running a command
    /// only reads the lab: whoever holds its state stores this, so that later commands see the
    /// change (the lab's server does, for every connection). `None`: nothing changed.
    pub changed: Option<Box<LabHost>>,
}

/// A point in a command's run: by `at` after it started, the first `stdout` bytes of its
/// standard output and `stderr` bytes of its standard error are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark {
    /// Time since the command started.
    pub at: Duration,
    /// Bytes of standard output written by then (on a character boundary).
    pub stdout: usize,
    /// Bytes of standard error written by then (on a character boundary).
    pub stderr: usize,
}

impl Output {
    /// Success with this standard output.
    pub(crate) fn ok(stdout: impl Into<String>) -> Output {
        Output { stdout: stdout.into(), ..Output::default() }
    }

    /// Exit `status` with these outputs.
    pub(crate) fn fail(status: u32, stdout: impl Into<String>, stderr: impl Into<String>) -> Output {
        Output { stdout: stdout.into(), stderr: stderr.into(), status, ..Output::default() }
    }

    /// Success with binary standard output and this standard error.
    pub(crate) fn bytes(stdout: Vec<u8>, stderr: impl Into<String>) -> Output {
        Output { binary: Some(stdout), stderr: stderr.into(), ..Output::default() }
    }

    /// How long the command runs before it exits (or stops writing, when it hangs).
    pub fn duration(&self) -> Duration {
        self.marks.last().map_or(Duration::ZERO, |m| m.at)
    }
}

/// A word: its characters, each marked quoted (literal) or not (may glob).
#[derive(Debug, Clone, PartialEq)]
struct Word(Vec<(char, bool)>);

impl Word {
    fn text(&self) -> String {
        self.0.iter().map(|(c, _)| c).collect()
    }

    /// The word as shell text that reads back as it: quoted characters backslash-escaped.
    fn source(&self) -> String {
        if self.0.is_empty() {
            return "''".into();
        }
        let mut text = String::new();
        for &(c, quoted) in &self.0 {
            match c {
                // A backslash before a line end would join lines instead.
                '\n' => text.push_str("'\n'"),
                c if quoted || !(c.is_alphanumeric() || "*?[]/._-=:,+@%^!~".contains(c)) => {
                    text.push('\\');
                    text.push(c);
                }
                c => text.push(c),
            }
        }
        text
    }

    fn globs(&self) -> bool {
        self.0.iter().any(|(c, quoted)| !quoted && matches!(c, '*' | '?' | '['))
    }
}

/// How bash reads the command line.
#[derive(Debug, PartialEq)]
enum Parsed {
    /// A simple command, and the file its standard output is redirected to (`> FILE`), if any.
    Words(Vec<Word>, Option<Word>),
    /// An unclosed quote: bash's `unexpected EOF while looking for matching` error.
    Unterminated(char),
    /// Shell syntax the lab does not run (pipes, lists, other redirections, expansions).
    Unsupported(Vec<Word>),
}

fn split(command: &str) -> Parsed {
    let mut words = Vec::new();
    let mut cur: Vec<(char, bool)> = Vec::new();
    let mut in_word = false;
    let mut unsupported = false;
    // Where the word after `>` (the file) will be in `words`.
    let mut redirect_at: Option<usize> = None;
    let mut chars = command.chars().peekable();
    let flush = |words: &mut Vec<Word>, cur: &mut Vec<(char, bool)>, in_word: &mut bool| {
        if *in_word {
            words.push(Word(std::mem::take(cur)));
            *in_word = false;
        }
    };
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => flush(&mut words, &mut cur, &mut in_word),
            '\n' => {
                flush(&mut words, &mut cur, &mut in_word);
                if chars.clone().any(|c| !c.is_whitespace()) {
                    unsupported = true;
                }
            }
            '#' if !in_word => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => cur.push((c, true)),
                        None => return Parsed::Unterminated('\''),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(e @ ('$' | '`' | '"' | '\\')) => cur.push((e, true)),
                            Some('\n') => {}
                            Some(other) => {
                                cur.push(('\\', true));
                                cur.push((other, true));
                            }
                            None => return Parsed::Unterminated('"'),
                        },
                        Some(c @ ('$' | '`')) => {
                            unsupported = true;
                            cur.push((c, true));
                        }
                        Some(c) => cur.push((c, true)),
                        None => return Parsed::Unterminated('"'),
                    }
                }
            }
            '\\' => match chars.next() {
                Some('\n') => {}
                Some(e) => {
                    in_word = true;
                    cur.push((e, true));
                }
                None => {
                    in_word = true;
                    cur.push(('\\', true));
                }
            },
            // One `> FILE` is run (how a sysfs file is written); a descriptor number before it
            // (`2>`), `>>`, `>&`, `>|` or a second redirection are not.
            '>' => {
                let descriptor = in_word && cur.iter().all(|&(c, quoted)| c.is_ascii_digit() && !quoted);
                if descriptor || redirect_at.is_some() || matches!(chars.peek(), Some('>' | '&' | '|')) {
                    unsupported = true;
                }
                flush(&mut words, &mut cur, &mut in_word);
                redirect_at = Some(words.len());
            }
            '|' | '&' | ';' | '<' | '(' | ')' | '$' | '`' => {
                unsupported = true;
                flush(&mut words, &mut cur, &mut in_word);
            }
            c => {
                in_word = true;
                cur.push((c, false));
            }
        }
    }
    flush(&mut words, &mut cur, &mut in_word);
    let target = match redirect_at {
        Some(at) if at < words.len() => Some(words.remove(at)),
        Some(_) => {
            unsupported = true; // `echo 1 >`: no file.
            None
        }
        None => None,
    };
    if unsupported { Parsed::Unsupported(words) } else { Parsed::Words(words, target) }
}

/// bash's pattern match of one path component (`*`, `?`, `[...]`; quoted characters literal).
fn matches(pattern: &[(char, bool)], name: &[char]) -> bool {
    let Some(&(p, quoted)) = pattern.first() else {
        return name.is_empty();
    };
    if quoted {
        return name.first() == Some(&p) && matches(&pattern[1..], &name[1..]);
    }
    match p {
        '*' => (0..=name.len()).any(|i| matches(&pattern[1..], &name[i..])),
        '?' => !name.is_empty() && matches(&pattern[1..], &name[1..]),
        '[' => {
            let Some(close) = pattern.iter().skip(2).position(|&(c, q)| c == ']' && !q).map(|i| i + 2) else {
                return name.first() == Some(&'[') && matches(&pattern[1..], &name[1..]);
            };
            let Some(&first) = name.first() else {
                return false;
            };
            let mut class = &pattern[1..close];
            let negate = matches!(class.first(), Some(('!' | '^', false)));
            if negate {
                class = &class[1..];
            }
            let mut hit = false;
            let mut i = 0;
            while i < class.len() {
                if i + 2 < class.len() && class[i + 1].0 == '-' {
                    hit |= class[i].0 <= first && first <= class[i + 2].0;
                    i += 3;
                } else {
                    hit |= class[i].0 == first;
                    i += 1;
                }
            }
            hit != negate && matches(&pattern[close + 1..], &name[1..])
        }
        c => name.first() == Some(&c) && matches(&pattern[1..], &name[1..]),
    }
}

/// Pathname expansion of one word over the host's files and their directories: the sorted
/// matches, or the word itself when nothing matches (bash without `nullglob`).
fn expand(word: &Word, tree: &Tree) -> Vec<String> {
    if !word.globs() {
        return vec![word.text()];
    }
    let paths = tree.files().iter().map(|(p, _)| p);
    let parts: Vec<&[(char, bool)]> = word.0.split(|&(c, _)| c == '/').collect();
    let mut candidates: Vec<&str> = Vec::new();
    for path in paths {
        let mut end = path.len();
        loop {
            candidates.push(&path[..end]);
            match path[..end].rfind('/') {
                Some(i) if i > 0 => end = i,
                _ => break,
            }
        }
    }
    let mut found: Vec<String> = candidates
        .into_iter()
        .filter(|cand| {
            let names: Vec<&str> = cand.split('/').collect();
            names.len() == parts.len()
                && names.iter().zip(&parts).all(|(name, pat)| {
                    let chars: Vec<char> = name.chars().collect();
                    let hidden = chars.first() == Some(&'.')
                        && pat.first() != Some(&('.', false))
                        && pat.first() != Some(&('.', true));
                    !hidden && matches(pat, &chars)
                })
        })
        .map(String::from)
        .collect();
    found.sort();
    found.dedup();
    if found.is_empty() { vec![word.text()] } else { found }
}

/// The host's procfs/sysfs files, listed on first use: most commands never read one.
struct Tree<'h> {
    host: &'h LabHost,
    files: OnceCell<Vec<(String, sysfs::Node)>>,
}

impl Tree<'_> {
    fn files(&self) -> &[(String, sysfs::Node)] {
        self.files.get_or_init(|| sysfs::files(self.host))
    }
}

/// Runs `command` on `hosts[me]` at `elapsed` since the lab started. `hosts` is the whole lab:
/// `mpirun` and `srun` start ranks on the other hosts. The hosts are on no switch: `lldpctl`
/// shows no neighbour (see [`exec_on`] for a host of a fabric).
pub fn exec(hosts: &[LabHost], me: usize, command: &str, elapsed: Duration) -> Output {
    exec_host(hosts, None, me, command, elapsed)
}

/// Runs `command` on device `device` of `fabric`: hosts are `0..fabric.hosts.len()`, the
/// switches follow in order. A host runs bash as [`exec`] does; a switch answers as its platform
/// does (SONiC and Cumulus through bash, EOS, NX-OS and OS10 through their CLIs). It only reads
/// `fabric`: a command that changes its host returns the host's new state in
/// [`Output::changed`], for the caller to store (the lab's server does).
pub fn exec_on(fabric: &Fabric, device: usize, command: &str, elapsed: Duration) -> Output {
    let hosts = fabric.hosts.len();
    if device < hosts {
        return exec_host(&fabric.hosts, Some(fabric), device, command, elapsed);
    }
    let me = device - hosts;
    match fabric.switches[me].platform {
        Platform::Eos => eos::exec(fabric, me, command, elapsed),
        Platform::Nxos => nxos::exec(fabric, me, command, elapsed),
        Platform::DellOs10 => dell_os10::exec(fabric, me, command, elapsed),
        Platform::Sonic => match bash_args(command) {
            Ok(args) => sonic::exec(fabric, me, &args, elapsed),
            Err(out) => out,
        },
        Platform::Nvue => match bash_args(command) {
            Ok(args) => nvue::exec(fabric, me, &args, elapsed),
            Err(out) => out,
        },
    }
}

/// The words of a simple command and the file its output is redirected to, or bash's error for a
/// command line it will not run as one: an unclosed quote, or shell syntax the lab does not run
/// (answered as a command bash cannot find).
fn words_or_error(command: &str) -> Result<(Vec<Word>, Option<Word>), Output> {
    match split(command) {
        Parsed::Words(w, target) => Ok((w, target)),
        Parsed::Unterminated(q) => {
            Err(Output::fail(2, "", format!("bash: -c: line 1: unexpected EOF while looking for matching `{q}'\n")))
        }
        Parsed::Unsupported(w) => {
            let first = w.first().map(Word::text).unwrap_or_default();
            Err(not_found(&first))
        }
    }
}

/// The words bash runs for `command` on a switch (no files to glob): quotes removed, `VAR=value`
/// and `sudo [-n]` prefixes dropped. A switch has no file to redirect to: a redirection is shell
/// syntax it does not run.
pub(crate) fn bash_args(command: &str) -> Result<Vec<String>, Output> {
    let words = match words_or_error(command)? {
        (words, None) => words,
        (words, Some(_)) => return Err(not_found(&words.first().map(Word::text).unwrap_or_default())),
    };
    let mut args: Vec<String> = words.iter().map(Word::text).collect();
    let mut env = Env::new();
    take_assignments(&mut args, &mut env);
    if args.first().map(String::as_str) == Some("sudo") {
        args.remove(0);
        while args.first().is_some_and(|a| a.starts_with('-')) {
            args.remove(0);
        }
        take_assignments(&mut args, &mut env);
    }
    Ok(args)
}

fn exec_host(hosts: &[LabHost], fabric: Option<&Fabric>, me: usize, command: &str, elapsed: Duration) -> Output {
    let (words, stdout_to) = match words_or_error(command) {
        Ok(parsed) => parsed,
        Err(out) => return out,
    };
    let tree = Tree { host: &hosts[me], files: OnceCell::new() };
    match stdout_to {
        None => run_words(hosts, fabric, me, &words, &tree, elapsed),
        Some(file) => run_redirected(hosts, fabric, me, &words, &file, &tree, elapsed),
    }
}

/// `COMMAND > FILE`. bash opens the file first: one the host does not have, a directory or a file
/// the lab does not let be written is bash's error (status 1) and the command does not run. Then
/// the command's standard output is written to the file, which for a sysfs file is the driver's
/// store function: a value it refuses (`Invalid argument`) is the writer's `write error`, status 1.
fn run_redirected(
    hosts: &[LabHost],
    fabric: Option<&Fabric>,
    me: usize,
    words: &[Word],
    file: &Word,
    tree: &Tree,
    elapsed: Duration,
) -> Output {
    let path = match expand(file, tree).as_slice() {
        [one] => one.clone(),
        _ => return Output::fail(1, "", format!("bash: {}: ambiguous redirect\n", file.text())),
    };
    let files = tree.files();
    let node = match files.iter().find(|(p, _)| *p == path) {
        Some((_, node)) if node.writable() => node,
        Some(_) => return Output::fail(1, "", format!("bash: {path}: Permission denied\n")),
        None if is_dir(&path, files) => return Output::fail(1, "", format!("bash: {path}: Is a directory\n")),
        None => return Output::fail(1, "", format!("bash: {path}: No such file or directory\n")),
    };
    let mut out = run_words(hosts, fabric, me, words, tree, elapsed);
    let written = match out.binary.take() {
        Some(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        None => std::mem::take(&mut out.stdout),
    };
    for mark in &mut out.marks {
        mark.stdout = 0;
    }
    if written.is_empty() {
        return out; // Nothing written: no store.
    }
    let before = &hosts[me];
    let mut host = out.changed.take().unwrap_or_else(|| Box::new(before.clone()));
    if sysfs::write(&mut host, node, &written).is_err() {
        // The echo builtin reports as bash does; another program under its own name.
        let writer = match words.first().map(Word::text) {
            Some(echo) if echo == "echo" => "bash: echo".to_string(),
            other => other.unwrap_or_default(),
        };
        let _ = writeln!(out.stderr, "{writer}: write error: Invalid argument");
        out.status = 1;
    }
    out.changed = (*host != *before).then_some(host);
    out
}

/// Runs a simple command's words (no redirection) on `hosts[me]`.
fn run_words(
    hosts: &[LabHost],
    fabric: Option<&Fabric>,
    me: usize,
    words: &[Word],
    tree: &Tree,
    elapsed: Duration,
) -> Output {
    let host = &hosts[me];
    let mut args: Vec<String> = words.iter().flat_map(|w| expand(w, tree)).collect();
    // `VAR=value cmd` sets the command's environment; `sudo [-n] cmd` resets it (env_reset) and
    // the lab runs as root already.
    let mut env = Env::new();
    take_assignments(&mut args, &mut env);
    if args.first().map(String::as_str) == Some("sudo") {
        args.remove(0);
        while args.first().is_some_and(|a| a.starts_with('-')) {
            args.remove(0);
        }
        env.clear();
        take_assignments(&mut args, &mut env);
    }
    // `timeout [-k DURATION] [-s SIGNAL] DURATION COMMAND...`: the lab's commands end by
    // themselves, so the command runs as given; one it cannot start is coreutils' message.
    if args.first().map(String::as_str) == Some("timeout") {
        if host.missing_tools.contains("timeout") {
            return not_found("timeout");
        }
        if host.old_busybox_timeout && args.get(1).is_some_and(|a| a != "-t" && a.starts_with('-')) {
            return Output::fail(1, "", OLD_BUSYBOX_TIMEOUT_USAGE);
        }
        return under_timeout(exec_host(hosts, fabric, me, &timed_command(words), elapsed));
    }
    let Some(first) = args.first().cloned() else {
        return Output::default();
    };
    let name = first.rsplit('/').next().unwrap_or(&first).to_string();
    let rest = &args[1..];
    if host.missing_tools.contains(&name) {
        return not_found(&first);
    }
    if let ("sh", [dash_c, script, ..]) = (name.as_str(), rest)
        && dash_c == "-c"
        && (!first.contains('/') || KNOWN_PATHS.contains(&first.as_str()))
    {
        return run_script(hosts, fabric, me, script, elapsed);
    }
    let launcher = match name.as_str() {
        "mpirun" | "mpiexec" | "orterun" => Some(mpirun::Launcher::Mpirun),
        "srun" => Some(mpirun::Launcher::Srun),
        _ => None,
    };
    if let Some(launcher) = launcher {
        if first.contains('/') && !KNOWN_PATHS.contains(&first.as_str()) {
            return not_found(&first);
        }
        return mpirun::render(launcher, hosts, me, &env, &name, rest, elapsed);
    }
    if nccl_tests::Collective::from_program(&first).is_some() {
        return nccl_tests::render_local(hosts, me, &env, &first, rest, elapsed);
    }
    if name == "tcpdump" {
        return capture::render(hosts, fabric, me, rest);
    }
    if name == "iblinkinfo" && !host.missing_tools.contains(&name) {
        return Output::ok(iblinkinfo::render(hosts));
    }
    if name == "lldpctl" || name == "lldpcli" {
        if first.contains('/') && !KNOWN_PATHS.contains(&first.as_str()) {
            return not_found(&first);
        }
        let words: Vec<&str> = rest.iter().map(String::as_str).collect();
        return match (name.as_str(), words.as_slice()) {
            ("lldpctl", []) | ("lldpcli", ["show", "neighbors"]) => {
                let entries = fabric.map(|f| lldp::host_entries(f, me)).unwrap_or_default();
                Output::ok(lldp::lldpctl(entries.iter().map(|(p, a)| (p.as_str(), a)), elapsed))
            }
            _ => Output::fail(1, "", format!("{name}: unknown command from argument 1: `{}`\n", words.join(" "))),
        };
    }
    let known = run(host, &name, rest, tree, elapsed);
    match known {
        Some(out) if !first.contains('/') || KNOWN_PATHS.contains(&first.as_str()) => out,
        _ => not_found(&first),
    }
}

/// `sh -c SCRIPT` on `hosts[me]`: each command sees what the earlier ones changed (the hosts are
/// copied only when one does), and the script's output carries the host as the last left it.
fn run_script(hosts: &[LabHost], fabric: Option<&Fabric>, me: usize, script: &str, elapsed: Duration) -> Output {
    let mut now: Cow<[LabHost]> = Cow::Borrowed(hosts);
    let mut out = script::run(script, |command, at| {
        let mut out = exec_host(&now, fabric, me, command, elapsed + at);
        if let Some(host) = out.changed.take() {
            now.to_mut()[me] = *host;
        }
        out
    });
    if let Cow::Owned(mut changed) = now
        && changed[me] != hosts[me]
    {
        out.changed = Some(Box::new(changed.swap_remove(me)));
    }
    out
}

/// What BusyBox 1.29's `timeout` prints for an option it lacks (`-k`): the line, its banner and
/// its usage (busybox `coreutils/timeout.c` before 1.30), status 1.
const OLD_BUSYBOX_TIMEOUT_USAGE: &str = "timeout: invalid option -- 'k'\nBusyBox v1.29.3 (2019-01-24 07:45:07 UTC) multi-call binary.\n\nUsage: timeout [-t SECS] [-s SIG] PROG ARGS\n\nRuns PROG. Sends SIG to it if it is not gone in SECS seconds.\nDefaults: SECS: 10, SIG: TERM\n";

/// The command line `timeout [-k D] [-s SIG] DURATION COMMAND...` (or BusyBox's old
/// `timeout -t SECS COMMAND...`) runs: its words after the options and the duration, as they
/// were given (quoted characters quoted again, so a glob still expands and a quoted one does
/// not).
fn timed_command(words: &[Word]) -> String {
    let mut rest = words.iter().skip_while(|w| w.text() != "timeout").skip(1).peekable();
    let mut seconds_given = false;
    while let Some(option) = rest.next_if(|w| w.text().starts_with('-')) {
        if matches!(option.text().as_str(), "-k" | "-s" | "-t") {
            seconds_given |= option.text() == "-t";
            rest.next();
        }
    }
    if !seconds_given {
        rest.next(); // The duration.
    }
    rest.map(Word::source).collect::<Vec<_>>().join(" ")
}

/// coreutils' `timeout` when it cannot start its command: `timeout: failed to run command
/// 'NAME': No such file or directory`, status 127 (in the C locale sshd gives a command).
fn under_timeout(out: Output) -> Output {
    match not_found_name(&out) {
        Some(name) => {
            Output::fail(127, "", format!("timeout: failed to run command '{name}': No such file or directory\n"))
        }
        None => out,
    }
}

/// The command bash could not find, when `out` is its [`not_found`] answer.
pub(crate) fn not_found_name(out: &Output) -> Option<&str> {
    let message = out.stderr.strip_prefix("bash: ").filter(|_| out.status == 127)?;
    message.strip_suffix(": command not found\n").or_else(|| message.strip_suffix(": No such file or directory\n"))
}

/// Moves the leading `NAME=value` words of `args` into `env`.
fn take_assignments(args: &mut Vec<String>, env: &mut Env) {
    while let Some((k, v)) = args.first().filter(|a| is_assignment(a)).and_then(|a| a.split_once('=')) {
        env.insert(k.to_string(), v.to_string());
        args.remove(0);
    }
}

/// Where the lab's tools live, for commands given by path.
const KNOWN_PATHS: &[&str] = &[
    "/bin/sh",
    "/usr/bin/sh",
    "/usr/sbin/ibstat",
    "/usr/sbin/ibdev2netdev",
    "/usr/sbin/show_gids",
    "/usr/sbin/sminfo",
    "/usr/sbin/perfquery",
    "/usr/sbin/lsmod",
    "/usr/sbin/modprobe",
    "/sbin/modprobe",
    "/usr/bin/cat",
    "/bin/cat",
    "/usr/bin/grep",
    "/bin/grep",
    "/usr/sbin/ip",
    "/sbin/ip",
    "/usr/bin/mlnx_qos",
    "/usr/sbin/ethtool",
    "/sbin/ethtool",
    "/usr/bin/nvidia-smi",
    "/usr/bin/echo",
    "/bin/echo",
    "/usr/bin/hostname",
    "/bin/hostname",
    "/usr/bin/mpirun",
    "/usr/local/bin/mpirun",
    "/opt/hpcx/ompi/bin/mpirun",
    "/usr/mpi/gcc/openmpi-4.1.7a1/bin/mpirun",
    "/usr/bin/srun",
    "/usr/local/bin/srun",
    "/usr/sbin/lldpctl",
    "/usr/sbin/lldpcli",
];

fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        None => false,
    }
}

/// What a lab tool answers for an option or operation that would change what the lab does not
/// keep (status 1, nothing changed): saying so beats pretending it worked.
pub(crate) fn not_simulated(tool: &str, what: &str) -> Output {
    Output::fail(1, "", format!("{tool}: {what}: not simulated by the fabcheck lab\n"))
}

/// bash's answer for a command it cannot run.
pub(crate) fn not_found(word: &str) -> Output {
    let message = if word.contains('/') {
        format!("bash: {word}: No such file or directory\n")
    } else {
        format!("bash: {word}: command not found\n")
    };
    Output::fail(127, "", message)
}

/// Runs a known command; `None` when the host has no such command.
fn run(host: &LabHost, name: &str, args: &[String], tree: &Tree, elapsed: Duration) -> Option<Output> {
    Some(match name {
        "ibdev2netdev" => ibdev2netdev::render(host, args),
        "ibstat" => ibstat::render(host, args),
        "show_gids" => show_gids::render(host, args),
        "sminfo" => sminfo::render(host, elapsed),
        "saquery" if args == ["-s"] => sminfo::saquery_sm(host, elapsed),
        "perfquery" => perfquery::render(host, args, elapsed),
        "lsmod" => lsmod::render(host),
        "ip" => ip_link::render(host, args),
        "mlnx_qos" => mlnx_qos::render(host, args),
        "ethtool" => match args {
            [flag, intf] if flag == "-S" || flag == "--statistics" => ethtool_stats::render(host, intf, elapsed),
            [intf] if !intf.starts_with('-') => ethtool::render(host, intf),
            _ => Output::fail(1, "", "ethtool: bad command line argument(s)\nFor more information run ethtool -h\n"),
        },
        "nvidia-smi" => match args {
            [topo, m] if topo == "topo" && m == "-m" => nvidia_smi_topo::render(host),
            _ => Output::fail(2, "", "Invalid combination of input arguments. Please run 'nvidia-smi -h' for help.\n"),
        },
        "modprobe" => lsmod::modprobe(host, args),
        "cat" => cat(host, args, tree.files(), elapsed),
        "grep" => grep(host, args, tree.files(), elapsed),
        "echo" => Output::ok(format!("{}\n", args.join(" "))),
        "hostname" => Output::ok(format!("{}\n", host.name)),
        "true" => Output::ok(""),
        "false" => Output::fail(1, "", ""),
        _ => return None,
    })
}

/// Whether `path` is a directory of the host's file tree.
fn is_dir(path: &str, files: &[(String, sysfs::Node)]) -> bool {
    let prefix = format!("{}/", path.trim_end_matches('/'));
    path == "/" || files.iter().any(|(p, _)| p.starts_with(&prefix))
}

/// Reads a file for `cat`/`grep`: its text, or the error that tool prints.
fn read(
    host: &LabHost,
    tool: &str,
    path: &str,
    files: &[(String, sysfs::Node)],
    elapsed: Duration,
) -> Result<String, String> {
    match files.iter().find(|(p, _)| p == path) {
        Some((_, node)) => Ok(sysfs::read(host, node, elapsed)),
        None if is_dir(path, files) => Err(format!("{tool}: {path}: Is a directory\n")),
        None => Err(format!("{tool}: {path}: No such file or directory\n")),
    }
}

fn cat(host: &LabHost, args: &[String], files: &[(String, sysfs::Node)], elapsed: Duration) -> Output {
    let mut out = Output::default();
    for path in args.iter().filter(|a| !a.starts_with('-') || a.as_str() == "-") {
        match read(host, "cat", path, files, elapsed) {
            Ok(text) => out.stdout.push_str(&text),
            Err(e) => {
                out.stderr.push_str(&e);
                out.status = 1;
            }
        }
    }
    out
}

/// `grep [-H] [-h] [-d skip] PATTERN FILE...` with a fixed-string pattern (`''` matches every line).
fn grep(host: &LabHost, args: &[String], files: &[(String, sysfs::Node)], elapsed: Duration) -> Output {
    let mut with_name: Option<bool> = None;
    let mut skip_dirs = false;
    let mut operands: Vec<&String> = Vec::new();
    let mut args = args.iter();
    while let Some(a) = args.next() {
        match a.as_str() {
            "-H" => with_name = Some(true),
            "-h" => with_name = Some(false),
            "-s" | "-F" | "-e" => {}
            "--directories=skip" => skip_dirs = true,
            "-d" => skip_dirs = args.next().is_some_and(|action| action == "skip"),
            _ => operands.push(a),
        }
    }
    let Some((pattern, paths)) = operands.split_first() else {
        return Output::fail(
            2,
            "",
            "Usage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.\n",
        );
    };
    let name_lines = with_name.unwrap_or(paths.len() > 1);
    let mut out = Output { status: 1, ..Output::default() };
    let mut error = false;
    for path in paths.iter().filter(|p| !(skip_dirs && is_dir(p, files))) {
        match read(host, "grep", path, files, elapsed) {
            Ok(text) => {
                for line in text.lines().filter(|l| l.contains(pattern.as_str())) {
                    if name_lines {
                        let _ = write!(out.stdout, "{path}:");
                    }
                    let _ = writeln!(out.stdout, "{line}");
                    out.status = 0;
                }
            }
            Err(e) => {
                out.stderr.push_str(&e);
                error = true;
            }
        }
    }
    if error {
        out.status = 2;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::healthy_host;
    use crate::faults::{Fault, apply};

    fn run(host: &LabHost, command: &str) -> Output {
        exec(std::slice::from_ref(host), 0, command, Duration::from_secs(5))
    }

    #[test]
    fn splits_like_bash() {
        let texts = |c: &str| match split(c) {
            Parsed::Words(w, None) => w.iter().map(Word::text).collect::<Vec<_>>(),
            other => panic!("{other:?}"),
        };
        assert_eq!(texts("grep -H '' /a/*/b"), ["grep", "-H", "", "/a/*/b"]);
        assert_eq!(texts(r#"echo "a b" c\ d 'e"f' # comment"#), ["echo", "a b", "c d", "e\"f"]);
        assert_eq!(texts("  "), Vec::<String>::new());
        assert_eq!(split("echo 'x"), Parsed::Unterminated('\''));
        assert!(matches!(split("ibstat | head"), Parsed::Unsupported(_)));
        assert!(matches!(split("echo $(id)"), Parsed::Unsupported(_)));
        assert!(!Word(vec![('*', true)]).globs());
        // One `> FILE`, wherever it is; any other redirection is not run.
        let redirected = |c: &str| match split(c) {
            Parsed::Words(w, Some(file)) => (w.iter().map(Word::text).collect::<Vec<_>>(), file.text()),
            other => panic!("{c}: {other:?}"),
        };
        assert_eq!(redirected("echo 1 > /a/b"), (vec!["echo".to_string(), "1".into()], "/a/b".to_string()));
        assert_eq!(redirected("echo a>'/a b'"), (vec!["echo".to_string(), "a".into()], "/a b".to_string()));
        assert_eq!(redirected("> /a echo 1"), (vec!["echo".to_string(), "1".into()], "/a".to_string()));
        for c in ["echo 1 >> /a", "echo 1 2>/a", "echo 1 > /a > /b", "echo 1 >", "echo 1 >&2", "echo 1 > /a | cat"] {
            assert!(matches!(split(c), Parsed::Unsupported(_)), "{c}");
        }
    }

    #[test]
    fn a_script_sees_its_own_changes_and_carries_them_out() {
        let host = healthy_host(0);
        let out = run(&host, "sh -c 'mlnx_qos -i ens1np0 --pfc=0,0,0,0,0,0,0,0 >&2; mlnx_qos -i ens1np0'");
        assert_eq!(out.status, 0);
        assert!(out.stdout.contains("\tenabled     0   0   0   0   0   0   0   0   \n"), "{}", out.stdout);
        let changed = out.changed.expect("the change");
        assert_eq!((changed.nics[0].pfc, changed.nics[1].pfc), ([false; 8], host.nics[1].pfc));
        // A write whose command prints nothing writes nothing.
        assert_eq!(run(&host, "true > /sys/class/net/ens1np0/ecn/roce_np/enable/3").changed, None);
    }

    #[test]
    fn unknown_and_missing_commands() {
        let mut host = healthy_host(0);
        let out = run(&host, "frobnicate --all");
        assert_eq!(
            (out.status, out.stderr.as_str(), out.stdout.as_str()),
            (127, "bash: frobnicate: command not found\n", "")
        );
        assert_eq!(run(&host, "/opt/x/bin/tool").stderr, "bash: /opt/x/bin/tool: No such file or directory\n");
        assert_eq!(run(&host, "echo 'x").status, 2);
        assert_eq!(run(&host, "ibstat | head -3").stderr, "bash: ibstat: command not found\n");
        assert_eq!(run(&host, "").status, 0);
        apply(&mut host, &"gpu001=tool-missing".parse::<Fault>().unwrap()).unwrap();
        let out = run(&host, "mlnx_qos -i ens1np0");
        assert_eq!((out.status, out.stderr.as_str()), (127, "bash: mlnx_qos: command not found\n"));
        assert_eq!(run(&host, "sudo -n ibstat").status, 0);
        assert_eq!(run(&host, "LC_ALL=C /usr/sbin/ibstat").status, 0);
        assert_eq!(run(&host, "hostname").stdout, "gpu001\n");
    }

    #[test]
    fn globs_sort_bytewise_and_grep_prints_paths() {
        let host = healthy_host(0);
        let out = run(&host, "grep -H '' /proc/irq/*/smp_affinity_list");
        assert_eq!(out.status, 0);
        let irqs: Vec<&str> = out.stdout.lines().map(|l| l.split('/').nth(3).unwrap()).collect();
        let mut sorted = irqs.clone();
        sorted.sort();
        assert_eq!(irqs, sorted);
        assert_eq!(irqs[..3], ["0", "120", "139"]);
        assert!(out.stdout.contains("/proc/irq/140/smp_affinity_list:0\n/proc/irq/141/smp_affinity_list:1\n"));
        assert!(out.stdout.contains("/proc/irq/9/smp_affinity_list:0-31\n"));
        let rate = run(&host, "grep -H '' /sys/class/infiniband/*/ports/*/rate");
        assert_eq!(
            rate.stdout,
            "/sys/class/infiniband/mlx5_0/ports/1/rate:400 Gb/sec (4X NDR)\n/sys/class/infiniband/mlx5_1/ports/1/rate:400 Gb/sec (4X NDR)\n/sys/class/infiniband/mlx5_2/ports/1/rate:400 Gb/sec (4X NDR)\n"
        );
        let none = run(&host, "grep -H '' /sys/class/infiniband/*/ports/*/nosuch");
        assert_eq!(
            (none.status, none.stderr.as_str()),
            (2, "grep: /sys/class/infiniband/*/ports/*/nosuch: No such file or directory\n")
        );
        assert_eq!(run(&host, "cat /proc").stderr, "cat: /proc: Is a directory\n");
        assert!(run(&host, "cat /proc/interrupts").stdout.starts_with("            CPU0 "));
    }

    #[test]
    fn hw_counters_glob_round_trip() {
        let mut host = healthy_host(0);
        apply(&mut host, &"gpu001=out-of-buffer@mlx5_1".parse::<Fault>().unwrap()).unwrap();
        let seq_err = "gpu001=seq-err@mlx5_0".parse::<Fault>().unwrap();
        apply(&mut host, &seq_err).unwrap();
        let t = Duration::from_secs(5);
        let out = exec(std::slice::from_ref(&host), 0, "grep -H '' /sys/class/infiniband/*/ports/*/hw_counters/*", t);
        let sample = include_str!(
            "../../parse/tests/fixtures/hw_counters/mlx5_0-hw_counters-grep-format-local_ack_timeout-np_cnp_sent-byteps-179-PARTIAL.txt"
        );
        assert!(out.stdout.starts_with(&sample.lines().take(3).map(|l| format!("{l}\n")).collect::<String>()));
        let p = fabcheck_parse::linux::hw_counters::parse(&out.stdout).expect("parses");
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(p.value.ports.len(), 3);
        for (port, nic) in p.value.ports.iter().zip(&host.nics) {
            assert_eq!(port.hca, nic.ibdev);
            assert_eq!(port.counters, crate::state::counter_values(&nic.hw_counters, t));
        }
        assert_eq!(p.value.ports[1].counters["out_of_buffer"], 17 + 25_000 * 5);
        assert_eq!(p.value.ports[0].counters["packet_seq_err"], 3 + 800 * 5);
        assert_eq!(p.value.ports[0].counters["out_of_sequence"], 5 + 800 * 5);
    }

    #[test]
    fn port_rate_and_irq_affinity_round_trip() {
        let mut host = healthy_host(0);
        for f in ["gpu001=link-degraded@mlx5_1", "gpu001=link-down@mlx5_0", "gpu001=irq-overlap"] {
            apply(&mut host, &f.parse::<Fault>().unwrap()).unwrap();
        }
        let p = fabcheck_parse::linux::port_rate::parse(
            &run(&host, "grep -H '' /sys/class/infiniband/*/ports/*/rate").stdout,
        )
        .expect("parses");
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        let rates: Vec<(String, f64)> = p.value.ports.iter().map(|r| (r.hca.clone(), r.rate_gbps)).collect();
        assert_eq!(rates, [("mlx5_0".to_string(), 40.0), ("mlx5_1".into(), 200.0), ("mlx5_2".into(), 400.0)]);
        let p =
            fabcheck_parse::linux::irq_affinity::parse(&run(&host, "grep -H '' /proc/irq/*/smp_affinity_list").stdout)
                .expect("parses");
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        for (irq, cpus) in &host.irq_affinity {
            assert_eq!(p.value.irqs.get(irq), Some(cpus), "irq {irq}");
        }
        assert_eq!(p.value.irqs[&149], p.value.irqs[&140], "second NIC on the first NIC's cores");
        assert_eq!(p.value.irqs[&0], (0..32).collect::<Vec<u32>>());
    }

    #[test]
    fn the_dcqcn_tree_reads_back_whole_and_directories_are_skipped_only_when_asked() {
        let host = healthy_host(0);
        let ecn = "/sys/class/net/ens1np0/ecn";
        let command =
            format!("grep -H -d skip '' {ecn}/roce_rp/enable/* {ecn}/roce_np/enable/* {ecn}/roce_rp/* {ecn}/roce_np/*");
        let out = run(&host, &command);
        assert_eq!((out.status, out.stderr.as_str()), (0, ""));
        let parsed = fabcheck_parse::linux::roce_ecn::parse(&out.stdout).expect("parses");
        assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
        let e = parsed.value;
        assert_eq!((e.rp_enabled.len(), e.np_enabled.len(), e.rp.len(), e.np.len()), (8, 8, 16, 3));
        assert_eq!((e.cnp_dscp(), e.cnp_802p_prio()), (Some(48), Some(6)));
        // Without -d skip, grep reads the `enable` directories the last globs match, as GNU grep does.
        let plain = run(&host, &command.replace("-d skip ", ""));
        assert_eq!(plain.status, 2);
        assert!(plain.stderr.contains(&format!("grep: {ecn}/roce_rp/enable: Is a directory")), "{}", plain.stderr);
        // An IPoIB port has no tree: each pattern is left as it is and not found.
        let ib = run(&host, "grep -H -d skip '' /sys/class/net/ib0/ecn/roce_rp/enable/*");
        assert_eq!(ib.status, 2);
        assert!(ib.stdout.is_empty() && ib.stderr.contains("No such file or directory"), "{}", ib.stderr);
    }

    #[test]
    fn every_auditor_command_answers() {
        let host = healthy_host(0);
        for c in [
            "ibdev2netdev -v",
            "ibdev2netdev",
            "ibstat",
            "show_gids",
            "sminfo",
            "saquery -s",
            "lsmod",
            "cat /proc/interrupts",
            "grep -H '' /proc/irq/*/smp_affinity_list",
            "ip -j link show",
            "grep -H '' /sys/class/infiniband/*/ports/*/rate",
            "grep -H '' /sys/class/infiniband/*/ports/*/hw_counters/*",
            "perfquery -x -C mlx5_2 -P 1",
            "mlnx_qos -i ens1np0",
            "ethtool ens1np0",
            "ethtool -S ens1np0",
            "nvidia-smi topo -m",
        ] {
            let out = run(&host, c);
            assert_eq!((out.status, out.stderr.as_str()), (0, ""), "{c}");
            assert!(out.stdout.ends_with('\n'), "{c}");
            assert_eq!(out.changed, None, "{c} only reads");
        }
    }
}
