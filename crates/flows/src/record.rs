//! Flow records from a capture's flows, and read back from JSON Lines. The record types are
//! the model's (`fabcheck_model::flow_record`): the checks read them without this crate.
use crate::flow::{Flow, FlowKey, Flows, Sampled, Sampler};
pub use fabcheck_model::flow_record::*;

/// The record of flow `key`, with the flow answering it (`reverse`), when linked. A flow an sFlow
/// agent sampled is `sflow` at the agent's sampling rate, its point the agent's address unless
/// `source` names one: its packets were seen there, not where the datagrams were captured.
pub fn record(key: &FlowKey, f: &Flow, reverse: Option<(&FlowKey, &Flow)>, source: &Source) -> FlowRecord {
    let data = !f.cm;
    // Message metrics need every packet of a message; the times of a sampled flow are when the
    // collector received the datagrams, which agents fill and send a second or so apart.
    let exact = f.sampled.is_none();
    let secs = (f.last_ns - f.first_ns) as f64 / 1e9;
    let throughput = f
        .payload_bytes
        .filter(|_| exact && data && f.data_packets > 1 && secs > 0.0)
        .map(|bytes| (bytes as f64 / secs).round());
    let fct = f.fct_ns.min().zip(f.fct_ns.max()).map(|(min, max)| Fct {
        min,
        p50: f.fct_ns.quantile(0.5).unwrap_or(min),
        p99: f.fct_ns.quantile(0.99).unwrap_or(max),
        max,
    });
    let data_only = |v: u64| data.then_some(v);
    let message = |v: u64| (data && exact).then_some(v);
    let back = |get: fn(&Flow) -> u64| reverse.map(|(_, r)| get(r));
    let sampled = key.sampler.zip(f.sampled.as_ref());
    FlowRecord {
        schema: SCHEMA.into(),
        source: match sampled {
            Some((by, s)) => Source {
                kind: "sflow".into(),
                file: source.file.clone(),
                point: source.point.clone().or(by.agent.map(|a| a.to_string())),
                sampling_rate: u64::from(s.max_rate),
            },
            None => source.clone(),
        },
        estimated: Some(!exact),
        sflow: sampled.map(|(by, s)| sflow(&by, s)),
        src_ip: key.src,
        dst_ip: key.dst,
        udp_src_port: key.src_port,
        dst_qp: key.dest_qp,
        transport: transport(f),
        first_seen: rfc3339(f.first_ns),
        first_seen_unix_ns: f.first_ns,
        last_seen_unix_ns: f.last_ns,
        duration_ns: f.last_ns - f.first_ns,
        packets: f.packets,
        ecn_packets: EcnPackets { not_ect: f.ecn[0], ect1: f.ecn[1], ect0: f.ecn[2], ce: f.ecn[3] },
        dscp: f.dscp.iter().copied().collect(),
        cnps: Some(f.cnps),
        data_packets: data_only(f.data_packets),
        payload_bytes: f.payload_bytes.filter(|_| data),
        throughput_bytes_per_s: throughput,
        messages: message(f.messages),
        messages_incomplete: message(f.incomplete()),
        fct_ns: fct.filter(|_| data && exact),
        retransmits: data_only(f.retransmits),
        read_requests: data_only(f.read_requests),
        reverse: reverse.map(|(k, _)| Reverse {
            src_ip: k.src,
            dst_ip: k.dst,
            udp_src_port: k.src_port,
            dst_qp: k.dest_qp,
        }),
        acks: back(|r| r.acks),
        naks_psn_seq: back(|r| r.naks_psn_seq),
        naks_other: back(|r| r.naks_other),
        rnr_naks: back(|r| r.rnr_naks),
        cnps_to_sender: back(|r| r.cnps),
        nak_rate: reverse
            .filter(|_| f.data_packets > 0)
            .map(|(_, r)| (r.naks_psn_seq + r.naks_other) as f64 / f.data_packets as f64),
        reverse_dscp: reverse.map(|(_, r)| r.dscp.iter().copied().collect()),
    }
}

/// What a sampled flow's record says of its sampling.
fn sflow(by: &Sampler, s: &Sampled) -> Sflow {
    Sflow {
        agent: by.agent,
        sub_agent_id: by.sub_agent_id,
        data_source: format!("{}:{}", by.source_class, by.source_index),
        samples: s.samples,
        input_ifindex: s.input_ifindex.iter().copied().collect(),
        output_ifindex: s.output_ifindex.iter().copied().collect(),
    }
}

/// Every flow's record, in a stable order (first seen, then key).
pub fn records(flows: &Flows, source: &Source) -> Vec<FlowRecord> {
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

/// Reads `rdma-flow-record/1` JSON Lines: the records, and for each line that is not one, its
/// number and why (blank lines are skipped).
pub fn read_lines(text: &str) -> (Vec<FlowRecord>, Vec<(usize, String)>) {
    let mut records = Vec::new();
    let mut errors = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        // The schema first: a record of another kind is named as such, not by its first
        // missing field.
        let value: serde_json::Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                errors.push((i + 1, e.to_string()));
                continue;
            }
        };
        match value.get("schema").and_then(serde_json::Value::as_str) {
            Some(SCHEMA) => match serde_json::from_value::<FlowRecord>(value) {
                Ok(r) => records.push(r),
                Err(e) => errors.push((i + 1, e.to_string())),
            },
            Some(other) => errors.push((i + 1, format!("schema `{other}`, not {SCHEMA}"))),
            None => errors.push((i + 1, format!("no `schema` (expected {SCHEMA})"))),
        }
    }
    (records, errors)
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
    let (secs, nanos) = ((ns / 1_000_000_000) as i64, (ns % 1_000_000_000) as u32);
    chrono::DateTime::from_timestamp(secs, nanos)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Nanos, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_across_leap_years_with_nanoseconds() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000000000Z");
        assert_eq!(rfc3339(951_782_400_000_000_000), "2000-02-29T00:00:00.000000000Z");
        assert_eq!(rfc3339(1_700_000_000_000_000_123), "2023-11-14T22:13:20.000000123Z");
    }

    #[test]
    fn times_in_rfc3339() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000000000Z");
        assert_eq!(rfc3339(1_700_000_000_123_456_789), "2023-11-14T22:13:20.123456789Z");
        assert_eq!(rfc3339(951_782_400_000_000_000), "2000-02-29T00:00:00.000000000Z");
    }

    #[test]
    fn records_read_back_and_bad_lines_are_named() {
        let line = r#"{"schema":"rdma-flow-record/1","source":{"kind":"sflow","file":"collector1","sampling_rate":4096},"src_ip":"10.0.0.1","dst_ip":"10.0.0.2","udp_src_port":50000,"dst_qp":34,"transport":"RC","first_seen":"2023-11-14T22:13:20.000000000Z","first_seen_unix_ns":1,"last_seen_unix_ns":2,"duration_ns":1,"packets":9,"ecn_packets":{"not_ect":0,"ect1":0,"ect0":9,"ce":0},"dscp":[26],"data_packets":9}"#;
        let text = format!("{line}\n\nnot json\n{}\n", line.replace("rdma-flow-record/1", "rdma-flow-record/9"));
        let (records, errors) = read_lines(&text);
        assert_eq!(records.len(), 1);
        assert_eq!(
            (records[0].data_packets, records[0].nak_rate, records[0].source.sampling_rate),
            (Some(9), None, 4096)
        );
        assert_eq!(errors.iter().map(|(n, _)| *n).collect::<Vec<_>>(), [3, 4]);
        let back = serde_json::to_string(&records[0]).unwrap();
        assert!(!back.contains("nak_rate"), "absent stays absent: {back}");
    }
}
