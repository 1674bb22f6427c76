//! Facts of `nvidia-smi topo -m`, as its parser (`fabcheck_parse::linux::nvidia_smi_topo`) produces them.

use serde::Serialize;
use std::collections::BTreeMap;

/// The topology matrix.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Topo {
    /// Header cells in order: `GPU0`.., `NIC0`.. (or `mlx5_0`..), then the affinity columns.
    pub columns: Vec<String>,
    /// One row per GPU or NIC.
    pub rows: Vec<Row>,
    /// `NIC0` -> `mlx5_0` from the `NIC Legend:` block.
    pub nic_legend: BTreeMap<String, String>,
}

/// One row of the matrix.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// `GPU0`, `NIC3`, `mlx5_1` ...
    pub name: String,
    /// Matrix column -> connection (`X`, `PIX`, `PXB`, `PHB`, `NODE`, `SYS`, `NV18` ...).
    pub cells: BTreeMap<String, String>,
    /// `CPU Affinity`, e.g. `0-23,48-71`.
    pub cpu_affinity: Option<String>,
    /// `NUMA Affinity`.
    pub numa_affinity: Option<String>,
    /// `GPU NUMA ID` (`N/A` on most GPUs).
    pub gpu_numa_id: Option<String>,
}
