//! The job's verdict and the judged flows, as the templates show them: every optional number a
//! string (empty when not measured), every count written with thousands separators.
use super::thousands;
use fabcheck_model::{AuditResult, FlowView, JobView};
use serde::Serialize;

/// The job: its verdict line, its scope and what to look at first.
#[derive(Debug, Serialize)]
pub(crate) struct JobRow<'a> {
    pub name: &'a str,
    /// `pass`, `warn` or `fail`.
    pub verdict: &'static str,
    pub headline: &'a str,
    pub hosts: String,
    pub gpus: String,
    pub hops: usize,
    pub flows: usize,
    pub flows_failing: usize,
    pub causes: Vec<CauseRow<'a>>,
}

/// One finding on the job's hosts or hops.
#[derive(Debug, Serialize)]
pub(crate) struct CauseRow<'a> {
    pub hop: &'a str,
    pub code: &'a str,
    pub severity: &'static str,
    pub actual: &'a str,
    pub flow_findings: usize,
}

/// The hosts a job row lists before it says how many more there are.
const HOSTS_SHOWN: usize = 16;

impl<'a> JobRow<'a> {
    /// The job of `result`, or none: a list of at most one, which templates loop over (Tera
    /// treats a null as an error in most places).
    pub(crate) fn of(result: &'a AuditResult) -> Vec<JobRow<'a>> {
        result.job.iter().map(JobRow::new).collect()
    }

    fn new(job: &'a JobView) -> JobRow<'a> {
        let shown: Vec<&str> = job.hosts.iter().take(HOSTS_SHOWN).map(String::as_str).collect();
        let more = job.hosts.len().saturating_sub(HOSTS_SHOWN);
        JobRow {
            name: &job.name,
            verdict: job.verdict.as_str(),
            headline: &job.headline,
            hosts: if more > 0 { format!("{} and {more} more", shown.join(" ")) } else { shown.join(" ") },
            gpus: job.gpus.map(|g| g.to_string()).unwrap_or_default(),
            hops: job.hops,
            flows: job.flows,
            flows_failing: job.flows_failing,
            causes: job
                .causes
                .iter()
                .map(|c| CauseRow {
                    hop: &c.hop,
                    code: &c.code,
                    severity: c.severity.as_str(),
                    actual: &c.actual,
                    flow_findings: c.flow_findings,
                })
                .collect(),
        }
    }
}

/// One flow of the table.
#[derive(Debug, Serialize)]
pub(crate) struct FlowRow<'a> {
    pub from: &'a str,
    pub to: &'a str,
    pub flow: &'a str,
    pub packets: String,
    pub bytes: String,
    pub gbps: String,
    pub naks: String,
    pub retransmits: String,
    pub ce: String,
    pub cnps: String,
    pub fct_p99_us: String,
    pub dscp: String,
    pub codes: &'a [String],
}

impl<'a> FlowRow<'a> {
    pub(crate) fn new(f: &'a FlowView) -> FlowRow<'a> {
        let count = |n: Option<u64>| n.map(thousands).unwrap_or_default();
        FlowRow {
            from: &f.from,
            to: &f.to,
            flow: &f.flow,
            packets: thousands(f.packets),
            bytes: count(f.payload_bytes),
            gbps: f.throughput_gbps.map(|g| format!("{g:.1}")).unwrap_or_default(),
            naks: count(f.naks),
            retransmits: count(f.retransmits),
            ce: thousands(f.ce),
            cnps: count(f.cnps_to_sender),
            fct_p99_us: f.fct_p99_us.map(|us| format!("{us:.1}")).unwrap_or_default(),
            dscp: f.dscp.iter().map(u8::to_string).collect::<Vec<_>>().join(" "),
            codes: &f.codes,
        }
    }
}
