//! What restores the policy on a GPU host, for each finding a host check makes: the command in
//! the host's own tools, from the policy's values and the port the finding is on.
//!
//! Sources of the syntax:
//! - `mlnx_qos` (`--pfc`, `--trust`, `--dscp2prio set,DSCP,PRIO`): NVIDIA MLNX_OFED
//!   documentation, "mlnx_qos" (Quality of Service), and `mlnx_qos --help`;
//! - the DCQCN and CNP files under `/sys/class/net/NETDEV/ecn/`: NVIDIA, "DCQCN Configuration"
//!   (roce_np/roce_rp `enable/PRIO`, roce_np `cnp_dscp`, `cnp_802p_prio`), the mlx5 driver's
//!   `ecn` sysfs tree (drivers/net/ethernet/mellanox/mlx5/core, en_sysfs);
//! - `ip link set dev NETDEV mtu N`: iproute2, ip-link(8);
//! - `modprobe nvidia_peermem`: NVIDIA GPUDirect RDMA documentation, "Using nvidia-peermem".
//!
//! None of these outlasts a reboot by itself: each note says where the setting is kept.

use crate::policy::Policy;
use fabcheck_model::{Finding, Fix};

/// Sets `fix` on each host finding fabcheck knows how to cure (or where to look).
pub fn attach(findings: &mut [Finding], policy: &Policy) {
    for f in findings.iter_mut() {
        f.fix = host_fix(f, policy);
    }
}

const MLNX_QOS: &str = "NVIDIA MLNX_OFED documentation, mlnx_qos (Quality of Service)";
const ECN_SYSFS: &str = "NVIDIA, DCQCN configuration: /sys/class/net/NETDEV/ecn/roce_np and roce_rp";
const QOS_NOTE: &str = "takes effect at once (the port renegotiates PFC: a brief pause); not kept across a reboot: set it in the host's boot-time QoS configuration too";

fn host_fix(f: &Finding, policy: &Policy) -> Option<Fix> {
    match f.port.as_deref() {
        Some(port) => port_fix(f, port, policy),
        None => device_fix(f),
    }
}

/// Fixes for a finding on one port (a netdev, or an InfiniBand port `mlx5_2/1`).
fn port_fix(f: &Finding, netdev: &str, policy: &Policy) -> Option<Fix> {
    // An InfiniBand port (`mlx5_2/1`) has no netdev for these tools.
    let on_netdev = !netdev.contains('/');
    let run = |commands: Vec<String>, note: &str, source: &str| {
        Some(Fix { commands, inspect: String::new(), note: note.into(), source: source.into() })
    };
    match f.code.as_str() {
        "nic.pfc_mismatch" if on_netdev => {
            let lossless = policy.lossless_priorities()?;
            let flags: Vec<&str> = (0..8u8).map(|p| if lossless.contains(&p) { "1" } else { "0" }).collect();
            run(vec![format!("mlnx_qos -i {netdev} --pfc {}", flags.join(","))], QOS_NOTE, MLNX_QOS)
        }
        "nic.trust_mismatch" if on_netdev => {
            let trust = policy.nic.as_ref()?.trust?;
            run(vec![format!("mlnx_qos -i {netdev} --trust {}", trust.as_str())], QOS_NOTE, MLNX_QOS)
        }
        "nic.dscp_map_mismatch" if on_netdev => {
            let commands: Vec<String> = policy
                .lossless_classes()
                .into_iter()
                .chain(policy.cnp.as_ref())
                .filter_map(|class| Some((class.dscps(), class.priority?)))
                .flat_map(|(dscps, prio)| dscps.iter().map(move |d| (*d, prio)))
                .filter(|(dscp, _)| f.expected.starts_with(&format!("DSCP {dscp} ")))
                .map(|(dscp, prio)| format!("mlnx_qos -i {netdev} --dscp2prio set,{dscp},{prio}"))
                .collect();
            run(commands, QOS_NOTE, MLNX_QOS).filter(|fix| !fix.commands.is_empty())
        }
        "nic.mtu_mismatch" if on_netdev => {
            let mtu = policy.nic.as_ref()?.mtu?;
            run(
                vec![format!("ip link set dev {netdev} mtu {mtu}")],
                "takes effect at once (the link may flap); keep it in the interface's configuration (netplan, NetworkManager, ifcfg) for reboots",
                "iproute2, ip-link(8)",
            )
        }
        "nic.dcqcn_disabled" if on_netdev => {
            // The check names the point in what it found: `RP off for priority 3`.
            let point = if f.actual.starts_with("RP ") { "roce_rp" } else { "roce_np" };
            let prio: u8 = f.actual.rsplit_once("priority ")?.1.trim().parse().ok()?;
            run(
                vec![format!("echo 1 > /sys/class/net/{netdev}/ecn/{point}/enable/{prio}")],
                "takes effect at once, without a pause; not kept across a reboot: set it from a boot-time unit too",
                ECN_SYSFS,
            )
        }
        "nic.cnp_mismatch" if on_netdev => {
            let cnp = policy.cnp.as_ref()?;
            // The check names what differs in what it expected: `CNP DSCP 48`, `CNP 802.1p priority 6`.
            let (file, value) = if f.expected.starts_with("CNP DSCP ") {
                ("cnp_dscp", i64::from(*cnp.dscps().first()?))
            } else {
                ("cnp_802p_prio", i64::from(cnp.priority?))
            };
            run(
                vec![format!("echo {value} > /sys/class/net/{netdev}/ecn/roce_np/{file}")],
                "takes effect at once; not kept across a reboot: set it from a boot-time unit too",
                ECN_SYSFS,
            )
        }
        "nic.link_degraded" | "nic.link_down" | "ib.link_degraded" | "ib.port_down" => Some(Fix {
            commands: Vec::new(),
            inspect: if on_netdev {
                format!(
                    "the cable or optic of {netdev} and of its link partner: `ethtool {netdev}` (speed, autonegotiation, link partner), `ethtool -m {netdev}` (the module's temperature, Tx and Rx power against its thresholds); reseat or replace what is out of range"
                )
            } else {
                format!(
                    "the cable or optic of {netdev} and the switch port it goes to: `ibstat` (rate, width, state), `mlxlink -d {}` (the module's readings and error counters); reseat or replace what is out of range",
                    netdev.split('/').next().unwrap_or(netdev)
                )
            },
            note: "no command restores a link trained down: it is the physical layer".into(),
            source: "NVIDIA, \"Link Down / Degraded Speed\" troubleshooting; ethtool(8)".into(),
        }),
        _ => None,
    }
}

/// Fixes for a host's device-wide findings (no port).
fn device_fix(f: &Finding) -> Option<Fix> {
    (f.code == "host.gdr_disabled").then(|| Fix {
        commands: vec!["modprobe nvidia_peermem".into()],
        inspect: String::new(),
        note: "takes effect at once for new NCCL jobs; keep it loaded at boot (a file in /etc/modules-load.d/)".into(),
        source: "NVIDIA GPUDirect RDMA documentation, \"Using nvidia-peermem\"".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use fabcheck_model::Severity;

    fn policy() -> Policy {
        Policy::parse(crate::policy::DEFAULT_POLICY, "built-in").unwrap()
    }

    fn fixed(code: &str, port: Option<&str>, expected: &str, actual: &str) -> Option<Fix> {
        let mut f = Finding::new(code, Severity::Error, "gpu002", "m").expected_actual(expected, actual);
        f.port = port.map(str::to_string);
        attach(std::slice::from_mut(&mut f), &policy());
        f.fix
    }

    fn commands(fix: Option<Fix>) -> Vec<String> {
        fix.expect("a fix").commands
    }

    #[test]
    fn each_host_root_gets_the_command_that_restores_the_policy() {
        let rail = Some("ens1np0");
        assert_eq!(commands(fixed("nic.pfc_mismatch", rail, "", "")), ["mlnx_qos -i ens1np0 --pfc 0,0,0,1,0,0,0,0"]);
        assert_eq!(commands(fixed("nic.trust_mismatch", rail, "dscp", "pcp")), ["mlnx_qos -i ens1np0 --trust dscp"]);
        assert_eq!(
            commands(fixed("nic.dscp_map_mismatch", rail, "DSCP 26 → priority 3", "DSCP 26 → priority 0")),
            ["mlnx_qos -i ens1np0 --dscp2prio set,26,3"]
        );
        assert_eq!(commands(fixed("nic.mtu_mismatch", rail, "", "")), ["ip link set dev ens1np0 mtu 4200"]);
        assert_eq!(
            commands(fixed("nic.dcqcn_disabled", rail, "", "NP off for priority 3")),
            ["echo 1 > /sys/class/net/ens1np0/ecn/roce_np/enable/3"]
        );
        assert_eq!(
            commands(fixed("nic.dcqcn_disabled", rail, "", "RP off for priority 3")),
            ["echo 1 > /sys/class/net/ens1np0/ecn/roce_rp/enable/3"]
        );
        assert_eq!(
            commands(fixed("nic.cnp_mismatch", rail, "CNP DSCP 48", "CNP DSCP 0")),
            ["echo 48 > /sys/class/net/ens1np0/ecn/roce_np/cnp_dscp"]
        );
        assert_eq!(
            commands(fixed("nic.cnp_mismatch", rail, "CNP 802.1p priority 6", "CNP 802.1p priority 0")),
            ["echo 6 > /sys/class/net/ens1np0/ecn/roce_np/cnp_802p_prio"]
        );
        assert_eq!(commands(fixed("host.gdr_disabled", None, "", "")), ["modprobe nvidia_peermem"]);
    }

    #[test]
    fn a_link_trained_down_is_inspected_not_commanded_and_other_findings_get_nothing() {
        let fix = fixed("nic.link_degraded", Some("ens1np0"), "", "").unwrap();
        assert!(fix.commands.is_empty());
        assert!(fix.inspect.contains("`ethtool -m ens1np0`"), "{}", fix.inspect);
        let ib = fixed("ib.link_degraded", Some("mlx5_2/1"), "", "").unwrap();
        assert!(ib.inspect.contains("`mlxlink -d mlx5_2`"), "{}", ib.inspect);
        assert_eq!(fixed("counter.out_of_buffer", Some("ens1np0"), "", ""), None, "a consequence");
        assert_eq!(fixed("nic.pfc_mismatch", Some("mlx5_2/1"), "", ""), None, "no netdev to set");
    }
}
