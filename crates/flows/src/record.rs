//! `rdma-flow-record/1`: one JSON object per flow, one per line (docs/flow-record.md is the
//! schema). A key that is absent means unknown, never zero; units are in the key names; times
//! are RFC 3339 and nanoseconds since the Unix epoch.
use crate::flow::{Flow, FlowKey, Flows};
use serde::Serialize;
use serde_json::{Map, Value, json};

/// The schema's name and version.
pub const SCHEMA: &str = "rdma-flow-record/1";

/// Where a flow record's packets were seen.
#[derive(Debug, Clone, Serialize)]
pub struct Source {
    /// `capture`.
    pub kind: &'static str,
    /// The capture file.
    pub file: String,
    /// The point it was taken at (`--at NAME=FILE`), when named.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub point: Option<String>,
    /// One packet in `sampling_rate` was kept: 1 for a full capture.
    pub sampling_rate: u64,
}

/// The record of flow `key`, with the flow answering it (`reverse`), when linked.
pub fn record(key: &FlowKey, f: &Flow, reverse: Option<(&FlowKey, &Flow)>, source: &Source) -> Value {
    let mut r = Map::new();
    r.insert("schema".into(), json!(SCHEMA));
    r.insert("source".into(), json!(source));
    r.insert("src_ip".into(), json!(key.src.to_string()));
    r.insert("dst_ip".into(), json!(key.dst.to_string()));
    r.insert("udp_src_port".into(), json!(key.src_port));
    r.insert("dst_qp".into(), json!(key.dest_qp));
    r.insert("transport".into(), json!(transport(f)));
    r.insert("first_seen".into(), json!(rfc3339(f.first_ns)));
    r.insert("first_seen_unix_ns".into(), json!(f.first_ns));
    r.insert("last_seen_unix_ns".into(), json!(f.last_ns));
    r.insert("duration_ns".into(), json!(f.last_ns - f.first_ns));
    r.insert("packets".into(), json!(f.packets));
    r.insert("ecn_packets".into(), json!({"not_ect": f.ecn[0], "ect1": f.ecn[1], "ect0": f.ecn[2], "ce": f.ecn[3]}));
    r.insert("dscp".into(), json!(f.dscp));
    if f.cnps > 0 || f.transports.is_empty() {
        r.insert("cnps".into(), json!(f.cnps));
    }
    if !f.cm {
        r.insert("data_packets".into(), json!(f.data_packets));
        if let Some(bytes) = f.payload_bytes {
            r.insert("payload_bytes".into(), json!(bytes));
            let secs = (f.last_ns - f.first_ns) as f64 / 1e9;
            if f.data_packets > 1 && secs > 0.0 {
                r.insert("throughput_bytes_per_s".into(), json!((bytes as f64 / secs).round()));
            }
        }
        r.insert("messages".into(), json!(f.messages));
        r.insert("messages_incomplete".into(), json!(f.incomplete()));
        if let (Some(min), Some(max)) = (f.fct_ns.min(), f.fct_ns.max()) {
            r.insert(
                "fct_ns".into(),
                json!({"min": min, "p50": f.fct_ns.quantile(0.5), "p99": f.fct_ns.quantile(0.99), "max": max}),
            );
        }
        r.insert("retransmits".into(), json!(f.retransmits));
        r.insert("read_requests".into(), json!(f.read_requests));
    }
    if let Some((rk, rf)) = reverse {
        r.insert(
            "reverse".into(),
            json!({"src_ip": rk.src.to_string(), "dst_ip": rk.dst.to_string(), "udp_src_port": rk.src_port, "dst_qp": rk.dest_qp}),
        );
        // What the responder said about this flow's packets, and the CNPs it sent its sender.
        r.insert("acks".into(), json!(rf.acks));
        r.insert("naks_psn_seq".into(), json!(rf.naks_psn_seq));
        r.insert("naks_other".into(), json!(rf.naks_other));
        r.insert("rnr_naks".into(), json!(rf.rnr_naks));
        r.insert("cnps_to_sender".into(), json!(rf.cnps));
        if f.data_packets > 0 {
            let naks = rf.naks_psn_seq + rf.naks_other;
            r.insert("nak_rate".into(), json!(naks as f64 / f.data_packets as f64));
        }
        r.insert("reverse_dscp".into(), json!(rf.dscp));
    }
    Value::Object(r)
}

/// Every flow's record, in a stable order (first seen, then key).
pub fn records(flows: &Flows, source: &Source) -> Vec<Value> {
    let links = flows.links();
    let mut keys: Vec<(&FlowKey, &Flow)> = flows.flows.iter().collect();
    keys.sort_by_key(|(k, f)| (f.first_ns, **k));
    keys.into_iter()
        .map(|(k, f)| {
            let reverse = links.get(k).and_then(|r| flows.flows.get(r).map(|rf| (r, rf)));
            record(k, f, reverse, source)
        })
        .collect()
}

/// `RC`, `UC`, `UD`, `RD`, `CM` (RDMA-CM on QP1), or `mixed`.
fn transport(f: &Flow) -> String {
    if f.cm {
        return "CM".into();
    }
    match f.transports.iter().collect::<Vec<_>>().as_slice() {
        [] => "CNP".into(),
        [one] => format!("{one:?}"),
        _ => "mixed".into(),
    }
}

/// Nanoseconds since the epoch as RFC 3339 with nanoseconds, UTC.
fn rfc3339(ns: u64) -> String {
    let secs = ns / 1_000_000_000;
    let days = secs / 86_400;
    let (h, m, s) = ((secs % 86_400) / 3600, (secs % 3600) / 60, secs % 60);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let mo = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(mo <= 2);
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{m:02}:{s:02}.{:09}Z", ns % 1_000_000_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_in_rfc3339() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000000000Z");
        assert_eq!(rfc3339(1_700_000_000_123_456_789), "2023-11-14T22:13:20.123456789Z");
        assert_eq!(rfc3339(951_782_400_000_000_000), "2000-02-29T00:00:00.000000000Z");
    }
}
