//! SONiC facts → the vendor-neutral model ([`crate::switch`]): the only place that knows how
//! SONiC's tables and show outputs map onto ports, queues, ECN and the PFC watchdog.
//!
//! Choices where SONiC leaves room:
//! - **PFC off vs unknown.** A port with no `pfc_enable` in `PORT_QOS_MAP` has PFC off on every
//!   priority (qosorch enables PFC only where that field says): `Some(vec![])`. That holds when
//!   the dump has a `PORT_QOS_MAP` table, or is a whole config DB (it has `DEVICE_METADATA`); a
//!   template fragment without either (a buffers-only dump) says nothing: `None`.
//!   `PORT_QOS_MAP: {}` in a dump whose buffer tables name the ports is PFC off on each of them.
//! - **VOQ system ports.** On a chassis, `QUEUE` keys name system ports `host|asic|port`. Those of
//!   this switch (`host` is its `DEVICE_METADATA` hostname) are its own ports; the others are
//!   queues toward other line cards' ports: kept under the system port name with their queues,
//!   and nothing else (their PFC, maps and watchdog live in those line cards' config DBs).
//! - **Maps.** A port's `dscp_to_tc_map` (else the `global` entry's, which SONiC applies switch
//!   wide) gives `dscp_to_tc` and `trust: dscp`; a `dot1p_to_tc_map` alone gives `trust: pcp`.
//! - **ECN** is on when the WRED profile's `ecn` marks green packets (`ecn_all`, `ecn_green`,
//!   `ecn_green_yellow`, `ecn_green_red`; RoCE traffic is green); thresholds and probability are
//!   the green ones, already in bytes and percent.
//! - **PFC watchdog.** A port with a `PFC_WD` entry has it on; without one it is off when the dump
//!   has a `PFC_WD` table or is a whole config DB, unknown otherwise. The device setting carries
//!   the port timers and action when every port has the same ones (`None` where they differ); a
//!   missing `action` is SONiC's default, `drop`.
//! - **Queue counters** of unicast (`UC`), `ALL` and `VOQ` queues are per queue index; multicast
//!   (`MC`) ones are not: their printed index continues after the unicast queues (`MC10` is the
//!   first multicast queue of a port with ten unicast ones), so it names no egress queue.
use super::config_db::{
    BufferProfileEntry, ConfigDb, MAP_FIELDS, PortQosMap, REFERENCED_TABLES, SchedulerEntry, WredProfile,
};
use super::interfaces_status::InterfacesStatus;
use super::pfc_counters::PfcCounters;
use super::pfcwd::Pfcwd;
use super::queue_counters::QueueCounters;
use crate::switch::{
    BufferProfile, Ecn, PfcWatchdog, PortQos, QueueQos, Scheduler, SwitchCounters, SwitchQos, UndefinedReference,
    WatchdogStats, canonical_interface,
};
use std::collections::{BTreeMap, BTreeSet};

/// The config DB as the model.
pub fn to_model(db: &ConfigDb) -> SwitchQos {
    let hostname = db.device.hostname.as_deref();
    let whole = db.tables.contains_key("DEVICE_METADATA");
    let pfc_known = whole || db.tables.contains_key("PORT_QOS_MAP");
    let wd_known = whole || db.tables.contains_key("PFC_WD");
    let global = db.port_qos_maps.get("global");
    let mut model = SwitchQos { hostname: db.device.hostname.clone(), ..SwitchQos::default() };
    let names: BTreeSet<&String> = db
        .ports
        .keys()
        .chain(db.port_qos_maps.keys().filter(|k| *k != "global"))
        .chain(db.queues.keys())
        .chain(db.pfc_wd.ports.keys())
        // The buffer tables name every port; they say what the port's QoS is only beside a
        // `PORT_QOS_MAP` (even an empty one) or in a whole config DB: not in a buffers-only dump.
        .chain(db.buffer_pgs.keys().filter(|_| pfc_known))
        .chain(db.cable_lengths.keys().filter(|_| pfc_known))
        .collect();
    for raw in names {
        let (local, name) = match system_port(raw) {
            Some((host, port)) if Some(host) == hostname => (Some(port), canonical_interface(port)),
            Some(_) => (None, raw.clone()),
            None => (Some(raw.as_str()), canonical_interface(raw)),
        };
        let port = model.ports.entry(name).or_default();
        for (&q, settings) in db.queues.get(raw).into_iter().flatten() {
            let queue: &mut QueueQos = port.queues.entry(q).or_default();
            let scheduler = settings.scheduler.as_ref().and_then(|s| db.schedulers.get(s));
            if let Some(s) = scheduler.and_then(to_scheduler) {
                queue.scheduler = Some(s);
            }
            if let Some(w) = settings.wred_profile.as_ref().and_then(|w| db.wred_profiles.get(w)) {
                queue.ecn = Some(to_ecn(w));
            }
        }
        if let Some(local) = local {
            port_settings(port, local, db, global, (pfc_known, wd_known));
        }
        // A VOQ chassis names one port twice (its queues under `host|asic|port`, the rest under
        // `port`): both keys' references add up on the one model port.
        for u in undefined(db, raw, local.map(|l| (l, global)), whole) {
            if !port.undefined.contains(&u) {
                port.undefined.push(u);
            }
        }
    }
    model.buffer_profiles = db.buffer_profiles.iter().map(|(name, p)| (name.clone(), to_buffer_profile(p))).collect();
    model.dscp_to_tc_maps = db.dscp_to_tc_maps.clone();
    model.dot1p_to_tc_maps = db.dot1p_to_tc_maps.clone();
    model.ecn_profiles = db.wred_profiles.iter().map(|(name, w)| (name.clone(), to_ecn(w))).collect();
    model.schedulers = db.schedulers.iter().filter_map(|(name, s)| Some((name.clone(), to_scheduler(s)?))).collect();
    model.pfc_watchdog = device_watchdog(db, wd_known);
    model
}

/// What port `raw` names (its queues' schedulers and WRED profiles; for a local port, named
/// `local` in the port tables, its QoS maps, its own or `global`'s, and its priority groups'
/// buffer profiles) that the dump does not define. Only where the defining table is in the dump, or the dump is a
/// whole config DB: a fragment (a template's `qos.json`) may rely on tables loaded elsewhere; its
/// dangling names are warned about by the reader either way.
fn undefined(
    db: &ConfigDb,
    raw: &str,
    local: Option<(&str, Option<&PortQosMap>)>,
    whole: bool,
) -> Vec<UndefinedReference> {
    let names: Vec<(&str, &str)> =
        REFERENCED_TABLES.iter().flat_map(|table| db.defined(table).into_iter().map(move |n| (*table, n))).collect();
    // (the table and field that name it, the table that defines it, the name)
    let mut applied: Vec<(&str, &str, &str, &String)> = Vec::new();
    for settings in db.queues.get(raw).into_iter().flat_map(BTreeMap::values) {
        applied.extend(settings.scheduler.iter().map(|n| ("QUEUE", "scheduler", "SCHEDULER", n)));
        applied.extend(settings.wred_profile.iter().map(|n| ("QUEUE", "wred_profile", "WRED_PROFILE", n)));
    }
    if let Some((local, global)) = local {
        let own = db.port_qos_maps.get(local);
        for (field, kind, get) in MAP_FIELDS {
            let name = own.and_then(|m| get(m).as_ref()).or_else(|| global.and_then(|m| get(m).as_ref()));
            applied.extend(name.map(|n| ("PORT_QOS_MAP", field, kind, n)));
        }
        let profiles = db.buffer_pgs.get(local).into_iter().flat_map(BTreeMap::values).filter(|p| p.as_str() != "NULL");
        applied.extend(profiles.map(|p| ("BUFFER_PG", "profile", "BUFFER_PROFILE", p)));
    }
    let mut out: Vec<UndefinedReference> = Vec::new();
    for (table, field, kind, name) in applied {
        if !(whole || db.tables.contains_key(kind)) {
            continue;
        }
        let applied_as = format!("{table} {field}");
        if let Some(u) = UndefinedReference::unless_defined(&applied_as, kind, name, names.iter().copied())
            && !out.contains(&u)
        {
            out.push(u);
        }
    }
    out
}

/// `host|asic|port` → (`host`, `port`).
fn system_port(raw: &str) -> Option<(&str, &str)> {
    let mut parts = raw.splitn(3, '|');
    let (host, _asic, port) = (parts.next()?, parts.next()?, parts.next()?);
    Some((host, port))
}

/// What the config DB says about one of the switch's own ports (`name` as the DB writes it).
fn port_settings(
    port: &mut PortQos,
    name: &str,
    db: &ConfigDb,
    global: Option<&PortQosMap>,
    (pfc_known, wd_known): (bool, bool),
) {
    if let Some(p) = db.ports.get(name) {
        port.mtu = p.mtu.or(port.mtu);
        port.speed_mbps = p.speed_mbps.or(port.speed_mbps);
        port.admin_up = p.admin_status.as_deref().and_then(up_down).or(port.admin_up);
        port.alias = p.alias.clone().or(port.alias.take());
    }
    let own = db.port_qos_maps.get(name);
    port.lossless_priorities = match own.and_then(|m| m.pfc_enable.clone()) {
        Some(prios) => Some(prios),
        None if pfc_known => Some(Vec::new()),
        None => None,
    };
    let pick = |f: fn(&PortQosMap) -> &Option<String>| {
        own.and_then(|m| f(m).clone()).or_else(|| global.and_then(|m| f(m).clone()))
    };
    let dscp = pick(|m| &m.dscp_to_tc_map);
    let dot1p = pick(|m| &m.dot1p_to_tc_map);
    port.trust = match (&dscp, &dot1p) {
        (Some(_), _) => Some("dscp".to_string()),
        (None, Some(_)) => Some("pcp".to_string()),
        (None, None) => None,
    };
    if let Some(map) = dscp.and_then(|n| db.dscp_to_tc_maps.get(&n)) {
        port.dscp_to_tc = map.clone();
    }
    if let Some(map) = pick(|m| &m.tc_to_queue_map).and_then(|n| db.tc_to_queue_maps.get(&n)) {
        port.tc_to_queue = map.clone();
    }
    if let Some(map) = pick(|m| &m.tc_to_pg_map).and_then(|n| db.tc_to_pg_maps.get(&n)) {
        port.tc_to_pg = map.clone();
    }
    for (&pg, profile) in db.buffer_pgs.get(name).into_iter().flatten().filter(|(_, p)| p.as_str() != "NULL") {
        port.priority_groups.insert(pg, profile.clone());
    }
    port.cable_length_m = db.cable_lengths.get(name).and_then(|l| cable_metres(l));
    port.pfc_watchdog = if db.pfc_wd.ports.contains_key(name) {
        Some(true)
    } else if wd_known {
        Some(false)
    } else {
        None
    };
}

/// `PFC_WD` as the device setting.
fn device_watchdog(db: &ConfigDb, wd_known: bool) -> Option<PfcWatchdog> {
    let ports: Vec<_> = db.pfc_wd.ports.values().collect();
    let big_red_switch = db.pfc_wd.big_red_switch.as_deref().map(is_enable);
    if ports.is_empty() {
        return wd_known.then(|| PfcWatchdog { big_red_switch, ..PfcWatchdog::default() });
    }
    Some(PfcWatchdog {
        enabled: true,
        detection_ms: same(ports.iter().map(|p| p.detection_ms)).flatten(),
        restoration_ms: same(ports.iter().map(|p| p.restoration_ms)).flatten(),
        action: same(ports.iter().map(|p| p.action.clone().unwrap_or_else(|| "drop".to_string()))),
        big_red_switch,
        note: None,
    })
}

/// SONiC's `enable`/`disable` (the BIG_RED_SWITCH field and `pfcwd show config`'s line).
fn is_enable(value: &str) -> bool {
    value.eq_ignore_ascii_case("enable")
}

/// The value every item has, or `None` when they differ (or there are none).
fn same<T: PartialEq>(mut items: impl Iterator<Item = T>) -> Option<T> {
    let first = items.next()?;
    items.all(|i| i == first).then_some(first)
}

/// `up` → true, `down` → false.
/// `5m` → 5 (SONiC writes cable lengths in metres with an `m`).
fn cable_metres(length: &str) -> Option<u32> {
    length.trim().strip_suffix('m')?.parse().ok()
}

fn up_down(v: &str) -> Option<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "up" => Some(true),
        "down" => Some(false),
        _ => None,
    }
}

fn to_scheduler(s: &SchedulerEntry) -> Option<Scheduler> {
    match s.kind.as_deref() {
        Some("STRICT") => Some(Scheduler::Strict),
        Some("DWRR" | "WRR") | None => s.weight.map(|weight| Scheduler::Weighted { weight }),
        Some(_) => None,
    }
}

fn to_ecn(w: &WredProfile) -> Ecn {
    let marks_green = matches!(w.ecn.as_deref(), Some("ecn_all" | "ecn_green" | "ecn_green_yellow" | "ecn_green_red"));
    Ecn {
        enabled: marks_green,
        min_bytes: w.green.min_bytes,
        max_bytes: w.green.max_bytes,
        probability_percent: w.green.drop_probability,
        // The config DB writes bytes.
        uncertain_unit: None,
    }
}

fn to_buffer_profile(p: &BufferProfileEntry) -> BufferProfile {
    BufferProfile { pool: p.pool.clone(), size_bytes: p.size_bytes, xon_bytes: p.xon_bytes, xoff_bytes: p.xoff_bytes }
}

/// Adds `show interfaces status` to `model`: the live speed, MTU, admin and oper state win over
/// the configured ones.
pub fn add_interfaces(model: &mut SwitchQos, status: &InterfacesStatus) {
    for i in &status.interfaces {
        let port = model.ports.entry(canonical_interface(&i.name)).or_default();
        port.speed_mbps = i.speed_mbps.or(port.speed_mbps);
        port.mtu = i.mtu.or(port.mtu);
        port.admin_up = i.admin.as_deref().and_then(up_down).or(port.admin_up);
        port.oper_up = i.oper.as_deref().and_then(up_down).or(port.oper_up);
        port.alias = i.alias.clone().or(port.alias.take());
    }
}

/// Adds `pfcwd show config` / `stats` to `model`: listed ports (and queues the watchdog reports
/// `operational` or `stormed`) have it on. When the config table was shown, ports already in the
/// model but absent from it have it off, so add this after the other sources.
pub fn add_pfcwd(model: &mut SwitchQos, wd: &Pfcwd) {
    let on: BTreeSet<String> = wd
        .ports
        .iter()
        .map(|p| canonical_interface(&p.port))
        .chain(wd.queues.iter().filter(|q| q.status.is_some()).map(|q| canonical_interface(&q.port)))
        .collect();
    if wd.config_shown {
        for (name, port) in model.ports.iter_mut() {
            port.pfc_watchdog = Some(on.contains(name));
        }
    }
    for name in &on {
        model.ports.entry(name.clone()).or_default().pfc_watchdog = Some(true);
    }
    let big_red_switch = wd.big_red_switch.as_deref().map(is_enable);
    if wd.config_shown || !on.is_empty() || big_red_switch.is_some() {
        model.pfc_watchdog = Some(PfcWatchdog {
            enabled: !on.is_empty(),
            detection_ms: same(wd.ports.iter().map(|p| p.detection_ms)).flatten(),
            restoration_ms: same(wd.ports.iter().map(|p| p.restoration_ms)).flatten(),
            action: same(wd.ports.iter().map(|p| p.action.clone())).flatten(),
            big_red_switch: big_red_switch.or(model.pfc_watchdog.as_ref().and_then(|w| w.big_red_switch)),
            note: None,
        });
    }
}

/// Adds `show pfc counters` to `counters`.
pub fn add_pfc_counters(counters: &mut SwitchCounters, pfc: &PfcCounters) {
    for (name, p) in &pfc.ports {
        let port = counters.ports.entry(canonical_interface(name)).or_default();
        port.pfc_rx.extend(&p.rx);
        port.pfc_tx.extend(&p.tx);
    }
}

/// Adds `pfcwd show stats` to `counters`: per port and queue, what the watchdog saw.
pub fn add_pfcwd_stats(counters: &mut SwitchCounters, wd: &Pfcwd) {
    for q in &wd.queues {
        let port = counters.ports.entry(canonical_interface(&q.port)).or_default();
        port.watchdog.insert(
            q.queue,
            WatchdogStats {
                stormed: q.status.as_deref().map(|s| s == "stormed"),
                storms_detected: q.storms_detected,
                storms_restored: q.storms_restored,
                tx_drop: q.tx_drop,
                rx_drop: q.rx_drop,
            },
        );
    }
}

/// Adds `show queue counters` to `counters` (unicast, `ALL` and `VOQ` queues; see the module doc).
pub fn add_queue_counters(counters: &mut SwitchCounters, queues: &QueueCounters) {
    for row in &queues.queues {
        let index = row.index.and_then(|i| u8::try_from(i).ok());
        let (Some(index), true) = (index, matches!(row.kind.as_str(), "UC" | "ALL" | "VOQ")) else {
            continue;
        };
        let port = counters.ports.entry(canonical_interface(&row.port)).or_default();
        if let Some(v) = row.tx_packets {
            port.queue_tx_packets.insert(index, v);
        }
        if let Some(v) = row.drop_packets {
            port.queue_drops.insert(index, v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sonic::config_db;

    fn model(json: &str) -> SwitchQos {
        to_model(&config_db::parse(json).expect("parses").value)
    }

    #[test]
    fn names_the_dump_does_not_define_are_the_ports_undefined_references() {
        let whole = r#"{"DEVICE_METADATA": {"localhost": {"hostname": "leaf1"}},
            "PORT": {"Ethernet0": {"mtu": "9100"}},
            "PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "azure", "pfc_enable": "3,4"}},
            "DSCP_TO_TC_MAP": {"AZURE": {"26": "3"}},
            "QUEUE": {"Ethernet0|3": {"wred_profile": "AZURE_LOSSLESS"}, "Ethernet0|4": {"wred_profile": "AZURE_LOSSLESS"}},
            "BUFFER_PG": {"Ethernet0|3-4": {"profile": "pg_lossless_100000_5m_profile"}},
            "BUFFER_PROFILE": {"pg_lossless_100000_5m_profile": {"pool": "ingress_lossless_pool", "xoff": "1000"}}}"#;
        let port = &model(whole).ports["Ethernet0"];
        let got: Vec<(&str, &str, &str, Option<&str>)> = port
            .undefined
            .iter()
            .map(|u| {
                (u.applied_as.as_str(), u.kind.as_str(), u.name.as_str(), u.similar.as_ref().map(|s| s.0.as_str()))
            })
            .collect();
        assert_eq!(
            got,
            [
                ("QUEUE wred_profile", "WRED_PROFILE", "AZURE_LOSSLESS", None),
                ("PORT_QOS_MAP dscp_to_tc_map", "DSCP_TO_TC_MAP", "azure", Some("AZURE")),
            ],
            "each named once, the defined buffer profile not at all"
        );
        // A VOQ line card: its own queues under `host|asic|port`, its maps under `port`; the
        // port's own map overrides the broken global one.
        let voq = r#"{"DEVICE_METADATA": {"localhost": {"hostname": "lc1"}},
            "PORT_QOS_MAP": {"global": {"dscp_to_tc_map": "BAD"}, "Ethernet0": {"dscp_to_tc_map": "GOOD", "pfc_enable": "3"}},
            "DSCP_TO_TC_MAP": {"GOOD": {"26": "3"}},
            "WRED_PROFILE": {"AZURE_LOSSLESS": {"ecn": "ecn_all"}},
            "QUEUE": {"lc1|asic0|Ethernet0|3": {"wred_profile": "MISSING"}}}"#;
        let names: Vec<String> =
            model(voq).ports["Ethernet0"].undefined.iter().map(|u| format!("{} {}", u.applied_as, u.name)).collect();
        assert_eq!(names, ["QUEUE wred_profile MISSING"]);
        // A template's fragment without a WRED_PROFILE table may rely on one loaded elsewhere.
        let fragment = r#"{"QUEUE": {"Ethernet0|3": {"wred_profile": "AZURE_LOSSLESS"}}, "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}}}"#;
        assert!(model(fragment).ports["Ethernet0"].undefined.is_empty());
    }

    #[test]
    fn whole_config_db_without_pfc_or_watchdog_means_off() {
        let m = model(
            r#"{"DEVICE_METADATA": {"localhost": {"hostname": "leaf1"}},
                "PORT": {"Ethernet0": {"mtu": "9100", "speed": "400000", "admin_status": "up"}}}"#,
        );
        let p = &m.ports["Ethernet0"];
        assert_eq!(p.lossless_priorities, Some(vec![]));
        assert_eq!(p.pfc_watchdog, Some(false));
        assert_eq!((p.mtu, p.speed_mbps, p.admin_up), (Some(9100), Some(400_000), Some(true)));
        assert_eq!(p.trust, None);
        assert_eq!(m.pfc_watchdog, Some(PfcWatchdog::default()));
    }

    #[test]
    fn a_fragment_without_those_tables_says_nothing() {
        let m = model(r#"{"PORT": {"Ethernet0": {"mtu": "9100"}}}"#);
        let p = &m.ports["Ethernet0"];
        assert_eq!((p.lossless_priorities.clone(), p.pfc_watchdog), (None, None));
        assert_eq!(m.pfc_watchdog, None);
    }

    #[test]
    fn own_system_ports_are_local_and_watchdog_timers_that_differ_are_none() {
        let m = model(
            r#"{"DEVICE_METADATA": {"localhost": {"hostname": "lc1"}},
                "PORT_QOS_MAP": {"Ethernet0": {"dot1p_to_tc_map": "P", "pfc_enable": "3"}},
                "DOT1P_TO_TC_MAP": {"P": {"3": "3"}},
                "QUEUE": {"lc1|asic0|Ethernet0|3": {"scheduler": "S"}, "lc2|asic0|Ethernet8|3": {"scheduler": "S"}},
                "SCHEDULER": {"S": {"type": "STRICT"}},
                "PFC_WD": {"Ethernet0": {"detection_time": "200", "restoration_time": "200"},
                           "Ethernet4": {"detection_time": "400", "restoration_time": "200", "action": "drop"}}}"#,
        );
        let p = &m.ports["Ethernet0"];
        assert_eq!(p.trust.as_deref(), Some("pcp"));
        assert_eq!(p.queues[&3].scheduler, Some(Scheduler::Strict));
        assert_eq!(p.pfc_watchdog, Some(true));
        let remote = &m.ports["lc2|asic0|Ethernet8"];
        assert_eq!((remote.lossless_priorities.clone(), remote.pfc_watchdog), (None, None));
        assert_eq!(remote.queues[&3].scheduler, Some(Scheduler::Strict));
        let wd = m.pfc_watchdog.expect("PFC_WD");
        assert_eq!((wd.enabled, wd.detection_ms, wd.restoration_ms), (true, None, Some(200)));
        assert_eq!(wd.action.as_deref(), Some("drop"), "the default action");
    }

    #[test]
    fn schedulers_and_ecn_modes() {
        let weighted =
            |kind: Option<&str>, weight| SchedulerEntry { kind: kind.map(String::from), weight, priority: None };
        assert_eq!(to_scheduler(&weighted(Some("DWRR"), Some(15))), Some(Scheduler::Weighted { weight: 15 }));
        assert_eq!(to_scheduler(&weighted(Some("DWRR"), None)), None);
        assert_eq!(to_scheduler(&weighted(Some("FIFO"), Some(1))), None);
        let wred = |ecn: &str| WredProfile { ecn: Some(ecn.to_string()), ..WredProfile::default() };
        assert!(to_ecn(&wred("ecn_green_red")).enabled);
        assert!(!to_ecn(&wred("ecn_yellow_red")).enabled);
        assert!(!to_ecn(&wred("ecn_none")).enabled);
        assert!(!to_ecn(&WredProfile::default()).enabled);
    }
}
