//! Cisco NX-OS: interface lines where NX-OS sets a thing per port (PFC mode, the PFC watchdog,
//! MTU); elsewhere the setting lives in a policy map (`system qos` or the port's
//! `service-policy`) whose name fabcheck's facts do not carry, so the fix names the line that
//! policy's class needs and where to find the policy, rather than guess the name.
//!
//! Sources (Cisco Nexus 9000 Series NX-OS Quality of Service Configuration Guide, 10.x):
//! - "Configuring Priority Flow Control": `priority-flow-control mode on` (interface), the
//!   network-qos class's `pause pfc-cos N`, `priority-flow-control watch-dog-interval on`
//!   ("Configuring a Priority Flow Control Watchdog Interval", interface or global);
//! - "Configuring Queuing and Scheduling": `random-detect minimum-threshold V kbytes
//!   maximum-threshold V kbytes drop-probability P weight 0 ecn` and `priority level 1` in a
//!   `policy-map type queuing` class `c-out-8q-qN`; "Configuring QoS Classification": `match
//!   dscp` in a `class-map type qos` whose `policy-map type qos` class `set qos-group N`;
//! - Cisco Nexus 9000 Interfaces Configuration Guide: `mtu`, `show interface ... transceiver
//!   details` (DOM); Fundamentals: `configure terminal`, `copy running-config startup-config`.

use super::change::Change;
use super::cli::Cli;
use super::{LOSSLESS_NOTE, inspect, link, lossless, run};
use fabcheck_model::Fix;

const SOURCE: &str = "Cisco Nexus 9000 Series NX-OS Quality of Service Configuration Guide: Configuring Priority Flow Control (mode, watch-dog-interval), Configuring Queuing and Scheduling (random-detect ... ecn, priority level 1), Configuring QoS Classification; Interfaces Configuration Guide (mtu, transceiver details)";
pub(super) const CLI: Cli = Cli { enter: "configure terminal", save: "copy running-config startup-config", indent: 2 };
const POLICY_NOTE: &str = "the policy may be shared: changing it changes every port and `system qos` that applies it; `copy running-config startup-config` keeps it";

/// NX-OS's fix for `change` on `port`.
pub fn fix(port: &str, change: &Change) -> Option<Fix> {
    let on_port = |lines: Vec<String>, note: &str| run(CLI.on_interface(port, lines), note, SOURCE);
    let policies = format!(
        "`show running-config interface {port}` (its `service-policy`) and `show running-config ipqos` (`system qos` and the policy maps)"
    );
    match change {
        // A port PFC is off on (`mode off`) comes back on the no-drop classes the network-qos
        // policy already has; PFC on other priorities is that device-wide policy's doing.
        Change::Pfc { off, on } if off.is_empty() => {
            on_port(vec!["priority-flow-control mode on".into()], LOSSLESS_NOTE).map(|mut f| {
                f.note = format!(
                    "{LOSSLESS_NOTE}; the system network-qos policy must pause priority {} (`pause pfc-cos`)",
                    list(on)
                );
                f
            })
        }
        Change::Pfc { on, .. } => inspect(
            format!(
                "the `policy-map type network-qos` applied in `system qos` ({policies}): its no-drop class must be `pause pfc-cos {}` and no other class paused",
                list(on)
            ),
            POLICY_NOTE,
            SOURCE,
        ),
        Change::DscpToTc { dscp, tc, .. } => inspect(
            format!(
                "the `policy-map type qos` the port classifies with ({policies}): DSCP {dscp} must be matched (`match dscp {dscp}` in its `class-map type qos`) by the class that does `set qos-group {tc}`"
            ),
            POLICY_NOTE,
            SOURCE,
        ),
        Change::Ecn { queue, min_kb, max_kb, .. } => inspect(
            format!(
                "the `policy-map type queuing` output policy of the port ({policies}): its `class type queuing c-out-8q-q{queue}` needs `random-detect minimum-threshold {min_kb} kbytes maximum-threshold {max_kb} kbytes drop-probability 100 weight 0 ecn`"
            ),
            POLICY_NOTE,
            SOURCE,
        ),
        Change::StrictQueue { queue, .. } => inspect(
            format!(
                "the `policy-map type queuing` output policy of the port ({policies}): its `class type queuing c-out-8q-q{queue}` needs `priority level 1` (and no `bandwidth`)"
            ),
            POLICY_NOTE,
            SOURCE,
        ),
        Change::Watchdog => on_port(
            vec!["priority-flow-control watch-dog-interval on".into()],
            "takes effect at once, without a pause; `copy running-config startup-config` keeps it",
        ),
        Change::Mtu(mtu) => on_port(
            vec![format!("mtu {mtu}")],
            "the port flaps while its MTU changes; the network-qos class MTU must allow it too",
        ),
        Change::InspectLink { .. } => link(
            port,
            &format!(
                "`show interface {port} status`, `show interface {port} transceiver details` (the module's temperature, voltage, Tx and Rx power against its alarms)"
            ),
            SOURCE,
        ),
        Change::InspectLossless { priority } => lossless(
            *priority,
            &format!("`show interface priority-flow-control`, `show queuing interface {port}`"),
            SOURCE,
        ),
        // NX-OS classifies by its qos policy (no trust mode to set); headroom is the platform's
        // own; no NX-OS reference is read as undefined; no BIG_RED_SWITCH.
        Change::TrustDscp { .. } | Change::Headroom { .. } | Change::Repoint { .. } | Change::BigRedSwitchOff => None,
    }
}

fn list(p: &[u8]) -> String {
    p.iter().map(u8::to_string).collect::<Vec<_>>().join(",")
}

#[cfg(test)]
mod tests {
    use super::super::tests::{commands, fixed, inspected, on};

    fn session(lines: &[&str]) -> Vec<String> {
        let mut all = vec!["configure terminal".to_string(), "interface Ethernet1/3".into()];
        all.extend(lines.iter().map(|l| format!("  {l}")));
        all.extend(["end".into(), "copy running-config startup-config".into()]);
        all
    }

    #[test]
    fn per_port_settings_are_lines_and_policy_settings_are_inspected() {
        let s = on("nxos");
        let p = Some("Ethernet1/3");
        assert_eq!(
            commands(fixed(&s, "switch.pfc_mismatch", p, "3", "none")),
            session(&["priority-flow-control mode on"])
        );
        assert!(inspected(fixed(&s, "switch.pfc_mismatch", p, "3", "3,4")).contains("`pause pfc-cos 3`"));
        assert_eq!(
            commands(fixed(&s, "switch.pfc_watchdog_disabled", p, "", "")),
            session(&["priority-flow-control watch-dog-interval on"])
        );
        assert_eq!(commands(fixed(&s, "switch.mtu_mismatch", p, "MTU ≥ 4200", "MTU 1500")), session(&["mtu 4200"]));
        assert!(
            inspected(fixed(&s, "switch.ecn_threshold", p, "", "")).contains(
                "`class type queuing c-out-8q-q3` needs `random-detect minimum-threshold 250 kbytes maximum-threshold 2000 kbytes drop-probability 100 weight 0 ecn`"
            )
        );
        assert!(inspected(fixed(&s, "switch.ecn_disabled", p, "", "")).contains("c-out-8q-q3"));
        assert!(
            inspected(fixed(&s, "switch.cnp_queue_not_strict", p, "", ""))
                .contains("c-out-8q-q6` needs `priority level 1`")
        );
        assert!(
            inspected(fixed(&s, "switch.dscp_map_mismatch", p, "DSCP 26 → TC 3", "DSCP 26 → TC 0"))
                .contains("`match dscp 26`")
        );
        for code in ["switch.port_down", "switch.link_degraded"] {
            assert!(inspected(fixed(&s, code, p, "", "")).contains("`show interface Ethernet1/3 transceiver details`"));
        }
        let lossless =
            fixed(&s, "switch.lossless_not_effective", p, "no drops on priority 3, or pause frames before them", "");
        assert!(inspected(lossless).contains("`show interface priority-flow-control`"));
    }
}
