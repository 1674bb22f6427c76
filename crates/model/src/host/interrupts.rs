//! Facts of `cat /proc/interrupts`, as its parser (`fabcheck_parse::linux::interrupts`) produces them.

use serde::Serialize;

/// The interrupt table.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Interrupts {
    /// CPU column names from the header (`CPU0`, `CPU1` ...); empty without a header.
    pub cpus: Vec<String>,
    /// Rows in the order printed.
    pub irqs: Vec<Irq>,
}

/// One row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Irq {
    /// `123`, or a name such as `NMI`.
    pub irq: String,
    /// Count per CPU column.
    pub counts: Vec<u64>,
    /// Interrupt chip, e.g. `IR-PCI-MSIX-0000:01:00.0` or `IR-PCI-MSI`.
    pub chip: Option<String>,
    /// Action names (`mlx5_comp0@pci:0000:03:00.0`) or the row's description.
    pub name: String,
}

impl Interrupts {
    /// Rows whose name contains `needle` (e.g. a PCI address or `mlx5_comp`).
    pub fn irqs_matching<'a>(&'a self, needle: &'a str) -> impl Iterator<Item = &'a Irq> + 'a {
        self.irqs.iter().filter(move |irq| irq.name.contains(needle))
    }
}
