//! The SONiC config DB as JSON: `show runningconfiguration all`, `sonic-cfggen -d --print-data`,
//! or `/etc/sonic/config_db.json`. All three have one shape: an object of tables, each an object of
//! entries (`"QUEUE": {"Ethernet0|3": {"scheduler": "scheduler.1", "wred_profile": "AZURE_LOSSLESS"}}`).
//!
//! This module reads the tables of the lossless chain into typed facts (`ConfigDb`); `convert`
//! turns them into the vendor-neutral model. Read: `DEVICE_METADATA`, `PORT`, `PORT_QOS_MAP`, the
//! maps (`DSCP_TO_TC_MAP`, `DOT1P_TO_TC_MAP`, `TC_TO_QUEUE_MAP`, `TC_TO_PRIORITY_GROUP_MAP`,
//! `MAP_PFC_PRIORITY_TO_QUEUE`, `TC_TO_DSCP_MAP`, `PFC_PRIORITY_TO_PRIORITY_GROUP_MAP`), `QUEUE`,
//! `SCHEDULER`, `WRED_PROFILE`, `BUFFER_POOL`, `BUFFER_PROFILE`, `BUFFER_PG`, `BUFFER_QUEUE`,
//! `BUFFER_PORT_INGRESS_PROFILE_LIST`, `BUFFER_PORT_EGRESS_PROFILE_LIST`, `CABLE_LENGTH`, `PFC_WD`.
//! Every other table (a full config DB has dozens: `BGP_NEIGHBOR`, `VLAN` ...) is counted in
//! `tables` and named in `unused_tables`, without a warning per key: it is not part of the audit.
//!
//! Variants: references written `[DSCP_TO_TC_MAP|AZURE]` (older releases) or `AZURE`; keys that list
//! several ports (`Ethernet0,Ethernet4|3`) or index ranges (`Ethernet0|0-2`); VOQ system ports
//! (`sonic3|asic0|Ethernet0|3`) on chassis; template outputs with some tables absent (no `PORT`);
//! multi-ASIC dumps (`{"localhost": {...}, "asic0": {...}}`), merged with the first namespace
//! winning; values written as JSON numbers instead of strings; a prompt line before the JSON.
//! Warnings carry the line of the entry they are about: malformed keys, unreadable values,
//! references to entries that do not exist, conflicting entries, text after the JSON.
use super::config_read::{Entry, Reader, check_references, read_entry};
use super::json_lines::KeyLines;
use super::table::is_sonic_prompt;
use crate::lines::{no_facts, numbered, unrecognised_clipped};
use crate::{ParseError, ParseResult, ParseWarning, Parsed};
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// A u8 → u8 map (DSCP → TC, TC → queue ...).
pub type Map8 = BTreeMap<u8, u8>;

/// The lossless-chain tables of one config DB.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ConfigDb {
    /// `DEVICE_METADATA|localhost`.
    pub device: DeviceMetadata,
    /// Namespaces of a multi-ASIC dump (`localhost`, `asic0` ...), empty for a single config DB.
    pub namespaces: Vec<String>,
    /// Every table in the dump with its number of entries.
    pub tables: BTreeMap<String, usize>,
    /// Tables fabcheck does not read.
    pub unused_tables: Vec<String>,
    /// `PORT`, by port name.
    pub ports: BTreeMap<String, Port>,
    /// `PORT_QOS_MAP`, by port name (`global`: the switch-wide maps).
    pub port_qos_maps: BTreeMap<String, PortQosMap>,
    /// `DSCP_TO_TC_MAP`, by map name.
    pub dscp_to_tc_maps: BTreeMap<String, Map8>,
    /// `DOT1P_TO_TC_MAP`.
    pub dot1p_to_tc_maps: BTreeMap<String, Map8>,
    /// `TC_TO_QUEUE_MAP`.
    pub tc_to_queue_maps: BTreeMap<String, Map8>,
    /// `TC_TO_PRIORITY_GROUP_MAP`.
    pub tc_to_pg_maps: BTreeMap<String, Map8>,
    /// `MAP_PFC_PRIORITY_TO_QUEUE`.
    pub pfc_priority_to_queue_maps: BTreeMap<String, Map8>,
    /// `PFC_PRIORITY_TO_PRIORITY_GROUP_MAP`.
    pub pfc_priority_to_pg_maps: BTreeMap<String, Map8>,
    /// `TC_TO_DSCP_MAP` (remarking, dual-ToR tunnels).
    pub tc_to_dscp_maps: BTreeMap<String, Map8>,
    /// `QUEUE`, expanded: port (or VOQ system port `host|asic|port`) → queue → settings.
    pub queues: BTreeMap<String, BTreeMap<u8, QueueSettings>>,
    /// `SCHEDULER`, by name.
    pub schedulers: BTreeMap<String, SchedulerEntry>,
    /// `WRED_PROFILE`, by name.
    pub wred_profiles: BTreeMap<String, WredProfile>,
    /// `BUFFER_POOL`, by name.
    pub buffer_pools: BTreeMap<String, BufferPool>,
    /// `BUFFER_PROFILE`, by name.
    pub buffer_profiles: BTreeMap<String, BufferProfileEntry>,
    /// `BUFFER_PG`, expanded: port → priority group → profile (`NULL`: headroom computed by the
    /// dynamic buffer model).
    pub buffer_pgs: BTreeMap<String, BTreeMap<u8, String>>,
    /// `BUFFER_QUEUE`, expanded: port → queue → profile.
    pub buffer_queues: BTreeMap<String, BTreeMap<u8, String>>,
    /// `BUFFER_PORT_INGRESS_PROFILE_LIST`: port → profiles.
    pub ingress_profile_lists: BTreeMap<String, Vec<String>>,
    /// `BUFFER_PORT_EGRESS_PROFILE_LIST`: port → profiles.
    pub egress_profile_lists: BTreeMap<String, Vec<String>>,
    /// `CABLE_LENGTH`: port → length as written (`300m`).
    pub cable_lengths: BTreeMap<String, String>,
    /// `PFC_WD`.
    pub pfc_wd: PfcWdTable,
}

/// `DEVICE_METADATA|localhost`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DeviceMetadata {
    /// `hostname`.
    pub hostname: Option<String>,
    /// `hwsku`.
    pub hwsku: Option<String>,
    /// `platform`.
    pub platform: Option<String>,
    /// `asic_name` (multi-ASIC namespaces).
    pub asic_name: Option<String>,
    /// `default_pfcwd_status`: `enable` makes `pfcwd start_default` configure `PFC_WD` at boot.
    pub default_pfcwd_status: Option<String>,
    /// `buffer_model`: `traditional` or `dynamic`.
    pub buffer_model: Option<String>,
}

/// One `PORT` entry.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Port {
    /// `speed` in Mb/s.
    pub speed_mbps: Option<u64>,
    /// `mtu` in bytes.
    pub mtu: Option<u32>,
    /// `admin_status`: `up` or `down`.
    pub admin_status: Option<String>,
    /// `alias`.
    pub alias: Option<String>,
    /// `lanes`.
    pub lanes: Option<String>,
    /// `fec`.
    pub fec: Option<String>,
}

/// One `PORT_QOS_MAP` entry: map names are plain (references resolved to their name).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PortQosMap {
    /// `dscp_to_tc_map`.
    pub dscp_to_tc_map: Option<String>,
    /// `dot1p_to_tc_map`.
    pub dot1p_to_tc_map: Option<String>,
    /// `tc_to_queue_map`.
    pub tc_to_queue_map: Option<String>,
    /// `tc_to_pg_map`.
    pub tc_to_pg_map: Option<String>,
    /// `pfc_to_queue_map`.
    pub pfc_to_queue_map: Option<String>,
    /// `pfc_enable`: priorities with PFC on, ascending.
    pub pfc_enable: Option<Vec<u8>>,
    /// `pfcwd_sw_enable`: priorities the PFC watchdog may act on, ascending.
    pub pfcwd_sw_enable: Option<Vec<u8>>,
}

/// A `PORT_QOS_MAP` field that names a map.
pub(crate) type MapField = fn(&PortQosMap) -> &Option<String>;

/// The `PORT_QOS_MAP` fields that name a map, with the table that defines it.
pub(crate) const MAP_FIELDS: [(&str, &str, MapField); 4] = [
    ("dscp_to_tc_map", "DSCP_TO_TC_MAP", |m| &m.dscp_to_tc_map),
    ("dot1p_to_tc_map", "DOT1P_TO_TC_MAP", |m| &m.dot1p_to_tc_map),
    ("tc_to_queue_map", "TC_TO_QUEUE_MAP", |m| &m.tc_to_queue_map),
    ("tc_to_pg_map", "TC_TO_PRIORITY_GROUP_MAP", |m| &m.tc_to_pg_map),
];

/// The tables other entries name (a map, a scheduler, a WRED, buffer profile or pool).
pub(crate) const REFERENCED_TABLES: [&str; 8] = [
    "DSCP_TO_TC_MAP",
    "DOT1P_TO_TC_MAP",
    "TC_TO_QUEUE_MAP",
    "TC_TO_PRIORITY_GROUP_MAP",
    "SCHEDULER",
    "WRED_PROFILE",
    "BUFFER_PROFILE",
    "BUFFER_POOL",
];

impl ConfigDb {
    /// The names `table` (one of [`REFERENCED_TABLES`]) defines.
    pub(crate) fn defined(&self, table: &str) -> Vec<&str> {
        fn names<V>(entries: &BTreeMap<String, V>) -> Vec<&str> {
            entries.keys().map(String::as_str).collect()
        }
        match table {
            "DSCP_TO_TC_MAP" => names(&self.dscp_to_tc_maps),
            "DOT1P_TO_TC_MAP" => names(&self.dot1p_to_tc_maps),
            "TC_TO_QUEUE_MAP" => names(&self.tc_to_queue_maps),
            "TC_TO_PRIORITY_GROUP_MAP" => names(&self.tc_to_pg_maps),
            "SCHEDULER" => names(&self.schedulers),
            "WRED_PROFILE" => names(&self.wred_profiles),
            "BUFFER_PROFILE" => names(&self.buffer_profiles),
            "BUFFER_POOL" => names(&self.buffer_pools),
            _ => Vec::new(),
        }
    }

    /// Whether `table` defines `name`.
    pub(crate) fn defines(&self, table: &str, name: &str) -> bool {
        self.defined(table).contains(&name)
    }
}

/// One queue's `QUEUE` settings (entry names, plain).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct QueueSettings {
    /// `scheduler`.
    pub scheduler: Option<String>,
    /// `wred_profile`.
    pub wred_profile: Option<String>,
}

/// One `SCHEDULER` entry.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SchedulerEntry {
    /// `type`: `STRICT`, `DWRR`, `WRR`.
    pub kind: Option<String>,
    /// `weight`.
    pub weight: Option<u32>,
    /// `priority` (strict schedulers).
    pub priority: Option<u32>,
}

/// One `WRED_PROFILE` entry; thresholds in bytes, probabilities in percent.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct WredProfile {
    /// `ecn`: `ecn_none`, `ecn_green`, `ecn_yellow`, `ecn_red`, `ecn_green_yellow`,
    /// `ecn_green_red`, `ecn_yellow_red`, `ecn_all`.
    pub ecn: Option<String>,
    /// Green packets (what RoCE traffic is).
    pub green: WredColor,
    /// Yellow packets.
    pub yellow: WredColor,
    /// Red packets.
    pub red: WredColor,
}

/// WRED settings of one packet colour.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct WredColor {
    /// `wred_<colour>_enable` (WRED drop).
    pub enabled: Option<bool>,
    /// `<colour>_min_threshold`.
    pub min_bytes: Option<u64>,
    /// `<colour>_max_threshold`.
    pub max_bytes: Option<u64>,
    /// `<colour>_drop_probability`.
    pub drop_probability: Option<u32>,
}

/// One `BUFFER_POOL` entry.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct BufferPool {
    /// `type`: `ingress` or `egress`.
    pub kind: Option<String>,
    /// `mode`: `static` or `dynamic`.
    pub mode: Option<String>,
    /// `size` in bytes (absent under the dynamic buffer model).
    pub size_bytes: Option<u64>,
    /// `xoff`: shared headroom pool size in bytes.
    pub xoff_bytes: Option<u64>,
}

/// One `BUFFER_PROFILE` entry.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct BufferProfileEntry {
    /// `pool` (plain name).
    pub pool: Option<String>,
    /// `size` in bytes.
    pub size_bytes: Option<u64>,
    /// `xon` in bytes.
    pub xon_bytes: Option<u64>,
    /// `xon_offset` in bytes.
    pub xon_offset_bytes: Option<u64>,
    /// `xoff` in bytes.
    pub xoff_bytes: Option<u64>,
    /// `dynamic_th` (alpha exponent).
    pub dynamic_th: Option<i32>,
    /// `static_th` in bytes.
    pub static_th: Option<u64>,
}

/// `PFC_WD`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PfcWdTable {
    /// `GLOBAL|POLL_INTERVAL` in ms.
    pub poll_interval_ms: Option<u32>,
    /// `GLOBAL|BIG_RED_SWITCH`.
    pub big_red_switch: Option<String>,
    /// Per port.
    pub ports: BTreeMap<String, PfcWdPort>,
}

/// One port's `PFC_WD` entry.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PfcWdPort {
    /// `action`: `drop`, `forward`, `alert`.
    pub action: Option<String>,
    /// `detection_time` in ms.
    pub detection_ms: Option<u32>,
    /// `restoration_time` in ms.
    pub restoration_ms: Option<u32>,
    /// `pfc_stat_history`.
    pub history: Option<String>,
}

/// Tables this module reads.
const READ: [&str; 21] = [
    "DEVICE_METADATA",
    "PORT",
    "PORT_QOS_MAP",
    "DSCP_TO_TC_MAP",
    "DOT1P_TO_TC_MAP",
    "TC_TO_QUEUE_MAP",
    "TC_TO_PRIORITY_GROUP_MAP",
    "MAP_PFC_PRIORITY_TO_QUEUE",
    "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP",
    "TC_TO_DSCP_MAP",
    "QUEUE",
    "SCHEDULER",
    "WRED_PROFILE",
    "BUFFER_POOL",
    "BUFFER_PROFILE",
    "BUFFER_PG",
    "BUFFER_QUEUE",
    "BUFFER_PORT_INGRESS_PROFILE_LIST",
    "BUFFER_PORT_EGRESS_PROFILE_LIST",
    "CABLE_LENGTH",
    "PFC_WD",
];

/// Parses a config DB dump.
///
/// # Errors
/// Empty input, no JSON object, JSON that does not parse (the line is given: a cut capture
/// ends that way), or an object with none of the tables in the module doc.
pub fn parse(text: &str) -> ParseResult<ConfigDb> {
    let mut warnings = Vec::new();
    let mut start = None;
    for l in numbered(text) {
        if l.text.starts_with('{') {
            start = Some((l.n, l.start));
            break;
        }
        if !is_sonic_prompt(l.text) {
            let message = format!("{} before the JSON object", unrecognised_clipped(l.text));
            warnings.push(ParseWarning::at(l.n, message));
        }
    }
    let foreign = "not a SONiC config DB dump: no JSON object of tables";
    let Some((first_line, offset)) = start else {
        return Err(no_facts(text, "empty config DB output", foreign));
    };
    let body = text.get(offset..).unwrap_or("");
    let mut stream = serde_json::Deserializer::from_str(body).into_iter::<Map<String, Value>>();
    let top = match stream.next() {
        Some(Ok(top)) => top,
        Some(Err(e)) => {
            return Err(ParseError::at(
                first_line + e.line().saturating_sub(1),
                format!("config DB JSON is cut or malformed: {e}"),
            ));
        }
        None => return Err(ParseError::at(0, foreign)),
    };
    let end = stream.byte_offset();
    let rest = body.get(end..).unwrap_or("");
    if let Some(at) = rest.find(|c: char| !c.is_whitespace()) {
        let before = body.get(..end + at).unwrap_or("");
        let line = first_line + before.matches('\n').count();
        warnings.push(ParseWarning::at(line, "text after the JSON object ignored"));
    }
    let namespaced = is_namespaced(&top);
    let lines = KeyLines::new(body, first_line, if namespaced { 3 } else { 2 });
    let mut db = ConfigDb::default();
    let merged = merge(&top, namespaced, &lines, &mut db, &mut warnings);
    if !merged.keys().any(|t| READ.contains(t)) {
        return Err(ParseError::at(
            0,
            "no SONiC config DB table (PORT, PORT_QOS_MAP, QUEUE, BUFFER_PROFILE ...): not a config DB dump",
        ));
    }
    for (table, entries) in &merged {
        db.tables.insert(table.to_string(), entries.len());
        if !READ.contains(table) {
            db.unused_tables.push(table.to_string());
        }
        for e in entries {
            let mut r = Reader { table, key: e.key, fields: e.fields, line: e.line, warnings: &mut warnings };
            read_entry(&mut db, &mut r);
        }
    }
    check_references(&db, &merged, &mut warnings);
    warnings.sort_by_key(|w| w.line);
    Ok(Parsed { value: db, warnings })
}

/// Whether the top level is `{"localhost": {...}, "asic0": {...}}` (multi-ASIC
/// `show runningconfiguration all`) rather than tables.
fn is_namespaced(top: &Map<String, Value>) -> bool {
    !top.is_empty()
        && top.contains_key("localhost")
        && top.iter().all(|(k, v)| {
            let asic = k.strip_prefix("asic").is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
            (k == "localhost" || asic) && v.is_object()
        })
}

/// The entries of every table, namespaces merged (the first namespace holding a key wins; a later
/// one holding it with other fields is warned about, except `DEVICE_METADATA`, which differs per
/// ASIC by design).
fn merge<'a>(
    top: &'a Map<String, Value>,
    namespaced: bool,
    lines: &KeyLines,
    db: &mut ConfigDb,
    warnings: &mut Vec<ParseWarning>,
) -> BTreeMap<&'a str, Vec<Entry<'a>>> {
    let mut spaces: Vec<(Option<&str>, &Map<String, Value>)> = Vec::new();
    if namespaced {
        // `localhost` first: its DEVICE_METADATA describes the switch, not one ASIC.
        let mut names: Vec<&String> = top.keys().collect();
        names.sort_by_key(|n| (*n != "localhost", n.len(), n.as_str()));
        for ns in names {
            db.namespaces.push(ns.clone());
            spaces.extend(top[ns].as_object().map(|m| (Some(ns.as_str()), m)));
        }
    } else {
        spaces.push((None, top));
    }
    let mut merged: BTreeMap<&str, Vec<Entry>> = BTreeMap::new();
    for (ns, tables) in spaces {
        let path = |parts: &[&str]| -> usize {
            let mut p: Vec<&str> = ns.into_iter().collect();
            p.extend_from_slice(parts);
            lines.line(&p)
        };
        for (table, entries) in tables {
            let Some(entries) = entries.as_object() else {
                warnings.push(ParseWarning::at(
                    path(&[table.as_str()]),
                    format!("table `{table}` is not an object of entries, skipped"),
                ));
                continue;
            };
            let list = merged.entry(table.as_str()).or_default();
            for (key, fields) in entries {
                let line = path(&[table.as_str(), key.as_str()]);
                let Some(fields) = fields.as_object() else {
                    warnings
                        .push(ParseWarning::at(line, format!("`{table}|{key}` is not an object of fields, skipped")));
                    continue;
                };
                match list.iter().find(|e| e.key == key) {
                    Some(e) if e.fields != fields && table != "DEVICE_METADATA" => {
                        warnings.push(ParseWarning::at(
                            line,
                            format!("`{table}|{key}` differs between namespaces; the first is kept"),
                        ));
                    }
                    Some(_) => {}
                    None => list.push(Entry { key, fields, line }),
                }
            }
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = include_str!("../../tests/fixtures/sonic/sonic-cfggen-qos-arista7050.json");
    const BUFFERS: &str = include_str!("../../tests/fixtures/sonic/sonic-cfggen-buffers-mellanox4600c-t1.json");

    const OLD_STYLE: &str = r#"admin@sonic:~$ show runningconfiguration all
{
    "DEVICE_METADATA": {"localhost": {"hostname": "leaf1", "hwsku": "Force10-S6000"}},
    "PORT": {"Ethernet0": {"speed": 40000, "mtu": "9100", "admin_status": "up"}},
    "PORT_QOS_MAP": {
        "Ethernet0,Ethernet4": {"dscp_to_tc_map": "[DSCP_TO_TC_MAP|AZURE]", "pfc_enable": "3,9"}
    },
    "DSCP_TO_TC_MAP": {"AZURE": {"26": "3", "x": "1", "48": "y"}},
    "QUEUE": {
        "Ethernet0,Ethernet4|3-4": {"scheduler": "[SCHEDULER|scheduler.1]", "wred_profile": "[WRED_PROFILE|GONE]"},
        "Ethernet0|4": {"scheduler": "[SCHEDULER|scheduler.0]"},
        "Ethernet0": {"scheduler": "[SCHEDULER|scheduler.0]"}
    },
    "SCHEDULER": {"scheduler.0": {"type": "STRICT"}, "scheduler.1": {"type": "DWRR", "weight": "15"}},
    "VLAN": {"Vlan1000": {"vlanid": "1000"}, "Vlan2000": {"vlanid": "2000"}}
}
trailing
"#;

    #[test]
    fn old_style_references_lists_and_ranges() {
        let parsed = parse(OLD_STYLE).expect("parses");
        let db = &parsed.value;
        assert_eq!(db.device.hostname.as_deref(), Some("leaf1"));
        assert_eq!(db.ports["Ethernet0"].speed_mbps, Some(40000));
        let m = &db.port_qos_maps["Ethernet4"];
        assert_eq!(m.dscp_to_tc_map.as_deref(), Some("AZURE"));
        assert_eq!(m.pfc_enable, None, "priority 9 does not exist");
        assert_eq!(db.dscp_to_tc_maps["AZURE"], Map8::from([(26, 3)]));
        assert_eq!(db.queues["Ethernet4"][&3].scheduler.as_deref(), Some("scheduler.1"));
        assert_eq!(db.queues["Ethernet0"][&4].scheduler.as_deref(), Some("scheduler.0"));
        assert_eq!(db.tables["VLAN"], 2);
        assert_eq!(db.unused_tables, ["VLAN"]);
        let got: Vec<(usize, &str)> = parsed.warnings.iter().map(|w| (w.line, w.message.as_str())).collect();
        let lines: Vec<usize> = got.iter().map(|(l, _)| *l).collect();
        // pfc_enable 3,9 (6); the map's keys x and value y (8, twice); the missing WRED profile
        // (10); queue 4 of Ethernet0 set twice (11); the key without an index (12); the trailing
        // text (17).
        assert_eq!(lines, [6, 8, 8, 10, 11, 12, 17], "{got:#?}");
        assert!(got[3].1.contains("`GONE`, which `WRED_PROFILE` does not define"));
    }

    #[test]
    fn multi_asic_namespaces_merge() {
        let text = r#"{
  "localhost": {"DEVICE_METADATA": {"localhost": {"hostname": "chassis-lc1"}}},
  "asic0": {"DEVICE_METADATA": {"localhost": {"hostname": "chassis-lc1", "asic_name": "asic0"}},
            "PORT": {"Ethernet0": {"mtu": "9100"}},
            "WRED_PROFILE": {"W": {"ecn": "ecn_all"}}},
  "asic1": {"PORT": {"Ethernet-BP0": {"mtu": "9100"}},
            "WRED_PROFILE": {"W": {"ecn": "ecn_none"}}}
}"#;
        let parsed = parse(text).expect("parses");
        let db = &parsed.value;
        assert_eq!(db.namespaces, ["localhost", "asic0", "asic1"]);
        assert_eq!(db.device.asic_name, None, "localhost describes the switch");
        assert_eq!(db.ports.len(), 2);
        assert_eq!(db.wred_profiles["W"].ecn.as_deref(), Some("ecn_all"));
        let lines: Vec<usize> = parsed.warnings.iter().map(|w| w.line).collect();
        assert_eq!(lines, [7]);
    }

    #[test]
    fn errors_name_the_line_of_a_cut_dump() {
        assert_eq!(parse("").unwrap_err().message, "empty config DB output");
        assert!(parse("hello\n").is_err());
        assert!(parse("{\"hello\": {}}\n").is_err());
        assert!(parse("[1, 2]\n").is_err());
        let cut = &BUFFERS[..BUFFERS.len() / 2];
        let err = parse(cut).unwrap_err();
        assert_eq!(err.line, cut.lines().count());
    }

    crate::lines::parser_never_panics!(parse, [OLD_STYLE, BUFFERS]);

    #[test]
    fn the_big_sample_reads_without_warnings() {
        let parsed = parse(SAMPLE).expect("parses");
        assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    }
}
