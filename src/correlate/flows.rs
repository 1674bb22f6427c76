//! Flows joined with the audit (seeds/000: the flow verdict and the counters, paths and
//! configuration that explain it, as one root cause). Each flow finding is placed on the host
//! port that sent the flow (addresses → host NIC, from the hosts' connected routes), and its
//! cause is looked for where the flow went: the receiver's port (out_of_buffer, packet_seq_err),
//! the sender's, and every hop of the paths the report lists from either NIC (a leaf port with
//! PFC off, discards or pause storms there). What is found becomes the finding's `caused_by`, and
//! the message says where.
use crate::check::DeviceAudit;
use fabcheck_flows::record::FlowRecord;
use fabcheck_model::{AuditResult, Finding, Severity};
use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;

/// A host port by address: (host, port).
pub type AddressBook = BTreeMap<IpAddr, (String, String)>;

/// Every audited host port's addresses.
pub fn address_book(audits: &[DeviceAudit]) -> AddressBook {
    audits
        .iter()
        .flat_map(|a| a.addresses.iter().map(move |(ip, port)| (*ip, (a.summary.name.clone(), port.clone()))))
        .collect()
}

/// The flows the hosts' captures hold, each once: a flow captured at both of its ends is
/// judged from the first capture that holds it.
pub fn captured(audits: &[DeviceAudit]) -> Vec<FlowRecord> {
    let mut seen = BTreeSet::new();
    audits
        .iter()
        .flat_map(|a| a.flows.iter())
        .filter(|r| seen.insert((r.src_ip, r.dst_ip, r.udp_src_port, r.dst_qp)))
        .cloned()
        .collect()
}

/// How many causes a message names (the rest are in `caused_by`).
const NAMED: usize = 4;

/// The flow findings (`path` = [source IP, destination IP]) placed on their sender's port and
/// joined with the audit findings on the flow's way.
pub fn join(flow_findings: Vec<Finding>, book: &AddressBook, result: &AuditResult) -> Vec<Finding> {
    flow_findings
        .into_iter()
        .map(|mut f| {
            let ends: Vec<Option<&(String, String)>> =
                f.path.iter().map(|ip| ip.parse::<IpAddr>().ok().and_then(|ip| book.get(&ip))).collect();
            let (Some(Some(src)), Some(Some(dst))) = (ends.first(), ends.get(1)) else { return f };
            let (src_hop, dst_hop) = (format!("{}:{}", src.0, src.1), format!("{}:{}", dst.0, dst.1));
            let mut hops: BTreeSet<String> = [src_hop.clone(), dst_hop.clone()].into_iter().collect();
            let mut route: Vec<String> = Vec::new();
            for p in
                result.paths.iter().filter(|p| p.hops.first().is_some_and(|h| h.hop == src_hop || h.hop == dst_hop))
            {
                hops.extend(p.hops.iter().map(|h| h.hop.clone()));
                if route.is_empty() && p.hops[0].hop == src_hop {
                    route = p.hops.iter().map(|h| h.hop.clone()).collect();
                }
            }
            let causes: Vec<&Finding> = result
                .findings
                .iter()
                .filter(|c| {
                    c.severity >= Severity::Warning && !c.code.starts_with("path.") && !c.code.starts_with("flow.")
                })
                .filter(|c| c.port.as_ref().is_some_and(|p| hops.contains(&format!("{}:{p}", c.device))))
                .collect();
            if !causes.is_empty() {
                let named: Vec<String> = causes
                    .iter()
                    .take(NAMED)
                    .map(|c| format!("{}:{} {} ({})", c.device, c.port.as_deref().unwrap_or(""), c.code, c.actual))
                    .collect();
                let more = causes.len().saturating_sub(NAMED);
                f.message.push_str(&format!(
                    "; on its way: {}{}",
                    named.join(", "),
                    if more > 0 { format!(" and {more} more") } else { String::new() }
                ));
                let mut codes: Vec<String> = causes.iter().map(|c| c.code.clone()).collect();
                codes.sort();
                codes.dedup();
                f.caused_by = codes;
            }
            f.message = f.message.replacen("flow ", &format!("flow {} → {}, ", src_hop, dst_hop), 1);
            f.device.clone_from(&src.0);
            f.port = Some(src.1.clone());
            f.path = if route.is_empty() {
                vec![src_hop, dst_hop]
            } else {
                route.push(dst_hop);
                route
            };
            f
        })
        .collect()
}
