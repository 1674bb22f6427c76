//! What each command prints on a lab host, byte for byte in the real tool's format.
//!
//! One module per command (or per file family for `cat`/`grep`); each says which real sample or
//! source its format follows. Renderers only read the [`LabHost`](crate::state::LabHost) state
//! (and the time since the lab started, for counters), so every command agrees with every other.
//! `common` derives what several commands share (GUIDs, GIDs, port state, rate). `mpirun` and
//! `nccl_tests` render a benchmark job over several hosts (the whole lab is their input), with
//! `nccl` deciding what NCCL picks on each host and how fast it goes, and `nccl_log` writing
//! NCCL's own lines.
//!
//! Switches: `sonic`, `eos`, `nvue`, `nxos` and `dell_os10` render each platform's commands from a
//! [`LabSwitch`](crate::state::LabSwitch) (and the [`Fabric`](crate::state::Fabric), for what is
//! at the other end of each cable); `lldp` renders LLDP tables for hosts and switches alike,
//! `switch_qos` what the CLI platforms' configurations share (queue profiles, DSCP classes), and
//! `tabulate` the python tables of sonic-utilities.

pub(crate) mod capture;
pub(crate) mod common;
pub(crate) mod dell_os10;
pub(crate) mod eos;
pub(crate) mod ethtool;
pub(crate) mod ethtool_stats;
pub(crate) mod ibdev2netdev;
pub(crate) mod iblinkinfo;
pub(crate) mod ibstat;
pub(crate) mod interrupts;
pub(crate) mod ip_link;
pub(crate) mod ip_route;
pub(crate) mod lldp;
pub(crate) mod lsmod;
pub(crate) mod mlnx_qos;
pub(crate) mod mpirun;
pub(crate) mod nccl;
pub(crate) mod nccl_log;
pub(crate) mod nccl_tests;
pub(crate) mod nvidia_smi_topo;
pub(crate) mod nvue;
pub(crate) mod nxos;
pub(crate) mod perfquery;
pub(crate) mod show_gids;
pub(crate) mod sminfo;
pub(crate) mod sonic;
pub(crate) mod switch_qos;
pub(crate) mod sysfs;
pub(crate) mod tabulate;
