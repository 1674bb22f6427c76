//! NCCL's `NCCL_DEBUG` lines in a nccl-tests job (see `nccl_tests.rs` for which, and in what
//! order): each host's init sequence, the rings rank 0 prints, the inter-node connections made
//! at the first collective. NCCL 2.26's wording, from the moc-h100-roce logs and NCCL's sources.
//!
//! # NCCL 2.4 (`nccl-2.4` hosts)
//! Their ranks print NCCL 2.4.7's lines instead, copied from the published 2.4 logs in the
//! parser's fixtures (horovod/horovod#1523, 2.4.7; NVIDIA/nccl#224, 2.4.2), in the order they
//! show. Every process (once, however many GPUs it drives) lists its socket interfaces
//! (`NET/Socket : Using [0]eth0:10.0.0.1<0>`: 2.4 always loads the socket transport, its
//! bootstrap's), then prints `NET/Plugin : No plugin found (libnccl-net.so).`, `NCCL_IB_DISABLE
//! set by environment to N.` when set, and `NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE ;
//! OOB eth0:10.0.0.1<0>` (a space before the `;`, no `[RO]`); rank 0 then prints the bare `NCCL
//! version 2.4.7+cuda10.0` at any debug level. No `Using network` line (2.4 has none). The
//! rings are connected at init, each rank logging its own hops: `Ring 00 : 3[3] -> 1[1] via
//! P2P/IPC` (the sender, between processes of one host), `Ring 00 : 1 -> 4 [receive] via
//! NET/IB/1/GDRDMA` and `... [send] ...` (each end).
//!
//! The lines whose 2.4 form no published log shows are left out rather than made up: the
//! bootstrap line (2.26's `Bootstrap: Using`), `cudaDriverVersion`, the `NCCL_SOCKET_IFNAME`,
//! `NCCL_IB_HCA` and `NCCL_IB_GID_INDEX` lines (and any variable but `NCCL_IB_DISABLE`),
//! `Failed to open libibverbs.so[.1]` (NCCL 2.4.7's source has it as a WARN at
//! misc/ibvwrap.cc:63; a socket host shows as its `via NET/Socket/N` rings), `NET/IB : No device
//! found.`, the GPU Direct RDMA lines, `Init START`, rank 0's `Channel` ring list, the hop
//! between GPUs of one process (`via P2P/direct pointer` in the source), `Init COMPLETE`,
//! `Destroy COMPLETE` and the COLL launch lines; and all of 2.26's that 2.4 never printed
//! (Bootstrap timings, MNNVL, P2P Chunksize, threadThresholds, CC Off, TUNER/Plugin, PROFILER/
//! Plugin, Init timings, `Connected all rings`, the `/Shared` p2p connections). A host that finds
//! no socket interface fails in the lab's own bootstrap-failure form, as a 2.26 host does.
//!
//! # Bootstrap over the loopback
//! A host whose bootstrap interface is `lo` (`NCCL_SOCKET_IFNAME=lo`) in a job across hosts
//! cannot bootstrap: every rank connects to the root (rank 0) at its bootstrap address, and the
//! root back to every rank. With the root on 127.0.0.1, the other hosts' ranks reach their own
//! loopback, where nothing listens; with another host on it, the root does. No published log
//! shows this failure (NVIDIA/nccl#1053 is one host's init only), so it takes the lab's
//! bootstrap-failure form (the WARN, then nccl-tests' `Test NCCL failure` and `Test failure`
//! lines), with NCCL 2.26.2's own words for a connection refused past its retries
//! (src/misc/socket.cc: 34 retries, 100 ms more sleep each: about a minute), and its
//! `ncclRemoteError` string. Every rank prints its init lines first: the connection comes after
//! `Init START`.

use super::nccl::{self, Debug, Env, HostNccl, Iface, Net};
use super::nccl_tests::{Layout, Rank, Script};
use crate::state::NcclRelease;
use std::fmt::Write as _;

/// The thread offset of a rank's init lines (`pid+24`).
const INIT: u32 = 24;

/// NCCL 2.26's WARN when a connection is still refused after `NCCL_SOCKET_RETRY_CNT` (34) retries.
const CONNECT_REFUSED: &str =
    "socketStartConnect: connect returned Connection refused, exceeded error retry count (35)";

/// How long NCCL 2.26 retries a refused connection before it gives up (s): 34 retries, sleeping
/// 100 ms more before each (`NCCL_SOCKET_RETRY_SLEEP_MSEC`).
const CONNECT_RETRY_S: f64 = 0.1 * (34.0 * 35.0 / 2.0);

/// NCCL's `NAME set by environment to VALUE` for the variables it reads at init (integers end
/// with a period, as `NCCL_PARAM` prints them).
fn env_lines(env: &Env) -> Vec<String> {
    env.iter()
        .filter(|(k, _)| {
            k.starts_with("NCCL_")
                && !matches!(
                    k.as_str(),
                    "NCCL_DEBUG"
                        | "NCCL_DEBUG_SUBSYS"
                        | "NCCL_DEBUG_FILE"
                        | "NCCL_IB_HCA"
                        | "NCCL_IB_GID_INDEX"
                        | "NCCL_SOCKET_IFNAME"
                )
        })
        .map(|(k, v)| {
            if v.trim().parse::<i64>().is_ok() {
                format!("{k} set by environment to {v}.")
            } else {
                format!("{k} set by environment to {v}")
            }
        })
        .collect()
}

/// The init lines of every rank; the first rank that cannot bootstrap, if any.
pub(super) fn init_lines<'l>(s: &mut Script, l: &'l Layout) -> Option<&'l Rank> {
    let n = l.n();
    let mut failing = None;
    for r in &l.ranks {
        let k = r.node;
        let v = &l.views[k];
        let env = &l.job.nodes[k].env;
        let full = r.rank == l.spans[k].0;
        let info = l.info(k);
        let main = l.prefix(r, 0);
        let p = l.prefix(r, INIT);
        let old = v.release == NcclRelease::V2_4;
        if info
            && full
            && !old
            && let Some(ifname) = env.get("NCCL_SOCKET_IFNAME")
        {
            let _ = writeln!(s.out, "{main}NCCL_SOCKET_IFNAME set by environment to {ifname}");
        }
        let Some(oob) = &v.oob else {
            if l.debug[k] >= Debug::Warn {
                s.out.push_str(&l.warn(r, 0, "bootstrap.cc:97", "Bootstrap : no socket interface found"));
            }
            let host = &l.host(k).name;
            let _ = write!(
                s.out,
                "{host}: Test NCCL failure common.cu:1035 'internal error - please report this issue to the NCCL developers / Bootstrap : no socket interface found'\n .. {host} pid {}: Test failure common.cu:1008\n",
                r.pid
            );
            failing.get_or_insert(r);
            continue;
        };
        if old {
            init_lines_2_4(s, l, r, oob);
            continue;
        }
        if info && full {
            let _ = writeln!(s.out, "{main}Bootstrap: Using {}", oob.show());
            let _ = writeln!(s.out, "{main}cudaDriverVersion {}", nccl::CUDA_DRIVER);
        }
        if r.rank == 0 {
            match l.debug[k] {
                Debug::Info => {
                    let _ = writeln!(s.out, "{main}NCCL version {}", nccl::VERSION);
                }
                Debug::Version | Debug::Warn => {
                    let _ = writeln!(s.out, "NCCL version {}", nccl::VERSION);
                }
                Debug::None => {}
            }
        }
        if info && full {
            let _ = writeln!(s.out, "{p}NET/Plugin: Could not find: libnccl-net.so. Using internal net plugin.");
            for line in env_lines(env) {
                let _ = writeln!(s.out, "{p}{line}");
            }
            if let Some(ifname) = env.get("NCCL_SOCKET_IFNAME") {
                let _ = writeln!(s.out, "{p}NCCL_SOCKET_IFNAME set by environment to {ifname}");
            }
            if let Some(hca) = env.get("NCCL_IB_HCA") {
                let _ = writeln!(s.out, "{p}NCCL_IB_HCA set to {hca}");
            }
        }
        if v.no_ibverbs && l.debug[k] >= Debug::Warn {
            s.out.push_str(&l.warn(r, INIT, "misc/ibvsymbols.cc:47", "Failed to open libibverbs.so[.1]"));
        }
        if info {
            if v.no_ib_device {
                let _ = writeln!(s.out, "{p}NET/IB : No device found.");
            }
            match &v.net {
                Some(Net::Ib(devs)) => {
                    let list: Vec<String> =
                        devs.iter().enumerate().map(|(i, d)| format!("[{i}]{}", d.show())).collect();
                    let _ = writeln!(s.out, "{p}NET/IB : Using {} [RO]; OOB {}", list.join(" "), oob.show());
                }
                Some(Net::Socket(ifaces)) => {
                    let list: Vec<String> =
                        ifaces.iter().enumerate().map(|(i, f)| format!("[{i}]{}", f.show())).collect();
                    let _ = writeln!(s.out, "{p}NET/Socket : Using {}", list.join(" "));
                }
                None => {}
            }
            if full {
                let _ = writeln!(s.out, "{p}PROFILER/Plugin: Could not find: libnccl-profiler.so. ");
            }
            let _ = writeln!(s.out, "{p}Using network {}", v.net_name());
            if full {
                // NCCL 2.26 (net_ib.cc) leaves the closing quote out.
                if let (true, Some(Net::Ib(devs))) = (v.gdr, &v.net) {
                    for (i, d) in devs.iter().enumerate() {
                        let _ = writeln!(
                            s.out,
                            "{p}NET/IB : GPU Direct RDMA (nvidia-peermem) enabled for HCA {i} '{}",
                            d.name
                        );
                    }
                }
                let _ = writeln!(
                    s.out,
                    "{p}ncclCommInitRank comm {:#x} rank {} nranks {n} cudaDev {} nvmlDev {} busId {} commId {:#018x} - Init START",
                    r.comm,
                    r.rank,
                    r.dev,
                    r.dev,
                    l.bus_id(r),
                    l.comm_id
                );
            }
        }
    }
    if failing.is_some() {
        return failing;
    }
    if let Some(bad) = bootstrap_over_loopback(s, l) {
        return Some(bad);
    }
    // Topology, rings and completion, once every rank bootstrapped.
    let channels = channels(l);
    let nodes = l.job.nodes.len();
    for r in &l.ranks {
        let k = r.node;
        if !l.info(k) {
            continue;
        }
        if l.views[k].release == NcclRelease::V2_4 {
            rings_2_4(s, l, r, &channels);
            continue;
        }
        let p = l.prefix(r, INIT);
        let full = r.rank == l.spans[k].0;
        if full {
            let _ = writeln!(
                s.out,
                "{p}Bootstrap timings total 0.{:06} (create 0.000117, send 0.000442, recv 0.{:06}, ring 0.000189, delay 0.000001)",
                2_000 + 300 * nodes,
                1_000 + 250 * nodes
            );
            let _ = writeln!(
                s.out,
                "{p}comm {:#x} rank {} nRanks {n} nNodes {nodes} localRanks {} localRank {} MNNVL 0",
                r.comm,
                r.rank,
                l.spans[k].1,
                r.rank - l.spans[k].0
            );
            if r.rank == 0 {
                for (c, ring) in channels.iter().enumerate() {
                    let ranks: Vec<String> = ring.iter().map(u32::to_string).collect();
                    let _ = writeln!(s.out, "{p}Channel {c:02}/{:02} : {}", channels.len(), ranks.join(" "));
                }
            }
            let _ = writeln!(s.out, "{p}P2P Chunksize set to 131072");
            let _ = writeln!(s.out, "{p}threadThresholds 8/8/64 | {}/8/64 | 512 | 512", 8 * n);
            let _ = writeln!(
                s.out,
                "{p}{c} coll channels, {c} collnet channels, 0 nvls channels, {c} p2p channels, 2 p2p channels per peer",
                c = channels.len()
            );
            let _ = writeln!(s.out, "{p}CC Off, workFifoBytes 1048576");
            let _ = writeln!(s.out, "{p}TUNER/Plugin: Could not find: libnccl-tuner.so. Using internal tuner plugin.");
        }
        let _ = writeln!(
            s.out,
            "{p}ncclCommInitRank comm {:#x} rank {} nranks {n} cudaDev {} nvmlDev {} busId {} commId {:#018x} - Init COMPLETE",
            r.comm,
            r.rank,
            r.dev,
            r.dev,
            l.bus_id(r),
            l.comm_id
        );
        if full {
            let _ = writeln!(
                s.out,
                "{p}Init timings - ncclCommInitRank: rank {} nranks {n} total {:.2} (kernels 0.29, alloc 1.37, bootstrap 0.00, allgathers 0.00, topo 0.09, graphs 0.00, connections 0.00, rest 0.00)",
                r.rank,
                1.76 + 0.01 * nodes as f64
            );
        }
    }
    None
}

/// NCCL 2.4.7's init lines of rank `r` (see the module doc): the network lines once per process,
/// the bare version line on rank 0.
fn init_lines_2_4(s: &mut Script, l: &Layout, r: &Rank, oob: &Iface) {
    let k = r.node;
    let v = &l.views[k];
    let p = l.prefix(r, INIT);
    let first_of_process = l.ranks.iter().find(|x| x.node == k && x.pid == r.pid).is_some_and(|x| x.rank == r.rank);
    if l.info(k) && first_of_process {
        let list =
            |shown: Vec<String>| -> String { shown.iter().enumerate().map(|(i, d)| format!(" [{i}]{d}")).collect() };
        let _ = writeln!(s.out, "{p}NET/Socket : Using{}", list(v.socket_ifaces.iter().map(Iface::show).collect()));
        let _ = writeln!(s.out, "{p}NET/Plugin : No plugin found (libnccl-net.so).");
        let disable = l.job.nodes[k].env.get("NCCL_IB_DISABLE").filter(|d| d.trim().parse::<i64>().is_ok());
        if let Some(disable) = disable {
            let _ = writeln!(s.out, "{p}NCCL_IB_DISABLE set by environment to {}.", disable.trim());
        }
        if let Some(Net::Ib(devs)) = &v.net {
            let _ = writeln!(
                s.out,
                "{p}NET/IB : Using{} ; OOB {}",
                list(devs.iter().map(|d| d.show()).collect()),
                oob.show()
            );
        }
    }
    if r.rank == 0 && l.debug[k] >= Debug::Version {
        let _ = writeln!(s.out, "NCCL version {}", nccl::version(NcclRelease::V2_4));
    }
}

/// The `Ring` lines NCCL 2.4 prints at init for rank `r`'s hops, channel by channel: its
/// receive from the previous rank when that is on another host, then its send to the next (over
/// the network, or P2P/IPC to another process of its host).
fn rings_2_4(s: &mut Script, l: &Layout, r: &Rank, channels: &[Vec<u32>]) {
    let p = l.prefix(r, INIT);
    for (c, ring) in channels.iter().enumerate() {
        let Some(at) = ring.iter().position(|&x| x == r.rank) else { continue };
        let prev = &l.ranks[ring[(at + ring.len() - 1) % ring.len()] as usize];
        let next = &l.ranks[ring[(at + 1) % ring.len()] as usize];
        if prev.node != r.node {
            let _ = writeln!(
                s.out,
                "{p}Ring {c:02} : {} -> {} [receive] via {}",
                prev.rank,
                r.rank,
                via(l, r.node, c, false)
            );
        }
        if next.node != r.node {
            let _ =
                writeln!(s.out, "{p}Ring {c:02} : {} -> {} [send] via {}", r.rank, next.rank, via(l, r.node, c, false));
        } else if next.pid != r.pid {
            let _ =
                writeln!(s.out, "{p}Ring {c:02} : {}[{}] -> {}[{}] via P2P/IPC", r.rank, r.dev, next.rank, next.dev);
        }
    }
}

/// A job across hosts whose bootstrap reaches a loopback address (see the module doc): the
/// failing processes print why, once each; the first of them, if any.
fn bootstrap_over_loopback<'l>(s: &mut Script, l: &'l Layout) -> Option<&'l Rank> {
    let root = l.ranks.first()?;
    let on_loopback = |k: usize| l.views[k].oob.as_ref().is_some_and(Iface::loopback);
    let failing: Vec<&Rank> = if on_loopback(root.node) {
        l.ranks.iter().filter(|r| r.node != root.node).collect()
    } else if (0..l.views.len()).any(|k| k != root.node && on_loopback(k)) {
        vec![root]
    } else {
        Vec::new()
    };
    let mut seen = std::collections::BTreeSet::new();
    let failing: Vec<&Rank> = failing.into_iter().filter(|r| seen.insert((r.node, r.pid))).collect();
    let first = *failing.first()?;
    s.wait(CONNECT_RETRY_S);
    for r in failing {
        if l.debug[r.node] >= Debug::Warn {
            s.out.push_str(&l.warn(r, INIT, "misc/socket.cc:544", CONNECT_REFUSED));
        }
        let host = &l.host(r.node).name;
        let _ = write!(
            s.out,
            "{host}: Test NCCL failure common.cu:1035 'remote process exited or there was a network error / {CONNECT_REFUSED}'\n .. {host} pid {}: Test failure common.cu:1008\n",
            r.pid
        );
    }
    Some(first)
}

/// Each channel's ring, starting at rank 0: on every node it enters at the GPU next to the
/// channel's NIC and leaves from the GPU before it.
pub(super) fn channels(l: &Layout) -> Vec<Vec<u32>> {
    let devices = l.views.first().map_or(1, HostNccl::devices);
    let count = (2 * devices).clamp(2, 16);
    (0..count)
        .map(|c| {
            let mut ring = Vec::new();
            for (k, &(first, len)) in l.spans.iter().enumerate() {
                let start = entry(l, k, c);
                ring.extend((0..len).map(|i| first + (start + i) % len.max(1)));
            }
            let zero = ring.iter().position(|&r| r == 0).unwrap_or(0);
            ring.rotate_left(zero);
            ring
        })
        .collect()
}

/// The local index of the rank a channel's ring enters node `k` at.
fn entry(l: &Layout, k: usize, c: usize) -> u32 {
    let len = l.spans[k].1.max(1);
    let devices = l.views[k].lanes() as u32;
    let d = c as u32 % devices;
    d * len / devices
}

/// `NET/IB/0/GDRDMA`, `NET/Socket/1`: node `k`'s device for channel `c`.
fn via(l: &Layout, k: usize, c: usize, shared: bool) -> String {
    let v = &l.views[k];
    let d = c % v.lanes();
    let mut s = format!("NET/{}/{d}", v.net_name());
    if v.gdr && matches!(v.net, Some(Net::Ib(_))) {
        s.push_str("/GDRDMA");
    }
    if shared {
        s.push_str("/Shared");
    }
    s
}

/// The inter-node connections NCCL makes at the first collective.
pub(super) fn connect_lines(s: &mut Script, l: &Layout) {
    const PROXY: u32 = 28;
    let nodes = l.spans.len();
    if nodes < 2 {
        return;
    }
    let p2p = l.coll.p2p();
    let count = if p2p { 2 } else { channels(l).len() };
    for c in 0..count {
        for k in 0..nodes {
            let next = (k + 1) % nodes;
            let (first, len) = l.spans[k];
            let (nfirst, _) = l.spans[next];
            let (send_local, recv_local) = if p2p {
                (len - 1, 0)
            } else {
                let start = entry(l, k, c);
                ((start + len - 1) % len, entry(l, next, c))
            };
            let sender = &l.ranks[(first + send_local) as usize];
            let receiver = &l.ranks[(nfirst + recv_local) as usize];
            let conn = u32::from(p2p);
            // Each end of the connection logs it: the receiving node, then the sending one.
            for (node, logger, direction) in [(next, receiver, "receive"), (k, sender, "send")] {
                // NCCL 2.4 connected its rings at init (`rings_2_4`).
                if l.info(node) && l.views[node].release != NcclRelease::V2_4 {
                    let _ = writeln!(
                        s.out,
                        "{}Channel {c:02}/{conn} : {}[{}] -> {}[{}] [{direction}] via {}",
                        l.prefix(logger, PROXY),
                        sender.rank,
                        sender.dev,
                        receiver.rank,
                        receiver.dev,
                        via(l, node, c, p2p)
                    );
                }
            }
        }
    }
    for k in 0..nodes {
        if !l.info(k) || l.views[k].release == NcclRelease::V2_4 {
            continue;
        }
        let r = l.first_rank_of(k);
        let env = &l.job.nodes[k].env;
        if let (Some(gid), Some(Net::Ib(_))) = (env.get("NCCL_IB_GID_INDEX"), &l.views[k].net) {
            let _ = writeln!(s.out, "{}NCCL_IB_GID_INDEX set by environment to {gid}.", l.prefix(r, 4));
        }
        if !p2p {
            let _ = writeln!(
                s.out,
                "{}Connected all rings, use ring PXN 0 GDR {}",
                l.prefix(r, PROXY),
                u8::from(l.views[k].gdr)
            );
        }
    }
}
