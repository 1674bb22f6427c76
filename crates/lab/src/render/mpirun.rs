//! `mpirun` (Open MPI 4.1 `orterun`, as HPC-X and MLNX_OFED ship it) and `srun` (Slurm 23.11):
//! they place nccl-tests ranks on lab hosts and give each its environment; `nccl_tests.rs` runs
//! the job. Several jobs may run at once (pairs side by side): each is computed from the lab's
//! state alone, so they are independent.
//!
//! # mpirun
//! `mpirun [opts] PROGRAM [args]` with `-np/-n/--np/-c N`, `-H/--host/-host h1[:slots],...`
//! (a host without `:N` has one slot; repeating a host adds slots), `-N/-npernode/--npernode K`
//! and `--map-by ppr:K:node`, `-x NAME=VALUE` or `-x NAME` (from mpirun's own environment),
//! `--mca/-mca/--gmca K V`, and the usual flags (`--allow-run-as-root`, `--bind-to`,
//! `--oversubscribe`, `--tag-output`, `--report-bindings`, ...), `--opt=value` accepted. Ranks fill
//! each host's slots in order (`--map-by slot`). Ranks on the host mpirun runs on inherit its whole
//! environment; ranks elsewhere get only the `-x` variables, as with the real rsh launcher. Without
//! `-H`, everything runs on the local host, whose slots are its cores.
//!
//! Errors, in Open MPI 4.1's words (stderr): an unknown option (`mpirun: Error: unknown option
//! "--x"`, status 1); no program; more ranks than slots (the "not enough slots" message, 1); a
//! hostfile (the lab has none to read, 1); a host that does not resolve or whose sshd refuses,
//! denies the key or changed keys (ssh's line and "ORTE was unable to reliably start one or more
//! daemons", 255), or hangs (mpirun never returns); a program that is not installed ("mpirun was
//! unable to find the specified executable file" by name, "unable to launch the specified
//! application as it could not access or execute an executable" by path, 134); a rank exiting
//! non-zero ("Primary job  terminated normally, but 1 process returned a non-zero exit code" and
//! "mpirun detected that one or more processes exited with non-zero status", with its status).
//!
//! # srun
//! `srun [opts] PROGRAM [args]` with `-N/--nodes`, `-n/--ntasks`, `-w/--nodelist` (`gpu[001-004]`
//! ranges too), `--ntasks-per-node`, `--export=ALL|NONE|NAME[=VALUE],...` (a value may contain
//! commas: a lowercase item after `NAME=` continues its value, so `NCCL_IB_HCA=mlx5_0,mlx5_1`
//! stays whole), and the flags and options a GPU job uses (`--gpus-per-node`, `--mpi`, `-p`,
//! `--exclusive`, ...). Without `-w` the first `-N` hosts of the lab are allocated. Errors:
//! `srun: unrecognized option`, `Invalid node name specified`, `Requested node configuration is
//! not available`, `slurmstepd: error: execve(): PROGRAM: No such file or directory`, and
//! `srun: error: gpu002: tasks 8-15: Exited with exit code 3` when a task fails.
//!
//! Besides nccl-tests, both run `hostname` (one line per rank), the usual first check.

use super::nccl::Env;
use super::nccl_tests::{self, Failure, Job, Node};
use crate::shell::Output;
use crate::state::LabHost;
use std::fmt::Write as _;
use std::time::Duration;

/// Which launcher.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Launcher {
    /// Open MPI's `mpirun`.
    Mpirun,
    /// Slurm's `srun`.
    Srun,
}

const DASHES: &str = "--------------------------------------------------------------------------";

/// Runs `mpirun`/`srun` (`name` as typed) with `args` from `hosts[me]`, whose environment is `env`.
pub(crate) fn render(
    launcher: Launcher,
    hosts: &[LabHost],
    me: usize,
    env: &Env,
    name: &str,
    args: &[String],
    elapsed: Duration,
) -> Output {
    let plan = match launcher {
        Launcher::Mpirun => mpirun_plan(hosts, me, env, name, args),
        Launcher::Srun => srun_plan(hosts, env, args),
    };
    let plan = match plan {
        Ok(p) => p,
        Err(out) => return out,
    };
    let Some(program) = plan.program.as_deref() else {
        return Output::fail(
            1,
            "",
            format!("{DASHES}\nNo executable was specified on the {name} command line.\n\nAborting.\n{DASHES}\n"),
        );
    };
    if launcher == Launcher::Mpirun
        && let Some(out) = unreachable_host(hosts, &plan)
    {
        return out;
    }
    let total: u32 = plan.nodes.iter().map(|n| n.procs).sum();
    if matches!(program, "hostname" | "/bin/hostname" | "/usr/bin/hostname") {
        // The usual first check of a launcher: each rank prints its host.
        let mut out = String::new();
        for n in &plan.nodes {
            for _ in 0..n.procs {
                let _ = writeln!(out, "{}", hosts[n.host].name);
            }
        }
        return Output::ok(out);
    }
    if !nccl_tests::installed(program) {
        return not_installed(launcher, hosts, &plan, program, total, name);
    }
    let job = Job { hosts, nodes: plan.nodes.clone(), program, args: &plan.args, elapsed };
    let run = nccl_tests::run(&job);
    let mut out = run.out;
    if let Some(f) = run.failure {
        let text = match launcher {
            Launcher::Mpirun => mpirun_failure(&f, elapsed),
            Launcher::Srun => srun_failure(hosts, &plan, &f),
        };
        out.stderr.push_str(&text);
        out.status = f.code;
        if let Some(last) = out.marks.last_mut() {
            last.stderr = out.stderr.len();
        }
    }
    out
}

/// Where the ranks go and what they run.
#[derive(Debug, Clone, PartialEq)]
struct Plan {
    nodes: Vec<Node>,
    program: Option<String>,
    args: Vec<String>,
}

fn host_index(hosts: &[LabHost], me: usize, name: &str) -> Option<usize> {
    if name == "localhost" || name == "127.0.0.1" {
        return Some(me);
    }
    hosts.iter().position(|h| h.name == name || h.mgmt_ipv4.to_string() == name)
}

/// mpirun options that take no value.
const MPIRUN_FLAGS: &[&str] = &[
    "allow-run-as-root",
    "oversubscribe",
    "nooversubscribe",
    "tag-output",
    "timestamp-output",
    "report-bindings",
    "display-map",
    "display-devel-map",
    "display-allocation",
    "q",
    "quiet",
    "v",
    "verbose",
    "merge-stderr-to-stdout",
    "noprefix",
    "use-hwthread-cpus",
    "show-progress",
    "leave-session-attached",
    "bind-to-core",
    "bind-to-socket",
    "bynode",
    "byslot",
];

/// mpirun options that take one value (`-np` is also accepted as `--np`).
const MPIRUN_VALUES: &[&str] = &[
    "np",
    "n",
    "c",
    "H",
    "host",
    "x",
    "bind-to",
    "map-by",
    "rank-by",
    "N",
    "npernode",
    "npersocket",
    "hostfile",
    "machinefile",
    "default-hostfile",
    "prefix",
    "wdir",
    "wd",
    "path",
    "output-filename",
    "preload-files",
    "am",
    "tune",
    "report-uri",
    "cpus-per-proc",
    "cpus-per-rank",
];

fn mpirun_plan(hosts: &[LabHost], me: usize, env: &Env, name: &str, args: &[String]) -> Result<Plan, Output> {
    let mut np: Option<u32> = None;
    let mut per_node: Option<u32> = None;
    let mut oversubscribe = false;
    let mut host_list: Vec<(String, u32)> = Vec::new();
    let mut exports: Vec<(String, Option<String>)> = Vec::new();
    let mut i = 0;
    let usage = |opt: &str| {
        Output::fail(1, "", format!("{name}: Error: unknown option \"{opt}\"\nType '{name} --help' for usage.\n"))
    };
    let mut program = None;
    while i < args.len() {
        let arg = &args[i];
        if arg == "--" {
            i += 1;
            program = args.get(i).cloned();
            break;
        }
        let Some(opt) = arg.strip_prefix("--").or_else(|| arg.strip_prefix('-')) else {
            program = Some(arg.clone());
            break;
        };
        let (opt, attached) = match opt.split_once('=') {
            Some((o, v)) if arg.starts_with("--") => (o, Some(v.to_string())),
            _ => (opt, None),
        };
        if matches!(opt, "V" | "version") {
            return Err(Output::ok(format!(
                "{name} (Open MPI) 4.1.7a1\n\nReport bugs to http://www.open-mpi.org/community/help/\n"
            )));
        }
        if MPIRUN_FLAGS.contains(&opt) {
            if opt == "oversubscribe" {
                oversubscribe = true;
            }
            i += 1;
            continue;
        }
        if matches!(opt, "mca" | "gmca") {
            i += 3;
            continue;
        }
        if !MPIRUN_VALUES.contains(&opt) {
            return Err(usage(arg));
        }
        let value = match attached {
            Some(v) => v,
            None => {
                i += 1;
                match args.get(i) {
                    Some(v) => v.clone(),
                    None => return Err(usage(arg)),
                }
            }
        };
        match opt {
            "np" | "n" | "c" => np = value.parse().ok(),
            "N" | "npernode" => per_node = value.parse().ok(),
            "map-by" => {
                if let Some(k) = value.strip_prefix("ppr:").and_then(|r| r.strip_suffix(":node")) {
                    per_node = k.parse().ok();
                }
            }
            "H" | "host" => {
                for h in value.split(',').filter(|h| !h.is_empty()) {
                    let (h, slots) = match h.rsplit_once(':') {
                        Some((h, n)) => (h, n.parse().unwrap_or(1)),
                        None => (h, 1),
                    };
                    match host_list.iter_mut().find(|(n, _)| n == h) {
                        Some(entry) => entry.1 += slots,
                        None => host_list.push((h.to_string(), slots)),
                    }
                }
            }
            "x" => match value.split_once('=') {
                Some((k, v)) => exports.push((k.to_string(), Some(v.to_string()))),
                None => exports.push((value.clone(), None)),
            },
            "hostfile" | "machinefile" | "default-hostfile" => {
                return Err(Output::fail(
                    1,
                    "",
                    format!(
                        "{DASHES}\nOpen RTE was unable to open the hostfile:\n    {value}\nCheck to make sure the path and filename are correct.\n{DASHES}\n"
                    ),
                ));
            }
            _ => {}
        }
        i += 1;
    }
    let rest = if program.is_some() { args[i + 1..].to_vec() } else { Vec::new() };
    if host_list.is_empty() {
        host_list.push((hosts[me].name.clone(), hosts[me].cpus));
    }
    // Resolve names first: ssh fails before any slot is counted.
    let mut resolved = Vec::new();
    for (h, slots) in &host_list {
        match host_index(hosts, me, h) {
            Some(idx) => resolved.push((idx, *slots)),
            None => {
                return Err(daemon_failure(&format!(
                    "ssh: Could not resolve hostname {h}: Name or service not known\n"
                )));
            }
        }
    }
    if let Some(k) = per_node {
        for r in &mut resolved {
            r.1 = k;
        }
    }
    let slots: u32 = resolved.iter().map(|r| r.1).sum();
    let np = np.unwrap_or(slots);
    if np > slots && !oversubscribe {
        let app = program.clone().unwrap_or_default();
        return Err(Output::fail(1, "", not_enough_slots(np, &app)));
    }
    // Fill slots in order; with --oversubscribe, wrap around.
    let mut counts = vec![0u32; resolved.len()];
    let mut left = np;
    for (c, r) in counts.iter_mut().zip(&resolved) {
        let take = left.min(r.1);
        *c = take;
        left -= take;
    }
    let mut k = 0;
    while left > 0 && !counts.is_empty() {
        counts[k % resolved.len()] += 1;
        left -= 1;
        k += 1;
    }
    let nodes = resolved
        .iter()
        .zip(counts)
        .filter(|(_, c)| *c > 0)
        .map(|(&(host, _), procs)| {
            let mut e = if host == me { env.clone() } else { Env::new() };
            for (k, v) in &exports {
                match v {
                    Some(v) => {
                        e.insert(k.clone(), v.clone());
                    }
                    None => {
                        if let Some(v) = env.get(k) {
                            e.insert(k.clone(), v.clone());
                        }
                    }
                }
            }
            Node { host, procs, env: e }
        })
        .collect();
    Ok(Plan { nodes, program, args: rest })
}

fn not_enough_slots(np: u32, app: &str) -> String {
    format!(
        "{DASHES}
There are not enough slots available in the system to satisfy the {np}
slots that were requested by the application:

  {app}

Either request fewer slots for your application, or make more slots
available for use.

A \"slot\" is the Open MPI term for an allocatable unit where we can
launch a process.  The number of slots available are defined by the
environment in which Open MPI processes are run:

  1. Hostfile, via \"slots=N\" clauses (N defaults to number of
     processor cores if not provided)
  2. The --host command line parameter, via a \":N\" suffix on the
     hostname (N defaults to 1 if not provided)
  3. Resource manager (e.g., SLURM, PBS/Torque, LSF, etc.)
  4. If none of a hostfile, the --host command line parameter, or an
     RM is present, Open MPI defaults to the number of processor cores

In all the above cases, if you want Open MPI to default to the number
of hardware threads instead of the number of processor cores, use the
--use-hwthread-cpus option.

Alternatively, you can use the --oversubscribe option to ignore the
number of available slots when deciding the number of processes to
launch.
{DASHES}
"
    )
}

/// ssh's complaint, then ORTE's `failed-daemon-launch` help (help-errmgr-base.txt); mpirun exits
/// with ssh's status.
fn daemon_failure(ssh_line: &str) -> Output {
    Output::fail(
        255,
        "",
        format!(
            "{ssh_line}{DASHES}
ORTE was unable to reliably start one or more daemons.
This usually is caused by:

* not finding the required libraries and/or binaries on
  one or more nodes. Please check your PATH and LD_LIBRARY_PATH
  settings, or configure OMPI with --enable-orterun-prefix-by-default

* lack of authority to execute on one or more specified nodes.
  Please verify your allocation and authorities.

* the inability to write startup files into /tmp (--tmpdir/orte_tmpdir_base).
  Please check with your sys admin to determine the correct location to use.

*  compilation of the orted with dynamic libraries when static are required
  (e.g., on Cray). Please check your configure cmd line and consider using
  one of the contrib/platform definitions for your system type.

* an inability to create a connection back to mpirun due to a
  lack of common network interfaces and/or no route found between
  them. Please check network connectivity (including firewalls
  and network routing requirements).
{DASHES}
"
        ),
    )
}

/// mpirun starts its daemons over ssh: a host whose sshd misbehaves stops the job there.
fn unreachable_host(hosts: &[LabHost], plan: &Plan) -> Option<Output> {
    for node in &plan.nodes {
        let h = &hosts[node.host];
        let line = if h.ssh.refuse {
            format!("ssh: connect to host {} port 22: Connection refused\n", h.name)
        } else if h.ssh.deny_auth {
            format!("root@{}: Permission denied (publickey).\n", h.name)
        } else if h.ssh.change_host_key {
            "Host key verification failed.\n".to_string()
        } else if h.ssh.hang_banner || h.ssh.hang_commands {
            // ssh (or orted) never comes back: neither does mpirun.
            return Some(Output {
                hangs: true,
                marks: vec![crate::shell::Mark { at: Duration::ZERO, stdout: 0, stderr: 0 }],
                ..Output::default()
            });
        } else {
            continue;
        };
        return Some(daemon_failure(&line));
    }
    None
}

fn not_installed(launcher: Launcher, hosts: &[LabHost], plan: &Plan, program: &str, total: u32, name: &str) -> Output {
    let node = &hosts[plan.nodes.first().map_or(0, |n| n.host)].name;
    match launcher {
        Launcher::Mpirun => {
            let body = if program.contains('/') {
                format!(
                    "{name} was unable to launch the specified application as it could not access\nor execute an executable:\n\nExecutable: {program}\nNode: {node}\n\nwhile attempting to start process rank 0.\n"
                )
            } else {
                format!(
                    "{name} was unable to find the specified executable file, and therefore\ndid not launch the job.  This error was first reported for process\nrank 0; it may have occurred for other processes as well.\n\nNOTE: A common cause for this error is misspelling a {name} command\n      line parameter option (remember that {name} interprets the first\n      unrecognized command line token as the executable).\n\nNode:       {node}\nExecutable: {program}\n"
                )
            };
            Output::fail(134, "", format!("{DASHES}\n{body}{DASHES}\n{total} total processes failed to start\n"))
        }
        Launcher::Srun => {
            let mut err = String::new();
            for n in &plan.nodes {
                for _ in 0..n.procs {
                    let _ = writeln!(err, "slurmstepd: error: execve(): {program}: No such file or directory");
                }
            }
            err.push_str(&task_lines(hosts, plan, 0, plan.nodes.len(), "Exited with exit code 2"));
            Output::fail(2, "", err)
        }
    }
}

/// Open MPI's report of the first rank that exited non-zero.
fn mpirun_failure(f: &Failure, elapsed: Duration) -> String {
    let jobid = 10_000 + (elapsed.as_millis() % 50_000) as u32;
    format!(
        "-------------------------------------------------------
Primary job  terminated normally, but 1 process returned
a non-zero exit code. Per user-direction, the job has been aborted.
-------------------------------------------------------
{DASHES}
mpirun detected that one or more processes exited with non-zero status, thus causing
the job to be terminated. The first process to do so was:

  Process name: [[{jobid},1],{}]
  Exit code:    {}
{DASHES}
",
        f.proc, f.code
    )
}

/// `srun: error: gpu002: tasks 8-15: Exited with exit code 3` for nodes `from..to`.
fn task_lines(hosts: &[LabHost], plan: &Plan, from: usize, to: usize, what: &str) -> String {
    let mut out = String::new();
    let mut first = 0;
    for (k, n) in plan.nodes.iter().enumerate() {
        if (from..to).contains(&k) {
            let tasks =
                if n.procs == 1 { format!("task {first}") } else { format!("tasks {first}-{}", first + n.procs - 1) };
            let _ = writeln!(out, "srun: error: {}: {tasks}: {what}", hosts[n.host].name);
        }
        first += n.procs;
    }
    out
}

fn srun_failure(hosts: &[LabHost], plan: &Plan, f: &Failure) -> String {
    task_lines(hosts, plan, f.node, f.node + 1, &format!("Exited with exit code {}", f.code))
}

/// srun options that take a value (long names; short ones are mapped to these).
const SRUN_VALUES: &[&str] = &[
    "nodes",
    "ntasks",
    "nodelist",
    "ntasks-per-node",
    "gpus-per-node",
    "gpus-per-task",
    "gpus",
    "gres",
    "export",
    "mpi",
    "partition",
    "account",
    "time",
    "cpus-per-task",
    "cpu-bind",
    "mem",
    "job-name",
    "reservation",
    "qos",
    "distribution",
    "container-image",
    "container-mounts",
    "container-workdir",
    "chdir",
    "constraint",
];

const SRUN_FLAGS: &[&str] = &[
    "exclusive",
    "label",
    "unbuffered",
    "kill-on-bad-exit",
    "quiet",
    "verbose",
    "overlap",
    "no-kill",
    "container-remap-root",
];

fn srun_short(c: char) -> Option<&'static str> {
    Some(match c {
        'N' => "nodes",
        'n' => "ntasks",
        'w' => "nodelist",
        'p' => "partition",
        'A' => "account",
        't' => "time",
        'c' => "cpus-per-task",
        'J' => "job-name",
        'm' => "distribution",
        'C' => "constraint",
        'D' => "chdir",
        'l' => "label",
        'u' => "unbuffered",
        'K' => "kill-on-bad-exit",
        'Q' => "quiet",
        'v' => "verbose",
        _ => return None,
    })
}

/// `gpu[001-003,007],gpu010` → the host names.
fn expand_nodelist(list: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut cur = String::new();
    let mut items = Vec::new();
    for c in list.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' if depth == 0 => {
                items.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    items.push(cur);
    for item in items.into_iter().filter(|i| !i.is_empty()) {
        let Some((prefix, rest)) = item.split_once('[') else {
            out.push(item);
            continue;
        };
        let (ranges, suffix) = rest.split_once(']').unwrap_or((rest, ""));
        for r in ranges.split(',') {
            let (a, b) = r.split_once('-').unwrap_or((r, r));
            let width = a.len();
            if let (Ok(lo), Ok(hi)) = (a.parse::<u32>(), b.parse::<u32>()) {
                for n in lo..=hi {
                    out.push(format!("{prefix}{n:0width$}{suffix}"));
                }
            }
        }
    }
    out
}

/// `--export=ALL,NCCL_IB_HCA=mlx5_0,mlx5_1,NCCL_DEBUG=INFO`.
fn export_env(spec: &str, caller: &Env) -> Env {
    let mut env = Env::new();
    let mut last: Option<String> = None;
    for item in spec.split(',') {
        match item {
            "ALL" => env.extend(caller.iter().map(|(k, v)| (k.clone(), v.clone()))),
            "NONE" | "NIL" | "" => {}
            _ => match item.split_once('=') {
                Some((k, v)) => {
                    env.insert(k.to_string(), v.to_string());
                    last = Some(k.to_string());
                }
                None => {
                    let looks_like_name =
                        item.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
                    match (&last, looks_like_name) {
                        (Some(k), false) => {
                            if let Some(v) = env.get_mut(k) {
                                v.push(',');
                                v.push_str(item);
                            }
                        }
                        _ => {
                            if let Some(v) = caller.get(item) {
                                env.insert(item.to_string(), v.clone());
                            }
                            last = None;
                        }
                    }
                }
            },
        }
    }
    env
}

fn srun_plan(hosts: &[LabHost], env: &Env, args: &[String]) -> Result<Plan, Output> {
    let unrecognized = |arg: &str| {
        let shown = match arg.strip_prefix("--") {
            Some(long) => format!("unrecognized option '--{long}'"),
            None => format!("invalid option -- '{}'", arg.trim_start_matches('-')),
        };
        Output::fail(1, "", format!("srun: {shown}\nTry \"srun --help\" for more information\n"))
    };
    let mut opts: Vec<(&'static str, String)> = Vec::new();
    let mut i = 0;
    let mut program = None;
    while i < args.len() {
        let arg = &args[i];
        if arg == "--version" || arg == "-V" {
            return Err(Output::ok("slurm 23.11.10\n"));
        }
        let (opt, attached): (&'static str, Option<String>) = if let Some(long) = arg.strip_prefix("--") {
            let (o, v) = match long.split_once('=') {
                Some((o, v)) => (o, Some(v.to_string())),
                None => (long, None),
            };
            match SRUN_VALUES.iter().chain(SRUN_FLAGS).find(|known| **known == o) {
                Some(known) => (known, v),
                None => return Err(unrecognized(arg)),
            }
        } else if let Some(short) = arg.strip_prefix('-') {
            let mut chars = short.chars();
            let Some(opt) = chars.next().and_then(srun_short) else {
                return Err(unrecognized(arg));
            };
            let rest: String = chars.collect();
            (opt, (!rest.is_empty()).then_some(rest))
        } else {
            program = Some(arg.clone());
            break;
        };
        if SRUN_FLAGS.contains(&opt) {
            i += 1;
            continue;
        }
        let value = match attached {
            Some(v) => v,
            None => {
                i += 1;
                match args.get(i) {
                    Some(v) => v.clone(),
                    None => return Err(unrecognized(arg)),
                }
            }
        };
        opts.push((opt, value));
        i += 1;
    }
    let get = |k: &str| opts.iter().rev().find(|(o, _)| *o == k).map(|(_, v)| v.as_str());
    let nodes_wanted: Option<usize> = get("nodes").and_then(|v| v.split('-').next()?.parse().ok());
    let alloc_error = |why: &str| Output::fail(1, "", format!("srun: error: Unable to allocate resources: {why}\n"));
    let chosen: Vec<usize> = match get("nodelist") {
        Some(list) => {
            let mut idx = Vec::new();
            for name in expand_nodelist(list) {
                match hosts.iter().position(|h| h.name == name) {
                    Some(i) if !idx.contains(&i) => idx.push(i),
                    Some(_) => {}
                    None => return Err(alloc_error("Invalid node name specified")),
                }
            }
            if nodes_wanted.is_some_and(|n| n > idx.len()) {
                let extra: Vec<usize> = (0..hosts.len()).filter(|i| !idx.contains(i)).collect();
                idx.extend(extra.into_iter().take(nodes_wanted.unwrap_or(0) - idx.len()));
            }
            idx
        }
        None => (0..nodes_wanted.unwrap_or(1)).collect(),
    };
    if chosen.len() > hosts.len() || chosen.iter().any(|&i| i >= hosts.len()) || chosen.is_empty() {
        return Err(alloc_error("Requested node configuration is not available"));
    }
    let per_node: Vec<u32> = match (get("ntasks-per-node"), get("ntasks")) {
        (Some(k), _) => vec![k.parse().unwrap_or(1); chosen.len()],
        (None, Some(n)) => {
            let n: u32 = n.parse().unwrap_or(1);
            let m = chosen.len() as u32;
            (0..m).map(|k| n / m + u32::from(k < n % m)).collect()
        }
        (None, None) => vec![1; chosen.len()],
    };
    let env = export_env(get("export").unwrap_or("ALL"), env);
    let rest = if program.is_some() { args[i + 1..].to_vec() } else { Vec::new() };
    Ok(Plan {
        nodes: chosen
            .into_iter()
            .zip(per_node)
            .filter(|(_, p)| *p > 0)
            .map(|(host, procs)| Node { host, procs, env: env.clone() })
            .collect(),
        program,
        args: rest,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodelists_and_exports() {
        assert_eq!(expand_nodelist("gpu[001-003,007],gpu010"), ["gpu001", "gpu002", "gpu003", "gpu007", "gpu010"]);
        let caller: Env = [("NCCL_DEBUG".to_string(), "WARN".to_string())].into();
        let e = export_env("ALL,NCCL_IB_HCA=mlx5_0,mlx5_1,NCCL_DEBUG=INFO", &caller);
        assert_eq!(e["NCCL_IB_HCA"], "mlx5_0,mlx5_1");
        assert_eq!(e["NCCL_DEBUG"], "INFO");
        let e = export_env("NONE,NCCL_DEBUG", &caller);
        assert_eq!(e["NCCL_DEBUG"], "WARN");
        let e = export_env("NCCL_IB_HCA==mlx5_0,mlx5_1", &Env::new());
        assert_eq!(e["NCCL_IB_HCA"], "=mlx5_0,mlx5_1");
    }
}
