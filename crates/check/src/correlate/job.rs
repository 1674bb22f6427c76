//! One verdict for the job (the view of the training job that runs on them): the hosts the run was scoped to
//! (`--nodelist`, `--limit`), their GPUs, the switch ports their paths cross, the flows judged
//! between them, and the findings on those hosts and hops ordered by how much they explain: the
//! worst first, and among equals the root causes whose incidents hold the most findings, then
//! those on the paths of the most failing flows. Once root causes are known (incidents), only
//! they are listed: a job's operator fixes causes, not their consequences.
use fabcheck_model::{AuditResult, Finding, JobCause, JobView, Severity, Verdict, hop_device};
use std::collections::BTreeSet;

/// How many causes the job lists; the findings section has the rest.
const CAUSES: usize = 10;
/// How many causes the headline names.
const HEADLINE_CAUSES: usize = 3;

/// The job `name` as the result shows it.
pub fn view(result: &AuditResult, name: &str) -> JobView {
    let hosts: Vec<String> = result.devices.iter().filter(|d| d.role == "host").map(|d| d.name.clone()).collect();
    let gpu_counts: Vec<usize> = result.devices.iter().filter(|d| d.role == "host").filter_map(|d| d.gpus).collect();
    let gpus = (!gpu_counts.is_empty()).then(|| gpu_counts.iter().sum());
    let on_hosts = |hop: &str| hosts.iter().any(|h| hop_device(hop) == h);
    let hops: BTreeSet<&str> = result
        .paths
        .iter()
        .filter(|p| p.hops.first().is_some_and(|h| on_hosts(&h.hop)))
        .flat_map(|p| p.hops.iter().map(|h| h.hop.as_str()))
        .filter(|h| !on_hosts(h))
        .collect();
    let flow_findings: Vec<&Finding> = result.findings.iter().filter(|f| f.code.starts_with("flow.")).collect();
    let relevant: Vec<&Finding> = result
        .findings
        .iter()
        .filter(|f| !f.code.starts_with("flow.") && !f.code.starts_with("path."))
        .filter(|f| hosts.contains(&f.device) || hops.contains(f.hop().as_str()))
        .collect();
    // Each root's incident, by the root's id (one look-up per finding, however many incidents).
    let by_root: std::collections::HashMap<&str, usize> =
        result.incidents.iter().flat_map(|i| i.roots.iter().map(move |r| (r.as_str(), i.consequences.len()))).collect();
    let explains = |f: &Finding| by_root.get(f.id.as_str()).copied();
    let roots_known = !result.incidents.is_empty();
    let mut causes: Vec<JobCause> = relevant
        .iter()
        .filter(|f| f.severity >= Severity::Warning && (!roots_known || explains(f).is_some()))
        .map(|f| {
            let hop = f.hop();
            JobCause {
                flow_findings: flow_findings.iter().filter(|ff| crosses(ff, &hop)).count(),
                explains: explains(f).unwrap_or(0),
                hop,
                code: f.code.clone(),
                severity: f.severity,
                actual: f.actual.clone(),
            }
        })
        .collect();
    causes.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then(b.explains.cmp(&a.explains))
            .then(b.flow_findings.cmp(&a.flow_findings))
            .then_with(|| a.hop.cmp(&b.hop))
    });
    causes.dedup_by(|a, b| a.hop == b.hop && a.code == b.code);
    causes.truncate(CAUSES);
    let judged: Vec<Finding> = relevant.iter().chain(flow_findings.iter()).map(|f| (*f).clone()).collect();
    let verdict = Verdict::of(&judged);
    let headline = headline(verdict, &hosts, gpus, hops.len(), result, &causes);
    JobView {
        name: name.to_string(),
        verdict,
        hosts,
        gpus,
        hops: hops.len(),
        flows: result.flows_total,
        flows_failing: result.flows_failing,
        causes,
        headline,
    }
}

/// Whether a flow finding's path goes through `hop` (a port, or any port of a device).
fn crosses(flow: &Finding, hop: &str) -> bool {
    flow.path.iter().any(|h| h == hop || (!hop.contains(':') && hop_device(h) == hop))
}

fn headline(
    verdict: Verdict,
    hosts: &[String],
    gpus: Option<usize>,
    hops: usize,
    result: &AuditResult,
    causes: &[JobCause],
) -> String {
    let mut parts = vec![plural(hosts.len(), "host")];
    if let Some(g) = gpus {
        parts.push(plural(g, "GPU"));
    }
    if hops > 0 {
        parts.push(plural(hops, "switch port"));
    }
    let mut text = format!("{}: {}", verdict.as_str().to_uppercase(), parts.join(", "));
    if result.flows_total > 0 {
        text.push_str(&format!("; {} of {} broke a limit", result.flows_failing, plural(result.flows_total, "flow")));
    }
    if causes.is_empty() {
        text.push_str("; nothing found on its hosts and hops");
    } else {
        let named: Vec<String> = causes
            .iter()
            .take(HEADLINE_CAUSES)
            .map(|c| {
                let on = if c.explains > 0 {
                    format!(", explains {}", plural(c.explains, "finding"))
                } else if c.flow_findings > 0 {
                    format!(", on {} flow findings' paths", c.flow_findings)
                } else {
                    String::new()
                };
                format!("{} {} ({}{on})", c.hop, c.code, c.severity.as_str())
            })
            .collect();
        text.push_str(&format!("; look first at {}", named.join("; ")));
    }
    text
}

fn plural(n: usize, what: &str) -> String {
    if n == 1 { format!("1 {what}") } else { format!("{n} {what}s") }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fabcheck_model::{DeviceSummary, HopState, PathView};

    fn device(name: &str, role: &str, gpus: Option<usize>) -> DeviceSummary {
        DeviceSummary { name: name.into(), role: role.into(), reachable: true, gpus, ..Default::default() }
    }

    fn path(hops: &[&str]) -> PathView {
        PathView { hops: hops.iter().map(|h| HopState { hop: h.to_string(), ok: true, reasons: Vec::new() }).collect() }
    }

    fn result(findings: Vec<Finding>) -> AuditResult {
        AuditResult {
            findings,
            devices: vec![
                device("gpu1", "host", Some(8)),
                device("gpu2", "host", Some(8)),
                device("leaf1", "leaf", None),
            ],
            paths: vec![
                path(&["gpu1:eth0", "leaf1:Ethernet0", "leaf1:Ethernet32", "spine1:swp1"]),
                path(&["gpu2:eth0", "leaf1:Ethernet4", "leaf1:Ethernet32", "spine1:swp1"]),
            ],
            paths_total: 2,
            flows_total: 12,
            flows_failing: 2,
            ..Default::default()
        }
    }

    fn flow(device: &str, path: &[&str]) -> Finding {
        let mut f = Finding::new("flow.nak_rate", Severity::Error, device, "NAKs").port("eth0");
        f.path = path.iter().map(|h| h.to_string()).collect();
        f
    }

    #[test]
    fn the_cause_on_the_most_failing_flows_paths_comes_first_among_equals() {
        let findings = vec![
            Finding::new("nic.mtu_mismatch", Severity::Error, "gpu1", "MTU")
                .port("eth1")
                .expected_actual("4200", "1500"),
            Finding::new("switch.pfc_mismatch", Severity::Error, "leaf1", "PFC")
                .port("Ethernet4")
                .expected_actual("3", "none"),
            Finding::new("switch.ecn_threshold", Severity::Warning, "leaf9", "off the job's paths").port("Ethernet0"),
            flow("gpu1", &["gpu1:eth0", "leaf1:Ethernet0", "leaf1:Ethernet4", "gpu2:eth0"]),
            flow("gpu2", &["gpu2:eth0", "leaf1:Ethernet4", "leaf1:Ethernet0", "gpu1:eth0"]),
        ];
        let job = view(&result(findings), "gpu[1-2]");
        assert_eq!(job.verdict, Verdict::Fail);
        assert_eq!((job.gpus, job.hops, job.flows, job.flows_failing), (Some(16), 4, 12, 2));
        let causes: Vec<(&str, &str, usize)> =
            job.causes.iter().map(|c| (c.hop.as_str(), c.code.as_str(), c.flow_findings)).collect();
        assert_eq!(causes, [("leaf1:Ethernet4", "switch.pfc_mismatch", 2), ("gpu1:eth1", "nic.mtu_mismatch", 0)]);
        assert_eq!(
            job.headline,
            "FAIL: 2 hosts, 16 GPUs, 4 switch ports; 2 of 12 flows broke a limit; look first at \
             leaf1:Ethernet4 switch.pfc_mismatch (error, on 2 flow findings' paths); gpu1:eth1 nic.mtu_mismatch (error)"
        );
    }

    #[test]
    fn once_root_causes_are_known_the_job_names_them_by_what_they_explain() {
        let findings = vec![
            Finding::new("nic.mtu_mismatch", Severity::Error, "gpu1", "MTU").port("eth1"),
            Finding::new("switch.pfc_mismatch", Severity::Error, "leaf1", "PFC").port("Ethernet4"),
            Finding::new("counter.rx_discards", Severity::Error, "leaf1", "drops").port("Ethernet4"),
            flow("gpu1", &["gpu1:eth0", "leaf1:Ethernet0", "leaf1:Ethernet4", "gpu2:eth0"]),
        ];
        let mut r = result(findings).finish();
        crate::correlate::root_causes(&mut r);
        let job = view(&r, "gpu[1-2]");
        let causes: Vec<(&str, &str, usize)> =
            job.causes.iter().map(|c| (c.hop.as_str(), c.code.as_str(), c.explains)).collect();
        assert_eq!(
            causes,
            [("leaf1:Ethernet4", "switch.pfc_mismatch", 2), ("gpu1:eth1", "nic.mtu_mismatch", 0)],
            "the drops and the flow's NAKs are the PFC's; the drops are no cause of their own"
        );
        assert!(job.headline.ends_with("look first at leaf1:Ethernet4 switch.pfc_mismatch (error, explains 2 findings); gpu1:eth1 nic.mtu_mismatch (error)"), "{}", job.headline);
    }

    #[test]
    fn a_clean_job_says_so() {
        let mut clean = result(Vec::new());
        clean.flows_total = 0;
        clean.devices[0].gpus = None;
        let job = view(&clean, "all hosts");
        assert_eq!(job.headline, "PASS: 2 hosts, 8 GPUs, 4 switch ports; nothing found on its hosts and hops");
    }
}
