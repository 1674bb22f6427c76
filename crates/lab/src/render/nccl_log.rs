//! NCCL's `NCCL_DEBUG` lines in a nccl-tests job (see `nccl_tests.rs` for which, and in what
//! order): each host's init sequence, the rings rank 0 prints, the inter-node connections made
//! at the first collective. NCCL 2.26's wording, from the moc-h100-roce logs and NCCL's sources.

use super::nccl::{self, Debug, Env, HostNccl, Net};
use super::nccl_tests::{Layout, Rank, Script};
use std::fmt::Write as _;

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
    const INIT: u32 = 24;
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
        if info
            && full
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
    // Topology, rings and completion, once every rank bootstrapped.
    let channels = channels(l);
    let nodes = l.job.nodes.len();
    for r in &l.ranks {
        let k = r.node;
        if !l.info(k) {
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
                if l.info(node) {
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
        if !l.info(k) {
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
