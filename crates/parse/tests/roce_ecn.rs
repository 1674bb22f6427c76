//! The mlx5 DCQCN sysfs tree on the real sample in tests/fixtures/roce_ecn (see SOURCES.md there).
use fabcheck_parse::linux::roce_ecn::parse;

/// spiderpool's `set-rdma-qos.sh q` prints each `ecn/roce_{np,rp}/enable/N` and `cnp_dscp` as
/// `LABEL: PATH = VALUE`, between lines about trust and PFC that are not this tree's.
#[test]
fn every_priority_enabled_at_both_points_and_cnp_dscp_48() {
    let text = include_str!("fixtures/roce_ecn/spiderpool-set-rdma-qos-q-eth0-mlx5_0-docs-PARTIAL.txt");
    let parsed = parse(text).expect("parses");
    let e = &parsed.value;
    assert_eq!(e.netdev.as_deref(), Some("eth0"));
    assert_eq!(e.np_enabled, (0..8).map(|p| (p, true)).collect());
    assert_eq!(e.rp_enabled, (0..8).map(|p| (p, true)).collect());
    assert_eq!(e.cnp_dscp(), Some(48));
    assert_eq!(e.cnp_802p_prio(), None, "the script does not print it");
    assert!(e.rp.is_empty());
    let skipped: Vec<usize> = parsed.warnings.iter().map(|w| w.line).collect();
    assert_eq!(
        skipped,
        [1, 2, 3, 4, 5, 6, 7, 8, 26, 27, 28],
        "the fence, the command, trust, PFC, cma_roce_tos, the tclass"
    );
}
