//! Facts of `grep -H '' /proc/irq/*/smp_affinity_list`, as its parser (`fabcheck_parse::linux::irq_affinity`) produces them.

use serde::Serialize;
use std::collections::BTreeMap;

/// The affinity of each IRQ.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct IrqAffinity {
    /// IRQ number -> CPUs allowed to serve it, ascending.
    pub irqs: BTreeMap<u32, Vec<u32>>,
}
