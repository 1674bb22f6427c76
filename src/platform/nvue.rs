//! NVIDIA Cumulus Linux 5 with NVUE: the applied configuration as YAML (with Cumulus' documented
//! defaults filled in), `nv show` per port, and lldpd. What each port runs (`nv show interface
//! swpN qos roce status`) wins over the configuration; `nv show qos roce` stands in for a
//! configuration that names no port.

use super::{Probe, SwitchPlatform, probe};
use crate::facts::CounterTable;
use crate::facts::reader::Reader;
use fabcheck_inventory::is_safe_name;
use fabcheck_model::switch::{SwitchCounters, SwitchQos, canonical_interface};
use fabcheck_parse::nvue::{config, convert, pfc_watchdog, roce, roce_counters, roce_status};

pub const PLATFORM: SwitchPlatform = SwitchPlatform::new("nvue", config, counters, qos, read_counters)
    .aliases(&["cumulus"])
    .per_port(ports, configured_ports);

/// Configuration, RoCE state and LLDP.
fn config() -> Vec<Probe> {
    vec![
        probe("config", "nvue", "nv config show -o yaml"),
        probe("roce", "nvue_roce", "nv show qos roce"),
        probe("lldp", "lldp", "lldpcli show neighbors"),
    ]
}

/// The operational RoCE state of each linked port (what the port actually runs).
fn ports(ports: &[String]) -> Vec<Probe> {
    ports
        .iter()
        .filter(|p| is_safe_name(p))
        .map(|p| {
            probe(format!("roce_status.{p}"), "nvue_roce_status", format!("nv show interface {p} qos roce status"))
        })
        .collect()
}

/// RoCE counters and the PFC watchdog's deadlocks of each linked port (NVUE has them per
/// interface only).
fn counters(phase: &str, ports: &[String]) -> Vec<Probe> {
    ports
        .iter()
        .filter(|p| is_safe_name(p))
        .flat_map(|p| {
            [
                probe(
                    format!("roce_counters.{p}.{phase}"),
                    "nvue_roce_counters",
                    format!("nv show interface {p} qos roce counters"),
                ),
                probe(
                    format!("pfc_watchdog.{p}.{phase}"),
                    "nvue_pfc_watchdog",
                    format!("nv show interface {p} qos pfc-watchdog"),
                ),
            ]
        })
        .collect()
}

fn qos(out: &mut Reader, linked: &[String]) -> SwitchQos {
    let from_config = out.get("config", None, config::parse).map(|cfg| convert::to_model(&cfg).value);
    let mut qos = configured(out, from_config, linked);
    // What each port runs wins over what the configuration says it should.
    for port in linked {
        let key = format!("roce_status.{port}");
        let Some(status) = out.get(&key, Some(port), |text| roce_status::parse_for(port, text)) else { continue };
        let entry = qos.ports.entry(canonical_interface(port)).or_default();
        if status.lossless_priorities.is_some() {
            entry.lossless_priorities = status.lossless_priorities;
        }
        entry.dscp_to_tc.extend(status.dscp_to_tc);
        for (q, state) in status.queues {
            let queue = entry.queues.entry(q).or_default();
            if state.scheduler.is_some() {
                queue.scheduler = state.scheduler;
            }
            if let Some(mut ecn) = state.ecn {
                if let Some(configured) = &queue.ecn {
                    ecn.min_bytes = exact(ecn.min_bytes, configured.min_bytes);
                    ecn.max_bytes = exact(ecn.max_bytes, configured.max_bytes);
                }
                queue.ecn = Some(ecn);
            }
        }
    }
    qos
}

/// A threshold a port's status prints (`2.93 MB`: two decimals of its unit, so within half a
/// percent) is the configured one when it is that close to it: the configuration's bytes are
/// exact (3,072,000 bytes prints as `2.93 MB`, read back as 3,072,327), the status's rounded.
fn exact(status: Option<u64>, configured: Option<u64>) -> Option<u64> {
    match (status, configured) {
        (Some(s), Some(c)) if s.abs_diff(c) * 200 <= c => Some(c),
        _ => status,
    }
}

fn configured(out: &mut Reader, from_config: Option<SwitchQos>, linked: &[String]) -> SwitchQos {
    match from_config {
        Some(qos) if !qos.ports.is_empty() => qos,
        other => {
            let mut qos =
                out.get("roce", None, roce::parse).map(|r| convert::roce_to_model(&r, linked)).unwrap_or_default();
            qos.hostname = other.and_then(|q| q.hostname);
            qos
        }
    }
}

fn read_counters(out: &mut Reader, phase: &str, linked: &[String], _qos: &SwitchQos) -> Option<CounterTable> {
    let classes = convert::RoceClasses::default();
    let mut c = SwitchCounters::default();
    let mut files = Vec::new();
    for port in linked {
        let key = format!("roce_counters.{port}.{phase}");
        if let Some(counters) = out.get(&key, Some(port), roce_counters::parse) {
            c.ports.insert(canonical_interface(port), convert::counters_to_port(&counters, &classes));
            files.push(out.file(&key));
        }
        let key = format!("pfc_watchdog.{port}.{phase}");
        if let Some(wd) = out.get(&key, Some(port), pfc_watchdog::parse) {
            c.ports.entry(canonical_interface(port)).or_default().watchdog = convert::watchdog_stats(&wd);
            files.push(out.file(&key));
        }
    }
    (!files.is_empty()).then_some(CounterTable { counters: c, files })
}

/// The `swp` ports the configuration names (range keys expanded): NVUE has per-port state only.
fn configured_ports(text: &str) -> Vec<String> {
    config::parse(text).map(|c| convert::to_model(&c.value).value.ports.into_keys().collect()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::exact;

    /// Cisco's blueprint Kmax, 3,000 KB: configured as 3,072,000 bytes, printed by the port's
    /// status as `2.93 MB` and read back as 3,072,327; the configured bytes stand. A status that
    /// differs by more than its rounding is what the port runs.
    #[test]
    fn a_status_rounded_to_two_decimals_is_the_configured_threshold() {
        let status = Some(3_072_327);
        assert_eq!(exact(status, Some(3_072_000)), Some(3_072_000));
        assert_eq!(exact(Some(1_536_000), Some(3_072_000)), Some(1_536_000));
        assert_eq!(exact(status, None), status);
    }
}
