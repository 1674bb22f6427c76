//! Linux GPU hosts: OFED, infiniband-diags, iproute2, procfs and sysfs.

use super::{Probe, probe};
use fabcheck_inventory::is_safe_name;

/// The `fabcheck_platform` of a GPU host (the default).
pub const PLATFORM: &str = "linux";

/// The host-wide facts, gathered once. `ibdev2netdev -v` comes first: it names the NICs.
pub fn host_probes() -> Vec<Probe> {
    vec![
        probe("ibdev2netdev", "ibdev2netdev", "ibdev2netdev -v").quick(),
        probe("ibstat", "ibstat", "ibstat").quick(),
        probe("show_gids", "show_gids", "show_gids"),
        probe("sminfo", "sminfo", "sminfo"),
        probe("saquery_sm", "saquery_sm", "saquery -s"),
        probe("lsmod", "lsmod", "lsmod").quick(),
        probe("interrupts", "interrupts", "cat /proc/interrupts").quick(),
        probe("irq_affinity", "irq_affinity", "grep -H '' /proc/irq/*/smp_affinity_list").quick(),
        probe("ip_link", "ip_link", "ip -j link show").quick(),
        probe("port_rate", "port_rate", "grep -H '' /sys/class/infiniband/*/ports/*/rate").quick(),
        probe("nvidia_smi_topo", "nvidia_smi_topo", "nvidia-smi topo -m"),
        probe("ip_rule", "ip_rule", "ip -j rule show").quick(),
        probe("ip_route", "ip_route", "ip -j route show table all").quick(),
        probe("net_conf", "net_conf", NET_CONF).quick(),
    ]
}

/// The IPv4 settings that decide which NIC answers ARP and which packets are dropped, for every
/// interface and `all` (the kernel applies the higher of the two).
const NET_CONF: &str = "grep -H '' /proc/sys/net/ipv4/conf/*/arp_ignore /proc/sys/net/ipv4/conf/*/arp_announce /proc/sys/net/ipv4/conf/*/rp_filter";

/// Every InfiniBand link of the fabric as this host's HCA sees it, read where the inventory
/// sets `fabcheck_iblinkinfo=true` (one host per fabric is enough).
pub fn iblinkinfo_probe() -> Probe {
    probe("iblinkinfo", "iblinkinfo", "iblinkinfo")
}

/// The host's LLDP neighbours (lldpd), for the host ↔ leaf links: collected only when switches
/// are audited too, as hosts without switches in the inventory need no lldpd.
pub fn lldp_probe() -> Probe {
    probe("lldp", "lldp", "lldpctl").quick()
}

/// The configuration of one RoCE netdev. `None` when the name is not safe to put in a command.
pub fn netdev_probes(netdev: &str) -> Option<Vec<Probe>> {
    is_safe_name(netdev).then(|| {
        vec![
            probe(format!("mlnx_qos.{netdev}"), "mlnx_qos", format!("mlnx_qos -i {netdev}")),
            probe(format!("ethtool_link.{netdev}"), "ethtool_link", format!("ethtool {netdev}")).quick(),
            probe(format!("roce_ecn.{netdev}"), "roce_ecn", roce_ecn_command(netdev)).quick(),
        ]
    })
}

/// The driver's DCQCN tree of one netdev (MLNX_OFED): both points' per-priority `enable` files,
/// then their parameters; `-d skip` passes over the `enable` directories the last two globs match.
fn roce_ecn_command(netdev: &str) -> String {
    let ecn = format!("/sys/class/net/{netdev}/ecn");
    format!("grep -H -d skip '' {ecn}/roce_rp/enable/* {ecn}/roce_np/enable/* {ecn}/roce_rp/* {ecn}/roce_np/*")
}

/// The inventory's capture command on each RoCE netdev (`{netdev}` replaced by a name that is
/// safe in a command), its output a pcap (`capture.IF`). The command is the operator's: it must
/// be read-only and end by itself (`timeout 10 tcpdump -U -i {netdev} -w - -c 2000 ...`).
pub fn capture_probes(template: &str, roce_netdevs: &[String]) -> Vec<Probe> {
    roce_netdevs
        .iter()
        .filter(|n| is_safe_name(n))
        .map(|n| probe(format!("capture.{n}"), "pcap", template.replace("{netdev}", n)))
        .collect()
}

/// Counter reads for one phase (`t0` before the window, `t1` after).
pub fn counter_probes(phase: &str, roce_netdevs: &[String], ib_ports: &[(String, u32)]) -> Vec<Probe> {
    let mut probes = vec![
        probe(
            format!("hw_counters.{phase}"),
            "hw_counters",
            "grep -H '' /sys/class/infiniband/*/ports/*/hw_counters/*",
        )
        .quick(),
    ];
    for netdev in roce_netdevs.iter().filter(|n| is_safe_name(n)) {
        probes
            .push(probe(format!("ethtool_stats.{netdev}.{phase}"), "ethtool", format!("ethtool -S {netdev}")).quick());
    }
    for (hca, port) in ib_ports.iter().filter(|(h, _)| is_safe_name(h)) {
        probes.push(
            probe(format!("perfquery.{hca}.{phase}"), "perfquery", format!("perfquery -x -C {hca} -P {port}")).quick(),
        );
    }
    probes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_the_documented_ones() {
        let cmds: Vec<_> = host_probes().into_iter().map(|p| p.command).collect();
        assert_eq!(cmds[0], "ibdev2netdev -v");
        assert!(cmds.contains(&"grep -H '' /proc/irq/*/smp_affinity_list".to_string()));
        let nic = netdev_probes("ens1np0").unwrap();
        assert_eq!(nic[0].command, "mlnx_qos -i ens1np0");
        assert_eq!(nic[1].command, "ethtool ens1np0");
        assert_eq!(
            nic[2].command,
            "grep -H -d skip '' /sys/class/net/ens1np0/ecn/roce_rp/enable/* /sys/class/net/ens1np0/ecn/roce_np/enable/* /sys/class/net/ens1np0/ecn/roce_rp/* /sys/class/net/ens1np0/ecn/roce_np/*"
        );
        let c = counter_probes("t0", &["ens1np0".into()], &[("mlx5_2".into(), 1)]);
        assert_eq!(c[1].command, "ethtool -S ens1np0");
        assert_eq!(c[1].key, "ethtool_stats.ens1np0.t0");
        assert_eq!(c[2].command, "perfquery -x -C mlx5_2 -P 1");
    }

    #[test]
    fn unsafe_names_never_reach_a_command() {
        assert_eq!(netdev_probes("eth0; reboot"), None);
        assert_eq!(netdev_probes("$(id)"), None);
        let c = counter_probes("t0", &["eth0 && rm -rf /".into()], &[("mlx5_0|x".into(), 1)]);
        assert_eq!(c.len(), 1, "only the fixed hw_counters read remains");
    }
}
