//! Dell OS10: the running configuration and the show commands of the OS10 CLI; each linked
//! port's queue counters (`show queuing statistics interface ethernet 1/1/4`: packets sent and
//! dropped per egress queue). No PFC counters are read: no published OS10 output of them was
//! found to build a reader from, so drops are judged but not the pauses around them.

use super::{Probe, SwitchPlatform, configured_with_state, probe};
use crate::facts::CounterTable;
use crate::facts::reader::Reader;
use fabcheck_model::switch::SwitchQos;
use fabcheck_model::switch::{SwitchCounters, canonical_interface};
use fabcheck_parse::dell_os10::{convert, interfaces_status, queuing_statistics, running_config};

pub const PLATFORM: SwitchPlatform =
    SwitchPlatform::new("dell_os10", config, counters, qos, read_counters).aliases(&["os10"]);

/// Configuration, status and LLDP.
fn config() -> Vec<Probe> {
    vec![
        probe("config", "dell_os10", "show running-configuration"),
        probe("interfaces", "dell_os10_interfaces", "show interface status"),
        probe("lldp", "lldp", "show lldp neighbors detail"),
    ]
}

/// Each port's queue counters, asked by the `ethernet 1/1/4` form OS10's CLI takes: only for
/// ports whose name is a front-panel `EthernetN/N/N` (digits and slashes, nothing a shell reads).
fn counters(phase: &str, ports: &[String]) -> Vec<Probe> {
    ports
        .iter()
        .filter_map(|p| Some((p, front_panel(p)?)))
        .map(|(port, slots)| {
            probe(
                queuing_key(port, phase),
                "dell_os10_queuing",
                format!("show queuing statistics interface ethernet {slots}"),
            )
        })
        .collect()
}

/// `1/1/4` of `Ethernet1/1/4` (or OS10's `ethernet1/1/4`), `1/1/1:1` of a breakout port.
fn front_panel(port: &str) -> Option<&str> {
    let slots = port.strip_prefix("Ethernet").or_else(|| port.strip_prefix("ethernet"))?;
    let (slots_only, breakout) = match slots.split_once(':') {
        Some((s, b)) => (s, Some(b)),
        None => (slots, None),
    };
    let number = |n: &str| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit());
    let valid = slots_only.split('/').all(number) && breakout.is_none_or(number);
    valid.then_some(slots)
}

/// The evidence key of a port's queue counters: `queuing.ethernet1-1-4.t0`,
/// `queuing.ethernet1-1-1-1.t0` for `ethernet1/1/1:1` (no `/` in a file name).
fn queuing_key(port: &str, phase: &str) -> String {
    format!("queuing.{}.{phase}", convert::os10_name(&canonical_interface(port)).replace(['/', ':'], "-"))
}

fn qos(out: &mut Reader, _ports: &[String]) -> SwitchQos {
    let config = out.get("config", None, running_config::parse).map(|cfg| convert::to_model(&cfg));
    let status = out.get("interfaces", None, interfaces_status::parse);
    configured_with_state(config, |qos| {
        if let Some(status) = &status {
            convert::apply_interfaces_status(qos, status);
        }
    })
}

fn read_counters(out: &mut Reader, phase: &str, ports: &[String], _qos: &SwitchQos) -> Option<CounterTable> {
    let mut table = CounterTable { counters: SwitchCounters::default(), files: Vec::new() };
    for port in ports.iter().filter(|p| front_panel(p).is_some()) {
        let key = queuing_key(port, phase);
        let printed = convert::os10_name(&canonical_interface(port));
        if let Some(q) = out.get(&key, Some(&printed), queuing_statistics::parse) {
            convert::add_queuing_statistics(&mut table.counters, &q);
            table.files.push(out.file(&key));
        }
    }
    (!table.files.is_empty()).then_some(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only front-panel names (breakout ports too) become commands, in the form OS10's CLI takes.
    #[test]
    fn a_port_is_asked_by_its_slots_and_anything_else_is_not_asked() {
        let ports: Vec<String> = [
            "Ethernet1/1/4",
            "ethernet1/1/5",
            "Ethernet1/1/4;reboot",
            "Ethernet",
            "Port-Channel10",
            "Ethernet1//1",
            "ethernet1/1/1:1",
            "ethernet1/1/1:",
            "ethernet1/1/1:1:2",
        ]
        .map(String::from)
        .to_vec();
        let asked: Vec<(String, String)> =
            counters("t0", &ports).into_iter().map(|p| (p.key.clone(), p.command.clone())).collect();
        assert_eq!(
            asked,
            [
                (
                    "queuing.ethernet1-1-4.t0".to_string(),
                    "show queuing statistics interface ethernet 1/1/4".to_string()
                ),
                (
                    "queuing.ethernet1-1-5.t0".to_string(),
                    "show queuing statistics interface ethernet 1/1/5".to_string()
                ),
                (
                    "queuing.ethernet1-1-1-1.t0".to_string(),
                    "show queuing statistics interface ethernet 1/1/1:1".to_string()
                ),
            ]
        );
    }
}
