//! A switch's facts: its configuration and state in the vendor-neutral model (read by its
//! platform's file), its LLDP neighbours, and its counters around the window.

use super::CounterTable;
use crate::switch::{LldpNeighbor, SwitchQos};

/// What a switch's evidence says.
#[derive(Debug, Clone, Default)]
pub struct SwitchFacts {
    /// The platform's `fabcheck_platform` name (`sonic`, `eos`...): the syntax of its fixes.
    pub platform: &'static str,
    /// Configuration and state in the neutral model.
    pub qos: SwitchQos,
    /// LLDP neighbours.
    pub lldp: Vec<LldpNeighbor>,
    /// Evidence file of the configuration (for findings).
    pub config_file: String,
    /// Evidence file of the LLDP table.
    pub lldp_file: String,
    /// Counters before and after the window, and when each read started.
    pub counters: Option<SwitchCounterReads>,
    /// The configuration output could not be read (failed, cut short, not understood): its
    /// `collect.*` finding says so, and what the switch leaves unknown is that finding's to say.
    pub config_unread: bool,
}

/// A switch's two counter reads.
#[derive(Debug, Clone, Default)]
pub struct SwitchCounterReads {
    /// Before the window.
    pub before: CounterTable,
    /// After it.
    pub after: CounterTable,
    /// When the first read was sent and answered, milliseconds since the epoch.
    pub before_ms: (u64, u64),
    /// When the second was.
    pub after_ms: (u64, u64),
}
