//! The facts stage: a device's evidence becomes one typed [`DeviceFacts`], once. Everything after
//! it (checks, topology, the NCCL environment, correlation, reports) reads facts, never text.
//!
//! Reading an output can fail in many ways (transport error, missing tool, failed command,
//! unparsable output); each becomes its `collect.*`/`ssh.*` finding here, and each output that
//! was not understood completely is kept with its unread lines ([`reader`]), so what was not
//! understood is shown, never dropped.

pub mod config;
mod flow_collector;
mod host;
pub mod reader;
mod switch;

pub use host::{AdapterFacts, Dcqcn, HostFacts, IbPortFacts, IrqFacts, NicFacts, PortCounterReads, SmAnswer};
pub use switch::{SwitchCounterReads, SwitchFacts};

use crate::evidence::DeviceRecord;
use crate::platform::Kind;
use fabcheck_model::switch::SwitchCounters;
use fabcheck_model::{Finding, OutputRead, Severity};
use std::collections::BTreeMap;

/// Everything fabcheck knows about one device.
#[derive(Debug, Clone)]
pub struct DeviceFacts {
    /// Inventory name.
    pub name: String,
    /// `host`, `leaf`, `spine`...
    pub role: String,
    /// `fabcheck_platform`.
    pub platform: String,
    /// What was connected to.
    pub address: String,
    /// Commands run.
    pub commands: usize,
    /// What kind of device it turned out to be.
    pub kind: DeviceKind,
    /// Findings about reading the evidence (`collect.*`, `ssh.*` per command).
    pub reading: Vec<Finding>,
    /// Outputs not understood completely, with their unread lines.
    pub unread: Vec<OutputRead>,
}

/// What the evidence says a device is.
#[derive(Debug, Clone)]
pub enum DeviceKind {
    /// Not reached: the error's code and message.
    Unreachable {
        /// `ssh.unreachable`...
        code: String,
        /// What went wrong.
        message: String,
    },
    /// A GPU host.
    Host(Box<HostFacts>),
    /// A switch of a known platform.
    Switch(Box<SwitchFacts>),
    /// A flow collector: the records its command printed.
    Collector(Vec<fabcheck_flows::record::FlowRecord>),
    /// A switch whose platform fabcheck has no reader for.
    Unsupported,
}

impl DeviceFacts {
    /// The evidence file of output `key` (for a finding's `evidence`).
    pub fn evidence(&self, key: &str) -> String {
        evidence_file(&self.name, key)
    }
}

/// The evidence file of output `key` of `device`.
pub fn evidence_file(device: &str, key: &str) -> String {
    format!("{device}/{key}.txt")
}

/// One read of a port's counters, under the names the policy's rules use.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CounterRead {
    /// Counter values by name.
    pub values: BTreeMap<String, u64>,
    /// When the read was sent, milliseconds since the epoch.
    pub started_ms: u64,
    /// When its answer was complete: the device read its counters between the two.
    pub finished_ms: u64,
    /// The evidence files it came from.
    pub files: Vec<String>,
}

/// One phase's counters of a switch, in the model, with the evidence files they came from.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CounterTable {
    /// Per port.
    pub counters: SwitchCounters,
    /// Evidence files.
    pub files: Vec<String>,
}

/// Reads one device's evidence into facts.
pub fn build(record: &DeviceRecord) -> DeviceFacts {
    let mut facts = DeviceFacts {
        name: record.name.clone(),
        role: record.role.clone(),
        platform: record.platform.clone(),
        address: record.address.clone(),
        commands: record.outputs.len(),
        kind: DeviceKind::Unsupported,
        reading: Vec::new(),
        unread: Vec::new(),
    };
    // A device that failed before giving anything is unreachable; one that failed partway
    // (`--device-timeout`) is judged on what it gave, its failure a finding of its own.
    let partway = match &record.error {
        Some(err) if record.outputs.is_empty() => {
            facts.kind = DeviceKind::Unreachable { code: err.code.clone(), message: err.message.clone() };
            return facts;
        }
        Some(err) => Some(Finding::new(&err.code, Severity::Error, &record.name, err.message.clone())),
        None => None,
    };
    let mut reader = reader::Reader::new(record);
    facts.kind = match crate::platform::kind(&record.role, &record.platform) {
        Kind::Host => DeviceKind::Host(Box::new(host::read(&mut reader, record))),
        Kind::FlowCollector => DeviceKind::Collector(flow_collector::read(&mut reader)),
        Kind::Switch(platform) => DeviceKind::Switch(Box::new(switch::read(&mut reader, platform))),
        Kind::Unsupported => DeviceKind::Unsupported,
    };
    facts.reading = reader.findings;
    facts.reading.extend(partway);
    facts.unread = reader.unread;
    facts
}
