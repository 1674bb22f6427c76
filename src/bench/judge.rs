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
    if run.wrong > 0 {
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
        findings.push(on_path(
            Finding::new("nccl.failed", Severity::Critical, host, format!("{}: {}", ctx.label, e.message))
                .expected_actual(
                    "no NCCL error",
                    match (e.status, e.vendor_err) {
                        (Some(s), Some(v)) => format!("status {s}, vendor err {v}"),
                        (Some(s), None) => format!("status {s}"),
                        (None, v) => format!("vendor err {}", v.unwrap_or_default()),
                    },
                ),
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
