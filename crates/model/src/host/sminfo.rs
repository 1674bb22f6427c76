//! Facts of `sminfo` (infiniband-diags), as its parser (`fabcheck_parse::linux::sminfo`) produces them.

use serde::Serialize;

/// The subnet manager as `sminfo` reports it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sminfo {
    /// The SM's LID.
    pub sm_lid: u32,
    /// The SM's port GUID as printed (`0x...`, leading zeros dropped by sminfo).
    pub sm_guid: String,
    /// SMInfo ActivityCount: grows while the SM is alive.
    pub activity_count: u64,
    /// SM priority (0-15).
    pub priority: u32,
    /// SM state number (3 = master).
    pub state: u32,
    /// SM state name, e.g. `SMINFO_MASTER`, `SMINFO_STANDBY`.
    pub state_name: String,
}
