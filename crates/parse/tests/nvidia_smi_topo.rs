//! `nvidia-smi topo -m` on the real samples in tests/fixtures/nvidia_smi_topo (see SOURCES.md there).
use fabcheck_parse::linux::nvidia_smi_topo::{Topo, parse};

fn cell<'a>(t: &'a Topo, name: &str, column: &str) -> &'a str {
    t.cell(t.row(name).expect("row present"), column).unwrap_or("")
}

#[test]
fn four_gpus_four_nics_spaces_with_legends() {
    let text = include_str!("fixtures/nvidia_smi_topo/asus-esc8000a-e12-4x-rtx6000ada-4x-mlx5-topo-m.txt");
    let parsed = parse(text).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let t = &parsed.value;
    assert_eq!(t.columns.len(), 11);
    assert_eq!(t.columns[8..], ["CPU Affinity", "NUMA Affinity", "GPU NUMA ID"]);
    assert_eq!(t.rows.len(), 8);
    assert_eq!(cell(t, "GPU0", "GPU0"), "X");
    assert_eq!(cell(t, "GPU0", "NIC0"), "NODE");
    assert_eq!(cell(t, "GPU2", "NIC3"), "NODE");
    assert_eq!(cell(t, "GPU3", "NIC0"), "SYS");
    assert_eq!(cell(t, "NIC2", "NIC3"), "PIX");
    let g2 = t.row("GPU2").unwrap();
    assert_eq!(
        (g2.cpu_affinity.as_deref(), g2.numa_affinity.as_deref(), g2.gpu_numa_id.as_deref()),
        (Some("32-63"), Some("1"), Some("N/A"))
    );
    assert_eq!(t.row("NIC0").unwrap().cpu_affinity, None);
    assert_eq!(t.nic_legend.get("NIC3").map(String::as_str), Some("mlx5_3"));
    assert_eq!(t.nic_legend.len(), 4);
}

#[test]
fn two_gpus_phb() {
    let text = include_str!("fixtures/nvidia_smi_topo/puget-wrx90-2x-rtx6000ada-2x-mlx5-topo-m.txt");
    let parsed = parse(text).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let t = &parsed.value;
    assert_eq!(t.rows.len(), 4);
    assert_eq!(cell(t, "GPU0", "GPU1"), "PHB");
    assert_eq!(cell(t, "GPU1", "NIC1"), "NODE");
    assert_eq!(cell(t, "NIC1", "NIC0"), "PIX");
    assert_eq!(t.row("GPU1").unwrap().cpu_affinity.as_deref(), Some("0-23"));
    assert_eq!(t.nic_legend.get("NIC1").map(String::as_str), Some("mlx5_1"));
}

#[test]
fn h100_tab_separated_with_empty_field_cut_at_nic6() {
    let text = include_str!("fixtures/nvidia_smi_topo/h100-8gpu-9nic-tab-separated-nccl-1453-PARTIAL.txt");
    let parsed = parse(text).expect("parses");
    let t = &parsed.value;
    assert_eq!(t.columns.len(), 20);
    assert_eq!(t.rows.len(), 14); // GPU0-7, NIC0-5; the cut `NIC` line is not a row.
    assert_eq!(cell(t, "GPU0", "GPU1"), "NV18");
    assert_eq!(cell(t, "GPU0", "NIC8"), "PIX");
    assert_eq!(cell(t, "GPU7", "NIC1"), "PIX");
    assert_eq!(cell(t, "GPU4", "NIC0"), "SYS");
    assert!(t.cells(t.row("NIC0").unwrap()).all(|(c, v)| v == "SYS" || (c == "NIC0" && v == "X")));
    // `0-79\t0\t\tN/A`: the empty field does not shift GPU NUMA ID.
    let g0 = t.row("GPU0").unwrap();
    assert_eq!(
        (g0.cpu_affinity.as_deref(), g0.numa_affinity.as_deref(), g0.gpu_numa_id.as_deref()),
        (Some("0-79"), Some("0"), Some("N/A"))
    );
    assert_eq!(t.row("GPU5").unwrap().cpu_affinity.as_deref(), Some("80-159"));
    assert!(t.nic_legend.is_empty());
    assert!(parsed.warnings.iter().all(|w| w.line == 16), "{:?}", parsed.warnings);
    assert_eq!(parsed.warnings.len(), 2);
}

#[test]
fn dgx2_sixteen_gpus_old_mlx5_columns_cut_in_gpu4() {
    let text = include_str!("fixtures/nvidia_smi_topo/dgx2-16gpu-10-mlx5-nv6-nccl-tests-78-PARTIAL.txt");
    let parsed = parse(text).expect("parses");
    let t = &parsed.value;
    assert_eq!(t.columns.len(), 27);
    assert_eq!((t.columns[16].as_str(), t.columns[26].as_str()), ("mlx5_0", "CPU Affinity"));
    assert_eq!(t.rows.len(), 5);
    assert_eq!(cell(t, "GPU0", "GPU15"), "NV6");
    assert_eq!(cell(t, "GPU0", "mlx5_0"), "PIX");
    assert_eq!(cell(t, "GPU2", "mlx5_1"), "PIX");
    assert_eq!(cell(t, "GPU4", "mlx5_2"), "PIX");
    assert_eq!(t.row("GPU1").unwrap().cpu_affinity.as_deref(), Some("0-23,48-71"));
    assert_eq!(t.row("GPU0").unwrap().numa_affinity, None);
    // Line 1 is the `nvidia-smi topo -m` command; line 7 ends without a newline (cut).
    assert_eq!(parsed.warnings.iter().map(|w| w.line).collect::<Vec<_>>(), [1, 7]);
}

/// What the checks ask of the matrix: which GPUs sit next to a NIC, how a GPU reaches a NIC by
/// its device name (through the NIC legend, or a column named after the device), NVLink counts.
#[test]
fn placement_questions_on_real_matrices() {
    let asus = parse(include_str!("fixtures/nvidia_smi_topo/asus-esc8000a-e12-4x-rtx6000ada-4x-mlx5-topo-m.txt"))
        .expect("parses")
        .value;
    assert_eq!(asus.gpus(), [0, 1, 2, 3]);
    assert_eq!(asus.gpu_nic_link(3, "mlx5_0"), Some("SYS"));
    assert!(asus.gpus_near("mlx5_0").is_empty(), "NODE is not near: no GPU shares a PCIe switch with it");
    assert_eq!(asus.min_nvlinks(), None, "RTX 6000 Ada cards have no NVLink");
    let h100 = parse(include_str!("fixtures/nvidia_smi_topo/h100-8gpu-9nic-tab-separated-nccl-1453-PARTIAL.txt"))
        .expect("parses")
        .value;
    assert_eq!(h100.min_nvlinks(), Some(18));
    let dgx2 = parse(include_str!("fixtures/nvidia_smi_topo/dgx2-16gpu-10-mlx5-nv6-nccl-tests-78-PARTIAL.txt"))
        .expect("parses")
        .value;
    assert_eq!(dgx2.gpu_nic_link(2, "mlx5_1"), Some("PIX"));
    // PIX for GPU0/1, PXB (bridges, no host bridge) for GPU2/3: all four are near mlx5_0.
    assert_eq!(dgx2.gpus_near("mlx5_0"), [0, 1, 2, 3]);
    assert_eq!(dgx2.gpus_near("mlx5_4"), Vec::<u32>::new());
    assert_eq!(dgx2.min_nvlinks(), Some(6));
}

/// GPUs with no CPU or NUMA affinity (tab-separated, the fields empty): the affinities are
/// empty, and `N/A` stays the GPU NUMA ID instead of shifting into the CPU affinity.
#[test]
fn h800_empty_affinities_stay_empty() {
    let text = include_str!("fixtures/nvidia_smi_topo/h800-4gpu-17nic-empty-affinity-verl-sglang-doc.txt");
    let parsed = parse(text).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let t = &parsed.value;
    assert_eq!((t.columns.len(), t.rows.len(), t.nic_legend.len()), (24, 21, 17));
    for gpu in ["GPU0", "GPU1", "GPU2", "GPU3"] {
        let r = t.row(gpu).unwrap();
        assert_eq!(
            (r.cpu_affinity.as_deref(), r.numa_affinity.as_deref(), r.gpu_numa_id.as_deref()),
            (None, None, Some("N/A")),
            "{gpu}"
        );
    }
    assert_eq!(cell(t, "GPU0", "GPU3"), "NV8");
    assert_eq!((cell(t, "GPU0", "NIC4"), cell(t, "GPU0", "NIC13"), cell(t, "GPU0", "NIC5")), ("PIX", "PIX", "SYS"));
    assert_eq!((cell(t, "GPU3", "NIC8"), cell(t, "GPU3", "NIC16")), ("PIX", "PIX"));
    assert_eq!(cell(t, "NIC16", "NIC16"), "X");
    assert_eq!(t.row("NIC0").unwrap().cpu_affinity, None);
    assert_eq!(t.nic_legend.get("NIC16").map(String::as_str), Some("mlx5_16"));
}

/// A copy whose tab expansion glued two column names (`NIC7NIC8`) is warned about at the
/// header, not read silently as a NIC of that name.
#[test]
fn glued_header_columns_are_warned_about() {
    let text = include_str!("fixtures/nvidia_smi_topo/a100-sxm4-8gpu-10nic-pxb-mangled-columns-nccl-tests-311.txt");
    let parsed = parse(text).expect("parses");
    let header = parsed.warnings.iter().find(|w| w.message.contains("`NIC7NIC8`")).expect("the glued column is named");
    assert_eq!(header.line, text.lines().position(|l| l.contains("NIC7NIC8")).unwrap() + 1);
    let t = &parsed.value;
    assert_eq!(t.row("GPU0").unwrap().cpu_affinity.as_deref(), Some("24-31,88-95"));
}

/// `topo -mp` of an 8-GPU H100 with 12 HCAs, three of them on GPU0's PCIe switch: placement
/// reads them as near GPU0, the interleaved CPU affinities stay whole.
#[test]
fn h100_twelve_nics_three_on_one_gpu() {
    let text = include_str!("fixtures/nvidia_smi_topo/h100-8gpu-12nic-ib-dell-topo-mp-deepep-397.txt");
    let parsed = parse(text).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let t = &parsed.value;
    assert_eq!((t.gpus().len(), t.nic_legend.len()), (8, 12));
    for nic in ["mlx5_0", "mlx5_1", "mlx5_2"] {
        assert_eq!(t.gpus_near(nic), [0], "{nic}");
    }
    assert_eq!(t.gpus_near("mlx5_3"), [1]);
    assert_eq!(t.gpu_nic_link(0, "mlx5_3"), Some("NODE"));
    assert_eq!(t.gpu_nic_link(4, "mlx5_0"), Some("SYS"));
    assert_eq!(t.min_nvlinks(), None, "-mp shows PCIe only");
    let (g0, g4) = (t.row("GPU0").unwrap(), t.row("GPU4").unwrap());
    assert_eq!((g0.cpu_affinity.as_deref(), g0.numa_affinity.as_deref()), (Some("0,2,4,6,8,10"), Some("0")));
    assert_eq!((g4.cpu_affinity.as_deref(), g4.gpu_numa_id.as_deref()), (Some("1,3,5,7,9,11"), Some("N/A")));
}
