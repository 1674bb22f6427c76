//! SONiC: the config DB as JSON and the `show` commands of sonic-utilities; the config DB with
//! live interface status and the PFC watchdog laid over it.

use super::{Probe, SwitchPlatform, configured_with_state, probe};
use crate::facts::CounterTable;
use crate::facts::reader::Reader;
use fabcheck_model::switch::{SwitchCounters, SwitchQos};
use fabcheck_parse::sonic::{config_db, convert, interfaces_status, pfc_counters, pfcwd, queue_counters};

pub const PLATFORM: SwitchPlatform = SwitchPlatform::new("sonic", config, counters, qos, read_counters);

/// Configuration, status, PFC watchdog and LLDP.
fn config() -> Vec<Probe> {
    vec![
        probe("config", "sonic", "show runningconfiguration all"),
        probe("interfaces", "sonic_interfaces", "show interfaces status"),
        probe("pfcwd", "sonic_pfcwd", "pfcwd show config"),
        probe("lldp", "lldp", "show lldp neighbors"),
    ]
}

/// PFC frames per priority, queue drops per port, and the PFC watchdog's storm statistics.
fn counters(phase: &str, _ports: &[String]) -> Vec<Probe> {
    vec![
        probe(format!("pfc_counters.{phase}"), "sonic_pfc_counters", "show pfc counters"),
        probe(format!("queue_counters.{phase}"), "sonic_queue_counters", "show queue counters"),
        probe(format!("pfcwd_stats.{phase}"), "sonic_pfcwd", "pfcwd show stats"),
    ]
}

fn qos(out: &mut Reader, _ports: &[String]) -> SwitchQos {
    let config = out.get("config", None, config_db::parse).map(|db| convert::to_model(&db));
    let status = out.get("interfaces", None, interfaces_status::parse);
    let watchdog = out.get("pfcwd", None, pfcwd::parse);
    configured_with_state(config, |qos| {
        if let Some(status) = &status {
            convert::add_interfaces(qos, status);
        }
        // Last: the watchdog table also says which ports have it off.
        if let Some(wd) = &watchdog {
            convert::add_pfcwd(qos, wd);
        }
    })
}

fn read_counters(out: &mut Reader, phase: &str, _ports: &[String], _qos: &SwitchQos) -> Option<CounterTable> {
    let (pfc_key, queue_key) = (format!("pfc_counters.{phase}"), format!("queue_counters.{phase}"));
    let pfc = out.get(&pfc_key, None, pfc_counters::parse)?;
    let mut c = SwitchCounters::default();
    convert::add_pfc_counters(&mut c, &pfc);
    let mut files = vec![out.file(&pfc_key)];
    if let Some(queues) = out.get(&queue_key, None, queue_counters::parse) {
        convert::add_queue_counters(&mut c, &queues);
        files.push(out.file(&queue_key));
    }
    let wd_key = format!("pfcwd_stats.{phase}");
    if let Some(wd) = out.get(&wd_key, None, pfcwd::parse) {
        convert::add_pfcwd_stats(&mut c, &wd);
        files.push(out.file(&wd_key));
    }
    Some(CounterTable { counters: c, files })
}
