//! Cisco NX-OS: what a lab switch running NX-OS 10.3 prints for the NX-OS CLI's show commands.
//!
//! - `show running-config`: the layout of the Nexus 93180YC-FX3 sample in
//!   tests/fixtures/nxos (two-space indentation, MQC policy maps applied through `system qos`):
//!   `hostname`; `priority-flow-control watch-dog-interval on`; `class-map type qos match-any
//!   ROCE_TCn` with `match dscp ...` per traffic class of the stated DSCPs (see `switch_qos`) and
//!   `policy-map type qos ROCE_CLASSIFY` setting their qos-group; `policy-map type network-qos
//!   ROCE_NETWORK` (`c-8q-nq3`: `pause pfc-cos 3`, `mtu 9216`; every other NX-OS switch writes
//!   it as a Nexus 3000/5000 does instead, see [`network_qos`]); one `policy-map type queuing`
//!   per queue profile (`c-out-8q-q3`: `bandwidth remaining percent 50`, `random-detect
//!   minimum-threshold 150 kbytes maximum-threshold 1500 kbytes drop-probability 100 weight 0
//!   ecn`; `c-out-8q-q6`: `priority level 1`; `c-out-8q-q-default`); `system qos` attaching the
//!   healthy ones; `interface Ethernet1/N` blocks with `description` (the peer), `mtu`, `speed`
//!   in Mb/s, `no switchport`, `priority-flow-control mode on|off`, `priority-flow-control
//!   watch-dog-interval on|off`, the port's own queuing policy when its profile is not the
//!   healthy one, and `shutdown`/`no shutdown`. PFC is device-wide on NX-OS (the network-qos
//!   no-drop class): a port has it on (priority 3) or off.
//! - `show interface status`: the layout of ntc-templates' `cisco_nxos_show_interface_status.raw`
//!   (80-dash rules, names cut to 18 characters, `disabled` with `auto` duplex and speed for a
//!   shut port), with `mgmt0` first.
//! - `show interface priority-flow-control`: the layout of the Nexus 5000 capture in
//!   tests/fixtures/nxos_pfc (`====` rules, trailing spaces, `On  (8)` for PFC on priority 3),
//!   the frames of all priorities together as the command counts them.
//! - `show lldp neighbors detail` (see `lldp`).
//!
//! Anything else: `% Invalid command at '^' marker.` under a caret at the first token the CLI
//! does not know, or `% Incomplete command at '^' marker.`, on stdout with exit status 1.

use super::lldp;
use super::switch_qos::{QueueSettings, dscp_classes, joined, lossless_weight, queue_profiles};
use crate::build::ECN_PROBABILITY;
use crate::design::Design;
use crate::render::eos::unknown_token;
use crate::shell::Output;
use crate::state::{Fabric, LabSwitch};
use std::fmt::Write as _;
use std::time::Duration;

/// The commands the lab's NX-OS answers, as token sequences.
const COMMANDS: &[&[&str]] = &[
    &["show", "running-config"],
    &["show", "interface", "status"],
    &["show", "interface", "priority-flow-control"],
    &["show", "lldp", "neighbors", "detail"],
];

/// The MTU of the no-drop class.
const CLASS_MTU: u32 = 9216;

/// Runs a command line on NX-OS switch `me`.
pub(crate) fn exec(fabric: &Fabric, me: usize, command: &str, elapsed: Duration) -> Output {
    let sw = &fabric.switches[me];
    let words: Vec<&str> = command.split_whitespace().collect();
    match words.as_slice() {
        ["show", "running-config"] => Output::ok(running_config(fabric, sw)),
        ["show", "interface", "status"] => Output::ok(interface_status(fabric, sw)),
        ["show", "interface", "priority-flow-control"] => Output::ok(priority_flow_control(sw, elapsed)),
        ["show", "lldp", "neighbors", "detail"] => {
            Output::ok(lldp::nxos_detail(&lldp::switch_entries(fabric, sw), elapsed))
        }
        [] => Output::ok(""),
        _ => invalid(command, &words),
    }
}

/// The CLI's answer to a command it does not know: a caret under the first token no command
/// continues with (or after the last one when the command is incomplete).
fn invalid(command: &str, words: &[&str]) -> Output {
    let (at, what) = match unknown_token(COMMANDS, words) {
        Some(i) => (token_offset(command, i), "Invalid command"),
        None => (command.trim_end().chars().count() + 1, "Incomplete command"),
    };
    Output::fail(1, format!("{}^\n% {what} at '^' marker.\n", " ".repeat(at)), "")
}

/// The character offset of word `i` of `command`.
fn token_offset(command: &str, i: usize) -> usize {
    let mut seen = 0;
    let mut in_word = false;
    for (at, c) in command.chars().enumerate() {
        if !c.is_whitespace() && !in_word {
            if seen == i {
                return at;
            }
            seen += 1;
        }
        in_word = !c.is_whitespace();
    }
    command.chars().count()
}

/// `Ethernet1/3` → `Eth1/3`.
fn short(name: &str) -> String {
    match name.strip_prefix("Ethernet") {
        Some(rest) => format!("Eth{rest}"),
        None => name.to_string(),
    }
}

/// `show running-config`.
pub(crate) fn running_config(fabric: &Fabric, sw: &LabSwitch) -> String {
    let design = &fabric.design;
    let mut out = String::new();
    let _ = write!(
        out,
        "\n!Command: show running-config\n!No configuration change since last restart\n!Time: Mon Jun  2 10:14:07 2025\n\nversion 10.3(4a) Bios:version 05.47\nhostname {}\n\nfeature lldp\n\n{}",
        sw.name,
        if sw.pfcwd_unset { "" } else { "priority-flow-control watch-dog-interval on\n\n" }
    );
    let classes = dscp_classes(design, sw);
    for (tc, ds) in &classes {
        let _ = writeln!(out, "class-map type qos match-any ROCE_TC{tc}\n  match dscp {}", joined(ds, ","));
    }
    out.push_str("policy-map type qos ROCE_CLASSIFY\n");
    for (tc, _) in &classes {
        let _ = writeln!(out, "  class ROCE_TC{tc}\n    set qos-group {tc}");
    }
    out.push_str(&network_qos(fabric, sw));
    for q in queue_profiles(design, sw) {
        out.push_str(&queuing_policy(design, &q));
    }
    let healthy = QueueSettings::healthy(design);
    let _ = write!(
        out,
        "system qos\n  service-policy type network-qos ROCE_NETWORK\n  service-policy type queuing output {}\n  service-policy type qos input ROCE_CLASSIFY\n\n",
        healthy.profile_name(design)
    );
    for p in &sw.ports {
        let _ = writeln!(out, "interface {}", p.name);
        let _ = writeln!(out, "  description {}", lldp::port_description(fabric, p.peer));
        let pfc = if p.pfc.iter().any(|on| *on) { "on" } else { "off" };
        let _ = writeln!(out, "  no switchport\n  priority-flow-control mode {pfc}");
        // `pfcwd-unset`: no watchdog line, but a port's own `off` still shows.
        if !sw.pfcwd_unset || !p.pfc_watchdog {
            let wd = if p.pfc_watchdog { "on" } else { "off" };
            let _ = writeln!(out, "  priority-flow-control watch-dog-interval {wd}");
        }
        let q = QueueSettings::of(p);
        if q != healthy {
            let _ = writeln!(out, "  service-policy type queuing output {}", q.profile_name(design));
        }
        let _ = writeln!(out, "  mtu {}\n  speed {}", p.mtu, p.speed_gbps * 1000);
        out.push_str(if p.up { "  no shutdown\n\n" } else { "  shutdown\n\n" });
    }
    let _ = write!(out, "interface mgmt0\n  vrf member management\n  ip address {}/24\n", sw.mgmt_ipv4);
    out
}

/// A `policy-map type queuing`: each lossless queue's share with its WRED ECN, the CNP queue in
/// priority level 1 or a share of its own, the default class what is left (50 + 10 + 40).
fn queuing_policy(design: &Design, q: &QueueSettings) -> String {
    let mut out = format!("policy-map type queuing {}\n", q.profile_name(design));
    let weight = lossless_weight(design);
    let mut left = 100;
    for tc in design.lossless_tcs() {
        let _ = writeln!(out, "  class type queuing c-out-8q-q{tc}\n    bandwidth remaining percent {weight}");
        left -= weight;
        if let Some(e) = q.ecn[tc] {
            let _ = writeln!(
                out,
                "    random-detect minimum-threshold {} kbytes maximum-threshold {} kbytes drop-probability {ECN_PROBABILITY} weight 0 ecn",
                e.min_bytes / 1024,
                e.max_bytes / 1024
            );
        }
    }
    if let Some(cnp) = design.cnp {
        let how = if q.cnp_strict { "priority level 1" } else { "bandwidth remaining percent 10" };
        let _ = writeln!(out, "  class type queuing c-out-8q-q{}\n    {how}", cnp.tc);
        left -= 10;
    }
    let _ = writeln!(out, "  class type queuing c-out-8q-q-default\n    bandwidth remaining percent {left}");
    out
}

/// The no-drop class, in the dialect of the switch's generation: every other NX-OS switch of
/// the lab (the second, the fourth...) writes it as a Nexus 3000/5000 does, a user-defined
/// class matching qos-group 3 with `pause no-drop` (its CoS left to the classification, here by
/// DSCP), the others as a Nexus 9000 does, the system class `c-8q-nq3` with `pause pfc-cos 3`.
fn network_qos(fabric: &Fabric, sw: &LabSwitch) -> String {
    let priorities = fabric.design.pfc_priorities();
    let mut out = String::new();
    if fabric.other_generation(sw) {
        // One class of a single no-drop priority is `ROCE_NQ`; several are numbered.
        let name = |prio: usize| if priorities.len() == 1 { "ROCE_NQ".to_string() } else { format!("ROCE_NQ{prio}") };
        for &prio in &priorities {
            let _ = writeln!(out, "class-map type network-qos {}\n  match qos-group {prio}", name(prio));
        }
        out.push_str("policy-map type network-qos ROCE_NETWORK\n");
        for &prio in &priorities {
            let _ = writeln!(out, "  class type network-qos {}\n    pause no-drop\n    mtu {CLASS_MTU}", name(prio));
        }
        let _ = writeln!(out, "  class type network-qos class-default\n    mtu {CLASS_MTU}");
    } else {
        out.push_str("policy-map type network-qos ROCE_NETWORK\n");
        for prio in priorities {
            let _ =
                writeln!(out, "  class type network-qos c-8q-nq{prio}\n    pause pfc-cos {prio}\n    mtu {CLASS_MTU}");
        }
        let _ = writeln!(out, "  class type network-qos c-8q-nq-default\n    mtu {CLASS_MTU}");
    }
    out
}

/// `show interface status`.
pub(crate) fn interface_status(fabric: &Fabric, sw: &LabSwitch) -> String {
    let rule = "-".repeat(80);
    let mut out =
        format!("{rule}\nPort          Name               Status    Vlan      Duplex  Speed   Type\n{rule}\n");
    let mut row = |port: &str, name: &str, status: &str, duplex: &str, speed: &str, media: &str| {
        let name: String = name.chars().take(18).collect();
        let line = format!("{port:<13} {name:<18} {status:<9} {:<9} {duplex:<7} {speed:<7} {media}", "routed");
        let _ = writeln!(out, "{}", line.trim_end());
    };
    row("mgmt0", "--", "connected", "full", "1000", "--");
    for p in &sw.ports {
        let description = lldp::port_description(fabric, p.peer);
        let media = format!("QSFP-DD-{}G-DR4", p.speed_gbps);
        if p.up {
            row(&short(&p.name), &description, "connected", "full", &format!("{}G", p.speed_gbps), &media);
        } else {
            row(&short(&p.name), &description, "disabled", "auto", "auto", &media);
        }
    }
    out
}

/// `show interface priority-flow-control`: the rows are padded as NX-OS pads them, trailing
/// spaces included.
pub(crate) fn priority_flow_control(sw: &LabSwitch, elapsed: Duration) -> String {
    let rule = "=".repeat(60);
    let mut out = format!("{rule}\nPort               Mode Oper(VL bmap)  RxPPP      TxPPP     \n{rule}\n\n");
    for p in &sw.ports {
        let bitmap: u8 = p.pfc.iter().enumerate().filter(|(_, on)| **on).map(|(prio, _)| 1u8 << prio).sum();
        let (mode, oper) = if bitmap == 0 { ("Off", "Off".to_string()) } else { ("On", format!("On  ({bitmap:x})")) };
        let rx: u64 = p.counters.pfc_rx.iter().map(|c| c.at(elapsed)).sum();
        let tx: u64 = p.counters.pfc_tx.iter().map(|c| c.at(elapsed)).sum();
        let _ = writeln!(out, "{:<19}{mode:<5}{oper:<14}{rx:<11}{tx:<11}", p.name);
    }
    out
}
