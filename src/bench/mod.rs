//! nccl-tests: building the launch command from the audited facts, running it on the first host,
//! judging its output, baselines, and isolating slow hosts. Seeds/003's rules: baseline first,
//! with busbw as the yardstick; make NCCL use the right NIC.

pub mod baseline;
pub mod env;
pub mod isolate;
pub mod judge;
pub mod launch;
pub mod loopback;
pub mod reference;
pub mod run;
pub mod triage;
