//! report.html as a browser lays it out: headless Chromium (Debian package `chromium`, which
//! `.ci/run` installs; with CI=true a missing chromium fails the test) renders the demo's report
//! and a report of long IPv6 addresses with a "since the last run" section, at a laptop's width
//! and at half of one, and `layout/check.js` lists what a reader would see broken: the page
//! scrolling sideways, content spilling out of its box, a number or address broken over two
//! lines, chart text clipped, overlapping or hiding a plotted point. A full-page screenshot is
//! kept in `$FABCHECK_ARTIFACTS` (CI sets it) or `target/artifacts`.

use crate::util::{fabcheck, fabcheck_in};
use std::path::{Path, PathBuf};
use std::process::Command;

const CHECK: &str = include_str!("layout/check.js");

/// Window widths: a laptop, and half of one (a report beside a terminal).
const WIDTHS: [u32; 2] = [1280, 800];

/// `chromium`, or `None` when it is missing outside CI.
fn chromium() -> Option<&'static str> {
    if Command::new("chromium").arg("--version").output().is_ok_and(|o| o.status.success()) {
        return Some("chromium");
    }
    assert_ne!(std::env::var("CI").as_deref(), Ok("true"), "CI=true but chromium is missing: .ci/run must install it");
    eprintln!("SKIPPED layout check: chromium not installed (apt-get install chromium)");
    None
}

fn headless(browser: &str, width: u32, height: u32) -> Command {
    let mut cmd = Command::new(browser);
    // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
    cmd.args(["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--force-color-profile=srgb"])
        .arg(format!("--window-size={width},{height}"));
    cmd
}

struct Layout {
    height: u64,
    problems: Vec<String>,
}

/// Lays `report` out `width` pixels wide and returns what check.js found, on a copy with the
/// check appended (the report itself carries no test code).
fn layout(browser: &str, report: &Path, width: u32) -> Layout {
    let html = std::fs::read_to_string(report).unwrap();
    let at = html.rfind("</body>").expect("report.html ends its body");
    let copy = report.with_file_name(format!("layout-check-{width}.html"));
    std::fs::write(&copy, format!("{}<script>{CHECK}</script>{}", &html[..at], &html[at..])).unwrap();
    let out = headless(browser, width, 900).arg("--dump-dom").arg(url(&copy)).output().unwrap();
    let dom = String::from_utf8_lossy(&out.stdout);
    let start = dom.rfind("<pre id=\"layout-check\">").unwrap_or_else(|| {
        panic!("no check result from chromium: {}", String::from_utf8_lossy(&out.stderr));
    });
    let body = &dom[start + "<pre id=\"layout-check\">".len()..];
    let text = body[..body.find("</pre>").unwrap()].replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&");
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    Layout {
        height: json["height"].as_u64().unwrap(),
        problems: json["problems"].as_array().unwrap().iter().map(|p| p.as_str().unwrap().to_string()).collect(),
    }
}

fn url(path: &Path) -> String {
    format!("file://{}", path.canonicalize().unwrap().display())
}

/// Where screenshots go: `$FABCHECK_ARTIFACTS`, else `target/artifacts`.
fn artifacts() -> PathBuf {
    let dir = std::env::var_os("FABCHECK_ARTIFACTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/artifacts"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Checks `report` at every width and keeps a full-page screenshot of it at the first.
fn assert_clean_layout(browser: &str, report: &Path, name: &str) {
    for width in WIDTHS {
        let found = layout(browser, report, width);
        assert!(found.problems.is_empty(), "{name} at {width} px:\n{}", found.problems.join("\n"));
        if width == WIDTHS[0] {
            let shot = artifacts().join(format!("{name}-{width}.png"));
            let height = found.height.clamp(900, 16_000) as u32;
            let out = headless(browser, width, height)
                .arg(format!("--screenshot={}", shot.display()))
                .arg(url(report))
                .output()
                .unwrap();
            assert!(shot.is_file(), "no screenshot: {}", String::from_utf8_lossy(&out.stderr));
        }
    }
}

#[test]
fn the_demo_report_lays_out_without_overlap_overflow_or_broken_numbers() {
    let Some(browser) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("demo");
    let run = fabcheck(&["demo", "--out", out.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_clean_layout(browser, &out.join("report.html"), "demo-report");
}

/// A saved snapshot whose devices sit at long IPv6 addresses, judged twice with `--state`, the
/// second time after a host's PFC was turned off: addresses, drift and new findings laid out.
#[test]
fn long_addresses_and_the_changes_since_the_last_run_lay_out_too() {
    let Some(browser) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let snapshot = dir.path().join("evidence");
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/snapshot-v1/evidence"), &snapshot);
    let manifest = snapshot.join("manifest.json");
    let mut json: serde_json::Value = serde_json::from_slice(&std::fs::read(&manifest).unwrap()).unwrap();
    for (i, device) in json["devices"].as_array_mut().unwrap().iter_mut().enumerate() {
        device["address"] = format!("[2001:db8:ffff:1234:5678:9abc:def0:{:04x}]:22", 0x1000 + i).into();
    }
    std::fs::write(&manifest, serde_json::to_vec(&json).unwrap()).unwrap();
    let audit =
        |out: &str| fabcheck_in(dir.path(), &["audit", "--snapshot", "evidence", "--state", "state", "--out", out]);
    audit("first");
    let qos = snapshot.join("gpu002/mlnx_qos.ens1np0.txt");
    let text = std::fs::read_to_string(&qos).unwrap();
    std::fs::write(&qos, text.replace("enabled     0   0   0   1", "enabled     0   0   0   0")).unwrap();
    let second = audit("second");
    let report = dir.path().join("second/report.html");
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(html.contains("2001:db8:ffff:1234:5678:9abc:def0:1001"), "{}", second.stderr);
    assert!(html.contains("<td><code>mlnx_qos.pfc_enabled</code></td>"), "the drift is in the report");
    assert_clean_layout(browser, &report, "changes-report");
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}
