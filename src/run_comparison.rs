//! Two runs over the same fabric compared: the findings new and fixed, the configuration values
//! that drifted, and how fast counters grew in between. `--state` compares each run with the one
//! before it; `fabcheck diff` compares any two.
//!
//! A finding is the same finding in both runs when its code, device and port are (its message
//! carries numbers that move); one whose severity rose counts as new. An incident is the same
//! when its id (its root's code, device and port) is. A device unreachable in
//! one run has nothing fixed or drifted on it: its values are unknown, not changed.

use fabcheck_model::{AuditResult, Changes, ConfigChange, CounterRate, Finding, Incident};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// What changed from `before` to `after`.
pub fn compare(before: &AuditResult, after: &AuditResult) -> Changes {
    let seconds = fabcheck_report::unix_seconds(&after.started)
        .zip(fabcheck_report::unix_seconds(&before.started))
        .map(|(a, b)| a - b)
        .filter(|s| *s > 0.0);
    let names = |r: &AuditResult| r.devices.iter().map(|d| d.name.clone()).collect::<BTreeSet<_>>();
    let (was, is) = (names(before), names(after));
    let read = |r: &AuditResult, name: &str| r.config.devices.contains_key(name);
    let both: Vec<&String> = was.intersection(&is).collect();
    Changes {
        before: before.started.clone(),
        after: after.started.clone(),
        seconds,
        new_findings: new_findings(before, after),
        fixed_findings: fixed_findings(before, after),
        drift: drift(before, after),
        rates: rates(before, after, seconds),
        devices_added: is.difference(&was).cloned().collect(),
        devices_removed: was.difference(&is).cloned().collect(),
        devices_not_compared: both
            .into_iter()
            .filter(|name| read(before, name) != read(after, name))
            .cloned()
            .collect(),
        new_incidents: new_incidents(before, after),
        fixed_incidents: fixed_incidents(before, after),
    }
}

/// Incidents by id, the same root cause's name in every run: new, or worse than before.
fn new_incidents(before: &AuditResult, after: &AuditResult) -> Vec<Incident> {
    let earlier: HashMap<&str, fabcheck_model::Severity> =
        before.incidents.iter().map(|i| (i.id.as_str(), i.severity)).collect();
    after.incidents.iter().filter(|i| earlier.get(i.id.as_str()).is_none_or(|was| i.severity > *was)).cloned().collect()
}

/// Incidents gone whose root's device the later run reached (as findings are fixed).
fn fixed_incidents(before: &AuditResult, after: &AuditResult) -> Vec<Incident> {
    let now: BTreeSet<&str> = after.incidents.iter().map(|i| i.id.as_str()).collect();
    let reached: BTreeSet<&str> = after.devices.iter().filter(|d| d.reachable).map(|d| d.name.as_str()).collect();
    before
        .incidents
        .iter()
        .filter(|i| !now.contains(i.id.as_str()) && reached.contains(i.device.as_str()))
        .cloned()
        .collect()
}

type FindingKey<'a> = (&'a str, &'a str, Option<&'a str>);

fn key(f: &Finding) -> FindingKey<'_> {
    (&f.code, &f.device, f.port.as_deref())
}

fn new_findings(before: &AuditResult, after: &AuditResult) -> Vec<Finding> {
    let earlier: HashMap<FindingKey, fabcheck_model::Severity> =
        before.findings.iter().map(|f| (key(f), f.severity)).collect();
    after.findings.iter().filter(|f| earlier.get(&key(f)).is_none_or(|was| f.severity > *was)).cloned().collect()
}

/// Findings gone on devices the later run reached: an unreachable device's findings are not fixed.
fn fixed_findings(before: &AuditResult, after: &AuditResult) -> Vec<Finding> {
    let now: BTreeSet<FindingKey> = after.findings.iter().map(key).collect();
    let reached: BTreeSet<&str> = after.devices.iter().filter(|d| d.reachable).map(|d| d.name.as_str()).collect();
    before.findings.iter().filter(|f| !now.contains(&key(f)) && reached.contains(f.device.as_str())).cloned().collect()
}

fn drift(before: &AuditResult, after: &AuditResult) -> Vec<ConfigChange> {
    let mut changes = Vec::new();
    for (device, then) in &before.config.devices {
        let Some(now) = after.config.devices.get(device) else { continue };
        let (then, now) = (then.values(), now.values());
        let ports: BTreeSet<&String> = then.keys().chain(now.keys()).collect();
        let empty = BTreeMap::new();
        for port in ports {
            let (a, b) = (then.get(port).unwrap_or(&empty), now.get(port).unwrap_or(&empty));
            let settings: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            for setting in settings {
                let (was, is) = (a.get(setting), b.get(setting));
                if was != is {
                    changes.push(ConfigChange {
                        device: device.clone(),
                        port: (!port.is_empty()).then(|| port.clone()),
                        setting: setting.clone(),
                        before: was.cloned(),
                        after: is.cloned(),
                    });
                }
            }
        }
    }
    changes
}

/// Counters both runs read, grown since (a counter lower now was reset, and has no rate).
fn rates(before: &AuditResult, after: &AuditResult, seconds: Option<f64>) -> Vec<CounterRate> {
    let earlier: HashMap<(&str, &str, &str), u64> =
        before.counters.iter().map(|c| ((c.device.as_str(), c.port.as_str(), c.counter.as_str()), c.value)).collect();
    let mut grown: Vec<CounterRate> = after
        .counters
        .iter()
        .filter_map(|c| {
            let was = *earlier.get(&(c.device.as_str(), c.port.as_str(), c.counter.as_str()))?;
            let increase = c.value.checked_sub(was).filter(|d| *d > 0)?;
            Some(CounterRate {
                device: c.device.clone(),
                port: c.port.clone(),
                counter: c.counter.clone(),
                increase,
                per_second: seconds.map(|s| increase as f64 / s),
            })
        })
        .collect();
    grown.sort_by(|a, b| b.increase.cmp(&a.increase).then_with(|| (&a.device, &a.port).cmp(&(&b.device, &b.port))));
    grown
}

#[cfg(test)]
mod tests {
    use super::*;
    use fabcheck_model::{CounterSample, DeviceSummary, Severity};

    fn device(name: &str, reachable: bool) -> DeviceSummary {
        DeviceSummary { name: name.into(), role: "host".into(), reachable, ..DeviceSummary::default() }
    }

    fn counter(device: &str, value: u64) -> CounterSample {
        CounterSample {
            device: device.into(),
            port: "ens1np0".into(),
            counter: "rx_discards_phy".into(),
            value,
            delta: Some(0),
            rate_per_s: None,
        }
    }

    fn run(
        started: &str,
        devices: Vec<DeviceSummary>,
        findings: Vec<Finding>,
        counters: Vec<CounterSample>,
    ) -> AuditResult {
        let mut r = AuditResult { started: started.into(), devices, findings, counters, ..AuditResult::default() };
        for d in r.devices.iter().filter(|d| d.reachable) {
            r.config.devices.insert(d.name.clone(), Default::default());
        }
        r
    }

    #[test]
    fn a_worse_severity_is_new_and_an_unreachable_devices_findings_are_not_fixed() {
        let warn = |device: &str| Finding::new("nic.mtu_mismatch", Severity::Warning, device, "mtu");
        let before = run(
            "2026-12-01T10:00:00Z",
            vec![device("a", true), device("b", true), device("c", true)],
            vec![warn("a"), warn("b"), warn("c")],
            vec![],
        );
        let after = run(
            "2026-12-01T11:00:00Z",
            vec![device("a", true), device("b", false), device("c", true)],
            vec![Finding::new("nic.mtu_mismatch", Severity::Error, "a", "mtu")],
            vec![],
        );
        let c = compare(&before, &after);
        assert_eq!(
            c.new_findings.iter().map(|f| (f.device.as_str(), f.severity)).collect::<Vec<_>>(),
            [("a", Severity::Error)]
        );
        assert_eq!(c.fixed_findings.iter().map(|f| f.device.as_str()).collect::<Vec<_>>(), ["c"]);
        assert_eq!(c.devices_not_compared, ["b"]);
        assert_eq!(c.seconds, Some(3600.0));
    }

    #[test]
    fn values_differ_per_port_and_setting_and_unset_is_its_own_value() {
        let mut before = run("2026-12-01T10:00:00Z", vec![device("leaf1", true)], vec![], vec![]);
        let mut after = before.clone();
        let set = |r: &mut AuditResult, port: &str, key: &str, value: &str| {
            let stored = r.config.devices.get_mut("leaf1").unwrap();
            let mut ports = stored.values();
            ports.entry(port.into()).or_default().insert(key.into(), value.into());
            *stored = ports.into();
        };
        set(&mut before, "Ethernet0", "lossless_priorities", "[3, 4]");
        set(&mut after, "Ethernet0", "lossless_priorities", "[3]");
        set(&mut before, "", "hostname", "leaf1");
        set(&mut after, "", "hostname", "leaf1");
        set(&mut after, "Ethernet4", "trust", "dscp");
        let c = compare(&before, &after);
        let got: Vec<(String, Option<String>, Option<String>)> =
            c.drift.iter().map(|d| (d.place() + " " + &d.setting, d.before.clone(), d.after.clone())).collect();
        assert_eq!(
            got,
            [
                ("leaf1:Ethernet0 lossless_priorities".into(), Some("[3, 4]".into()), Some("[3]".into())),
                ("leaf1:Ethernet4 trust".into(), None, Some("dscp".into())),
            ]
        );
    }

    #[test]
    fn counters_grow_per_second_between_the_runs_and_a_reset_has_no_rate() {
        let before = run(
            "2026-12-01T10:00:00Z",
            vec![device("a", true), device("b", true)],
            vec![],
            vec![counter("a", 1_000), counter("b", 5_000)],
        );
        let after = run(
            "2026-12-01T10:01:40Z",
            vec![device("a", true), device("b", true)],
            vec![],
            vec![counter("a", 1_500), counter("b", 10)],
        );
        let c = compare(&before, &after);
        assert_eq!(c.rates.len(), 1, "{:?}", c.rates);
        assert_eq!((c.rates[0].device.as_str(), c.rates[0].increase, c.rates[0].per_second), ("a", 500, Some(5.0)));
    }
}
