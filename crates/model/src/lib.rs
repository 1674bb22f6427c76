//! fabcheck's data: the facts every stage reads, and the machine-readable outputs.
//!
//! - [`host`] and [`switch`]: typed facts of GPU hosts and the vendor-neutral switch model. The
//!   parsers (`fabcheck-parse`) produce them; checks, topology and reports read them and never
//!   vendor text.
//! - [`Finding`], [`AuditResult`] and the rest: the `findings.json` wire format
//!   (`docs/findings-json.md`). Other tools consume it, so fields are only ever added; codes and
//!   severities are stable strings.
#![deny(missing_docs)]

pub mod config;
pub mod counters;
pub mod facts;
mod finding;
// The record's fields are the schema's, each documented in docs/flow-records.md.
#[allow(missing_docs)]
pub mod flow_record;
pub mod host;
mod result;
mod run_comparison;
pub mod switch;

pub use config::FabricConfig;
pub use finding::{Finding, Fix, Severity, assign_ids, hop_device};
pub use result::{
    AuditResult, BenchPoint, BenchRun, CounterSample, DesignHint, DeviceSummary, FlowView, HopState, Incident,
    JobCause, JobView, OutputRead, PathView, ReadStatus, Summary, UnreadLine, Verdict, exit_codes, is_switch_role,
};
pub use run_comparison::{Changes, ConfigChange, CounterRate};
