//! A switch's facts: its configuration and state in the vendor-neutral model (read by its
//! platform's file), its LLDP neighbours, and its counters around the window.

use super::CounterTable;
use super::reader::Reader;
use crate::platform::{SwitchPlatform, ports_to_query};
use fabcheck_model::switch::{LldpNeighbor, SwitchQos};

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

/// Reads a switch's outputs with its platform's readers.
pub fn read(out: &mut Reader, platform: &SwitchPlatform) -> SwitchFacts {
    let lldp = out.get("lldp", None, fabcheck_parse::lldp::parse).map(|l| l.neighbors).unwrap_or_default();
    let record = out.record();
    let ports = ports_to_query(platform, record.stdout_ok("lldp").as_deref(), record.stdout_ok("config").as_deref());
    let qos = (platform.qos)(out, &ports);
    let counters = match ((platform.read_counters)(out, "t0", &ports), (platform.read_counters)(out, "t1", &ports)) {
        (Some(before), Some(after)) => Some(SwitchCounterReads {
            before,
            after,
            before_ms: out.span_of_phase("t0").unwrap_or_default(),
            after_ms: out.span_of_phase("t1").unwrap_or_default(),
        }),
        _ => None,
    };
    let config_file = out.file("config");
    let config_unread = out.findings.iter().any(|f| f.evidence.contains(&config_file));
    SwitchFacts {
        platform: platform.name,
        qos,
        lldp,
        config_file,
        lldp_file: out.file("lldp"),
        counters,
        config_unread,
    }
}
