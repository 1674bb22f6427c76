//! metrics.prom as Prometheus reads it: `promtool check metrics` (Debian package `prometheus`,
//! which `.ci/run` installs; with CI=true a missing promtool fails the test) finds nothing to
//! say about a faulted lab's audit and benchmark, with the run's `--metrics-label`.

use crate::util::{audit, start_fabric};
use std::io::Write;
use std::process::{Command, Stdio};

/// `promtool check metrics` on `text`: its complaints, or `None` when promtool is missing
/// outside CI.
fn promtool(text: &str) -> Option<String> {
    let Ok(mut child) = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    else {
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "CI=true but promtool is missing: .ci/run must install prometheus"
        );
        eprintln!("SKIPPED promtool check: promtool not installed (apt-get install prometheus)");
        return None;
    };
    child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    Some(format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
}

#[test]
fn promtool_finds_nothing_to_say_about_an_audit_and_a_benchmark() {
    let lab = start_fabric(4, 2, 2, &["gpu002=pfc-off", "gpu002=out-of-buffer", "leaf1=ecn-off"]);
    let run = audit(&lab, &["--metrics-label", "cluster=lab-east", "--metrics-label", "site=dc1"]);
    let text = std::fs::read_to_string(run.out.join("metrics.prom")).unwrap();
    assert!(
        text.contains(
            "fabcheck_device_findings{cluster=\"lab-east\",site=\"dc1\",device=\"gpu002\",severity=\"critical\"} "
        ),
        "{text}"
    );
    assert!(
        text.lines()
            .filter(|l| !l.starts_with('#'))
            .all(|l| l.starts_with("fabcheck_") && l.contains("cluster=\"lab-east\""))
    );
    if let Some(said) = promtool(&text) {
        assert_eq!(said, "", "promtool check metrics on the audit's metrics.prom");
    }
}

#[test]
fn a_label_that_is_not_one_is_refused_before_the_run() {
    let lab = start_fabric(1, 1, 1, &[]);
    for (flag, why) in [
        ("cluster", "expected NAME=VALUE"),
        ("9lives=x", "is not a Prometheus label name"),
        ("device=x", "is a label of fabcheck's own metrics"),
    ] {
        let run = audit(&lab, &["--metrics-label", flag]);
        assert_eq!(run.code, 2, "{flag}: {}", run.stderr);
        assert!(run.stderr.contains(why), "{flag}: {}", run.stderr);
    }
}
