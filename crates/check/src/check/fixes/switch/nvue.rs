//! NVIDIA Cumulus Linux (NVUE): `nv set`/`nv unset` commands, then `nv config apply` and
//! `nv config save`. NVUE configures QoS in profiles: `default-global` for every port, and a
//! port may name a profile of its own (`nv set interface swpN qos pfc profile P`). fabcheck's
//! facts say what a port runs, not which profile it names, so each fix puts the port back on
//! `default-global` (`nv unset interface swpN qos ...`, nothing when it named none) and sets the
//! policy there: the port then runs the policy whichever profile it had.
//!
//! Sources (NVIDIA Cumulus Linux 5.x User Guide and NVUE Command Reference, "Quality of
//! Service", "RDMA over Converged Ethernet - RoCE"):
//! - `nv set qos pfc default-global switch-priority N` ("Priority Flow Control");
//! - `nv set qos mapping default-global trust l3`, `nv set qos mapping default-global dscp D
//!   switch-priority N` ("Classification"; switch priority N is traffic class N under the
//!   default `egress-queue-mapping`);
//! - `nv set qos congestion-control default-global traffic-class N ecn enable|min-threshold
//!   BYTES|max-threshold BYTES|probability P` ("Explicit Congestion Notification");
//! - `nv set qos egress-scheduler default-global traffic-class N mode strict` ("Egress
//!   Scheduling");
//! - `nv set interface swpN qos pfc-watchdog` ("PFC Watchdog"); `nv set interface swpN link mtu
//!   N` ("Interface Configuration"); `nv show interface swpN transceiver` ("Pluggable Optics");
//! - `nv config apply`, `nv config save` ("NVUE CLI"). Applying a PFC or buffer change reloads
//!   switchd's QoS, which "might result in momentary packet loss" ("switchd and QoS").

use super::change::Change;
use super::{LOSSLESS_NOTE, link, lossless, run};
use fabcheck_model::Fix;

const SOURCE: &str = "NVIDIA Cumulus Linux User Guide and NVUE Command Reference: Quality of Service (qos pfc, qos mapping, qos congestion-control, qos egress-scheduler, pfc-watchdog), Interface Configuration (link mtu), NVUE CLI (nv config apply, nv config save)";
const APPLY: [&str; 2] = ["nv config apply -y", "nv config save"];
const AT_ONCE: &str = "applies without a pause; `nv config save` keeps it in the startup configuration";
const DEFAULT: &str = "the `default-global` profile changes for every port that uses it";

/// NVUE's fix for `change` on `port`.
pub fn fix(port: &str, change: &Change) -> Option<Fix> {
    let applied = |mut commands: Vec<String>, note: String| {
        commands.extend(APPLY.map(String::from));
        run(commands, &note, SOURCE)
    };
    // The port back on `default-global` for `section`, then the profile's `settings`.
    let profile = |section: &str, settings: Vec<String>, note: &str| {
        let mut commands = vec![format!("nv unset interface {port} qos {section}")];
        commands.extend(settings.into_iter().map(|s| format!("nv set qos {section} default-global {s}")));
        applied(commands, format!("{note}; {DEFAULT}"))
    };
    match change {
        Change::Pfc { on, off } => {
            let mut commands = vec![format!("nv unset interface {port} qos pfc")];
            commands.extend(on.iter().map(|p| format!("nv set qos pfc default-global switch-priority {p}")));
            commands.extend(off.iter().map(|p| format!("nv unset qos pfc default-global switch-priority {p}")));
            applied(
                commands,
                format!(
                    "{LOSSLESS_NOTE}: applying reloads switchd's buffer configuration, and on some releases restarts switchd (traffic stops on every port while it does); {DEFAULT}"
                ),
            )
        }
        Change::TrustDscp { .. } => profile("mapping", vec!["trust l3".into()], AT_ONCE),
        Change::DscpToTc { dscp, tc, .. } => {
            profile("mapping", vec![format!("dscp {dscp} switch-priority {tc}")], AT_ONCE)
        }
        Change::Ecn { tc, min_kb, max_kb, .. } => profile(
            "congestion-control",
            [
                "ecn enable".to_string(),
                format!("min-threshold {}", min_kb * 1024),
                format!("max-threshold {}", max_kb * 1024),
                "probability 100".into(),
            ]
            .into_iter()
            .map(|s| format!("traffic-class {tc} {s}"))
            .collect(),
            AT_ONCE,
        ),
        Change::StrictQueue { tc, .. } => {
            profile("egress-scheduler", vec![format!("traffic-class {tc} mode strict")], AT_ONCE)
        }
        Change::Watchdog => applied(vec![format!("nv set interface {port} qos pfc-watchdog")], AT_ONCE.into()),
        Change::Mtu(mtu) => applied(
            vec![format!("nv set interface {port} link mtu {mtu}")],
            "the port flaps while its MTU changes; `nv config save` keeps it".into(),
        ),
        Change::InspectLink { .. } => link(
            port,
            &format!(
                "`nv show interface {port} link` (speed, state), `nv show interface {port} transceiver` (the module's temperature, Tx and Rx power)"
            ),
            SOURCE,
        ),
        Change::InspectLossless { priority } => lossless(
            *priority,
            &format!("`nv show interface {port} qos roce status`, `nv show interface {port} qos roce counters`"),
            SOURCE,
        ),
        // Headroom is sized by NVUE's RoCE mode itself; no NVUE reference is read as
        // undefined; no BIG_RED_SWITCH.
        Change::Headroom { .. } | Change::Repoint { .. } | Change::BigRedSwitchOff => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{commands, fixed, inspected, on};

    fn applied(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).chain(["nv config apply -y".into(), "nv config save".into()]).collect()
    }

    #[test]
    fn each_root_in_nv_commands_on_the_default_profile() {
        let s = on("nvue");
        let p = Some("swp1");
        let pfc = fixed(&s, "switch.pfc_mismatch", p, "3", "4");
        assert!(pfc.as_ref().unwrap().note.contains("restarts switchd"), "disruption said");
        assert_eq!(
            commands(pfc),
            applied(&[
                "nv unset interface swp1 qos pfc",
                "nv set qos pfc default-global switch-priority 3",
                "nv unset qos pfc default-global switch-priority 4"
            ])
        );
        assert_eq!(
            commands(fixed(&s, "switch.trust_mismatch", p, "trust dscp", "trust pcp")),
            applied(&["nv unset interface swp1 qos mapping", "nv set qos mapping default-global trust l3"])
        );
        assert_eq!(
            commands(fixed(&s, "switch.dscp_map_mismatch", p, "DSCP 26 → TC 3", "DSCP 26 → TC 0")),
            applied(&[
                "nv unset interface swp1 qos mapping",
                "nv set qos mapping default-global dscp 26 switch-priority 3"
            ])
        );
        assert_eq!(
            commands(fixed(&s, "switch.ecn_threshold", p, "", "")),
            applied(&[
                "nv unset interface swp1 qos congestion-control",
                "nv set qos congestion-control default-global traffic-class 3 ecn enable",
                "nv set qos congestion-control default-global traffic-class 3 min-threshold 256000",
                "nv set qos congestion-control default-global traffic-class 3 max-threshold 2048000",
                "nv set qos congestion-control default-global traffic-class 3 probability 100"
            ])
        );
        assert_eq!(
            commands(fixed(&s, "switch.cnp_queue_not_strict", p, "", "")),
            applied(&[
                "nv unset interface swp1 qos egress-scheduler",
                "nv set qos egress-scheduler default-global traffic-class 6 mode strict"
            ])
        );
        assert_eq!(
            commands(fixed(&s, "switch.pfc_watchdog_disabled", p, "", "")),
            applied(&["nv set interface swp1 qos pfc-watchdog"])
        );
        assert_eq!(
            commands(fixed(&s, "switch.mtu_mismatch", p, "MTU ≥ 9216", "MTU 1500")),
            applied(&["nv set interface swp1 link mtu 9216"])
        );
        for code in ["switch.port_down", "switch.link_degraded"] {
            assert!(inspected(fixed(&s, code, p, "", "")).contains("`nv show interface swp1 transceiver`"));
        }
        let lossless =
            fixed(&s, "switch.lossless_not_effective", p, "no drops on priority 3, or pause frames before them", "");
        assert!(inspected(lossless).contains("`nv show interface swp1 qos roce counters`"));
    }
}
