//! Reading the config DB's entries into the typed facts of `config_db`: one reader per table,
//! and the check that every reference names an entry the dump defines.
use super::config_db::{
    BufferPool, BufferProfileEntry, ConfigDb, DeviceMetadata, MAP_FIELDS, Map8, PfcWdPort, Port, PortQosMap,
    SchedulerEntry, WredColor, WredProfile,
};
use super::config_keys::{index_list, port_indexes, port_list, reference, references};
use crate::ParseWarning;
use crate::lines::clip;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::str::FromStr;

/// One entry of a table, after namespaces are merged: its key, fields and line.
pub(super) struct Entry<'a> {
    pub(super) key: &'a str,
    pub(super) fields: &'a Map<String, Value>,
    pub(super) line: usize,
}

/// Reads the fields of one entry, with warnings on its line.
pub(super) struct Reader<'a, 'w> {
    pub(super) table: &'a str,
    pub(super) key: &'a str,
    pub(super) fields: &'a Map<String, Value>,
    pub(super) line: usize,
    pub(super) warnings: &'w mut Vec<ParseWarning>,
}

impl Reader<'_, '_> {
    fn warn(&mut self, message: String) {
        self.warnings.push(ParseWarning::at(self.line, message));
    }

    /// A field as text: strings as they are, numbers and booleans printed.
    fn text(&mut self, name: &str) -> Option<String> {
        let v = self.fields.get(name)?;
        match v {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            _ => {
                let (t, k) = (self.table, self.key);
                self.warn(format!("`{t}|{k}` field `{name}` is not a value"));
                None
            }
        }
    }

    /// A numeric field.
    fn num<T: FromStr>(&mut self, name: &str) -> Option<T> {
        let v = self.text(name)?;
        let parsed = v.trim().parse().ok();
        if parsed.is_none() {
            let (t, k, shown) = (self.table, self.key, clip(&v, 40));
            self.warn(format!("`{t}|{k}` field `{name}` has an unreadable value `{shown}`"));
        }
        parsed
    }

    /// A reference field, as its plain name.
    fn reference(&mut self, name: &str) -> Option<String> {
        self.text(name).map(|v| reference(&v))
    }

    /// A priority list (`3,4`; empty: none).
    fn priorities(&mut self, name: &str) -> Option<Vec<u8>> {
        let v = self.text(name)?;
        let list = index_list(&v).filter(|l| l.iter().all(|p| *p < 8));
        if list.is_none() {
            let (t, k, shown) = (self.table, self.key, clip(&v, 40));
            self.warn(format!("`{t}|{k}` field `{name}` is not a list of priorities: `{shown}`"));
        }
        list
    }

    /// `true`/`false`.
    fn flag(&mut self, name: &str) -> Option<bool> {
        self.text(name).and_then(|v| match v.to_ascii_lowercase().as_str() {
            "true" | "enable" | "enabled" => Some(true),
            "false" | "disable" | "disabled" => Some(false),
            _ => {
                let (t, k) = (self.table, self.key);
                self.warn(format!("`{t}|{k}` field `{name}` is not true or false: `{v}`"));
                None
            }
        })
    }

    /// The entry's fields as a u8 → u8 map (`"0": "1"`).
    fn map8(&mut self) -> Map8 {
        let mut map = Map8::new();
        for name in self.fields.keys() {
            match (name.trim().parse::<u8>().ok(), self.num::<u8>(name)) {
                (Some(from), Some(to)) => {
                    map.insert(from, to);
                }
                (None, _) => {
                    let (t, k) = (self.table, self.key);
                    self.warn(format!("`{t}|{k}` has a key that is not a number: `{name}`"));
                }
                _ => {}
            }
        }
        map
    }

    /// The ports and indexes of the key, or a warning.
    fn port_indexes(&mut self) -> Option<(Vec<String>, Vec<u8>)> {
        let parsed = port_indexes(self.key);
        if parsed.is_none() {
            let (t, k) = (self.table, self.key);
            self.warn(format!("`{t}` key `{k}` is not `PORT|INDEX` or `PORT|FIRST-LAST`, skipped"));
        }
        parsed
    }
}

/// Reads one entry into `db`.
pub(super) fn read_entry(db: &mut ConfigDb, r: &mut Reader) {
    let key = r.key.to_string();
    match r.table {
        "DEVICE_METADATA" if key == "localhost" && db.device == DeviceMetadata::default() => {
            db.device = DeviceMetadata {
                hostname: r.text("hostname"),
                hwsku: r.text("hwsku"),
                platform: r.text("platform"),
                asic_name: r.text("asic_name"),
                default_pfcwd_status: r.text("default_pfcwd_status"),
                buffer_model: r.text("buffer_model"),
            };
        }
        "PORT" => {
            let port = Port {
                speed_mbps: r.num("speed"),
                mtu: r.num("mtu"),
                admin_status: r.text("admin_status"),
                alias: r.text("alias"),
                lanes: r.text("lanes"),
                fec: r.text("fec"),
            };
            db.ports.insert(key, port);
        }
        "PORT_QOS_MAP" => {
            let map = PortQosMap {
                dscp_to_tc_map: r.reference("dscp_to_tc_map"),
                dot1p_to_tc_map: r.reference("dot1p_to_tc_map"),
                tc_to_queue_map: r.reference("tc_to_queue_map"),
                tc_to_pg_map: r.reference("tc_to_pg_map"),
                pfc_to_queue_map: r.reference("pfc_to_queue_map"),
                pfc_enable: r.priorities("pfc_enable"),
                pfcwd_sw_enable: r.priorities("pfcwd_sw_enable"),
            };
            for port in port_list(&key) {
                db.port_qos_maps.insert(port, map.clone());
            }
        }
        "DSCP_TO_TC_MAP" => insert_map(&mut db.dscp_to_tc_maps, key, r),
        "DOT1P_TO_TC_MAP" => insert_map(&mut db.dot1p_to_tc_maps, key, r),
        "TC_TO_QUEUE_MAP" => insert_map(&mut db.tc_to_queue_maps, key, r),
        "TC_TO_PRIORITY_GROUP_MAP" => insert_map(&mut db.tc_to_pg_maps, key, r),
        "MAP_PFC_PRIORITY_TO_QUEUE" => insert_map(&mut db.pfc_priority_to_queue_maps, key, r),
        "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP" => insert_map(&mut db.pfc_priority_to_pg_maps, key, r),
        "TC_TO_DSCP_MAP" => insert_map(&mut db.tc_to_dscp_maps, key, r),
        "QUEUE" => read_queue(db, r),
        "SCHEDULER" => {
            let s = SchedulerEntry {
                kind: r.text("type").map(|t| t.to_ascii_uppercase()),
                weight: r.num("weight"),
                priority: r.num("priority"),
            };
            db.schedulers.insert(key, s);
        }
        "WRED_PROFILE" => {
            let mut color = |c: &str| WredColor {
                enabled: r.flag(&format!("wred_{c}_enable")),
                min_bytes: r.num(&format!("{c}_min_threshold")),
                max_bytes: r.num(&format!("{c}_max_threshold")),
                drop_probability: r.num(&format!("{c}_drop_probability")),
            };
            let (green, yellow, red) = (color("green"), color("yellow"), color("red"));
            let ecn = r.text("ecn");
            db.wred_profiles.insert(key, WredProfile { ecn, green, yellow, red });
        }
        "BUFFER_POOL" => {
            let pool = BufferPool {
                kind: r.text("type"),
                mode: r.text("mode"),
                size_bytes: r.num("size"),
                xoff_bytes: r.num("xoff"),
            };
            db.buffer_pools.insert(key, pool);
        }
        "BUFFER_PROFILE" => {
            let profile = BufferProfileEntry {
                pool: r.reference("pool"),
                size_bytes: r.num("size"),
                xon_bytes: r.num("xon"),
                xon_offset_bytes: r.num("xon_offset"),
                xoff_bytes: r.num("xoff"),
                dynamic_th: r.num("dynamic_th"),
                static_th: r.num("static_th"),
            };
            db.buffer_profiles.insert(key, profile);
        }
        "BUFFER_PG" | "BUFFER_QUEUE" => {
            let profile = r.reference("profile");
            if let (Some((ports, indexes)), Some(profile)) = (r.port_indexes(), profile) {
                let target = match r.table {
                    "BUFFER_PG" => &mut db.buffer_pgs,
                    _ => &mut db.buffer_queues,
                };
                for port in ports {
                    let per_port = target.entry(port).or_default();
                    for &i in &indexes {
                        per_port.insert(i, profile.clone());
                    }
                }
            }
        }
        "BUFFER_PORT_INGRESS_PROFILE_LIST" | "BUFFER_PORT_EGRESS_PROFILE_LIST" => {
            let list = r.text("profile_list").map(|v| references(&v)).unwrap_or_default();
            let target = match r.table {
                "BUFFER_PORT_INGRESS_PROFILE_LIST" => &mut db.ingress_profile_lists,
                _ => &mut db.egress_profile_lists,
            };
            for port in port_list(&key) {
                target.insert(port, list.clone());
            }
        }
        "CABLE_LENGTH" => {
            let ports: Vec<String> = r.fields.keys().cloned().collect();
            for port in ports {
                if let Some(length) = r.text(&port) {
                    db.cable_lengths.insert(port, length);
                }
            }
        }
        "PFC_WD" if key == "GLOBAL" => {
            db.pfc_wd.poll_interval_ms = r.num("POLL_INTERVAL");
            db.pfc_wd.big_red_switch = r.text("BIG_RED_SWITCH");
        }
        "PFC_WD" => {
            let wd = PfcWdPort {
                action: r.text("action"),
                detection_ms: r.num("detection_time"),
                restoration_ms: r.num("restoration_time"),
                history: r.text("pfc_stat_history"),
            };
            for port in port_list(&key) {
                db.pfc_wd.ports.insert(port, wd.clone());
            }
        }
        _ => {}
    }
}

fn insert_map(maps: &mut BTreeMap<String, Map8>, key: String, r: &mut Reader) {
    let map = r.map8();
    maps.insert(key, map);
}

/// `QUEUE`: the settings of each key spread over its ports and queues; two keys that cover the
/// same queue with different settings are warned about (the later one in the file wins).
fn read_queue(db: &mut ConfigDb, r: &mut Reader) {
    let scheduler = r.reference("scheduler");
    let wred_profile = r.reference("wred_profile");
    let Some((ports, indexes)) = r.port_indexes() else {
        return;
    };
    for port in ports {
        let per_port = db.queues.entry(port.clone()).or_default();
        for &q in &indexes {
            let s = per_port.entry(q).or_default();
            for (slot, new) in [(&mut s.scheduler, &scheduler), (&mut s.wred_profile, &wred_profile)] {
                if let Some(new) = new {
                    if slot.as_ref().is_some_and(|old| old != new) {
                        let message = format!("`QUEUE` sets queue {q} of {port} twice; `{new}` kept");
                        r.warnings.push(ParseWarning::at(r.line, message));
                    }
                    *slot = Some(new.clone());
                }
            }
        }
    }
}

/// Warnings for entries that name other entries the dump does not define (the model cannot
/// resolve them: a queue without its scheduler is unjudgeable, and on a switch a broken reference
/// leaves the setting unapplied).
pub(super) fn check_references(db: &ConfigDb, merged: &BTreeMap<&str, Vec<Entry>>, warnings: &mut Vec<ParseWarning>) {
    let line = |table: &str, key: &str| {
        merged.get(table).and_then(|es| es.iter().find(|e| e.key == key)).map_or(0, |e| e.line)
    };
    let mut missing = |table: &str, key: &str, field: &str, target: &str, name: &str| {
        let message = format!("`{table}|{key}` field `{field}` names `{name}`, which `{target}` does not define");
        warnings.push(ParseWarning::at(line(table, key), message));
    };
    for e in merged.get("PORT_QOS_MAP").into_iter().flatten() {
        let Some(map) = port_list(e.key).first().and_then(|p| db.port_qos_maps.get(p)) else {
            continue;
        };
        for (field, target, get) in MAP_FIELDS {
            if let Some(name) = get(map).as_deref().filter(|n| !db.defines(target, n)) {
                missing("PORT_QOS_MAP", e.key, field, target, name);
            }
        }
    }
    for e in merged.get("QUEUE").into_iter().flatten() {
        for (field, target) in [("scheduler", "SCHEDULER"), ("wred_profile", "WRED_PROFILE")] {
            let named = e.fields.get(field).and_then(Value::as_str).map(reference);
            if let Some(name) = named.filter(|n| !db.defines(target, n)) {
                missing("QUEUE", e.key, field, target, &name);
            }
        }
    }
    for table in ["BUFFER_PG", "BUFFER_QUEUE"] {
        for e in merged.get(table).into_iter().flatten() {
            let named = e.fields.get("profile").and_then(Value::as_str).map(reference);
            // `NULL`: the dynamic buffer model computes the headroom itself.
            if let Some(name) = named.filter(|n| n != "NULL" && !db.defines("BUFFER_PROFILE", n)) {
                missing(table, e.key, "profile", "BUFFER_PROFILE", &name);
            }
        }
    }
    for (name, profile) in &db.buffer_profiles {
        if let Some(pool) = profile.pool.as_ref().filter(|p| !db.defines("BUFFER_POOL", p)) {
            missing("BUFFER_PROFILE", name, "pool", "BUFFER_POOL", pool);
        }
    }
}
