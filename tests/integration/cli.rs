//! The command line itself: exit codes, errors that name the file and line, `parse`.

use crate::util::{fabcheck, fabcheck_in};
use std::path::Path;

/// `fabcheck audit` of an inventory of `hosts` (one a line, group `gpu`) with `ssh_config` as
/// its `--ssh-config`: the directory holding both, the config's path, the report directory, the run.
fn audit_with_ssh_config(
    hosts: &str,
    ssh_config: &str,
    extra: &[&str],
) -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf, crate::util::Run) {
    let dir = tempfile::tempdir().unwrap();
    let inv = dir.path().join("inv.ini");
    std::fs::write(&inv, format!("[gpu]\n{hosts}")).unwrap();
    let config = dir.path().join("ssh_config");
    std::fs::write(&config, ssh_config).unwrap();
    let out = dir.path().join("o");
    let (inv_arg, config_arg, out_arg) =
        (inv.display().to_string(), config.display().to_string(), out.display().to_string());
    let mut args = vec!["audit", "-i", &inv_arg, "--ssh-config", &config_arg, "--window", "0"];
    args.extend(extra);
    args.extend(["--out", &out_arg]);
    let run = fabcheck(&args);
    (dir, config, out, run)
}

#[test]
fn a_bad_inventory_exits_2_naming_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let inv = dir.path().join("bad.ini");
    std::fs::write(&inv, "[gpu]\ngpu01 ansible_host=10.0.0.1\ngpu02 ansible_user=\"unterminated\n").unwrap();
    let run = fabcheck(&["audit", "-i", inv.to_str().unwrap(), "--out", dir.path().join("o").to_str().unwrap()]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.starts_with("fabcheck: "), "{}", run.stderr);
    assert!(run.stderr.contains("bad.ini:3"), "{}", run.stderr);
}

/// An ssh_config list that leaves nothing to offer a device is that device's finding, naming the
/// line, without a connection tried; the run goes on (no exit 2), and a line of a block no
/// device uses is not looked at.
#[test]
fn an_ssh_config_list_that_leaves_nothing_is_the_devices_finding() {
    let text = "Host old-*\n  HostName 127.0.0.1\n  Port 9\n  Ciphers 3des-cbc,sntrup\nHost unused\n  MACs umac-64@openssh.com\n";
    let (_dir, config, out, run) = audit_with_ssh_config("old-a1\n", text, &[]);
    assert_eq!(run.code, 1, "a finding, not a usage error: {}", run.stderr);
    let at = format!("{}:4: Ciphers", config.display());
    assert!(
        run.stderr.contains(&format!("{at}: `3des-cbc`, `sntrup` not spoken by fabcheck")),
        "{}\n{}",
        run.stderr,
        run.stdout
    );
    assert!(!run.stderr.contains("umac"), "{}", run.stderr);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("findings.json")).unwrap()).unwrap();
    let finding = &json["findings"][0];
    assert_eq!(finding["code"], "ssh.protocol_error", "{json:#}");
    let message = finding["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!(
            "no common algorithm: nothing to offer 127.0.0.1 (ssh_config): {at} `3des-cbc,sntrup` leaves nothing to offer"
        )),
        "{message}"
    );
}

/// Issue 34: a `ProxyCommand` was ignored without a word, so its hosts were connected to
/// directly. Each such line is warned about once, at its file and line (however many hosts it
/// applies to), pointing at ProxyJump; `ProxyCommand none` asks for nothing and is not.
#[test]
fn r34_a_proxy_command_is_warned_about_once_at_its_line() {
    let text = "Host behind-*\n  HostName 127.0.0.1\n  Port 9\n  ProxyCommand ssh -W %h:%p bastion\nHost other\n  ProxyCommand none\nHost *\n  ProxyCommand=nc %h %p\n";
    let (_dir, config, _, run) = audit_with_ssh_config("behind-a1\nbehind-a2\n", text, &["--connect-timeout", "2s"]);
    assert_eq!(run.code, 1, "the hosts are unreachable, not a usage error: {}", run.stderr);
    let warnings: Vec<&str> = run.stderr.lines().filter(|l| l.contains("ProxyCommand")).collect();
    let at = |line: u32, command: &str| {
        format!(
            "fabcheck: warning: {}:{line}: `ProxyCommand {command}` is not supported: fabcheck does not run it and connects to its hosts directly; use `ProxyJump` for a jump host",
            config.display()
        )
    };
    assert_eq!(warnings, [at(4, "ssh -W %h:%p bastion"), at(8, "nc %h %p")], "{}", run.stderr);
}

/// ssh_config's `ConnectTimeout` for a host replaces `--connect-timeout` for it: a server that
/// accepts the connection and never speaks is given up after the config's second.
#[test]
fn an_ssh_config_connect_timeout_bounds_its_hosts_handshake() {
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let held: Vec<_> = silent.incoming().take(4).collect();
        std::thread::sleep(std::time::Duration::from_secs(120));
        drop(held);
    });
    let dir = tempfile::tempdir().unwrap();
    let inv = dir.path().join("inv.ini");
    std::fs::write(&inv, "[gpu]\nslow-a1\n").unwrap();
    let config = dir.path().join("ssh_config");
    std::fs::write(&config, format!("Host slow-*\n  HostName 127.0.0.1\n  Port {port}\n  ConnectTimeout 1\n")).unwrap();
    let out = dir.path().join("o");
    let (inv, config, out) = (inv.to_str().unwrap(), config.to_str().unwrap(), out.to_str().unwrap());
    let args = ["audit", "-i", inv, "--ssh-config", config, "--connect-timeout", "90s", "--window", "0", "--out", out];
    let run = fabcheck(&args);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(Path::new(out).join("findings.json")).unwrap()).unwrap();
    let finding = &json["findings"][0];
    assert_eq!(finding["code"], "ssh.timeout", "{json:#}");
    assert_eq!(finding["message"], format!("ssh handshake to 127.0.0.1:{port} timed out after 1s"), "{json:#}");
}

#[test]
fn a_policy_with_an_unknown_key_exits_2_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let policy = dir.path().join("p.yaml");
    std::fs::write(&policy, "nic:\n  mut: 4200\n").unwrap();
    let run = fabcheck(&[
        "audit",
        "--local",
        "--policy",
        policy.to_str().unwrap(),
        "--out",
        dir.path().join("o").to_str().unwrap(),
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("p.yaml") && run.stderr.contains("mut"), "{}", run.stderr);
}

#[test]
fn an_unknown_fail_on_severity_exits_2() {
    let run = fabcheck(&["audit", "--local", "--fail-on", "fatal"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("--fail-on fatal"), "{}", run.stderr);
}

#[test]
fn parse_prints_the_facts_of_a_saved_output_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("qos.txt");
    std::fs::write(
        &file,
        include_str!("../../crates/parse/tests/fixtures/mlnx_qos/netarbiter-mlx5-eth4-trust-dscp-pfc3-tsa-vendor.txt"),
    )
    .unwrap();
    let run = fabcheck_in(dir.path(), &["parse", "mlnx_qos", "qos.txt"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(json["trust"], "dscp");
    assert_eq!(json["pfc_enabled"], serde_json::json!([3]));
    assert_eq!(json["dscp_to_priority"]["26"], 3);
}

#[test]
fn parse_of_garbage_exits_2_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("x.txt"), "this is not ibstat\n").unwrap();
    let run = fabcheck_in(dir.path(), &["parse", "ibstat", "x.txt"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("x.txt") && run.stderr.contains("ibstat"), "{}", run.stderr);
}

#[test]
fn parse_rejects_an_unknown_source() {
    let run = fabcheck(&["parse", "bogus", "-"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("mlnx_qos"), "the error lists the sources: {}", run.stderr);
}

#[test]
fn local_audit_runs_the_collectors_on_this_machine() {
    // No SSH: the collectors run through `sh -c` here. What this machine lacks (an RDMA device,
    // or only its tools) the audit must say as findings, not fail.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    let run = fabcheck(&["audit", "--local", "--window", "0", "--out", out.to_str().unwrap()]);
    assert!(run.code == 0 || run.code == 1, "{}", run.stderr);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("findings.json")).unwrap()).unwrap();
    assert_eq!(json["summary"]["hosts"], 1);
    assert_eq!(json["devices"][0]["address"], "local");
    let name = json["devices"][0]["name"].as_str().unwrap();
    let commands: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("evidence").join(name).join("commands.json")).unwrap())
            .unwrap();
    let interrupts = commands.as_array().unwrap().iter().find(|c| c["key"] == "interrupts").unwrap();
    assert_eq!(interrupts["exit_status"], 0, "/proc/interrupts is readable on any Linux machine");
    let raw = std::fs::read_to_string(out.join("evidence").join(name).join("interrupts.txt")).unwrap();
    assert!(raw.contains("CPU0"), "{raw}");
    let codes: Vec<&str> = json["findings"].as_array().unwrap().iter().map(|f| f["code"].as_str().unwrap()).collect();
    let rdma_devices = std::fs::read_dir("/sys/class/infiniband").map(|d| d.count()).unwrap_or(0);
    if rdma_devices == 0 {
        // Issue 37: a machine with no RDMA device gets one finding that says so, with the sysfs
        // read that shows it, and nothing per RDMA tool it lacks.
        assert_eq!(codes, ["collect.no_rdma_ports"], "{json:#}");
        assert_eq!(json["findings"][0]["evidence"][0], format!("{name}/port_rate.txt"));
    } else if !Path::new("/usr/bin/ibdev2netdev").exists() && !Path::new("/usr/sbin/ibdev2netdev").exists() {
        let missing: Vec<_> =
            json["findings"].as_array().unwrap().iter().filter(|f| f["code"] == "collect.tool_missing").collect();
        assert!(missing.iter().any(|f| f["message"].as_str().unwrap().contains("ibdev2netdev")), "{json:#}");
    }
}

/// `fabcheck flows` on real captures: one record per flow, in the documented schema; a file
/// that is no capture is named and the others are still analysed.
#[test]
fn flows_from_real_captures_with_one_unreadable_file() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/flows/tests/fixtures/pcap");
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.pcap");
    std::fs::write(&junk, "not a capture").unwrap();
    let records = dir.path().join("flows.jsonl");
    let run = fabcheck(&[
        "flows",
        fixtures.join("cx-mlx5-rc-send-write-ack-dscp26-ect0-magnate3.pcap").to_str().unwrap(),
        junk.to_str().unwrap(),
        "--records",
        records.to_str().unwrap(),
    ]);
    // The capture's data from .47 is off the lossless DSCP: an error under the built-in policy.
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stdout.contains("error     flow.dscp_mismatch   flow 172.17.242.47:50939"), "{}", run.stdout);
    assert!(run.stderr.contains("junk.pcap") && run.stderr.contains("not a pcap or pcapng capture"), "{}", run.stderr);
    let lines: Vec<serde_json::Value> =
        std::fs::read_to_string(&records).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    // RDMA-CM on QP1 both ways, and the RC pair both ways.
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert!(lines.iter().all(|r| r["schema"] == "rdma-flow-record/1"));
    let rc: Vec<&serde_json::Value> = lines.iter().filter(|r| r["transport"] == "RC").collect();
    assert_eq!(rc.len(), 2);
    // The pair's directions are linked and the one from .56 is marked DSCP 26, the other 0.
    let from_56 = rc.iter().find(|r| r["src_ip"] == "172.17.242.56").unwrap();
    assert_eq!(
        (from_56["dscp"].clone(), from_56["reverse_dscp"].clone()),
        (serde_json::json!([26]), serde_json::json!([0]))
    );
    assert_eq!(from_56["naks_psn_seq"], 0);
    assert!(run.stdout.contains("flow (src:port → dst qp)"), "the table: {}", run.stdout);
}

/// `fabcheck inventory --list` on an example inventory: Ansible's listing JSON on stdout, and
/// one warning per `ansible_*` variable fabcheck does not use, with how many hosts set it.
#[test]
fn inventory_list_prints_the_listing_and_warns_of_unused_ansible_vars() {
    let inventory = concat!(env!("CARGO_MANIFEST_DIR"), "/inventories/fabric/hosts.ini");
    let run = fabcheck(&["inventory", "--list", "-i", inventory, "--limit", "leaf"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(json["leaf"]["hosts"], serde_json::json!(["leaf1", "leaf2"]));
    assert_eq!(json["_meta"]["hostvars"]["leaf2"]["fabcheck_platform"], "eos");
    let warnings: Vec<&str> = run.stderr.lines().filter(|l| l.starts_with("fabcheck: warning:")).collect();
    assert_eq!(warnings.len(), 2, "{}", run.stderr);
    assert!(warnings[0].contains("ansible_connection (on 2 hosts) is not used"), "{}", warnings[0]);
    assert!(warnings[1].contains("ansible_network_os (on 2 hosts)"), "{}", warnings[1]);
}

/// A duration too long for any clock, on the command line or in a playbook, is exit 2 with a
/// message (it once panicked in `Duration::from_secs_f64`).
#[test]
fn a_duration_that_overflows_exits_2_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    let run = fabcheck(&["audit", "--local", "--window", "99999999999999999999", "--out", out.to_str().unwrap()]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("`99999999999999999999` is longer than fabcheck allows"), "{}", run.stderr);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    let playbook = dir.path().join("p.yaml");
    std::fs::write(&playbook, "name: p\naudit:\n  window: 99999999999999999999m\n").unwrap();
    let inventory = dir.path().join("inv.ini");
    std::fs::write(&inventory, "gpu01 ansible_host=127.0.0.1\n").unwrap();
    let run = fabcheck(&[
        "run",
        playbook.to_str().unwrap(),
        "-i",
        inventory.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("p.yaml: audit.window: `99999999999999999999m` is longer"), "{}", run.stderr);
}

/// A policy that sets no rule warns that nothing will be checked (an empty file, or one with a
/// name alone), and the run goes on.
#[test]
fn an_empty_policy_warns_that_nothing_will_be_checked() {
    let dir = tempfile::tempdir().unwrap();
    for (file, text) in [("empty.yaml", ""), ("named.yaml", "name: nothing-yet\n")] {
        let policy = dir.path().join(file);
        std::fs::write(&policy, text).unwrap();
        let out = dir.path().join(file).with_extension("out");
        let run = fabcheck(&[
            "audit",
            "--local",
            "--window",
            "0",
            "--policy",
            policy.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(run.code == 0 || run.code == 1, "{file}: {}", run.stderr);
        assert!(run.stderr.contains(&format!("{file}: the policy sets no rule")), "{file}: {}", run.stderr);
    }
}

/// The fan-out recipes in deploy/ are what docs/flows-and-runs.md says: the Slurm script is valid bash that runs
/// `audit --local` on every node and merges the snapshots; the Kubernetes Jobs parse as YAML,
/// run unprivileged with no capability in the node's network namespace, and merge the same way.
#[test]
fn the_fan_out_recipes_run_local_audits_and_merge_their_snapshots() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy");
    let sbatch = root.join("slurm/fabcheck-audit.sbatch");
    let syntax = std::process::Command::new("bash").arg("-n").arg(&sbatch).output().unwrap();
    assert!(syntax.status.success(), "{}", String::from_utf8_lossy(&syntax.stderr));
    let script = std::fs::read_to_string(&sbatch).unwrap();
    assert!(script.contains("srun --nodes=\"$SLURM_JOB_NUM_NODES\" --ntasks-per-node=1"));
    // Issue 39: each node named as Slurm names it, and the merge expecting every node of the job.
    assert!(script.contains("fabcheck audit --local --local-name \"$SLURMD_NODENAME\""));
    assert!(script.contains("fabcheck audit --snapshot \"${snapshots[@]}\" --expect-nodes \"$SLURM_JOB_NODELIST\""));

    let read = |file: &str| -> serde_json::Value {
        let text = std::fs::read_to_string(root.join("k8s").join(file)).unwrap();
        serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{file}: {e}"))
    };
    let nodes = read("fabcheck-nodes.yaml");
    let pod = &nodes["spec"]["template"]["spec"];
    assert_eq!(pod["hostNetwork"], true);
    let container = &pod["containers"][0];
    assert_eq!(container["securityContext"]["privileged"], false);
    assert_eq!(container["securityContext"]["capabilities"]["drop"][0], "ALL");
    assert!(container["securityContext"]["capabilities"].get("add").is_none(), "no capability added");
    assert!(container["args"][0].as_str().unwrap().contains("fabcheck audit --local --local-name \"$NODE_NAME\""));
    let merge = read("fabcheck-merge.yaml");
    let args = merge["spec"]["template"]["spec"]["containers"][0]["args"][0].as_str().unwrap();
    assert!(args.contains("fabcheck audit --snapshot \"$@\""), "{args}");
}

/// Issue 34: `--forks` past what a semaphore holds panicked (exit 101); it now means one device
/// each, as any count above the number of devices does. `--forks 0` (no device would ever
/// start; it was quietly taken as 1) and a zero limit (`--connect-timeout 0` failed every device
/// without trying it) are exit 2 naming the flag, while `--window 0` stays valid.
#[test]
fn r34_forks_and_limits_out_of_range_are_argument_errors_or_clamped() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    let out = out.to_str().unwrap();
    let run = fabcheck(&["audit", "--local", "--window", "0", "--forks", "18446744073709551615", "--out", out]);
    assert!(run.code == 0 || run.code == 1, "exit {}: {}", run.code, run.stderr);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    assert!(dir.path().join("o/findings.json").exists());

    let refused = |flag: &str, value: &str, says: &str| {
        let run = fabcheck(&["audit", "--local", "--window", "0", flag, value, "--out", out]);
        assert_eq!(run.code, 2, "{flag} {value}: {}", run.stderr);
        assert!(run.stderr.contains(&format!("'{flag} <")), "{flag} {value}: {}", run.stderr);
        assert!(run.stderr.contains(says), "{flag} {value}: {}", run.stderr);
    };
    refused("--forks", "0", "0 devices at a time would never start one: use 1 or more");
    refused("--forks", "many", "`many` is not a count of devices");
    for flag in ["--connect-timeout", "--command-timeout", "--device-timeout"] {
        refused(flag, "0", "`0` leaves no time at all: a limit must be above zero");
        refused(flag, "0ms", "`0ms` leaves no time at all");
    }
    let bench = fabcheck(&["bench", "nccl", "-i", "never-read.ini", "--timeout", "0", "--out", out]);
    assert_eq!(bench.code, 2, "{}", bench.stderr);
    assert!(bench.stderr.contains("'--timeout <DURATION>': `0` leaves no time at all"), "{}", bench.stderr);
}

/// `fabcheck --version` names the commit and the oldest glibc the binary runs on, and the binary
/// needs no newer `GLIBC_` symbol than it says.
#[test]
fn the_version_names_the_commit_and_a_glibc_baseline_the_binary_keeps() {
    let version = fabcheck(&["--version"]).stdout;
    assert!(version.starts_with(&format!("fabcheck {} (commit ", env!("CARGO_PKG_VERSION"))), "{version}");
    let Some(highest) = highest_glibc_symbol(Path::new(env!("CARGO_BIN_EXE_fabcheck"))) else { return };
    let baseline = glibc_baseline(&version);
    assert!(
        version_number(&highest) <= version_number(&baseline),
        "the binary needs GLIBC_{highest}, newer than --version's {baseline}"
    );
}

/// The binary to copy to GPU nodes, as `deploy/build-portable` builds it (zig linking against
/// glibc 2.28's symbol versions), needs no `GLIBC_` symbol above 2.28, so it starts on RHEL 8 and
/// Ubuntu 20.04; it says so in `--version`, and it runs. The build is the real one (the `dist`
/// profile, every default feature), niced so that the tests beside it keep their pace.
#[test]
fn the_portable_build_needs_no_glibc_newer_than_2_28() {
    if which("cargo-zigbuild").is_none() {
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "CI=true but cargo-zigbuild is missing: .ci/run must install it (pip install ziglang cargo-zigbuild)"
        );
        return;
    }
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("portable");
    let build = std::process::Command::new("nice")
        .args(["-n", "19"])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/build-portable"))
        .env("CARGO_TARGET_DIR", &target)
        .env_remove("FABCHECK_GLIBC")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&build.stderr);
    assert!(build.status.success(), "deploy/build-portable failed:\n{stderr}");
    let binary = String::from_utf8_lossy(&build.stdout).lines().last().unwrap_or_default().to_string();
    let binary = Path::new(&binary);
    assert!(binary.starts_with(&target) && binary.is_file(), "not the binary built: {binary:?}");

    let version = std::process::Command::new(binary).arg("--version").output().unwrap();
    let version = String::from_utf8_lossy(&version.stdout).to_string();
    assert!(version.contains("; Linux x86_64, glibc 2.28 or later)"), "{version}");
    let highest = highest_glibc_symbol(binary).expect("objdump is needed to read the symbols");
    assert!(version_number(&highest) <= version_number("2.28"), "the portable binary needs GLIBC_{highest}");

    // Started by an older glibc's own loader and libraries (Debian 11's 2.31, Ubuntu 20.04's),
    // the binary does its whole job: the demo's labs, SSH, audit, benchmark and reports.
    let Some(old) = std::env::var_os("FABCHECK_OLD_GLIBC") else {
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "CI=true but FABCHECK_OLD_GLIBC (an unpacked libc6 of Debian 11) is not set: .ci/run sets it"
        );
        return;
    };
    let libs = Path::new(&old).join("lib/x86_64-linux-gnu");
    // Before 2.34, glibc's libraries carry their version in their names (libc-2.31.so).
    let older = std::fs::read_dir(&libs).unwrap().flatten().any(|entry| {
        let name = entry.file_name().to_string_lossy().to_string();
        let version = name.strip_prefix("libc-").and_then(|n| n.strip_suffix(".so"));
        version.is_some_and(|v| version_number(v) < version_number("2.34"))
    });
    assert!(older, "{libs:?} holds no glibc older than 2.34");
    let under_old_glibc = |program: &Path| {
        let mut command = std::process::Command::new(libs.join("ld-linux-x86-64.so.2"));
        command.arg("--library-path").arg(&libs).arg(program);
        command
    };
    // The control: the plain build of this same tree is refused there.
    let plain = under_old_glibc(Path::new(env!("CARGO_BIN_EXE_fabcheck"))).arg("--version").output().unwrap();
    let refused = String::from_utf8_lossy(&plain.stderr);
    assert!(!plain.status.success() && refused.contains("version `GLIBC_2.34' not found"), "{refused}");
    let out = tempfile::tempdir().unwrap();
    let demo = under_old_glibc(binary).args(["demo", "--hosts", "4", "--out"]).arg(out.path()).output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&demo.stdout), String::from_utf8_lossy(&demo.stderr));
    assert!(demo.status.success(), "the demo on {old:?}'s glibc failed:\n{stdout}\n{stderr}");
    assert!(stdout.starts_with("verdict: FAIL ("), "{stdout}");
    assert!(out.path().join("findings.json").is_file(), "{stderr}");
}

/// The glibc version `--version` states.
fn glibc_baseline(version: &str) -> String {
    let baseline = version.split("glibc ").nth(1).and_then(|r| r.split_whitespace().next());
    baseline.unwrap_or_else(|| panic!("no glibc baseline in {version}")).to_string()
}

fn version_number(v: &str) -> Vec<u32> {
    v.split('.').map(|p| p.parse().unwrap()).collect()
}

/// The highest `GLIBC_` symbol version `binary` needs, read by `objdump -T` (binutils, which the
/// Rust toolchain's linker brings); `None` where objdump is missing, which CI=true refuses.
fn highest_glibc_symbol(binary: &Path) -> Option<String> {
    let Ok(symbols) = std::process::Command::new("objdump").arg("-T").arg(binary).output() else {
        assert_ne!(std::env::var("CI").as_deref(), Ok("true"), "CI=true but objdump is missing");
        return None;
    };
    let text = String::from_utf8_lossy(&symbols.stdout);
    let highest = text
        .split("GLIBC_")
        .skip(1)
        .filter_map(|rest| {
            let v: String = rest.chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
            (v.contains('.')).then_some(v)
        })
        .max_by_key(|v| version_number(v));
    Some(highest.unwrap_or_else(|| panic!("{binary:?} names no GLIBC_ symbol version: not a glibc binary?")))
}

/// `program`'s path on PATH.
fn which(program: &str) -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(program)).find(|p| p.is_file())
}
