//! Arista EOS: the running-config and the show commands of the EOS CLI; the running-config with
//! interface status and the QoS state laid over it.

use super::{Probe, SwitchPlatform, configured_with_state, probe};
use crate::facts::CounterTable;
use crate::facts::reader::Reader;
use fabcheck_model::switch::{SwitchQos, canonical_interface};
use fabcheck_parse::eos::{convert, interfaces_status, pfc_counters, qos_interfaces, queue_counters, running_config};

pub const PLATFORM: SwitchPlatform = SwitchPlatform::new("eos", config, counters, qos, read_counters);

/// Configuration, status, QoS state and LLDP. Interface status and LLDP are asked as eAPI JSON
/// first (`| json`, whose shape does not drift with the CLI's columns), as text where the switch
/// refuses it. The running-config is text by nature; `show qos interfaces` and the PFC counters
/// stay text: no published JSON of theirs was found to read against.
fn config() -> Vec<Probe> {
    vec![
        probe("config", "eos", "show running-config"),
        probe("interfaces", "eos_interfaces", "show interfaces status")
            .preferring_json("show interfaces status | json"),
        probe("qos", "eos_qos", "show qos interfaces"),
        probe("lldp", "lldp", "show lldp neighbors detail").preferring_json("show lldp neighbors detail | json"),
    ]
}

/// PFC frames per priority and port; packets sent and dropped per traffic class and port.
fn counters(phase: &str, _ports: &[String]) -> Vec<Probe> {
    vec![
        probe(format!("pfc_counters.{phase}"), "eos_pfc_counters", "show priority-flow-control counters detail"),
        probe(format!("queue_counters.{phase}"), "eos_queue_counters", "show interfaces counters queue detail"),
    ]
}

fn qos(out: &mut Reader, _ports: &[String]) -> SwitchQos {
    let config = out.get("config", None, running_config::parse).map(|cfg| convert::to_model(&cfg));
    let status = out.get("interfaces", None, interfaces_status::parse);
    let state = out.get("qos", None, qos_interfaces::parse);
    configured_with_state(config, |qos| {
        if let Some(status) = &status {
            convert::apply_interfaces_status(qos, status);
        }
        if let Some(state) = &state {
            convert::apply_qos_interfaces(qos, state);
        }
    })
}

/// The PFC and queue counters of one phase; either alone where the other was not read.
fn read_counters(out: &mut Reader, phase: &str, linked: &[String], qos: &SwitchQos) -> Option<CounterTable> {
    let (pfc_key, queue_key) = (format!("pfc_counters.{phase}"), format!("queue_counters.{phase}"));
    let pfc = out.get(&pfc_key, None, pfc_counters::parse);
    let queues = out.get(&queue_key, None, queue_counters::parse);
    let mut table = CounterTable::default();
    if let Some(pfc) = pfc {
        table.counters = convert::to_counters(&pfc);
        table.files.push(out.file(&pfc_key));
    }
    if let Some(queues) = queues {
        // The table names traffic classes: each is counted on the queue the port's configuration
        // sends it to (`qos map traffic-class T to tx-queue Q`; T's own number where unsaid).
        let queue_of =
            |port: &str, tc: u8| qos.ports.get(port).and_then(|p| p.tc_to_queue.get(&tc).copied()).unwrap_or(tc);
        convert::add_queue_counters(&mut table.counters, &queues, queue_of);
        // EOS prints only the classes that moved: a linked port's class without a row sent and
        // dropped nothing, so drops that first appear during the window still have their
        // earlier read (zero) to be counted from.
        for port in linked.iter().map(|p| canonical_interface(p)).filter(|p| p.starts_with("Ethernet")) {
            let counters = table.counters.ports.entry(port).or_default();
            for tc in 0..8 {
                counters.queue_drops.entry(tc).or_insert(0);
                counters.queue_tx_packets.entry(tc).or_insert(0);
            }
        }
        table.files.push(out.file(&queue_key));
    }
    (!table.files.is_empty()).then_some(table)
}
