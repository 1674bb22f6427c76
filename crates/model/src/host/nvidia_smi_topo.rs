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

impl Topo {
    /// The GPUs of the matrix (`GPU3` → 3), in row order.
    pub fn gpus(&self) -> Vec<u32> {
        self.rows.iter().filter_map(|r| gpu_number(&r.name)).collect()
    }

    /// How GPU `gpu` reaches RDMA device `hca` (`PIX`, `PXB`, `NODE`, `SYS` ...): the NIC column
    /// the legend names `hca`, or a column named after the device (older drivers).
    pub fn gpu_nic_link(&self, gpu: u32, hca: &str) -> Option<&str> {
        let column = self.nic_legend.iter().find(|(_, dev)| dev.as_str() == hca).map_or(hca, |(col, _)| col.as_str());
        let row = self.rows.iter().find(|r| gpu_number(&r.name) == Some(gpu))?;
        row.cells.get(column).map(String::as_str)
    }

    /// The GPUs that sit next to `hca`: at most PCIe bridges between them (`PIX`, `PXB`), where
    /// NCCL pairs a GPU with its NIC.
    pub fn gpus_near(&self, hca: &str) -> Vec<u32> {
        self.gpus().into_iter().filter(|g| matches!(self.gpu_nic_link(*g, hca), Some("PIX" | "PXB"))).collect()
    }

    /// The fewest NVLinks between any two GPUs (`NV18` → 18); `None` when a pair has none, or
    /// there are fewer than two GPUs.
    pub fn min_nvlinks(&self) -> Option<u32> {
        let gpus: Vec<&Row> = self.rows.iter().filter(|r| gpu_number(&r.name).is_some()).collect();
        let mut fewest: Option<u32> = None;
        for row in &gpus {
            for other in gpus.iter().filter(|o| o.name != row.name) {
                let links = row.cells.get(&other.name)?.strip_prefix("NV")?.parse().ok()?;
                fewest = Some(fewest.map_or(links, |f: u32| f.min(links)));
            }
        }
        fewest
    }
}

/// `GPU3` → 3.
fn gpu_number(name: &str) -> Option<u32> {
    name.strip_prefix("GPU")?.parse().ok()
}
