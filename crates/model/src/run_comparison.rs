//! What changed between two runs over the same fabric: findings new and fixed, configuration
//! values that drifted, and counter rates between the two (`--state`, `fabcheck diff`).

use crate::{Finding, Incident};
use serde::{Deserialize, Serialize};

/// Two runs compared: `before` is the earlier one.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Changes {
    /// When the earlier run started (RFC 3339).
    pub before: String,
    /// When the later one started.
    pub after: String,
    /// Seconds between the two starts (the rates' interval); absent when a start is unreadable.
    pub seconds: Option<f64>,
    /// Findings the later run has and the earlier did not (by code, device and port).
    pub new_findings: Vec<Finding>,
    /// Findings the earlier run had and the later does not, on devices the later run read.
    pub fixed_findings: Vec<Finding>,
    /// Configuration values that differ, on devices whose configuration both runs read.
    pub drift: Vec<ConfigChange>,
    /// Counters that grew between the two runs' reads, fastest first.
    pub rates: Vec<CounterRate>,
    /// Devices only the later run has.
    pub devices_added: Vec<String>,
    /// Devices only the earlier run has.
    pub devices_removed: Vec<String>,
    /// Devices in both whose configuration one run could not read: not compared.
    pub devices_not_compared: Vec<String>,
    /// Root causes the later run has and the earlier did not (by incident id), or whose worst
    /// severity rose.
    #[serde(default)]
    pub new_incidents: Vec<Incident>,
    /// Root causes the earlier run had and the later does not, at devices the later run read.
    #[serde(default)]
    pub fixed_incidents: Vec<Incident>,
}

/// One configuration value that differs.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ConfigChange {
    /// Device.
    pub device: String,
    /// Port; absent for a device-wide value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<String>,
    /// Setting (`mlnx_qos.trust`, `lossless_priorities`, `queues.3.ecn.min_bytes`).
    pub setting: String,
    /// Earlier value; absent: not set (or not read) then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    /// Later value; absent: not set now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
}

/// A counter's growth between two runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CounterRate {
    /// Device.
    pub device: String,
    /// Port.
    pub port: String,
    /// Counter name.
    pub counter: String,
    /// Growth between the two runs' second reads.
    pub increase: u64,
    /// Growth per second (over the time between the two starts); absent when unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_second: Option<f64>,
}

impl Changes {
    /// Nothing changed.
    pub fn is_empty(&self) -> bool {
        self.new_findings.is_empty()
            && self.fixed_findings.is_empty()
            && self.new_incidents.is_empty()
            && self.fixed_incidents.is_empty()
            && self.drift.is_empty()
            && self.devices_added.is_empty()
            && self.devices_removed.is_empty()
    }
}

impl ConfigChange {
    /// `device` or `device:port`, as a hop is written.
    pub fn place(&self) -> String {
        match &self.port {
            Some(p) => format!("{}:{p}", self.device),
            None => self.device.clone(),
        }
    }
}
