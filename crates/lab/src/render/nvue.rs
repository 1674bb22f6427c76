//! NVIDIA Cumulus Linux 5.12 with NVUE: what a lab switch prints for `nv` and lldpd (every
//! other NVUE switch runs 5.15, whose `nv show qos roce` adds an `Extended Features` table).
//!
//! - `nv config show -o yaml`: the `- header` / `- set` list of the NVUE samples in the
//!   parser's fixtures (two-space block YAML, keys sorted, numeric keys quoted, `{}` for empty
//!   objects, ports of the same configuration folded into one key such as `swp1-64,66`).
//!   RoCE is on (`qos roce enable on, mode lossless`), and the `default-global` profiles state
//!   the lossless settings: PFC on switch priority 3, trust `l3` with DSCP 26 → 3 and 48 → 6,
//!   ECN on traffic class 3 (bytes), DWRR 50 % on TCs 0 and 3, TC 6 strict. A port that differs
//!   names a profile of its own (`qos pfc profile lossy`, `congestion-control profile ...`,
//!   `egress-scheduler profile cnp-dwrr`), as NVUE configures one port apart; the PFC watchdog is
//!   per port (`qos pfc-watchdog: {}`), and MTU and speed under `link`.
//! - `nv show qos roce`: the layout of the Cumulus 5.12 documentation sample (key/value part,
//!   then the PCP/DSCP->SP, SP->TC/ETS, pool and exception tables); sizes in NVUE's binary
//!   units (`150.00 KB`, `1.46 MB`).
//! - `nv show interface swpN qos roce counters`: the documentation sample's layout and counter
//!   names, the port's counters in them.
//! - `lldpcli show neighbors` / `lldpctl` (see `lldp`).
//!
//! Anything else: bash's `command not found` for other programs; for an `nv` command line the
//! lab does not know, or an interface the switch does not have, NVUE's error and status 1.

use super::lldp;
use super::switch_qos::lossless_weight;
use crate::build::{ECN_PROBABILITY, ROCE_QUEUE_WEIGHT};
use crate::design::Design;
use crate::shell::Output;
use crate::state::{EcnThresholds, Fabric, LabSwitch, SwitchPort};
use std::fmt::Write as _;
use std::time::Duration;

/// Runs a command (already split into words) on NVUE switch `me`.
pub(crate) fn exec(fabric: &Fabric, me: usize, args: &[String], elapsed: Duration) -> Output {
    let sw = &fabric.switches[me];
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    match words.as_slice() {
        ["nv", "config", "show", "-o", "yaml"] => Output::ok(config_yaml(&fabric.design, sw, release(fabric, sw))),
        ["nv", "show", "qos", "roce"] => Output::ok(show_qos_roce(&fabric.design, sw, release(fabric, sw))),
        ["nv", "show", "interface", port, "qos", "roce", "status"] => match sw.port(port) {
            Some(p) => Output::ok(roce_status(&fabric.design, sw, p)),
            None => Output::fail(1, "", "Error: The requested item does not exist.\n"),
        },
        ["nv", "show", "interface", port, "qos", "roce", "counters"] => match sw.port(port) {
            Some(p) => Output::ok(roce_counters(&fabric.design, p, elapsed)),
            None => Output::fail(1, "", "Error: The requested item does not exist.\n"),
        },
        ["nv", "show", "interface", port, "qos", "pfc-watchdog"] => match sw.port(port) {
            Some(p) => Output::ok(pfc_watchdog(&fabric.design, p)),
            None => Output::fail(1, "", "Error: The requested item does not exist.\n"),
        },
        ["nv", ..] => Output::fail(1, "", format!("Error: Invalid Command: {}\n", words.join(" "))),
        ["lldpcli", "show", "neighbors"] | ["lldpctl"] => {
            let entries = lldp::switch_entries(fabric, sw);
            Output::ok(lldp::lldpctl(entries.iter().filter_map(|(p, a)| a.as_ref().map(|a| (p.as_str(), a))), elapsed))
        }
        ["hostname"] => Output::ok(format!("{}\n", sw.name)),
        ["echo", rest @ ..] => Output::ok(format!("{}\n", rest.join(" "))),
        ["true"] => Output::ok(""),
        [] => Output::ok(""),
        [first, ..] => crate::shell::not_found(first),
    }
}

/// A YAML node.
enum Y {
    Map(Vec<(String, Y)>),
    Scalar(String),
}

fn map(entries: Vec<(&str, Y)>) -> Y {
    Y::Map(entries.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

fn s(v: impl ToString) -> Y {
    Y::Scalar(v.to_string())
}

fn empty() -> Y {
    Y::Map(Vec::new())
}

/// Writes `node`'s entries at `indent`.
fn emit(out: &mut String, node: &Y, indent: usize) {
    let Y::Map(entries) = node else { return };
    let mut entries: Vec<&(String, Y)> = entries.iter().collect();
    entries.sort_by_key(|e| natural(&e.0));
    for (k, v) in entries {
        let key = if k.chars().all(|c| c.is_ascii_digit()) { format!("'{k}'") } else { k.clone() };
        match v {
            Y::Scalar(s) => {
                let _ = writeln!(out, "{:indent$}{key}: {s}", "");
            }
            Y::Map(m) if m.is_empty() => {
                let _ = writeln!(out, "{:indent$}{key}: {{}}", "");
            }
            Y::Map(_) => {
                let _ = writeln!(out, "{:indent$}{key}:", "");
                emit(out, v, indent + 2);
            }
        }
    }
}

/// A sort key that orders `swp2` before `swp10` and `'6'` after `'3'`.
fn natural(key: &str) -> (String, u64, String) {
    let digits_at = key.find(|c: char| c.is_ascii_digit()).unwrap_or(key.len());
    let (prefix, rest) = key.split_at(digits_at);
    let end = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
    (prefix.to_string(), rest[..end].parse().unwrap_or(0), rest[end..].to_string())
}

/// The profiles a port names instead of `default-global`, by section.
#[derive(Debug, Clone, PartialEq)]
struct PortSettings {
    mtu: u32,
    speed_gbps: u32,
    up: bool,
    watchdog: bool,
    pfc: Option<String>,
    ecn: Option<String>,
    scheduler: Option<String>,
}

/// The PFC profile a port names when its priorities are not the design's.
fn pfc_profile(design: &Design, p: &SwitchPort) -> Option<String> {
    let prios: Vec<usize> = (0..8).filter(|&q| p.pfc[q]).collect();
    match prios.as_slice() {
        same if same == design.pfc_priorities() => None,
        [] => Some("lossy".into()),
        other => Some(format!("pfc-{}", other.iter().map(usize::to_string).collect::<Vec<_>>().join("-"))),
    }
}

/// The congestion-control profile a port names when its queues' ECN is not the design's: named
/// for the RoCE class's queue, the one the faults change.
fn ecn_profile(design: &Design, p: &SwitchPort) -> Option<String> {
    if p.ecn == design.queue_ecn() {
        return None;
    }
    match p.ecn[usize::from(design.roce().tc)] {
        Some(e) => Some(format!("ecn-{}-{}", e.min_bytes, e.max_bytes)),
        None => Some("ecn-off".into()),
    }
}

impl PortSettings {
    fn of(design: &Design, p: &SwitchPort) -> PortSettings {
        PortSettings {
            mtu: p.mtu,
            speed_gbps: p.speed_gbps,
            up: p.up,
            watchdog: p.pfc_watchdog,
            pfc: pfc_profile(design, p),
            ecn: ecn_profile(design, p),
            scheduler: (p.cnp_strict != design.cnp_strict()).then(|| "cnp-dwrr".to_string()),
        }
    }

    fn yaml(&self) -> Y {
        let state = if self.up { "up" } else { "down" };
        let link = map(vec![
            ("mtu", s(self.mtu)),
            ("speed", s(format!("{}G", self.speed_gbps))),
            ("state", map(vec![(state, empty())])),
        ]);
        let mut qos = Vec::new();
        let profile = |name: &String| map(vec![("profile", s(name))]);
        if let Some(p) = &self.pfc {
            qos.push(("pfc", profile(p)));
        }
        if let Some(p) = &self.ecn {
            qos.push(("congestion-control", profile(p)));
        }
        if let Some(p) = &self.scheduler {
            qos.push(("egress-scheduler", profile(p)));
        }
        if self.watchdog {
            qos.push(("pfc-watchdog", empty()));
        }
        let mut entries = vec![("link", link), ("type", s("swp"))];
        if !qos.is_empty() {
            entries.push(("qos", map(qos)));
        }
        map(entries)
    }
}

/// `swp1-4,6,8-9`: NVUE's folded key for these port numbers (ascending).
fn fold(numbers: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < numbers.len() {
        let start = numbers[i];
        let mut end = start;
        while i + 1 < numbers.len() && numbers[i + 1] == end + 1 {
            i += 1;
            end = numbers[i];
        }
        parts.push(if start == end { start.to_string() } else { format!("{start}-{end}") });
        i += 1;
    }
    format!("swp{}", parts.join(","))
}

fn ecn_settings(e: Option<EcnThresholds>) -> Y {
    match e {
        Some(e) => map(vec![
            ("ecn", s("enable")),
            ("max-threshold", s(e.max_bytes)),
            ("min-threshold", s(e.min_bytes)),
            ("probability", s(ECN_PROBABILITY)),
        ]),
        None => map(vec![("ecn", s("disable"))]),
    }
}

fn dwrr(weight: u32) -> Y {
    map(vec![("bw-percent", s(weight)), ("mode", s("dwrr"))])
}

/// The bandwidth percent of TC 0, the default class: what the lossless queues and a weighted CNP
/// queue leave.
fn default_weight(design: &Design) -> u32 {
    let cnp = if design.cnp_strict() { 0 } else { CNP_WEIGHT };
    100 - lossless_weight(design) * design.lossless_tcs().len() as u32 - cnp
}

/// The bandwidth percent of a weighted CNP queue.
const CNP_WEIGHT: u32 = 10;

/// The `default-global` egress schedulers: TC 0 and the lossless TCs DWRR, the CNP TC strict
/// or DWRR.
fn default_schedulers(design: &Design) -> Y {
    let mut tcs = vec![("0".to_string(), dwrr(default_weight(design)))];
    for tc in design.lossless_tcs() {
        tcs.push((tc.to_string(), dwrr(lossless_weight(design))));
    }
    if let Some(cnp) = design.cnp {
        let how = if cnp.strict { map(vec![("mode", s("strict"))]) } else { dwrr(CNP_WEIGHT) };
        tcs.push((cnp.tc.to_string(), how));
    }
    map(vec![("traffic-class", Y::Map(tcs))])
}

/// The `default-global` egress queue mapping: RoCE mode puts switch priorities 3 and 6 on their
/// own traffic classes and the rest on 0, so a design's class on another priority is mapped.
fn queue_mapping(design: &Design) -> Option<Y> {
    let classes = design.lossless_tcs().into_iter().chain(design.cnp.map(|c| usize::from(c.tc)));
    let moved: Vec<(String, Y)> = classes
        .filter(|tc| ![3, 6].contains(tc))
        .map(|tc| (tc.to_string(), map(vec![("traffic-class", s(tc))])))
        .collect();
    (!moved.is_empty()).then(|| map(vec![("default-global", map(vec![("switch-priority", Y::Map(moved))]))]))
}

/// A congestion-control profile's traffic classes: each lossless TC with `ecn` of its queue.
fn ecn_tcs(design: &Design, ecn: &[Option<EcnThresholds>; 8]) -> Vec<(String, Y)> {
    design.lossless_tcs().into_iter().map(|tc| (tc.to_string(), ecn_settings(ecn[tc]))).collect()
}

/// `nv config show -o yaml`.
pub(crate) fn config_yaml(design: &Design, sw: &LabSwitch, release: &str) -> String {
    // Ports of the same settings share one folded key, in port order.
    let mut groups: Vec<(PortSettings, Vec<usize>)> = Vec::new();
    for p in &sw.ports {
        let n: usize = p.name.trim_start_matches("swp").parse().unwrap_or(0);
        let settings = PortSettings::of(design, p);
        match groups.iter_mut().find(|(s, _)| *s == settings) {
            Some((_, ns)) => ns.push(n),
            None => groups.push((settings, vec![n])),
        }
    }
    let mut interfaces = vec![
        (
            "eth0".to_string(),
            map(vec![
                ("ip", map(vec![("address", map(vec![(format!("{}/24", sw.mgmt_ipv4).as_str(), empty())]))])),
                ("type", s("eth")),
                ("vrf", s("mgmt")),
            ]),
        ),
        (
            "lo".to_string(),
            map(vec![
                (
                    "ip",
                    map(vec![(
                        "address",
                        map(vec![(format!("10.10.{}.{}/32", sw.mac[4], sw.mac[5]).as_str(), empty())]),
                    )]),
                ),
                ("type", s("loopback")),
            ]),
        ),
    ];
    let mut congestion = vec![(
        "default-global".to_string(),
        map(vec![("traffic-class", Y::Map(ecn_tcs(design, &design.queue_ecn())))]),
    )];
    let priorities = design.pfc_priorities().iter().map(|p| (p.to_string(), empty())).collect();
    let mut pfc = vec![("default-global".to_string(), map(vec![("switch-priority", Y::Map(priorities))]))];
    let mut schedulers = vec![("default-global".to_string(), default_schedulers(design))];
    for (settings, numbers) in &groups {
        interfaces.push((fold(numbers), settings.yaml()));
        if let Some(name) = &settings.pfc
            && !pfc.iter().any(|(n, _)| n == name)
        {
            let prios: Vec<(String, Y)> = sw
                .ports
                .iter()
                .find(|p| pfc_profile(design, p).as_ref() == Some(name))
                .map(|p| (0..8).filter(|&q| p.pfc[q]).map(|q| (q.to_string(), empty())).collect())
                .unwrap_or_default();
            let profile = if prios.is_empty() {
                map(vec![("rx", s("disable")), ("tx", s("disable"))])
            } else {
                Y::Map(vec![("switch-priority".into(), Y::Map(prios))])
            };
            pfc.push((name.clone(), profile));
        }
        if let Some(name) = &settings.ecn
            && !congestion.iter().any(|(n, _)| n == name)
        {
            // A port profile replaces the default one whole: it restates TC 0's (RoCE mode's
            // default) marking so that only the RoCE class differs.
            let ecn =
                sw.ports.iter().find(|p| ecn_profile(design, p).as_ref() == Some(name)).map_or([None; 8], |p| p.ecn);
            let tc0 = ecn_settings(Some(EcnThresholds { min_bytes: 150_000, max_bytes: 1_500_000 }));
            let mut tcs = vec![("0".to_string(), tc0)];
            tcs.extend(ecn_tcs(design, &ecn));
            congestion.push((name.clone(), map(vec![("traffic-class", Y::Map(tcs))])));
        }
        if let Some(name) = &settings.scheduler
            && !schedulers.iter().any(|(n, _)| n == name)
        {
            let tcs = map(vec![
                ("0", dwrr(ROCE_QUEUE_WEIGHT)),
                ("3", dwrr(ROCE_QUEUE_WEIGHT)),
                ("6", map(vec![("mode", s("dwrr"))])),
            ]);
            schedulers.push((name.clone(), map(vec![("traffic-class", tcs)])));
        }
    }
    let named = design.named_dscps();
    let mut dscp = Vec::new();
    for (d, &tc) in sw.dscp_to_tc.iter().enumerate() {
        if named.contains(&d) || tc as usize != d / 8 {
            dscp.push((d.to_string(), map(vec![("switch-priority", s(tc))])));
        }
    }
    let mut qos = vec![
        ("congestion-control", Y::Map(congestion)),
        ("egress-scheduler", Y::Map(schedulers)),
        ("mapping", map(vec![("default-global", map(vec![("dscp", Y::Map(dscp)), ("trust", s("l3"))]))])),
        ("pfc", Y::Map(pfc)),
        ("roce", map(vec![("enable", s("on")), ("mode", s("lossless"))])),
    ];
    if let Some(m) = queue_mapping(design) {
        qos.push(("egress-queue-mapping", m));
    }
    let qos = map(qos);
    let set =
        map(vec![("interface", Y::Map(interfaces)), ("qos", qos), ("system", map(vec![("hostname", s(&sw.name))]))]);
    let header = map(vec![
        ("model", s("SN5600")),
        ("nvue-api-version", s("nvue_v1")),
        ("rev-id", s("1.0")),
        ("version", s(format!("Cumulus Linux {release}"))),
    ]);
    let mut out = String::from("- header:\n");
    emit(&mut out, &header, 4);
    out.push_str("- set:\n");
    emit(&mut out, &set, 4);
    out
}

/// A size as NVUE prints it: `0 Bytes`, `144 Bytes`, `146.48 KB`, `1.43 MB`, `92824.38 GB`.
pub(crate) fn size(bytes: u64) -> String {
    let b = bytes as f64;
    if bytes < 1024 {
        format!("{bytes} Bytes")
    } else if b < 1024.0 * 1024.0 {
        format!("{:.2} KB", b / 1024.0)
    } else if b < 1024.0 * 1024.0 * 1024.0 {
        format!("{:.2} MB", b / (1024.0 * 1024.0))
    } else {
        format!("{:.2} GB", b / (1024.0 * 1024.0 * 1024.0))
    }
}

/// Lays out the key/value part of an `nv show` output: (indent level, key, operational,
/// applied, description); a row without values is a group.
fn key_values(rows: &[(usize, &str, String, String, &str)], description: bool) -> String {
    let key_w = rows.iter().map(|(d, k, ..)| 2 * d + k.len()).max().unwrap_or(0);
    let op_w = rows.iter().map(|r| r.2.len()).fold("operational".len(), usize::max);
    let ap_w = rows.iter().map(|r| r.3.len()).fold("applied".len(), usize::max);
    let de_w = rows.iter().map(|r| r.4.len()).fold("description".len(), usize::max);
    let mut out = String::new();
    let mut head = format!("{:key_w$}  {:op_w$}  {:ap_w$}", "", "operational", "applied");
    let mut rule = format!("{}  {}  {}", "-".repeat(key_w), "-".repeat(op_w), "-".repeat(ap_w));
    if description {
        let _ = write!(head, "  description");
        let _ = write!(rule, "  {}", "-".repeat(de_w));
    }
    let _ = writeln!(out, "{}\n{rule}", head.trim_end());
    for (depth, key, op, ap, de) in rows {
        let k = format!("{:indent$}{key}", "", indent = 2 * depth);
        let mut line = if op.is_empty() && ap.is_empty() && de.is_empty() {
            k
        } else {
            format!("{k:key_w$}  {op:op_w$}  {ap:ap_w$}")
        };
        if description && !de.is_empty() {
            let _ = write!(line, "  {de}");
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out
}

/// A titled table of `nv show`: rows numbered in a right-aligned first column.
fn titled(title: &str, headers: &[&str], rows: &[(String, Vec<String>)]) -> String {
    let label_w = rows.iter().map(|(l, _)| l.len()).max().unwrap_or(1).max(1) + 4;
    let widths: Vec<usize> = headers
        .iter()
        .enumerate()
        .map(|(i, h)| rows.iter().map(|(_, r)| r[i].len()).fold(h.len(), usize::max))
        .collect();
    let mut out = format!("{title}\n{}\n", "=".repeat(title.len() + 3));
    let cells = |label: &str, cells: &mut dyn Iterator<Item = &str>| {
        let parts: Vec<String> = cells.zip(&widths).map(|(c, w)| format!("{c:w$}")).collect();
        format!("{label:>label_w$}  {}", parts.join("  ")).trim_end().to_string()
    };
    let _ = writeln!(out, "{}", cells("", &mut headers.iter().copied()));
    let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    let _ = writeln!(out, "{}", cells("-", &mut rule.iter().map(String::as_str)));
    for (label, row) in rows {
        let _ = writeln!(out, "{}", cells(label, &mut row.iter().map(String::as_str)));
    }
    out
}

/// The Cumulus Linux release `sw` runs: every other NVUE switch of the lab runs 5.15, whose
/// `nv show qos roce` ends with an `Extended Features` table; the others 5.12.
pub(crate) fn release(fabric: &Fabric, sw: &LabSwitch) -> &'static str {
    if fabric.other_generation(sw) { "5.15.0" } else { "5.12.0" }
}

/// The ECN thresholds NVUE documents for RoCE mode, which `nv show qos roce` reports for TC 0
/// when no lossless class marks.
const NVUE_DEFAULT_ECN: EcnThresholds = EcnThresholds { min_bytes: 150 * 1024, max_bytes: 1500 * 1024 };

/// `nv show qos roce`: the switch-wide (`default-global`) RoCE settings.
pub(crate) fn show_qos_roce(design: &Design, sw: &LabSwitch, release: &str) -> String {
    let marking: Vec<usize> = design.lossless_tcs().into_iter().filter(|&tc| design.ecn_of_tc(tc).is_some()).collect();
    let e = marking.first().and_then(|&tc| design.ecn_of_tc(tc)).unwrap_or(NVUE_DEFAULT_ECN);
    let enabled_tc: Vec<String> = std::iter::once(0).chain(marking).map(|tc| tc.to_string()).collect();
    let lossless_prios: Vec<String> = design.pfc_priorities().iter().map(usize::to_string).collect();
    let roce_priority = design.roce().priority.to_string();
    let rows: Vec<(usize, &str, String, String, &str)> = vec![
        (0, "enable", String::new(), "on".into(), ""),
        (0, "mode", "lossless".into(), "lossless".into(), ""),
        (0, "pfc", String::new(), String::new(), ""),
        (1, "pfc-priority", lossless_prios.join(","), String::new(), ""),
        (1, "rx-enabled", "enabled".into(), String::new(), ""),
        (1, "tx-enabled", "enabled".into(), String::new(), ""),
        (1, "cable-length", "100".into(), String::new(), ""),
        (0, "congestion-control", String::new(), String::new(), ""),
        (1, "congestion-mode", "ECN".into(), String::new(), ""),
        (1, "enabled-tc", enabled_tc.join(","), String::new(), ""),
        (1, "min-threshold", size(e.min_bytes), String::new(), ""),
        (1, "max-threshold", size(e.max_bytes), String::new(), ""),
        (1, "probability", ECN_PROBABILITY.to_string(), String::new(), ""),
        (0, "trust", String::new(), String::new(), ""),
        (1, "trust-mode", "dscp".into(), String::new(), ""),
        (0, "lldp-app-tlv", String::new(), String::new(), ""),
        (1, "priority", roce_priority, String::new(), ""),
        (1, "protocol-id", "4791".into(), String::new(), ""),
        (1, "selector", "UDP".into(), String::new(), ""),
    ];
    let mut out = key_values(&rows, false);
    // Switch priority of each DSCP is its TC here: RoCE mode maps SP 3 → TC 3, 6 → 6, and the
    // egress queue mapping the design's other classes.
    let classification: Vec<(String, Vec<String>)> = (0..8u8)
        .map(|sp| {
            let dscps: Vec<String> = (0..64).filter(|&d| sw.dscp_to_tc[d] == sp).map(|d| d.to_string()).collect();
            let dscps = if dscps.is_empty() { "-".to_string() } else { dscps.join(",") };
            (sp.to_string(), vec![sp.to_string(), dscps, sp.to_string()])
        })
        .collect();
    out.push_str(&titled("RoCE PCP/DSCP->SP mapping configurations", &["pcp", "dscp", "switch-prio"], &classification));
    let lossless = design.lossless_tcs();
    let cnp_tc = design.cnp.map(|c| usize::from(c.tc));
    let scheduling: Vec<(String, Vec<String>)> = (0..8usize)
        .map(|sp| {
            let tc = if lossless.contains(&sp) || cnp_tc == Some(sp) { sp } else { 0 };
            let weight = match design.cnp {
                Some(c) if usize::from(c.tc) == tc && c.strict => "strict-priority".to_string(),
                Some(c) if usize::from(c.tc) == tc => format!("DWRR-{CNP_WEIGHT}%"),
                _ if lossless.contains(&tc) => format!("DWRR-{}%", lossless_weight(design)),
                _ => format!("DWRR-{}%", default_weight(design)),
            };
            (sp.to_string(), vec![sp.to_string(), tc.to_string(), weight])
        })
        .collect();
    out.push_str(&titled(
        "RoCE SP->TC mapping and ETS configurations",
        &["switch-prio", "traffic-class", "scheduler-weight"],
        &scheduling,
    ));
    let pool = |label: &str, cells: [&str; 5]| (label.to_string(), cells.iter().map(|c| c.to_string()).collect());
    let list = |v: Vec<usize>| v.iter().map(usize::to_string).collect::<Vec<_>>().join(",");
    let lossy_prios = list((0..8).filter(|&p| !design.is_lossless(p)).collect());
    let lossy_tcs = list(std::iter::once(0).chain(cnp_tc).collect());
    let (lossless_prios, lossless_tcs) = (list(design.pfc_priorities()), list(lossless.clone()));
    let pools = vec![
        pool("0", ["lossy-default-ingress", "Dynamic", "50%", &lossy_prios, "-"]),
        pool("1", ["roce-reserved-ingress", "Dynamic", "50%", &lossless_prios, "-"]),
        pool("2", ["lossy-default-egress", "Dynamic", "50%", "-", &lossy_tcs]),
        pool("3", ["roce-reserved-egress", "Dynamic", "inf", "-", &lossless_tcs]),
    ];
    out.push_str(&titled("RoCE pool config", &["name", "mode", "size", "switch-priorities", "traffic-class"], &pools));
    out.push_str("Exception List\n=================\nNo Data\n");
    if release.starts_with("5.15") {
        // As the Cumulus 5.15 documentation prints it (fixtures/nvue_roce).
        out.push_str("\nExtended Features\n====================\n    Feature      Status\n    -----------  -------\n    packet-trim  disabled\n");
    }
    out
}

/// `nv show interface IF qos roce status`: the port's operational RoCE settings, in the layout of
/// the Cumulus 5.12 docs' sample (fixtures/nvue_roce_status): key/value rows, then the class
/// tables and the pool status. ECN off leaves the congestion-control block out.
pub(crate) fn roce_status(design: &Design, sw: &LabSwitch, p: &SwitchPort) -> String {
    let mut rows: Vec<(usize, &str, String, String, &str)> = Vec::new();
    let marking: Vec<usize> = design.lossless_tcs().into_iter().filter(|&tc| p.ecn[tc].is_some()).collect();
    if let Some(e) = marking.first().and_then(|&tc| p.ecn[tc]) {
        let enabled: Vec<String> = std::iter::once(0).chain(marking).map(|tc| tc.to_string()).collect();
        rows.push((0, "congestion-control", String::new(), String::new(), ""));
        rows.push((1, "congestion-mode", "ecn, absolute".into(), String::new(), "Congestion config mode"));
        rows.push((1, "enabled-tc", enabled.join(","), String::new(), "Congestion config enabled Traffic Class"));
        rows.push((1, "max-threshold", size(e.max_bytes), String::new(), "Congestion config max-threshold"));
        rows.push((1, "min-threshold", size(e.min_bytes), String::new(), "Congestion config min-threshold"));
        rows.push((1, "probability", ECN_PROBABILITY.to_string(), String::new(), ""));
    }
    let lossless: Vec<String> = (0..8).filter(|&i| p.pfc[i]).map(|i| i.to_string()).collect();
    let on = if lossless.is_empty() { "no" } else { "yes" };
    rows.push((0, "pfc", String::new(), String::new(), ""));
    if !lossless.is_empty() {
        rows.push((1, "pfc-priority", lossless.join(","), String::new(), "switch-prio on which PFC is enabled"));
    }
    rows.push((1, "rx-enabled", on.into(), String::new(), "PFC Rx Enabled status"));
    rows.push((1, "tx-enabled", on.into(), String::new(), "PFC Tx Enabled status"));
    rows.push((0, "trust", String::new(), String::new(), ""));
    rows.push((
        1,
        "trust-mode",
        "pcp,dscp".into(),
        String::new(),
        "Trust Setting on the port for packet classification",
    ));
    rows.push((0, "mode", "lossless".into(), String::new(), "Roce Mode"));
    let mut out = format!("cumulus@{}:mgmt:~$ nv show interface {} qos roce status\n", sw.name, p.name);
    out.push_str(&key_values(&rows, true));
    out.push_str(" \n \n");
    // The RoCE class's row: its DSCPs that share the first one's switch priority.
    let roce = design.roce();
    let sp = sw.dscp_to_tc[usize::from(roce.dscps[0])];
    let dscps: Vec<String> =
        roce.dscps.iter().filter(|&&d| sw.dscp_to_tc[usize::from(d)] == sp).map(u8::to_string).collect();
    let mut mapping = Vec::new();
    let mut ets = Vec::new();
    if let Some(cnp) = design.cnp {
        let tc = cnp.tc.to_string();
        let sp = sw.dscp_to_tc[usize::from(cnp.dscp)].to_string();
        mapping.push(("cnp".to_string(), vec![tc.clone(), cnp.dscp.to_string(), sp]));
        let weight = if p.cnp_strict { "strict priority".to_string() } else { format!("dwrr-{ROCE_QUEUE_WEIGHT}%") };
        ets.push(("cnp".to_string(), vec![tc.clone(), tc, weight]));
    }
    mapping.push(("roce".to_string(), vec![roce.priority.to_string(), dscps.join(","), sp.to_string()]));
    ets.push((
        "roce".to_string(),
        vec![roce.priority.to_string(), roce.tc.to_string(), format!("dwrr-{}%", lossless_weight(design))],
    ));
    out.push_str(&titled("RoCE PCP/DSCP->SP mapping configurations", &["pcp", "dscp", "switch-prio"], &mapping));
    out.push_str(" \n \n");
    out.push_str(&titled(
        "RoCE SP->TC mapping and ETS configurations",
        &["switch-prio", "traffic-class", "scheduler-weight"],
        &ets,
    ));
    out
}

/// `nv show interface IF qos pfc-watchdog`, in the layout of Cumulus 5.12's QoS guide: the RoCE
/// class in `DEADLOCK` with one deadlock counted while pause frames race in (`pfc-storm`).
pub(crate) fn pfc_watchdog(design: &Design, p: &SwitchPort) -> String {
    let (prio, tc) = (usize::from(design.roce().priority), usize::from(design.roce().tc));
    let state = if p.pfc_watchdog { "enabled" } else { "disabled" };
    let mut s = format!(
        "                 operational  applied \n---------------  -----------  ------- \nstate            {state:<11}  {state:<7} \n\n"
    );
    if p.pfc_watchdog {
        s.push_str("PFC WD Status \n=========================== \n    traffic-class  status    deadlock-count \n    -------------  --------  -------------- \n\n");
        let storm = p.counters.pfc_rx[prio].per_s > 10_000;
        for class in 0..8 {
            let (status, count) = if storm && class == tc { ("DEADLOCK", 1) } else { ("OK", 0) };
            s.push_str(&format!("    {class:<13}  {status:<8}  {count} \n"));
        }
    }
    s
}

/// `nv show interface IF qos roce counters`.
pub(crate) fn roce_counters(design: &Design, p: &SwitchPort, elapsed: Duration) -> String {
    let c = &p.counters;
    let at = |c: &crate::state::Counter| c.at(elapsed);
    let (prio, tc) = (usize::from(design.roce().priority), usize::from(design.roce().tc));
    // Without a CNP class the CNP counters count what reaches the firmware's CNP class: nothing.
    let cnp = design.cnp.map_or(6, |c| usize::from(c.tc));
    let (roce_pkts, roce_bytes) = (at(&c.queue_tx_packets[tc]), at(&c.queue_tx_bytes[tc]));
    let (cnp_pkts, cnp_bytes) = (at(&c.queue_tx_packets[cnp]), at(&c.queue_tx_bytes[cnp]));
    let (other_pkts, other_bytes) = (at(&c.queue_tx_packets[0]), at(&c.queue_tx_bytes[0]));
    let n = |v: u64| v.to_string();
    let rows: Vec<(usize, &str, String, String, &str)> = vec![
        (0, "rx-stats", String::new(), String::new(), ""),
        (1, "rx-non-roce-stats", String::new(), String::new(), ""),
        (2, "buffer-max-usage", size(144), String::new(), "Max Ingress Pool-buffer usage for non-RoCE traffic"),
        (2, "buffer-usage", size(0), String::new(), "Current Ingress Pool-buffer usage for non-RoCE traffic"),
        (2, "no-buffer-discard", n(0), String::new(), "Rx buffer discards for non-RoCE traffic"),
        (2, "non-roce-bytes", size(other_bytes), String::new(), "non-roce rx bytes"),
        (2, "non-roce-packets", n(other_pkts), String::new(), "non-roce rx packets"),
        (2, "pg-max-usage", size(144), String::new(), "Max PG-buffer usage for non-RoCE traffic"),
        (2, "pg-usage", size(0), String::new(), "Current PG-buffer usage for non-RoCE traffic"),
        (1, "rx-pfc-stats", String::new(), String::new(), ""),
        (2, "pause-duration", n(at(&c.pfc_rx[prio]) * 3), String::new(), "Rx PFC pause duration for RoCE traffic"),
        (2, "pause-packets", n(at(&c.pfc_rx[prio])), String::new(), "Rx PFC pause packets for RoCE traffic"),
        (1, "rx-roce-stats", String::new(), String::new(), ""),
        (2, "buffer-max-usage", size(1_245_184), String::new(), "Max Ingress Pool-buffer usage for RoCE traffic"),
        (2, "buffer-usage", size(0), String::new(), "Current Ingress Pool-buffer usage for RoCE traffic"),
        (2, "no-buffer-discard", n(0), String::new(), "Rx buffer discards for RoCE traffic"),
        (2, "pg-max-usage", size(1_245_184), String::new(), "Max PG-buffer usage for RoCE traffic"),
        (2, "pg-usage", size(0), String::new(), "Current PG-buffer usage for RoCE traffic"),
        (2, "roce-bytes", size(roce_bytes), String::new(), "Rx RoCE Bytes"),
        (2, "roce-packets", n(roce_pkts), String::new(), "Rx RoCE Packets"),
        (0, "tx-stats", String::new(), String::new(), ""),
        (1, "tx-cnp-stats", String::new(), String::new(), ""),
        (2, "buffer-max-usage", size(16_797_696), String::new(), "Max Egress Pool-buffer usage for CNP traffic"),
        (2, "buffer-usage", size(0), String::new(), "Current Egress Pool-buffer usage for CNP traffic"),
        (2, "cnp-bytes", size(cnp_bytes), String::new(), "Tx CNP Packet Bytes"),
        (2, "cnp-packets", n(cnp_pkts), String::new(), "Tx CNP Packets"),
        (2, "tc-max-usage", size(0), String::new(), "Max TC-buffer usage for CNP traffic"),
        (2, "tc-usage", size(0), String::new(), "Current TC-buffer usage for CNP traffic"),
        (
            2,
            "unicast-no-buffer-discard",
            n(at(&c.queue_drops[cnp])),
            String::new(),
            "Tx buffer discards for CNP traffic",
        ),
        (1, "tx-ecn-stats", String::new(), String::new(), ""),
        (2, "ecn-marked-packets", n(at(&c.ecn_marked)), String::new(), "Tx ECN marked packets"),
        (1, "tx-pfc-stats", String::new(), String::new(), ""),
        (2, "pause-duration", n(at(&c.pfc_tx[prio]) * 3), String::new(), "Tx PFC pause duration for RoCE traffic"),
        (2, "pause-packets", n(at(&c.pfc_tx[prio])), String::new(), "Tx PFC pause packets for RoCE traffic"),
        (1, "tx-roce-stats", String::new(), String::new(), ""),
        (2, "buffer-max-usage", size(14_123_456), String::new(), "Max Egress Pool-buffer usage for RoCE traffic"),
        (2, "buffer-usage", size(7_643_136), String::new(), "Current Egress Pool-buffer usage for RoCE traffic"),
        (2, "roce-bytes", size(roce_bytes), String::new(), "Tx RoCE Packet bytes"),
        (2, "roce-packets", n(roce_pkts), String::new(), "Tx RoCE Packets"),
        (2, "tc-max-usage", size(16_797_696), String::new(), "Max TC-buffer usage for RoCE traffic"),
        (2, "tc-usage", size(7_643_136), String::new(), "Current TC-buffer usage for RoCE traffic"),
        (
            2,
            "unicast-no-buffer-discard",
            n(at(&c.queue_drops[tc])),
            String::new(),
            "Tx buffer discards for RoCE traffic",
        ),
    ];
    key_values(&rows, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_fold_and_layout_like_nvue() {
        assert_eq!(size(150_000), "146.48 KB");
        assert_eq!(size(144), "144 Bytes");
        assert_eq!(size(0), "0 Bytes");
        assert_eq!(size(1_500_000), "1.43 MB");
        assert_eq!(fold(&[1, 2, 3, 4, 6, 8, 9]), "swp1-4,6,8-9");
        assert_eq!(fold(&[5]), "swp5");
        let sample = include_str!(
            "../../../parse/tests/fixtures/nvue_roce_counters/cumulus-5.12-nv-show-interface-qos-roce-counters-docs.txt"
        );
        let head: Vec<&str> = sample.lines().skip(1).take(5).collect();
        let rows = vec![
            (0, "rx-stats", String::new(), String::new(), ""),
            (1, "rx-non-roce-stats", String::new(), String::new(), ""),
            (
                2,
                "buffer-max-usage",
                "144 Bytes".to_string(),
                String::new(),
                "Max Ingress Pool-buffer usage for non-RoCE traffic",
            ),
            (
                2,
                "unicast-no-buffer-discard",
                "693777677344".to_string(),
                String::new(),
                "Tx buffer discards for non-RoCE traffic",
            ),
        ];
        let ours = key_values(&rows, true);
        let ours: Vec<&str> = ours.lines().collect();
        assert_eq!(ours[0], head[0]);
        assert_eq!(ours[4], head[4]);
    }
}

#[cfg(test)]
mod status_tests {
    use super::*;
    use crate::state::Platform;

    #[test]
    fn both_releases_of_show_qos_roce_parse_back_alike() {
        let fabric = crate::build::build_fabric(4, 8, 2);
        let nvue: Vec<&LabSwitch> = fabric.switches.iter().filter(|s| s.platform == Platform::Nvue).collect();
        assert!(nvue.len() >= 2, "the lab has two NVUE switches at least");
        let read = |sw: &LabSwitch| {
            let text = show_qos_roce(&fabric.design, sw, release(&fabric, sw));
            let parsed = fabcheck_parse::nvue::roce::parse(&text).unwrap();
            assert!(parsed.warnings.is_empty(), "{:?}\n{text}", parsed.warnings);
            parsed.value
        };
        let (older, newer) = (read(nvue[0]), read(nvue[1]));
        assert_eq!(release(&fabric, nvue[1]), "5.15.0");
        // What LLDP advertises names the same release.
        let descr = |sw: &LabSwitch| super::super::lldp::sys_descr(&fabric, sw);
        assert_eq!(descr(nvue[0]), "Cumulus Linux version 5.12.0 running on Nvidia SN5600");
        assert_eq!(descr(nvue[1]), "Cumulus Linux version 5.15.0 running on Nvidia SN5600");
        assert!(older.extended_features.is_empty());
        assert_eq!(newer.extended_features.get("packet-trim").map(String::as_str), Some("disabled"));
        assert_eq!((older.pfc_priorities.clone(), older.ecn_min_bytes), (newer.pfc_priorities, newer.ecn_min_bytes));
    }

    #[test]
    fn roce_status_parses_back_for_a_healthy_and_a_faulted_port() {
        let fabric = crate::build::build_fabric(4, 3, 1);
        let sw = fabric.switches.iter().find(|s| s.platform == Platform::Nvue).unwrap();
        let mut port = sw.ports[0].clone();
        let healthy =
            fabcheck_parse::nvue::roce_status::parse_for(&port.name, &roce_status(&fabric.design, sw, &port)).unwrap();
        assert!(healthy.warnings.is_empty(), "{:?}\n{}", healthy.warnings, roce_status(&fabric.design, sw, &port));
        let q = healthy.value;
        assert_eq!(q.lossless_priorities, Some(vec![3]));
        assert_eq!((q.dscp_to_tc.get(&26), q.dscp_to_tc.get(&48)), (Some(&3), Some(&6)));
        assert_eq!(q.queues[&6].scheduler, Some(fabcheck_parse::switch::Scheduler::Strict));
        assert!(q.queues[&3].ecn.as_ref().is_some_and(|e| e.enabled));
        port.pfc = [false; 8];
        port.cnp_strict = false;
        port.ecn = [None; 8];
        let faulted = fabcheck_parse::nvue::roce_status::parse_for(&port.name, &roce_status(&fabric.design, sw, &port))
            .unwrap()
            .value;
        assert_eq!(faulted.lossless_priorities, Some(vec![]));
        assert_ne!(faulted.queues[&6].scheduler, Some(fabcheck_parse::switch::Scheduler::Strict));
        assert!(faulted.queues.get(&3).is_none_or(|q| q.ecn.as_ref().is_none_or(|e| !e.enabled)));
    }

    #[test]
    fn the_watchdog_parses_back_quiet_and_in_a_storm() {
        let fabric = crate::build::build_fabric(4, 3, 1);
        let sw = fabric.switches.iter().find(|s| s.platform == Platform::Nvue).unwrap();
        let mut port = sw.ports[0].clone();
        let quiet = fabcheck_parse::nvue::pfc_watchdog::parse(&pfc_watchdog(&fabric.design, &port)).unwrap();
        assert!(quiet.warnings.is_empty(), "{:?}", quiet.warnings);
        assert_eq!(quiet.value.state.as_deref(), Some("enabled"));
        assert!(quiet.value.classes.values().all(|c| !c.deadlock && c.deadlock_count == 0));
        port.counters.pfc_rx[3].per_s = 50_000;
        let storm = fabcheck_parse::nvue::pfc_watchdog::parse(&pfc_watchdog(&fabric.design, &port)).unwrap().value;
        assert_eq!(
            storm.classes[&3],
            fabcheck_parse::nvue::pfc_watchdog::ClassWatchdog { deadlock: true, deadlock_count: 1 }
        );
    }
}
