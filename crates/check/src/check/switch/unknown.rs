//! What a switch cannot show is said, never left silent: where the policy asks for a setting
//! (a PFC watchdog, a strict CNP queue, an MTU) that a platform's outputs do not print, or that
//! its configuration leaves to a default fabcheck cannot see, the ports lacking it are not
//! judged on it. One info finding per device and setting says so, with how many of the device's
//! judged ports it affects, instead of an `unknown` line in each port's diff.

use fabcheck_model::{Finding, Severity};
use std::collections::BTreeMap;

/// How many judged ports name in the message before "and N more".
const NAMED: usize = 4;

/// The settings unknown on one switch's judged ports, as [`super::port::unknown_settings`] gives
/// them port by port.
#[derive(Debug, Default)]
pub struct Unknown {
    judged: usize,
    by_setting: BTreeMap<&'static str, Vec<String>>,
}

impl Unknown {
    /// One judged port and the settings unknown on it.
    pub fn add(&mut self, port: &str, settings: Vec<&'static str>) {
        self.judged += 1;
        for setting in settings {
            self.by_setting.entry(setting).or_default().push(port.to_string());
        }
    }

    /// `switch.setting_unknown` for each setting unknown on some judged port of `device`.
    pub fn findings(&self, device: &str, platform: &str, evidence: &str) -> Vec<Finding> {
        self.by_setting
            .iter()
            .map(|(setting, ports)| {
                let mut named = ports.iter().take(NAMED).cloned().collect::<Vec<_>>().join(", ");
                if ports.len() > NAMED {
                    named.push_str(&format!(" and {} more", ports.len() - NAMED));
                }
                let (n, of) = (ports.len(), self.judged);
                Finding::new(
                    "switch.setting_unknown",
                    Severity::Info,
                    device,
                    format!(
                        "the {setting} the policy asks for cannot be read from this {platform} switch's outputs on {n} of its {of} judged ports ({named}): not judged there"
                    ),
                )
                .expected_actual(format!("{setting} shown"), format!("unknown on {n} of {of} judged ports"))
                .evidence(evidence.to_string())
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_finding_per_setting_naming_how_many_ports() {
        let mut u = Unknown::default();
        for i in 1..=6 {
            let settings = if i == 6 { vec!["MTU"] } else { vec!["PFC watchdog", "MTU"] };
            u.add(&format!("ethernet1/1/{i}"), settings);
        }
        u.add("ethernet1/1/7", vec![]);
        let f = u.findings("leaf2", "dell_os10", "leaf2/config.txt");
        let got: Vec<(&str, Option<&str>, &str)> =
            f.iter().map(|f| (f.code.as_str(), f.port.as_deref(), f.actual.as_str())).collect();
        assert_eq!(
            got,
            [
                ("switch.setting_unknown", None, "unknown on 6 of 7 judged ports"),
                ("switch.setting_unknown", None, "unknown on 5 of 7 judged ports"),
            ]
        );
        assert!(f[1].message.contains("PFC watchdog"), "{}", f[1].message);
        assert!(f[1].message.contains("(ethernet1/1/1, ethernet1/1/2, ethernet1/1/3, ethernet1/1/4 and 1 more)"));
        assert!(f.iter().all(|f| f.severity == Severity::Info));
    }

    #[test]
    fn nothing_unknown_is_no_finding() {
        let mut u = Unknown::default();
        u.add("Ethernet0", vec![]);
        assert!(u.findings("leaf1", "sonic", "f").is_empty());
    }
}
