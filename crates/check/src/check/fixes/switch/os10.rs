//! Dell SmartFabric OS10: interface lines and, where the setting lives in a named map or policy,
//! objects of fabcheck's own (`FABCHECK_...`) that the port then applies: OS10 lets a port's
//! `service-policy` and `trust-map` override the `system qos` ones, so a new object fixes the
//! port alone without touching what other ports share. Queue settings sit in the port's queuing
//! policy, whose name the facts do not carry: there the fix names the line its class needs.
//!
//! Sources (Dell SmartFabric OS10 User Guide, "Quality of Service"):
//! - "Priority flow control": `class-map type network-qos NAME` / `match qos-group N`,
//!   `policy-map type network-qos NAME` / `class NAME` / `pause` / `pfc-cos N`, and on the
//!   interface `priority-flow-control mode on` and `service-policy input type network-qos NAME`;
//! - "Trust-based classification": `trust dscp-map NAME` / `qos-group N dscp LIST`, `trust-map
//!   dscp NAME` (interface or `system qos`); "Traffic-class map": `qos-map traffic-class`;
//! - "ECN" / "WRED": `wred NAME` / `random-detect color green minimum-threshold KB
//!   maximum-threshold KB drop-probability P` / `random-detect ecn`, applied with
//!   `random-detect NAME` in a queuing policy class; "Strict priority": `priority`;
//! - Interfaces: `mtu`; `show interface phy-eth` (the optics' readings); System management:
//!   `configure terminal`, `copy running-configuration startup-configuration`.

use super::change::Change;
use super::cli::Cli;
use super::{LOSSLESS_NOTE, inspect, link, lossless, run};
use fabcheck_model::Fix;

const SOURCE: &str = "Dell SmartFabric OS10 User Guide, Quality of Service: Priority flow control (network-qos pause, pfc-cos), Trust-based classification (trust dscp-map, trust-map dscp), WRED and ECN (wred, random-detect ecn), queuing (priority); Interfaces (mtu, show interface phy-eth)";
pub(super) const CLI: Cli =
    Cli { enter: "configure terminal", save: "copy running-configuration startup-configuration", indent: 1 };
const POLICY_NOTE: &str = "the policy may be shared: changing it changes every port and `system qos` that applies it; `copy running-configuration startup-configuration` keeps it";

/// OS10's fix for `change` on `port` (canonical `Ethernet1/1/1`; OS10 writes `ethernet1/1/1`).
pub fn fix(port: &str, change: &Change) -> Option<Fix> {
    let port = port.strip_prefix("Ethernet").map_or(port.to_string(), |rest| format!("ethernet{rest}"));
    let interface = |lines: &[String]| {
        std::iter::once((0, format!("interface {port}")))
            .chain(lines.iter().map(|l| (1, l.clone())))
            .collect::<Vec<_>>()
    };
    let policies = format!(
        "`show running-configuration interface {port}` and `show running-configuration` (`system qos`, the policy maps)"
    );
    match change {
        Change::Pfc { on, .. } => {
            let policy = format!("FABCHECK_PFC_{}", join(on, "_"));
            let mut lines = Vec::new();
            for p in on {
                lines.extend([
                    (0, format!("class-map type network-qos FABCHECK_PFC_COS{p}")),
                    (1, format!("match qos-group {p}")),
                ]);
            }
            lines.push((0, format!("policy-map type network-qos {policy}")));
            for p in on {
                lines.extend([
                    (1, format!("class FABCHECK_PFC_COS{p}")),
                    (2, "pause".into()),
                    (2, format!("pfc-cos {p}")),
                ]);
            }
            lines.extend(interface(&[
                "priority-flow-control mode on".into(),
                format!("service-policy input type network-qos {policy}"),
            ]));
            run(CLI.session(&lines), LOSSLESS_NOTE, SOURCE)
        }
        Change::TrustDscp { classes } => {
            let mut lines = vec![(0, "trust dscp-map FABCHECK_DSCP".to_string())];
            let mut tcs: Vec<u8> = classes.iter().map(|(_, t)| *t).collect();
            tcs.sort_unstable();
            tcs.dedup();
            for tc in tcs {
                let dscps: Vec<u8> = classes.iter().filter(|(_, t)| *t == tc).map(|(d, _)| *d).collect();
                lines.push((1, format!("qos-group {tc} dscp {}", join(&dscps, ","))));
            }
            lines.extend(interface(&["trust-map dscp FABCHECK_DSCP".into()]));
            run(
                CLI.session(&lines),
                "takes effect at once; the port then maps only the policy's DSCPs (others to qos-group 0); `copy running-configuration startup-configuration` keeps it",
                SOURCE,
            )
        }
        Change::Repoint { applied_as, similar, .. } => run(
            CLI.session(&interface(&[format!("{applied_as} {similar}")])),
            "the port then applies the defined one, at once; `copy running-configuration startup-configuration` keeps it",
            SOURCE,
        ),
        Change::Mtu(mtu) => {
            run(CLI.session(&interface(&[format!("mtu {mtu}")])), "the port flaps while its MTU changes", SOURCE)
        }
        Change::DscpToTc { dscp, tc, .. } => inspect(
            format!(
                "the `trust dscp-map` the port applies ({policies}, `trust-map dscp`): DSCP {dscp} must be in its `qos-group {tc} dscp ...` line"
            ),
            POLICY_NOTE,
            SOURCE,
        ),
        Change::Ecn { queue, min_kb, max_kb, .. } => inspect(
            format!(
                "the port's `service-policy output type queuing` ({policies}): its class for queue {queue} needs `random-detect PROFILE`, with `wred PROFILE` holding `random-detect color green minimum-threshold {min_kb} maximum-threshold {max_kb} drop-probability 100` and `random-detect ecn`"
            ),
            POLICY_NOTE,
            SOURCE,
        ),
        Change::StrictQueue { queue, .. } => inspect(
            format!(
                "the port's `service-policy output type queuing` ({policies}): its class for queue {queue} needs `priority` (and no `bandwidth percent`)"
            ),
            POLICY_NOTE,
            SOURCE,
        ),
        Change::InspectLink { .. } => link(
            &port,
            &format!("`show interface {port}` (speed, state), `show interface phy-eth {port}` (the optic's readings)"),
            SOURCE,
        ),
        Change::InspectLossless { priority } => lossless(
            *priority,
            &format!("`show qos interface {port}`, `show running-configuration interface {port}`"),
            SOURCE,
        ),
        // OS10's watchdog is not read (so never found off); headroom is the platform's own.
        Change::Watchdog | Change::Headroom { .. } | Change::BigRedSwitchOff => None,
    }
}

fn join(values: &[u8], sep: &str) -> String {
    values.iter().map(u8::to_string).collect::<Vec<_>>().join(sep)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{commands, fixed, inspected, on};

    #[test]
    fn objects_of_its_own_where_the_port_can_apply_them_and_queue_lines_inspected() {
        let s = on("dell_os10");
        let p = Some("Ethernet1/1/3");
        assert_eq!(
            commands(fixed(&s, "switch.pfc_mismatch", p, "3", "none")),
            [
                "configure terminal",
                "class-map type network-qos FABCHECK_PFC_COS3",
                " match qos-group 3",
                "policy-map type network-qos FABCHECK_PFC_3",
                " class FABCHECK_PFC_COS3",
                "  pause",
                "  pfc-cos 3",
                "interface ethernet1/1/3",
                " priority-flow-control mode on",
                " service-policy input type network-qos FABCHECK_PFC_3",
                "end",
                "copy running-configuration startup-configuration"
            ]
        );
        assert_eq!(
            commands(fixed(&s, "switch.trust_mismatch", p, "trust dscp", "trust pcp")),
            [
                "configure terminal",
                "trust dscp-map FABCHECK_DSCP",
                " qos-group 3 dscp 26",
                " qos-group 6 dscp 48",
                "interface ethernet1/1/3",
                " trust-map dscp FABCHECK_DSCP",
                "end",
                "copy running-configuration startup-configuration"
            ]
        );
        assert_eq!(
            commands(fixed(&s, "switch.mtu_mismatch", p, "MTU ≥ 4200", "MTU 1500")),
            [
                "configure terminal",
                "interface ethernet1/1/3",
                " mtu 4200",
                "end",
                "copy running-configuration startup-configuration"
            ]
        );
        assert!(
            inspected(fixed(&s, "switch.ecn_threshold", p, "", ""))
                .contains("minimum-threshold 250 maximum-threshold 2000")
        );
        assert!(inspected(fixed(&s, "switch.cnp_queue_not_strict", p, "", "")).contains("queue 6 needs `priority`"));
        assert!(
            inspected(fixed(&s, "switch.dscp_map_mismatch", p, "DSCP 26 → TC 3", "DSCP 26 → TC 0"))
                .contains("`qos-group 3 dscp ...`")
        );
        for code in ["switch.port_down", "switch.link_degraded"] {
            assert!(inspected(fixed(&s, code, p, "", "")).contains("`show interface phy-eth ethernet1/1/3`"));
        }
        let lossless =
            fixed(&s, "switch.lossless_not_effective", p, "no drops on priority 3, or pause frames before them", "");
        assert!(inspected(lossless).contains("`show qos interface ethernet1/1/3`"));
    }
}
