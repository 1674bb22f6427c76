//! fabcheck: audits the lossless fabric of GPU clusters (RoCEv2, InfiniBand) over SSH.
pub mod audit;
pub mod bench;
pub mod check;
pub mod collect;
pub mod correlate;
pub mod evidence;
pub mod facts;
pub mod platform;
pub mod playbook;
pub mod policy;
pub mod run_comparison;
pub mod saved_run;
pub mod topology;
pub mod transport;
pub mod waivers;

pub mod cli;
