//! `rdma-flow-record/1`: one JSON object per flow, one per line (docs/flow-records.md is the
//! schema), typed: written from a capture's flows, read back from JSON Lines that fabcheck or a
//! collector wrote. A key that is absent means unknown, never zero; units are in the key names;
//! times are RFC 3339 and nanoseconds since the Unix epoch.
use serde::{Deserialize, Serialize};
use std::net::IpAddr;

/// The schema's name and version.
pub const SCHEMA: &str = "rdma-flow-record/1";

/// Where a flow record's packets were seen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Source {
    /// `capture`, or what a collector names its source.
    pub kind: String,
    /// The capture file, or the collector's source name.
    pub file: String,
    /// The point it was taken at (`--at NAME=FILE`), when named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub point: Option<String>,
    /// One packet in `sampling_rate` was kept: 1 for a full capture.
    pub sampling_rate: u64,
}

/// Where an sFlow agent sampled a flow, and how much of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sflow {
    /// The agent's address, when it said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<IpAddr>,
    pub sub_agent_id: u32,
    /// `class:index` as sflowtool writes it: `0:27` is the interface with ifIndex 27.
    pub data_source: String,
    /// Packets sampled: what the estimates stand on.
    pub samples: u64,
    /// The ifIndexes the sampled packets came in on, when known.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub input_ifindex: Vec<u32>,
    /// The ifIndexes they went out on, when known (not dropped, not sent to several).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub output_ifindex: Vec<u32>,
}

/// Packets per ECN codepoint.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EcnPackets {
    pub not_ect: u64,
    pub ect1: u64,
    pub ect0: u64,
    pub ce: u64,
}

/// Message completion times.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fct {
    pub min: u64,
    pub p50: u64,
    pub p99: u64,
    pub max: u64,
}

/// The flow back, by its identity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reverse {
    pub src_ip: IpAddr,
    pub dst_ip: IpAddr,
    pub udp_src_port: u16,
    pub dst_qp: u32,
}

/// One flow.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlowRecord {
    pub schema: String,
    pub source: Source,
    /// `true`: the counts are estimates, scaled up from sampled packets (sFlow); `false`: every
    /// packet was seen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sflow: Option<Sflow>,
    pub src_ip: IpAddr,
    pub dst_ip: IpAddr,
    pub udp_src_port: u16,
    pub dst_qp: u32,
    /// `RC`, `UC`, `UD`, `RD`, `XRC`, `CM`, `CNP` or `mixed`.
    pub transport: String,
    pub first_seen: String,
    pub first_seen_unix_ns: u64,
    pub last_seen_unix_ns: u64,
    pub duration_ns: u64,
    pub packets: u64,
    pub ecn_packets: EcnPackets,
    pub dscp: Vec<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cnps: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_packets: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throughput_bytes_per_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages_incomplete: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fct_ns: Option<Fct>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retransmits: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_requests: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse: Option<Reverse>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acks: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub naks_psn_seq: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub naks_other: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rnr_naks: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cnps_to_sender: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nak_rate: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_dscp: Option<Vec<u8>>,
}

impl FlowRecord {
    /// `src:port → dst qp 0x..`, the flow's name in messages.
    pub fn name(&self) -> String {
        format!("{}:{} → {} qp {:#x}", self.src_ip, self.udp_src_port, self.dst_ip, self.dst_qp)
    }

    /// A data flow: not RDMA-CM, with data packets.
    pub fn is_data(&self) -> bool {
        self.transport != "CM" && self.data_packets.unwrap_or(0) > 0
    }
}
