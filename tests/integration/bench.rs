//! `fabcheck bench nccl` against the lab: simulated mpirun and nccl-tests over the lab's SSH,
//! bus bandwidth derived from the lab's links and faults.

use crate::util::{Run, RunningLab, fabcheck, key, start_lab};
use std::collections::BTreeSet;

fn bench(lab: &RunningLab, extra: &[&str]) -> Run {
    let out = lab.dir.path().join(format!("bench-{}", extra.join("_").replace(['/', ' ', '='], "-")));
    let ssh_config = lab.dir.path().join("empty_ssh_config");
    std::fs::write(&ssh_config, "").unwrap();
    let mut args = vec![
        "bench".to_string(),
        "nccl".into(),
        "-i".into(),
        lab.lab.inventory_path().display().to_string(),
        "--known-hosts".into(),
        lab.lab.known_hosts_path().display().to_string(),
        "--ssh-config".into(),
        ssh_config.display().to_string(),
        "--out".into(),
        out.display().to_string(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut run = fabcheck(&argv);
    run.out = out;
    run
}

/// Findings of the benchmark (`nccl.*`) and counters, above info.
fn nccl_keys(run: &Run) -> BTreeSet<(String, String, Option<String>)> {
    run.keys().into_iter().filter(|(code, ..)| code.starts_with("nccl.")).collect()
}

#[test]
fn a_healthy_lab_reaches_its_bandwidth_over_roce_with_gpudirect() {
    let lab = start_lab(4, &[]);
    let run = bench(&lab, &[]);
    assert_eq!(run.keys(), BTreeSet::new(), "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.code, 0);
    let json = run.json();
    let b = &json["benchmarks"][0];
    assert_eq!(b["label"], "all hosts");
    assert_eq!(b["test"], "all_reduce_perf");
    assert_eq!(b["transport"], "RoCE");
    assert_eq!(b["gdr"], true);
    assert_eq!(b["hcas"], serde_json::json!(["mlx5_0:1", "mlx5_1:1"]));
    let command = b["command"].as_str().unwrap();
    assert!(
        command.starts_with("mpirun --allow-run-as-root -np 32 -H gpu001:8,gpu002:8,gpu003:8,gpu004:8"),
        "{command}"
    );
    assert!(
        command.contains("-x NCCL_IB_HCA==mlx5_0,mlx5_1") && command.contains("-x NCCL_IB_GID_INDEX=3"),
        "{command}"
    );
    let peak = b["peak_busbw_gbs"].as_f64().unwrap();
    assert!((80.0..100.0).contains(&peak), "two 400G rails: {peak}");
    // The run over all hosts, then each host alone (intra-node, over NVLink).
    assert_eq!(run.out.join("evidence/_bench").read_dir().unwrap().count(), 5);
    let alone: Vec<&serde_json::Value> =
        json["benchmarks"].as_array().unwrap().iter().filter(|b| b["hosts"].as_array().unwrap().len() == 1).collect();
    assert_eq!(alone.len(), 4);
    for b in alone {
        assert!(b["label"].as_str().unwrap().starts_with("intra-node: gpu00"), "{b}");
        let peak = b["peak_busbw_gbs"].as_f64().unwrap();
        assert!((300.0..400.0).contains(&peak), "NVLink between the GPUs of one host: {peak}");
        assert_eq!(b["expected_min_gbs"].as_f64(), Some(225.0), "NV18's reference: {b}");
    }
    assert!(std::fs::read_to_string(run.out.join("report.html")).unwrap().contains("<svg"), "the busbw chart");
}

#[test]
fn pairwise_isolation_names_the_degraded_host_and_only_it() {
    let lab = start_lab(8, &["gpu005=link-degraded"]);
    let run = bench(&lab, &["--pairwise"]);
    let keys = nccl_keys(&run);
    assert_eq!(keys, BTreeSet::from([key("nccl.straggler", "gpu005", None)]), "{}\n{}", run.stdout, run.stderr);
    let labels: Vec<String> =
        run.json()["benchmarks"].as_array().unwrap().iter().map(|b| b["label"].as_str().unwrap().to_string()).collect();
    assert_eq!(labels.iter().filter(|l| l.ends_with("(round 1)")).count(), 4, "{labels:?}");
    assert_eq!(labels.iter().filter(|l| l.starts_with("intra-node: ")).count(), 8, "{labels:?}");
    assert!(
        labels.iter().all(|l| l.ends_with("(round 1)") || l.ends_with("(round 2)") || l.starts_with("intra-node: ")),
        "at most two rounds: {labels:?}"
    );
    assert_eq!(run.code, 1);
}

#[test]
fn socket_fallback_is_the_wrong_transport() {
    let lab = start_lab(2, &["gpu002=nccl-socket"]);
    let run = bench(&lab, &[]);
    let wrong: Vec<_> = nccl_keys(&run).into_iter().filter(|(code, ..)| code == "nccl.wrong_transport").collect();
    assert_eq!(
        wrong,
        [key("nccl.wrong_transport", "gpu002", None)],
        "the host that fell back is named: {:?}\n{}",
        run.keys(),
        run.stderr
    );
}

/// nccl-tests built without MPI (nccl-tests#281): under mpirun or srun every process runs alone
/// as rank 0 and no byte crosses the network, whatever bandwidth each one prints.
#[test]
fn tests_built_without_mpi_are_critical() {
    let lab = start_lab(2, &["gpu002=nccl-no-mpi"]);
    for launcher in ["mpirun", "srun"] {
        let run = bench(&lab, &["--launcher", launcher, "--no-intra-node"]);
        let found = run.findings();
        let f = found
            .iter()
            .find(|f| f.code == "nccl.not_mpi")
            .unwrap_or_else(|| panic!("{launcher}: {:?}\n{}", run.keys(), run.stderr));
        assert_eq!((f.device.as_str(), f.severity.as_str()), ("gpu001", "critical"), "{launcher}");
        assert!(
            f.message.contains("16 processes on gpu001, gpu002 each ran alone (1 distinct rank numbers)"),
            "{}",
            f.message
        );
        // The bandwidth each lone process printed (0 GB/s bus bandwidth) is laid to it.
        let low = found.iter().find(|f| f.code == "nccl.busbw_low").expect("busbw_low");
        assert_eq!(low.caused_by, ["nccl.not_mpi"], "{launcher}");
        assert_eq!(run.code, 1, "{launcher}: {}", run.stderr);
    }
}

#[test]
fn gpudirect_off_is_reported_by_the_benchmark_and_the_audit() {
    let lab = start_lab(2, &["gpu002=peermem-missing"]);
    let run = bench(&lab, &[]);
    let keys = run.keys();
    assert!(keys.contains(&key("nccl.gdr_disabled", "gpu002", None)), "put on the host without peermem: {keys:?}");
    assert!(keys.contains(&key("host.gdr_disabled", "gpu002", None)), "{keys:?}");
}

#[test]
fn renamed_hcas_make_nccl_use_the_wrong_one() {
    let lab = start_lab(2, &["gpu002=hca-renamed"]);
    let run = bench(&lab, &[]);
    let wrong: Vec<_> = nccl_keys(&run).into_iter().filter(|(code, ..)| code == "nccl.wrong_hca").collect();
    assert_eq!(wrong, [key("nccl.wrong_hca", "gpu002", None)], "{:?}\n{}", run.keys(), run.stderr);
}

/// A host whose PCIe topology NCCL cannot see sends every channel through its first NIC.
#[test]
fn gpus_funnelled_through_one_nic_are_named_with_the_idle_one() {
    let lab = start_lab(2, &["gpu002=nic-shared"]);
    let run = bench(&lab, &[]);
    let shared: Vec<_> = run.findings().into_iter().filter(|f| f.code == "nccl.nic_shared").collect();
    assert_eq!(shared.len(), 1, "{:?}\n{}", run.keys(), run.stdout);
    assert_eq!(shared[0].device, "gpu002");
    assert!(shared[0].actual.ends_with("idle: mlx5_1"), "{}", shared[0].actual);
    assert!(shared[0].message.contains("no GPU next to"), "the topology says why: {}", shared[0].message);
    let low: Vec<_> = run.findings().into_iter().filter(|f| f.code == "nccl.busbw_low").collect();
    assert_eq!(low.len(), 1, "one rail of two: {:?}", run.keys());
    assert!(low[0].caused_by.contains(&"nccl.nic_shared".to_string()), "{:?}", low[0]);
    assert!(low[0].message.ends_with("the network side"), "fast alone: {}", low[0].message);
}

/// A host slow alone is the compute side; the slow run over all hosts says so.
#[test]
fn a_host_slow_alone_is_the_compute_side() {
    let lab = start_lab(4, &["gpu003=nvlink-down"]);
    let run = bench(&lab, &[]);
    assert_eq!(
        nccl_keys(&run),
        BTreeSet::from([key("nccl.intra_node_slow", "gpu003", None), key("nccl.busbw_low", "gpu001", None)]),
        "{}",
        run.stdout
    );
    let findings = run.findings();
    let slow = findings.iter().find(|f| f.code == "nccl.intra_node_slow").unwrap();
    assert!(slow.message.contains("without NVLink"), "its topology is named: {}", slow.message);
    let low = findings.iter().find(|f| f.code == "nccl.busbw_low").unwrap();
    assert!(low.message.contains("gpu003 slow alone too"), "{}", low.message);
    assert!(low.caused_by.contains(&"nccl.intra_node_slow".to_string()), "{:?}", low.caused_by);
    // Without the runs alone, nothing says which side.
    let run = bench(&lab, &["--no-intra-node"]);
    assert_eq!(nccl_keys(&run), BTreeSet::from([key("nccl.busbw_low", "gpu001", None)]), "{}", run.stdout);
}

#[test]
fn a_hang_times_out_into_nccl_failed_with_its_last_lines() {
    let lab = start_lab(2, &["gpu001=nccl-hang"]);
    let run = bench(&lab, &["--timeout", "2s"]);
    let failed: Vec<_> = run.findings().into_iter().filter(|f| f.code == "nccl.failed").collect();
    // The run over both hosts, and gpu001's run alone: each hangs and is cut.
    let labels: Vec<&str> = failed.iter().filter_map(|f| f.message.split(':').next()).collect();
    assert_eq!(labels, ["all hosts", "intra-node"], "{:?}", run.keys());
    assert!(failed[0].message.contains("timed out"), "{}", failed[0].message);
    assert!(failed[0].message.contains("NCCL INFO"), "the last lines are quoted: {}", failed[0].message);
}

#[test]
fn lost_bandwidth_with_out_of_buffer_growing_is_one_correlated_finding() {
    let lab = start_lab(2, &["gpu002=pfc-off", "gpu002=out-of-buffer"]);
    let run = bench(&lab, &[]);
    let low: Vec<_> = run.findings().into_iter().filter(|f| f.code == "nccl.busbw_low").collect();
    assert_eq!(low.len(), 1, "{:?}\n{}", run.keys(), run.stderr);
    assert!(low[0].caused_by.contains(&"counter.out_of_buffer".to_string()), "{:?}", low[0]);
    assert!(low[0].message.contains("out_of_buffer on gpu002 ens1np0"), "{}", low[0].message);
}

#[test]
fn a_baseline_is_saved_and_a_drop_beyond_the_tolerance_is_flagged() {
    let healthy = start_lab(2, &[]);
    let good = bench(&healthy, &[]);
    assert_eq!(good.code, 0, "{}", good.stderr);
    let baseline = healthy.dir.path().join("baseline.json");
    let saved =
        fabcheck(&["baseline", "save", "--from", good.out.to_str().unwrap(), "--to", baseline.to_str().unwrap()]);
    assert_eq!(saved.code, 0, "{}", saved.stderr);
    assert!(saved.stdout.contains("saved all_reduce_perf on 2 hosts"), "{}", saved.stdout);

    let degraded = start_lab(2, &["gpu002=link-degraded"]);
    let slow = bench(&degraded, &["--baseline", baseline.to_str().unwrap()]);
    let low: Vec<_> = slow.findings().into_iter().filter(|f| f.code == "nccl.busbw_low").collect();
    assert_eq!(low.len(), 1, "{:?}", slow.keys());
    assert!(low[0].message.contains("baseline"), "{}", low[0].message);
    let compared = fabcheck(&[
        "baseline",
        "compare",
        "--baseline",
        baseline.to_str().unwrap(),
        "--from",
        slow.out.to_str().unwrap(),
    ]);
    assert_eq!(compared.code, 1, "{}", compared.stdout);
    assert!(compared.stdout.contains("DROP"), "{}", compared.stdout);
}

#[test]
fn bisection_narrows_a_slow_run_down_to_the_slow_host() {
    let lab = start_lab(4, &["gpu003=link-degraded"]);
    let run = bench(&lab, &["--bisect"]);
    let stragglers: BTreeSet<_> = nccl_keys(&run).into_iter().filter(|(code, ..)| code == "nccl.straggler").collect();
    assert_eq!(stragglers, BTreeSet::from([key("nccl.straggler", "gpu003", None)]), "{:?}\n{}", run.keys(), run.stderr);
    let labels: Vec<String> =
        run.json()["benchmarks"].as_array().unwrap().iter().map(|b| b["label"].as_str().unwrap().to_string()).collect();
    assert_eq!(labels[0], "all hosts");
    assert!(labels.iter().any(|l| l.contains("bisection 1")), "{labels:?}");
}

#[test]
fn srun_launches_the_same_benchmark() {
    let lab = start_lab(2, &[]);
    let run = bench(&lab, &["--launcher", "srun"]);
    assert_eq!(run.keys(), BTreeSet::new(), "{}\n{}", run.stdout, run.stderr);
    let command = run.json()["benchmarks"][0]["command"].as_str().unwrap().to_string();
    assert!(command.starts_with("srun -N 2 -w gpu001,gpu002 --ntasks-per-node=8"), "{command}");
}

#[test]
fn the_policy_and_the_command_line_override_the_derived_nccl_variables() {
    let lab = start_lab(2, &[]);
    let policy = lab.dir.path().join("policy.yaml");
    let text = format!(
        "{}nccl_env: {{ NCCL_IB_QPS_PER_CONNECTION: \"4\", NCCL_IB_GID_INDEX: \"5\" }}\n",
        fabcheck::policy::DEFAULT_POLICY
    );
    std::fs::write(&policy, text).unwrap();
    let run = bench(&lab, &["--policy", policy.to_str().unwrap(), "--env", "NCCL_IB_GID_INDEX=3"]);
    let command = run.json()["benchmarks"][0]["command"].as_str().unwrap().to_string();
    assert!(command.contains("-x NCCL_IB_QPS_PER_CONNECTION=4"), "from the policy: {command}");
    assert!(
        command.contains("-x NCCL_IB_GID_INDEX=3") && !command.contains("NCCL_IB_GID_INDEX=5"),
        "the command line wins: {command}"
    );
}

/// A live run's saved output, judged again offline with `bench judge -i` (the hosts audited
/// again for their facts), gives the live run's benchmark findings.
#[test]
fn a_saved_log_is_judged_as_the_live_run_was() {
    let lab = start_lab(4, &["gpu002=nccl-socket", "gpu003=peermem-missing"]);
    let live = bench(&lab, &[]);
    let saved = live.out.join("evidence/_bench/all_reduce_perf.all_hosts.txt");
    assert!(saved.exists(), "{}", live.stdout);
    let out = lab.dir.path().join("judged");
    let ssh_config = lab.dir.path().join("empty_ssh_config");
    let inventory = lab.lab.inventory_path().display().to_string();
    let known_hosts = lab.lab.known_hosts_path().display().to_string();
    let mut judged = fabcheck(&[
        "bench",
        "judge",
        saved.to_str().unwrap(),
        "-i",
        &inventory,
        "--known-hosts",
        &known_hosts,
        "--ssh-config",
        ssh_config.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    judged.out = out;
    assert_eq!(judged.code, live.code, "{}{}", judged.stdout, judged.stderr);
    assert!(!nccl_keys(&live).is_empty());
    assert_eq!(nccl_keys(&judged), nccl_keys(&live), "{}", judged.stdout);
    assert_eq!(judged.json()["benchmarks"][0]["label"], "log all_reduce_perf.all_hosts.txt");
}

/// Logs from elsewhere, judged without an audit: each on its own, one unreadable file named and
/// the others still judged. vLLM's log ends on NCCL's bootstrap warning (`Message truncated`)
/// with no result table: a run that did not finish, not a pass.
#[test]
fn saved_logs_from_elsewhere_are_judged_one_by_one() {
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/parse/tests/fixtures/nccl_tests");
    let out = tempfile::tempdir().unwrap();
    let mut run = fabcheck(&[
        "bench",
        "judge",
        fixtures.join("issue-vllm-16714-socket-virbr0-veth-no-libibverbs-PARTIAL.log").to_str().unwrap(),
        fixtures.join("issue-nccl-1405-ib-plugin-completion-ipv6-gids-PARTIAL.log").to_str().unwrap(),
        "/nonexistent/run.log",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    run.out = out.path().to_path_buf();
    assert_eq!(run.code, 1);
    let keys: BTreeSet<(String, String)> = run.keys().into_iter().map(|(code, device, _)| (code, device)).collect();
    assert_eq!(
        keys,
        BTreeSet::from([
            ("nccl.wrong_transport".to_string(), "ada6000-02".to_string()),
            ("nccl.socket_ifname_unrestricted".to_string(), "ada6000-02".to_string()),
            ("nccl.failed".to_string(), "ada6000-02".to_string()),
            ("nccl.failed".to_string(), "kp-ddp-worker-0".to_string()),
            ("nccl.failed".to_string(), "run.log".to_string()),
        ]),
        "{}",
        run.stdout
    );
    let vllm = run.findings().into_iter().find(|f| f.code == "nccl.failed" && f.device == "ada6000-02").unwrap();
    assert!(
        vllm.message.ends_with("NCCL's first error: ada6000-02: Message truncated : received 172 bytes instead of 64"),
        "{}",
        vllm.message
    );
    let gids = run.findings().into_iter().find(|f| f.device == "kp-ddp-worker-0").unwrap();
    assert!(gids.actual.contains("remote GID fd00:1148:9000:5000:4:200:3:ff1f"), "{}", gids.actual);
    assert_eq!(run.json()["benchmarks"].as_array().unwrap().len(), 3);
}

/// One port's RoCEv2 GID at another index: the benchmark never launches with an
/// NCCL_IB_GID_INDEX that is wrong there; NCCL finds each port's RoCEv2 GID, the run is clean,
/// and the audit names the odd port.
#[test]
fn a_gid_index_that_differs_between_hosts_is_not_forced_on_every_rank() {
    let lab = start_lab(4, &["gpu003=gid-index-shifted"]);
    let run = bench(&lab, &[]);
    let command = run.json()["benchmarks"][0]["command"].as_str().unwrap().to_string();
    assert!(!command.contains("NCCL_IB_GID_INDEX"), "{command}");
    assert_eq!(nccl_keys(&run), BTreeSet::new(), "{}", run.stdout);
    assert!(run.keys().contains(&key("nic.gid_index_inconsistent", "gpu003", Some("ens1np0"))), "{}", run.stdout);
}

/// `bench nccl --capture`: the hosts' ports are captured while the benchmark runs, and a host
/// whose port drops (PFC off, out_of_buffer growing) shows NAKs and retransmissions in its peers'
/// flows, joined with the counter and configuration findings that explain them.
#[test]
fn capture_during_the_benchmark_judges_the_flows() {
    let lab = start_lab(2, &["gpu002=pfc-off", "gpu002=out-of-buffer"]);
    let run = bench(&lab, &["--capture"]);
    let flows: BTreeSet<_> = run.keys().into_iter().filter(|(code, _, _)| code.starts_with("flow.")).collect();
    let want: BTreeSet<_> = ["gpu001", "gpu002"]
        .iter()
        .flat_map(|h| ["flow.nak_rate", "flow.retransmits"].map(|c| key(c, h, Some("ens1np0"))))
        .collect();
    assert_eq!(flows, want, "{}", run.stdout);
    let nak = run.findings().into_iter().find(|f| f.code == "flow.nak_rate" && f.device == "gpu001").unwrap();
    assert!(nak.caused_by.contains(&"counter.out_of_buffer".to_string()), "{nak:?}");
    assert!(run.out.join("flows.jsonl").exists());
    let evidence: Vec<_> =
        std::fs::read_dir(run.out.join("evidence/gpu001")).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(evidence.iter().any(|f| f.to_string_lossy().starts_with("capture.ens1np0")), "{evidence:?}");
}

/// Issue 34: a saved log of very many measurements (nccl-tests with a small `-i` step) drew a
/// dot per measurement, and its echoed command whole: a 94 MB log gave a 129 MB report.html.
/// The chart now draws each column's extremes and says how many measurements there are, the
/// command is cut, and the card links the saved log, which keeps everything.
#[test]
fn r34_a_huge_log_gives_a_bounded_report_that_points_at_the_log() {
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("crates/parse/tests/fixtures/nccl_tests/gcp-a3mega-h100-2node-16gpu-all_reduce_perf-tcpxo.txt");
    let text = std::fs::read_to_string(fixture).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // Its header (to the column titles), 50,000 rows a KiB apart, and its closing summary.
    let mut log =
        format!("$ mpirun -np 16 {}./build/all_reduce_perf -b 1K -e 50M -i 1024\n", "-x NCCL_DEBUG=INFO ".repeat(5000));
    for line in &lines[..23] {
        log.push_str(line);
        log.push('\n');
    }
    for i in 1..=50_000u64 {
        let busbw = (i as f64 / 200.0).min(300.0);
        log.push_str(&format!(
            "{:>12} {:>13}     float     sum      -1    135.8  {:6.2}  {busbw:6.2}      0    123.5  {:6.2}  {busbw:6.2}      0\n",
            i * 1024,
            i * 256,
            busbw / 2.0,
            busbw / 2.0
        ));
    }
    for line in &lines[54..] {
        log.push_str(line);
        log.push('\n');
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("sweep.log");
    std::fs::write(&file, &log).unwrap();
    let out = dir.path().join("o");
    let mut run = fabcheck(&["bench", "judge", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    run.out = out.clone();
    assert!(run.code == 0 || run.code == 1, "{}", run.stderr);
    assert_eq!(run.json()["benchmarks"][0]["rows"].as_array().unwrap().len(), 50_000, "findings.json keeps them all");
    assert_eq!(run.json()["benchmarks"][0]["output"], "_bench/sweep.log");
    assert_eq!(std::fs::read_to_string(out.join("evidence/_bench/sweep.log")).unwrap(), log);
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.len() < 256 * 1024, "report.html is {} bytes for a {} byte log", html.len(), log.len());
    assert!(html.contains("50000 measurements: the chart draws the lowest and highest of each of its columns"));
    assert!(html.contains(r#"<a href="evidence/_bench/sweep.log"><code>_bench/sweep.log</code></a>"#));
    let command = run.json()["benchmarks"][0]["command"].as_str().unwrap().to_string();
    assert!(command.len() > 90_000 && command.is_ascii(), "findings.json keeps the whole command");
    assert!(html.contains(&format!("<code>{}…</code>", &command[..1999])), "the command, cut at 2,000 characters");
}

/// Hosts whose nccl-tests run on NCCL 2.4 (`nccl-2.4`: its socket list before NET/IB, rings at
/// init, no `Using network` line) benchmark as the same lab on 2.26 does: no finding the healthy
/// lab does not give, the run's transport read from its NET/IB lines and rings.
#[test]
fn hosts_on_nccl_2_4_benchmark_as_healthy_hosts_do() {
    let healthy = start_lab(2, &[]);
    let base = bench(&healthy, &[]);
    let lab = start_lab(2, &["gpu001=nccl-2.4", "gpu002=nccl-2.4"]);
    let run = bench(&lab, &[]);
    let (keys, base_keys) = (nccl_keys(&run), nccl_keys(&base));
    assert!(keys.is_subset(&base_keys), "{keys:?} beyond {base_keys:?}\n{}", run.stdout);
    assert!(!keys.iter().any(|(code, ..)| code == "nccl.wrong_transport"), "{keys:?}");
    assert_eq!(run.code, base.code, "{}\n{}", run.stdout, run.stderr);
    let (json, base_json) = (run.json(), base.json());
    let (b, want) = (&json["benchmarks"][0], &base_json["benchmarks"][0]);
    assert_eq!(b["label"], "all hosts");
    assert_eq!((&b["transport"], &b["hcas"], &b["gdr"]), (&want["transport"], &want["hcas"], &want["gdr"]), "{b}");
    assert_eq!(b["transport"], "RoCE", "NET/IB over the RoCE rails: {b}");
    assert_eq!(b["ok"], true, "{b}");
    let peak = b["peak_busbw_gbs"].as_f64().unwrap();
    assert!((80.0..100.0).contains(&peak), "{peak}");
    // What was judged is NCCL 2.4's log.
    let saved = std::fs::read_to_string(run.out.join("evidence").join(b["output"].as_str().unwrap())).unwrap();
    assert!(saved.contains("\nNCCL version 2.4.7+cuda10.0\n") && saved.contains(" ; OOB eth0:"), "{saved}");
    assert!(saved.contains("[send] via NET/IB/0/GDRDMA") && !saved.contains("Using network"), "{saved}");
}

/// An NCCL 2.4 host without libibverbs rings over sockets: it is the one named.
#[test]
fn an_nccl_2_4_host_on_sockets_is_named_as_the_wrong_transport() {
    let lab = start_lab(2, &["gpu001=nccl-2.4", "gpu002=nccl-2.4", "gpu002=nccl-socket"]);
    let run = bench(&lab, &["--no-intra-node"]);
    let wrong: Vec<_> = nccl_keys(&run).into_iter().filter(|(code, ..)| code == "nccl.wrong_transport").collect();
    assert_eq!(wrong, [key("nccl.wrong_transport", "gpu002", None)], "{:?}\n{}", run.keys(), run.stdout);
}

/// `bench judge` on a saved log, without an audit.
fn judge_saved(lab: &RunningLab, saved: &std::path::Path, name: &str) -> Run {
    let out = lab.dir.path().join(name);
    let mut judged = fabcheck(&["bench", "judge", saved.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    judged.out = out;
    judged
}

/// The loopback as NCCL's socket interface (`--env NCCL_SOCKET_IFNAME=lo`): each host alone runs
/// over it, the run across hosts cannot bootstrap and is reported failed; its saved log, judged,
/// names the loopback on each host where NCCL listed it for its sockets (IB off, as in
/// NVIDIA/nccl#1053; or NCCL 2.4, which lists it whatever the network).
#[test]
fn the_loopback_as_socket_interface_fails_the_run_and_its_log_names_each_host() {
    let lab = start_lab(2, &[]);
    let run = bench(&lab, &["--env", "NCCL_SOCKET_IFNAME=lo", "--env", "NCCL_IB_DISABLE=1"]);
    let failed: Vec<_> = run.findings().into_iter().filter(|f| f.code == "nccl.failed").collect();
    assert_eq!(failed.len(), 1, "only the run across hosts: {:?}\n{}", run.keys(), run.stdout);
    assert_eq!(failed[0].device, "gpu001");
    assert!(
        failed[0].message.starts_with("all hosts: nccl-tests did not finish (exit status 3); last lines: "),
        "{}",
        failed[0].message
    );
    // mpirun's banner ends the output; NCCL's own warning says why the ranks stopped.
    assert!(
        failed[0]
            .message
            .contains("; NCCL's first error: gpu002: socketStartConnect: connect returned Connection refused"),
        "{}",
        failed[0].message
    );
    let both =
        BTreeSet::from([key("nccl.socket_loopback", "gpu001", None), key("nccl.socket_loopback", "gpu002", None)]);
    let loopback = |run: &Run| -> BTreeSet<_> {
        nccl_keys(run).into_iter().filter(|(code, ..)| code == "nccl.socket_loopback").collect()
    };
    assert_eq!(loopback(&run), both, "the failed run's log still names the cause: {:?}", run.keys());
    assert_eq!(run.code, 1);
    let json = run.json();
    let benchmarks = json["benchmarks"].as_array().unwrap();
    let ok: Vec<(&str, bool)> =
        benchmarks.iter().map(|b| (b["label"].as_str().unwrap(), b["ok"].as_bool().unwrap())).collect();
    assert_eq!(ok, [("all hosts", false), ("intra-node: gpu001", true), ("intra-node: gpu002", true)], "{json}");
    let saved = run.out.join("evidence/_bench/all_reduce_perf.all_hosts.txt");
    let text = std::fs::read_to_string(&saved).unwrap();
    for host in ["gpu001", "gpu002"] {
        let listed =
            text.lines().any(|l| l.starts_with(host) && l.ends_with("NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0>"));
        assert!(listed, "{host}: {text}");
    }
    assert!(text.contains("NCCL WARN socketStartConnect: connect returned Connection refused"), "{text}");
    let judged = judge_saved(&lab, &saved, "judged-lo");
    assert_eq!(loopback(&judged), both, "{:?}\n{}", judged.keys(), judged.stdout);
    // The saved log never reached its table: judged again, it is a failed run, not a pass.
    let failed: Vec<_> = judged.findings().into_iter().filter(|f| f.code == "nccl.failed").collect();
    assert_eq!(failed.len(), 1, "{:?}", judged.keys());
    assert!(failed[0].message.contains("no result table"), "{}", failed[0].message);
    assert_ne!(judged.code, 0, "{}", judged.stdout);
    // IB off, the data over sockets too: each host is the wrong transport as well.
    for host in ["gpu001", "gpu002"] {
        assert!(judged.keys().contains(&key("nccl.wrong_transport", host, None)), "{:?}", judged.keys());
    }
    // NCCL 2.4 with IB on: its socket list and its OOB take the loopback.
    let old = start_lab(2, &["gpu001=nccl-2.4", "gpu002=nccl-2.4"]);
    let run = bench(&old, &["--env", "NCCL_SOCKET_IFNAME=lo", "--no-intra-node"]);
    let mut expected = both.clone();
    expected.insert(key("nccl.failed", "gpu001", None));
    assert_eq!(nccl_keys(&run), expected, "{}", run.stdout);
    let saved = run.out.join("evidence/_bench/all_reduce_perf.all_hosts.txt");
    let text = std::fs::read_to_string(&saved).unwrap();
    assert!(
        text.contains("NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0>") && text.contains(" ; OOB lo:127.0.0.1<0>"),
        "{text}"
    );
    let judged = judge_saved(&old, &saved, "judged-lo-2.4");
    assert_eq!(loopback(&judged), both, "{:?}\n{}", judged.keys(), judged.stdout);
    // NCCL 2.26 with IB on prints no socket list: the loopback is named as its bootstrap
    // interface only (`Bootstrap: Using lo:...`, `OOB lo:...`), and that is enough.
    let run = bench(&lab, &["--env", "NCCL_SOCKET_IFNAME=lo", "--no-intra-node"]);
    assert_eq!(loopback(&run), both, "{:?}\n{}", run.keys(), run.stdout);
    let f = run.findings().into_iter().find(|f| f.code == "nccl.socket_loopback").unwrap();
    assert_eq!(f.actual, "lo (bootstrap)", "{f:?}");
}
