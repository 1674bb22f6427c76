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

#[test]
fn sfc_irq_directories_named_by_pci_address_with_colons() {
    let text =
        include_str!("fixtures/irq_affinity/sfc-0000-07-00.0-grep-H-dot-pci-named-irqs-xdp-before-patch-netdev.txt");
    let parsed = parse(text).expect("parses");
    assert_eq!(parsed.warnings, vec![]);
    let irqs = parsed.value.irqs;
    assert_eq!(irqs.len(), 32);
    assert_eq!(irqs.keys().next(), Some(&141));
    assert_eq!(irqs[&141], [0]);
    assert_eq!(irqs[&156], [23]);
    // The XDP queues' IRQs, on the other NUMA node.
    assert_eq!(irqs[&157], [8]);
    assert_eq!(irqs.values().map(|cpus| cpus[0]).max(), Some(31));
}
