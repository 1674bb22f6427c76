//! Arista EOS: configuration lines, under the interface where EOS takes them there (an
//! interface's own setting overrides its `service-profile`), written with `write memory`.
//!
//! Sources (Arista EOS User Manual):
//! - "Priority Flow Control": `priority-flow-control on`, `priority-flow-control priority N
//!   no-drop|drop`, `priority-flow-control pause watchdog` (interface mode);
//! - "Quality of Service", "QoS configuration": `qos trust dscp` (interface mode), `qos map dscp
//!   D to traffic-class T` (global), `tx-queue N` (interface mode) with `priority strict` and
//!   `random-detect ecn minimum-threshold V kbytes maximum-threshold V kbytes
//!   max-mark-probability P` ("ECN configuration");
//! - "Ethernet Ports": `mtu`, `show interfaces ... transceiver` (the module's DOM readings);
//! - "Configuration basics": `configure`, `end`, `write memory`.

use super::change::Change;
use super::cli::Cli;
use super::{LOSSLESS_NOTE, link, lossless, run};
use fabcheck_model::Fix;

const SOURCE: &str = "Arista EOS User Manual: Priority Flow Control; Quality of Service (qos trust, qos map, tx-queue, random-detect ecn, priority strict); Ethernet Ports (mtu, transceiver)";
pub(super) const CLI: Cli = Cli { enter: "configure", save: "write memory", indent: 3 };
const AT_ONCE: &str = "takes effect at once, without a pause; `write memory` keeps it";

/// EOS's fix for `change` on `port`.
pub fn fix(port: &str, change: &Change) -> Option<Fix> {
    let on_port = |lines: Vec<String>, note: &str| run(CLI.on_interface(port, lines), note, SOURCE);
    match change {
        Change::Pfc { on, off } => {
            let mut lines = vec!["priority-flow-control on".to_string()];
            lines.extend(on.iter().map(|p| format!("priority-flow-control priority {p} no-drop")));
            lines.extend(off.iter().map(|p| format!("priority-flow-control priority {p} drop")));
            on_port(lines, LOSSLESS_NOTE)
        }
        Change::TrustDscp { .. } => on_port(vec!["qos trust dscp".into()], AT_ONCE),
        Change::DscpToTc { dscp, tc, .. } => run(
            CLI.session(&[(0, format!("qos map dscp {dscp} to traffic-class {tc}"))]),
            "takes effect at once on every port that trusts DSCP; `write memory` keeps it",
            SOURCE,
        ),
        Change::Ecn { queue, min_kb, max_kb, .. } => on_port(
            vec![
                format!("tx-queue {queue}"),
                format!(
                    "   random-detect ecn minimum-threshold {min_kb} kbytes maximum-threshold {max_kb} kbytes max-mark-probability 100"
                ),
            ],
            AT_ONCE,
        ),
        Change::StrictQueue { queue, .. } => {
            on_port(vec![format!("tx-queue {queue}"), "   priority strict".into()], AT_ONCE)
        }
        Change::Watchdog => on_port(vec!["priority-flow-control pause watchdog".into()], AT_ONCE),
        Change::Mtu(mtu) => on_port(vec![format!("mtu {mtu}")], "the port flaps while its MTU changes"),
        Change::InspectLink { .. } => link(
            port,
            &format!(
                "`show interfaces {port} status`, `show interfaces {port} transceiver` (the module's temperature, voltage, Tx and Rx power)"
            ),
            SOURCE,
        ),
        Change::InspectLossless { priority } => lossless(
            *priority,
            &format!("`show priority-flow-control counters detail`, `show qos interfaces {port}`"),
            SOURCE,
        ),
        // EOS has no such switch-wide knob, and headroom is the platform's own (no profile to set).
        Change::BigRedSwitchOff | Change::Headroom { .. } | Change::Repoint { .. } => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{commands, fixed, inspected, on};

    fn session(lines: &[&str]) -> Vec<String> {
        let mut all = vec!["configure".to_string(), "interface Ethernet3/1".into()];
        all.extend(lines.iter().map(|l| format!("   {l}")));
        all.extend(["end".into(), "write memory".into()]);
        all
    }

    #[test]
    fn each_root_in_eos_configuration_lines() {
        let s = on("eos");
        let p = Some("Ethernet3/1");
        assert_eq!(
            commands(fixed(&s, "switch.pfc_mismatch", p, "3", "4")),
            session(&[
                "priority-flow-control on",
                "priority-flow-control priority 3 no-drop",
                "priority-flow-control priority 4 drop"
            ])
        );
        assert_eq!(
            commands(fixed(&s, "switch.trust_mismatch", p, "trust dscp", "trust pcp")),
            session(&["qos trust dscp"])
        );
        assert_eq!(
            commands(fixed(&s, "switch.dscp_map_mismatch", p, "DSCP 26 → TC 3", "DSCP 26 → TC 0")),
            ["configure", "qos map dscp 26 to traffic-class 3", "end", "write memory"]
        );
        let ecn = session(&[
            "tx-queue 3",
            "   random-detect ecn minimum-threshold 250 kbytes maximum-threshold 2000 kbytes max-mark-probability 100",
        ]);
        assert_eq!(commands(fixed(&s, "switch.ecn_disabled", p, "ECN on queue 3", "off")), ecn);
        assert_eq!(commands(fixed(&s, "switch.ecn_threshold", p, "Kmax 1000-3000 KB", "Kmax 50 KB")), ecn);
        assert_eq!(
            commands(fixed(&s, "switch.cnp_queue_not_strict", p, "", "")),
            session(&["tx-queue 6", "   priority strict"])
        );
        assert_eq!(
            commands(fixed(&s, "switch.pfc_watchdog_disabled", p, "", "")),
            session(&["priority-flow-control pause watchdog"])
        );
        assert_eq!(commands(fixed(&s, "switch.mtu_mismatch", p, "MTU ≥ 4200", "MTU 1500")), session(&["mtu 4200"]));
        for code in ["switch.port_down", "switch.link_degraded"] {
            assert!(inspected(fixed(&s, code, p, "", "")).contains("`show interfaces Ethernet3/1 transceiver`"));
        }
        let lossless =
            fixed(&s, "switch.lossless_not_effective", p, "no drops on priority 3, or pause frames before them", "");
        assert!(inspected(lossless).contains("`show priority-flow-control counters detail`"));
        assert_eq!(fixed(&s, "switch.pfc_headroom_insufficient", p, "xoff ≥ 1 bytes", "xoff 0 bytes (p)"), None);
    }
}
