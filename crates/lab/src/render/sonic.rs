//! SONiC: what a lab switch running SONiC 202311 prints for sonic-utilities' commands.
//!
//! - `show runningconfiguration all`: the config DB as `sonic-cfggen -d --print-data` prints it
//!   (python `json.dumps(sort_keys=True, indent=4)`, every value a string), with the tables of
//!   the lossless chain in the layout of `sonic-cfggen-qos-*.json` in crates/parse/tests/fixtures/sonic:
//!   `PORT_QOS_MAP` per port (`pfc_enable`, the `AZURE` maps), `DSCP_TO_TC_MAP`,
//!   `TC_TO_QUEUE_MAP`, `QUEUE` (`PORT|0-2` ... with `scheduler` and, on queue 3,
//!   `wred_profile`), `SCHEDULER`, `WRED_PROFILE` (thresholds in bytes), `PFC_WD`.
//!   A port's own ECN settings name their own WRED profile (`AZURE_LOSSLESS` when healthy); a
//!   port without PFC has no `pfc_enable`, one without a watchdog no `PFC_WD` entry. A switch
//!   with `qos-map-absent` has no `PORT_QOS_MAP` table at all (neither `global` nor a port's
//!   entry): its maps, queues and buffers stay defined, bound to no port.
//! - `show interfaces status` (intfutil), `pfcwd show config` / `pfcwd show stats`,
//!   `show pfc counters` (pfcstat), `show queue counters` (queuestat): `tabulate` tables (see
//!   `tabulate`), as the sonic-utilities test vectors in the parser's fixtures show them.
//! - `show lldp neighbors`: `lldpctl` run in the lldp container (see `lldp`).
//!
//! Anything else: bash's `command not found` for other programs, click's usage error (status 2)
//! for an unknown `show`/`pfcwd` subcommand.

use super::lldp;
use super::switch_qos::lossless_weight;
use super::tabulate::{tabulate, thousands};
use crate::build::{ECN_PROBABILITY, SWITCH_SPEED_GBPS, WATCHDOG_MS};
use crate::design::Design;
use crate::shell::Output;
use crate::state::{EcnThresholds, Fabric, LabSwitch, SwitchPort, SwitchRole};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

/// `DEVICE_METADATA|localhost|hwsku`.
const HWSKU: &str = "Mellanox-SN5600-V256";
/// `DEVICE_METADATA|localhost|platform`.
const PLATFORM: &str = "x86_64-nvidia_sn5600-r0";
/// The transceiver `show interfaces status` reports.
const TRANSCEIVER: &str = "QSFP-DD Double Density 8X Pluggable Transceiver";

/// Runs a command (already split into words) on SONiC switch `me`.
pub(crate) fn exec(fabric: &Fabric, me: usize, args: &[String], elapsed: Duration) -> Output {
    let sw = &fabric.switches[me];
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    match words.as_slice() {
        ["show", "runningconfiguration", "all"] => Output::ok(running_config(fabric, sw)),
        ["show", "interfaces", "status"] => Output::ok(interfaces_status(sw)),
        ["show", "lldp", "neighbors"] => {
            let entries = lldp::switch_entries(fabric, sw);
            Output::ok(lldp::lldpctl(entries.iter().filter_map(|(p, a)| a.as_ref().map(|a| (p.as_str(), a))), elapsed))
        }
        ["show", "pfc", "counters"] => Output::ok(pfc_counters(sw, elapsed)),
        ["show", "queue", "counters"] => Output::ok(queue_counters(sw, elapsed)),
        ["pfcwd", "show", "config"] => Output::ok(pfcwd_config(sw)),
        ["pfcwd", "show", "stats"] => Output::ok(pfcwd_stats(&fabric.design, sw, elapsed)),
        ["show", rest @ ..] => click_error(&["show"], rest, SHOW_TREE),
        ["pfcwd", rest @ ..] => click_error(&["pfcwd"], rest, PFCWD_TREE),
        ["hostname"] => Output::ok(format!("{}\n", sw.name)),
        ["echo", rest @ ..] => Output::ok(format!("{}\n", rest.join(" "))),
        ["true"] => Output::ok(""),
        [] => Output::ok(""),
        [first, ..] => crate::shell::not_found(first),
    }
}

/// A click command group and its subcommands, as far as the lab implements them.
struct Group {
    name: &'static str,
    children: &'static [Group],
}

const SHOW_TREE: &[Group] = &[
    Group { name: "runningconfiguration", children: &[Group { name: "all", children: &[] }] },
    Group { name: "interfaces", children: &[Group { name: "status", children: &[] }] },
    Group { name: "lldp", children: &[Group { name: "neighbors", children: &[] }] },
    Group { name: "pfc", children: &[Group { name: "counters", children: &[] }] },
    Group { name: "queue", children: &[Group { name: "counters", children: &[] }] },
];

const PFCWD_TREE: &[Group] = &[Group {
    name: "show",
    children: &[Group { name: "config", children: &[] }, Group { name: "stats", children: &[] }],
}];

/// click 7's error for a command line that names no command (what sonic-utilities prints).
fn click_error(path: &[&str], rest: &[&str], groups: &'static [Group]) -> Output {
    let mut path: Vec<&str> = path.to_vec();
    let mut groups = groups;
    let mut rest = rest;
    loop {
        let shown = path.join(" ");
        let usage = |what: &str| format!("Usage: {shown} [OPTIONS] {what}\nTry \"{shown} -h\" for help.\n\n");
        match rest.split_first() {
            None if groups.is_empty() => return Output::ok(""),
            None => return Output::fail(2, "", format!("{}Error: Missing command.\n", usage("COMMAND [ARGS]..."))),
            Some((word, tail)) if groups.is_empty() => {
                let _ = tail;
                return Output::fail(2, "", format!("{}Error: Got unexpected extra argument ({word})\n", usage("")));
            }
            Some((word, tail)) => match groups.iter().find(|g| g.name == *word) {
                Some(g) => {
                    path.push(g.name);
                    groups = g.children;
                    rest = tail;
                }
                None => {
                    return Output::fail(
                        2,
                        "",
                        format!("{}Error: No such command \"{word}\".\n", usage("COMMAND [ARGS]...")),
                    );
                }
            },
        }
    }
}

type Table = BTreeMap<String, BTreeMap<String, String>>;

fn entry(table: &mut Table, key: impl Into<String>, fields: &[(&str, String)]) {
    let e = table.entry(key.into()).or_default();
    for (k, v) in fields {
        e.insert((*k).to_string(), v.clone());
    }
}

/// The thresholds a WRED profile that marks nothing still carries (`AZURE_LOSSY`).
const UNMARKED: EcnThresholds = EcnThresholds { min_bytes: 150 * 1024, max_bytes: 1500 * 1024 };

/// The WRED profile a lossless queue uses: `AZURE_LOSSLESS` for the design's thresholds
/// (`healthy`), another name for others, `AZURE_LOSSY` for none.
fn wred_name(ecn: Option<EcnThresholds>, healthy: Option<EcnThresholds>) -> String {
    match ecn {
        Some(e) if Some(e) == healthy => "AZURE_LOSSLESS".into(),
        Some(e) => format!("AZURE_LOSSLESS_{}K_{}K", e.min_bytes / 1024, e.max_bytes / 1024),
        None => "AZURE_LOSSY".into(),
    }
}

fn wred_fields(ecn: Option<EcnThresholds>) -> Vec<(&'static str, String)> {
    let e = ecn.unwrap_or(UNMARKED);
    let on = if ecn.is_some() { "true" } else { "false" };
    let mut f = vec![("ecn", if ecn.is_some() { "ecn_all" } else { "ecn_none" }.to_string())];
    for color in ["green", "yellow", "red"] {
        let (max, min, prob) = match color {
            "green" => ("green_max_threshold", "green_min_threshold", "green_drop_probability"),
            "yellow" => ("yellow_max_threshold", "yellow_min_threshold", "yellow_drop_probability"),
            _ => ("red_max_threshold", "red_min_threshold", "red_drop_probability"),
        };
        f.push((max, e.max_bytes.to_string()));
        f.push((min, e.min_bytes.to_string()));
        f.push((prob, ECN_PROBABILITY.to_string()));
    }
    f.push(("wred_green_enable", on.into()));
    f.push(("wred_yellow_enable", on.into()));
    f.push(("wred_red_enable", on.into()));
    f
}

/// `0-2`, `3`: the key of a run of queues or priorities.
fn run_key(first: usize, last: usize) -> String {
    if first == last { first.to_string() } else { format!("{first}-{last}") }
}

/// Runs of consecutive indices with equal values: `(first, last, value)`, as SONiC's tables key
/// queues (`Ethernet0|0-2`) and priority groups (`Ethernet0|3-4`).
fn runs<T: PartialEq + Clone>(values: &[T]) -> Vec<(usize, usize, T)> {
    let mut out: Vec<(usize, usize, T)> = Vec::new();
    for (i, v) in values.iter().enumerate() {
        match out.last_mut() {
            Some((_, last, prev)) if *last + 1 == i && prev == v => *last = i,
            _ => out.push((i, i, v.clone())),
        }
    }
    out
}

/// What a queue is in the design: the keys of `QUEUE` follow it (the CNP queue keeps a key of
/// its own when a fault weights it like its neighbours), and within it the port's own settings.
#[derive(Clone, Copy, PartialEq)]
enum Role {
    Lossless,
    Cnp,
    Other,
}

/// A port's egress queues: each one's role and `QUEUE` fields, the lossless queues on
/// `scheduler.1` with their WRED profile, the CNP queue on `scheduler.2` when strict, the others
/// on `scheduler.0`.
fn queue_fields(design: &Design, p: &SwitchPort) -> Vec<(Role, Vec<(&'static str, String)>)> {
    (0..8)
        .map(|q| {
            if design.class_of_tc(q).is_some() {
                let wred = wred_name(p.ecn[q], design.ecn_of_tc(q));
                (Role::Lossless, vec![("scheduler", "scheduler.1".into()), ("wred_profile", wred)])
            } else if design.cnp.is_some_and(|c| usize::from(c.tc) == q) {
                let scheduler = if p.cnp_strict { "scheduler.2" } else { "scheduler.0" };
                (Role::Cnp, vec![("scheduler", scheduler.into())])
            } else {
                (Role::Other, vec![("scheduler", "scheduler.0".into())])
            }
        })
        .collect()
}

fn identity(table: &mut Table, name: &str) {
    let fields: Vec<(String, String)> = (0..8).map(|i| (i.to_string(), i.to_string())).collect();
    let e = table.entry(name.to_string()).or_default();
    e.extend(fields);
}

/// `show runningconfiguration all`.
pub(crate) fn running_config(fabric: &Fabric, sw: &LabSwitch) -> String {
    let design = &fabric.design;
    let mut db: BTreeMap<&str, Table> = BTreeMap::new();
    let kind = match sw.role {
        SwitchRole::Leaf => "LeafRouter",
        SwitchRole::Spine => "SpineRouter",
    };
    entry(
        db.entry("DEVICE_METADATA").or_default(),
        "localhost",
        &[
            ("bgp_asn", (65_100 + sw.mac[5] as u32).to_string()),
            ("buffer_model", "traditional".into()),
            ("default_bgp_status", "up".into()),
            ("default_pfcwd_status", "enable".into()),
            ("hostname", sw.name.clone()),
            ("hwsku", HWSKU.into()),
            ("mac", super::common::mac_string(&sw.mac)),
            ("platform", PLATFORM.into()),
            ("type", kind.into()),
        ],
    );
    entry(
        db.entry("MGMT_INTERFACE").or_default(),
        format!("eth0|{}/24", sw.mgmt_ipv4),
        &[("gwaddr", {
            let o = sw.mgmt_ipv4.octets();
            format!("{}.{}.{}.254", o[0], o[1], o[2])
        })],
    );
    entry(db.entry("LOOPBACK_INTERFACE").or_default(), "Loopback0", &[]);
    entry(db.entry("LOOPBACK_INTERFACE").or_default(), format!("Loopback0|10.10.{}.{}/32", sw.mac[4], sw.mac[5]), &[]);
    let mut dscp = BTreeMap::new();
    for (d, tc) in sw.dscp_to_tc.iter().enumerate() {
        dscp.insert(d.to_string(), tc.to_string());
    }
    db.entry("DSCP_TO_TC_MAP").or_default().insert("AZURE".into(), dscp);
    identity(db.entry("TC_TO_QUEUE_MAP").or_default(), "AZURE");
    identity(db.entry("MAP_PFC_PRIORITY_TO_QUEUE").or_default(), "AZURE");
    let pg: Vec<(String, String)> =
        (0..8).map(|tc| (tc.to_string(), if tc == 3 || tc == 4 { tc } else { 0 }.to_string())).collect();
    db.entry("TC_TO_PRIORITY_GROUP_MAP").or_default().entry("AZURE".into()).or_default().extend(pg);
    // The switch-wide DSCP map would classify a port meant to trust 802.1p by DSCP too: it is
    // there only when every port trusts DSCP.
    if sw.ports.iter().all(|p| p.trust_dscp) {
        if !sw.qos_map_absent {
            entry(db.entry("PORT_QOS_MAP").or_default(), "global", &[("dscp_to_tc_map", "AZURE".into())]);
        }
    } else {
        identity(db.entry("DOT1P_TO_TC_MAP").or_default(), "AZURE");
    }
    entry(
        db.entry("BUFFER_POOL").or_default(),
        "ingress_lossless_pool",
        &[("mode", "dynamic".into()), ("size", "59768832".into()), ("type", "ingress".into())],
    );
    entry(db.entry("SCHEDULER").or_default(), "scheduler.0", &[("type", "DWRR".into()), ("weight", "14".into())]);
    entry(
        db.entry("SCHEDULER").or_default(),
        "scheduler.1",
        &[("type", "DWRR".into()), ("weight", lossless_weight(design).to_string())],
    );
    entry(db.entry("SCHEDULER").or_default(), "scheduler.2", &[("type", "STRICT".into())]);
    for ecn in design.lossless.iter().filter_map(|c| c.ecn) {
        entry(db.entry("WRED_PROFILE").or_default(), wred_name(Some(ecn), Some(ecn)), &wred_fields(Some(ecn)));
    }
    let mut global = vec![("POLL_INTERVAL", WATCHDOG_MS.to_string())];
    if sw.big_red_switch {
        global.push(("BIG_RED_SWITCH", "enable".into()));
    }
    entry(db.entry("PFC_WD").or_default(), "GLOBAL", &global);
    for (k, p) in sw.ports.iter().enumerate() {
        let lanes: Vec<String> = (4 * k..4 * k + 4).map(|l| l.to_string()).collect();
        entry(
            db.entry("PORT").or_default(),
            p.name.clone(),
            &[
                ("admin_status", if p.up { "up" } else { "down" }.into()),
                ("alias", p.name.clone()),
                ("description", lldp::port_description(fabric, p.peer)),
                ("fec", "rs".into()),
                ("index", (k + 1).to_string()),
                ("lanes", lanes.join(",")),
                ("mtu", p.mtu.to_string()),
                ("speed", (p.speed_gbps as u64 * 1000).to_string()),
            ],
        );
        let lossless: Vec<String> = (0..8).filter(|&q| p.pfc[q]).map(|q| q.to_string()).collect();
        let classify = if p.trust_dscp { "dscp_to_tc_map" } else { "dot1p_to_tc_map" };
        let mut maps = vec![
            (classify, "AZURE".to_string()),
            ("pfc_to_queue_map", "AZURE".into()),
            ("tc_to_pg_map", "AZURE".into()),
            ("tc_to_queue_map", "AZURE".into()),
        ];
        if !lossless.is_empty() {
            maps.push(("pfc_enable", lossless.join(",")));
            maps.push(("pfcwd_sw_enable", lossless.join(",")));
        }
        if !sw.qos_map_absent {
            entry(db.entry("PORT_QOS_MAP").or_default(), p.name.clone(), &maps);
        }
        let queues = db.entry("QUEUE").or_default();
        for (first, last, (_, fields)) in runs(&queue_fields(design, p)) {
            entry(queues, format!("{}|{}", p.name, run_key(first, last)), &fields);
        }
        for q in design.lossless_tcs() {
            let name = wred_name(p.ecn[q], design.ecn_of_tc(q));
            entry(db.entry("WRED_PROFILE").or_default(), name, &wred_fields(p.ecn[q]));
        }
        // Named for the speed the port is configured for, which a link trained down keeps.
        let profile =
            format!("pg_lossless_{}_5m_profile_xoff{}", u64::from(SWITCH_SPEED_GBPS) * 1000, p.headroom_bytes);
        entry(
            db.entry("BUFFER_PROFILE").or_default(),
            profile.clone(),
            &[
                ("dynamic_th", "0".into()),
                ("pool", "ingress_lossless_pool".into()),
                ("size", "19456".into()),
                ("xoff", p.headroom_bytes.to_string()),
                ("xon", "19456".into()),
                ("xon_offset", "19456".into()),
            ],
        );
        // The lossless priority groups keep their buffer whether PFC is on or not (`pfc-off`
        // leaves it).
        let lossless: Vec<bool> = (0..8).map(|prio| design.is_lossless(prio)).collect();
        for (first, last, _) in runs(&lossless).into_iter().filter(|r| r.2) {
            let key = format!("{}|{}", p.name, run_key(first, last));
            entry(db.entry("BUFFER_PG").or_default(), key, &[("profile", profile.clone())]);
        }
        db.entry("CABLE_LENGTH").or_default().entry("AZURE".into()).or_default().insert(p.name.clone(), "5m".into());
        if p.pfc_watchdog {
            let ms = WATCHDOG_MS.to_string();
            entry(
                db.entry("PFC_WD").or_default(),
                p.name.clone(),
                &[("action", "drop".into()), ("detection_time", ms.clone()), ("restoration_time", ms)],
            );
        }
    }
    let mut buf = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b"    ");
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, formatter);
    let _ = serde::Serialize::serialize(&db, &mut ser);
    let mut text = String::from_utf8(buf).unwrap_or_default();
    text.push('\n');
    text
}

/// `show interfaces status`.
pub(crate) fn interfaces_status(sw: &LabSwitch) -> String {
    let rows: Vec<Vec<String>> = sw
        .ports
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let lanes: Vec<String> = (4 * k..4 * k + 4).map(|l| l.to_string()).collect();
            let state = if p.up { "up" } else { "down" };
            vec![
                p.name.clone(),
                lanes.join(","),
                format!("{}G", p.speed_gbps),
                p.mtu.to_string(),
                "rs".into(),
                p.name.clone(),
                "routed".into(),
                state.into(),
                state.into(),
                TRANSCEIVER.into(),
                "off".into(),
            ]
        })
        .collect();
    tabulate(
        &["Interface", "Lanes", "Speed", "MTU", "FEC", "Alias", "Vlan", "Oper", "Admin", "Type", "Asym PFC"],
        &rows,
    )
}

/// `pfcwd show config`.
pub(crate) fn pfcwd_config(sw: &LabSwitch) -> String {
    let ms = WATCHDOG_MS.to_string();
    let rows: Vec<Vec<String>> = sw
        .ports
        .iter()
        .filter(|p| p.pfc_watchdog)
        .map(|p| vec![p.name.clone(), "drop".into(), ms.clone(), ms.clone(), "disable".into()])
        .collect();
    let big_red_switch = if sw.big_red_switch { "BIG_RED_SWITCH status is enable\n" } else { "" };
    format!(
        "Changed polling interval to {ms}ms\n{big_red_switch}{}",
        tabulate(&["PORT", "ACTION", "DETECTION TIME", "RESTORATION TIME", "HISTORY"], &rows)
    )
}

/// `pfcwd show stats`: the lossless queues of watchdog ports whose counters moved, that is those
/// under a PFC storm (more pause frames than a healthy trickle): stormed, their packets dropped.
pub(crate) fn pfcwd_stats(design: &Design, sw: &LabSwitch, elapsed: Duration) -> String {
    let (prio, queue) = (usize::from(design.roce().priority), usize::from(design.roce().tc));
    let rows: Vec<Vec<String>> = sw
        .ports
        .iter()
        .filter(|p| p.pfc_watchdog && p.counters.pfc_rx[prio].per_s > 10_000)
        .map(|p| {
            let dropped = p.counters.queue_tx_packets[queue].per_s * elapsed.as_secs().max(1) / 1000;
            let pair = |a: u64, b: u64| format!("{a}/{b}");
            vec![
                format!("{}:{queue}", p.name),
                "stormed".into(),
                pair(1, 0),
                pair(0, dropped),
                pair(0, dropped),
                pair(0, dropped),
                pair(0, dropped),
            ]
        })
        .collect();
    tabulate(
        &[
            "QUEUE",
            "STATUS",
            "STORM DETECTED/RESTORED",
            "TX OK/DROP",
            "RX OK/DROP",
            "TX LAST OK/DROP",
            "RX LAST OK/DROP",
        ],
        &rows,
    )
}

/// `show pfc counters`.
pub(crate) fn pfc_counters(sw: &LabSwitch, elapsed: Duration) -> String {
    let table = |title: &str, rx: bool| {
        let rows: Vec<Vec<String>> = sw
            .ports
            .iter()
            .map(|p| {
                let counters = if rx { &p.counters.pfc_rx } else { &p.counters.pfc_tx };
                std::iter::once(p.name.clone()).chain(counters.iter().map(|c| thousands(c.at(elapsed)))).collect()
            })
            .collect();
        let headers: Vec<String> = (0..8).map(|i| format!("PFC{i}")).collect();
        let mut h: Vec<&str> = vec![title];
        h.extend(headers.iter().map(String::as_str));
        tabulate(&h, &rows)
    };
    format!("{}\n{}", table("Port Rx", true), table("Port Tx", false))
}

/// `show queue counters`: one table per port, unicast queues then multicast ones.
pub(crate) fn queue_counters(sw: &LabSwitch, elapsed: Duration) -> String {
    let mut out = String::from("For namespace :\n");
    for p in &sw.ports {
        let c = &p.counters;
        let mut rows = Vec::new();
        for q in 0..8 {
            rows.push(vec![
                p.name.clone(),
                format!("UC{q}"),
                thousands(c.queue_tx_packets[q].at(elapsed)),
                thousands(c.queue_tx_bytes[q].at(elapsed)),
                thousands(c.queue_drops[q].at(elapsed)),
                thousands(c.queue_drops[q].at(elapsed) * 1024),
            ]);
        }
        for q in 8..16 {
            rows.push(vec![p.name.clone(), format!("MC{q}"), "0".into(), "0".into(), "0".into(), "0".into()]);
        }
        let _ = writeln!(
            out,
            "{}",
            tabulate(&["Port", "TxQ", "Counter/pkts", "Counter/bytes", "Drop/pkts", "Drop/bytes"], &rows)
        );
    }
    out
}
