//! `nvidia-smi topo -m`: the GPU/NIC distance matrix, tab-separated as nvidia-smi prints it
//! (nvidia-smi-topo/h100-8gpu-9nic-tab-separated-nccl-1453-PARTIAL.txt keeps the tabs: ` X ` on
//! the diagonal, an empty field between `NUMA Affinity` and `GPU NUMA ID`; the puget sample is the
//! same text with tabs expanded, and gives the legend).
//!
//! The lab's topology: NVLink (NV18, H100 SXM) between all GPUs; two NUMA nodes splitting CPUs
//! and GPUs in halves; NIC n sits behind the PCIe switch of GPU `n * gpus / nics` (PIX), is NODE to
//! the other GPUs of its NUMA node and SYS to the rest.

use crate::shell::Output;
use crate::state::LabHost;
use std::fmt::Write as _;

const LEGEND: &str = "\nLegend:\n\n  X    = Self\n  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)\n  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node\n  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)\n  PIX  = Connection traversing at most a single PCIe bridge\n  NV#  = Connection traversing a bonded set of # NVLinks\n";

/// `nvidia-smi topo -m`.
pub(crate) fn render(host: &LabHost) -> Output {
    if !host.modules.iter().any(|m| m == "nvidia") {
        return Output::fail(
            9,
            "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.\n\n",
            "",
        );
    }
    if host.gpus == 0 {
        return Output::fail(6, "No devices were found\n", "");
    }
    let gpus = host.gpus as usize;
    let nics = host.nics.len();
    let half_cpus = (host.cpus / 2).max(1);
    let gpu_node = |g: usize| usize::from(g >= gpus.div_ceil(2));
    let nic_gpu = |n: usize| n * gpus / nics.max(1);
    let nic_node = |n: usize| gpu_node(nic_gpu(n));
    let cpus_of = |node: usize| {
        let lo = node as u32 * half_cpus;
        format!("{lo}-{}", (lo + half_cpus - 1).min(host.cpus.saturating_sub(1)))
    };
    let mut s = String::new();
    for g in 0..gpus {
        let _ = write!(s, "\tGPU{g}");
    }
    for n in 0..nics {
        let _ = write!(s, "\tNIC{n}");
    }
    s.push_str("\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n");
    let pcie = |same_node: bool| if same_node { "NODE" } else { "SYS" };
    // `nic-shared`: the PCIe tree is hidden, every GPU-NIC pair looks as far as can be.
    let flat = host.nccl.flat_topology;
    let gpu_nic = |g: usize, n: usize| match (flat, nic_gpu(n) == g) {
        (true, _) => "SYS",
        (false, true) => "PIX",
        (false, false) => pcie(nic_node(n) == gpu_node(g)),
    };
    // `nvlink-down`: GPU 0 reaches the others over PCIe.
    let gpu_gpu = |g: usize, other: usize| match (host.nccl.nvlink_down && (g == 0 || other == 0), other == g) {
        (_, true) => " X ",
        (true, false) => pcie(gpu_node(g) == gpu_node(other)),
        (false, false) => "NV18",
    };
    for g in 0..gpus {
        let _ = write!(s, "GPU{g}");
        for other in 0..gpus {
            s.push('\t');
            s.push_str(gpu_gpu(g, other));
        }
        for n in 0..nics {
            s.push('\t');
            s.push_str(gpu_nic(g, n));
        }
        let _ = writeln!(s, "\t{}\t{}\t\tN/A", cpus_of(gpu_node(g)), gpu_node(g));
    }
    for n in 0..nics {
        let _ = write!(s, "NIC{n}");
        for g in 0..gpus {
            s.push('\t');
            s.push_str(gpu_nic(g, n));
        }
        for other in 0..nics {
            s.push('\t');
            s.push_str(if other == n { " X " } else { pcie(nic_node(n) == nic_node(other)) });
        }
        s.push('\n');
    }
    s.push_str(LEGEND);
    s.push_str("\nNIC Legend:\n\n");
    for (n, nic) in host.nics.iter().enumerate() {
        let _ = writeln!(s, "  NIC{n}: {}", nic.ibdev);
    }
    Output::ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::healthy_host;

    const PUGET: &str =
        include_str!("../../../parse/tests/fixtures/nvidia_smi_topo/puget-wrx90-2x-rtx6000ada-2x-mlx5-topo-m.txt");

    #[test]
    fn legend_as_the_sample_and_tab_rows() {
        let out = render(&healthy_host(0)).stdout;
        let legend = |t: &str| t.lines().skip_while(|l| *l != "Legend:").take(10).map(String::from).collect::<Vec<_>>();
        assert_eq!(legend(&out), legend(PUGET));
        assert!(out.starts_with("\tGPU0\tGPU1\tGPU2\tGPU3\tGPU4\tGPU5\tGPU6\tGPU7\tNIC0\tNIC1\tNIC2\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"));
        assert!(
            out.contains("\nGPU0\t X \tNV18\tNV18\tNV18\tNV18\tNV18\tNV18\tNV18\tPIX\tNODE\tSYS\t0-15\t0\t\tN/A\n")
        );
        assert!(out.ends_with("  NIC0: mlx5_0\n  NIC1: mlx5_1\n  NIC2: mlx5_2\n"));
    }

    #[test]
    fn parses_back() {
        let p = fabcheck_parse::linux::nvidia_smi_topo::parse(&render(&healthy_host(0)).stdout).expect("parses");
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(p.value.rows.len(), 11);
        assert_eq!(p.value.nic_legend.get("NIC2").map(String::as_str), Some("mlx5_2"));
        let gpu5 = p.value.rows.iter().find(|r| r.name == "GPU5").unwrap();
        assert_eq!(p.value.cell(gpu5, "NIC2"), Some("PIX"));
        assert_eq!(gpu5.cpu_affinity.as_deref(), Some("16-31"));
    }
}
