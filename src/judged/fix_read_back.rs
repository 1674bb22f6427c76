//! Each switch fix applied to a faulty configuration and read back: the lab renders a platform's
//! configuration with a fault (crates/lab), the port check finds it, the printed fix is applied
//! to that text as the device would take it, and fabcheck's own parser reads the result, in
//! which the port must pass. A fix whose syntax the parser does not read as meant, or that
//! leaves the port faulty, fails here.
//!
//! How a fix is applied, per platform (each the documented behaviour of its commands):
//! - EOS, NX-OS, OS10: configuration lines entered in their modes change the running-config's
//!   tree: a line enters or adds its node under the mode it is indented into, replaces the
//!   setting it restates with another value (`mtu 1500` → `mtu 4200`, `... mode off` → `... mode
//!   on`), removes its own `no` form, and `no LINE` removes it;
//! - SONiC: `config interface pfc priority` adds or removes the priority in `PORT_QOS_MAP|port`
//!   `pfc_enable`, `config interface mtu` sets `PORT|port` `mtu` (sonic-utilities config/main.py),
//!   `pfcwd start` writes `PFC_WD|port` and `pfcwd big_red_switch` `PFC_WD|GLOBAL` (pfcwd/main.py),
//!   `sonic-db-cli CONFIG_DB hset` sets the fields;
//! - NVUE: `nv set`/`nv unset` paths are the configuration tree's keys (the NVUE Command
//!   Reference: the YAML of `nv config show` is the tree the commands set), the last word a value
//!   where the schema has an attribute (`mtu`, `trust`, thresholds) and a key otherwise.

use crate::check::fixes::switch::attach_switch;
use crate::check::fixes::switch::cli::is_session_word;
use crate::check::switch::port;
use crate::facts::SwitchFacts;
use crate::policy::Policy;
use fabcheck_lab::build::build_fabric_with_platforms;
use fabcheck_lab::faults::{Fault, apply_to_fabric};
use fabcheck_lab::state::Platform;
use fabcheck_model::switch::SwitchQos;
use serde_json::{Map, Value};
use std::time::Duration;

/// The configuration command of each platform (src/platform).
fn config_command(platform: Platform) -> &'static str {
    match platform {
        Platform::Sonic => "show runningconfiguration all",
        Platform::Eos | Platform::Nxos => "show running-config",
        Platform::Nvue => "nv config show -o yaml",
        Platform::DellOs10 => "show running-configuration",
    }
}

/// The model fabcheck reads from a platform's configuration text.
fn read(platform: Platform, text: &str) -> SwitchQos {
    use fabcheck_parse as p;
    match platform {
        Platform::Sonic => p::sonic::convert::to_model(&p::sonic::config_db::parse(text).expect("parses").value),
        Platform::Eos => p::eos::convert::to_model(&p::eos::running_config::parse(text).expect("parses").value),
        Platform::Nvue => p::nvue::convert::to_model(&p::nvue::config::parse(text).expect("parses").value).value,
        Platform::Nxos => p::nxos::convert::to_model(&p::nxos::running_config::parse(text).expect("parses").value),
        Platform::DellOs10 => {
            p::dell_os10::convert::to_model(&p::dell_os10::running_config::parse(text).expect("parses").value)
        }
    }
}

fn policy() -> Policy {
    Policy::parse(crate::policy::DEFAULT_POLICY, "built-in").unwrap()
}

/// The ports of `text` with a `code` finding, each with its findings (fixes attached).
fn failing(platform: Platform, text: &str, code: &str) -> Vec<(String, Vec<fabcheck_model::Finding>)> {
    let facts = SwitchFacts { platform: platform.name(), qos: read(platform, text), ..SwitchFacts::default() };
    let policy = policy();
    let ports: Vec<String> = facts.qos.ports.keys().cloned().collect();
    ports
        .into_iter()
        .filter_map(|name| {
            let mut found: Vec<_> =
                port::check("leaf1", &name, &facts, &policy, None).into_iter().filter(|f| f.code == code).collect();
            attach_switch(&mut found, &facts, &policy);
            (!found.is_empty()).then_some((name, found))
        })
        .collect()
}

/// `leaf1`'s device index for the lab's shell: the switches follow the hosts.
fn leaf1(fabric: &fabcheck_lab::state::Fabric) -> usize {
    fabric.hosts.len() + fabric.switch_index("leaf1").unwrap()
}

/// Renders `platform`'s leaf with `fault`, finds `code` at a port, applies its fix and reads
/// the result back: the port no longer has `code`.
fn fixed_by_its_fix(platform: Platform, fault: &str, code: &str) {
    let mut fabric = build_fabric_with_platforms(2, &[platform], &[]);
    apply_to_fabric(&mut fabric, &format!("leaf1={fault}").parse::<Fault>().unwrap()).unwrap();
    let out = fabcheck_lab::shell::exec_on(&fabric, leaf1(&fabric), config_command(platform), Duration::ZERO);
    let before = failing(platform, &out.stdout, code);
    let (port, findings) = before.first().unwrap_or_else(|| panic!("{platform:?} {fault}: no {code} found"));
    let fix = findings[0].fix.clone().unwrap_or_else(|| panic!("{platform:?} {code}: no fix"));
    assert!(!fix.commands.is_empty(), "{platform:?} {code}: only {}", fix.inspect);
    let after = match platform {
        Platform::Sonic => sonic(&out.stdout, &fix.commands),
        Platform::Nvue => nvue(&out.stdout, &fix.commands),
        Platform::Eos => cli(&out.stdout, &fix.commands, 3),
        Platform::Nxos => cli(&out.stdout, &fix.commands, 2),
        Platform::DellOs10 => cli(&out.stdout, &fix.commands, 1),
    };
    let still: Vec<String> = failing(platform, &after, code).into_iter().map(|(p, _)| p).collect();
    assert!(!still.contains(port), "{platform:?} {code}: {port} still fails after {:#?}\n{after}", fix.commands);
}

/// A CLI configuration node: its line and what is indented under it.
#[derive(Debug, Clone)]
struct Node {
    text: String,
    children: Vec<Node>,
}

/// A running-config as its tree (comment and separator lines dropped) and back.
fn cli(text: &str, commands: &[String], unit: usize) -> String {
    let mut roots: Vec<Node> = Vec::new();
    let mut depth_of_last: Vec<usize> = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('!') {
            continue;
        }
        let depth = (line.len() - line.trim_start().len()) / unit;
        let path: Vec<usize> = depth_of_last.iter().take(depth).copied().collect();
        let siblings = children_at(&mut roots, &path);
        siblings.push(Node { text: trimmed.to_string(), children: Vec::new() });
        depth_of_last.truncate(depth);
        depth_of_last.push(siblings.len() - 1);
    }
    let mut path: Vec<usize> = Vec::new();
    for command in commands.iter().filter(|c| !is_session_word(c)) {
        let depth = (command.len() - command.trim_start().len()) / unit;
        let line = command.trim();
        path.truncate(depth);
        let siblings = children_at(&mut roots, &path);
        if let Some(negated) = line.strip_prefix("no ") {
            siblings.retain(|n| n.text != negated && !n.text.starts_with(&format!("{negated} ")));
            continue;
        }
        let at = match siblings.iter().position(|n| n.text == line) {
            Some(i) => i,
            None => {
                let words: Vec<&str> = line.split_whitespace().collect();
                siblings.retain(|n| {
                    let theirs: Vec<&str> = n.text.split_whitespace().collect();
                    let restates = n.children.is_empty()
                        && theirs.len() == words.len()
                        && theirs[..theirs.len() - 1] == words[..words.len() - 1];
                    !restates && n.text != format!("no {line}")
                });
                siblings.push(Node { text: line.to_string(), children: Vec::new() });
                siblings.len() - 1
            }
        };
        path.push(at);
    }
    let mut out = String::new();
    fn write(nodes: &[Node], depth: usize, unit: usize, out: &mut String) {
        for n in nodes {
            out.push_str(&format!("{}{}\n", " ".repeat(depth * unit), n.text));
            write(&n.children, depth + 1, unit, out);
        }
    }
    write(&roots, 0, unit, &mut out);
    out
}

fn children_at<'a>(roots: &'a mut Vec<Node>, path: &[usize]) -> &'a mut Vec<Node> {
    path.iter().fold(roots, |nodes, &i| &mut nodes[i].children)
}

/// SONiC's commands on its config DB JSON.
fn sonic(text: &str, commands: &[String]) -> String {
    let mut db: Value = serde_json::from_str(text).expect("config DB JSON");
    fn set_in(db: &mut Value, table: &str, key: &str, field: &str, value: String) {
        let row = db.as_object_mut().unwrap().entry(table).or_insert_with(|| Value::Object(Map::new()));
        let row = row.as_object_mut().unwrap().entry(key).or_insert_with(|| Value::Object(Map::new()));
        row.as_object_mut().unwrap().insert(field.to_string(), Value::String(value));
    }
    for c in commands {
        let words: Vec<&str> = c.split_whitespace().collect();
        match words.as_slice() {
            ["sudo", "config", "save", "-y"] => {}
            ["sudo", "config", "interface", "pfc", "priority", port, prio, state] => {
                let now = text_field(&db, "PORT_QOS_MAP", port, "pfc_enable");
                let mut prios: Vec<&str> = now.split(',').filter(|p| !p.is_empty() && p != prio).collect();
                if *state == "on" {
                    prios.push(prio);
                }
                prios.sort_unstable();
                let prios = prios.join(",");
                set_in(&mut db, "PORT_QOS_MAP", port, "pfc_enable", prios);
            }
            ["sudo", "config", "interface", "mtu", port, mtu] => set_in(&mut db, "PORT", port, "mtu", mtu.to_string()),
            [
                "sudo",
                "pfcwd",
                "start",
                "--action",
                action,
                "ports",
                port,
                "detection-time",
                d,
                "--restoration-time",
                r,
            ] => {
                set_in(&mut db, "PFC_WD", port, "action", action.to_string());
                set_in(&mut db, "PFC_WD", port, "detection_time", d.to_string());
                set_in(&mut db, "PFC_WD", port, "restoration_time", r.to_string());
            }
            ["sudo", "pfcwd", "big_red_switch", state] => {
                set_in(&mut db, "PFC_WD", "GLOBAL", "BIG_RED_SWITCH", state.to_string())
            }
            ["sudo", "sonic-db-cli", "CONFIG_DB", "hset", key, fields @ ..] => {
                let (table, key) = key.trim_matches('\'').split_once('|').expect("TABLE|key");
                for pair in fields.chunks(2) {
                    set_in(&mut db, table, key, pair[0], pair[1].to_string());
                }
            }
            _ => panic!("not a command the test knows: {c}"),
        }
    }
    serde_json::to_string_pretty(&db).unwrap()
}

fn text_field(db: &Value, table: &str, key: &str, field: &str) -> String {
    db.get(table).and_then(|t| t.get(key)).and_then(|r| r.get(field)).and_then(Value::as_str).unwrap_or("").to_string()
}

/// NVUE attributes whose next word is their value; every other word is a key.
fn nvue_attribute(key: &str, path: &[&str]) -> bool {
    matches!(key, "mtu" | "trust" | "ecn" | "min-threshold" | "max-threshold" | "probability" | "mode")
        || (key == "switch-priority" && path.contains(&"mapping"))
}

/// NVUE's commands on `nv config show -o yaml`, read as JSON (NVUE's `-o json` form, which
/// fabcheck's reader takes too).
fn nvue(text: &str, commands: &[String]) -> String {
    let mut doc: Value = serde_saphyr::from_str(text).expect("NVUE YAML");
    let set_tree =
        doc.as_array_mut().and_then(|items| items.iter_mut().find_map(|i| i.get_mut("set"))).expect("a `set` entry");
    for c in commands {
        let words: Vec<&str> = c.split_whitespace().collect();
        match words.as_slice() {
            ["nv", "config", ..] => {}
            ["nv", "unset", path @ ..] => {
                let (last, parents) = path.split_last().unwrap();
                let parent = set_tree.pointer_mut(&format!("/{}", parents.join("/")));
                if let Some(map) = parent.and_then(Value::as_object_mut) {
                    map.remove(*last);
                }
            }
            ["nv", "set", path @ ..] => {
                let mut node = &mut *set_tree;
                let mut i = 0;
                while i < path.len() {
                    let key = path[i];
                    if !node.is_object() {
                        *node = Value::Object(Map::new());
                    }
                    let map = node.as_object_mut().unwrap();
                    if nvue_attribute(key, &path[..i]) && i + 1 < path.len() {
                        let v = path[i + 1];
                        let value = v.parse::<u64>().map_or(Value::String(v.to_string()), Value::from);
                        map.insert(key.to_string(), value);
                        break;
                    }
                    node = map.entry(key).or_insert_with(|| Value::Object(Map::new()));
                    i += 1;
                }
            }
            _ => panic!("not a command the test knows: {c}"),
        }
    }
    serde_json::to_string_pretty(&doc).unwrap()
}

/// Each platform with the lab faults it renders whose fix is configuration it reads: the
/// others are inspected (a link, drops without pauses, NX-OS and OS10 queue policies), or are
/// not rendered on that platform by the lab.
const CASES: &[(Platform, &[(&str, &str)])] = &[
    (
        Platform::Sonic,
        &[
            ("pfc-off", "switch.pfc_mismatch"),
            ("trust-pcp", "switch.trust_mismatch"),
            ("dscp-map", "switch.dscp_map_mismatch"),
            ("ecn-threshold", "switch.ecn_threshold"),
            ("cnp-queue", "switch.cnp_queue_not_strict"),
            ("pfcwd-off", "switch.pfc_watchdog_disabled"),
            ("mtu-low", "switch.mtu_mismatch"),
            ("headroom-small", "switch.pfc_headroom_insufficient"),
        ],
    ),
    (
        Platform::Eos,
        &[
            ("pfc-off", "switch.pfc_mismatch"),
            ("trust-pcp", "switch.trust_mismatch"),
            ("dscp-map", "switch.dscp_map_mismatch"),
            ("ecn-off", "switch.ecn_disabled"),
            ("ecn-threshold", "switch.ecn_threshold"),
            ("cnp-queue", "switch.cnp_queue_not_strict"),
            ("pfcwd-off", "switch.pfc_watchdog_disabled"),
            ("mtu-low", "switch.mtu_mismatch"),
        ],
    ),
    (
        Platform::Nvue,
        &[
            ("pfc-off", "switch.pfc_mismatch"),
            ("dscp-map", "switch.dscp_map_mismatch"),
            ("ecn-off", "switch.ecn_disabled"),
            ("ecn-threshold", "switch.ecn_threshold"),
            ("cnp-queue", "switch.cnp_queue_not_strict"),
            ("pfcwd-off", "switch.pfc_watchdog_disabled"),
            ("mtu-low", "switch.mtu_mismatch"),
        ],
    ),
    (
        Platform::Nxos,
        &[
            ("pfc-off", "switch.pfc_mismatch"),
            ("pfcwd-off", "switch.pfc_watchdog_disabled"),
            ("mtu-low", "switch.mtu_mismatch"),
        ],
    ),
    (
        Platform::DellOs10,
        &[
            ("pfc-off", "switch.pfc_mismatch"),
            ("mtu-low", "switch.mtu_mismatch"),
            ("qos-policy-typo", "switch.qos_policy_undefined"),
        ],
    ),
];

#[test]
fn every_configuration_fix_reads_back_as_the_policy() {
    for (platform, cases) in CASES {
        for (fault, code) in *cases {
            fixed_by_its_fix(*platform, fault, code);
        }
    }
}

/// The applier can fail: a fix that restates nothing leaves the port faulty.
#[test]
#[should_panic(expected = "still fails")]
fn a_fix_that_changes_nothing_fails_here() {
    let mut fabric = build_fabric_with_platforms(2, &[Platform::Eos], &[]);
    apply_to_fabric(&mut fabric, &"leaf1=mtu-low".parse::<Fault>().unwrap()).unwrap();
    let out = fabcheck_lab::shell::exec_on(&fabric, leaf1(&fabric), "show running-config", Duration::ZERO);
    let (port, _) = failing(Platform::Eos, &out.stdout, "switch.mtu_mismatch").remove(0);
    let after = cli(&out.stdout, &["configure".into(), format!("interface {port}"), "   mtu 1500".into()], 3);
    let still: Vec<String> =
        failing(Platform::Eos, &after, "switch.mtu_mismatch").into_iter().map(|(p, _)| p).collect();
    assert!(!still.contains(&port), "{port} still fails");
}
