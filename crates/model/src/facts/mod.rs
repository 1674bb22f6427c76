//! The facts stage's output: what a device's evidence says, typed. The facts stage (the
//! `fabcheck` crate's `src/facts`) builds them from text with the parsers; the checks, topology
//! and correlation (`fabcheck-check`) read only these, so they cannot reach the parsers: the
//! compiler keeps the layers apart.

pub mod config;
mod host;
mod switch;

pub use host::{AdapterFacts, Dcqcn, HostFacts, IbPortFacts, IrqFacts, NicFacts, PortCounterReads, RdmaPort, SmAnswer};
pub use switch::{SwitchCounterReads, SwitchFacts};

use crate::Finding;
use crate::OutputRead;
use crate::switch::SwitchCounters;
use std::collections::BTreeMap;

/// Why a device gave no evidence, where the reason is fabcheck's own and not the device's (the
/// `ssh.*` codes are the device's): the codes of [`DeviceKind::Unreachable`].
pub mod unreachable {
    /// fabcheck's want of file descriptors: the device was not tried.
    pub const FD_LIMIT: &str = "collect.fd_limit";
    /// A node the merge expected a snapshot from (`--expect-nodes`) gave none.
    pub const SNAPSHOT_MISSING: &str = "collect.snapshot_missing";
}

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
    Collector(Vec<crate::flow_record::FlowRecord>),
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
