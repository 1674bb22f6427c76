//! `ethtool -S IF`: `NIC statistics:` then `     name: value` (five spaces, as in
//! ethtool-S/cx4lx-mlx5-ubuntu1604-ethtool-S-ethq-fixture-v1.txt).
//!
//! Counters come in mlx5's group order: software (`rx_packets`, `rx_bytes` ...), `rx_out_of_buffer`,
//! vport, physical port (`*_phy`) as in the ConnectX-4 Lx dump
//! (ethtool-S/cx4lx-fw14.23-...-noindent.txt), then the per-priority traffic group
//! (`rx_prioN_bytes, rx_prioN_packets, rx_prioN_discards, tx_prioN_bytes, tx_prioN_packets` for
//! N = 0..7) and the PFC group, which mlx5 prints only for priorities with PFC enabled
//! (`mlx5e_grp_per_prio_pfc_fill_strings`): `rx_prioN_pause, rx_prioN_pause_duration,
//! tx_prioN_pause, tx_prioN_pause_duration, rx_prioN_pause_transition`. Counters the order does
//! not know come next, sorted; then, on a NIC given channels (`fabcheck lab --channels N`), the
//! per-queue counters: `rx0_*` to `rx(N-1)_*`, then `tx0_*` to `tx(N-1)_*`, with the names of the
//! ConnectX-4 Lx dump, the port's packets and bytes shared between the queues.
//!
//! Unknown interface: `Cannot get stats strings information: No such device`, status 96; no
//! counters at all: `no stats available`, status 94 (ethtool 6.1, checked on a real one).

use crate::shell::Output;
use crate::state::{LabHost, LabNic};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::time::Duration;

/// mlx5 counters before the per-priority groups, in driver order (from the ConnectX-4 Lx dump).
const LEADING: &[&str] = &[
    "rx_packets",
    "rx_bytes",
    "tx_packets",
    "tx_bytes",
    "link_down_events_phy",
    "rx_out_of_buffer",
    "rx_vport_unicast_packets",
    "rx_vport_unicast_bytes",
    "tx_vport_unicast_packets",
    "tx_vport_unicast_bytes",
    "rx_vport_multicast_packets",
    "rx_vport_multicast_bytes",
    "tx_vport_multicast_packets",
    "tx_vport_multicast_bytes",
    "rx_vport_broadcast_packets",
    "rx_vport_broadcast_bytes",
    "tx_vport_broadcast_packets",
    "tx_vport_broadcast_bytes",
    "rx_vport_rdma_unicast_packets",
    "rx_vport_rdma_unicast_bytes",
    "tx_vport_rdma_unicast_packets",
    "tx_vport_rdma_unicast_bytes",
    "rx_vport_rdma_multicast_packets",
    "rx_vport_rdma_multicast_bytes",
    "tx_vport_rdma_multicast_packets",
    "tx_vport_rdma_multicast_bytes",
    "tx_packets_phy",
    "rx_packets_phy",
    "rx_crc_errors_phy",
    "tx_bytes_phy",
    "rx_bytes_phy",
    "tx_multicast_phy",
    "tx_broadcast_phy",
    "rx_multicast_phy",
    "rx_broadcast_phy",
    "rx_in_range_len_errors_phy",
    "rx_out_of_range_len_phy",
    "rx_oversize_pkts_phy",
    "rx_symbol_err_phy",
    "tx_mac_control_phy",
    "rx_mac_control_phy",
    "rx_unsupported_op_phy",
    "rx_pause_ctrl_phy",
    "tx_pause_ctrl_phy",
    "rx_discards_phy",
    "tx_discards_phy",
    "tx_errors_phy",
    "rx_undersize_pkts_phy",
    "rx_fragments_phy",
    "rx_jabbers_phy",
];

/// A receive queue's counters, in the order of the ConnectX-4 Lx dump's `rx0_*`.
const RX_QUEUE: &[&str] = &[
    "packets",
    "bytes",
    "csum_complete",
    "csum_unnecessary",
    "csum_unnecessary_inner",
    "csum_none",
    "xdp_drop",
    "xdp_tx",
    "xdp_tx_full",
    "lro_packets",
    "lro_bytes",
    "removed_vlan_packets",
    "wqe_err",
    "mpwqe_filler",
    "buff_alloc_err",
    "cqe_compress_blks",
    "cqe_compress_pkts",
    "page_reuse",
    "cache_reuse",
    "cache_full",
    "cache_empty",
    "cache_busy",
    "cache_waive",
];

/// A send queue's counters, in the order of the dump's `tx0_*`.
const TX_QUEUE: &[&str] = &[
    "packets",
    "bytes",
    "tso_packets",
    "tso_bytes",
    "tso_inner_packets",
    "tso_inner_bytes",
    "csum_partial",
    "csum_partial_inner",
    "added_vlan_packets",
    "nop",
    "csum_none",
    "stopped",
    "wake",
    "dropped",
    "xmit_more",
];

/// The PFC counters of a priority (printed only when PFC is on for it).
fn pfc_names(p: usize) -> [String; 5] {
    [
        format!("rx_prio{p}_pause"),
        format!("rx_prio{p}_pause_duration"),
        format!("tx_prio{p}_pause"),
        format!("tx_prio{p}_pause_duration"),
        format!("rx_prio{p}_pause_transition"),
    ]
}

/// Counter names in the order mlx5 prints them, PFC counters of priorities without PFC left out.
fn ordered(nic: &LabNic) -> Vec<String> {
    let mut order: Vec<String> = LEADING.iter().map(|s| s.to_string()).collect();
    for p in 0..8 {
        for f in ["rx_prio{}_bytes", "rx_prio{}_packets", "rx_prio{}_discards", "tx_prio{}_bytes", "tx_prio{}_packets"]
        {
            order.push(f.replace("{}", &p.to_string()));
        }
    }
    let mut hidden = BTreeSet::new();
    for (p, on) in nic.pfc.iter().enumerate() {
        if *on {
            order.extend(pfc_names(p));
        } else {
            hidden.extend(pfc_names(p));
        }
    }
    let mut names: Vec<String> = order.into_iter().filter(|n| nic.ethtool_counters.contains_key(n)).collect();
    let known: BTreeSet<&String> = names.iter().collect();
    let rest: Vec<String> =
        nic.ethtool_counters.keys().filter(|k| !known.contains(k) && !hidden.contains(*k)).cloned().collect();
    names.extend(rest);
    names
}

/// `ethtool -S IF`.
pub(crate) fn render(host: &LabHost, intf: &str, elapsed: Duration) -> Output {
    let Some(nic) = host.nics.iter().find(|n| n.netdev == intf) else {
        return if intf == "lo" {
            Output::fail(94, "", "no stats available\n")
        } else {
            Output::fail(96, "", "Cannot get stats strings information: No such device\n")
        };
    };
    if nic.ethtool_counters.is_empty() {
        return Output::fail(94, "", "no stats available\n");
    }
    let mut s = String::from("NIC statistics:\n");
    for name in ordered(nic) {
        let _ = writeln!(s, "     {name}: {}", nic.ethtool_counters[&name].at(elapsed));
    }
    for (dir, names) in [("rx", RX_QUEUE), ("tx", TX_QUEUE)] {
        for queue in 0..nic.queue_counters {
            for name in names {
                let value = queue_share(nic, &format!("{dir}_{name}"), queue, elapsed);
                let _ = writeln!(s, "     {dir}{queue}_{name}: {value}");
            }
        }
    }
    Output::ok(s)
}

/// Queue `queue`'s share of the port's counter `port_name` (`rx_packets`): `(total + queue) /
/// queues`, which adds up to the port's value over the queues and, like a real queue's counter,
/// never goes down as the port's grows (a remainder put on one queue would); 0 for a counter the
/// port does not keep (checksums, caches...).
fn queue_share(nic: &LabNic, port_name: &str, queue: u32, elapsed: Duration) -> u64 {
    let Some(counter) = nic.ethtool_counters.get(port_name) else { return 0 };
    (counter.at(elapsed) + u64::from(queue)) / u64::from(nic.queue_counters.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::healthy_host;
    use crate::faults::{Fault, apply};

    const V1: &str =
        include_str!("../../../parse/tests/fixtures/ethtool_stats/cx4lx-mlx5-ubuntu1604-ethtool-S-ethq-fixture-v1.txt");
    const V1_NOINDENT: &str = include_str!(
        "../../../parse/tests/fixtures/ethtool_stats/cx4lx-fw14.23-mlx5-ubuntu1804-k4.15-ethtool-S-ethq-fixture-noindent.txt"
    );

    #[test]
    fn indented_like_the_real_dump_in_driver_order() {
        let out = render(&healthy_host(0), "ens1np0", Duration::ZERO).stdout;
        let indent = |l: &str| l.len() - l.trim_start().len();
        assert!(out.starts_with("NIC statistics:\n     rx_packets: "));
        assert!(out.lines().skip(1).all(|l| indent(l) == indent(V1.lines().next().unwrap())));
        let names: Vec<&str> = out.lines().skip(1).map(|l| l.trim().split(':').next().unwrap()).collect();
        assert_eq!(&names[..4], ["rx_packets", "rx_bytes", "tx_packets", "tx_bytes"]);
        let at = |n: &str| names.iter().position(|x| *x == n).unwrap();
        assert!(at("rx_out_of_buffer") < at("rx_vport_rdma_unicast_packets"));
        assert!(at("rx_discards_phy") < at("rx_prio0_bytes"));
        assert!(at("tx_prio7_packets") < at("rx_prio3_pause"));
        assert!(!names.contains(&"rx_prio0_pause"), "no PFC counters for priorities without PFC");
    }

    #[test]
    fn parses_back_to_the_counters_at_elapsed() {
        let host = healthy_host(0);
        let t = Duration::from_millis(12_500);
        let p = fabcheck_parse::linux::ethtool_stats::parse(&render(&host, "ens1np0", t).stdout).expect("parses");
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        let nic = &host.nics[0];
        assert_eq!(p.value.counters["rx_prio3_pause"], nic.ethtool_counters["rx_prio3_pause"].at(t));
        assert_eq!(p.value.counters["rx_bytes"], nic.ethtool_counters["rx_bytes"].at(t));
        assert_eq!(p.value.counters["rx_out_of_buffer"], 0);
        let mut faulty = healthy_host(0);
        for f in ["gpu001=out-of-buffer", "gpu001=pfc-off"] {
            apply(&mut faulty, &f.parse::<Fault>().unwrap()).unwrap();
        }
        let p = fabcheck_parse::linux::ethtool_stats::parse(&render(&faulty, "ens1np0", t).stdout).unwrap();
        assert_eq!(p.value.counters["rx_out_of_buffer"], 17 + 25_000 * 12 + 12_500);
        assert!(!p.value.counters.contains_key("rx_prio3_pause"));
    }

    /// With channels, every queue's counters follow the port's, rx queues then tx queues, with
    /// the real dump's names in its order, and the queues add up to the port.
    #[test]
    fn per_queue_counters_like_the_real_dump() {
        let mut host = healthy_host(0);
        crate::build::with_channels(&mut host, 3);
        let t = Duration::from_millis(7_300);
        let out = render(&host, "ens1np0", t).stdout;
        let p = fabcheck_parse::linux::ethtool_stats::parse(&out).expect("parses");
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        let names: Vec<&str> = out.lines().skip(1).map(|l| l.trim().split(':').next().unwrap()).collect();
        let queues = &names[names.iter().position(|n| *n == "rx0_packets").unwrap()..];
        assert_eq!(queues.len(), 3 * (RX_QUEUE.len() + TX_QUEUE.len()));
        assert_eq!(RX_QUEUE.len() + TX_QUEUE.len(), 38, "the dump's names a channel");
        assert_eq!(
            [queues[0], queues[22], queues[23], queues[69]],
            ["rx0_packets", "rx0_cache_waive", "rx1_packets", "tx0_packets"]
        );
        assert_eq!(*queues.last().unwrap(), "tx2_xmit_more");
        let real: Vec<String> = V1_NOINDENT
            .lines()
            .filter_map(|l| l.trim().strip_prefix("rx0_").or_else(|| l.trim().strip_prefix("tx0_")).map(String::from))
            .map(|l| l.split(':').next().unwrap().to_string())
            .collect();
        let ours: Vec<&str> = RX_QUEUE.iter().chain(TX_QUEUE).copied().collect();
        assert_eq!(real, ours, "names and order of the real dump");
        for dir in ["rx", "tx"] {
            for what in ["packets", "bytes"] {
                let sum: u64 = (0..3).map(|q| p.value.counters[&format!("{dir}{q}_{what}")]).sum();
                assert_eq!(sum, p.value.counters[&format!("{dir}_{what}")], "{dir} {what}");
            }
        }
        assert_eq!(p.value.counters["rx2_csum_none"], 0);
        let plain = render(&healthy_host(0), "ens1np0", t).stdout;
        assert!(!plain.contains("rx0_packets"), "the default lab prints no queues");
        assert!(render(&host, "ib0", t).stdout.is_empty(), "IPoIB still has no counters");
    }

    /// Every queue's share grows with the port's counter, for every channel count, millisecond
    /// by millisecond (a share that went down would be a counter reset on a healthy host).
    #[test]
    fn queue_shares_never_go_down_and_add_up() {
        for channels in 1..=63u32 {
            let mut host = healthy_host(0);
            crate::build::with_channels(&mut host, channels);
            let nic = &host.nics[0];
            let mut before: Vec<u64> = vec![0; channels as usize];
            for ms in 0..130 {
                let t = Duration::from_millis(ms);
                let now: Vec<u64> = (0..channels).map(|q| queue_share(nic, "rx_packets", q, t)).collect();
                assert!(now.iter().zip(&before).all(|(n, b)| n >= b), "{channels} channels at {ms} ms");
                assert_eq!(now.iter().sum::<u64>(), nic.ethtool_counters["rx_packets"].at(t));
                before = now;
            }
        }
    }

    #[test]
    fn errors_like_ethtool_6() {
        let host = healthy_host(0);
        assert_eq!(render(&host, "nosuch", Duration::ZERO).status, 96);
        assert_eq!(render(&host, "ib0", Duration::ZERO).stderr, "no stats available\n");
    }
}
