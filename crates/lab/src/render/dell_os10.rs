//! Dell OS10: what a lab switch running SmartFabric OS10 10.5 prints for the OS10 CLI's show
//! commands.
//!
//! - `show running-configuration`: the QoS syntax of the Azure Local OS10 sample in
//!   tests/fixtures/dell_os10 (`wred` profiles, `class-map type network-qos|queuing`, `trust
//!   dscp-map`, `qos-map traffic-class`, `policy-map type network-qos|queuing`, `system qos`),
//!   with OS10's own one-space indentation and `!` separators for the interfaces: `hostname`;
//!   `wred ROCE_...` per ECN profile (green thresholds in KB, `drop-probability 100`, `random-detect
//!   ecn`); queue class maps `Q3` and `Q6` (`match queue n`) and no-drop class maps `PFC_COSn` (`match
//!   qos-group n`); `trust dscp-map ROCE_DSCP` (`qos-group N dscp LIST` per stated traffic class,
//!   see `switch_qos`); `qos-map traffic-class ROCE_TC` (queue N for qos-group N); a network-qos
//!   policy per set of PFC priorities (`pause`, `pfc-cos`); one queuing policy per queue profile
//!   (queue 3 `bandwidth percent 50` and its `random-detect` profile, queue 6 `priority` or
//!   `bandwidth percent 10`); `system qos` with the trust and traffic-class maps; `interface
//!   ethernet1/1/N` blocks with `description` (the peer), `no shutdown`/`shutdown`, `no
//!   switchport`, `mtu`, `speed` in Mb/s, `priority-flow-control mode on` and the network-qos
//!   policy when a priority is lossless, and the queuing policy. OS10's PFC watchdog is not
//!   rendered: no sample shows its syntax, and fabcheck does not read it.
//! - `show interface status`: the layout of the Cray CSM capture in
//!   tests/fixtures/dell_os10_interfaces (98-dash rules, `Eth 1/1/N`, descriptions cut to 15
//!   characters with `..`, a routed port's mode `-` and nothing after it, speed `0` when down).
//! - `show lldp neighbors detail` (see `lldp`).
//! - `show queuing statistics interface ethernet 1/1/N`: the layout of a real OS10 session (see
//!   `queuing_statistics`).
//!
//! Anything else: `% Error: Unrecognized command.` (or `% Error: Incomplete command.`) on stdout
//! with exit status 1. OS10 has no PFC counters command in the lab: no published capture of one
//! was found to copy.

use super::lldp;
use super::switch_qos::{QueueSettings, dscp_classes, joined, lossless_weight, queue_profiles};
use crate::build::ECN_PROBABILITY;
use crate::design::Design;
use crate::render::eos::unknown_token;
use crate::shell::Output;
use crate::state::{Fabric, LabSwitch, SwitchPort};
use std::fmt::Write as _;
use std::time::Duration;

/// The commands the lab's OS10 answers, as token sequences.
const COMMANDS: &[&[&str]] = &[
    &["show", "running-configuration"],
    &["show", "interface", "status"],
    &["show", "lldp", "neighbors", "detail"],
    &["show", "queuing", "statistics", "interface", "ethernet"],
];

/// Runs a command line on OS10 switch `me`.
pub(crate) fn exec(fabric: &Fabric, me: usize, command: &str, elapsed: Duration) -> Output {
    let sw = &fabric.switches[me];
    let words: Vec<&str> = command.split_whitespace().collect();
    match words.as_slice() {
        ["show", "running-configuration"] => Output::ok(running_configuration(fabric, sw)),
        ["show", "interface", "status"] => Output::ok(interface_status(fabric, sw)),
        ["show", "lldp", "neighbors", "detail"] => {
            Output::ok(lldp::os10_detail(&lldp::switch_entries(fabric, sw), elapsed))
        }
        ["show", "queuing", "statistics", "interface", "ethernet", slots] => {
            match sw.ports.iter().find(|p| p.name.eq_ignore_ascii_case(&format!("ethernet{slots}"))) {
                Some(p) => Output::ok(queuing_statistics(p, elapsed)),
                None => Output::fail(1, "% Error: Interface not present.\n", ""),
            }
        }
        [] => Output::ok(""),
        _ => match unknown_token(COMMANDS, &words) {
            Some(_) => Output::fail(1, "% Error: Unrecognized command.\n", ""),
            None => Output::fail(1, "% Error: Incomplete command.\n", ""),
        },
    }
}

/// `show queuing statistics interface ethernet 1/1/N`: the layout of a real OS10 session
/// (crates/parse/tests/fixtures/dell_os10_queuing), a row per queue, columns padded to 25.
fn queuing_statistics(p: &SwitchPort, elapsed: Duration) -> String {
    let mut out = format!("Interface {}\n", p.name.to_ascii_lowercase());
    let _ =
        writeln!(out, "{:<6}{:<25}{:<25}{:<25}{:<25}", "Queue", "Packets", "Bytes", "Dropped-Packets", "Dropped-Bytes");
    let c = &p.counters;
    for q in 0..8 {
        let dropped = c.queue_drops[q].at(elapsed);
        let _ = writeln!(
            out,
            "{q:<6}{:<25}{:<25}{dropped:<25}{:<25}",
            c.queue_tx_packets[q].at(elapsed),
            c.queue_tx_bytes[q].at(elapsed),
            dropped * 1024
        );
    }
    out
}

/// The priorities PFC pauses on port `p`, ascending.
fn pfc_priorities(p: &SwitchPort) -> Vec<usize> {
    p.pfc.iter().enumerate().filter(|(_, on)| **on).map(|(prio, _)| prio).collect()
}

/// The network-qos policy of a set of PFC priorities: `ROCE_PFC_3`, `ROCE_PFC_3_4`.
fn pfc_policy(priorities: &[usize]) -> String {
    format!("ROCE_PFC_{}", joined(priorities, "_"))
}

/// The WRED profile of queue `queue` in queue profile `q`: the profile's name for the RoCE
/// class's queue, with `_Q<n>` for another one.
fn wred_name(design: &Design, q: &QueueSettings, queue: usize) -> String {
    let name = q.profile_name(design);
    if queue == usize::from(design.roce().tc) { name } else { format!("{name}_Q{queue}") }
}

/// `show running-configuration`.
pub(crate) fn running_configuration(fabric: &Fabric, sw: &LabSwitch) -> String {
    let design = &fabric.design;
    let mut out =
        format!("! Version 10.5.6.0\n! Last configuration change at Jun  02 10:14:07 2025\n!\nhostname {}\n", sw.name);
    let profiles = queue_profiles(design, sw);
    for q in &profiles {
        for (queue, e) in q.marking() {
            let _ = writeln!(
                out,
                "!\nwred {}\n random-detect color green minimum-threshold {} maximum-threshold {} drop-probability {ECN_PROBABILITY}\n random-detect ecn",
                wred_name(design, q, queue),
                e.min_bytes / 1024,
                e.max_bytes / 1024
            );
        }
    }
    let mut pfc_sets: Vec<Vec<usize>> = sw.ports.iter().map(pfc_priorities).filter(|s| !s.is_empty()).collect();
    pfc_sets.sort();
    pfc_sets.dedup();
    let mut lossless: Vec<usize> = pfc_sets.concat();
    lossless.sort_unstable();
    lossless.dedup();
    let queues: Vec<usize> = design.lossless_tcs().into_iter().chain(design.cnp.map(|c| usize::from(c.tc))).collect();
    for q in queues {
        let _ = writeln!(out, "!\nclass-map type queuing Q{q}\n match queue {q}");
    }
    for prio in &lossless {
        let _ = writeln!(out, "!\nclass-map type network-qos PFC_COS{prio}\n match qos-group {prio}");
    }
    out.push_str("!\ntrust dscp-map ROCE_DSCP\n");
    for (tc, ds) in dscp_classes(design, sw) {
        let _ = writeln!(out, " qos-group {tc} dscp {}", joined(&ds, ","));
    }
    out.push_str("!\nqos-map traffic-class ROCE_TC\n");
    for q in 0..8 {
        let _ = writeln!(out, " queue {q} qos-group {q}");
    }
    for set in &pfc_sets {
        let _ = writeln!(out, "!\npolicy-map type network-qos {}", pfc_policy(set));
        for prio in set {
            let _ = writeln!(out, " class PFC_COS{prio}\n  pause\n  pfc-cos {prio}");
        }
    }
    for q in &profiles {
        let _ = writeln!(out, "!\npolicy-map type queuing {}", q.profile_name(design));
        for tc in design.lossless_tcs() {
            let _ = writeln!(out, " class Q{tc}\n  bandwidth percent {}", lossless_weight(design));
            if q.ecn[tc].is_some() {
                let _ = writeln!(out, "  random-detect {}", wred_name(design, q, tc));
            }
        }
        if let Some(cnp) = design.cnp {
            let how = if q.cnp_strict { "priority" } else { "bandwidth percent 10" };
            let _ = writeln!(out, " class Q{}\n  {how}", cnp.tc);
        }
    }
    out.push_str("!\nsystem qos\n trust-map dscp ROCE_DSCP\n qos-map traffic-class ROCE_TC\n");
    for p in &sw.ports {
        let _ = writeln!(out, "!\ninterface {}\n description {}", p.name, lldp::port_description(fabric, p.peer));
        out.push_str(if p.up { " no shutdown\n" } else { " shutdown\n" });
        let _ = writeln!(out, " no switchport\n mtu {}\n speed {}", p.mtu, p.speed_gbps * 1000);
        let priorities = pfc_priorities(p);
        if !priorities.is_empty() {
            let policy = pfc_policy(&priorities);
            let applied = if p.policy_typo { policy.replace('_', "-") } else { policy };
            let _ = writeln!(out, " priority-flow-control mode on\n service-policy input type network-qos {applied}");
        }
        let _ = writeln!(out, " service-policy output type queuing {}", QueueSettings::of(p).profile_name(design));
    }
    let _ = write!(out, "!\ninterface mgmt1/1/1\n no shutdown\n no ip address dhcp\n ip address {}/24\n", sw.mgmt_ipv4);
    out
}

/// `ethernet1/1/3` → `Eth 1/1/3`.
fn short(name: &str) -> String {
    match name.strip_prefix("ethernet") {
        Some(rest) => format!("Eth {rest}"),
        None => name.to_string(),
    }
}

/// A description cut to OS10's 15-character column: `spine1:ethern..`.
fn description_cell(description: &str) -> String {
    if description.chars().count() <= 15 {
        return description.to_string();
    }
    let kept: String = description.chars().take(13).collect();
    format!("{kept}..")
}

/// `show interface status`.
pub(crate) fn interface_status(fabric: &Fabric, sw: &LabSwitch) -> String {
    let rule = "-".repeat(98);
    let mut out =
        format!("{rule}\nPort            Description     Status   Speed    Duplex   Mode Vlan Tagged-Vlans\n{rule}\n");
    for p in &sw.ports {
        let description = description_cell(&lldp::port_description(fabric, p.peer));
        let (status, speed) = if p.up { ("up", format!("{}G", p.speed_gbps)) } else { ("down", "0".to_string()) };
        let _ = writeln!(out, "{:<16}{description:<16}{status:<9}{speed:<9}{:<9}-", short(&p.name), "full");
    }
    let _ = writeln!(out, "{rule}");
    out
}
