//! Judging one nccl-tests run: did it finish, use the right transport, HCAs and GPUDirect, get
//! correct results, and reach the bus bandwidth it should.

use super::env::NcclFacts;
use super::reference::Floor;
use fabcheck_model::{BenchPoint, Finding, Severity};
use fabcheck_parse::nccl::nccl_tests::{NcclError, NcclRun};
use std::collections::{BTreeMap, BTreeSet};

/// Bus bandwidth by size (out-of-place, nccl-tests' yardstick), rows without a figure left out.
pub fn curve(run: &NcclRun) -> Vec<BenchPoint> {
    run.rows
        .iter()
        .filter_map(|r| Some(BenchPoint { size_bytes: r.size_bytes, busbw_gbs: r.out_of_place.busbw_gbs? }))
        .collect()
}

/// The best bus bandwidth at sizes the floor covers.
pub fn best_at(rows: &[BenchPoint], min_bytes: u64) -> Option<f64> {
    rows.iter().filter(|p| p.size_bytes >= min_bytes).map(|p| p.busbw_gbs).reduce(f64::max)
}

/// What is judged, besides the parsed run.
pub struct Context<'a> {
    /// Run label (`all hosts`, `pair gpu001+gpu002`).
    pub label: &'a str,
    /// Hosts in the run; the first launched it.
    pub hosts: &'a [String],
    /// What the audit found NCCL should use.
    pub facts: &'a NcclFacts,
    /// The floor, when one is known.
    pub floor: Option<&'a Floor>,
    /// The evidence file of the run's output.
    pub evidence: &'a str,
    /// The run had one host alone: no network between its ranks.
    pub intra_node: bool,
}

/// Whether a saved run's ranks (nccl-tests' `#  Rank` lines) were all on one host. A log whose
/// NCCL lines name one host only may be one host's part of a larger job: that says nothing.
pub fn on_one_host(run: &NcclRun) -> bool {
    run.ranks.first().is_some_and(|first| run.ranks.iter().all(|r| r.host == first.host))
}

/// A finding of the run `ctx`: its output as evidence, its hosts as the path.
fn on_run(f: Finding, ctx: &Context) -> Finding {
    let mut f = f.evidence(ctx.evidence);
    f.path = ctx.hosts.to_vec();
    f
}

/// `nccl.failed` for a run that measured nothing, quoting NCCL's first error: when it started
/// (nccl-tests printed its header) or failed (an error NCCL does not carry on after) and holds
/// no result table, whatever the launcher's exit status. A log that is only an excerpt of NCCL's
/// init lines says neither, and is judged on what it shows.
pub fn no_table(run: &NcclRun, ctx: &Context) -> Option<Finding> {
    let started = run.params.is_some() || !run.ranks.is_empty() || fatal_errors(run).next().is_some();
    if !run.rows.is_empty() || !started {
        return None;
    }
    // nccl-tests' closing summary without a row read: the table was there, in a layout not read.
    let why = match run.avg_busbw_gbs.is_some() || run.out_of_bounds.is_some() {
        true => "its result table was not understood: no row read",
        false => "no result table: it measured no size",
    };
    Some(did_not_finish(ctx, why, &first_error(run)))
}

/// `nccl.failed` on the run's launching host: `LABEL: nccl-tests did not finish (WHY)DETAIL`.
fn did_not_finish(ctx: &Context, why: &str, detail: &str) -> Finding {
    let f = Finding::new(
        "nccl.failed",
        Severity::Critical,
        ctx.hosts.first().map(String::as_str).unwrap_or("?"),
        format!("{}: nccl-tests did not finish ({why}){detail}", ctx.label),
    )
    .expected_actual("a finished run", why);
    on_run(f, ctx)
}

/// NCCL warnings after which NCCL carries on, as real logs show them: a topology search
/// falling back to a simpler order (nccl-tests#287's log), RCCL's advice on NUMA balancing and
/// `iommu=pt` (RCCL#1261's), libibverbs missing, after which NCCL uses sockets (nccl-tests#82's;
/// the transport finding says what that costs).
const ADVISORY: [&str; 4] =
    ["falling back", "NUMA auto balancing", "Missing \"iommu=pt\"", "Failed to open libibverbs"];

/// The errors of `run` that end a run: its warnings but the advisory ones.
fn fatal_errors(run: &NcclRun) -> impl Iterator<Item = &NcclError> {
    run.errors.iter().filter(|e| !ADVISORY.iter().any(|a| e.message.contains(a)))
}

/// `; NCCL's first error: HOST: MESSAGE` when the output has one: the launcher's own last lines
/// (mpirun's banner) seldom say why the ranks stopped. A completion error comes first, else the
/// first error that ends a run: the cause the later ones (`Test failure common.cu:...`) follow
/// from.
fn first_error(run: &NcclRun) -> String {
    let completion = run.errors.iter().find(|e| e.status.is_some());
    completion.or_else(|| fatal_errors(run).next()).map_or(String::new(), |e| {
        format!("; NCCL's first error: {}{}", e.host.as_deref().map_or(String::new(), |h| format!("{h}: ")), e.message)
    })
}

/// Findings about a run that finished (exit status 0) and parsed.
pub fn judge(run: &NcclRun, ctx: &Context) -> Vec<Finding> {
    let device = ctx.hosts.first().map(String::as_str).unwrap_or("?");
    let on_path = |f: Finding| on_run(f, ctx);
    let mut findings = Vec::new();
    findings.extend(separate_processes(run, device).map(on_path));
    findings.extend(mixed_versions(run, device).map(on_path));
    // One host alone has no network in its run: NCCL's network choices (transport, HCAs,
    // GPUDirect, socket interfaces) are judged on runs between hosts only.
    if !ctx.intra_node {
        let expected_transport = if ctx.facts.infiniband { "IB" } else { "RoCE" };
        // NCCL's own lines name the host that fell back to sockets; with none, the run as a whole.
        let socket_hosts: Vec<&str> = run.hosts.iter().filter(|(_, n)| n.socket).map(|(h, _)| h.as_str()).collect();
        let run_level = run.transport.as_deref().filter(|t| *t != expected_transport).map(|t| vec![(device, t)]);
        let wrong_transport: Vec<(&str, &str)> = if socket_hosts.is_empty() {
            run_level.unwrap_or_default()
        } else {
            socket_hosts.iter().map(|h| (*h, "Socket")).collect()
        };
        for (host, t) in &wrong_transport {
            findings.push(on_path(
                Finding::new(
                    "nccl.wrong_transport",
                    Severity::Critical,
                    host,
                    format!("{}: NCCL on {host} ran over {t}, not {expected_transport}: collectives go through the kernel's TCP stack at a fraction of the fabric's speed", ctx.label),
                )
                .expected_actual(expected_transport, *t),
            ));
        }
        // Each host against its own audited devices (names can differ between hosts).
        let wanted = |host: &str| ctx.facts.per_host.get(host).unwrap_or(&ctx.facts.hcas);
        let is_wrong = |host: &str, h: &String| !wanted(host).iter().any(|want| hca_name(h) == want);
        let per_host: Vec<(&str, Vec<&String>)> = if run.hosts.values().any(|n| !n.hcas.is_empty()) {
            run.hosts.iter().map(|(h, n)| (h.as_str(), n.hcas.iter().filter(|x| is_wrong(h, x)).collect())).collect()
        } else {
            vec![(device, run.hcas.iter().filter(|x| is_wrong(device, x)).collect())]
        };
        for (host, wrong) in per_host.into_iter().filter(|(_, w)| !w.is_empty() && !ctx.facts.hcas.is_empty()) {
            let used: Vec<&str> = run
                .hosts
                .get(host)
                .map_or(run.hcas.iter().map(String::as_str).collect(), |n| n.hcas.iter().map(String::as_str).collect());
            findings.push(on_path(
                Finding::new(
                    "nccl.wrong_hca",
                    Severity::Error,
                    host,
                    format!(
                        "{}: NCCL on {host} used {} besides the audited RDMA NICs",
                        ctx.label,
                        wrong.iter().map(|h| h.as_str()).collect::<Vec<_>>().join(", ")
                    ),
                )
                .expected_actual(wanted(host).join(","), used.join(",")),
            ));
        }
        // Over sockets there is no GPUDirect to speak of: the transport finding says it all.
        if run.gdr == Some(false) && wrong_transport.is_empty() {
            findings.push(on_path(
                Finding::new(
                    "nccl.gdr_disabled",
                    Severity::Error,
                    device,
                    format!("{}: GPUDirect RDMA is not in use: transfers are staged through host memory", ctx.label),
                )
                .expected_actual("GDRDMA", "off"),
            ));
        }
        // One host without GPUDirect among hosts with it: the run's flag says "used", yet every
        // transfer into that host's GPUs is staged through its host memory.
        let some_host_uses_it = run.hosts.values().any(|n| n.gdr_receive == Some(true));
        if run.gdr == Some(true) && some_host_uses_it {
            let without = run
                .hosts
                .iter()
                .filter(|(h, n)| n.gdr_receive == Some(false) && !wrong_transport.iter().any(|(w, _)| w == h));
            for (host, _) in without {
                findings.push(on_path(
                    Finding::new(
                        "nccl.gdr_disabled",
                        Severity::Error,
                        host,
                        format!(
                            "{}: NCCL on {host} receives without GPUDirect RDMA while other hosts use it: transfers into its GPUs are staged through host memory",
                            ctx.label
                        ),
                    )
                    .expected_actual("GDRDMA", format!("off on {host}")),
                ));
            }
        }
        findings.extend(socket_interfaces(run, ctx).into_iter().map(on_path));
        findings.extend(super::loopback::socket_loopback(run, ctx).into_iter().map(on_path));
        findings.extend(hca_mismatch(run, ctx).into_iter().map(on_path));
        findings.extend(nic_shared(run, ctx).into_iter().map(on_path));
    }
    // `#wrong` and `Out of bounds` speak of a results table: without one there is nothing to count.
    match run.wrong {
        _ if run.rows.is_empty() => {}
        Some(0) => {}
        Some(wrong) => findings.push(on_path(
            Finding::new(
                "nccl.wrong_results",
                Severity::Critical,
                device,
                format!("{}: {wrong} values were wrong (-c 1 checks every result)", ctx.label),
            )
            .expected_actual("0 wrong", wrong.to_string()),
        )),
        // A bandwidth figure is still a figure; that nobody looked at the data is worth saying.
        None => findings.push(on_path(
            Finding::new(
                "nccl.results_unchecked",
                Severity::Info,
                device,
                format!(
                    "{}: the results were not checked (nccl-tests -c 0: every #wrong is N/A), so corrupted transfers would have gone unseen",
                    ctx.label
                ),
            )
            .expected_actual("-c 1", "-c 0"),
        )),
    }
    // Completion errors (a status or vendor error) mean lost work; other WARN lines are context.
    let mut reported: Vec<(&str, &str)> = Vec::new();
    for e in run.errors.iter().filter(|e| e.status.is_some() || e.vendor_err.is_some()) {
        let host = e.host.as_deref().unwrap_or(device);
        if reported.contains(&(host, e.message.as_str())) {
            continue;
        }
        reported.push((host, e.message.as_str()));
        let mut actual: Vec<String> = Vec::new();
        actual.extend(e.status.map(|s| format!("status {s}")));
        actual.extend(e.vendor_err.map(|v| format!("vendor err {v}")));
        actual.extend(e.direction.as_ref().map(|d| format!("on {d}")));
        actual.extend(e.peer.as_ref().map(|p| format!("peer {p}")));
        actual.extend(e.hca.as_ref().map(|h| format!("hca {h}")));
        actual.extend(e.local_gid.as_ref().map(|g| format!("local GID {g}")));
        actual.extend(e.remote_gid.as_ref().map(|g| format!("remote GID {g}")));
        findings.push(on_path(
            Finding::new("nccl.failed", Severity::Critical, host, format!("{}: {}", ctx.label, e.message))
                .expected_actual("no NCCL error", actual.join(", ")),
        ));
    }
    if let Some(floor) = ctx.floor {
        let rows = curve(run);
        match best_at(&rows, floor.min_bytes) {
            Some(best) if best < floor.min_busbw_gbs => {
                let causes: Vec<String> = findings.iter().map(|f| f.code.clone()).collect();
                // One host alone has no network in between: a slow run is its GPUs' side.
                let (code, side) = match (ctx.intra_node, ctx.hosts) {
                    (true, [host, ..]) => (
                        "nccl.intra_node_slow",
                        format!(
                            ": {host} alone (its GPUs over NVLink/PCIe, no network) is slow, the compute side (GPU, NVLink, PCIe){}",
                            super::triage::topology_hint(ctx.facts, host)
                        ),
                    ),
                    _ => ("nccl.busbw_low", String::new()),
                };
                let mut low = on_path(
                    Finding::new(
                        code,
                        Severity::Error,
                        device,
                        format!(
                            "{}: bus bandwidth {best:.1} GB/s, below the {:.1} GB/s floor ({}){side}",
                            ctx.label, floor.min_busbw_gbs, floor.source
                        ),
                    )
                    .expected_actual(format!("≥ {:.1} GB/s", floor.min_busbw_gbs), format!("{best:.1} GB/s")),
                );
                // The run's own findings (sockets, wrong HCA, no GPUDirect) explain the bandwidth.
                low.caused_by = causes;
                low.caused_by.dedup();
                findings.push(low);
            }
            _ => {}
        }
    }
    findings
}

/// Interface names of virtual bridges and container networks: NCCL's socket transport over one
/// of them goes through the host's software switch, or nowhere.
const VIRTUAL_INTERFACES: [&str; 9] = ["virbr", "docker", "veth", "cni", "flannel", "cali", "br-", "lxcbr", "podman"];

/// A host whose NCCL socket list takes a virtual interface: NCCL_SOCKET_IFNAME is not narrow
/// enough (its bootstrap and any socket fallback may pick it).
fn socket_interfaces(run: &NcclRun, ctx: &Context) -> Vec<Finding> {
    run.hosts
        .iter()
        .filter_map(|(host, net)| {
            let virtual_: Vec<&str> = net
                .socket_interfaces
                .iter()
                .map(String::as_str)
                .filter(|i| VIRTUAL_INTERFACES.iter().any(|v| i.starts_with(v)))
                .collect();
            (!virtual_.is_empty()).then(|| {
                Finding::new(
                    "nccl.socket_ifname_unrestricted",
                    Severity::Warning,
                    host,
                    format!(
                        "{}: NCCL on {host} may use {} for sockets: set NCCL_SOCKET_IFNAME to the interface the hosts talk on",
                        ctx.label,
                        virtual_.join(", ")
                    ),
                )
                .expected_actual("no virtual interface", net.socket_interfaces.join(","))
            })
        })
        .collect()
}

/// Hosts whose ranks use different HCA names: with one NCCL_IB_HCA for every host, the rails
/// of a rail-optimized fabric no longer line up.
fn hca_mismatch(run: &NcclRun, ctx: &Context) -> Option<Finding> {
    let lists: std::collections::BTreeMap<&str, Vec<&str>> = run
        .hosts
        .iter()
        .filter(|(_, n)| !n.hcas.is_empty())
        .map(|(h, n)| {
            let mut names: Vec<&str> = n.hcas.iter().map(|x| hca_name(x)).collect();
            names.sort_unstable();
            names.dedup();
            (h.as_str(), names)
        })
        .collect();
    let mut distinct: Vec<&Vec<&str>> = lists.values().collect();
    distinct.sort();
    distinct.dedup();
    if distinct.len() < 2 {
        return None;
    }
    let each: Vec<String> = lists.iter().map(|(h, l)| format!("{h}: {}", l.join(","))).collect();
    Some(
        Finding::new(
            "nccl.hca_mismatch",
            Severity::Error,
            ctx.hosts.first().map(String::as_str).unwrap_or("?"),
            format!("{}: NCCL used different HCAs on different hosts ({})", ctx.label, each.join("; ")),
        )
        .expected_actual("the same HCAs on every host", each.join("; ")),
    )
}

/// A host whose GPUs funnel through fewer NICs than NCCL listed while it has at least as many
/// GPUs as NICs: the idle NICs' bandwidth is lost. (Two GPUs on one NIC is normal by itself: a
/// ring enters a host at one GPU and leaves it from another through the same NIC.) The hosts'
/// `nvidia-smi topo -m` says whether the idle NICs have GPUs next to them.
fn nic_shared(run: &NcclRun, ctx: &Context) -> Vec<Finding> {
    let mut findings = Vec::new();
    for (host, net) in run.hosts.iter().filter(|(_, n)| !n.gpus_by_device.is_empty()) {
        let listed: Vec<&str> = net.hcas.iter().map(|h| hca_name(h)).collect();
        let used = |i: usize| net.gpus_by_device.contains_key(&(i as u32));
        let idle: Vec<&str> = listed.iter().enumerate().filter(|(i, _)| !used(*i)).map(|(_, h)| *h).collect();
        let mut gpus: Vec<u32> = net.gpus_by_device.values().flatten().copied().collect();
        gpus.extend(run.ranks.iter().filter(|r| &r.host == host).map(|r| r.device));
        gpus.sort_unstable();
        gpus.dedup();
        let funnelled = net.gpus_by_device.values().any(|g| g.len() > 1);
        if idle.is_empty() || !funnelled || gpus.len() < listed.len() {
            continue;
        }
        let busy: Vec<String> = net
            .gpus_by_device
            .iter()
            .map(|(i, g)| {
                let nic = listed.get(*i as usize).copied().map_or(format!("NET/IB/{i}"), str::to_string);
                let g: Vec<String> = g.iter().map(|g| format!("GPU{g}")).collect();
                format!("{nic}: {}", g.join(","))
            })
            .collect();
        let placement = ctx.facts.near_gpus.get(host).map(|near| {
            let near_idle: Vec<String> = idle
                .iter()
                .filter_map(|nic| {
                    let g = near.get(*nic).filter(|g| !g.is_empty())?;
                    Some(format!("{nic} is next to {}", g.iter().map(|g| format!("GPU{g}")).collect::<Vec<_>>().join(",")))
                })
                .collect();
            if near_idle.is_empty() {
                "; nvidia-smi topo -m puts no GPU next to (PIX/PXB) the idle NICs: NCCL sees no reason to use them (a hidden or flat PCIe topology, as in a VM without NCCL_TOPO_FILE)".to_string()
            } else {
                format!("; nvidia-smi topo -m: {}, yet NCCL does not use it", near_idle.join("; "))
            }
        });
        findings.push(
            Finding::new(
                "nccl.nic_shared",
                Severity::Error,
                host,
                format!(
                    "{}: on {host}, NCCL's channels use {} of the {} NICs it listed for {} GPUs ({}); left idle: {}{}",
                    ctx.label,
                    net.gpus_by_device.len(),
                    listed.len(),
                    gpus.len(),
                    busy.join("; "),
                    idle.join(","),
                    placement.unwrap_or_default()
                ),
            )
            .expected_actual(
                format!("traffic on all of {}", listed.join(",")),
                format!("{}; idle: {}", busy.join("; "), idle.join(",")),
            ),
        );
    }
    findings
}

/// `nccl.not_mpi` when a rank number is listed more than once: nccl-tests built without MPI
/// (`make MPI=1`) and started by mpirun or srun runs each process alone, each printing itself as
/// rank 0, so its bandwidth is one process's over its own GPUs and no byte crossed the network.
/// A common mistake (nccl-tests#281), and one that a bandwidth floor alone would pass.
fn separate_processes(run: &NcclRun, device: &str) -> Option<Finding> {
    let ranks: BTreeSet<u32> = run.ranks.iter().map(|r| r.rank).collect();
    let listed = run.ranks.len();
    (ranks.len() < listed).then(|| {
        let hosts: BTreeSet<&str> = run.ranks.iter().map(|r| r.host.as_str()).collect();
        Finding::new(
            "nccl.not_mpi",
            Severity::Critical,
            device,
            format!(
                "{listed} processes on {} each ran alone ({} distinct rank numbers): nccl-tests was not built with MPI (make MPI=1), so its bandwidth is not the network's",
                hosts.into_iter().collect::<Vec<_>>().join(", "),
                ranks.len()
            ),
        )
        .expected_actual(format!("ranks 0..{} of one run", listed - 1), format!("{} distinct of {listed}", ranks.len()))
    })
}

/// `nccl.version_mismatch` when the hosts printed different NCCL releases (the CUDA build after
/// `+` apart). NCCL prints its version from a communicator's rank 0 only, and refuses a job whose
/// ranks mix releases (`Mismatched NCCL version detected`, a `nccl.failed`), so this shows where
/// several runs' logs are one output: processes that each ran alone, or runs saved together. A
/// host's container or module picking up another NCCL is how it happens.
fn mixed_versions(run: &NcclRun, device: &str) -> Option<Finding> {
    let mut hosts_by_release: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (host, net) in &run.hosts {
        if let Some(version) = &net.nccl_version {
            let release = version.split('+').next().unwrap_or(version);
            hosts_by_release.entry(release).or_default().push(host);
        }
    }
    (hosts_by_release.len() > 1).then(|| {
        let each: Vec<String> =
            hosts_by_release.iter().map(|(release, hosts)| format!("{release} on {}", hosts.join(", "))).collect();
        Finding::new(
            "nccl.version_mismatch",
            Severity::Error,
            device,
            format!("the hosts run different NCCL releases ({}): every rank of a job must run one", each.join("; ")),
        )
        .expected_actual("one NCCL release on every host", format!("{} releases", hosts_by_release.len()))
    })
}

/// `mlx5_0:1/RoCE` and `mlx5_0:1` name the device `mlx5_0`.
fn hca_name(h: &str) -> &str {
    h.split([':', '/']).next().unwrap_or(h)
}

/// A run that did not finish (timeout, launcher error, crash): `nccl.failed` with its output's
/// last lines and NCCL's first error, and what its NCCL lines still tell of the cause (its
/// ranks bootstrapping over the loopback).
pub fn failed_run(ctx: &Context, why: &str, output: &str) -> Vec<Finding> {
    let parsed = fabcheck_parse::nccl::nccl_tests::parse(output).ok().map(|p| p.value);
    let mut finding = failed(ctx, why, output);
    if let Some(run) = &parsed {
        finding.message.push_str(&first_error(run));
    }
    let mut findings = vec![finding];
    if let Some(run) = parsed.filter(|_| !ctx.intra_node) {
        findings.extend(super::loopback::socket_loopback(&run, ctx).into_iter().map(|f| on_run(f, ctx)));
    }
    findings
}

/// `nccl.failed` for a run that did not finish, with its output's last lines.
fn failed(ctx: &Context, why: &str, output: &str) -> Finding {
    let tail: Vec<&str> = output.lines().rev().filter(|l| !l.trim().is_empty()).take(5).collect();
    let tail: Vec<&str> = tail.into_iter().rev().collect();
    let last = if tail.is_empty() { "none".to_string() } else { tail.join(" ⏎ ") };
    did_not_finish(ctx, why, &format!("; last lines: {last}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two hosts in NCCL's own line format: both load the socket transport too (its interface
    /// list printed), gpu02's list takes the libvirt bridge, and the data goes over NET/IB.
    const IB_WITH_SOCKET_LISTS: &str = "\
gpu01:100:110 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>
gpu01:100:110 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [RO]; OOB eth0:10.0.0.1<0>
gpu02:200:210 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.2<0> [1]virbr0:192.168.122.1<0>
gpu02:200:210 [0] NCCL INFO NET/IB : Using [0]mlx5_1:1/IB [RO]; OOB eth0:10.0.0.2<0>
gpu01:100:110 [0] NCCL INFO Using network IB
gpu01:100:110 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0/GDRDMA
gpu02:200:210 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [receive] via NET/IB/0/GDRDMA
";

    /// A run between `hosts` labelled `all hosts`, with no floor.
    fn judge_all_hosts(run: &NcclRun, hosts: &[String], facts: &NcclFacts) -> Vec<Finding> {
        judge(run, &all_hosts(hosts, facts))
    }

    /// The context of a run between `hosts` labelled `all hosts`, with no floor.
    fn all_hosts<'a>(hosts: &'a [String], facts: &'a NcclFacts) -> Context<'a> {
        Context { label: "all hosts", hosts, facts, floor: None, evidence: "e", intra_node: false }
    }

    fn judge_text(text: &str) -> Vec<Finding> {
        let run = fabcheck_parse::nccl::nccl_tests::parse(text).expect("parses").value;
        let facts = NcclFacts { infiniband: true, ..NcclFacts::default() };
        let hosts = vec!["gpu01".to_string(), "gpu02".to_string()];
        judge_all_hosts(&run, &hosts, &facts)
    }

    #[test]
    fn the_one_host_receiving_without_gpudirect_is_named_though_the_run_uses_it() {
        let text = "\
gpu01:100:110 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module or not supported by GPU)
gpu01:100:110 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/IB/0
gpu01:100:110 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0
gpu02:200:210 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [receive] via NET/IB/0/GDRDMA
gpu02:200:210 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [send] via NET/IB/0
";
        let run = fabcheck_parse::nccl::nccl_tests::parse(text).unwrap().value;
        assert_eq!(run.gdr, Some(true), "the run as a whole used it");
        let found = judge_text(text);
        let gdr: Vec<(&str, &str)> = found
            .iter()
            .filter(|f| f.code == "nccl.gdr_disabled")
            .map(|f| (f.device.as_str(), f.actual.as_str()))
            .collect();
        assert_eq!(gdr, [("gpu01", "off on gpu01")], "the host's own, and no run-level one");
        // Both hosts receiving through GDRDMA, sends without (GDR read off): nothing to say.
        let healthy = text.replace("[receive] via NET/IB/0\n", "[receive] via NET/IB/0/GDRDMA\n");
        assert!(!judge_text(&healthy).iter().any(|f| f.code == "nccl.gdr_disabled"), "{healthy}");
        // The run said GDR was used (an `Enabled for GPU` path line) but no host's receive
        // channel shows it: no host is singled out.
        let none = "\
gpu01:100:110 [0] NCCL INFO GPU Direct RDMA Enabled for GPU 81000 / HCA 0 (distance 4 <= 5), read 0
gpu01:100:110 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/IB/0
gpu02:200:210 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [receive] via NET/IB/0
";
        assert!(!judge_text(none).iter().any(|f| f.code == "nccl.gdr_disabled" && f.actual.starts_with("off on")));
    }

    #[test]
    fn a_run_without_result_checks_says_so_and_a_checked_one_does_not() {
        for text in [
            include_str!(
                "../../crates/parse/tests/fixtures/nccl_tests/issue-nccl-tests-82-broadcast-socket-ib-disabled-no-libibverbs-PARTIAL.log"
            ),
            // A whole -c 0 run: its footer says `Out of bounds values : 0 OK` all the same.
            include_str!(
                "../../crates/parse/tests/fixtures/nccl_tests/dstack-docs-gcp-a3mega-all_gather-tcpxo-c0-na-wrong.txt"
            ),
        ] {
            let unchecked = judge_text(text);
            let f = unchecked.iter().find(|f| f.code == "nccl.results_unchecked").expect("-c 0 is said");
            assert_eq!((f.severity, f.expected.as_str(), f.actual.as_str()), (Severity::Info, "-c 1", "-c 0"));
            assert!(!unchecked.iter().any(|f| f.code == "nccl.wrong_results"), "unknown is not wrong");
        }
        let checked = judge_text(include_str!(
            "../../crates/parse/tests/fixtures/nccl_tests/gcp-a3mega-h100-2node-16gpu-all_reduce_perf-tcpxo.txt"
        ));
        assert!(!checked.iter().any(|f| f.code == "nccl.results_unchecked" || f.code == "nccl.wrong_results"));
    }

    #[test]
    fn processes_that_each_ran_alone_are_critical() {
        let text = include_str!(
            "../../crates/parse/tests/fixtures/nccl_tests/h100-2node-nonmpi-build-12-procs-all-rank0-header-fragment-PROVENANCE-WEAK.txt"
        );
        let found = judge_text(text);
        let f = found.iter().find(|f| f.code == "nccl.not_mpi").expect("nccl.not_mpi");
        assert_eq!(f.severity, Severity::Critical);
        assert_eq!((f.expected.as_str(), f.actual.as_str()), ("ranks 0..11 of one run", "1 distinct of 12"));
        assert!(f.message.contains("12 processes on cnode2-001, cnode2-002"), "{}", f.message);
        // One MPI run's 16 distinct ranks are nothing of the kind.
        let mpi = include_str!(
            "../../crates/parse/tests/fixtures/nccl_tests/rtx6000d-cx8-2node-16rank-alltoall-nccl-tests-2.18.3-nccl2.30.3-unalign-ompi-help-between-header-and-rows-PROVENANCE-WEAK.txt"
        );
        assert!(!judge_text(mpi).iter().any(|f| f.code == "nccl.not_mpi"));
    }

    #[test]
    fn hosts_on_different_nccl_releases_are_named() {
        let text = include_str!(
            "../../crates/parse/tests/fixtures/nccl_tests/v100-2host-4proc-nonmpi-build-nranks1-x4-interleaved-tables-mixed-nccl-2.26.2-2.26.5-rocep-roce-avg0-ssbandjl.log"
        );
        let found = judge_text(text);
        let f = found.iter().find(|f| f.code == "nccl.version_mismatch").expect("nccl.version_mismatch");
        assert_eq!(f.severity, Severity::Error);
        assert_eq!(
            f.message,
            "the hosts run different NCCL releases (2.26.2 on gdr116; 2.26.5 on gdr114): every rank of a job must run one"
        );
        // The same release built for another CUDA is one release.
        let same = IB_WITH_SOCKET_LISTS.to_string()
            + "gpu01:100:110 [0] NCCL INFO NCCL version 2.26.2+cuda12.2\ngpu02:200:210 [0] NCCL INFO NCCL version 2.26.2+cuda12.8\n";
        assert!(!judge_text(&same).iter().any(|f| f.code == "nccl.version_mismatch"));
    }

    #[test]
    fn an_ib_run_that_also_lists_socket_interfaces_is_not_a_socket_run() {
        let run = fabcheck_parse::nccl::nccl_tests::parse(IB_WITH_SOCKET_LISTS).unwrap().value;
        assert_eq!(run.transport.as_deref(), Some("IB"));
        assert!(run.hosts.values().all(|h| !h.socket), "{:?}", run.hosts);
        assert_eq!(run.hosts["gpu02"].socket_interfaces, ["eth0", "virbr0"]);
        let found = judge_text(IB_WITH_SOCKET_LISTS);
        let codes: Vec<(&str, &str)> = found.iter().map(|f| (f.code.as_str(), f.device.as_str())).collect();
        assert!(!codes.iter().any(|(c, _)| *c == "nccl.wrong_transport"), "{codes:?}");
        assert!(codes.contains(&("nccl.socket_ifname_unrestricted", "gpu02")), "{codes:?}");
        assert!(!codes.contains(&("nccl.socket_ifname_unrestricted", "gpu01")), "{codes:?}");
    }

    /// NCCL 2.4.7's real log (horovod/horovod#1523): every rank lists ib0 for sockets before
    /// NET/IB, and no `Using network` line follows: an IB run, no host a socket one.
    #[test]
    fn an_old_socket_list_before_net_ib_is_no_wrong_transport() {
        let run = fixture("issue-horovod-1523-nccl2.4.7-socket-list-before-net-ib-no-using-network-PARTIAL.log");
        let facts = NcclFacts { infiniband: true, ..NcclFacts::default() };
        let hosts = vec!["master_node".to_string(), "secondary_node".to_string()];
        let found = judge_all_hosts(&run, &hosts, &facts);
        assert!(found.is_empty(), "{found:?}");
    }

    /// A real log of the nccl_tests fixtures, parsed.
    fn fixture(name: &str) -> NcclRun {
        let path = format!("{}/crates/parse/tests/fixtures/nccl_tests/{name}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(path).expect("fixture");
        fabcheck_parse::nccl::nccl_tests::parse(&text).expect("parses").value
    }

    /// NCCL 2.1's log (horovod/horovod#489) with `INFO` and no `NCCL`: its bootstrap interface
    /// eth0 is no socket run.
    #[test]
    fn a_bare_info_ib_run_is_judged_as_ib() {
        let run = fixture("issue-horovod-489-nccl2.1-info-without-nccl-marker-internal-network-ib-mlx4-PARTIAL.log");
        let facts = NcclFacts { infiniband: true, ..NcclFacts::default() };
        let found = judge_all_hosts(&run, &["nmyjs-202-75".to_string(), "other".to_string()], &facts);
        assert!(found.is_empty(), "{found:?}");
        // The same run read by a RoCE audit is the wrong transport, named by the run.
        let found = judge_all_hosts(&run, &["nmyjs-202-75".to_string()], &NcclFacts::default());
        let codes: Vec<(&str, &str)> = found.iter().map(|f| (f.code.as_str(), f.actual.as_str())).collect();
        assert_eq!(codes, [("nccl.wrong_transport", "IB")]);
    }

    /// NVIDIA/nccl#1053: NCCL_SOCKET_IFNAME=lo: the loopback is named on its host, beside the
    /// socket transport itself.
    #[test]
    fn the_loopback_as_socket_interface_is_an_error_on_its_host() {
        let run = fixture("issue-nccl-1053-socket-ifname-lo-127.0.0.1-ib-disabled-PARTIAL.log");
        let hosts = vec!["axa".to_string(), "other".to_string()];
        let found = judge_all_hosts(&run, &hosts, &NcclFacts::default());
        let codes: Vec<(&str, &str, &str)> =
            found.iter().map(|f| (f.code.as_str(), f.device.as_str(), f.actual.as_str())).collect();
        assert!(codes.contains(&("nccl.socket_loopback", "axa", "lo")), "{codes:?}");
        assert!(codes.contains(&("nccl.wrong_transport", "axa", "Socket")), "{codes:?}");
        let lo = found.iter().find(|f| f.code == "nccl.socket_loopback").expect("loopback");
        assert_eq!(lo.severity, Severity::Error);
        // An IB run whose hosts list only routed interfaces has none.
        assert!(!judge_text(IB_WITH_SOCKET_LISTS).iter().any(|f| f.code == "nccl.socket_loopback"));
    }

    /// NCCL 2.26 over IB prints no socket list: a loopback bootstrap shows only as `Bootstrap:
    /// Using lo:...` or the `OOB lo:...` of its NET/IB line, and is named all the same.
    #[test]
    fn a_loopback_bootstrap_without_a_socket_list_is_named() {
        let text = IB_WITH_SOCKET_LISTS
            .replace(
                "gpu01:100:110 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n",
                "gpu01:100:110 [0] NCCL INFO Bootstrap: Using lo:127.0.0.1<0>\n",
            )
            .replace(
                "gpu02:200:210 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.2<0> [1]virbr0:192.168.122.1<0>\n",
                "",
            )
            .replace("OOB eth0:10.0.0.2<0>", "OOB lo:127.0.0.1<0>");
        let found: Vec<(String, String)> = judge_text(&text)
            .into_iter()
            .filter(|f| f.code == "nccl.socket_loopback")
            .map(|f| (f.device, f.actual))
            .collect();
        assert_eq!(found, [("gpu01".into(), "lo (bootstrap)".into()), ("gpu02".into(), "lo (bootstrap)".into())]);
    }

    /// A run that did not finish keeps what its NCCL lines say: the first NCCL warning in the
    /// finding (not the launcher's banner), and the loopback its hosts bootstrapped on.
    #[test]
    fn a_failed_run_names_nccls_first_error_and_the_loopback() {
        let text = "gpu01:100:110 [0] NCCL INFO Bootstrap: Using lo:127.0.0.1<0>\n\
                    gpu02:200:210 [0] NCCL INFO Bootstrap: Using lo:127.0.0.1<0>\n\
                    gpu02:200:210 [0] misc/socket.cc:544 NCCL WARN socketStartConnect: connect returned Connection refused\n\
                    gpu02: Test NCCL failure common.cu:1008 'remote process exited or there was a network error'\n\
                    mpirun detected that one or more processes exited with non-zero status\n";
        let facts = NcclFacts { infiniband: true, ..NcclFacts::default() };
        let hosts = vec!["gpu01".to_string(), "gpu02".to_string()];
        let ctx = all_hosts(&hosts, &facts);
        let found = failed_run(&ctx, "exit status 3", text);
        assert_eq!(found[0].code, "nccl.failed");
        assert!(
            found[0]
                .message
                .ends_with("; NCCL's first error: gpu02: socketStartConnect: connect returned Connection refused"),
            "{}",
            found[0].message
        );
        let loopback: Vec<&str> =
            found.iter().filter(|f| f.code == "nccl.socket_loopback").map(|f| f.device.as_str()).collect();
        assert_eq!(loopback, ["gpu01", "gpu02"]);
    }

    /// A log whose test started (nccl-tests' header) and never reached its table is a failed
    /// run when judged, not a pass; an excerpt of NCCL's init lines alone says neither and is
    /// judged on what it shows; where NCCL's completion errors already fail a run, no second
    /// `nccl.failed` is added.
    #[test]
    fn a_run_without_a_result_table_did_not_finish() {
        let facts = NcclFacts { infiniband: true, ..NcclFacts::default() };
        let hosts = vec!["gpu01".to_string(), "gpu02".to_string()];
        let ctx = all_hosts(&hosts, &facts);
        let judged = |text: &str| {
            let parsed = fabcheck_parse::nccl::nccl_tests::parse(text).expect("parses").value;
            let run = crate::bench::run::new_run("all hosts", "all_reduce_perf", &hosts, None, None);
            crate::bench::run::judge_output(run, &parsed, &ctx)
        };
        let started = format!(
            "# nThread 1 nGpus 1 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n{IB_WITH_SOCKET_LISTS}"
        );
        let (run, found) = judged(&started);
        assert!(!run.ok);
        let failed: Vec<&Finding> = found.iter().filter(|f| f.code == "nccl.failed").collect();
        assert_eq!(failed.len(), 1);
        assert_eq!(failed[0].actual, "no result table: it measured no size");
        let (_, found) = judged(IB_WITH_SOCKET_LISTS);
        assert!(!found.iter().any(|f| f.code == "nccl.failed"), "an excerpt of init lines: {found:?}");
        let completion = "gpu01:100:110 [0] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<44206> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:10.0.0.1 remoteGids::ffff:10.0.0.2 hca mlx5_0\n";
        let (_, found) = judged(completion);
        let failed: Vec<&str> = found.iter().filter(|f| f.code == "nccl.failed").map(|f| f.actual.as_str()).collect();
        assert_eq!(failed.len(), 1, "{failed:?}");
        assert!(failed[0].starts_with("status 12"), "{failed:?}");
    }

    /// Real logs that end on an error after warnings NCCL carries on from: the error is the one
    /// quoted, not the topology search's fallback (nccl-tests#287) or RCCL's NUMA and iommu
    /// advice (RCCL#1261).
    #[test]
    fn the_first_error_quoted_is_not_an_advisory_warning() {
        let facts = NcclFacts { infiniband: true, ..NcclFacts::default() };
        let hosts = vec!["a".to_string(), "b".to_string()];
        let ctx = all_hosts(&hosts, &facts);
        let failed = |name: &str| {
            let run = crate::bench::run::new_run("all hosts", "all_reduce_perf", &hosts, None, None);
            let (_, found) = crate::bench::run::judge_output(run, &fixture(name), &ctx);
            found.into_iter().find(|f| f.code == "nccl.failed").map(|f| f.message).unwrap_or_default()
        };
        let cuda = failed("rtx5090x2-nccl2.25.1-debug-info-cuda-failure-after-header-nccl-tests-287.txt");
        assert!(cuda.ends_with("; NCCL's first error: GENOA-06: Cuda failure 1 'invalid argument'"), "{cuda}");
        let ucx =
            failed("rccl-2.18.3-2node-bnxt-roce-ucx-plugin-reduce_perf-old-rccl-tests-header-ucx-error-rccl-1261.log");
        assert!(ucx.contains("; NCCL's first error: node02: Failed: UCX error"), "{ucx}");
        // Advisory warnings alone do not make an excerpt of init lines a failed run.
        let only_advice = "gpu01:100:110 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]\n\
                           gpu01:100:110 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n";
        let run = crate::bench::run::new_run("all hosts", "all_reduce_perf", &hosts, None, None);
        let parsed = fabcheck_parse::nccl::nccl_tests::parse(only_advice).unwrap().value;
        let (_, found) = crate::bench::run::judge_output(run, &parsed, &ctx);
        assert!(!found.iter().any(|f| f.code == "nccl.failed"), "{found:?}");
    }

    #[test]
    fn different_hca_names_on_different_hosts_are_named_with_each_list() {
        let found = judge_text(IB_WITH_SOCKET_LISTS);
        let f = found.iter().find(|f| f.code == "nccl.hca_mismatch").expect("a mismatch");
        assert_eq!(f.actual, "gpu01: mlx5_0; gpu02: mlx5_1");
    }

    #[test]
    fn a_host_whose_channels_go_over_sockets_is_the_one_named() {
        let text = IB_WITH_SOCKET_LISTS.replace(
            "gpu02:200:210 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [receive] via NET/IB/0/GDRDMA",
            "gpu02:200:210 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [receive] via NET/Socket/0",
        );
        let found = judge_text(&text);
        let wrong: Vec<&str> =
            found.iter().filter(|f| f.code == "nccl.wrong_transport").map(|f| f.device.as_str()).collect();
        assert_eq!(wrong, ["gpu02"]);
    }

    #[test]
    fn a_completion_error_names_its_side_peer_and_gids() {
        let text = "gpu01:100:110 [0] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<44206> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:10.0.0.1 remoteGids::ffff:10.0.0.2 hca mlx5_0\n";
        let found = judge_text(text);
        let f = found.iter().find(|f| f.code == "nccl.failed").expect("failed");
        assert_eq!(
            f.actual,
            "status 12, vendor err 129, on Recv, peer 10.0.0.2<44206>, hca mlx5_0, local GID ::ffff:10.0.0.1, remote GID ::ffff:10.0.0.2"
        );
        assert!(!found.iter().any(|f| f.code == "nccl.wrong_results"), "no table, no wrong results");
    }

    #[test]
    fn gpus_funnelled_through_one_of_two_nics_are_named_with_the_idle_one() {
        let text = "\
gpu01:100:110 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [RO]; OOB eth0:10.0.0.1<0>
gpu01:100:110 [0] NCCL INFO Channel 00/0 : 1[1] -> 0[0] [receive] via NET/IB/0/GDRDMA
gpu01:101:111 [1] NCCL INFO Channel 00/0 : 1[1] -> 2[0] [send] via NET/IB/0/GDRDMA
gpu01:100:110 [0] NCCL INFO Channel 01/0 : 1[1] -> 0[0] [receive] via NET/IB/0/GDRDMA
gpu01:101:111 [1] NCCL INFO Channel 01/0 : 1[1] -> 2[0] [send] via NET/IB/0/GDRDMA
";
        let run = fabcheck_parse::nccl::nccl_tests::parse(text).unwrap().value;
        let mut facts = NcclFacts::default();
        let near = [("mlx5_0".to_string(), vec![0]), ("mlx5_1".to_string(), vec![1])].into_iter().collect();
        facts.near_gpus.insert("gpu01".into(), near);
        let hosts = vec!["gpu01".to_string(), "gpu02".to_string()];
        let found = judge_all_hosts(&run, &hosts, &facts);
        let f = found.iter().find(|f| f.code == "nccl.nic_shared").expect("nic_shared");
        assert_eq!((f.device.as_str(), f.actual.as_str()), ("gpu01", "mlx5_0: GPU0,GPU1; idle: mlx5_1"));
        assert!(f.message.contains("mlx5_1 is next to GPU1"), "{}", f.message);
        // The same two GPUs over both NICs: each NIC carries a channel, nothing to say.
        let both = text.replace(
            "Channel 01/0 : 1[1] -> 0[0] [receive] via NET/IB/0",
            "Channel 01/0 : 1[1] -> 0[0] [receive] via NET/IB/1",
        );
        let run = fabcheck_parse::nccl::nccl_tests::parse(&both).unwrap().value;
        let found = judge_all_hosts(&run, &hosts, &facts);
        assert!(!found.iter().any(|f| f.code == "nccl.nic_shared"), "{found:?}");
    }

    /// A saved run is one host alone only when all its ranks were on that host.
    #[test]
    fn one_host_is_told_from_the_rank_lines() {
        let two = include_str!(
            "../../crates/parse/tests/fixtures/nccl_tests/moc-h100-roce-2node-1gpu-all_reduce_perf-nccl2.26-debug-info.log"
        );
        let run = fabcheck_parse::nccl::nccl_tests::parse(two).unwrap().value;
        assert!(!on_one_host(&run));
        let one: String = two.lines().filter(|l| !l.contains("on MOC-R4PCC04U35")).map(|l| format!("{l}\n")).collect();
        assert!(on_one_host(&fabcheck_parse::nccl::nccl_tests::parse(&one).unwrap().value));
        let no_ranks = fabcheck_parse::nccl::nccl_tests::parse(IB_WITH_SOCKET_LISTS).unwrap().value;
        assert!(!on_one_host(&no_ranks), "no rank lines: unknown, judged as a run between hosts");
    }

    /// NVIDIA/nccl#834's two GPUs through NET/IB/0 and NVIDIA/nccl#224's 4 GPUs on 34 listed
    /// ports: neither says a NIC is left idle while GPUs wait (no NIC list, or more NICs than GPUs).
    #[test]
    fn real_logs_with_shared_nics_but_no_idle_one_raise_nothing() {
        let text = include_str!(
            "../../crates/parse/tests/fixtures/nccl_tests/issue-nccl-834-two-gpus-one-nic-net-ib-0-PARTIAL.log"
        );
        let run = fabcheck_parse::nccl::nccl_tests::parse(text).unwrap().value;
        let hosts = vec!["SH-IDC1-10-142-5-42".to_string(), "SH-IDC1-10-142-5-123".to_string()];
        let facts = NcclFacts::default();
        let found = judge_all_hosts(&run, &hosts, &facts);
        assert!(!found.iter().any(|f| f.code == "nccl.nic_shared"), "{found:?}");
    }

    /// NCCL 2.4.2's real log (NVIDIA/nccl#224): both hosts list flannel.1 for sockets while
    /// their rings go over NET/IB: a warning on each, and no socket finding.
    #[test]
    fn flannel_in_a_real_socket_list_is_named_on_each_host() {
        let text = [
            include_str!("../../crates/parse/tests/fixtures/nccl_tests/issue-nccl-224-2.4.2-roce-socket-list-flannel-excerpt1-PARTIAL.log"),
            include_str!("../../crates/parse/tests/fixtures/nccl_tests/issue-nccl-224-2.4.2-roce-socket-list-flannel-excerpt2-PARTIAL.log"),
            include_str!("../../crates/parse/tests/fixtures/nccl_tests/issue-nccl-224-2.4.2-roce-socket-list-flannel-excerpt3-PARTIAL.log"),
        ]
        .concat();
        let run = fabcheck_parse::nccl::nccl_tests::parse(&text).unwrap().value;
        let facts = NcclFacts::default();
        let hosts = vec!["gpu6".to_string(), "gpu7".to_string()];
        let found = judge_all_hosts(&run, &hosts, &facts);
        let keys: Vec<(&str, &str, &str)> =
            found.iter().map(|f| (f.code.as_str(), f.device.as_str(), f.actual.as_str())).collect();
        assert_eq!(
            keys,
            [
                ("nccl.socket_ifname_unrestricted", "gpu6", "enp1s0f0,enp96s0f0,flannel.1"),
                ("nccl.socket_ifname_unrestricted", "gpu7", "enp1s0f0,enp96s0f0,flannel.1"),
            ]
        );
    }
}
