//! SONiC: its `config` and `pfcwd` commands where sonic-utilities has one, else the CONFIG_DB
//! field itself (`sonic-db-cli CONFIG_DB hset 'TABLE|key' field value`, which the switch's
//! daemons apply at once), then `config save -y` so `/etc/sonic/config_db.json` keeps it.
//!
//! Sources:
//! - sonic-utilities, doc/Command-Reference.md: "config interface pfc priority <interface_name>
//!   <priority> <on|off>", "config interface mtu <interface_name> <mtu>", "config save",
//!   "show interfaces transceiver" (`eeprom --dom`, `presence`), "show pfc counters", "show
//!   queue counters"; pfcwd/main.py and config/main.py: `pfcwd start --action drop ports <ports>
//!   detection-time <ms> --restoration-time <ms>` (also in sonic-mgmt docs/testplan/PFC_Watchdog),
//!   `pfcwd big_red_switch enable|disable`;
//! - the CONFIG_DB schema (SONiC wiki "Configuration", sonic-buildimage's YANG models
//!   sonic-qos-map, sonic-wred-profile, sonic-queue, sonic-buffer-profile, sonic-port-qos-map):
//!   `DSCP_TO_TC_MAP|name` fields DSCP → TC, `WRED_PROFILE|name` `ecn` (`ecn_all`),
//!   `wred_green_enable`, `green_min_threshold`/`green_max_threshold` in bytes,
//!   `QUEUE|port|q` `scheduler`/`wred_profile`, `SCHEDULER|name` `type STRICT`,
//!   `BUFFER_PROFILE|name` `xoff` in bytes, `PORT_QOS_MAP|port` `dscp_to_tc_map`.
//!
//! Names are the switch's own, from its config DB: a map or profile fabcheck cannot tell from
//! the facts (two candidates, none) gives no fix.

use super::change::Change;
use super::{LOSSLESS_NOTE, link, lossless, run};
use fabcheck_model::Fix;
use fabcheck_model::facts::SwitchFacts;
use fabcheck_model::switch::{Scheduler, canonical_interface};

const SOURCE: &str = "SONiC Command Reference (sonic-utilities doc/Command-Reference.md): config interface pfc priority, config interface mtu, pfcwd, config save; CONFIG_DB schema (SONiC wiki \"Configuration\", sonic-buildimage YANG models)";
const SAVE: &str = "sudo config save -y";
const DB_NOTE: &str = "takes effect at once; `config save -y` keeps it in /etc/sonic/config_db.json";

/// SONiC's fix for `change` on `port`.
pub fn fix(facts: &SwitchFacts, port: Option<&str>, change: &Change) -> Option<Fix> {
    let saved = |mut commands: Vec<String>, note: &str| {
        commands.push(SAVE.into());
        run(commands, note, SOURCE)
    };
    let hset = |key: String, fields: &[(&str, String)]| {
        let pairs: Vec<String> = fields.iter().map(|(f, v)| format!("{f} {v}")).collect();
        format!("sudo sonic-db-cli CONFIG_DB hset '{key}' {}", pairs.join(" "))
    };
    if let Change::BigRedSwitchOff = change {
        return saved(
            vec!["sudo pfcwd big_red_switch disable".into()],
            "the lossless queues held stormed are restored at once (their traffic flows again)",
        );
    }
    let port = port?;
    let qos = facts.qos.ports.get(&canonical_interface(port));
    match change {
        Change::Pfc { on, off } => {
            let set = |p: &u8, state: &str| format!("sudo config interface pfc priority {port} {p} {state}");
            saved(on.iter().map(|p| set(p, "on")).chain(off.iter().map(|p| set(p, "off"))).collect(), LOSSLESS_NOTE)
        }
        Change::TrustDscp { classes } => {
            // A defined map that already sends every policy DSCP to its class.
            let name = facts
                .qos
                .dscp_to_tc_maps
                .iter()
                .find(|(_, m)| classes.iter().all(|(d, t)| m.get(d) == Some(t)))
                .map(|(n, _)| n)?;
            saved(vec![hset(format!("PORT_QOS_MAP|{port}"), &[("dscp_to_tc_map", name.clone())])], DB_NOTE)
        }
        Change::DscpToTc { dscp, tc, now } => {
            // The map that sends the DSCP where the port sends it: the one the port uses.
            let maps = &facts.qos.dscp_to_tc_maps;
            let mut using = maps.iter().filter(|(_, m)| m.get(dscp) == now.as_ref());
            let name = match (using.next(), using.next()) {
                (Some((name, _)), None) => name,
                _ => return None,
            };
            saved(
                vec![hset(format!("DSCP_TO_TC_MAP|{name}"), &[(&dscp.to_string(), tc.to_string())])],
                "takes effect at once on every port that uses this map; `config save -y` keeps it",
            )
        }
        Change::Ecn { queue, min_kb, max_kb, .. } => {
            let now = qos?.queues.get(queue).and_then(|q| q.ecn.as_ref());
            let mut named = facts.qos.ecn_profiles.iter().filter(|(_, e)| Some(*e) == now);
            let profile = match (named.next(), named.next()) {
                (Some((name, _)), None) => name,
                _ => return None,
            };
            let fields = [
                ("ecn", "ecn_all".to_string()),
                ("wred_green_enable", "true".into()),
                ("green_min_threshold", (min_kb * 1024).to_string()),
                ("green_max_threshold", (max_kb * 1024).to_string()),
            ];
            saved(
                vec![hset(format!("WRED_PROFILE|{profile}"), &fields)],
                "takes effect at once, without a pause, on every queue that uses this profile; `config save -y` keeps it",
            )
        }
        Change::StrictQueue { queue, .. } => {
            let strict = facts.qos.schedulers.iter().find(|(_, s)| **s == Scheduler::Strict).map(|(n, _)| n)?;
            saved(vec![hset(format!("QUEUE|{port}|{queue}"), &[("scheduler", strict.clone())])], DB_NOTE)
        }
        Change::Watchdog => {
            let wd = facts.qos.pfc_watchdog.as_ref();
            // SONiC's defaults (`pfcwd start_default`): 200 ms each.
            let detect = wd.and_then(|w| w.detection_ms).unwrap_or(200);
            let restore = wd.and_then(|w| w.restoration_ms).unwrap_or(200);
            saved(
                vec![format!(
                    "sudo pfcwd start --action drop ports {port} detection-time {detect} --restoration-time {restore}"
                )],
                "takes effect at once, without a pause; `config save -y` keeps it",
            )
        }
        Change::Mtu(mtu) => {
            saved(vec![format!("sudo config interface mtu {port} {mtu}")], "the port flaps while its MTU changes")
        }
        Change::Headroom { profile, xoff } => saved(
            vec![hset(format!("BUFFER_PROFILE|{profile}"), &[("xoff", xoff.to_string())])],
            "buffermgrd re-programs the headroom of every priority group that uses this profile: lossless traffic on those ports may drop while it does, and on some ASICs a buffer change takes a `config reload`; run in a maintenance window",
        ),
        Change::Repoint { applied_as, similar, .. } => {
            // Only the port's own map is keyed by the port; a queue's or priority group's
            // reference names its index, which the finding does not.
            let field = applied_as.strip_prefix("PORT_QOS_MAP ")?;
            saved(vec![hset(format!("PORT_QOS_MAP|{port}"), &[(field, similar.clone())])], DB_NOTE)
        }
        Change::InspectLink { .. } => link(
            port,
            &format!(
                "`show interfaces status {port}` (speed, state), `show interfaces transceiver eeprom --dom {port}` (the module's temperature, Tx and Rx power against its thresholds), `show interfaces transceiver presence {port}`"
            ),
            SOURCE,
        ),
        Change::InspectLossless { priority } => lossless(
            *priority,
            &format!(
                "`show pfc counters`, `show queue counters {port}`, `show runningconfiguration all` (PORT_QOS_MAP's `pfc_enable`)"
            ),
            SOURCE,
        ),
        Change::BigRedSwitchOff => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{commands, fixed, inspected};
    use super::*;
    use fabcheck_model::switch::{Ecn, PortQos, QueueQos, UndefinedReference};

    /// A SONiC switch whose facts name its maps, profiles and schedulers, as a whole config DB
    /// gives them: Ethernet8's RoCE queue uses `AZURE_LOSSLESS` (Kmin 20 KB); `scheduler.1` is
    /// strict; its port map names `azure`, which only `AZURE` is.
    fn facts() -> SwitchFacts {
        let mut facts = SwitchFacts { platform: "sonic", ..SwitchFacts::default() };
        let wred = Ecn { enabled: true, min_bytes: Some(20 * 1024), max_bytes: Some(50 * 1024), ..Ecn::default() };
        facts.qos.ecn_profiles.insert("AZURE_LOSSLESS".into(), wred.clone());
        facts.qos.ecn_profiles.insert("OTHER".into(), Ecn::default());
        facts.qos.schedulers.insert("scheduler.0".into(), Scheduler::Weighted { weight: 14 });
        facts.qos.schedulers.insert("scheduler.1".into(), Scheduler::Strict);
        facts.qos.dscp_to_tc_maps.insert("AZURE".into(), [(26, 0), (48, 6)].into());
        facts.qos.dscp_to_tc_maps.insert("ROCE".into(), [(26, 3), (48, 6)].into());
        let mut port = PortQos::default();
        port.queues.insert(3, QueueQos { scheduler: None, ecn: Some(wred) });
        port.undefined.push(UndefinedReference {
            applied_as: "PORT_QOS_MAP dscp_to_tc_map".into(),
            kind: "DSCP_TO_TC_MAP".into(),
            name: "azure".into(),
            similar: Some(("AZURE".into(), "DSCP_TO_TC_MAP".into())),
        });
        facts.qos.ports.insert("Ethernet8".into(), port);
        facts
    }

    #[test]
    fn each_root_in_sonics_commands_with_the_switchs_own_names() {
        let s = facts();
        let p = Some("Ethernet8");
        let saved = |first: &str| vec![first.to_string(), SAVE.to_string()];
        assert_eq!(
            commands(fixed(&s, "switch.pfc_mismatch", p, "3", "3,4")),
            [
                "sudo config interface pfc priority Ethernet8 3 on",
                "sudo config interface pfc priority Ethernet8 4 off",
                SAVE
            ]
        );
        assert_eq!(
            commands(fixed(&s, "switch.mtu_mismatch", p, "MTU ≥ 4200", "MTU 1500")),
            saved("sudo config interface mtu Ethernet8 4200")
        );
        assert_eq!(
            commands(fixed(&s, "switch.trust_mismatch", p, "trust dscp", "trust pcp")),
            saved("sudo sonic-db-cli CONFIG_DB hset 'PORT_QOS_MAP|Ethernet8' dscp_to_tc_map ROCE")
        );
        assert_eq!(
            commands(fixed(&s, "switch.dscp_map_mismatch", p, "DSCP 26 → TC 3", "DSCP 26 → TC 0")),
            saved("sudo sonic-db-cli CONFIG_DB hset 'DSCP_TO_TC_MAP|AZURE' 26 3")
        );
        assert_eq!(
            commands(fixed(&s, "switch.ecn_threshold", p, "Kmin 100-400 KB", "Kmin 20 KB")),
            saved(
                "sudo sonic-db-cli CONFIG_DB hset 'WRED_PROFILE|AZURE_LOSSLESS' ecn ecn_all wred_green_enable true green_min_threshold 256000 green_max_threshold 2048000"
            )
        );
        assert_eq!(
            commands(fixed(&s, "switch.cnp_queue_not_strict", p, "queue 6 strict priority", "Weighted")),
            saved("sudo sonic-db-cli CONFIG_DB hset 'QUEUE|Ethernet8|6' scheduler scheduler.1")
        );
        assert_eq!(
            commands(fixed(&s, "switch.pfc_watchdog_disabled", p, "PFC watchdog on", "off")),
            saved("sudo pfcwd start --action drop ports Ethernet8 detection-time 200 --restoration-time 200")
        );
        assert_eq!(
            commands(fixed(&s, "switch.pfc_watchdog_big_red_switch", None, "BIG_RED_SWITCH disable", "enable")),
            saved("sudo pfcwd big_red_switch disable")
        );
        let headroom =
            fixed(&s, "switch.pfc_headroom_insufficient", p, "xoff ≥ 62712 bytes", "xoff 55120 bytes (pg_300m)");
        assert!(headroom.as_ref().unwrap().note.contains("maintenance window"), "a buffer change disrupts");
        assert_eq!(commands(headroom), saved("sudo sonic-db-cli CONFIG_DB hset 'BUFFER_PROFILE|pg_300m' xoff 62712"));
        assert_eq!(
            commands(fixed(
                &s,
                "switch.qos_policy_undefined",
                p,
                "",
                "PORT_QOS_MAP dscp_to_tc_map azure applied, not defined"
            )),
            saved("sudo sonic-db-cli CONFIG_DB hset 'PORT_QOS_MAP|Ethernet8' dscp_to_tc_map AZURE")
        );
        for code in ["switch.port_down", "switch.link_degraded"] {
            assert!(
                inspected(fixed(&s, code, p, "", "")).contains("`show interfaces transceiver eeprom --dom Ethernet8`")
            );
        }
        let lossless =
            fixed(&s, "switch.lossless_not_effective", p, "no drops on priority 3, or pause frames before them", "");
        assert!(inspected(lossless).contains("`show pfc counters`"));
    }

    #[test]
    fn a_name_the_facts_do_not_settle_gives_no_fix() {
        let mut s = facts();
        let p = Some("Ethernet8");
        s.qos.dscp_to_tc_maps.insert("TWIN".into(), [(26, 0)].into());
        assert_eq!(
            fixed(&s, "switch.dscp_map_mismatch", p, "DSCP 26 → TC 3", "DSCP 26 → TC 0"),
            None,
            "two maps send 26 to 0"
        );
        s.qos.schedulers.clear();
        assert_eq!(fixed(&s, "switch.cnp_queue_not_strict", p, "", ""), None, "no strict scheduler defined");
        s.qos.ecn_profiles.clear();
        assert_eq!(fixed(&s, "switch.ecn_disabled", p, "ECN on queue 3", "off"), None, "no profile to change");
        let queue_ref = "QUEUE wred_profile x applied, not defined";
        assert_eq!(fixed(&s, "switch.qos_policy_undefined", p, "", queue_ref), None);
    }
}
