//! `lsmod` on the real samples in tests/fixtures/lsmod (see SOURCES.md there).

use fabcheck_parse::linux::lsmod::parse;

#[test]
fn grep_excerpt_with_nvidia_peermem_and_mlx5() {
    let path = format!(
        "{}/tests/fixtures/lsmod/ubuntu2404-v100s-nvidia580-peermem-mlx5-grep-vectorflow-gx.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    let parsed = parse(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(parsed.warnings, vec![]);
    let l = parsed.value;
    assert_eq!(l.modules.len(), 16);
    assert!(l.has("nvidia_peermem"));
    assert!(l.has("nvidia-peermem"));
    assert!(l.has("mlx5_ib"));
    assert!(l.has("mlx5_core"));
    assert!(!l.has("nv_peer_mem"));
    let peermem = l.modules.iter().find(|m| m.name == "nvidia_peermem").unwrap();
    assert_eq!((peermem.size, peermem.used_by_count), (16384, 0));
    assert!(peermem.used_by.is_empty());
    let nvidia = l.modules.iter().find(|m| m.name == "nvidia").unwrap();
    assert_eq!(nvidia.size, 104153088);
    assert_eq!(nvidia.used_by, ["nvidia_uvm", "nvidia_peermem"]);
    let ib_core = l.modules.iter().find(|m| m.name == "ib_core").unwrap();
    assert_eq!((ib_core.size, ib_core.used_by_count), (528384, 8));
    assert_eq!(ib_core.used_by.len(), 8);
    let compat = l.modules.iter().find(|m| m.name == "mlx_compat").unwrap();
    assert_eq!(compat.used_by_count, 13);
    assert_eq!(compat.used_by.last().map(String::as_str), Some("mlx5_core"));
}
