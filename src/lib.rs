//! fabcheck: audits the lossless fabric of GPU clusters (RoCEv2, InfiniBand) over SSH.
pub mod audit;
pub mod bench;
pub mod collect;
pub mod evidence;
pub mod facts;
#[cfg(test)]
mod judged;
pub mod platform;
pub mod playbook;
pub mod run_comparison;
pub mod saved_run;
pub mod transport;
pub mod waivers;

pub mod cli;

// The judgment stages live in `fabcheck-check`, which cannot reach the parsers; their paths here
// are unchanged.
pub use fabcheck_check::{check, correlate, policy, topology};
