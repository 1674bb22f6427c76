//! Facts of `mlnx_qos -i IF` (MLNX_OFED / mlnx-tools), as its parser (`fabcheck_parse::linux::mlnx_qos`) produces them.

use serde::Serialize;
use std::collections::BTreeMap;

/// The QoS state of one interface as `mlnx_qos` prints it.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct MlnxQos {
    /// `OS controlled` or `Firmware controlled`.
    pub dcbx_mode: Option<String>,
    /// `dscp` or `pcp`, as printed after `Priority trust state:`.
    pub trust: Option<String>,
    /// The `default priority:` entry, when one is set.
    pub default_priority: Option<u8>,
    /// DSCP -> priority, from the `prio:N dscp:..` rows (empty when trust is pcp).
    pub dscp_to_priority: BTreeMap<u8, u8>,
    /// Priorities whose PFC `enabled` column is 1, ascending.
    pub pfc_enabled: Vec<u8>,
    /// The PFC `buffer` row (priority -> receive buffer), when printed.
    pub pfc_buffer: Option<Vec<u8>>,
    /// Receive buffer sizes in bytes, when printed.
    pub receive_buffer: Option<Vec<u64>>,
    /// The most the receive buffers may take in all, in bytes: the `max_buffer_size=` (or
    /// `total_size=`) after the sizes, when printed.
    pub receive_buffer_max: Option<u64>,
    /// `Cable len:` in meters.
    pub cable_len: Option<u32>,
    /// Traffic classes in the order printed.
    pub tcs: Vec<Tc>,
    /// Priority -> traffic class, from the `priority:` lines under each `tc:` line.
    pub priority_to_tc: BTreeMap<u8, u8>,
}

/// One traffic class line with the priorities mapped to it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tc {
    /// Traffic class number.
    pub tc: u8,
    /// `unlimited` or a rate such as `25.0 Gbps`.
    pub ratelimit: Option<String>,
    /// Transmission selection algorithm: `ets`, `strict`, `vendor` or `unknown`.
    pub tsa: Option<String>,
    /// ETS bandwidth share, for `ets` classes.
    pub bw_percent: Option<u8>,
    /// Priorities mapped to this class.
    pub priorities: Vec<u8>,
}
