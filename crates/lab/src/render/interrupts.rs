//! `/proc/interrupts` and the IRQs behind `/proc/irq/*/smp_affinity_list`.
//!
//! Layout from the kernel's `show_interrupts()` (kernel/irq/proc.c) on a 6.x kernel with
//! per-device MSI domains: a header of `prec + 8` spaces then `CPU%-8d` per CPU; per IRQ
//! `%*d: ` then `%10u ` per CPU, the chip as ` %8s`, the hwirq as ` %*lu`, `-%-8s` flow type and
//! `  action`. `prec` is 4 on servers (nr_irqs >= 1000), as in a published 16-CPU line
//! `IR-PCI-MSIX-0000:02:00.0    0-edge      enp2s0`. The x86 rows (`NMI`, `LOC` ...) follow
//! `arch_show_interrupts()`. mlx5 names its vectors `mlx5_async0@pci:BDF` (MSI-X 0) and
//! `mlx5_compN@pci:BDF` (MSI-X N+1). On x86 an IRQ is delivered to one CPU of its affinity, so a
//! row counts on the first CPU of its list only.

use crate::state::{Counter, LabHost, LabNic, LinkLayer};
use std::fmt::Write as _;
use std::time::Duration;

/// Width of the IRQ number column.
const PREC: usize = 4;

/// One numbered interrupt.
pub(crate) struct IrqLine {
    /// IRQ number.
    pub irq: u32,
    chip: String,
    hwirq: u32,
    flow: &'static str,
    action: String,
    /// The CPUs it may run on (`smp_affinity_list`).
    pub affinity: Vec<u32>,
    count: Counter,
}

fn all_cpus(host: &LabHost) -> Vec<u32> {
    (0..host.cpus).collect()
}

/// Affinity of an IRQ: the state's, or every CPU.
fn affinity(host: &LabHost, irq: u32) -> Vec<u32> {
    host.irq_affinity.get(&irq).cloned().unwrap_or_else(|| all_cpus(host))
}

fn nic_lines(host: &LabHost, nic: &LabNic, out: &mut Vec<IrqLine>) {
    let chip = format!("IR-PCI-MSIX-{}", nic.pci);
    let rate = match (nic.up, nic.link_layer) {
        (false, _) => 0,
        (true, LinkLayer::Ethernet) => 20_000,
        (true, LinkLayer::InfiniBand) => 8_000,
    };
    if let Some(async_irq) = nic.irqs.first().and_then(|i| i.checked_sub(1)) {
        out.push(IrqLine {
            irq: async_irq,
            chip: chip.clone(),
            hwirq: 0,
            flow: "edge",
            action: format!("mlx5_async0@pci:{}", nic.pci),
            affinity: affinity(host, async_irq),
            count: Counter { base: 480 + async_irq as u64, per_s: 1 },
        });
    }
    for (v, irq) in nic.irqs.iter().enumerate() {
        out.push(IrqLine {
            irq: *irq,
            chip: chip.clone(),
            hwirq: v as u32 + 1,
            flow: "edge",
            action: format!("mlx5_comp{v}@pci:{}", nic.pci),
            affinity: affinity(host, *irq),
            count: Counter { base: 1_000_000 + *irq as u64 * 1009, per_s: rate },
        });
    }
}

/// Every numbered IRQ of the host, ascending.
pub(crate) fn irq_lines(host: &LabHost) -> Vec<IrqLine> {
    let generic: [(u32, &str, u32, &str, &str, Counter); 6] = [
        (0, "IR-IO-APIC", 2, "edge", "timer", Counter::fixed(36)),
        (8, "IR-IO-APIC", 8, "edge", "rtc0", Counter::fixed(0)),
        (9, "IR-IO-APIC", 9, "fasteoi", "acpi", Counter::fixed(0)),
        (24, "DMAR-MSI", 0, "edge", "dmar0", Counter::fixed(0)),
        (25, "DMAR-MSI", 1, "edge", "dmar1", Counter::fixed(0)),
        (120, "IR-PCI-MSIX-0000:c3:00.0", 0, "edge", "eth0", Counter { base: 2_315_711, per_s: 20 }),
    ];
    let mut out: Vec<IrqLine> = generic
        .into_iter()
        .map(|(irq, chip, hwirq, flow, action, count)| IrqLine {
            irq,
            chip: chip.into(),
            hwirq,
            flow,
            action: action.into(),
            affinity: affinity(host, irq),
            count,
        })
        .collect();
    for nic in &host.nics {
        nic_lines(host, nic, &mut out);
    }
    out.sort_by_key(|l| l.irq);
    out.dedup_by_key(|l| l.irq);
    out
}

/// The CPU an IRQ is delivered to: the first of its affinity (the timer always on CPU 0).
fn effective_cpu(line: &IrqLine, cpus: u32) -> u32 {
    match line.affinity.iter().min() {
        Some(c) if line.affinity.len() < cpus as usize => *c,
        _ if line.irq == 0 => 0,
        _ => line.irq % cpus.max(1),
    }
}

/// x86 rows: `(name, description, base per CPU, growth per second per CPU)`.
const ARCH: [(&str, &str, u64, u64); 16] = [
    ("NMI", "Non-maskable interrupts", 117, 0),
    ("LOC", "Local timer interrupts", 5_112_044, 250),
    ("SPU", "Spurious interrupts", 0, 0),
    ("PMI", "Performance monitoring interrupts", 117, 0),
    ("IWI", "IRQ work interrupts", 12, 0),
    ("RTR", "APIC ICR read retries", 0, 0),
    ("RES", "Rescheduling interrupts", 21_873, 5),
    ("CAL", "Function call interrupts", 3_410, 1),
    ("TLB", "TLB shootdowns", 518, 0),
    ("TRM", "Thermal event interrupts", 0, 0),
    ("THR", "Threshold APIC interrupts", 0, 0),
    ("MCE", "Machine check exceptions", 0, 0),
    ("MCP", "Machine check polls", 312, 0),
    ("PIN", "Posted-interrupt notification event", 0, 0),
    ("NPI", "Nested posted-interrupt event", 0, 0),
    ("PIW", "Posted-interrupt wakeup event", 0, 0),
];

/// `cat /proc/interrupts`.
pub(crate) fn proc_interrupts(host: &LabHost, elapsed: Duration) -> String {
    let cpus = host.cpus.max(1);
    let mut s = format!("{:w$}", "", w = PREC + 8);
    for c in 0..cpus {
        let _ = write!(s, "CPU{c:<8}");
    }
    s.push('\n');
    for line in irq_lines(host) {
        let _ = write!(s, "{:>PREC$}: ", line.irq);
        let cpu = effective_cpu(&line, cpus);
        for c in 0..cpus {
            let v = if c == cpu { line.count.at(elapsed) } else { 0 };
            let _ = write!(s, "{v:>10} ");
        }
        let _ = writeln!(s, " {:>8} {:>PREC$}-{:<8}  {}", line.chip, line.hwirq, line.flow, line.action);
    }
    for (name, desc, base, per_s) in ARCH {
        let _ = write!(s, "{name:>PREC$}: ");
        for c in 0..cpus {
            let spread = if base == 0 { 0 } else { (c as u64 * 37) % 101 };
            let mut counter = Counter { base: base + spread, per_s };
            if name == "MCP" {
                // One poll every five minutes.
                counter = Counter { base: base + elapsed.as_secs() / 300, per_s: 0 };
            }
            let _ = write!(s, "{:>10} ", counter.at(elapsed));
        }
        let _ = writeln!(s, "  {desc}");
        if name == "MCP" {
            let _ = writeln!(s, "{:>PREC$}: {:>10}", "ERR", 0);
            let _ = writeln!(s, "{:>PREC$}: {:>10}", "MIS", 0);
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::healthy_host;
    use crate::faults::{Fault, apply};

    #[test]
    fn mlx5_lines_have_the_kernel_layout() {
        let out = proc_interrupts(&healthy_host(0), Duration::ZERO);
        let header = out.lines().next().unwrap();
        assert!(header.starts_with("            CPU0       CPU1       "));
        let comp0 = out.lines().find(|l| l.ends_with("mlx5_comp0@pci:0000:1a:00.0")).unwrap();
        assert!(comp0.starts_with(" 140: "), "{comp0}");
        assert!(comp0.contains("  IR-PCI-MSIX-0000:1a:00.0    1-edge      mlx5_comp0@pci:0000:1a:00.0"));
        assert!(out.contains(" IR-IO-APIC    2-edge      timer\n"));
        assert!(out.contains(" IR-IO-APIC    9-fasteoi   acpi\n"));
        assert!(out.contains("mlx5_async0@pci:0000:3a:00.0\n"));
        assert!(out.contains("\n ERR:          0\n MIS:          0\n"));
        // 32 count columns of 11 characters after the 6-character IRQ column.
        assert_eq!(comp0.find("  IR-PCI").unwrap(), 6 + 32 * 11 - 1);
    }

    #[test]
    fn parses_back_with_counts_on_the_affinity_cpu() {
        let host = healthy_host(0);
        let t = Duration::from_secs(10);
        let p = fabcheck_parse::linux::interrupts::parse(&proc_interrupts(&host, t)).expect("parses");
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(p.value.cpus.len(), 32);
        let comps: Vec<_> = p.value.irqs_matching("mlx5_comp").collect();
        assert_eq!(comps.len(), 24);
        for irq in comps {
            let n: u32 = irq.irq.parse().unwrap();
            let cpu = host.irq_affinity[&n][0] as usize;
            assert!(irq.counts[cpu] > 0);
            assert_eq!(irq.counts.iter().filter(|c| **c > 0).count(), 1);
        }
        let mut overlapped = healthy_host(0);
        apply(&mut overlapped, &"gpu001=irq-overlap".parse::<Fault>().unwrap()).unwrap();
        let p = fabcheck_parse::linux::interrupts::parse(&proc_interrupts(&overlapped, t)).unwrap();
        let second = p.value.irqs_matching("mlx5_comp0@pci:0000:3a:00.0").next().unwrap();
        assert!(second.counts[0] > 0, "moved onto the first NIC's core 0");
    }
}
