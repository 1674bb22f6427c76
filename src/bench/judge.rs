//! Judging one nccl-tests run: did it finish, use the right transport, HCAs and GPUDirect, get
//! correct results, and reach the bus bandwidth it should.

use super::env::NcclFacts;
use super::reference::Floor;
use fabcheck_model::{BenchPoint, Finding, Severity};
use fabcheck_parse::nccl::nccl_tests::NcclRun;

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
}

/// Findings about a run that finished (exit status 0) and parsed.
pub fn judge(run: &NcclRun, ctx: &Context) -> Vec<Finding> {
    let device = ctx.hosts.first().map(String::as_str).unwrap_or("?");
    let on_path = |f: Finding| {
        let mut f = f.evidence(ctx.evidence);
        f.path = ctx.hosts.to_vec();
        f
    };
    let mut findings = Vec::new();
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
    findings.extend(socket_interfaces(run, ctx).into_iter().map(on_path));
    findings.extend(hca_mismatch(run, ctx).into_iter().map(on_path));
    // `#wrong` and `Out of bounds` speak of a results table: without one there is nothing to count.
    if run.wrong > 0 && !run.rows.is_empty() {
        findings.push(on_path(
            Finding::new(
                "nccl.wrong_results",
                Severity::Critical,
                device,
                format!("{}: {} values were wrong (-c 1 checks every result)", ctx.label, run.wrong),
            )
            .expected_actual("0 wrong", run.wrong.to_string()),
        ));
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
                let mut low = on_path(
                    Finding::new(
                        "nccl.busbw_low",
                        Severity::Error,
                        device,
                        format!(
                            "{}: bus bandwidth {best:.1} GB/s, below the {:.1} GB/s floor ({})",
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

/// `mlx5_0:1/RoCE` and `mlx5_0:1` name the device `mlx5_0`.
fn hca_name(h: &str) -> &str {
    h.split([':', '/']).next().unwrap_or(h)
}

/// A run that did not finish: timeout, launcher error, crash.
pub fn failed(ctx: &Context, why: &str, output: &str) -> Finding {
    let tail: Vec<&str> = output.lines().rev().filter(|l| !l.trim().is_empty()).take(5).collect();
    let tail: Vec<&str> = tail.into_iter().rev().collect();
    let mut f = Finding::new(
        "nccl.failed",
        Severity::Critical,
        ctx.hosts.first().map(String::as_str).unwrap_or("?"),
        format!(
            "{}: nccl-tests did not finish ({why}); last lines: {}",
            ctx.label,
            if tail.is_empty() { "none".to_string() } else { tail.join(" ⏎ ") }
        ),
    )
    .expected_actual("a finished run", why)
    .evidence(ctx.evidence);
    f.path = ctx.hosts.to_vec();
    f
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

    fn judge_text(text: &str) -> Vec<Finding> {
        let run = fabcheck_parse::nccl::nccl_tests::parse(text).expect("parses").value;
        let facts = NcclFacts { infiniband: true, ..NcclFacts::default() };
        let hosts = vec!["gpu01".to_string(), "gpu02".to_string()];
        judge(&run, &Context { label: "all hosts", hosts: &hosts, facts: &facts, floor: None, evidence: "e" })
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
        let found =
            judge(&run, &Context { label: "all hosts", hosts: &hosts, facts: &facts, floor: None, evidence: "e" });
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
