//! A switch's facts: its configuration and state in the vendor-neutral model (read by its
//! platform's file), its LLDP neighbours, and its counters around the window.

use super::reader::Reader;
use super::{SwitchCounterReads, SwitchFacts};
use crate::platform::{SwitchPlatform, ports_to_query};

/// Reads a switch's outputs with its platform's readers.
pub fn read(out: &mut Reader, platform: &SwitchPlatform) -> SwitchFacts {
    let lldp = out.get("lldp", None, fabcheck_parse::lldp::parse).map(|l| l.neighbors).unwrap_or_default();
    let record = out.record();
    let ports = ports_to_query(platform, record.stdout_ok("lldp").as_deref(), record.stdout_ok("config").as_deref());
    let qos = (platform.qos)(out, &ports);
    let read = |out: &mut Reader, phase: &str| (platform.read_counters)(out, phase, &ports, &qos);
    let counters = match (read(out, "t0"), read(out, "t1")) {
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
