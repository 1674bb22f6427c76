//! Fixes: each host fault's cure, given to a lab host as an auditor's printed fix would be (through
//! `Lab::run_on`, the dispatch an SSH exec request runs), leaves the host reading exactly as a
//! healthy one does; a refused command and a read change nothing.
//!
//! gpu001 carries the fault and gpu002 is healthy: every read compared here is the same on two
//! healthy hosts (no MAC, GUID or counter in it), so "cured" is "reads as gpu002 does".

use fabcheck_lab::{Fabric, Lab, LabConfig, RunError};

/// A 2-host lab with these faults.
async fn lab(faults: &[&str]) -> (Lab, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let config = LabConfig {
        faults: faults.iter().map(|f| f.parse().unwrap()).collect(),
        ..LabConfig::hosts_only(2, dir.path().join("lab"))
    };
    (Lab::start(config).await.unwrap(), dir)
}

async fn run(lab: &Lab, device: &str, command: &str) -> (String, String, u32) {
    lab.run_on(device, command).await.unwrap()
}

/// The collector's read of a port's DCQCN tree (`src/platform/linux.rs`), under its `timeout`.
fn ecn_read(netdev: &str) -> String {
    let ecn = format!("/sys/class/net/{netdev}/ecn");
    format!(
        "timeout -k 2 30 grep -H -d skip '' {ecn}/roce_rp/enable/* {ecn}/roce_np/enable/* {ecn}/roce_rp/* {ecn}/roce_np/*"
    )
}

/// Starts a lab with `gpu001=FAULT`, checks that `read` shows the fault, runs each fix on gpu001
/// (each must succeed, with nothing on stderr and `fix_stdout` on stdout), then checks that `read`
/// on gpu001 now prints exactly what it prints on the healthy gpu002. Returns the lab, for more.
async fn cures(fault: &str, fixes: &[&str], read: &str, fix_stdout: FixStdout) -> Lab {
    let (lab, _dir) = lab(&[&format!("gpu001={fault}")]).await;
    let healthy = run(&lab, "gpu002", read).await;
    assert_eq!((healthy.1.as_str(), healthy.2), ("", 0), "{read}");
    assert_ne!(run(&lab, "gpu001", read).await, healthy, "{fault} does not show in `{read}`");
    for fix in fixes {
        let (stdout, stderr, status) = run(&lab, "gpu001", fix).await;
        assert_eq!((stderr.as_str(), status), ("", 0), "{fix}");
        match fix_stdout {
            FixStdout::Silent => assert_eq!(stdout, "", "{fix}"),
            FixStdout::Configuration => {
                assert_eq!(stdout, run(&lab, "gpu001", "mlnx_qos -i ens1np0").await.0, "{fix}")
            }
        }
    }
    assert_eq!(run(&lab, "gpu001", read).await, healthy, "{fault} after {fixes:?}");
    lab
}

/// What a fix prints.
#[derive(Clone, Copy)]
enum FixStdout {
    /// Nothing (`ip link set`, a sysfs write, `modprobe`).
    Silent,
    /// The port's QoS configuration after the change, as `mlnx_qos -i IF` prints it.
    Configuration,
}

#[tokio::test]
async fn pfc_off_is_cured_by_mlnx_qos_pfc_in_either_form() {
    for fix in ["mlnx_qos -i ens1np0 --pfc 0,0,0,1,0,0,0,0", "sudo mlnx_qos -i ens1np0 --pfc=0,0,0,1,0,0,0,0"] {
        let lab = cures("pfc-off", &[fix], "mlnx_qos -i ens1np0", FixStdout::Configuration).await;
        // The collector's read, under its timeout, agrees.
        let read = run(&lab, "gpu001", "timeout -k 2 30 mlnx_qos -i ens1np0").await.0;
        assert!(read.contains("\tenabled     0   0   0   1   0   0   0   0   \n"), "{read}");
    }
}

#[tokio::test]
async fn trust_pcp_is_cured_by_mlnx_qos_trust() {
    for fix in ["mlnx_qos -i ens1np0 --trust dscp", "sudo -n mlnx_qos --interface=ens1np0 --trust=dscp"] {
        cures("trust-pcp", &[fix], "mlnx_qos -i ens1np0", FixStdout::Configuration).await;
    }
}

#[tokio::test]
async fn dscp_map_is_cured_by_mlnx_qos_dscp2prio() {
    for fix in ["mlnx_qos -i ens1np0 --dscp2prio set,26,3", "mlnx_qos -i ens1np0 --dscp2prio=set,26,3"] {
        cures("dscp-map", &[fix], "mlnx_qos -i ens1np0", FixStdout::Configuration).await;
    }
}

#[tokio::test]
async fn mtu_is_cured_by_ip_link_set() {
    for fix in ["ip link set dev ens1np0 mtu 4200", "sudo ip link set ens1np0 mtu 4200"] {
        let lab = cures("mtu", &[fix], "cat /sys/class/net/ens1np0/mtu", FixStdout::Silent).await;
        let links = run(&lab, "gpu001", "ip -j link show").await.0;
        assert!(links.contains(
            "\"ifname\":\"ens1np0\",\"flags\":[\"BROADCAST\",\"MULTICAST\",\"UP\",\"LOWER_UP\"],\"mtu\":4200,"
        ));
    }
}

#[tokio::test]
async fn dcqcn_points_are_cured_by_sysfs_writes_and_their_counters_move_again() {
    for (fault, fix, counter) in [
        ("dcqcn-rp-off", "echo 1 > /sys/class/net/ens1np0/ecn/roce_rp/enable/3", "rp_cnp_handled"),
        ("dcqcn-np-off", "sudo sh -c 'echo 1 > /sys/class/net/ens1np0/ecn/roce_np/enable/3'", "np_cnp_sent"),
    ] {
        let lab = cures(fault, &[fix], &ecn_read("ens1np0"), FixStdout::Silent).await;
        let fabric = lab.fabric();
        let rate = |host: usize| fabric.hosts[host].nics[0].hw_counters[counter].per_s;
        assert!(rate(0) > 0 && rate(0) == rate(1), "{fault}: {counter} at {} a second", rate(0));
    }
}

#[tokio::test]
async fn cnp_dscp_is_cured_by_a_sysfs_write() {
    let fix = "echo 48 > /sys/class/net/ens1np0/ecn/roce_np/cnp_dscp";
    cures("cnp-dscp", &[fix], "cat /sys/class/net/ens1np0/ecn/roce_np/cnp_dscp", FixStdout::Silent).await;
    let (lab, _dir) = lab(&[]).await;
    let prio = "/sys/class/net/ens2np0/ecn/roce_np/cnp_802p_prio";
    assert_eq!(run(&lab, "gpu001", &format!("echo 5 > {prio}")).await, (String::new(), String::new(), 0));
    assert_eq!(run(&lab, "gpu001", &format!("cat {prio}")).await.0, "5\n");
}

#[tokio::test]
async fn peermem_missing_is_cured_by_modprobe() {
    for fix in ["modprobe nvidia_peermem", "sudo modprobe nvidia-peermem"] {
        cures("peermem-missing", &[fix], "lsmod", FixStdout::Silent).await;
    }
    // The older module loads as well, and satisfies the same check.
    let (lab, _dir) = lab(&["gpu001=peermem-missing"]).await;
    assert_eq!(run(&lab, "gpu001", "modprobe nv_peer_mem").await.2, 0);
    assert!(run(&lab, "gpu001", "lsmod").await.0.starts_with("Module                  Size  Used by\nnv_peer_mem "));
}

/// Every refused command: its status and what it prints, and the lab exactly as before.
#[tokio::test]
async fn invalid_fixes_are_refused_and_change_nothing() {
    let (lab, _dir) = lab(&["gpu001=pfc-off", "gpu001=mtu", "gpu001=dcqcn-np-off", "gpu001=peermem-missing"]).await;
    let before: Fabric = lab.fabric();
    let usage = "Usage: mlnx_qos -i <interface> [options]\n\n";
    let np3 = "/sys/class/net/ens1np0/ecn/roce_np/enable/3";
    let refused: Vec<(String, (&str, String, u32))> = vec![
        (
            "mlnx_qos -i ens1np0 --pfc 0,0,0,2,0,0,0,0".into(),
            ("stdout", format!("Bad value for PFC: 2 is not in the range 0..1\n{usage}"), 1),
        ),
        (
            "mlnx_qos -i ens1np0 --pfc 0,0,0,x,0,0,0,0".into(),
            ("stdout", format!("Bad value for PFC: invalid literal for int() with base 10: 'x'\n{usage}"), 1),
        ),
        ("mlnx_qos -i ens1np0 --pfc 0,0,0,1".into(), ("stdout", "pfc list must have 8 items\n".into(), 1)),
        ("mlnx_qos -i ens1np0 --pfc 0,0,0,1,0,0,0,0,0".into(), ("stdout", "Too many items for PFC\n".into(), 1)),
        (
            "mlnx_qos -i ens1np0 --pfc".into(),
            ("stderr", format!("{usage}mlnx_qos: error: --pfc option requires 1 argument\n"), 2),
        ),
        (
            "mlnx_qos -i ens1np0 --frob 1".into(),
            ("stderr", format!("{usage}mlnx_qos: error: no such option: --frob\n"), 2),
        ),
        (
            "mlnx_qos -i ens1np0 --trust cos".into(),
            ("stdout", "Invalid trust state command. Refer to the help.\n".into(), 1),
        ),
        (
            "mlnx_qos -i ens1np0 --trust dscp --dscp2prio set,26,3".into(),
            ("stdout", "trust and dscp2prio commands cannot be used at the same time.\n".into(), 1),
        ),
        (
            "mlnx_qos -i ens1np0 --dscp2prio set,64,3".into(),
            ("stdout", "Invalid dscp2prio command. Refer to the help.\n".into(), 1),
        ),
        (
            "mlnx_qos -i ens1np0 --dscp2prio set,26".into(),
            ("stdout", "Invalid dscp2prio command. Refer to the help.\n".into(), 1),
        ),
        // DSCP 26 maps to priority 3, not 5: the kernel has no such entry to delete.
        ("mlnx_qos -i ens1np0 --dscp2prio del,26,5".into(), ("stdout", "dscp2prio command failed\n".into(), 1)),
        // A valid change with an invalid one: nothing applied.
        (
            "mlnx_qos -i ens1np0 --pfc 0,0,0,1,0,0,0,0 --trust cos".into(),
            ("stdout", "Invalid trust state command. Refer to the help.\n".into(), 1),
        ),
        (
            "mlnx_qos -i ens1np0 --prio_tc 0,1,2,3,4,5,6,7".into(),
            ("stderr", "mlnx_qos: --prio_tc: not simulated by the fabcheck lab\n".into(), 1),
        ),
        ("mlnx_qos -i ens1np0 extra".into(), ("stdout", format!("Bad arguments\n{usage}"), 1)),
        ("ip link set dev nosuch mtu 4200".into(), ("stderr", "Cannot find device \"nosuch\"\n".into(), 1)),
        (
            "ip link set dev ens1np0 mtu abc".into(),
            ("stderr", "Error: argument \"abc\" is wrong: Invalid \"mtu\" value\n\n".into(), 255),
        ),
        ("ip link set dev ens1np0 mtu 10000".into(), ("stderr", "Error: mtu greater than device maximum.\n".into(), 2)),
        ("ip link set dev ens1np0 mtu 60".into(), ("stderr", "Error: mtu less than device minimum.\n".into(), 2)),
        (
            "ip link set dev ens1np0 mtu".into(),
            ("stderr", "Command line is not complete. Try option \"help\"\n".into(), 255),
        ),
        (
            "ip link set dev ens1np0 down".into(),
            ("stderr", "ip link set: down: not simulated by the fabcheck lab\n".into(), 1),
        ),
        (format!("echo 2 > {np3}"), ("stderr", "bash: echo: write error: Invalid argument\n".into(), 1)),
        (format!("echo on > {np3}"), ("stderr", "bash: echo: write error: Invalid argument\n".into(), 1)),
        (
            "echo 64 > /sys/class/net/ens1np0/ecn/roce_np/cnp_dscp".into(),
            ("stderr", "bash: echo: write error: Invalid argument\n".into(), 1),
        ),
        (
            "echo 1 > /sys/class/net/ib0/ecn/roce_np/enable/3".into(),
            ("stderr", "bash: /sys/class/net/ib0/ecn/roce_np/enable/3: No such file or directory\n".into(), 1),
        ),
        (
            "echo 1 > /sys/class/net/ens1np0/ecn/roce_np/enable".into(),
            ("stderr", "bash: /sys/class/net/ens1np0/ecn/roce_np/enable: Is a directory\n".into(), 1),
        ),
        (
            "echo 1 > /sys/class/net/ens1np0/ecn/roce_rp/rpg_time_reset".into(),
            ("stderr", "bash: /sys/class/net/ens1np0/ecn/roce_rp/rpg_time_reset: Permission denied\n".into(), 1),
        ),
        // Syntax the lab does not run is not half-run.
        (format!("echo 1 >> {np3}"), ("stderr", "bash: echo: command not found\n".into(), 127)),
        (format!("echo 1 2> {np3}"), ("stderr", "bash: echo: command not found\n".into(), 127)),
        (
            "modprobe nvidia_peermen".into(),
            (
                "stderr",
                "modprobe: FATAL: Module nvidia_peermen not found in directory /lib/modules/5.15.0-105-generic\n"
                    .into(),
                1,
            ),
        ),
        ("modprobe".into(), ("stderr", "modprobe: ERROR: missing parameters. See -h.\n".into(), 1)),
        (
            "modprobe -r nvidia_peermem".into(),
            ("stderr", "modprobe: -r: not simulated by the fabcheck lab\n".into(), 1),
        ),
    ];
    for (command, (stream, message, status)) in refused {
        let (stdout, stderr, got) = run(&lab, "gpu001", &command).await;
        let (said, other) = if stream == "stdout" { (stdout, stderr) } else { (stderr, stdout) };
        assert_eq!((said.as_str(), other.as_str(), got), (message.as_str(), "", status), "{command}");
        assert!(lab.fabric() == before, "`{command}` changed the lab");
    }
}

/// What an audit sends, and commands that would set a value to what it already is: none changes
/// the lab.
#[tokio::test]
async fn reads_and_no_op_settings_change_nothing() {
    let (lab, _dir) = lab(&["gpu002=pfc-off"]).await;
    let before = lab.fabric();
    let np3 = "/sys/class/net/ens1np0/ecn/roce_np/enable/3";
    for command in [
        "ibdev2netdev -v",
        "ibstat",
        "show_gids",
        "lsmod",
        "ip -j link show",
        "ip -j rule show",
        "ip -j route show table all",
        "mlnx_qos -i ens1np0",
        "mlnx_qos -a -i ens1np0",
        "timeout -k 2 30 mlnx_qos -i ens2np0",
        &ecn_read("ens1np0"),
        "grep -H '' /sys/class/infiniband/*/ports/*/hw_counters/*",
        "ethtool -S ens1np0",
        "sh -c 'cat /proc/interrupts; lsmod'",
        "mlnx_qos -i ens1np0 --pfc 0,0,0,1,0,0,0,0",
        "mlnx_qos -i ens1np0 --trust dscp",
        "mlnx_qos -i ens1np0 --dscp2prio set,26,3",
        "ip link set dev ens1np0 mtu 4200",
        &format!("echo 1 > {np3}"),
        "modprobe nvidia_peermem",
    ] {
        let (_, stderr, status) = run(&lab, "gpu001", command).await;
        assert_eq!((stderr.as_str(), status), ("", 0), "{command}");
        assert!(lab.fabric() == before, "`{command}` changed the lab");
    }
}

#[tokio::test]
async fn run_on_names_devices_and_says_when_a_command_never_exits() {
    let (lab, _dir) = lab(&["gpu002=command-hang"]).await;
    assert!(matches!(lab.run_on("gpu009", "hostname").await, Err(RunError::NoDevice(d)) if d == "gpu009"));
    assert!(matches!(lab.run_on("gpu002", "hostname").await, Err(RunError::Hangs { .. })));
    assert_eq!(run(&lab, "gpu001", "hostname").await, ("gpu001\n".into(), String::new(), 0));
}
