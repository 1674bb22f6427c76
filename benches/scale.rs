//! Scale benchmark: `fabcheck audit` of a lab of 100 and 1,000 hosts (counter window 0), wall time
//! and peak memory of the auditor process, and the same commands through OpenSSH's `ssh` with
//! `xargs -P 64` on the 100-host lab, measured in the same run on the same machine.
//!
//! The lab runs in its own process (`fabcheck lab`) so the auditor's memory is its own; the CPU
//! it spends answering each audit is printed too, since on a small machine the two share the
//! cores and the lab's share bounds the wall time.
//! Run: `cargo bench --bench scale` (add `-- audit`, `-- realsize`, `-- 10k`, `-- fabric`,
//! `-- merge`, `-- merge10k`, `-- bench` or `-- inventory` to run one scenario only).

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_fabcheck");

struct LabProcess {
    child: Child,
    /// Kept until the benchmark ends: deleting 20,000 files right before the next scenario
    /// would slow its writes down (the file system discards the freed blocks meanwhile).
    dir: PathBuf,
}

impl Drop for LabProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_lab(hosts: usize, extra: &[&str]) -> LabProcess {
    let dir = tempfile::Builder::new().prefix("fabcheck-scale").tempdir().unwrap().keep();
    let mut child = Command::new(BIN)
        .args(["lab", "--hosts", &hosts.to_string()])
        .args(extra)
        .arg("--dir")
        .arg(&dir)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    // The lab prints its inventory path once every host listens.
    let stdout = child.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    while let Some(Ok(line)) = lines.next() {
        if line.starts_with("inventory:") {
            break;
        }
    }
    std::thread::spawn(move || lines.for_each(drop));
    KEPT.lock().unwrap().push(dir.clone());
    LabProcess { child, dir }
}

/// Audits `lab` into `out`: wall time, the auditor's peak KiB and CPU seconds, its verdict line,
/// and the CPU seconds the lab spent meanwhile answering it.
fn audit(lab: &LabProcess, out: &Path) -> (Duration, u64, f64, String, Option<f64>) {
    let lab_cpu = || common::cpu_seconds(lab.child.id());
    let lab_before = lab_cpu();
    let start = Instant::now();
    let mut child = lab_audit(lab, &["--forks", "64"])
        .arg("--out")
        .arg(out)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (elapsed, peak, cpu) = common::wait_measured(&mut child, start);
    let mut stdout = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut stdout).unwrap();
    let lab_spent = lab_before.zip(lab_cpu()).map(|(before, after)| after - before);
    (elapsed, peak, cpu, stdout.lines().next().unwrap_or("").to_string(), lab_spent)
}

/// `fabcheck audit` of `lab` (counter window 0) with `extra` arguments.
fn lab_audit(lab: &LabProcess, extra: &[&str]) -> Command {
    let ssh_config = lab.dir.as_path().join("empty_ssh_config");
    std::fs::write(&ssh_config, "").unwrap();
    let mut command = Command::new(BIN);
    command
        .arg("audit")
        .arg("-i")
        .arg(lab.dir.as_path().join("inventory.ini"))
        .arg("--known-hosts")
        .arg(lab.dir.as_path().join("known_hosts"))
        .arg("--ssh-config")
        .arg(&ssh_config)
        .args(["--window", "0"])
        .args(extra);
    command
}

/// Every command fabcheck ran on each host, taken from its evidence, replayed with OpenSSH.
fn openssh_xargs(lab: &LabProcess, evidence: &Path) -> Option<Duration> {
    if Command::new("ssh").arg("-V").stderr(Stdio::null()).status().is_err() {
        return None;
    }
    let inventory = std::fs::read_to_string(lab.dir.as_path().join("inventory.ini")).unwrap();
    let key = lab.dir.as_path().join("id_ed25519");
    let kh = lab.dir.as_path().join("known_hosts");
    let mut jobs = String::new();
    for line in inventory.lines().filter(|l| l.contains("ansible_port=")) {
        let name = line.split_whitespace().next().unwrap();
        let port = line.split("ansible_port=").nth(1).unwrap().split_whitespace().next().unwrap();
        let commands: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(evidence.join(name).join("commands.json")).unwrap()).unwrap();
        for c in commands.as_array().unwrap() {
            jobs.push_str(&format!("{port}\t{}\n", c["command"].as_str().unwrap()));
        }
    }
    let script = format!(
        "IFS=$'\\t' read -r port cmd <<< \"$1\"; ssh -q -o BatchMode=yes -o UserKnownHostsFile={kh} -o StrictHostKeyChecking=yes -i {key} -p \"$port\" fabcheck@127.0.0.1 \"$cmd\" >/dev/null 2>&1; true",
        kh = kh.display(),
        key = key.display()
    );
    let start = Instant::now();
    let mut xargs = Command::new("xargs")
        .args(["-d", "\\n", "-P", "64", "-n", "1", "bash", "-c", &script, "job"])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    xargs.stdin.take().unwrap().write_all(jobs.as_bytes()).unwrap();
    xargs.wait().unwrap();
    Some(start.elapsed())
}

/// Scenarios, by name on the command line (all when none): `audit` (100 and 1,000 hosts, no
/// switches), `realsize` (100 hosts of real size, 63 channels a NIC, beside 100 default ones,
/// and the ratio of their CPU per host), `10k` (1,000 then 10,000 hosts, and the ratio of their
/// wall times), `fabric` (1,000
/// hosts, 32 leaves, 8 spines), `merge` (the same fabric audited device by device, as Slurm fans
/// it out, and its 1,001 snapshots merged), `merge10k` (one snapshot per node of 10,000 hosts
/// merged, as the Slurm recipe does), `bench` (nccl-tests pairwise on 64 hosts),
/// `inventory` (loading an inventory of 100,000 hosts).
fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let wants = |name: &str| args.is_empty() || args.iter().any(|a| a == name);
    println!("fabcheck scale benchmark ({} CPUs)", std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
    if wants("audit") {
        for hosts in [100, 1000] {
            let _ = audit_scenario(hosts, &["--leaves", "0"], hosts <= 100);
        }
    }
    if wants("realsize") {
        // What a real host costs against a lab host: per-queue counters and 252 CPUs' IRQs.
        let (_, lab_host) = audit_scenario(100, &["--leaves", "0"], false);
        let (_, real_host) = audit_scenario(100, &["--leaves", "0", "--channels", "63"], false);
        println!("a 63-channel host against a default lab host: {:.1}x the CPU", real_host / lab_host);
    }
    if wants("10k") {
        // Linear or not: the same audit at 1,000 and at 10,000 hosts.
        let (small, _) = audit_scenario(1000, &["--leaves", "0"], false);
        let (large, _) = audit_scenario(10_000, &["--leaves", "0"], false);
        println!(
            "10,000 against 1,000 hosts: {:.1}x the wall time for 10x the hosts",
            large.as_secs_f64() / small.as_secs_f64()
        );
    }
    if wants("fabric") {
        let _ = audit_scenario(1000, &["--leaves", "32", "--spines", "8"], false);
    }
    if wants("merge") {
        merge_scenario(1000);
    }
    if wants("merge10k") {
        split_merge_scenario(10_000);
    }
    if wants("bench") {
        bench_scenario(64);
    }
    if wants("inventory") {
        inventory_scenario(100_000);
    }
    for dir in KEPT.lock().unwrap().drain(..) {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// Every lab directory of the run, deleted at the end.
static KEPT: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

/// One audit of a lab of `hosts`; returns its wall time and the auditor's CPU seconds per host.
fn audit_scenario(hosts: usize, lab_args: &[&str], compare_openssh: bool) -> (Duration, f64) {
    let lab = start_lab(hosts, lab_args);
    let out: PathBuf = lab.dir.as_path().join("report");
    let (wall, peak, cpu, verdict, lab_cpu) = audit(&lab, &out);
    let commands: usize = std::fs::read_dir(out.join("evidence"))
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.path().join("commands.json").exists())
        .map(|d| {
            let v: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(d.path().join("commands.json")).unwrap()).unwrap();
            v.as_array().unwrap().len()
        })
        .sum();
    println!(
        "audit {hosts:>5} hosts {:<28} {:>6.2} s wall, {:>6.1} MiB peak, {:.2} ms CPU per host (the lab: {}), {commands} commands ({:.0}/s) — {verdict}",
        format!("({})", lab_args.join(" ")),
        wall.as_secs_f64(),
        peak as f64 / 1024.0,
        cpu * 1000.0 / hosts as f64,
        lab_cpu.map_or("n/a".to_string(), |s| format!("{:.2}", s * 1000.0 / hosts as f64)),
        commands as f64 / wall.as_secs_f64()
    );
    if compare_openssh && let Some(ssh) = openssh_xargs(&lab, &out.join("evidence")) {
        println!(
            "openssh+xargs -P64, same {commands} commands: {:>6.2} s wall ({:.1}x fabcheck's time)",
            ssh.as_secs_f64(),
            ssh.as_secs_f64() / wall.as_secs_f64()
        );
    }
    (wall, cpu / hosts as f64)
}

/// The (code, device) of every finding of the report in `out`, sorted: what two runs compare.
fn findings_of(out: &Path) -> Vec<(String, String)> {
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("findings.json")).unwrap()).unwrap();
    let mut findings: Vec<(String, String)> = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["code"].as_str().unwrap_or("").into(), f["device"].as_str().unwrap_or("").into()))
        .collect();
    findings.sort();
    findings
}

/// A Slurm-style merge at `hosts` nodes: one audit of the lab's hosts, its snapshot split into
/// one snapshot per node (each device's directory with a manifest of its own, as `audit --local`
/// on each node writes it), then `audit --snapshot` over all of them with `--expect-nodes`: the
/// merge's wall time and peak memory, against re-judging the one snapshot, and whether both give
/// the same findings. (Splitting one audit's snapshot keeps the run short; auditing node by node
/// as `merge` does would take an hour at this size.)
fn split_merge_scenario(hosts: usize) {
    let lab = start_lab(hosts, &["--leaves", "0", "--fault", "gpu002=pfc-off", "--fault", "gpu003=mtu"]);
    let dir = lab.dir.as_path();
    let whole = dir.join("whole");
    let (wall, _, _, _, _) = audit(&lab, &whole);
    println!("merge10k: one audit of {hosts} hosts, {:.2} s wall", wall.as_secs_f64());
    let judge = |snapshots: Vec<PathBuf>, expect: Option<&str>, out: PathBuf| {
        let mut command = Command::new(BIN);
        command.args(["audit", "--out"]).arg(&out).arg("--snapshot").args(&snapshots);
        if let Some(nodes) = expect {
            command.args(["--expect-nodes", nodes]);
        }
        let (wall, peak, _) = common::run_measured(&mut command);
        (wall, peak, findings_of(&out))
    };
    let evidence = whole.join("evidence");
    let one = judge(vec![evidence.clone()], None, dir.join("rejudged"));
    // Each device's directory moves into a snapshot of its own, with its manifest entry.
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(evidence.join("manifest.json")).unwrap()).unwrap();
    let mut parts = Vec::new();
    let mut names = Vec::new();
    for device in manifest["devices"].as_array().unwrap() {
        let name = device["name"].as_str().unwrap();
        let part = dir.join("nodes").join(name);
        std::fs::create_dir_all(&part).unwrap();
        std::fs::rename(evidence.join(name), part.join(name)).unwrap();
        let mut own = manifest.clone();
        own["devices"] = serde_json::Value::Array(vec![device.clone()]);
        std::fs::write(part.join("manifest.json"), serde_json::to_vec(&own).unwrap()).unwrap();
        parts.push(part);
        names.push(name.to_string());
    }
    let expect = names.join(",");
    let merged = judge(parts, Some(&expect), dir.join("merged"));
    for (what, (wall, peak, findings)) in
        [("re-judging one snapshot", &one), ("merging one snapshot per node", &merged)]
    {
        println!(
            "merge10k: {what:<30} {:>6.2} s wall, {:>7.1} MiB peak, {} findings",
            wall.as_secs_f64(),
            *peak as f64 / 1024.0,
            findings.len()
        );
    }
    println!(
        "merge10k: {} snapshots; {:.2}x the wall time and {:.2}x the memory of one snapshot; same findings: {}",
        names.len(),
        merged.0.as_secs_f64() / one.0.as_secs_f64(),
        merged.1 as f64 / one.1 as f64,
        if merged.2 == one.2 { "yes" } else { "NO" }
    );
}

/// Loads an INI inventory of `hosts` hosts (each with an address and two NICs, in one group) and
/// selects one of them: the memory of an inventory as large as a site's.
fn inventory_scenario(hosts: usize) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("inventory.ini");
    let mut ini = String::from("[gpu]\n");
    for i in 0..hosts {
        ini.push_str(&format!(
            "gpu{i:06} ansible_host=10.{}.{}.{} fabcheck_nics=ens1np0,ens2np0\n",
            i >> 16 & 255,
            i >> 8 & 255,
            i & 255
        ));
    }
    ini.push_str("[all:vars]\nansible_user=fabcheck\n");
    std::fs::write(&file, ini).unwrap();
    let (wall, peak, _) = common::run_measured(Command::new(BIN).arg("inventory").arg("-i").arg(&file).args([
        "--list",
        "--limit",
        "gpu000001",
    ]));
    println!(
        "inventory {hosts} hosts loaded: {:.2} s wall, {:.1} MB peak ({} KiB)",
        wall.as_secs_f64(),
        peak as f64 * 1024.0 / 1e6,
        peak
    );
}

/// `fabcheck bench nccl --pairwise` on a 64-host lab with one degraded host: fabcheck's own time
/// around the benchmark runs (it prints it), the rounds it took, and whom it named.
fn bench_scenario(hosts: usize) {
    let lab = start_lab(hosts, &["--leaves", "0", "--fault", "gpu037=link-degraded"]);
    let out = lab.dir.as_path().join("bench-report");
    let ssh_config = lab.dir.as_path().join("empty_ssh_config");
    std::fs::write(&ssh_config, "").unwrap();
    let start = Instant::now();
    let run = Command::new(BIN)
        .args(["bench", "nccl", "--pairwise", "-i"])
        .arg(lab.dir.as_path().join("inventory.ini"))
        .arg("--known-hosts")
        .arg(lab.dir.as_path().join("known_hosts"))
        .arg("--ssh-config")
        .arg(&ssh_config)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let wall = start.elapsed();
    let stderr = String::from_utf8_lossy(&run.stderr);
    let timing = stderr.lines().find(|l| l.contains("benchmark run(s)")).unwrap_or("(no timing line)");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("findings.json")).unwrap()).unwrap();
    let rounds: std::collections::BTreeSet<&str> = json["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["label"].as_str()?.rsplit_once('(').map(|(_, r)| r.trim_end_matches(')')))
        .collect();
    let named: Vec<&str> = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "nccl.straggler")
        .filter_map(|f| f["device"].as_str())
        .collect();
    println!(
        "bench {hosts} hosts pairwise: {:.2} s wall; {} rounds; stragglers named: {named:?}",
        wall.as_secs_f64(),
        rounds.len()
    );
    println!("  {}", timing.trim_start_matches("fabcheck: "));
}

/// The fan-out of Slurm or Kubernetes on a fabric of `hosts` hosts, 32 leaves and 8 spines, with
/// three faults (a host's PFC off, a host's MTU, a leaf's ECN off): each
/// host audited on its own (`--limit NAME --host-lldp`, four at a time, as `srun` runs one per
/// node), the switches in one run, then `audit --snapshot` over all those snapshots. Reports the
/// merge's wall time, peak memory and CPU per device, against re-judging the snapshot of one
/// audit of the same fabric, and whether both give the same findings.
fn merge_scenario(hosts: usize) {
    let faults = ["--fault", "gpu002=pfc-off", "--fault", "gpu003=mtu", "--fault", "leaf2=ecn-off"];
    let lab = start_lab(hosts, &[&["--leaves", "32", "--spines", "8"][..], &faults].concat());
    let dir = lab.dir.as_path();
    let whole = dir.join("whole");
    let (wall, _, _, _, _) = audit(&lab, &whole);
    println!("merge: one audit of the fabric, {:.2} s wall", wall.as_secs_f64());

    let inventory = std::fs::read_to_string(dir.join("inventory.ini")).unwrap();
    let names: Vec<&str> =
        inventory.lines().filter(|l| l.contains("ansible_port=")).filter_map(|l| l.split_whitespace().next()).collect();
    let is_switch = |n: &&str| n.starts_with("leaf") || n.starts_with("spine");
    let mut parts: Vec<(Vec<&str>, PathBuf)> = names
        .iter()
        .filter(|n| !is_switch(n))
        .map(|n| (vec!["--limit", n, "--host-lldp"], dir.join("parts").join(n)))
        .collect();
    parts.push((vec!["--limit", "leaf*:spine*"], dir.join("parts").join("switches")));
    let start = Instant::now();
    let queue = std::sync::Mutex::new(parts.iter());
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                while let Some((args, out)) = { queue.lock().unwrap().next() } {
                    let status = lab_audit(&lab, args)
                        .arg("--out")
                        .arg(out)
                        .stdout(Stdio::null())
                        .stderr(Stdio::null())
                        .status();
                    assert!(status.is_ok_and(|s| s.code().is_some_and(|c| c <= 1)), "audit {args:?} failed");
                }
            });
        }
    });
    println!(
        "merge: {} snapshots written (device by device, 4 at a time) in {:.1} s",
        parts.len(),
        start.elapsed().as_secs_f64()
    );

    let judge = |snapshots: Vec<PathBuf>, out: PathBuf| {
        let (wall, peak, cpu) = common::run_measured(
            Command::new(BIN).args(["audit", "--out"]).arg(&out).arg("--snapshot").args(snapshots),
        );
        (wall, peak, cpu, findings_of(&out))
    };
    let devices = names.len();
    let show = |what: &str, (wall, peak, cpu, findings): &(Duration, u64, f64, Vec<(String, String)>)| {
        println!(
            "merge: {what:<34} {:>6.2} s wall, {:>6.1} MiB peak, {:.2} ms CPU per device, {} findings",
            wall.as_secs_f64(),
            *peak as f64 / 1024.0,
            cpu * 1000.0 / devices as f64,
            findings.len()
        );
    };
    let one = judge(vec![whole.join("evidence")], dir.join("rejudged"));
    show("re-judging one snapshot", &one);
    let merged = judge(parts.iter().map(|(_, out)| out.join("evidence")).collect(), dir.join("merged"));
    show(&format!("merging {} snapshots", parts.len()), &merged);
    println!(
        "merge: {:.2}x the wall time of one snapshot; same findings: {}",
        merged.0.as_secs_f64() / one.0.as_secs_f64(),
        if merged.3 == one.3 { "yes" } else { "NO" }
    );
}
