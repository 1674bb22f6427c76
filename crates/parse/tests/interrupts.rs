//! `/proc/interrupts` on the real samples in tests/fixtures/interrupts (see SOURCES.md there).

use fabcheck_parse::linux::interrupts::parse;

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/interrupts/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn mlx5_grep_excerpt_without_header_12_cpus() {
    let parsed = parse(&fixture("cx-mlx5-12cpu-grep-mlx-crow-100gbe-blog.txt")).unwrap();
    assert_eq!(parsed.warnings, vec![]);
    let v = parsed.value;
    assert!(v.cpus.is_empty());
    assert_eq!(v.irqs.len(), 15);
    assert!(v.irqs.iter().all(|i| i.counts.len() == 12));
    let first = &v.irqs[0];
    assert_eq!(first.irq, "98");
    assert_eq!(first.chip.as_deref(), Some("IR-PCI-MSIX-0000:01:00.0"));
    assert_eq!(first.name, "mlx5_async0@pci:0000:01:00.0");
    assert_eq!(first.counts[10], 23274);
    let comp6 = v.irqs.iter().find(|i| i.irq == "114").unwrap();
    assert_eq!(comp6.name, "mlx5_comp6@pci:0000:01:00.0");
    assert_eq!(comp6.counts[8], 1024467);
    assert_eq!(comp6.counts[6], 10);
    let comp11 = v.irqs.iter().find(|i| i.irq == "119").unwrap();
    assert_eq!(comp11.name, "mlx5_comp11@pci:0000:01:00.0");
    assert_eq!(comp11.counts[8], 146064);
    assert_eq!(v.irqs_matching("0000:01:00.1").count(), 2);
    assert_eq!(v.irqs_matching("mlx5_comp").count(), 13);
    assert_eq!(v.irqs.iter().find(|i| i.irq == "101").unwrap().chip.as_deref(), Some("IR-PCI-MSIX-0000:01:00.1"));
}

#[test]
fn header_multi_action_rows_and_cut_last_line() {
    let parsed = parse(&fixture("i7-870-8cpu-header-multi-action-geerlingguy-rpi-pcie-3-PARTIAL.txt")).unwrap();
    assert_eq!(parsed.warnings.len(), 1);
    assert_eq!(parsed.warnings[0].line, 8);
    let v = parsed.value;
    assert_eq!(v.cpus.len(), 8);
    assert_eq!(v.cpus[7], "CPU7");
    let ids: Vec<_> = v.irqs.iter().map(|i| i.irq.as_str()).collect();
    assert_eq!(ids, ["0", "8", "9", "16", "17", "18"]);
    assert_eq!(v.irqs[0].counts, [1325041, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(v.irqs[0].chip.as_deref(), Some("IO-APIC"));
    assert_eq!(v.irqs[0].name, "timer");
    assert_eq!(v.irqs[2].name, "acpi");
    assert_eq!(v.irqs[3].name, "uhci_hcd:usb5, uhci_hcd:usb11, ahci[0000:02:00.0]");
    assert_eq!(v.irqs[5].counts[4], 56);
    assert_eq!(v.irqs_matching("i801_smbus").map(|i| i.irq.as_str()).collect::<Vec<_>>(), ["18"]);
}
