//! Facts of `ethtool -S IF`, as its parser (`fabcheck_parse::linux::ethtool_stats`) produces them.

use serde::Serialize;
use std::collections::BTreeMap;

/// The counters of one interface.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct EthtoolStats {
    /// Counter name -> value.
    pub counters: BTreeMap<String, u64>,
}
