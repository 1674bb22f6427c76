//! `nvue_pfc_watchdog` on the real sample in tests/fixtures/nvue_pfc_watchdog (see SOURCES.md).
use fabcheck_parse::nvue::pfc_watchdog::parse;

#[test]
fn deadlocks_per_traffic_class() {
    let parsed =
        parse(include_str!("fixtures/nvue_pfc_watchdog/cumulus-5.12-nv-show-interface-qos-pfc-watchdog-docs.txt"))
            .expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let w = &parsed.value;
    assert_eq!((w.interface.as_deref(), w.state.as_deref()), (Some("swp1"), Some("enabled")));
    let seen: Vec<(u8, bool, u64)> = w.classes.iter().map(|(c, s)| (*c, s.deadlock, s.deadlock_count)).collect();
    assert_eq!(
        seen,
        [
            (0, false, 0),
            (1, false, 3),
            (2, true, 2),
            (3, false, 0),
            (4, false, 0),
            (5, false, 0),
            (6, false, 0),
            (7, true, 3)
        ]
    );
    assert!(parse("").is_err());
    assert!(parse("hello\n").is_err());
}
