//! Arista EOS: what a lab switch running EOS 4.31 prints for the EOS CLI's show commands.
//!
//! - `show running-config`: the EOS layout of the AVD samples in crates/parse/tests/fixtures/eos (`!`
//!   separators, three-space indentation): `hostname`; `interface EthernetN/1` blocks with
//!   `description` (the peer), `mtu`, `speed 400g-8`, `no switchport`, `qos trust dscp`,
//!   `service-profile` and the port's own overrides (`no priority-flow-control`, `no
//!   priority-flow-control pause watchdog`); `qos map dscp ... to traffic-class` (DSCP 26 and 48,
//!   and any DSCP off its class-selector default) and `qos map traffic-class N to tx-queue N`;
//!   `qos profile` blocks with `tx-queue 3` (`no priority`, `bandwidth percent 50`, `random-detect
//!   ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes`), `tx-queue 6` (`priority
//!   strict`), `priority-flow-control on`, `priority 3 no-drop` and `pause watchdog`; the global
//!   watchdog timers. A port whose queues differ from the healthy profile (ECN off, other
//!   thresholds, CNP queue round-robin) gets a profile of its own (see `switch_qos`): EOS cannot
//!   take a queue's ECN away on an interface.
//! - `show interfaces status`, `show qos interfaces` (the layout of the STIG sample: queue table
//!   7 to 0, `SP`/`RR`, `L`/`D`; queues above the highest round-robin one are strict, as EOS
//!   schedules them), `show priority-flow-control counters detail` (per port and priority; no
//!   published capture exists, the columns are the documented ones), `show interfaces counters
//!   queue detail` (the egress table of a real 7500's), `show lldp neighbors
//!   detail` (see `lldp`).
//!
//! Anything else: `% Invalid input (at token N: 'WORD')`, or `% Incomplete command`, as the EOS
//! CLI answers (on stdout, exit status 1).

use super::lldp;
use super::switch_qos::{QueueSettings, dscp_classes, joined, lossless_weight, queue_profiles};
use crate::build::{ECN_PROBABILITY, WATCHDOG_MS};
use crate::design::Design;
use crate::shell::Output;
use crate::state::{Fabric, LabSwitch};
use std::fmt::Write as _;
use std::time::Duration;

/// The commands the lab's EOS answers, as token sequences.
const COMMANDS: &[&[&str]] = &[
    &["show", "running-config"],
    &["show", "interfaces", "status"],
    &["show", "qos", "interfaces"],
    &["show", "lldp", "neighbors", "detail"],
    &["show", "priority-flow-control", "counters", "detail"],
    &["show", "interfaces", "counters", "queue", "detail"],
];

/// Runs a command line on EOS switch `me`.
pub(crate) fn exec(fabric: &Fabric, me: usize, command: &str, elapsed: Duration) -> Output {
    let sw = &fabric.switches[me];
    let words: Vec<&str> = command.split_whitespace().collect();
    if let [command @ .., "|", "json"] = words.as_slice() {
        return json(fabric, sw, command, elapsed);
    }
    match words.as_slice() {
        ["show", "running-config"] => Output::ok(running_config(fabric, sw)),
        ["show", "interfaces", "status"] => Output::ok(interfaces_status(fabric, sw)),
        ["show", "qos", "interfaces"] => Output::ok(qos_interfaces(&fabric.design, sw)),
        ["show", "lldp", "neighbors", "detail"] => {
            Output::ok(lldp::eos_detail(&lldp::switch_entries(fabric, sw), elapsed))
        }
        ["show", "priority-flow-control", "counters", "detail"] => Output::ok(pfc_counters(sw, elapsed)),
        ["show", "interfaces", "counters", "queue", "detail"] => Output::ok(queue_counters(sw, elapsed)),
        [] => Output::ok(""),
        _ => invalid(&words),
    }
}

/// `COMMAND | json`: eAPI JSON of `show interfaces status` and `show lldp neighbors detail`; the
/// other commands are "unconverted" (what EOS prints for a command with no JSON model: aristanetworks/vane's
/// error_responses, nornir-nautobot#280), and a switch with `json-refused` refuses them all.
fn json(fabric: &Fabric, sw: &LabSwitch, words: &[&str], elapsed: Duration) -> Output {
    if !COMMANDS.contains(&words) {
        return invalid(words);
    }
    match words {
        ["show", "interfaces", "status"] if sw.json_cli => Output::ok(interfaces_status_json(fabric, sw)),
        ["show", "lldp", "neighbors", "detail"] if sw.json_cli => {
            Output::ok(lldp::eos_json(&lldp::switch_entries(fabric, sw), elapsed))
        }
        _ => Output::ok(
            "% This is an unconverted command\n{\n    \"errors\": [\n        \"This is an unconverted command\"\n    ]\n}\n",
        ),
    }
}

/// `show interfaces status | json`, in the shape of the vEOS 4.33 sample
/// (tests/fixtures/eos_interfaces/veos-4.33.2F-show-interfaces-status-json-PROVENANCE-WEAK.json).
fn interfaces_status_json(fabric: &Fabric, sw: &LabSwitch) -> String {
    let mut statuses = serde_json::Map::new();
    for p in &sw.ports {
        statuses.insert(
            p.name.clone(),
            serde_json::json!({
                "description": lldp::port_description(fabric, p.peer),
                "linkStatus": if p.up { "connected" } else { "disabled" },
                "duplex": "duplexFull",
                "bandwidth": u64::from(p.speed_gbps) * 1_000_000_000,
                "autoNegotigateActive": false,
                "autoNegotiateActive": false,
                "interfaceType": format!("{}GBASE-CR8", p.speed_gbps),
                "vlanInformation": {"interfaceMode": "routed", "interfaceForwardingModel": "routed"},
                "lineProtocolStatus": if p.up { "up" } else { "down" },
                "interfaceDamped": false,
            }),
        );
    }
    format!(
        "{}\n",
        serde_json::to_string_pretty(&serde_json::json!({ "interfaceStatuses": statuses })).unwrap_or_default()
    )
}

/// The CLI's answer to a command it does not know: the first token no command continues with.
fn invalid(words: &[&str]) -> Output {
    match unknown_token(COMMANDS, words) {
        Some(i) => Output::fail(1, format!("% Invalid input (at token {i}: '{}')\n", words[i]), ""),
        None => Output::fail(1, "% Incomplete command\n", ""),
    }
}

/// Where a CLI stops understanding `words`: the index of the first token that no command of
/// `commands` continues with, `None` when every token fits (the command is incomplete). EOS,
/// NX-OS and OS10 all reject a command at that token.
pub(crate) fn unknown_token(commands: &[&[&str]], words: &[&str]) -> Option<usize> {
    words
        .iter()
        .enumerate()
        .position(|(i, w)| !commands.iter().any(|c| c.len() > i && c[..i] == words[..i] && c[i] == *w))
}

/// A threshold in the largest unit that holds it exactly.
fn size(bytes: u64) -> String {
    if bytes.is_multiple_of(1024 * 1024) {
        format!("{} mbytes", bytes / (1024 * 1024))
    } else if bytes.is_multiple_of(1024) {
        format!("{} kbytes", bytes / 1024)
    } else {
        format!("{bytes} bytes")
    }
}

/// `speed 400g-8` (eight 50G lanes), `200g-4`, ...
fn speed(gbps: u32) -> String {
    match gbps {
        400 => "400g-8".into(),
        200 => "200g-4".into(),
        100 => "100g-2".into(),
        g => format!("{g}g"),
    }
}

/// `show running-config`.
pub(crate) fn running_config(fabric: &Fabric, sw: &LabSwitch) -> String {
    let design = &fabric.design;
    let mut out = String::new();
    let _ = write!(
        out,
        "! Command: show running-config\n! device: {} (DCS-7060X6-64PE, EOS-4.31.2F)\n!\n! boot system flash:/EOS-4.31.2F.swi\n!\nno aaa root\n!\nusername admin privilege 15 role network-admin secret sha512 $6$lab$lab\n!\nservice routing protocols model multi-agent\n!\nhostname {}\n!\nspanning-tree mode none\n!\n",
        sw.name, sw.name
    );
    for p in &sw.ports {
        let q = QueueSettings::of(p);
        let _ = writeln!(out, "interface {}", p.name);
        let _ = writeln!(out, "   description {}", lldp::port_description(fabric, p.peer));
        if !p.up {
            out.push_str("   shutdown\n");
        }
        let _ = writeln!(out, "   mtu {}", p.mtu);
        let _ = writeln!(out, "   speed {}", speed(p.speed_gbps));
        out.push_str(if p.trust_dscp {
            "   no switchport\n   qos trust dscp\n"
        } else {
            "   no switchport\n   qos trust cos\n"
        });
        let _ = writeln!(out, "   service-profile {}", q.profile_name(design));
        if p.pfc.iter().all(|on| !on) {
            out.push_str("   no priority-flow-control\n");
        } else {
            for (prio, on) in p.pfc.iter().enumerate() {
                if *on != design.is_lossless(prio) {
                    let mode = if *on { "no-drop" } else { "drop" };
                    let _ = writeln!(out, "   priority-flow-control priority {prio} {mode}");
                }
            }
        }
        if !p.pfc_watchdog {
            out.push_str("   no priority-flow-control pause watchdog\n");
        }
        out.push_str("!\n");
    }
    let _ = writeln!(out, "interface Management1\n   ip address {}/24\n!\nip routing\n!", sw.mgmt_ipv4);
    for (tc, ds) in dscp_classes(design, sw) {
        let _ = writeln!(out, "qos map dscp {} to traffic-class {tc}", joined(&ds, " "));
    }
    for tc in 0..8 {
        let _ = writeln!(out, "qos map traffic-class {tc} to tx-queue {tc}");
    }
    out.push_str("!\n");
    for q in queue_profiles(design, sw) {
        out.push_str(&qos_profile(design, &q));
    }
    let seconds = format!("{}", WATCHDOG_MS as f64 / 1000.0);
    let _ = write!(
        out,
        "priority-flow-control pause watchdog default timeout {seconds}\npriority-flow-control pause watchdog default recovery-time {seconds}\npriority-flow-control pause watchdog action drop\n!\nend\n"
    );
    out
}

/// A `qos profile` block: each lossless queue round-robin with its ECN, the CNP queue strict or
/// round-robin, PFC no-drop on the design's priorities.
fn qos_profile(design: &Design, q: &QueueSettings) -> String {
    let mut out = format!("qos profile {}\n   qos trust dscp\n   !\n", q.profile_name(design));
    for tc in design.lossless_tcs() {
        let _ =
            writeln!(out, "   tx-queue {tc}\n      no priority\n      bandwidth percent {}", lossless_weight(design));
        if let Some(e) = q.ecn[tc] {
            let _ = writeln!(
                out,
                "      random-detect ecn minimum-threshold {} maximum-threshold {} max-mark-probability {ECN_PROBABILITY}",
                size(e.min_bytes),
                size(e.max_bytes)
            );
        }
        out.push_str("   !\n");
    }
    if let Some(cnp) = design.cnp {
        let tc = cnp.tc;
        if q.cnp_strict {
            let _ = writeln!(out, "   tx-queue {tc}\n      priority strict\n   !");
        } else {
            let _ = writeln!(out, "   tx-queue {tc}\n      no priority\n      bandwidth percent 10\n   !");
        }
    }
    out.push_str("   priority-flow-control on\n");
    for prio in design.pfc_priorities() {
        let _ = writeln!(out, "   priority-flow-control priority {prio} no-drop");
    }
    out.push_str("   priority-flow-control pause watchdog\n!\n");
    out
}

/// `Ethernet3/1` → `Et3/1`.
fn short(name: &str) -> String {
    match name.strip_prefix("Ethernet") {
        Some(rest) => format!("Et{rest}"),
        None => name.to_string(),
    }
}

/// `show interfaces status`.
pub(crate) fn interfaces_status(fabric: &Fabric, sw: &LabSwitch) -> String {
    let headers = ["Port", "Name", "Status", "Vlan", "Duplex", "Speed", "Type", "Flags", "Encapsulation"];
    let mut rows: Vec<[String; 9]> = sw
        .ports
        .iter()
        .map(|p| {
            let status = if p.up { "connected" } else { "disabled" };
            [
                short(&p.name),
                lldp::port_description(fabric, p.peer),
                status.into(),
                "routed".into(),
                "full".into(),
                format!("{}G", p.speed_gbps),
                format!("{}GBASE-CR8", p.speed_gbps),
                String::new(),
                String::new(),
            ]
        })
        .collect();
    rows.push([
        "Ma1".into(),
        String::new(),
        "connected".into(),
        "routed".into(),
        "a-full".into(),
        "a-1G".into(),
        "10/100/1000".into(),
        String::new(),
        String::new(),
    ]);
    // The column widths EOS starts from (`arista_eos_show_interfaces_status_encap.raw`), grown to
    // fit the cells.
    let mut widths: Vec<usize> = vec![10, 6, 12, 8, 6, 6, 15, 5, 13];
    for r in &rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.len());
        }
    }
    let line = |cells: &mut dyn Iterator<Item = &str>| {
        let parts: Vec<String> = cells.zip(&widths).map(|(c, w)| format!("{c:<w$}")).collect();
        format!("{}\n", parts.join(" ").trim_end())
    };
    let mut out = line(&mut headers.iter().copied());
    for r in &rows {
        out.push_str(&line(&mut r.iter().map(String::as_str)));
    }
    out
}

/// `show qos interfaces`.
pub(crate) fn qos_interfaces(design: &Design, sw: &LabSwitch) -> String {
    let lossless = design.lossless_tcs();
    let weighted_cnp = |strict: bool| design.cnp.filter(|_| !strict).map(|c| usize::from(c.tc));
    let mut out = String::new();
    for p in &sw.ports {
        let _ = write!(
            out,
            "{}:\n   Trust Mode: {}\n   Default COS: 0\n   Default DSCP: 0\n   Port shaping rate: disabled\n\n",
            p.name,
            if p.trust_dscp { "DSCP" } else { "COS" }
        );
        out.push_str("   Tx    Bandwidth     Bandwidth              Shape Rate             Priority   ECN/WRED\n");
        out.push_str("   Queue (percent)     Guaranteed (units)     (units)\n");
        let _ = writeln!(out, "   {}", "-".repeat(87));
        // EOS serves the queues above the highest round-robin one in strict priority.
        let cnp_rr = weighted_cnp(p.cnp_strict);
        let highest_rr = lossless.iter().copied().chain(cnp_rr).max().unwrap_or(0);
        for q in (0..8).rev() {
            let bandwidth = if lossless.contains(&q) {
                lossless_weight(design).to_string()
            } else if cnp_rr == Some(q) {
                "10".into()
            } else {
                "-".into()
            };
            let priority = if q > highest_rr { "SP" } else { "RR" };
            let ecn = if p.ecn[q].is_some() { "L" } else { "D" };
            let _ = writeln!(out, "   {q:<5} {bandwidth:<13} {:<22} {:<22} {priority:<10} {ecn}", "- ( - )", "- ( - )");
        }
        out.push('\n');
    }
    out.push_str("Legend:\nRR -> Round Robin\nSP -> Strict Priority\n - -> Not Applicable / Not Configured\n % -> Percentage of reference\nECN/WRED: L -> Queue Length ECN Enabled     W -> WRED Enabled     D -> Disabled\n");
    out
}

/// `show interfaces counters queue detail`: the `Egress Queue Counters` table of a 7500
/// (crates/parse/tests/fixtures/eos_queue_counters), a row per port and traffic class that sent
/// or dropped anything (traffic class N is transmit queue N, as the configuration maps them).
fn queue_counters(sw: &LabSwitch, elapsed: Duration) -> String {
    let mut out = format!(
        "Egress Queue Counters\n{:<19}{:>7}{:>11}{:>11}{:>18}{:>18}{:>18}{:>18}\n{:>25}\n",
        "Port",
        "Traffic",
        "DropPrec",
        "DestType",
        "OutEnqPkts",
        "OutEnqOctets",
        "OutDropPkts",
        "OutDropOctets",
        "Class"
    );
    for p in &sw.ports {
        let c = &p.counters;
        for q in 0..8 {
            let (sent, bytes, dropped) =
                (c.queue_tx_packets[q].at(elapsed), c.queue_tx_bytes[q].at(elapsed), c.queue_drops[q].at(elapsed));
            if sent + dropped > 0 {
                let _ = writeln!(
                    out,
                    "{:<19}{:>7}{:>11}{:>11}{sent:>18}{bytes:>18}{dropped:>18}{:>18}",
                    short(&p.name),
                    format!("TC{q}"),
                    "DP0-3",
                    "UC",
                    dropped * 1024
                );
            }
        }
    }
    out
}

/// `show priority-flow-control counters detail`.
pub(crate) fn pfc_counters(sw: &LabSwitch, elapsed: Duration) -> String {
    let mut out = format!("{:<12} {:<10} {:<20} {}\n", "Port", "Priority", "RxPfc", "TxPfc");
    for p in &sw.ports {
        for prio in 0..8 {
            let (rx, tx) = (p.counters.pfc_rx[prio].at(elapsed), p.counters.pfc_tx[prio].at(elapsed));
            let _ = writeln!(out, "{:<12} {prio:<10} {rx:<20} {tx}", short(&p.name));
        }
    }
    out
}
