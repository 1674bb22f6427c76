//! Test helpers: a lab running in the test process, the real binary run against it, and its
//! findings read back from findings.json.

use fabcheck_lab::{Lab, LabConfig, Platform};
use fabcheck_model::{Finding, Severity};
use serde::Deserialize;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A lab served by a runtime owned by the test; dropped with it.
pub struct RunningLab {
    pub lab: Lab,
    pub dir: tempfile::TempDir,
    runtime: tokio::runtime::Runtime,
}

impl RunningLab {
    /// Runs `work` (a call on the lab, such as [`fabcheck_lab::Lab::run_on`]) on the lab's own
    /// runtime, from a test's thread.
    pub fn run_async<T>(&self, work: impl std::future::Future<Output = T>) -> T {
        self.runtime.block_on(work)
    }
}

/// Starts a lab of `hosts` hosts (no switches) with the given faults (`gpu002=pfc-off`).
pub fn start_lab(hosts: usize, faults: &[&str]) -> RunningLab {
    start_fabric(hosts, 0, 0, faults)
}

/// Starts a lab of hosts, leaves and spines with the given faults (`leaf1=pfc-off@Ethernet4`).
pub fn start_fabric(hosts: usize, leaves: usize, spines: usize, faults: &[&str]) -> RunningLab {
    start_with(hosts, leaves, spines, faults, None, None)
}

/// Starts a lab of `hosts` hosts of real size: `channels` channels a NIC (`fabcheck lab --channels`).
pub fn start_sized(hosts: usize, channels: u32, faults: &[&str]) -> RunningLab {
    start_with(hosts, 0, 0, faults, None, Some(channels))
}

/// Starts a lab whose leaves and spines run the given platforms, one switch per entry.
pub fn start_platforms(hosts: usize, leaves: &[Platform], spines: &[Platform], faults: &[&str]) -> RunningLab {
    start_with(hosts, leaves.len(), spines.len(), faults, Some((leaves, spines)), None)
}

/// Starts a lab built to reference design `design` whose leaves and spines run the given
/// platforms.
pub fn start_design(
    design: &str,
    hosts: usize,
    leaves: &[Platform],
    spines: &[Platform],
    faults: &[&str],
) -> RunningLab {
    let design = fabcheck_lab::design::Design::named(design).unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let faults = faults.iter().map(|f| f.parse().unwrap()).collect();
    let config = LabConfig {
        hosts,
        leaves: leaves.len(),
        spines: spines.len(),
        faults,
        dir: dir.path().join("lab"),
        channels: None,
    };
    let lab = runtime.block_on(Lab::start_on(&design, config, Some((leaves, spines)))).unwrap();
    RunningLab { lab, dir, runtime }
}

fn start_with(
    hosts: usize,
    leaves: usize,
    spines: usize,
    faults: &[&str],
    platforms: Option<(&[Platform], &[Platform])>,
    channels: Option<u32>,
) -> RunningLab {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let faults = faults.iter().map(|f| f.parse().unwrap()).collect();
    let config = LabConfig { hosts, leaves, spines, faults, dir: dir.path().join("lab"), channels };
    let lab = runtime
        .block_on(async {
            match platforms {
                Some((leaves, spines)) => Lab::start_with_platforms(config, leaves, spines).await,
                None => Lab::start(config).await,
            }
        })
        .unwrap();
    RunningLab { lab, dir, runtime }
}

/// What one run of the binary left behind.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub out: PathBuf,
}

impl Run {
    /// findings.json's findings.
    pub fn findings(&self) -> Vec<Finding> {
        #[derive(Deserialize)]
        struct File {
            findings: Vec<Finding>,
        }
        let text = std::fs::read_to_string(self.out.join("findings.json")).unwrap_or_else(|e| {
            panic!("no findings.json ({e}); exit {}; stdout:\n{}\nstderr:\n{}", self.code, self.stdout, self.stderr)
        });
        serde_json::from_str::<File>(&text).unwrap().findings
    }

    /// (code, device, port) of every finding above `info`.
    pub fn keys(&self) -> BTreeSet<(String, String, Option<String>)> {
        self.findings()
            .into_iter()
            .filter(|f| f.severity > Severity::Info)
            .map(|f| (f.code, f.device, f.port))
            .collect()
    }

    /// findings.json as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(self.out.join("findings.json")).unwrap()).unwrap()
    }
}

/// Runs `fabcheck ARGS`.
pub fn fabcheck(args: &[&str]) -> Run {
    fabcheck_in(Path::new("."), args)
}

/// Runs `fabcheck ARGS` in `cwd`, outside any CI job summary (tests run inside GitHub Actions
/// must not write to the job's).
pub fn fabcheck_in(cwd: &Path, args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_fabcheck"))
        .current_dir(cwd)
        .args(args)
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        out: PathBuf::new(),
    }
}

/// What every run against the lab passes: `-i` its inventory, `--known-hosts` its keys, and an
/// empty `--ssh-config` (a `Host *` ProxyJump of the machine's must not apply to loopback).
pub fn lab_args(lab: &RunningLab) -> Vec<String> {
    let ssh_config = lab.dir.path().join("empty_ssh_config");
    std::fs::write(&ssh_config, "").unwrap();
    let path = |p: PathBuf| p.display().to_string();
    vec![
        "-i".into(),
        path(lab.lab.inventory_path()),
        "--known-hosts".into(),
        path(lab.lab.known_hosts_path()),
        "--ssh-config".into(),
        path(ssh_config),
    ]
}

/// `fabcheck FIRST... <lab args> REST...` in `cwd` (the test's own directory when `None`).
pub fn fabcheck_on(lab: &RunningLab, cwd: Option<&Path>, first: &[&str], rest: &[&str]) -> Run {
    let lab = lab_args(lab);
    let mut args: Vec<&str> = first.to_vec();
    args.extend(lab.iter().map(String::as_str));
    args.extend(rest);
    match cwd {
        Some(dir) => fabcheck_in(dir, &args),
        None => fabcheck(&args),
    }
}

/// Starts `fabcheck audit` on the lab with `args` into `out`, without waiting for it (to signal
/// it, or to run a second audit beside it); its stdout and stderr are piped.
pub fn spawn_audit(lab: &RunningLab, args: &[&str], out: &Path) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_fabcheck"))
        .arg("audit")
        .args(lab_args(lab))
        .args(args)
        .arg("--out")
        .arg(out)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// Audits the lab over SSH into a fresh report directory.
pub fn audit(lab: &RunningLab, extra: &[&str]) -> Run {
    let out = lab.dir.path().join(format!("report-{}", std::process::id() as u64 ^ rand_suffix()));
    let out_arg = out.display().to_string();
    let mut rest = vec!["--out", out_arg.as_str()];
    if !extra.contains(&"--window") {
        rest.extend(["--window", "500ms"]);
    }
    rest.extend(extra);
    let mut run = fabcheck_on(lab, None, &["audit"], &rest);
    run.out = out;
    run
}

fn rand_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(1);
    N.fetch_add(1, Ordering::Relaxed)
}

/// A finding key.
pub fn key(code: &str, device: &str, port: Option<&str>) -> (String, String, Option<String>) {
    (code.to_string(), device.to_string(), port.map(str::to_string))
}

/// Runs a node-check script of `deploy/` (Slurm's health check, node-problem-detector's plugin)
/// with this build's `fabcheck` first on its PATH and `env`; checks it said exactly one line, as
/// both conventions want, and returns its exit status and that line.
pub fn run_node_check(script: &Path, env: &[(&str, &str)]) -> (i32, String) {
    let bin = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_fabcheck"), bin.path().join("fabcheck")).unwrap();
    let path = format!("{}:{}", bin.path().display(), std::env::var("PATH").unwrap_or_default());
    let out = Command::new(script).env("PATH", path).envs(env.iter().copied()).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.lines().count(), 1, "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap_or(-1), stdout.trim().to_string())
}
