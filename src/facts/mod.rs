//! The facts stage: a device's evidence becomes one typed [`DeviceFacts`], once. Everything after
//! it (checks, topology, the NCCL environment, correlation, reports) reads facts, never text.
//!
//! Reading an output can fail in many ways (transport error, missing tool, failed command,
//! unparsable output); each becomes its `collect.*`/`ssh.*` finding here, and each output that
//! was not understood completely is kept with its unread lines ([`reader`]), so what was not
//! understood is shown, never dropped.

mod flow_collector;
mod host;
pub mod ports;
pub mod reader;
mod switch;

pub use fabcheck_model::facts::*;

use crate::evidence::DeviceRecord;
use crate::platform::Kind;
use fabcheck_model::{Finding, Severity};

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
