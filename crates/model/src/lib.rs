//! The machine-readable outputs of fabcheck: findings, the audit result and exit codes.
//!
//! These types are the `findings.json` wire format described in the design document. Other tools
//! consume them, so fields are only ever added; codes and severities are stable strings.
#![deny(missing_docs)]

mod finding;
mod result;

pub use finding::{Finding, Severity};
pub use result::{
    AuditResult, BenchPoint, BenchRun, CounterSample, DeviceSummary, HopState, PathView, Summary, Verdict, exit_codes,
};
