//! The lab's `mpirun`/`srun` and nccl-tests: the format against the real samples line by line,
//! the bandwidth model, each fault, the launchers' errors, the timing, and a round trip through
//! fabcheck's nccl-tests parser.

use fabcheck_lab::build::healthy_host;
use fabcheck_lab::faults::{Fault, apply};
use fabcheck_lab::shell::{Output, exec};
use fabcheck_lab::state::LabHost;
use fabcheck_parse::nccl::nccl_tests::{NcclRun, parse};
use std::time::Duration;

const MOC_ALL_REDUCE: &str = include_str!(
    "../../parse/tests/fixtures/nccl_tests/moc-h100-roce-2node-1gpu-all_reduce_perf-nccl2.26-debug-info.log"
);
const MOC_SENDRECV: &str = include_str!(
    "../../parse/tests/fixtures/nccl_tests/moc-h100-roce-2node-1gpu-sendrecv_perf-nccl2.26-debug-info.log"
);
const GCP_16_RANKS: &str =
    include_str!("../../parse/tests/fixtures/nccl_tests/gcp-a3mega-h100-2node-16gpu-all_reduce_perf-tcpxo.txt");

/// The auditor's command for `hosts` hosts of 8 GPUs (what `fabcheck bench nccl` sends).
fn mpirun(hosts: usize, test: &str) -> String {
    let list: Vec<String> = (1..=hosts).map(|i| format!("gpu{i:03}:8")).collect();
    format!(
        "mpirun --allow-run-as-root -np {} -H {} --bind-to none --mca btl tcp,self --mca btl_tcp_if_include eth0 \
         -x NCCL_IB_HCA=mlx5_0,mlx5_1 -x NCCL_IB_GID_INDEX=3 -x NCCL_SOCKET_IFNAME=eth0 -x NCCL_DEBUG=INFO \
         -x NCCL_DEBUG_SUBSYS=INIT,NET {test} -b 8 -e 8G -f 2 -g 1 -n 20 -w 5 -c 1",
        hosts * 8,
        list.join(",")
    )
}

fn lab(hosts: usize, faults: &[&str]) -> Vec<LabHost> {
    let mut lab: Vec<LabHost> = (0..hosts).map(healthy_host).collect();
    for f in faults {
        let f: Fault = f.parse().unwrap();
        let host = lab.iter_mut().find(|h| h.name == f.host).unwrap();
        apply(host, &f).unwrap();
    }
    lab
}

fn run(lab: &[LabHost], command: &str) -> Output {
    exec(lab, 0, command, Duration::from_secs(42))
}

fn parsed(out: &Output) -> NcclRun {
    let p = parse(&out.stdout).unwrap_or_else(|e| panic!("{e:?}\n{}", out.stdout));
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    p.value
}

/// The table rows (lines starting with a size).
fn rows(stdout: &str) -> Vec<&str> {
    stdout.lines().filter(|l| l.starts_with("  ") && l.trim_start().starts_with(|c: char| c.is_ascii_digit())).collect()
}

/// Busbw (out-of-place, in-place) of the row for `size`.
fn busbw(stdout: &str, size: u64) -> (f64, f64) {
    let row = rows(stdout)
        .into_iter()
        .find(|r| r.split_whitespace().next() == Some(&size.to_string()))
        .unwrap_or_else(|| panic!("no row {size}"));
    let f: Vec<&str> = row.split_whitespace().collect();
    (f[7].parse().unwrap(), f[11].parse().unwrap())
}

/// Where each whitespace-separated field of a line ends: the column layout.
fn field_ends(line: &str) -> Vec<usize> {
    let mut ends = Vec::new();
    let b = line.as_bytes();
    for i in 0..b.len() {
        if b[i] != b' ' && (i + 1 == b.len() || b[i + 1] == b' ') {
            ends.push(i + 1);
        }
    }
    ends
}

fn sample_line<'a>(sample: &'a str, starts: &str) -> &'a str {
    sample.lines().find(|l| l.starts_with(starts)).unwrap()
}

const LARGE: u64 = 8 << 30;

#[test]
fn a_healthy_two_host_run_matches_the_real_format() {
    let lab = lab(2, &[]);
    let out = run(&lab, &mpirun(2, "all_reduce_perf"));
    assert_eq!((out.status, out.stderr.as_str(), out.hangs), (0, "", false));
    let lines: Vec<&str> = out.stdout.lines().collect();
    // Header: as nccl-tests prints it (moc sample), one rank line per GPU.
    assert_eq!(
        lines[0],
        "# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0"
    );
    assert_eq!(sample_line(GCP_16_RANKS, "# nThread"), lines[0]);
    assert_eq!(&lines[1..3], ["#", "# Using devices"]);
    for (r, line) in lines[3..19].iter().enumerate() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let (host, dev) = (format!("gpu{:03}", r / 8 + 1), r % 8);
        let pid: u32 = f[6].parse().unwrap();
        assert_eq!(
            *line,
            format!(
                "#  Rank {r:2} Group  0 Pid {pid:6} on {host:>10} device {dev:2} [0000:{}:00] NVIDIA H100 80GB HBM3",
                f[11].trim_start_matches("[0000:").trim_end_matches(":00]")
            )
        );
    }
    // The same layout as the real rank lines (host names of 10 characters or fewer align).
    let gcp_rank = sample_line(GCP_16_RANKS, "#  Rank  0");
    assert_eq!(field_ends(gcp_rank)[..7], field_ends(lines[3])[..7]);
    // The table header, byte for byte.
    let header_at = lines.iter().position(|l| l.contains("out-of-place")).unwrap();
    let moc: Vec<&str> = MOC_ALL_REDUCE.lines().collect();
    let moc_at = moc.iter().position(|l| l.contains("out-of-place")).unwrap();
    assert_eq!(lines[header_at - 1..header_at + 3], moc[moc_at - 1..moc_at + 3]);
    // Every row in the real column layout, 8 B to 8 GB.
    let rows = rows(&out.stdout);
    assert_eq!(rows.len(), 31);
    let moc_row = sample_line(MOC_ALL_REDUCE, "  1073741824");
    let gcp_small = sample_line(GCP_16_RANKS, "           8");
    let gcp_mid = sample_line(GCP_16_RANKS, "     1048576");
    for row in &rows {
        let ends = field_ends(row);
        assert!(ends == field_ends(moc_row) || ends == field_ends(gcp_small) || ends == field_ends(gcp_mid), "{row}");
    }
    assert_eq!(rows[0].split_whitespace().collect::<Vec<_>>()[..5], ["8", "2", "float", "sum", "-1"]);
    // The footer, as the moc sample ends.
    assert!(out.stdout.ends_with(" \n#\n\n"));
    assert!(MOC_ALL_REDUCE.ends_with(" \n#\n\n"));
    let footer: Vec<&str> = lines[lines.len() - 4..].to_vec();
    assert_eq!(footer[0], "# Out of bounds values : 0 OK");
    assert_eq!(footer[2..], ["#", ""]);
    assert!(footer[1].starts_with("# Avg bus bandwidth    : "));
    // Every other line is NCCL's, prefixed `host:pid:tid [dev] NCCL INFO`.
    for line in &lines[19..lines.len() - 1] {
        let ok =
            line.starts_with('#') || rows.contains(line) || (line.starts_with("gpu00") && line.contains(" NCCL INFO "));
        assert!(ok, "{line}");
    }
    // The NCCL lines the real log has.
    for want in [
        "gpu001:",
        "[0] NCCL INFO Bootstrap: Using eth0:10.0.0.1<0>",
        "[0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [RO]; OOB eth0:10.0.0.1<0>",
        "[0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [RO]; OOB eth0:10.0.0.2<0>",
        "[0] NCCL INFO Using network IB",
        "NCCL INFO NCCL version 2.26.2+cuda12.4",
        "NCCL INFO NCCL_IB_HCA set to mlx5_0,mlx5_1",
        "NCCL INFO NCCL_IB_GID_INDEX set by environment to 3.",
        "nRanks 16 nNodes 2 localRanks 8 localRank 0 MNNVL 0",
        "[0] NCCL INFO Channel 00/04 : 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15",
        "[0] NCCL INFO Channel 00/0 : 7[7] -> 8[0] [receive] via NET/IB/0/GDRDMA",
        "[7] NCCL INFO Channel 00/0 : 7[7] -> 8[0] [send] via NET/IB/0/GDRDMA",
        "NCCL INFO Connected all rings, use ring PXN 0 GDR 1",
        "rank 15 nranks 16 cudaDev 7 nvmlDev 7 busId db000 commId 0x",
        "- Init COMPLETE",
        "- Destroy COMPLETE",
    ] {
        assert!(out.stdout.contains(want), "missing {want}");
    }
    // Not 16 × 200 lines: the real log's shape, a subset.
    assert!(lines.len() < 200, "{} lines", lines.len());

    // Two 400G rails: 92 GB/s at large sizes; the average is the mean of every busbw.
    let (oop, ip) = busbw(&out.stdout, LARGE);
    assert!((91.0..=92.5).contains(&oop) && (91.0..=92.5).contains(&ip), "{oop} {ip}");
    let all: Vec<f64> = rows
        .iter()
        .flat_map(|r| {
            let f: Vec<&str> = r.split_whitespace().collect();
            [f[7].parse::<f64>().unwrap(), f[11].parse().unwrap()]
        })
        .collect();
    let mean = all.iter().sum::<f64>() / all.len() as f64;
    let avg: f64 = footer[1].trim_start_matches("# Avg bus bandwidth    : ").trim().parse().unwrap();
    assert!((avg - mean).abs() < 0.01, "{avg} vs {mean}");

    // Round trip through fabcheck's parser.
    let p = parsed(&out);
    assert_eq!(p.ranks.len(), 16);
    assert_eq!(p.rows.len(), 31);
    assert_eq!(p.transport.as_deref(), Some("RoCE"));
    assert_eq!(p.network.as_deref(), Some("IB"));
    assert_eq!(p.hcas, ["mlx5_0:1", "mlx5_1:1"]);
    assert_eq!(p.gdr, Some(true));
    assert_eq!(p.wrong, Some(0));
    assert_eq!(p.avg_busbw_gbs, Some(avg));
    assert_eq!(p.nccl_version.as_deref(), Some("2.26.2+cuda12.4"));
    assert_eq!(p.env.get("NCCL_IB_GID_INDEX").map(String::as_str), Some("3"));
    assert_eq!(p.hosts.len(), 2);
    assert!(p.hosts.values().all(|h| !h.socket && h.hcas == ["mlx5_0:1", "mlx5_1:1"]));
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    let last = p.rows.last().unwrap();
    assert_eq!(last.size_bytes, LARGE);
    assert_eq!(last.out_of_place.busbw_gbs, Some(oop));
}

#[test]
fn four_hosts_and_srun() {
    let lab = lab(4, &[]);
    let out = run(&lab, &mpirun(4, "all_reduce_perf"));
    assert_eq!(out.status, 0, "{}", out.stderr);
    let p = parsed(&out);
    assert_eq!((p.ranks.len(), p.rows.len(), p.hosts.len()), (32, 31, 4));
    assert!(out.stdout.contains("nRanks 32 nNodes 4 localRanks 8"));
    assert!(out.stdout.contains("Channel 00/0 : 31[7] -> 0[0] [receive] via NET/IB/0/GDRDMA"));
    let (oop, _) = busbw(&out.stdout, LARGE);
    assert!((91.0..=92.5).contains(&oop), "{oop}");

    let out = run(
        &lab,
        "srun -N 2 -w gpu003,gpu004 --ntasks-per-node=8 --gpus-per-node=8 \
         --export=ALL,NCCL_IB_HCA=mlx5_0,mlx5_1,NCCL_DEBUG=INFO /opt/nccl-tests/build/all_reduce_perf -b 8 -e 8G -f 2 -g 1 -c 1",
    );
    assert_eq!(out.status, 0, "{}", out.stderr);
    let p = parsed(&out);
    assert_eq!(p.ranks[0].host, "gpu003");
    assert_eq!(p.ranks[15].host, "gpu004");
    assert_eq!(p.hcas, ["mlx5_0:1", "mlx5_1:1"]);
    // Without NCCL_SOCKET_IFNAME NCCL bootstraps on IPoIB (`ib*` first).
    assert!(out.stdout.contains("OOB ib0:10.200.0.3<0>"), "{}", out.stdout);
    let out = run(&lab, "srun -N2 -n 4 -w gpu[001-002] all_gather_perf -b 1M -e 1M");
    let p = parsed(&out);
    assert_eq!(p.ranks.len(), 4);
    assert!(!out.stdout.contains("NCCL INFO"), "no NCCL_DEBUG, no NCCL lines");
}

#[test]
fn every_test_binary() {
    let lab = lab(2, &[]);
    let mut large = Vec::new();
    for (test, redop, root) in [
        ("all_reduce_perf", "sum", "-1"),
        ("all_gather_perf", "none", "-1"),
        ("alltoall_perf", "none", "-1"),
        ("sendrecv_perf", "sum", "-1"),
        ("reduce_scatter_perf", "sum", "-1"),
        ("broadcast_perf", "none", "0"),
    ] {
        let out = run(&lab, &mpirun(2, test));
        assert_eq!(out.status, 0, "{test}: {}", out.stderr);
        let p = parsed(&out);
        assert_eq!(p.rows.len(), 31, "{test}");
        let row = p.rows.last().unwrap();
        assert_eq!((row.redop.as_deref(), row.root), (Some(redop), root.parse().ok()), "{test}");
        let p2p = matches!(test, "sendrecv_perf" | "alltoall_perf");
        assert_eq!(row.in_place.as_ref().unwrap().wrong.is_none(), p2p, "{test}");
        if p2p {
            assert!(out.stdout.contains("Channel 00/1 : 7[7] -> 8[0] [receive] via NET/IB/0/GDRDMA/Shared"), "{test}");
            assert!(!out.stdout.contains("Connected all rings"));
        }
        large.push((test, row.out_of_place.busbw_gbs.unwrap()));
    }
    // all_gather's per-rank count: 8 GB over 16 ranks of floats; small sizes round to 0.
    let out = run(&lab, &mpirun(2, "all_gather_perf"));
    assert!(rows(&out.stdout)[0].starts_with("           0             0     float    none      -1"));
    assert!(out.stdout.contains("  8589934592     134217728     float    none      -1"));
    // sendrecv's inter-node pairs go through one NIC each; alltoall's traffic mostly crosses.
    let gbs = |t: &str| large.iter().find(|(n, _)| *n == t).unwrap().1;
    assert!((45.0..47.0).contains(&gbs("sendrecv_perf")), "{large:?}");
    assert!(gbs("alltoall_perf") < 20.0, "{large:?}");
    assert!((91.0..93.0).contains(&gbs("broadcast_perf")), "{large:?}");
    // The real sendrecv log's in-place column is N/A too.
    assert!(sample_line(MOC_SENDRECV, "  1073741824").ends_with("N/A"));
}

/// busbw at 8 GB of a 2-host run with these faults on gpu002, and the output.
fn faulted(faults: &[&str]) -> (f64, Output) {
    let lab = lab(2, faults);
    let out = run(&lab, &mpirun(2, "all_reduce_perf"));
    assert_eq!(out.status, 0, "{faults:?}: {}", out.stderr);
    (busbw(&out.stdout, LARGE).0, out)
}

#[test]
fn a_half_speed_link_slows_the_run() {
    let (gbs, out) = faulted(&["gpu002=link-degraded@mlx5_1"]);
    assert!((68.0..70.0).contains(&gbs), "{gbs}: (400+200)/8 × 0.92 = 69");
    let p = parsed(&out);
    assert_eq!(p.transport.as_deref(), Some("RoCE"));
}

#[test]
fn pfc_off_with_out_of_buffer_loses_and_jitters() {
    let (gbs, out) = faulted(&["gpu002=pfc-off", "gpu002=out-of-buffer"]);
    assert!((92.0 * 0.5..92.0 * 0.7).contains(&gbs), "{gbs}");
    let large: Vec<f64> =
        rows(&out.stdout)[24..].iter().map(|r| r.split_whitespace().nth(7).unwrap().parse().unwrap()).collect();
    let (lo, hi) = large.iter().fold((f64::MAX, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
    assert!(hi / lo > 1.04, "jittery: {large:?}");
    // PFC off alone, or out_of_buffer alone, loses nothing here.
    assert!(faulted(&["gpu002=pfc-off"]).0 > 91.0);
    assert!(faulted(&["gpu002=out-of-buffer"]).0 > 91.0);
    // And the host's counters keep growing, as the auditor reads them around the run.
    let lab = lab(2, &["gpu002=pfc-off", "gpu002=out-of-buffer"]);
    let read = |t| {
        let out =
            exec(&lab, 1, "cat /sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_buffer", Duration::from_secs(t));
        out.stdout.trim().parse::<u64>().unwrap()
    };
    assert!(read(20) > read(10));
}

#[test]
fn no_peermem_no_gdrdma() {
    let (gbs, out) = faulted(&["gpu002=peermem-missing"]);
    assert!((63.0..66.0).contains(&gbs), "{gbs}: 92 × 0.7");
    let gpu002: Vec<&str> = out.stdout.lines().filter(|l| l.starts_with("gpu002:")).collect();
    assert!(gpu002.iter().any(|l| l.contains("[send] via NET/IB/0") && !l.contains("GDRDMA")));
    assert!(gpu002.iter().any(|l| l.ends_with("use ring PXN 0 GDR 0")));
    assert!(!gpu002.iter().any(|l| l.contains("nvidia-peermem")));
    assert!(out.stdout.contains("gpu001:") && out.stdout.contains("GDR 1"));
    assert_eq!(parsed(&out).gdr, Some(false));
}

#[test]
fn no_libibverbs_falls_back_to_sockets() {
    let (gbs, out) = faulted(&["gpu002=nccl-socket"]);
    assert!((2.0..3.0).contains(&gbs), "{gbs}");
    let warn = out.stdout.lines().find(|l| l.contains("NCCL WARN")).unwrap();
    assert!(
        warn.starts_with("gpu002:")
            && warn.ends_with("] misc/ibvsymbols.cc:47 NCCL WARN Failed to open libibverbs.so[.1]"),
        "{warn}"
    );
    assert!(out.stdout.contains("\n\ngpu002:"), "WARN lines start with an empty line");
    assert!(out.stdout.contains("[0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.2<0>"));
    assert!(out.stdout.contains("NCCL INFO Using network Socket"));
    assert!(out.stdout.contains("[receive] via NET/Socket/0"));
    let p = parse(&out.stdout).unwrap().value;
    assert!(p.hosts["gpu002"].socket && !p.hosts["gpu001"].socket);
    assert!(p.errors.iter().any(|e| e.message.contains("libibverbs")));
    // A wrong NCCL_IB_HCA everywhere: NET/IB finds nothing, sockets again.
    let lab = lab(2, &[]);
    let out = run(&lab, &mpirun(2, "all_reduce_perf").replace("mlx5_0,mlx5_1", "mlx5_7"));
    assert!(out.stdout.contains("NCCL INFO NET/IB : No device found."));
    assert_eq!(parsed(&out).transport.as_deref(), Some("Socket"));
}

#[test]
fn renumbered_hcas_catch_the_infiniband_port() {
    let (gbs, out) = faulted(&["gpu002=hca-renamed"]);
    assert!((45.0..47.0).contains(&gbs), "{gbs}: one usable rail");
    assert!(out.stdout.contains("NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB eth0:10.0.0.2<0>"));
    let p = parsed(&out);
    assert_eq!(p.hosts["gpu002"].hcas, ["mlx5_0:1", "mlx5_1:1"]);
    // Every command on that host agrees.
    let lab = lab(2, &["gpu002=hca-renamed"]);
    assert_eq!(
        exec(&lab, 1, "ibdev2netdev", Duration::ZERO).stdout,
        "mlx5_0 port 1 ==> ib0 (Up)\nmlx5_1 port 1 ==> ens1np0 (Up)\nmlx5_2 port 1 ==> ens2np0 (Up)\n"
    );
}

#[test]
fn a_stuck_rank_hangs_the_job_after_init() {
    let (lab, cmd) = (lab(2, &["gpu002=nccl-hang"]), mpirun(2, "all_reduce_perf"));
    let out = run(&lab, &cmd);
    assert!(out.hangs);
    assert!(out.stdout.contains("- Init COMPLETE"));
    assert!(out.stdout.contains("#       size         count"));
    assert!(rows(&out.stdout).is_empty());
    assert!(!out.stdout.contains("Avg bus bandwidth"));
    assert!(out.duration() < Duration::from_secs(1));
}

#[test]
fn launch_errors_in_open_mpis_words() {
    let lab = lab(2, &[]);
    let out = run(&lab, &mpirun(2, "all_reduce_perf").replace("gpu002:8", "gpu009:8"));
    assert_eq!(out.status, 255);
    assert!(out.stderr.starts_with("ssh: Could not resolve hostname gpu009: Name or service not known\n-----"));
    assert!(out.stderr.contains("ORTE was unable to reliably start one or more daemons."));
    let out = run(&lab, &mpirun(2, "all_reduce_perf").replace("all_reduce_perf", "all_reduce"));
    assert_eq!(out.status, 134);
    assert!(
        out.stderr.contains(
            "mpirun was unable to find the specified executable file, and therefore\ndid not launch the job."
        )
    );
    assert!(out.stderr.ends_with("16 total processes failed to start\n"));
    let out = run(&lab, &mpirun(2, "/tmp/all_reduce_perf"));
    assert!(out.stderr.contains("mpirun was unable to launch the specified application as it could not access\nor execute an executable:\n\nExecutable: /tmp/all_reduce_perf\nNode: gpu001\n"));
    assert_eq!(run(&lab, &mpirun(2, "/opt/nccl-tests/build/all_reduce_perf")).status, 0);
    let out = run(&lab, "mpirun -np 17 -H gpu001:8,gpu002:8 all_reduce_perf");
    assert_eq!(out.status, 1);
    assert!(out.stderr.contains("There are not enough slots available in the system to satisfy the 17\nslots"));
    let out = run(&lab, "mpirun --frobnicate -np 2 all_reduce_perf");
    assert_eq!(
        (out.status, out.stderr.as_str()),
        (1, "mpirun: Error: unknown option \"--frobnicate\"\nType 'mpirun --help' for usage.\n")
    );
    let out = run(&lab, "srun -N 2 -w gpu001,gpu077 all_reduce_perf");
    assert_eq!(
        (out.status, out.stderr.as_str()),
        (1, "srun: error: Unable to allocate resources: Invalid node name specified\n")
    );
    let out = run(&lab, "srun -N 2 --ntasks-per-node=8 nosuch_perf");
    assert_eq!(out.status, 2);
    assert!(out.stderr.ends_with("srun: error: gpu001: tasks 0-7: Exited with exit code 2\nsrun: error: gpu002: tasks 8-15: Exited with exit code 2\n"));
    // More ranks than GPUs: CUDA fails in the rank, mpirun reports it.
    let out = run(&lab, "mpirun -np 18 -H gpu001:9,gpu002:9 all_reduce_perf");
    assert_eq!(out.status, 2);
    assert!(out.stdout.contains("gpu001: Test CUDA failure common.cu:892 'invalid device ordinal'"));
    assert!(out.stderr.contains("Process name: [["));
    assert!(out.stderr.contains("],8]\n  Exit code:    2\n"));
    // No socket interface of that name: NCCL cannot bootstrap.
    let out = run(&lab, &mpirun(2, "all_reduce_perf").replace("NCCL_SOCKET_IFNAME=eth0", "NCCL_SOCKET_IFNAME==eth9"));
    assert_eq!(out.status, 3);
    assert!(out.stdout.contains("NCCL WARN Bootstrap : no socket interface found"));
    let p = parse(&out.stdout).unwrap().value;
    assert!(!p.errors.is_empty());
    let out = run(&lab, "mpirun -np 2 -H gpu001,gpu002 hostname");
    assert_eq!((out.status, out.stdout.as_str()), (0, "gpu001\ngpu002\n"));
    // A host whose sshd hangs: mpirun never returns.
    let hung = lab_with(&["gpu002=command-hang"]);
    assert!(run(&hung, &mpirun(2, "all_reduce_perf")).hangs);
}

fn lab_with(faults: &[&str]) -> Vec<LabHost> {
    lab(2, faults)
}

#[test]
fn the_environment_reaches_ranks_as_mpirun_passes_it() {
    let lab = lab(2, &[]);
    // mpirun's own environment reaches the local ranks only; `-x NAME` exports it to all.
    let out = run(&lab, "NCCL_DEBUG=INFO mpirun -np 2 -H gpu001,gpu002 all_reduce_perf -b 1M -e 1M");
    assert!(out.stdout.contains("gpu001:") && !out.stdout.contains("gpu002:"));
    let out = run(&lab, "NCCL_DEBUG=INFO mpirun -np 2 -H gpu001,gpu002 -x NCCL_DEBUG all_reduce_perf -b 1M -e 1M");
    assert!(out.stdout.contains("gpu002:"));
    assert!(out.stdout.contains("nRanks 2 nNodes 2 localRanks 1 localRank 0"));
    let out = run(&lab, "mpirun -np 2 -H gpu001,gpu002 -x NCCL_DEBUG=WARN all_reduce_perf -b 1M -e 1M");
    assert!(out.stdout.contains("\nNCCL version 2.26.2+cuda12.4\n"));
    assert!(!out.stdout.contains("NCCL INFO"));
}

#[test]
fn runs_take_proportional_time() {
    let lab2 = lab(2, &[]);
    let out = run(&lab2, &mpirun(2, "all_reduce_perf"));
    let d = out.duration();
    assert!((Duration::from_millis(600)..Duration::from_millis(1500)).contains(&d), "{d:?}");
    let mut last = (Duration::ZERO, 0);
    for m in &out.marks {
        assert!(m.at >= last.0 && m.stdout >= last.1);
        assert!(out.stdout.is_char_boundary(m.stdout));
        last = (m.at, m.stdout);
    }
    assert_eq!(last.1, out.stdout.len());
    // The last row appears well after the first.
    let at = |needle: &str| {
        let pos = out.stdout.find(needle).unwrap();
        out.marks.iter().find(|m| m.stdout > pos).unwrap().at
    };
    assert!(at("  8589934592") > at("           8 ") + Duration::from_millis(200));
    // A small sweep is quick; a crawling one is capped.
    let quick = run(&lab2, &mpirun(2, "all_reduce_perf").replace("-e 8G", "-e 1M"));
    assert!(quick.duration() < Duration::from_millis(300), "{:?}", quick.duration());
    let (_, slow) = faulted(&["gpu002=nccl-socket"]);
    assert!(slow.duration() <= Duration::from_secs(3) && slow.duration() > Duration::from_secs(2));
    // Instant commands stay instant.
    assert!(run(&lab2, "hostname").marks.is_empty());
}

#[test]
fn coll_logging_cuts_every_row_into_pieces_and_the_parser_puts_them_back() {
    let lab = lab(2, &[]);
    let plain = run(&lab, &mpirun(2, "all_reduce_perf"));
    let command = mpirun(2, "all_reduce_perf").replace("NCCL_DEBUG_SUBSYS=INIT,NET", "NCCL_DEBUG_SUBSYS=INIT,NET,COLL");
    let out = run(&lab, &command);
    assert_eq!((out.status, out.hangs), (0, false));
    // As in the real trace log: each row's parameters, then its out-of-place results, glued to
    // the launch line that follows them.
    let lines: Vec<&str> = out.stdout.lines().collect();
    let params = lines.iter().filter(|l| l.contains("float     sum      -1gpu001:")).count();
    let results = lines.iter().filter(|l| l.contains("      0gpu001:") && !l.contains("float")).count();
    assert_eq!((params, results), (31, 31));
    let first = lines.iter().find(|l| l.contains("-1gpu001:")).unwrap();
    assert!(first.starts_with("           8             2     float     sum      -1gpu001:"), "{first}");
    assert!(first.contains(" [0] NCCL INFO AllReduce: opCount 0 sendbuff 0x720000000 recvbuff 0x920000000 count 2 datatype 7 op 0 root 0 comm 0x"), "{first}");
    assert!(first.contains("[nranks=16] stream 0x"), "{first}");
    // The parser reads the same rows as without the launch lines, and no host `-1gpu001`.
    let (cut, whole) = (parsed(&out), parsed(&plain));
    assert_eq!(cut.rows, whole.rows);
    assert_eq!(cut.hosts.keys().collect::<Vec<_>>(), ["gpu001", "gpu002"]);
    // NCCL's default subsystems leave COLL out.
    assert!(!plain.stdout.contains("opCount"));
}

#[test]
fn tests_built_without_mpi_run_every_process_alone() {
    // nccl-tests#281: under mpirun, each process of a binary built without MPI is rank 0 of a
    // run of its own, on its host's GPU 0.
    let lab = lab(2, &["gpu002=nccl-no-mpi"]);
    let out = run(&lab, &mpirun(2, "all_reduce_perf"));
    assert_eq!((out.status, out.hangs), (0, false));
    let ranks: Vec<&str> = out.stdout.lines().filter(|l| l.starts_with("#  Rank")).collect();
    assert_eq!(ranks.len(), 16);
    assert!(ranks.iter().all(|l| l.starts_with("#  Rank  0 Group  0 Pid") && l.contains(" device  0 [")), "{ranks:?}");
    let pids: std::collections::BTreeSet<&str> = ranks.iter().map(|l| l.split_whitespace().nth(6).unwrap()).collect();
    assert_eq!(pids.len(), 16, "every process its own pid: {ranks:?}");
    assert_eq!(out.stdout.matches("# Avg bus bandwidth").count(), 16);
    // One rank alone moves nothing between GPUs: all_reduce's bus bandwidth is 0; out of place
    // it copies within its GPU's memory, in place it has nothing to do (as the published
    // one-GPU run: 0.10 µs, an algbw of millions of GB/s).
    let row = rows(&out.stdout).into_iter().find(|r| r.trim_start().starts_with("8589934592")).unwrap();
    let f: Vec<&str> = row.split_whitespace().collect();
    assert_eq!((f[7], f[11]), ("0.00", "0.00"), "{row}");
    let copy: f64 = f[6].parse().unwrap();
    assert!((1300.0..1500.0).contains(&copy), "{row}");
    let in_place: f64 = f[9].parse().unwrap();
    let in_place_algbw: f64 = f[10].parse().unwrap();
    assert!((0.09..0.11).contains(&in_place) && in_place_algbw > 1e7, "{row}");
    let parsed = parse(&out.stdout).unwrap();
    assert_eq!(parsed.value.ranks.len(), 16);
    assert!(parsed.value.ranks.iter().all(|r| r.rank == 0));
    assert!(parsed.warnings.iter().any(|w| w.message.starts_with("rank 0 is listed again")), "{:?}", parsed.warnings);
    // Without the fault on either host, one MPI run of 16 ranks.
    let healthy =
        run(&lab[..1].iter().chain([&healthy_host(1)]).cloned().collect::<Vec<_>>(), &mpirun(2, "all_reduce_perf"));
    assert_eq!(parsed_ranks(&healthy), (0..16).collect::<Vec<u32>>());
}

fn parsed_ranks(out: &Output) -> Vec<u32> {
    parsed(out).ranks.iter().map(|r| r.rank).collect()
}

/// The messages of NCCL's INFO lines in `text` (after `NCCL INFO `).
fn info_messages(text: &str) -> Vec<&str> {
    text.lines().filter_map(|l| l.split_once(" NCCL INFO ").map(|(_, m)| m)).collect()
}

/// A message's kind: its first two words, digits as `N` (`Ring NN`, `NET/IB :`).
fn kind(message: &str) -> String {
    let words: Vec<&str> = message.split_whitespace().take(2).collect();
    words.join(" ").chars().map(|c| if c.is_ascii_digit() { 'N' } else { c }).collect()
}

const NCCL_2_4_LOGS: [&str; 4] = [
    include_str!(
        "../../parse/tests/fixtures/nccl_tests/issue-horovod-1523-nccl2.4.7-socket-list-before-net-ib-no-using-network-PARTIAL.log"
    ),
    include_str!(
        "../../parse/tests/fixtures/nccl_tests/issue-nccl-224-2.4.2-roce-socket-list-flannel-excerpt1-PARTIAL.log"
    ),
    include_str!(
        "../../parse/tests/fixtures/nccl_tests/issue-nccl-224-2.4.2-roce-socket-list-flannel-excerpt2-PARTIAL.log"
    ),
    include_str!(
        "../../parse/tests/fixtures/nccl_tests/issue-nccl-224-2.4.2-roce-socket-list-flannel-excerpt3-PARTIAL.log"
    ),
];

/// `nccl-2.4` hosts print NCCL 2.4's lines, each of a kind the published 2.4 logs show and in
/// their wording, and none of 2.26's; the table, the bandwidth and what the parser reads of the
/// network are those of the same lab on 2.26.
#[test]
fn nccl_2_4_hosts_print_the_published_2_4_lines() {
    let lab = lab(2, &["gpu001=nccl-2.4", "gpu002=nccl-2.4"]);
    let out = run(&lab, &mpirun(2, "all_reduce_perf"));
    assert_eq!((out.status, out.stderr.as_str(), out.hangs), (0, "", false));
    let real: std::collections::BTreeSet<String> =
        NCCL_2_4_LOGS.iter().flat_map(|log| info_messages(log)).map(kind).collect();
    let mine = info_messages(&out.stdout);
    for m in &mine {
        assert!(real.contains(&kind(m)), "no published 2.4 log has a line like {m}");
    }
    let real_messages: Vec<&str> = NCCL_2_4_LOGS.iter().flat_map(|log| info_messages(log)).collect();
    assert!(real_messages.contains(&"NET/Plugin : No plugin found (libnccl-net.so)."));
    for want in [
        "gpu001:",
        "[0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n",
        "[0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so).\n",
        "[0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE ; OOB eth0:10.0.0.1<0>\n",
        "[7] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE ; OOB eth0:10.0.0.2<0>\n",
        "\nNCCL version 2.4.7+cuda10.0\n",
        "[0] NCCL INFO Ring 00 : 15 -> 0 [receive] via NET/IB/0/GDRDMA\n",
        "[7] NCCL INFO Ring 00 : 7 -> 8 [send] via NET/IB/0/GDRDMA\n",
        "[3] NCCL INFO Ring 01 : 3 -> 12 [send] via NET/IB/1/GDRDMA\n",
        "[0] NCCL INFO Ring 00 : 0[0] -> 1[1] via P2P/IPC\n",
    ] {
        assert!(out.stdout.contains(want), "missing {want}");
    }
    // Every process lists its interfaces and its devices; rank 0 alone prints the version.
    let count = |m: &str| mine.iter().filter(|x| x.starts_with(m)).count();
    assert_eq!((count("NET/Socket : Using"), count("NET/Plugin :"), count("NET/IB : Using")), (16, 16, 16));
    assert_eq!(out.stdout.matches("NCCL version").count(), 1);
    for gone in [
        "Using network",
        "Bootstrap",
        "MNNVL",
        "P2P Chunksize",
        "threadThresholds",
        "CC Off",
        "TUNER/Plugin",
        "PROFILER/Plugin",
        "Init ",
        "Channel ",
        "cudaDriverVersion",
        "Connected all rings",
        "Destroy COMPLETE",
        "[RO]",
        "NCCL_IB_HCA",
        "NCCL_IB_GID_INDEX",
        "NCCL_SOCKET_IFNAME",
    ] {
        assert!(!out.stdout.contains(gone), "NCCL 2.4 prints no {gone}");
    }
    // The rings are connected at init: before the table header.
    let header = out.stdout.find("#       size").unwrap();
    assert!(out.stdout.rfind(" Ring ").unwrap() < header);
    let (oop, _) = busbw(&out.stdout, LARGE);
    assert!((91.0..=92.5).contains(&oop), "{oop}");
    let p = parsed(&out);
    let healthy = parsed(&run(&lab_with(&[]), &mpirun(2, "all_reduce_perf")));
    assert_eq!((p.transport.as_deref(), p.network.as_deref(), p.gdr), (Some("RoCE"), Some("IB"), Some(true)));
    assert_eq!(p.hcas, healthy.hcas);
    assert_eq!(p.nccl_version.as_deref(), Some("2.4.7+cuda10.0"));
    assert_eq!(p.rows.len(), 31);
    for (host, net) in &p.hosts {
        assert!(
            !net.socket && net.hcas == ["mlx5_0:1", "mlx5_1:1"] && net.socket_interfaces == ["eth0"],
            "{host}: {net:?}"
        );
        assert_eq!(net.gpus_by_device, healthy.hosts[host].gpus_by_device, "{host}");
        assert_eq!(net.gdr_receive, Some(true), "{host}");
    }
    // NCCL_IB_DISABLE, the one variable a published 2.4 log shows, in its words.
    let out = run(
        &lab,
        &mpirun(2, "all_reduce_perf").replace("-x NCCL_DEBUG=INFO", "-x NCCL_IB_DISABLE=0 -x NCCL_DEBUG=INFO"),
    );
    assert!(out.stdout.contains("[0] NCCL INFO NCCL_IB_DISABLE set by environment to 0.\n"));
    assert!(real_messages.contains(&"NCCL_IB_DISABLE set by environment to 0."));
    // One process driving 8 GPUs: its network lines once, no hop between its own GPUs.
    let out = run(&lab, "mpirun -np 2 -H gpu001:1,gpu002:1 -x NCCL_DEBUG=INFO all_reduce_perf -b 1M -e 1M -g 8");
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert_eq!(info_messages(&out.stdout).iter().filter(|m| m.starts_with("NET/IB : Using")).count(), 2);
    assert!(!out.stdout.contains("P2P/IPC") && out.stdout.contains("[send] via NET/IB/"));
}

/// An `nccl-2.4` host without libibverbs: no NET/IB line, its rings over NET/Socket, and the
/// parser names it (and it alone) a socket host.
#[test]
fn an_nccl_2_4_host_without_libibverbs_rings_over_sockets() {
    let lab = lab(2, &["gpu001=nccl-2.4", "gpu002=nccl-2.4", "gpu002=nccl-socket"]);
    let out = run(&lab, &mpirun(2, "all_reduce_perf"));
    assert_eq!(out.status, 0);
    let gpu002: Vec<&str> = out.stdout.lines().filter(|l| l.starts_with("gpu002:")).collect();
    assert!(!gpu002.iter().any(|l| l.contains("NET/IB")), "{gpu002:?}");
    assert!(gpu002.iter().any(|l| l.ends_with("NCCL INFO Ring 00 : 7 -> 8 [receive] via NET/Socket/0")), "{gpu002:?}");
    let (oop, _) = busbw(&out.stdout, LARGE);
    assert!(oop < 3.0, "{oop}");
    let p = parsed(&out);
    assert!(p.hosts["gpu002"].socket && !p.hosts["gpu001"].socket, "{:?}", p.hosts);
}

/// `NCCL_SOCKET_IFNAME=lo`: NCCL takes the loopback (every host has it; the default list leaves
/// it out), which is fine within one host; across hosts the other host's ranks cannot reach the
/// root at 127.0.0.1, and fail after NCCL's retries, every rank's init printed first.
#[test]
fn the_loopback_as_socket_interface_cannot_bootstrap_across_hosts() {
    let lab = lab(2, &[]);
    let lo = mpirun(2, "all_reduce_perf").replace("NCCL_SOCKET_IFNAME=eth0", "NCCL_SOCKET_IFNAME=lo");
    let out = run(&lab, &lo);
    assert_eq!(out.status, 3, "{}", out.stderr);
    for host in ["gpu001", "gpu002"] {
        let of_host = |end: &str| out.stdout.lines().any(|l| l.starts_with(host) && l.ends_with(end));
        assert!(of_host("[0] NCCL INFO Bootstrap: Using lo:127.0.0.1<0>"), "{host}");
        assert!(
            of_host("[0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [RO]; OOB lo:127.0.0.1<0>"),
            "{host}"
        );
    }
    let warns: Vec<&str> = out.stdout.lines().filter(|l| l.contains("NCCL WARN")).collect();
    assert_eq!(warns.len(), 8, "each of gpu002's processes: {warns:?}");
    assert!(warns.iter().all(|w| w.starts_with("gpu002:") && w.ends_with("] misc/socket.cc:544 NCCL WARN socketStartConnect: connect returned Connection refused, exceeded error retry count (35)")), "{warns:?}");
    assert!(out.stdout.contains("gpu002: Test NCCL failure common.cu:1035 'remote process exited or there was a network error / socketStartConnect: connect returned Connection refused, exceeded error retry count (35)'\n .. gpu002 pid "));
    assert!(out.stdout.rfind("Init START").unwrap() < out.stdout.find("NCCL WARN").unwrap());
    assert!(!out.stdout.contains("#       size"), "no table");
    assert!(out.stderr.contains("],8]\n  Exit code:    3\n"), "{}", out.stderr);
    assert!(out.duration() >= Duration::from_secs(2), "NCCL retries for about a minute: {:?}", out.duration());
    // With IB off (NVIDIA/nccl#1053's settings), NCCL's socket transport lists the loopback.
    let out = run(&lab, &lo.replace("-x NCCL_DEBUG=INFO", "-x NCCL_IB_DISABLE=1 -x NCCL_DEBUG=INFO"));
    assert_eq!(out.status, 3);
    assert!(out.stdout.contains("[0] NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0>\n"));
    assert!(out.stdout.contains("[0] NCCL INFO Using network Socket\n"));
    let p = parse(&out.stdout).unwrap().value;
    assert!(p.hosts.values().all(|h| h.socket_interfaces == ["lo"]), "{:?}", p.hosts);
    // The root's host on its routed interface, the other on lo (mpirun's own environment reaches
    // its host's ranks only): the root cannot reach back.
    let from_gpu002 =
        "NCCL_SOCKET_IFNAME=lo mpirun -np 16 -H gpu001:8,gpu002:8 -x NCCL_DEBUG=INFO all_reduce_perf -b 1M -e 1M";
    let out = exec(&lab, 1, from_gpu002, Duration::from_secs(42));
    assert_eq!(out.status, 3);
    assert!(out.stdout.contains("gpu001:") && out.stdout.contains("[0] NCCL INFO Bootstrap: Using ib0:"));
    let warns: Vec<&str> = out.stdout.lines().filter(|l| l.contains("NCCL WARN")).collect();
    assert_eq!(warns.len(), 1, "{warns:?}");
    assert!(warns[0].starts_with("gpu001:") && warns[0].contains(" [0] misc/socket.cc:544 NCCL WARN"), "{warns:?}");
    // One host alone bootstraps over its loopback.
    let out =
        run(&lab, "mpirun -np 8 -H gpu001:8 -x NCCL_SOCKET_IFNAME=lo -x NCCL_DEBUG=INFO all_reduce_perf -b 1M -e 1M");
    assert_eq!(out.status, 0, "{}", out.stdout);
    assert!(out.stdout.contains("Bootstrap: Using lo:127.0.0.1<0>") && !out.stdout.contains("NCCL WARN"));
    // NCCL 2.4 lists the loopback for its sockets and its OOB alike.
    let old = lab_with(&["gpu001=nccl-2.4", "gpu002=nccl-2.4"]);
    let out = run(&old, &lo);
    assert_eq!(out.status, 3);
    assert!(out.stdout.contains("[0] NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0>\n"));
    assert!(out.stdout.contains(" ; OOB lo:127.0.0.1<0>\n"));
}
