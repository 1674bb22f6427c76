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

#[test]
fn a_table_without_its_count_may_have_lost_rows() {
    // Published without show_gids' closing `n_gids_found=` line: the rows read are kept, and
    // that more may be missing is said.
    let text = include_str!(
        "fixtures/show_gids/show_gids-k8s-macvlan-pod-mlx5_4-net1-index-4-5-no-linklocal-no-footer-multus-1100-PARTIAL.txt"
    );
    let parsed = parse(text).expect("parses");
    let g: Vec<(u32, Option<&str>, &str, Option<&str>)> = parsed
        .value
        .gids
        .iter()
        .map(|g| (g.index, g.ipv4.as_deref(), g.version.as_str(), g.netdev.as_deref()))
        .collect();
    assert_eq!(g, [(4, Some("172.20.1.1"), "v1", Some("net1")), (5, Some("172.20.1.1"), "v2", Some("net1"))]);
    assert_eq!(parsed.value.n_gids_found, None);
    let warnings: Vec<(usize, &str)> = parsed.warnings.iter().map(|w| (w.line, w.message.as_str())).collect();
    assert_eq!(
        warnings,
        [(4, "no `n_gids_found=` line after the table: show_gids ends with it, so GIDs may be missing")]
    );
    // A count that is not the rows' is said too.
    let short = text.to_string() + "n_gids_found=3\n";
    assert!(parse(&short).unwrap().warnings[0].message.starts_with("n_gids_found=3, but 2 GID rows were read"));
}
