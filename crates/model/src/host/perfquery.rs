//! Facts of `perfquery -x [LID PORT]` and `perfquery -e -x` (infiniband-diags), as its parser (`fabcheck_parse::linux::perfquery`) produces them.

use serde::Serialize;
use std::collections::BTreeMap;

/// One port's counters.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Perfquery {
    /// LID from the `# Port ... counters: Lid N port M` header.
    pub lid: Option<u32>,
    /// Port from the header (or `PortSelect`); `None` for `all ports`.
    pub port: Option<u32>,
    /// `CapMask` from the header, as printed.
    pub cap_mask: Option<String>,
    /// `CapMask2` from the header, as printed (newer infiniband-diags).
    pub cap_mask2: Option<String>,
    /// Counter name as printed (`PortXmitData`, `SymbolErrorCounter` ...) to value.
    pub counters: BTreeMap<String, u64>,
}
