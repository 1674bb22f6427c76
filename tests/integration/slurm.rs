//! The Slurm recipe as shipped (`deploy/slurm/fabcheck-audit.sbatch`), on a real Slurm: Debian's
//! `slurm-wlm`, `slurmctld` and four `slurmd` on this one machine (`NodeName=n[1-4]
//! NodeHostname=localhost`, each `slurmd -N nK`), the job submitted with `sbatch --wait`. The
//! merged report holds n1..n4 under Slurm's names (not the machine's host name, which all four
//! share), a node whose task fails is reported and drained, and the drain lines, run against the
//! real `slurmctld`, drain the nodes `scontrol` knows by those names. `.ci/run` installs
//! slurm-wlm; with CI=true a missing Slurm fails the test.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn have(tool: &str) -> bool {
    Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {tool}"))
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// A Slurm cluster of four nodes on this machine, stopped when dropped.
struct Cluster {
    dir: tempfile::TempDir,
    conf: PathBuf,
}

impl Cluster {
    fn start() -> Option<Cluster> {
        let missing: Vec<&str> =
            ["slurmctld", "slurmd", "sbatch", "scontrol", "munged"].into_iter().filter(|t| !have(t)).collect();
        let root = Command::new("id").arg("-u").output().is_ok_and(|o| o.stdout.trim_ascii() == b"0");
        if !missing.is_empty() || !root {
            assert_ne!(
                std::env::var("CI").as_deref(),
                Ok("true"),
                "CI=true but Slurm cannot run here (missing {missing:?}, root: {root}): .ci/run must install slurm-wlm and run as root"
            );
            eprintln!("skipping: Slurm is not installed (missing {missing:?}) or this is not root");
            return None;
        }
        // munged serves every Slurm daemon; one already running is used as it is.
        if !Command::new("pgrep").arg("-x").arg("munged").status().is_ok_and(|s| s.success()) {
            std::fs::create_dir_all("/run/munge").unwrap();
            let chown = Command::new("chown").args(["munge:munge", "/run/munge"]).status().unwrap();
            assert!(chown.success());
            let munged = Command::new("su").args(["-s", "/bin/sh", "munge", "-c", "munged"]).status().unwrap();
            assert!(munged.success(), "munged did not start");
        }
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for sub in ["state", "log", "spool/n1", "spool/n2", "spool/n3", "spool/n4"] {
            std::fs::create_dir_all(d.join(sub)).unwrap();
        }
        // Below the kernel's ephemeral range (32768 and up), where the other tests' lab servers
        // and connections take their ports.
        let base = 20_000 + (std::process::id() % 1_200) * 10;
        let conf = d.join("slurm.conf");
        std::fs::write(
            &conf,
            format!(
                "ClusterName=fabcheck\nSlurmctldHost=localhost\nSlurmctldPort={ctld}\nSlurmdPort={slurmd}\n\
                 SlurmUser=root\nSlurmdUser=root\nAuthType=auth/munge\nStateSaveLocation={d}/state\n\
                 SlurmdSpoolDir={d}/spool/%n\nSlurmctldPidFile={d}/slurmctld.pid\nSlurmdPidFile={d}/slurmd-%n.pid\n\
                 SlurmctldLogFile={d}/log/slurmctld.log\nSlurmdLogFile={d}/log/slurmd-%n.log\n\
                 ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nSchedulerType=sched/builtin\n\
                 SelectType=select/linear\nReturnToService=2\nMpiDefault=none\nJobCompType=jobcomp/none\n\
                 AccountingStorageType=accounting_storage/none\nJobAcctGatherType=jobacct_gather/none\n\
                 NodeName=n[1-4] NodeHostname=localhost Port={first}-{last} CPUs=1 State=UNKNOWN\n\
                 PartitionName=debug Nodes=n[1-4] Default=YES MaxTime=INFINITE State=UP\n",
                ctld = base,
                slurmd = base + 1,
                first = base + 2,
                last = base + 5,
                d = d.display()
            ),
        )
        .unwrap();
        let cluster = Cluster { dir, conf };
        assert!(cluster.command("slurmctld").args(["-f", &cluster.conf()]).status().unwrap().success());
        for n in 1..=4 {
            let started =
                cluster.command("slurmd").args(["-f", &cluster.conf(), "-N", &format!("n{n}")]).status().unwrap();
            assert!(started.success(), "slurmd n{n}");
        }
        // slurmd registers within seconds; a machine busy with the other tests may take longer.
        let mut states = String::new();
        for _ in 0..240 {
            let sinfo = cluster.command("sinfo").args(["-h", "-o", "%T %D"]).output().unwrap();
            states = String::from_utf8_lossy(&sinfo.stdout).trim().to_string();
            if states == "idle 4" {
                return Some(cluster);
            }
            std::thread::sleep(std::time::Duration::from_millis(500));
        }
        let slurmd: Vec<String> = (1..=4)
            .map(|n| {
                std::fs::read_to_string(cluster.dir.path().join(format!("log/slurmd-n{n}.log"))).unwrap_or_default()
            })
            .collect();
        panic!("the four nodes never came up idle (sinfo: {states:?}):\n{}\n{}", cluster.log(), slurmd.join("\n"));
    }

    fn conf(&self) -> String {
        self.conf.display().to_string()
    }

    fn command(&self, tool: &str) -> Command {
        let mut c = Command::new(tool);
        c.env("SLURM_CONF", &self.conf);
        c
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("log/slurmctld.log")).unwrap_or_default()
    }

    fn state(&self, node: &str) -> String {
        let out = self.command("scontrol").args(["show", "node", node]).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        text.split_whitespace().find_map(|w| w.strip_prefix("State=")).unwrap_or("?").to_string()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for pid in std::fs::read_dir(self.dir.path()).unwrap().flatten().map(|e| e.path()) {
            if pid.extension().is_some_and(|e| e == "pid")
                && let Ok(text) = std::fs::read_to_string(&pid)
            {
                let _ = Command::new("kill").arg(text.trim()).status();
            }
        }
    }
}

/// A `fabcheck` for the job's PATH: the real one, except that node n3's own audit fails, as a
/// node whose task fails does.
fn fabcheck_failing_on_n3(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let script = bin.join("fabcheck");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nif [ \"${{SLURMD_NODENAME:-}}\" = n3 ]; then echo 'n3: broken' >&2; exit 1; fi\nexec {} \"$@\"\n",
            env!("CARGO_BIN_EXE_fabcheck")
        ),
    )
    .unwrap();
    assert!(Command::new("chmod").arg("+x").arg(&script).status().unwrap().success());
    bin
}

#[test]
fn the_recipe_as_shipped_reports_and_drains_every_node_under_slurms_names() {
    let Some(cluster) = Cluster::start() else { return };
    let shared = cluster.dir.path().join("shared");
    let bin = fabcheck_failing_on_n3(cluster.dir.path());
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let recipe = Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/slurm/fabcheck-audit.sbatch");
    let job = cluster
        .command("sbatch")
        .args(["--wait", "--parsable", "--nodes=4", "--time=5"])
        .arg(format!("--output={}/job-%j.out", cluster.dir.path().display()))
        .arg(&recipe)
        .env("PATH", &path)
        .env("FABCHECK_SHARED", &shared)
        .env("FABCHECK_WINDOW", "1s")
        .current_dir(cluster.dir.path())
        .output()
        .unwrap();
    let id = String::from_utf8_lossy(&job.stdout).trim().to_string();
    let output = std::fs::read_to_string(cluster.dir.path().join(format!("job-{id}.out"))).unwrap_or_default();
    // The merge's exit status is the job's: findings make it 1, never a lost report.
    assert!(!id.is_empty(), "sbatch: {}\n{}", String::from_utf8_lossy(&job.stderr), cluster.log());
    let run = shared.join(&id);
    let findings: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(run.join("report/findings.json"))
            .unwrap_or_else(|e| panic!("no merged report ({e}): job output:\n{output}\n{}", cluster.log())),
    )
    .unwrap();
    let mut names: Vec<&str> =
        findings["devices"].as_array().unwrap().iter().map(|d| d["name"].as_str().unwrap()).collect();
    names.sort_unstable();
    assert_eq!(names, ["n1", "n2", "n3", "n4"], "{output}");
    let missing: Vec<&str> = findings["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "collect.snapshot_missing")
        .map(|f| f["device"].as_str().unwrap())
        .collect();
    assert_eq!(missing, ["n3"], "the node whose task failed is reported");
    let drain = std::fs::read_to_string(run.join("drain.txt")).unwrap();
    assert!(
        drain.contains("scontrol update NodeName=n3 State=DRAIN Reason=\"fabcheck error collect.snapshot_missing\""),
        "{drain}"
    );
    for line in drain.lines() {
        assert!(line.starts_with("scontrol update NodeName=n"), "{line}");
        let ran = cluster.command("sh").arg("-c").arg(line).output().unwrap();
        assert!(ran.status.success(), "{line}: {}", String::from_utf8_lossy(&ran.stderr));
    }
    assert!(cluster.state("n3").contains("DRAIN"), "n3 is {}", cluster.state("n3"));
}

/// `deploy/slurm/fabcheck-healthcheck` as slurmd runs it: one line on stdout naming the node as
/// Slurm does, and exit 0 (healthy) or 1 (drained, or would be with FABCHECK_DRAIN=0).
#[test]
fn the_health_check_says_one_line_and_exits_as_nhc_does() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/slurm/fabcheck-healthcheck");
    let env = [("SLURMD_NODENAME", "n9"), ("FABCHECK_DRAIN", "0"), ("FABCHECK_WINDOW", "0")];
    let (code, stdout) = crate::util::run_node_check(&script, &env);
    assert!(stdout.starts_with("fabcheck: n9: "), "{stdout}");
    assert!(code == 0 || code == 1, "{code}");
    // This machine has no RDMA device unless it lists one: then the node fails, by its finding.
    if std::fs::read_dir("/sys/class/infiniband").map(|d| d.count()).unwrap_or(0) == 0 {
        assert_eq!((code, stdout.as_str()), (1, "fabcheck: n9: fabcheck error collect.no_rdma_ports"));
    }
}
