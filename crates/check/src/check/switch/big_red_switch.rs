//! SONiC's PFC watchdog BIG_RED_SWITCH: an emergency knob that puts every lossless queue of the
//! ports with a watchdog into the stormed state, whose traffic swss then drops whatever action
//! the watchdog is configured with (`enableBigRedSwitchMode` uses the drop action). Left on after
//! an incident, it silently makes those queues lossy.

use fabcheck_model::switch::SwitchQos;
use fabcheck_model::{Finding, Severity};

/// `switch.pfc_watchdog_big_red_switch` when the BIG_RED_SWITCH is on and the watchdog runs on
/// some port (on none, the switch has nothing to put into the stormed state).
pub fn check(device: &str, qos: &SwitchQos) -> Option<Finding> {
    qos.pfc_watchdog.as_ref().filter(|w| w.big_red_switch == Some(true) && w.enabled)?;
    Some(
        Finding::new(
            "switch.pfc_watchdog_big_red_switch",
            Severity::Critical,
            device,
            "the PFC watchdog's BIG_RED_SWITCH is on: every lossless queue of the ports with a watchdog is held in the stormed state and its traffic dropped",
        )
        .expected_actual("BIG_RED_SWITCH disable", "enable"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use fabcheck_model::switch::PfcWatchdog;

    fn qos(enabled: bool, big_red_switch: Option<bool>) -> SwitchQos {
        SwitchQos {
            pfc_watchdog: Some(PfcWatchdog { enabled, big_red_switch, ..PfcWatchdog::default() }),
            ..SwitchQos::default()
        }
    }

    #[test]
    fn on_with_a_watchdog_is_critical_and_anything_else_nothing() {
        let f = check("leaf1", &qos(true, Some(true))).expect("a finding");
        assert_eq!((f.code.as_str(), f.severity), ("switch.pfc_watchdog_big_red_switch", Severity::Critical));
        assert!(check("leaf1", &qos(false, Some(true))).is_none(), "no port has a watchdog to storm");
        assert!(check("leaf1", &qos(true, Some(false))).is_none());
        assert!(check("leaf1", &qos(true, None)).is_none());
        assert!(check("leaf1", &SwitchQos::default()).is_none());
    }
}
