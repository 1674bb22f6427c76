//! The built-in lab: simulated GPU hosts and switches answering over real SSH on loopback.
//!
//! Each device is a russh server on its own loopback port with its own host key, running the
//! same commands a real one would (in the exact formats of the real samples) against a
//! consistent simulated state, with counters that move and faults injected by name. The auditor
//! reaches it through the inventory and known_hosts the lab writes, exactly as it reaches a real
//! cluster: it has no lab code path.
//!
//! Switches: leaves and spines of a two-tier Clos ([`LabConfig::leaves`], [`LabConfig::spines`]),
//! running SONiC, Arista EOS or Cumulus/NVUE (NX-OS and Dell OS10 too, through
//! [`build::build_fabric_with_platforms`] and [`Lab::start_with_platforms`]), each answering its
//! platform's show commands; the
//! hosts' RoCE rails are cabled to the leaves and every leaf to every spine, and LLDP on every
//! device (the hosts' lldpd included) tells that wiring. See `render/sonic.rs`, `render/eos.rs`,
//! `render/nvue.rs`, `render/nxos.rs`, `render/dell_os10.rs` and `render/lldp.rs` for the
//! formats, [`faults`] for the switch faults.
//!
//! Fixes too: a host accepts the configuration commands that cure its faults (`mlnx_qos --pfc`,
//! `--trust`, `--dscp2prio`, `ip link set mtu`, `echo V > /sys/class/net/IF/ecn/...`,
//! `modprobe nvidia_peermem`) as the real tools do, refusing what they refuse, and every later
//! command on any connection sees the change; [`Lab::run_on`] runs one as an SSH exec request
//! would, for tests. See [`shell`].
//!
//! Benchmarks too: `mpirun` and `srun` on any host start nccl-tests ranks across the lab, print
//! what nccl-tests and NCCL (`NCCL_DEBUG=INFO`) print, with a bus bandwidth that follows from the
//! hosts' links, NICs, modules and faults, and stream it over the run's (scaled) duration without
//! holding up the connection's other channels.
#![deny(missing_docs)]

pub mod build;
pub mod design;
pub mod faults;
mod render;
mod script;
mod server;
pub mod shell;
pub mod state;

pub use design::Design;
pub use faults::{Fault, FaultKind};
pub use server::{Lab, LabConfig, LabError, RunError};
pub use state::{Fabric, Platform, SwitchRole};
