//! Flows joined with the audit (the flow verdict and the counters, paths and
//! configuration that explain it, as one root cause). Each flow finding is placed on the host
//! port that sent the flow (addresses → host NIC, from the hosts' connected routes), and its
//! cause is looked for where the flow went: the receiver's port (out_of_buffer, packet_seq_err),
//! the sender's, and every hop of the paths the report lists from either NIC (a leaf port with
//! PFC off, discards or pause storms there), among the findings whose mechanism can produce it
//! ([`super::causes`]: loss for NAKs, not ECN thresholds). The message says what and where.
use crate::check::DeviceAudit;
use crate::policy::Policy;
use fabcheck_model::flow_record::FlowRecord;
use fabcheck_model::{AuditResult, Finding, FlowView, Severity, hop_device};
use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;

/// A host port by address.
pub type AddressBook = BTreeMap<IpAddr, Endpoint>;

/// The end of a flow an address names: the host, its port and the GPUs that use the port.
#[derive(Debug, Clone, PartialEq)]
pub struct Endpoint {
    pub host: String,
    pub port: String,
    pub gpus: Vec<u32>,
}

impl Endpoint {
    /// `gpu001:ens1np0`, as the report's paths name hops.
    pub fn hop(&self) -> String {
        format!("{}:{}", self.host, self.port)
    }

    /// `gpu001:GPU0 (ens1np0)`, `gpu001:GPU0/GPU1 (ens1np0)`, or the hop without GPUs.
    pub fn gpu_side(&self) -> String {
        if self.gpus.is_empty() {
            return self.hop();
        }
        let gpus: Vec<String> = self.gpus.iter().map(|g| format!("GPU{g}")).collect();
        format!("{}:{} ({})", self.host, gpus.join("/"), self.port)
    }
}

/// Every audited host port's addresses.
pub fn address_book(audits: &[DeviceAudit]) -> AddressBook {
    audits
        .iter()
        .flat_map(|a| {
            a.addresses.iter().map(move |p| {
                (p.ip, Endpoint { host: a.summary.name.clone(), port: p.port.clone(), gpus: p.gpus.clone() })
            })
        })
        .collect()
}

/// The flows the hosts' captures (and collectors) hold, each once. Every packet seen beats an
/// estimate from samples; a flow captured at both ends is judged from the sender's capture,
/// which has every packet sent, the lost ones too; its ECN codepoints are the receiver's when
/// the receiver's capture shows more CE marks (a switch marks on the way, after the sender's
/// capture point).
pub fn captured(audits: &[DeviceAudit]) -> Vec<FlowRecord> {
    let senders: BTreeMap<IpAddr, String> = audits
        .iter()
        .flat_map(|a| a.addresses.iter().map(move |p| (p.ip, format!("{}:{}", a.summary.name, p.port))))
        .collect();
    let mut views: BTreeMap<(IpAddr, IpAddr, u16, u32), Vec<&FlowRecord>> = BTreeMap::new();
    let mut order = Vec::new();
    for r in audits.iter().flat_map(|a| a.flows.iter()) {
        let key = (r.src_ip, r.dst_ip, r.udp_src_port, r.dst_qp);
        let seen = views.entry(key).or_default();
        if seen.is_empty() {
            order.push(key);
        }
        seen.push(r);
    }
    order
        .into_iter()
        .map(|key| {
            let all = &views[&key];
            let exact: Vec<&FlowRecord> =
                all.iter().copied().filter(|r| !r.estimated.unwrap_or(r.source.sampling_rate > 1)).collect();
            let seen = if exact.is_empty() { all } else { &exact };
            let at_sender =
                |r: &&&FlowRecord| r.source.point.is_some() && r.source.point == senders.get(&r.src_ip).cloned();
            let mut chosen = (*seen.iter().find(at_sender).unwrap_or(&seen[0])).clone();
            if let Some(marked) =
                seen.iter().max_by_key(|r| r.ecn_packets.ce).filter(|r| r.ecn_packets.ce > chosen.ecn_packets.ce)
            {
                chosen.ecn_packets = marked.ecn_packets;
            }
            chosen
        })
        .collect()
}

/// How many flows the report lists.
const FLOW_ROWS: usize = 50;

/// The judged data flows as the report lists them, those that broke a limit first (then the
/// most NAKs, retransmissions, CE marks, packets), at most [`FLOW_ROWS`]; with how many were
/// judged and how many broke a limit.
pub fn views(records: &[FlowRecord], policy: &Policy, book: &AddressBook) -> (Vec<FlowView>, usize, usize) {
    let end = |ip: &IpAddr| book.get(ip).map_or_else(|| ip.to_string(), Endpoint::gpu_side);
    let mut rows: Vec<FlowView> = records
        .iter()
        .filter(|r| r.is_data())
        .map(|r| {
            let mut codes: Vec<String> =
                crate::check::flows::verdicts(std::slice::from_ref(r), policy).into_iter().map(|f| f.code).collect();
            codes.dedup();
            FlowView {
                from: end(&r.src_ip),
                to: end(&r.dst_ip),
                flow: r.name(),
                packets: r.packets,
                payload_bytes: r.payload_bytes,
                throughput_gbps: r.throughput_bytes_per_s.map(|b| b * 8.0 / 1e9),
                naks: r.naks_psn_seq.zip(r.naks_other).map(|(a, b)| a + b),
                retransmits: r.retransmits,
                ce: r.ecn_packets.ce,
                cnps_to_sender: r.cnps_to_sender,
                fct_p99_us: r.fct_ns.map(|f| f.p99 as f64 / 1000.0),
                dscp: r.dscp.clone(),
                codes,
            }
        })
        .collect();
    let (total, failing) = (rows.len(), rows.iter().filter(|r| !r.codes.is_empty()).count());
    rows.sort_by_key(|r| {
        std::cmp::Reverse((r.codes.len(), r.naks.unwrap_or(0), r.retransmits.unwrap_or(0), r.ce, r.packets))
    });
    rows.truncate(FLOW_ROWS);
    (rows, total, failing)
}

/// How many causes a message names (`caused_by` has them all: [`super::causes::explain`]).
const NAMED: usize = 4;
/// How many receivers a folded finding names.
const NAMED_PEERS: usize = 6;

/// The flow findings (`path` = [source IP, destination IP]) placed on their sender's port and
/// joined with the audit findings on the flow's way; the flows one port sends that break the
/// same limit become one finding naming their receivers (a host whose port drops breaks every
/// flow it sends: one finding, not one per peer).
pub fn join(flow_findings: Vec<Finding>, book: &AddressBook, result: &AuditResult) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::new();
    let mut groups: BTreeMap<(String, Severity, String), Vec<Placed>> = BTreeMap::new();
    for f in flow_findings {
        let Some((src, dst)) = ends(&f, book) else {
            out.push(f);
            continue;
        };
        let placed = place(f, src, dst, result);
        let key = (placed.finding.code.clone(), placed.finding.severity, placed.src_hop.clone());
        groups.entry(key).or_default().push(placed);
    }
    out.extend(groups.into_values().map(fold));
    out
}

/// A flow finding on its sender's port, with what the audit found on its way.
struct Placed<'a> {
    finding: Finding,
    src_hop: String,
    /// The ends as GPUs where the topology names them (`gpu001:GPU0 (ens1np0)`).
    src_gpus: String,
    dst_gpus: String,
    /// The flow's route through the fabric ([`route`]).
    route: Vec<String>,
    causes: Vec<&'a Finding>,
}

/// The audited ports a flow finding's addresses (`path` = [source IP, destination IP]) name.
fn ends<'b>(f: &Finding, book: &'b AddressBook) -> Option<(&'b Endpoint, &'b Endpoint)> {
    let end = |i: usize| f.path.get(i)?.parse::<IpAddr>().ok().and_then(|ip| book.get(&ip));
    Some((end(0)?, end(1)?))
}

/// Places one flow finding on its sender's port, with the findings on its way.
fn place<'a>(f: Finding, src: &Endpoint, dst: &Endpoint, result: &'a AuditResult) -> Placed<'a> {
    let (src_hop, dst_hop) = (src.hop(), dst.hop());
    let mut hops: BTreeSet<String> = [src_hop.clone(), dst_hop.clone()].into_iter().collect();
    for p in result.paths.iter().filter(|p| p.hops.first().is_some_and(|h| h.hop == src_hop || h.hop == dst_hop)) {
        hops.extend(p.hops.iter().map(|h| h.hop.clone()));
    }
    let route = route(result, &src_hop, &dst_hop);
    let causes = result
        .findings
        .iter()
        .filter(|c| c.severity >= Severity::Warning && super::causes::fits(&f.code, &c.code))
        .filter(|c| c.port.is_some() && hops.contains(&c.hop()))
        .collect();
    let mut finding = f;
    finding.device.clone_from(&src.host);
    finding.port = Some(src.port.clone());
    let (src_gpus, dst_gpus) = (src.gpu_side(), dst.gpu_side());
    Placed { finding, src_hop, src_gpus, dst_gpus, route, causes }
}

/// A flow's route as the report's half-paths (host NIC → leaf → uplink → spine) give it: across
/// the leaf both ends share, or up the sender's half-path and down the receiver's from the same
/// spine (the first such pair: ECMP picks one, the causes come from every half-path); the
/// sender's half-path then the receiver's port when the report lists no matching pair.
fn route(result: &AuditResult, src: &str, dst: &str) -> Vec<String> {
    let halves = |end: &str| -> Vec<Vec<&str>> {
        result
            .paths
            .iter()
            .filter(|p| p.hops.first().is_some_and(|h| h.hop == end))
            .map(|p| p.hops.iter().map(|h| h.hop.as_str()).collect())
            .collect()
    };
    let (up, down) = (halves(src), halves(dst));
    let owned = |hops: Vec<&str>| hops.into_iter().map(String::from).collect::<Vec<String>>();
    for u in &up {
        for d in &down {
            if let (Some(ul), Some(dl)) = (u.get(1), d.get(1))
                && hop_device(ul) == hop_device(dl)
            {
                return owned(vec![src, ul, dl, dst]);
            }
        }
    }
    for u in &up {
        for d in &down {
            if u.len() > 2 && d.len() > 2 && hop_device(u[u.len() - 1]) == hop_device(d[d.len() - 1]) {
                return owned(u.iter().chain(d.iter().rev()).copied().collect());
            }
        }
    }
    let mut route = up.into_iter().next().map_or_else(|| vec![src.to_string()], owned);
    route.push(dst.to_string());
    route
}

/// One finding for the flows one port sends that break one limit: the first flow's figures,
/// the receivers named, the causes on all their ways.
fn fold(flows: Vec<Placed>) -> Finding {
    let mut causes: Vec<&Finding> = Vec::new();
    for c in flows.iter().flat_map(|p| p.causes.iter().copied()) {
        if !causes.contains(&c) {
            causes.push(c);
        }
    }
    let first = &flows[0];
    let mut f = first.finding.clone();
    let detail = f.message.trim_start_matches("flow ").to_string();
    f.message = if flows.len() == 1 {
        format!("flow {} → {}, {detail}", first.src_gpus, first.dst_gpus)
    } else {
        let peers: Vec<&str> = flows.iter().map(|p| p.dst_gpus.as_str()).collect();
        format!("{} flows from {} to {}, the first {detail}", flows.len(), first.src_gpus, listed(&peers, NAMED_PEERS))
    };
    if !causes.is_empty() {
        let named: Vec<String> = causes
            .iter()
            .map(|c| format!("{}:{} {} ({})", c.device, c.port.as_deref().unwrap_or(""), c.code, c.actual))
            .collect();
        let way = if flows.len() == 1 { "its way" } else { "their ways" };
        f.message.push_str(&format!("; on {way}: {}", listed(&named, NAMED)));
    }
    f.path.clone_from(&first.route);
    f
}

/// The first `named` items joined, and how many more there are.
fn listed(items: &[impl AsRef<str>], named: usize) -> String {
    let shown: Vec<&str> = items.iter().take(named).map(AsRef::as_ref).collect();
    match items.len().saturating_sub(named) {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
}
