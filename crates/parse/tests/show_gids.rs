//! `show_gids` on the real samples in tests/fixtures/show_gids (see SOURCES.md there).
use fabcheck_parse::linux::show_gids::{Gid, parse};

fn find<'a>(gids: &'a [Gid], dev: &str, index: u32) -> &'a Gid {
    gids.iter().find(|g| g.dev == dev && g.index == index).expect("gid present")
}

#[test]
fn nineteen_gids_mixed_roce_and_ib() {
    let text = include_str!("fixtures/show_gids/show_gids-centos12-19-gids-mixed-roce-ib-magnate3.txt");
    let parsed = parse(text).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let v = &parsed.value;
    assert_eq!((v.gids.len(), v.n_gids_found), (19, Some(19)));
    let g = find(&v.gids, "mlx5_2", 3);
    assert_eq!(g.gid, "0000:0000:0000:0000:0000:ffff:ac11:f238");
    assert_eq!(
        (g.ipv4.as_deref(), g.version.as_str(), g.netdev.as_deref()),
        (Some("172.17.242.56"), "v2", Some("ens6"))
    );
    // The row with an extra tab after the IPv4 cell.
    let g = find(&v.gids, "mlx5_3", 2);
    assert_eq!(
        (g.ipv4.as_deref(), g.version.as_str(), g.netdev.as_deref()),
        (Some("192.168.242.56"), "v1", Some("ens14f0"))
    );
    // The IB port: no IPv4, no netdev.
    let g = find(&v.gids, "mlx5_5", 0);
    assert_eq!((g.ipv4.clone(), g.version.as_str(), g.netdev.clone()), (None, "v1", None));
    // Link-local rows: no IPv4 cell.
    assert_eq!(find(&v.gids, "mlx5_0", 1).ipv4, None);
    assert_eq!(v.rocev2_ipv4_index("mlx5_2", 1), Some(3));
    assert_eq!(v.rocev2_ipv4_index("mlx5_3", 1), Some(3));
    assert_eq!(v.rocev2_ipv4_index("mlx5_0", 1), None);
    assert_eq!(v.rocev2_ipv4_index("mlx5_5", 1), None);
}

#[test]
fn two_link_local_pairs_before_the_ipv4_gids() {
    let text = include_str!("fixtures/show_gids/show_gids-cx6-mlx5_0-two-linklocal-gids-ibm-ssnr-pr4.txt");
    let parsed = parse(text).expect("parses");
    let v = &parsed.value;
    assert_eq!((v.gids.len(), v.n_gids_found), (6, Some(6)));
    assert_eq!(find(&v.gids, "mlx5_0", 4).ipv4.as_deref(), Some("172.19.0.60"));
    assert_eq!(find(&v.gids, "mlx5_0", 3).gid, "fe80:0000:0000:0000:1186:a6b1:3f0b:c441");
    // GID 0 (what the tool in the report used) is not it: index 5 is.
    assert_eq!(v.rocev2_ipv4_index("mlx5_0", 1), Some(5));
    // `[root@localhost ~]# show_gids mlx5_0`.
    assert_eq!(parsed.warnings.iter().map(|w| w.line).collect::<Vec<_>>(), [1]);
}

#[test]
fn indented_by_22_spaces_and_cut_mid_row() {
    let text = include_str!("fixtures/show_gids/show_gids-multi-hca-indented-nccl-tests-192-PARTIAL.txt");
    let parsed = parse(text).expect("parses");
    let v = &parsed.value;
    assert_eq!((v.gids.len(), v.n_gids_found), (8, None));
    let g = find(&v.gids, "mlx5_1", 3);
    assert_eq!(
        (g.ipv4.as_deref(), g.version.as_str(), g.netdev.as_deref()),
        (Some("11.0.0.73"), "v2", Some("ens2np0"))
    );
    assert_eq!(v.rocev2_ipv4_index("mlx5_0", 1), Some(3));
    assert_eq!(v.rocev2_ipv4_index("mlx5_1", 1), Some(3));
    // Line 1: the prompt; line 12: the cut `mlx5_2` row (unrecognised, then cut off).
    assert_eq!(parsed.warnings.iter().map(|w| w.line).collect::<Vec<_>>(), [1, 12, 12]);
}
