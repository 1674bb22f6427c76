//! `junit.xml`: the audit as test results, for CI systems that render JUnit.
//!
//! The mapping is documented in the crate docs ("Wire formats"); keep the two in step.

use crate::{ReportError, Reporter};
use fabcheck_model::{AuditResult, Finding, Severity};
use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};
use std::fmt::Write as _;
use std::time::Duration;

/// Writes `junit.xml`: one `<testsuite>` per check, one `<testcase>` per (check, device).
///
/// CI systems show JUnit failures next to the change that caused them, so a post-change run points
/// at "nic / gpu01 [nic.mtu_mismatch]" rather than at a log. A case fails only on findings at or
/// above the run's `--fail-on`, as the exit status does; the others (a warning under the default
/// `error`, an info such as a counter reset) are listed in the case's `<system-out>`. A failing
/// case's name carries its findings' codes, so a CI system's list of failures says what failed.
#[derive(Debug, Clone, Copy, Default)]
pub struct JunitReporter;

impl Reporter for JunitReporter {
    fn file_name(&self) -> &'static str {
        "junit.xml"
    }

    fn write(&self, r: &AuditResult, out: &mut dyn std::io::Write) -> Result<(), ReportError> {
        let mut report = Report::new("fabcheck");
        if let Ok(time) = Duration::try_from_secs_f64(r.duration_s) {
            report.set_time(time);
        }
        let devices = devices(r);
        for check in checks(r) {
            let mut suite = TestSuite::new(check);
            suite.add_property(Property::new("policy", &r.policy));
            suite.add_property(Property::new("started", &r.started));
            suite.add_property(Property::new("fabcheck", &r.fabcheck));
            for &(device, reachable) in &devices {
                let findings: Vec<&Finding> =
                    r.findings.iter().filter(|f| f.category() == check && f.device == device).collect();
                suite.add_test_case(test_case(check, (device, reachable), &findings, r.fail_on));
            }
            report.add_test_suite(suite);
        }
        if !r.incidents.is_empty() {
            report.add_test_suite(incidents(r));
        }
        report.serialize(out).map_err(|e| ReportError::render(self.file_name(), e))
    }
}

/// The `incidents` suite: one case per root cause, failing as the exit status does (its worst
/// finding at or above `--fail-on`, not waived), its root and every consequence in the failure
/// text, so a CI system's list of failures is the list of things to fix.
fn incidents(r: &AuditResult) -> TestSuite {
    let by_id: std::collections::HashMap<&str, &Finding> = r.findings.iter().map(|f| (f.id.as_str(), f)).collect();
    let mut suite = TestSuite::new("incidents");
    suite.add_property(Property::new("policy", &r.policy));
    suite.add_property(Property::new("started", &r.started));
    suite.add_property(Property::new("fabcheck", &r.fabcheck));
    for i in &r.incidents {
        let place = i.port.as_deref().map_or_else(|| i.device.clone(), |p| format!("{}:{p}", i.device));
        let roots: Vec<&Finding> = i.roots.iter().filter_map(|id| by_id.get(id.as_str()).copied()).collect();
        let consequences: Vec<&Finding> =
            i.consequences.iter().filter_map(|id| by_id.get(id.as_str()).copied()).collect();
        let broke = i.broke();
        let mut text = describe(&roots);
        if !consequences.is_empty() {
            let _ = writeln!(text, "what it broke ({broke}):");
            for f in &consequences {
                let _ = writeln!(text, "  [{}] {} on {}", f.severity, f.code, f.hop());
            }
        }
        let failing = i.severity >= r.fail_on && !i.waived;
        let status = if failing {
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
            let message = if broke.is_empty() { i.message.clone() } else { format!("{}; broke {broke}", i.message) };
            status.set_message(message).set_type(i.severity.as_str()).set_description(&text);
            status
        } else {
            TestCaseStatus::success()
        };
        let mut case = TestCase::new(format!("{} on {place}", i.code), status);
        case.set_classname("incidents");
        if !failing {
            case.set_system_out(text);
        }
        suite.add_test_case(case);
    }
    suite
}

/// The checks that ran, in their order, then any category that has findings but is not listed
/// (sorted), so that no finding is left out of the XML.
fn checks(r: &AuditResult) -> Vec<&str> {
    let mut checks: Vec<&str> = Vec::new();
    for c in &r.checks {
        if !checks.contains(&c.as_str()) {
            checks.push(c);
        }
    }
    let mut extra: Vec<&str> = r.findings.iter().map(Finding::category).filter(|c| !checks.contains(c)).collect();
    extra.sort_unstable();
    extra.dedup();
    checks.extend(extra);
    checks
}

/// The devices in inventory order with their reachability, then devices that only appear in
/// findings (sorted, taken as reachable).
fn devices(r: &AuditResult) -> Vec<(&str, bool)> {
    let mut devices: Vec<(&str, bool)> = Vec::new();
    for d in &r.devices {
        if !devices.iter().any(|(n, _)| *n == d.name) {
            devices.push((&d.name, d.reachable));
        }
    }
    let mut extra: Vec<&str> =
        r.findings.iter().map(|f| f.device.as_str()).filter(|n| !devices.iter().any(|(d, _)| d == n)).collect();
    extra.sort_unstable();
    extra.dedup();
    devices.extend(extra.into_iter().map(|n| (n, true)));
    devices
}

fn test_case(check: &str, (device, reachable): (&str, bool), findings: &[&Finding], fail_on: Severity) -> TestCase {
    let (failing, info): (Vec<&Finding>, Vec<&Finding>) =
        findings.iter().partition(|f| f.severity >= fail_on && f.waived.is_none());
    let mut codes: Vec<&str> = failing.iter().map(|f| f.code.as_str()).collect();
    codes.dedup();
    let status = if let Some(worst) = failing.iter().map(|f| f.severity).max() {
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
        status.set_message(codes.join(", ")).set_type(worst.as_str()).set_description(describe(&failing));
        status
    } else if !reachable {
        // Nothing was checked, so claiming a pass would be a lie; the ssh suite carries the failure.
        let mut status = TestCaseStatus::skipped();
        status.set_message("device unreachable: not audited");
        status
    } else {
        TestCaseStatus::success()
    };
    let name = if codes.is_empty() { device.to_string() } else { format!("{device} [{}]", codes.join(", ")) };
    let mut case = TestCase::new(name, status);
    case.set_classname(check);
    if !info.is_empty() {
        case.set_system_out(describe(&info));
    }
    case
}

/// One block per finding: what a reviewer needs without opening the HTML report.
fn describe(findings: &[&Finding]) -> String {
    let mut out = String::new();
    for f in findings {
        let port = f.port.as_deref().map(|p| format!(" {p}")).unwrap_or_default();
        let waived = f.waived.as_deref().map(|w| format!(" (waived: {w})")).unwrap_or_default();
        let _ = writeln!(out, "[{}] {} on {}{port}: {}{waived}", f.severity, f.code, f.device, f.message);
        if matches!(f.category(), "switch" | "path") {
            // The hop as the paths name it, so a CI log can be searched for it.
            let hop = f.hop();
            let _ = writeln!(out, "  hop:      {hop}");
        }
        if !f.expected.is_empty() || !f.actual.is_empty() {
            let _ = writeln!(out, "  expected: {}", f.expected);
            let _ = writeln!(out, "  actual:   {}", f.actual);
        }
        if !f.path.is_empty() {
            let _ = writeln!(out, "  path:     {}", f.path.join(" -> "));
        }
        if !f.caused_by.is_empty() {
            let _ = writeln!(out, "  caused by: {}", f.caused_by.join(", "));
        }
        if !f.evidence.is_empty() {
            let _ = writeln!(out, "  evidence: {}", f.evidence.join(", "));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture;

    fn parse(r: &AuditResult) -> (String, Report) {
        let xml = String::from_utf8(JunitReporter.render(r).unwrap()).unwrap();
        let report = Report::deserialize_from_str(&xml).unwrap();
        (xml, report)
    }

    fn suite<'a>(report: &'a Report, name: &str) -> &'a TestSuite {
        report.test_suites.iter().find(|s| s.name.as_str() == name).unwrap()
    }

    /// A device's case: named by the device, with its failing codes in brackets.
    fn case<'a>(suite: &'a TestSuite, device: &str) -> &'a TestCase {
        let named = |c: &&TestCase| c.name.as_str() == device || c.name.as_str().starts_with(&format!("{device} ["));
        suite.test_cases.iter().find(named).unwrap()
    }

    fn at(fail_on: Severity) -> AuditResult {
        AuditResult { fail_on, ..fixture::audit_result() }
    }

    #[test]
    fn one_suite_per_check_one_case_per_device() {
        let (xml, report) = parse(&fixture::audit_result());
        assert!(xml.starts_with("<?xml"));
        let names: Vec<&str> = report.test_suites.iter().map(|s| s.name.as_str()).collect();
        // `path` has findings but is not in `checks`: it is appended rather than lost.
        // `path` has findings but is not in `checks`; the root causes come last.
        assert_eq!(names, ["ssh", "collect", "nic", "host", "ib", "switch", "counter", "path", "incidents"]);
        for s in report.test_suites.iter().filter(|s| s.name.as_str() != "incidents") {
            assert_eq!(s.tests, 4, "{}", s.name.as_str());
            let devices: Vec<&str> = s.test_cases.iter().map(|c| c.name.as_str().split(' ').next().unwrap()).collect();
            assert_eq!(devices, ["gpu01", "gpu02", "gpu03", "leaf1"]);
        }
        assert_eq!(report.tests, 32 + suite(&report, "incidents").tests);
    }

    #[test]
    fn failures_follow_fail_on() {
        // Under the default `error`, warnings are listed, not failed.
        let (_, report) = parse(&fixture::audit_result());
        let failures = |name| suite(&report, name).failures;
        assert_eq!((failures("counter"), failures("host")), (1, 0), "gpu02 out_of_buffer; gpu01's warnings listed");
        let checks = |report: &Report| report.failures - suite(report, "incidents").failures;
        assert_eq!(checks(&report), 4, "nic gpu01, counter gpu02, ssh gpu03, switch leaf1");
        let host = case(suite(&report, "host"), "gpu02");
        assert!(matches!(host.status, TestCaseStatus::Success { .. }));
        assert!(host.system_out.as_ref().unwrap().as_str().starts_with("[warning] "), "{host:?}");
        // Under `critical`, only the critical ones.
        let (_, report) = parse(&at(Severity::Critical));
        assert_eq!(checks(&report), 2);
    }

    #[test]
    fn a_failing_case_is_named_with_its_codes() {
        let (_, report) = parse(&fixture::audit_result());
        let counter = suite(&report, "counter");
        let names: Vec<&str> = counter.test_cases.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["gpu01", "gpu02 [counter.out_of_buffer]", "gpu03", "leaf1"]);
    }

    #[test]
    fn failures_and_skips_follow_findings_and_reachability() {
        let (_, report) = parse(&at(Severity::Warning));
        let failures = |name| suite(&report, name).failures;
        assert_eq!(failures("ssh"), 1);
        assert_eq!(failures("nic"), 1);
        assert_eq!(failures("counter"), 2, "gpu01 pause storm, gpu02 out_of_buffer");
        assert_eq!(failures("ib"), 0);
        // Under `warning`, warnings fail too; only info passes.
        assert_eq!(failures("host"), 1);
        assert_eq!(report.failures - suite(&report, "incidents").failures, 7);
        assert_eq!(report.skipped, 7);
        // The unreachable host is skipped wherever it has no finding.
        assert_eq!(suite(&report, "nic").skipped, 1);
        assert_eq!(suite(&report, "ssh").skipped, 0);

        match &case(suite(&report, "counter"), "gpu02").status {
            TestCaseStatus::NonSuccess { kind, message, ty, description, .. } => {
                assert_eq!(*kind, NonSuccessKind::Failure);
                assert_eq!(message.as_ref().unwrap().as_str(), "counter.out_of_buffer");
                assert_eq!(ty.as_ref().unwrap().as_str(), "critical");
                let text = description.as_ref().unwrap().as_str();
                assert!(text.contains("  expected: 0\n  actual:   1523 | growing\n"), "{text}");
                assert!(text.contains("<script>"), "the XML layer escapes it, the text keeps it");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn info_passes_and_is_listed_in_system_out() {
        let (_, report) = parse(&at(Severity::Warning));
        let c = case(suite(&report, "counter"), "gpu01");
        // gpu01 has a warning (pause storm) and an info (reset) in `counter`.
        assert!(matches!(c.status, TestCaseStatus::NonSuccess { .. }));
        let out = c.system_out.as_ref().unwrap().as_str();
        assert!(out.starts_with("[info] counter.reset on gpu01 mlx5_1:"), "{out}");

        let mut r = fixture::audit_result();
        r.findings.retain(|f| f.severity == Severity::Info);
        r.incidents.retain(|i| i.severity == Severity::Info);
        r.fail_on = Severity::Info.max(Severity::Warning);
        let (_, report) = parse(&r.finish());
        let c = case(suite(&report, "counter"), "gpu01");
        assert!(matches!(c.status, TestCaseStatus::Success { .. }));
        assert!(c.system_out.is_some());
        assert_eq!(report.failures, 0);
    }

    #[test]
    fn each_incident_is_a_case_failing_as_the_exit_status_does_with_what_it_broke() {
        let r = fixture::audit_result();
        let (_, report) = parse(&r);
        let incidents = suite(&report, "incidents");
        assert_eq!(incidents.tests, r.incidents.len());
        let failing = r.incidents.iter().filter(|i| i.severity >= Severity::Error && !i.waived).count();
        assert_eq!(incidents.failures, failing);
        let first = &incidents.test_cases[0];
        let root = &r.findings[0];
        assert_eq!(first.name.as_str(), format!("{} on {}", root.code, root.hop()));
        match &first.status {
            TestCaseStatus::NonSuccess { message, description, .. } => {
                assert!(message.as_ref().unwrap().as_str().ends_with("; broke 1 counter"), "{message:?}");
                let consequence = &r.findings[1];
                let line = format!("  [{}] {} on {}", consequence.severity, consequence.code, consequence.hop());
                assert!(description.as_ref().unwrap().as_str().contains(&line), "{description:?}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn switch_and_path_failures_name_their_hop() {
        let (_, report) = parse(&fixture::fabric_result());
        let text = |suite_name, device| match &case(suite(&report, suite_name), device).status {
            TestCaseStatus::NonSuccess { description, .. } => description.as_ref().unwrap().as_str().to_string(),
            other => panic!("{other:?}"),
        };
        let switch = text("switch", "leaf1");
        assert!(
            switch.contains(
                "[critical] switch.pfc_mismatch on leaf1 Ethernet8: PFC on priorities none instead of 3: \
                 RoCE is dropped here under congestion\n  hop:      leaf1:Ethernet8\n  expected: 3\n"
            ),
            "{switch}"
        );
        assert!(text("switch", "spine1").contains("  hop:      spine1:Ethernet4\n"));
        let path = text("path", "leaf1");
        assert_eq!(path.matches("  hop:      leaf1:Ethernet8\n").count(), 13, "{path}");
        assert!(path.contains("  path:     gpu01:mlx5_0 -> leaf1:Ethernet16 -> leaf1:Ethernet8 -> spine1:Ethernet4\n"));
        // Other checks are as they were.
        assert!(!text("nic", "gpu01").contains("hop:"));
    }
}
