//! The crate as the CLI uses it: render everything, write the report directory.

mod fixture;

use fabcheck_report::{Reporter, reporters, write_all};
use std::fs;

#[test]
fn writes_the_six_reports_and_nothing_else() {
    let tmp = tempfile::tempdir().unwrap();
    let result = fixture::audit_result();
    let written = write_all(&result, tmp.path());
    assert!(written.failed.is_empty(), "{:?}", written.failed);

    let expected: Vec<_> = reporters().iter().map(|r| tmp.path().join(r.file_name())).collect();
    assert_eq!(written.files, expected);

    let mut on_disk: Vec<String> =
        fs::read_dir(tmp.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    on_disk.sort();
    assert_eq!(
        on_disk,
        ["config.json", "findings.json", "junit.xml", "metrics.prom", "report.html", "report.md"],
        "no temporary file may be left behind"
    );

    // What is on disk is exactly what each reporter renders.
    for r in reporters() {
        let bytes = fs::read(tmp.path().join(r.file_name())).unwrap();
        assert_eq!(bytes, r.render(&result).unwrap(), "{}", r.file_name());
    }
    let json: serde_json::Value = serde_json::from_slice(&fs::read(tmp.path().join("findings.json")).unwrap()).unwrap();
    assert_eq!(json["verdict"], "fail");
}

#[test]
fn each_format_has_its_own_file_name() {
    let mut names: Vec<&str> = reporters().iter().map(|r| r.file_name()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), 6);
    let md: &dyn Reporter = &fabcheck_report::MarkdownReporter;
    assert_eq!(md.file_name(), "report.md");
}
