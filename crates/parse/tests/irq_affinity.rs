//! `grep '' /proc/irq/*/smp_affinity_list` on the real samples in tests/fixtures/irq_affinity
//! (see SOURCES.md there).

use fabcheck_parse::linux::irq_affinity::parse;

#[test]
fn idpf_grep_with_extra_path_component() {
    let path = format!(
        "{}/tests/fixtures/irq_affinity/idpf-grep-dot-smp_affinity_list-linux-commit-1500a866.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    let parsed = parse(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(parsed.warnings, vec![]);
    let irqs = parsed.value.irqs;
    assert_eq!(irqs.keys().copied().collect::<Vec<_>>(), [67, 68, 70, 71, 72]);
    let mailbox = &irqs[&67];
    assert_eq!(mailbox.len(), 112);
    assert_eq!(mailbox.first(), Some(&0));
    assert!(mailbox.contains(&55) && !mailbox.contains(&56) && mailbox.contains(&112));
    assert_eq!(mailbox.last(), Some(&167));
    assert_eq!(irqs[&68], [0]);
    assert_eq!(irqs[&70], [1]);
    assert_eq!(irqs[&72], [3]);
}
