//! The built-in lab: simulated GPU hosts answering over real SSH on loopback.
//!
//! Each host is a russh server on its own loopback port with its own host key, running the same
//! commands a real host would (in the exact formats of the real samples) against a consistent
//! simulated state, with counters that move and faults injected by name. The auditor reaches it
//! through the inventory and known_hosts the lab writes, exactly as it reaches a real cluster: it
//! has no lab code path.
//!
//! Benchmarks too: `mpirun` and `srun` on any host start nccl-tests ranks across the lab, print
//! what nccl-tests and NCCL (`NCCL_DEBUG=INFO`) print, with a bus bandwidth that follows from the
//! hosts' links, NICs, modules and faults, and stream it over the run's (scaled) duration without
//! holding up the connection's other channels.
#![deny(missing_docs)]

pub mod build;
pub mod faults;
mod render;
mod server;
pub mod shell;
pub mod state;

pub use faults::{Fault, FaultKind};
pub use server::{Lab, LabConfig, LabError};
