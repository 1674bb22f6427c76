//! Facts of `nvidia-smi topo -m`, as its parser (`fabcheck_parse::linux::nvidia_smi_topo`) produces them.

use serde::Serialize;
use serde::ser::{SerializeMap, SerializeStruct};
use std::collections::BTreeMap;

/// The topology matrix.
///
/// A matrix has a cell for every pair of GPUs and NICs, so its memory is bounded by design: the
/// distinct connections (`X`, `PIX`, `NV18`...) are kept once in `links`, and each cell is a
/// four-byte index into it, in the order of `matrix` (a 4 MiB output of thousands of rows costs
/// a few times its size, not a hundred). Serialized, each row's cells read as a map again.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Topo {
    /// Header cells in order: `GPU0`.., `NIC0`.. (or `mlx5_0`..), then the affinity columns.
    pub columns: Vec<String>,
    /// The matrix columns: `columns` without the affinity ones.
    pub matrix: Vec<String>,
    /// Each distinct connection once.
    pub links: Vec<String>,
    /// One row per GPU or NIC.
    pub rows: Vec<Row>,
    /// `NIC0` -> `mlx5_0` from the `NIC Legend:` block.
    pub nic_legend: BTreeMap<String, String>,
}

/// One row of the matrix.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Row {
    /// `GPU0`, `NIC3`, `mlx5_1` ...
    pub name: String,
    /// Its connection to each matrix column, as an index into [`Topo::links`], in the order of
    /// [`Topo::matrix`] (shorter when the row was cut).
    pub cells: Vec<u32>,
    /// `CPU Affinity`, e.g. `0-23,48-71`.
    pub cpu_affinity: Option<String>,
    /// `NUMA Affinity`.
    pub numa_affinity: Option<String>,
    /// `GPU NUMA ID` (`N/A` on most GPUs).
    pub gpu_numa_id: Option<String>,
}

impl Topo {
    /// Row `row`'s connection to matrix column `column` (`X`, `PIX`, `NV18`...).
    pub fn cell(&self, row: &Row, column: &str) -> Option<&str> {
        let at = self.matrix.iter().position(|c| c == column)?;
        let link = *row.cells.get(at)?;
        self.links.get(link as usize).map(String::as_str)
    }

    /// The row named `name`.
    pub fn row(&self, name: &str) -> Option<&Row> {
        self.rows.iter().find(|r| r.name == name)
    }

    /// Row `row`'s cells as (column, connection), in column order.
    pub fn cells<'a>(&'a self, row: &'a Row) -> impl Iterator<Item = (&'a str, &'a str)> + 'a {
        self.matrix
            .iter()
            .zip(&row.cells)
            .filter_map(|(c, l)| Some((c.as_str(), self.links.get(*l as usize)?.as_str())))
    }

    /// The GPUs of the matrix (`GPU3` → 3), in row order.
    pub fn gpus(&self) -> Vec<u32> {
        self.rows.iter().filter_map(|r| gpu_number(&r.name)).collect()
    }

    /// How GPU `gpu` reaches RDMA device `hca` (`PIX`, `PXB`, `NODE`, `SYS` ...): the NIC column
    /// the legend names `hca`, or a column named after the device (older drivers).
    pub fn gpu_nic_link(&self, gpu: u32, hca: &str) -> Option<&str> {
        let column = self.nic_legend.iter().find(|(_, dev)| dev.as_str() == hca).map_or(hca, |(col, _)| col.as_str());
        let row = self.rows.iter().find(|r| gpu_number(&r.name) == Some(gpu))?;
        self.cell(row, column)
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
                let links = self.cell(row, &other.name)?.strip_prefix("NV")?.parse().ok()?;
                fewest = Some(fewest.map_or(links, |f: u32| f.min(links)));
            }
        }
        fewest
    }
}

/// The matrix as `nvidia-smi topo -m` shows it: each row's cells by column name.
impl Serialize for Topo {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Topo", 3)?;
        s.serialize_field("columns", &self.columns)?;
        let rows: Vec<RowView> = self.rows.iter().map(|row| RowView { topo: self, row }).collect();
        s.serialize_field("rows", &rows)?;
        s.serialize_field("nic_legend", &self.nic_legend)?;
        s.end()
    }
}

struct RowView<'a> {
    topo: &'a Topo,
    row: &'a Row,
}

impl Serialize for RowView<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Row", 5)?;
        s.serialize_field("name", &self.row.name)?;
        s.serialize_field("cells", &Cells(self))?;
        s.serialize_field("cpu_affinity", &self.row.cpu_affinity)?;
        s.serialize_field("numa_affinity", &self.row.numa_affinity)?;
        s.serialize_field("gpu_numa_id", &self.row.gpu_numa_id)?;
        s.end()
    }
}

struct Cells<'a, 'b>(&'b RowView<'a>);

impl Serialize for Cells<'_, '_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.row.cells.len()))?;
        for (column, link) in self.0.topo.cells(self.0.row) {
            map.serialize_entry(column, link)?;
        }
        map.end()
    }
}

/// `GPU3` → 3.
fn gpu_number(name: &str) -> Option<u32> {
    name.strip_prefix("GPU")?.parse().ok()
}
