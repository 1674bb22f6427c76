//! Nothing is lost: the scheduled audit goes on when a host goes down between two runs, and a
//! disk that fills up costs this run's files, never the last good ones.

use crate::util::{Run, RunningLab, fabcheck, lab_args, start_fabric, start_lab};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The lab's arguments with its inventory replaced by `inventory`.
fn args_with_inventory(lab: &RunningLab, inventory: &Path) -> Vec<String> {
    let mut args = lab_args(lab);
    let at = args.iter().position(|a| a == "-i").unwrap();
    args[at + 1] = inventory.display().to_string();
    args
}

/// `fabcheck audit` of the lab through `inventory`, with `--state state`, into `out`.
fn audit_into(lab: &RunningLab, inventory: &Path, state: &Path, out: &Path) -> Run {
    let mut args: Vec<String> = vec!["audit".into()];
    args.extend(args_with_inventory(lab, inventory));
    args.extend(["--window", "0", "--state"].map(String::from));
    args.push(state.display().to_string());
    args.push("--out".into());
    args.push(out.display().to_string());
    let mut run = fabcheck(&args.iter().map(String::as_str).collect::<Vec<_>>());
    run.out = out.to_path_buf();
    run
}

/// The lab's inventory with `host`'s port made one nothing listens on.
fn with_host_down(lab: &RunningLab, host: &str) -> PathBuf {
    let text = std::fs::read_to_string(lab.lab.inventory_path()).unwrap();
    let down: String = text
        .lines()
        .map(|line| match line.strip_prefix(host).filter(|rest| rest.starts_with(' ')) {
            Some(_) => {
                let port = line.split_whitespace().find(|w| w.starts_with("ansible_port=")).unwrap();
                format!("{}\n", line.replace(port, "ansible_port=1"))
            }
            None => format!("{line}\n"),
        })
        .collect();
    assert_ne!(down, text, "{host} is in the inventory");
    let path = lab.dir.path().join("down.ini");
    std::fs::write(&path, down).unwrap();
    path
}

#[test]
fn a_host_that_goes_down_between_two_runs_is_a_new_finding_and_its_return_a_fixed_one() {
    let lab = start_lab(4, &[]);
    let dir = lab.dir.path();
    let (state, inventory) = (dir.join("state"), lab.lab.inventory_path());
    let first = audit_into(&lab, &inventory, &state, &dir.join("o1"));
    assert_eq!(first.code, 0, "{}{}", first.stdout, first.stderr);

    let down = with_host_down(&lab, "gpu004");
    let second = audit_into(&lab, &down, &state, &dir.join("o2"));
    assert_eq!(second.code, 1, "the unreachable host fails the run, nothing else: {}{}", second.stdout, second.stderr);
    let new = &second.json()["since_last_run"]["new_findings"];
    assert_eq!(new[0]["code"], "ssh.unreachable", "{new}");
    assert!(new[0].get("port").is_none(), "a finding about a whole device: {new}");
    let md = std::fs::read_to_string(second.out.join("report.md")).unwrap();
    assert!(md.contains("| error | gpu004 |  | `ssh.unreachable` |"), "{md}");
    let incidents = &second.json()["since_last_run"]["new_incidents"];
    assert_eq!(incidents[0]["id"], "ssh.unreachable@gpu004", "{incidents}");
    assert!(md.contains("Incidents (root causes): **1 new**: ssh.unreachable on gpu004 (error); 0 fixed."), "{md}");
    for file in ["report.html", "junit.xml", "metrics.prom", "diff.md", "diff.json", "diff.junit.xml"] {
        assert!(second.out.join(file).is_file(), "{file}: {}", second.stderr);
    }
    assert!(second.stdout.contains("verdict: FAIL"), "{}", second.stdout);

    // The state moved on: the host's return is a fixed finding, not the same failure again.
    let third = audit_into(&lab, &inventory, &state, &dir.join("o3"));
    assert_eq!(third.code, 0, "{}{}", third.stdout, third.stderr);
    let fixed = &third.json()["since_last_run"]["fixed_findings"];
    assert_eq!(fixed[0]["code"], "ssh.unreachable", "{fixed}");
    let fixed = &third.json()["since_last_run"]["fixed_incidents"];
    assert_eq!(fixed[0]["id"], "ssh.unreachable@gpu004", "{fixed}");

    // fabcheck diff of the two report directories, either way round.
    for (before, after) in [("o1", "o2"), ("o2", "o3")] {
        let out = dir.join(format!("diff-{before}-{after}"));
        let (b, a, o) = (dir.join(before), dir.join(after), out.display().to_string());
        let run = fabcheck(&["diff", &b.display().to_string(), &a.display().to_string(), "--out", &o]);
        assert_ne!(run.code, 2, "{before} → {after}: {}{}", run.stdout, run.stderr);
        assert!(std::fs::read_to_string(out.join("diff.md")).unwrap().contains("`ssh.unreachable`"));
    }
}

/// Runs `script` with `sh` in a mount namespace of its own (as root, or in a user namespace
/// where it is not), where `$D` is an empty tmpfs of `size`: the small or full disk a real
/// cluster's audit host can have, with nothing outside the namespace touched. `$F` is fabcheck,
/// `$LAB` the lab's arguments, `$R` a directory outside the tmpfs to copy results to.
fn on_small_disk(lab: &RunningLab, size: &str, script: &str) -> (PathBuf, String) {
    let root = lab.dir.path();
    let (disk, results) = (root.join("disk"), root.join("results"));
    std::fs::create_dir_all(&disk).unwrap();
    std::fs::create_dir_all(&results).unwrap();
    let unshare = ["/usr/bin/unshare", "/bin/unshare"].into_iter().find(|p| Path::new(p).exists());
    let Some(unshare) = unshare else {
        assert_ne!(std::env::var("CI").as_deref(), Ok("true"), "CI=true but unshare (util-linux) is missing");
        panic!("unshare (util-linux) is needed to give fabcheck a small disk");
    };
    let mut namespace = vec!["--mount"];
    if !is_root() {
        namespace.push("--map-root-user");
    }
    let body = format!("set -u\nmount -t tmpfs -o size={size} tmpfs \"$D\" || exit 90\n{script}");
    let out = Command::new(unshare)
        .args(&namespace)
        .args(["sh", "-c", &body])
        .env("D", &disk)
        .env("R", &results)
        .env("F", env!("CARGO_BIN_EXE_fabcheck"))
        .env("LAB", lab_args(lab).iter().map(|a| format!("'{a}'")).collect::<Vec<_>>().join(" "))
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    let log = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_ne!(out.status.code(), Some(90), "cannot mount a tmpfs in a namespace of its own: {log}");
    assert!(out.status.success(), "the script failed: {log}");
    (results, log)
}

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("Uid:")).map(|l| l.split_whitespace().nth(1) == Some("0")))
        .unwrap_or(false)
}

fn read(path: PathBuf) -> String {
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn a_full_disk_keeps_the_last_good_snapshot_and_reports_and_says_what_was_not_written() {
    let lab = start_fabric(2, 1, 1, &[]);
    let script = r#"
run() { eval "\"$F\" audit $LAB --window 0 --out \"$D/out\" --state \"$D/state\"" >"$R/$1.stdout" 2>"$R/$1.stderr"; echo $? >"$R/$1.code"; }
run good
cp -r "$D/out" "$R/good"
# The disk fills up (a runaway log, a core dump): not a byte left.
dd if=/dev/zero of="$D/fill" bs=4096 2>/dev/null || true
run full
cp -r "$D/out" "$R/full"
ls -A "$D/out" >"$R/full.ls"
rm "$D/fill"
run freed
cp -r "$D/out" "$R/freed"
"#;
    let (r, log) = on_small_disk(&lab, "8m", script);
    assert_eq!(read(r.join("good.code")).trim(), "0", "{log}{}", read(r.join("good.stderr")));

    // The run on the full disk: judged and said, nothing of the last good run lost, exit 2.
    let (stdout, stderr) = (read(r.join("full.stdout")), read(r.join("full.stderr")));
    assert_eq!(read(r.join("full.code")).trim(), "2", "{stdout}{stderr}");
    assert!(stdout.contains("verdict: PASS"), "the verdict is printed all the same: {stdout}");
    assert!(
        stderr.contains("not written: ") && stderr.contains("/evidence: this run's evidence is incomplete"),
        "{stderr}"
    );
    assert!(stderr.contains("No space left on device"), "{stderr}");
    assert!(stderr.contains("findings.json"), "the reports not written are named: {stderr}");
    assert!(stderr.contains("--state"), "the state not written is named: {stderr}");
    for file in ["evidence/manifest.json", "findings.json", "report.html", "metrics.prom"] {
        assert_eq!(read(r.join("good").join(file)), read(r.join("full").join(file)), "{file} is the last good run's");
    }
    let left = read(r.join("full.ls"));
    assert!(!left.contains(".evidence.") && !left.contains(".tmp"), "nothing half-written is left: {left}");

    // With room again, the next run is compared with the last good one.
    assert_eq!(read(r.join("freed.code")).trim(), "0", "{}", read(r.join("freed.stderr")));
    let json: serde_json::Value = serde_json::from_str(&read(r.join("freed/findings.json"))).unwrap();
    assert!(json["since_last_run"]["before"].is_string(), "{json}");
}

#[test]
fn a_disk_too_small_for_the_evidence_still_gets_the_reports_and_the_verdict() {
    let lab = start_fabric(4, 2, 2, &[]);
    let script = r#"
eval "\"$F\" audit $LAB --window 0 --out \"$D/out\"" >"$R/stdout" 2>"$R/stderr"; echo $? >"$R/code"
cp -r "$D/out" "$R/out"
"#;
    // The evidence of four hosts and four switches is about 0.9 MB, their reports 0.4 MB.
    let (r, log) = on_small_disk(&lab, "700k", script);
    let (stdout, stderr) = (read(r.join("stdout")), read(r.join("stderr")));
    assert_eq!(read(r.join("code")).trim(), "2", "{log}{stdout}{stderr}");
    assert!(stdout.contains("verdict: PASS"), "{stdout}");
    assert!(stderr.contains("this run's evidence is incomplete"), "{stderr}");
    assert!(!r.join("out/evidence").exists(), "no snapshot without its manifest");
    let findings: serde_json::Value = serde_json::from_str(&read(r.join("out/findings.json"))).unwrap();
    assert_eq!(findings["verdict"], "pass");
}

/// Output cut at --max-output is unknown, not a configuration: every host's and switch's
/// finding is the cut itself (no subnet manager "missing" from a cut sminfo, no DSCP map
/// "unmapped" from a cut switch configuration).
#[test]
fn output_cut_at_max_output_is_the_cut_never_a_configuration_fault() {
    let lab = start_fabric(2, 1, 1, &[]);
    let run = crate::util::audit(&lab, &["--max-output", "900"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let keys = run.keys();
    let devices: std::collections::BTreeSet<&str> = keys.iter().map(|(_, d, _)| d.as_str()).collect();
    assert_eq!(devices, ["gpu001", "gpu002", "leaf1", "spine1"].into(), "every device's outputs are cut: {keys:?}");
    // A link whose far end's configuration is unknown is a path that cannot be judged.
    let wrong: Vec<_> =
        keys.iter().filter(|(code, _, _)| code != "collect.output_truncated" && code != "path.unknown").collect();
    assert!(wrong.is_empty(), "only the cut and what it leaves unknown: {wrong:#?}");
    let unread = &run.json()["devices"][0]["unread"];
    assert!(
        unread.as_array().unwrap().iter().all(|u| u["status"] == "failed"
            && u["error"].as_str().unwrap().contains("cut at --max-output after 900 bytes: not read")),
        "{unread:#}"
    );
}

/// A switch whose every command hangs is its timeouts and the paths through it unknown,
/// never a configuration fault; the other devices are judged as usual.
#[test]
fn a_switch_whose_commands_hang_is_its_timeouts_never_a_configuration_fault() {
    let lab = start_fabric(2, 1, 1, &["leaf1=command-hang"]);
    let run = crate::util::audit(&lab, &["--command-timeout", "1s"]);
    let keys = run.keys();
    assert!(keys.contains(&crate::util::key("ssh.timeout", "leaf1", None)), "{keys:#?}");
    let wrong: Vec<_> = keys
        .iter()
        .filter(|(code, _, _)| !(code == "ssh.timeout" || code.starts_with("path.") || code.starts_with("collect.")))
        .collect();
    assert!(wrong.is_empty(), "only the collection's findings and unknown paths: {wrong:#?}");
    assert!(!keys.iter().any(|(code, _, _)| code == "path.inconsistent"), "{keys:#?}");
}

/// Audits `lab` with `extra`, sends SIGTERM once the audit is a second into its collection,
/// and returns the run and how long it took to end after the signal.
fn terminated_during_collection(lab: &RunningLab, extra: &[&str]) -> (Run, std::time::Duration) {
    let out = lab.dir.path().join("terminated");
    let mut args = vec!["--window", "0"];
    args.extend(extra);
    let child = crate::util::spawn_audit(lab, &args, &out);
    // The run's evidence directory exists once it listens for signals.
    let started = std::time::Instant::now();
    let listening = || {
        std::fs::read_dir(&out)
            .is_ok_and(|d| d.flatten().any(|e| e.file_name().to_string_lossy().starts_with(".evidence.")))
    };
    while !listening() {
        assert!(started.elapsed().as_secs() < 20, "the audit never started");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_secs(1));
    assert!(Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap().success());
    let signalled = std::time::Instant::now();
    let done = child.wait_with_output().unwrap();
    let took = signalled.elapsed();
    let run = Run {
        code: done.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&done.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&done.stderr).into_owned(),
        out,
    };
    (run, took)
}

/// SIGTERM cancels what is in flight: a connect to a server that never sends its banner and a
/// tool that never ends are given up at once, not at their 60 s timeouts. The other host is
/// judged, the reports are written and say the run was interrupted, and the exit status is 2.
#[test]
fn sigterm_cancels_connects_and_commands_in_flight_and_the_run_ends_in_seconds() {
    for fault in ["gpu002=banner-hang", "gpu002=command-hang"] {
        let lab = start_lab(2, &[fault, "gpu001=pfc-off"]);
        let timeouts = ["--connect-timeout", "60s", "--command-timeout", "60s"];
        let (run, took) = terminated_during_collection(&lab, &timeouts);
        // Far below the 60 s timeouts it used to wait out; the margin is for a loaded machine.
        assert!(took.as_secs() < 20, "{fault}: ended {took:?} after the signal: {}", run.stderr);
        assert_eq!(run.code, 2, "{fault}: {}", run.stderr);
        let json = run.json();
        assert_eq!(json["interrupted"], true, "{fault}");
        let codes: Vec<(String, String)> = json["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| (f["code"].as_str().unwrap().to_string(), f["device"].as_str().unwrap().to_string()))
            .collect();
        assert!(codes.contains(&("collect.interrupted".into(), "gpu002".into())), "{fault}: {codes:?}");
        assert!(codes.contains(&("nic.pfc_mismatch".into(), "gpu001".into())), "{fault}: {codes:?}");
        assert!(run.out.join("report.html").is_file() && run.out.join("evidence/manifest.json").is_file());
    }
}

/// A second run into the --out or --state of a run still going is refused at once, naming the
/// directory, and the first run's files are all its own.
#[test]
fn a_second_run_into_the_same_out_or_state_is_refused_while_the_first_runs() {
    let lab = start_lab(1, &[]);
    let dir = lab.dir.path();
    let (out, state) = (dir.join("out"), dir.join("state"));
    let state_arg = state.display().to_string();
    let first = crate::util::spawn_audit(&lab, &["--window", "4s", "--state", &state_arg], &out);
    let started = std::time::Instant::now();
    while !out.join(".fabcheck.lock").exists() || !state.join(".fabcheck.lock").exists() {
        assert!(started.elapsed().as_secs() < 20, "the first run never started");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let args = |out: &Path, state: &Path| {
        let mut args: Vec<String> = vec!["audit".into(), "--window".into(), "0".into()];
        args.extend(lab_args(&lab));
        args.extend(["--out".into(), out.display().to_string(), "--state".into(), state.display().to_string()]);
        args
    };
    for (second_out, second_state, busy) in
        [(&out, &dir.join("other-state"), &out), (&dir.join("other"), &state, &state)]
    {
        let a = args(second_out, second_state);
        let run = fabcheck(&a.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(run.code, 2, "{}", run.stderr);
        let said = format!("{}: another fabcheck run is writing into this directory", busy.display());
        assert!(run.stderr.contains(&said), "{}", run.stderr);
    }
    let done = first.wait_with_output().unwrap();
    assert_eq!(done.status.code(), Some(0), "{}", String::from_utf8_lossy(&done.stderr));
    assert!(out.join("findings.json").is_file() && state.join("last-run.json").is_file());
    // Once the first is done, the directories take the next run.
    let a = args(&out, &state);
    assert_eq!(fabcheck(&a.iter().map(String::as_str).collect::<Vec<_>>()).code, 0);
}

/// `fabcheck audit` of the lab with `rest`, through `sh` with the open-file limit (soft and hard:
/// fabcheck raises the soft one to the hard one) set to `limit`.
fn audit_with_fd_limit(lab: &RunningLab, limit: u32, rest: &[&str]) -> Run {
    let out = lab.dir.path().join(format!("fd{limit}-{}", rest.join("")));
    let script = format!("ulimit -S -n {limit} && ulimit -H -n {limit} && exec \"$0\" audit \"$@\"");
    let run = Command::new("sh")
        .args(["-c", &script, env!("CARGO_BIN_EXE_fabcheck")])
        .args(lab_args(lab))
        .args(rest)
        .arg("--out")
        .arg(&out)
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    Run {
        code: run.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&run.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&run.stderr).into_owned(),
        out,
    }
}

/// Issue 34: with more devices than this machine's open-file limit has room for (here 40
/// descriptors for 40 hosts, every connection kept through the window), connections failed
/// with EMFILE and every such host was `ssh.unreachable`, the evidence of the others not
/// written. The connections are now kept within the limit, said once with what to do about it,
/// and the other devices wait for one to close: every host is audited. A device that cannot wait
/// long enough (`--device-timeout` shorter than the window) is `collect.fd_limit`, the auditor's
/// limit, never a device fault.
#[test]
fn r34_the_open_file_limit_is_the_auditors_not_the_devices() {
    let lab = start_lab(40, &[]);
    let run = audit_with_fd_limit(&lab, 40, &["--window", "2s", "--forks", "64"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("verdict: PASS") && run.stdout.contains("on 40 hosts, 0 unreachable"),
        "{}",
        run.stdout
    );
    assert!(run.keys().is_empty(), "{}", run.stdout);
    let said: Vec<&str> = run.stderr.lines().filter(|l| l.contains("open-file limit")).collect();
    assert_eq!(said.len(), 1, "said once: {}", run.stderr);
    assert!(
        said[0].starts_with("fabcheck: warning: this machine's open-file limit (`ulimit -n`: 40) leaves room for ")
            && said[0].ends_with("run with a lower --forks or a higher `ulimit -n`"),
        "{}",
        said[0]
    );

    let short = audit_with_fd_limit(&lab, 40, &["--window", "4s", "--device-timeout", "1s", "--forks", "64"]);
    assert_eq!(short.code, 1, "findings, every report written: {}{}", short.stdout, short.stderr);
    let findings = short.findings();
    assert!(!findings.is_empty() && findings.len() < 40, "{}", short.stdout);
    for f in &findings {
        assert_eq!(f.code, "collect.fd_limit", "{f:?}");
        assert!(f.message.contains("the auditor's limit, not the device's"), "{}", f.message);
    }
    assert!(short.out.join("evidence/manifest.json").exists(), "{}", short.stderr);
}
