//! Flow collectors (`fabcheck_role=collector`): one read-only command from the inventory
//! (`fabcheck_flows_command`, e.g. `cat /var/lib/flows/last-10m.jsonl`) that prints
//! `rdma-flow-record/1` JSON Lines (docs/flow-records.md). It runs while the counter window is
//! open, as the hosts' captures do, so the records cover the window when the collector exports
//! them as they come.
use super::{Probe, probe};

/// The evidence key of the collector's output.
pub const FLOWS_KEY: &str = "flows";

/// The collector's command as a probe. The command is the operator's, taken as written: it
/// must be read-only and end by itself.
pub fn flows_probe(command: &str) -> Probe {
    probe(FLOWS_KEY, "rdma-flow-record", command)
}
