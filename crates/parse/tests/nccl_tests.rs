//! nccl-tests output on every real sample in tests/fixtures/nccl_tests (see SOURCES.md there).
use fabcheck_parse::nccl::nccl_tests::{NcclRun, Row, parse};

fn row(run: &NcclRun, size: u64) -> &Row {
    run.rows.iter().find(|r| r.size_bytes == size).expect("row of that size")
}

fn busbw(run: &NcclRun, size: u64) -> (Option<f64>, Option<f64>) {
    let r = row(run, size);
    (r.out_of_place.busbw_gbs, r.in_place.as_ref().and_then(|m| m.busbw_gbs))
}

fn warning_lines(warnings: &[fabcheck_parse::ParseWarning]) -> Vec<usize> {
    warnings.iter().map(|w| w.line).collect()
}

#[test]
fn gcp_h100_16_gpus_all_reduce_without_nccl_log() {
    let text = include_str!("fixtures/nccl_tests/gcp-a3mega-h100-2node-16gpu-all_reduce_perf-tcpxo.txt");
    let parsed = parse(text).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let run = &parsed.value;
    assert_eq!(run.rows.len(), 31);
    assert_eq!(busbw(run, 8_589_934_592), (Some(338.82), Some(337.35)));
    assert_eq!(busbw(run, 1_073_741_824), (Some(297.86), Some(298.82)));
    let largest = row(run, 8_589_934_592);
    assert_eq!(largest.count, 2_147_483_648);
    assert_eq!((largest.dtype.as_str(), largest.redop.as_deref(), largest.root), ("float", Some("sum"), Some(-1)));
    assert_eq!(largest.out_of_place.time_us, Some(47535.0));
    assert_eq!(largest.out_of_place.algbw_gbs, Some(180.71));
    assert_eq!(run.avg_busbw_gbs, Some(70.742));
    assert_eq!((run.out_of_bounds, run.wrong), (Some(0), Some(0)));
    assert!(run.rows.iter().all(|r| r.out_of_place.wrong == Some(0)));
    assert_eq!(run.ranks.len(), 16);
    let r = &run.ranks[15];
    assert_eq!((r.rank, r.group, r.pid, r.host.as_str(), r.device), (15, Some(0), 6740, "ztan-mig-gq73", 7));
    assert_eq!((r.bus_id.as_str(), r.gpu_name.as_str()), ("0000:8c:00", "NVIDIA H100 80GB HBM3"));
    let params = run.params.as_ref().expect("nThread line");
    assert_eq!((params.min_bytes, params.max_bytes, params.step_factor), (Some(8), Some(8_589_934_592), Some(2)));
    assert_eq!(params.validation, Some(true));
    // No NCCL_DEBUG lines: nothing is known about the network.
    assert_eq!((run.transport.as_deref(), run.gdr), (None, None));
    assert!(run.hcas.is_empty() && run.errors.is_empty());
}

#[test]
fn moc_h100_roce_all_reduce_without_gdr() {
    let text = include_str!("fixtures/nccl_tests/moc-h100-roce-2node-1gpu-all_reduce_perf-nccl2.26-debug-info.log");
    let parsed = parse(text).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let run = &parsed.value;
    assert_eq!(run.rows.len(), 13);
    assert_eq!(busbw(run, 26_843_545_600), (Some(14.97), Some(15.00)));
    assert_eq!(busbw(run, 1_073_741_824), (Some(15.12), Some(15.13)));
    assert_eq!(run.avg_busbw_gbs, Some(15.0418));
    assert_eq!((run.out_of_bounds, run.wrong), (Some(0), Some(0)));
    assert_eq!(run.transport.as_deref(), Some("RoCE"));
    assert_eq!(
        run.transport_evidence.as_deref(),
        Some("Using network IB + NET/IB : Using [0]mlx5_5:1/RoCE [RO]; OOB eno7np0:169.254.103.56<0>")
    );
    assert_eq!(run.hcas, ["mlx5_5:1"]);
    assert_eq!(run.oob_interface.as_deref(), Some("eno7np0"));
    assert_eq!(run.network.as_deref(), Some("IB"));
    // "Connected all rings, use ring PXN 0 GDR 0", and the channels are `via NET/IB/1`.
    assert_eq!(run.gdr, Some(false));
    assert_eq!(run.gdr_evidence.as_deref(), Some("Connected all rings, use ring PXN 0 GDR 0"));
    assert_eq!((run.gdr_capable, run.net_channels), (None, 4));
    assert_eq!(run.nccl_version.as_deref(), Some("2.26.2+cuda."));
    assert_eq!(run.env["NCCL_IB_HCA"], "mlx5_5");
    assert_eq!(run.env["NCCL_IB_GID_INDEX"], "3");
    assert_eq!(run.env["NCCL_SOCKET_IFNAME"], "eno7np0");
    assert_eq!(run.env["NCCL_ALGO"], "RING");
    assert_eq!(run.ranks.len(), 2);
    assert_eq!(run.ranks[1].host, "MOC-R4PCC04U35");
    assert_eq!(run.params.as_ref().and_then(|p| p.step_bytes), Some(2_147_483_648));
    // 25 INFO lines it does not need, and the 6 lines of the Algo Matrix table.
    assert_eq!(run.info_lines_ignored, 31);
    assert!(run.errors.is_empty());
}

#[test]
fn moc_h100_roce_sendrecv_with_na_in_place_wrong() {
    let text = include_str!("fixtures/nccl_tests/moc-h100-roce-2node-1gpu-sendrecv_perf-nccl2.26-debug-info.log");
    let parsed = parse(text).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let run = &parsed.value;
    assert_eq!(run.rows.len(), 13);
    assert_eq!(busbw(run, 26_843_545_600), (Some(13.96), Some(13.97)));
    assert_eq!(busbw(run, 9_663_676_416), (Some(13.93), Some(13.96)));
    let largest = row(run, 26_843_545_600);
    assert_eq!(largest.out_of_place.wrong, Some(0));
    assert_eq!(largest.in_place.as_ref().map(|m| m.wrong), Some(None));
    assert_eq!(run.avg_busbw_gbs, Some(13.9592));
    assert_eq!((run.out_of_bounds, run.wrong), (Some(0), Some(0)));
    assert_eq!(run.transport.as_deref(), Some("RoCE"));
    assert_eq!(run.hcas, ["mlx5_5:1"]);
    // No ring line for send/recv; the channels are `via NET/IB/1/Shared`, without GDRDMA.
    assert_eq!(run.gdr, Some(false));
    assert_eq!(run.gdr_evidence.as_deref(), Some("Channel 00/1 : 1[0] -> 0[0] [receive] via NET/IB/1/Shared"));
    assert_eq!(run.net_channels, 4);
}

#[test]
fn old_broadcast_table_over_sockets_cut_after_first_row() {
    let text =
        include_str!("fixtures/nccl_tests/issue-nccl-tests-82-broadcast-socket-ib-disabled-no-libibverbs-PARTIAL.log");
    let parsed = parse(text).expect("parses");
    let run = &parsed.value;
    // The only row has no line end: kept, with a warning that the output may be cut.
    assert_eq!(warning_lines(&parsed.warnings), [16]);
    assert_eq!(run.rows.len(), 1);
    let r = &run.rows[0];
    assert_eq!((r.size_bytes, r.count, r.dtype.as_str(), r.redop.as_deref(), r.root), (8, 2, "float", None, Some(0)));
    assert_eq!(busbw(run, 8), (Some(0.00), Some(0.00)));
    assert_eq!(r.out_of_place.time_us, Some(45.82));
    assert_eq!(r.in_place.as_ref().and_then(|m| m.time_us), Some(38.17));
    // `-c 0`: the old `error` column says N/A.
    assert_eq!((r.out_of_place.max_error, r.out_of_place.wrong), (None, None));
    assert_eq!(run.params.as_ref().and_then(|p| p.validation), Some(false));
    assert_eq!((run.avg_busbw_gbs, run.out_of_bounds, run.wrong), (None, None, None));
    assert_eq!(run.test.as_deref(), Some("broadcast_perf"));
    assert!(run.command.as_deref().is_some_and(|c| c.starts_with("mpirun --bind-to none")));
    assert_eq!(run.nccl_version.as_deref(), Some("2.9.6+cuda11.2"));
    assert_eq!(run.env["NCCL_IB_DISABLE"], "1");
    assert_eq!(run.env["NCCL_SOCKET_IFNAME"], "eth0");
    assert_eq!(run.transport.as_deref(), Some("Socket"));
    assert_eq!(run.transport_evidence.as_deref(), Some("Failed to open libibverbs.so[.1]"));
    assert!(run.hcas.is_empty());
    assert_eq!(run.gdr, None);
    let hosts: Vec<_> = run.errors.iter().map(|e| e.host.as_deref()).collect();
    assert_eq!(hosts, [Some("v100-gpu-1"), Some("v100-gpu-5")]);
    assert_eq!(run.errors[0].source.as_deref(), Some("misc/ibvwrap.cc:63"));
    let r = &run.ranks[1];
    assert_eq!((r.rank, r.group, r.pid, r.host.as_str()), (1, None, 9210, "v100-gpu-5"));
    assert_eq!((r.bus_id.as_str(), r.gpu_name.as_str()), ("0x00", "Tesla V100-PCIE-16GB"));
}

#[test]
fn a100_ib_init_section_only() {
    let text = include_str!("fixtures/nccl_tests/issue-nccl-tests-182-a100-pcie-ib-nccl2.19-init-PARTIAL.log");
    let parsed = parse(text).expect("parses");
    let run = &parsed.value;
    // Cut right after `NCCL INFO`.
    assert_eq!(warning_lines(&parsed.warnings), [17]);
    assert!(run.rows.is_empty());
    assert_eq!(run.avg_busbw_gbs, None);
    assert_eq!(run.transport.as_deref(), Some("IB"));
    assert_eq!(run.hcas, ["mlx5_0:1"]);
    assert_eq!(run.oob_interface.as_deref(), Some("ibs65"));
    // Cut before any channel is connected.
    assert_eq!(run.gdr, None);
    assert_eq!(run.nccl_version.as_deref(), Some("2.19.3+cuda12.3"));
    assert_eq!(run.env["NCCL_IB_HCA"], "mlx5_0");
    assert_eq!(run.env["NCCL_IB_MERGE_VFS"], "0");
    let r = &run.ranks[0];
    assert_eq!((r.rank, r.group, r.host.as_str(), r.device, r.bus_id.as_str()), (1, Some(0), "testgpu1", 1, "0x03"));
    assert_eq!(r.gpu_name, "NVIDIA A100-PCIE-40GB");
    assert!(run.errors.is_empty());
}

#[test]
fn h100_ib_sharp_bootstrap_failure() {
    let text =
        include_str!("fixtures/nccl_tests/issue-nccl-tests-294-h100-ib-sharp-bootstrap-family-error-PARTIAL.log");
    let parsed = parse(text).expect("parses");
    let run = &parsed.value;
    assert_eq!(warning_lines(&parsed.warnings), [16]);
    assert_eq!(run.transport.as_deref(), Some("IB"));
    assert_eq!(run.network.as_deref(), Some("IBext_v6"));
    let expected: Vec<String> = (1..=8).map(|i| format!("mlx5_{i}:1")).collect();
    assert_eq!(run.hcas, expected);
    assert!(run.sharp);
    assert_eq!(run.oob_interface.as_deref(), Some("ens7"));
    assert_eq!(run.gdr, None);
    assert_eq!(run.errors.len(), 2);
    for e in &run.errors {
        assert_eq!(e.host.as_deref(), Some("h100-4"));
        assert_eq!(e.source.as_deref(), Some("misc/socket.cc:397"));
        assert!(e.message.contains("family 33621 is neither AF_INET(2) nor AF_INET6(10)"));
        assert_eq!((e.status, e.vendor_err), (None, None));
    }
    assert_eq!(run.errors[1].line, 14);
    assert!(run.rows.is_empty() && run.avg_busbw_gbs.is_none());
}

#[test]
fn roce_completion_errors_retry_exceeded_then_flushed() {
    let text = include_str!("fixtures/nccl_tests/issue-nccl-1814-roce-status12-vendor-err-129-then-249-PARTIAL.log");
    let parsed = parse(text).expect("parses");
    let run = &parsed.value;
    assert_eq!(warning_lines(&parsed.warnings), [13]);
    let got: Vec<_> = run.errors.iter().map(|e| (e.line, e.status, e.vendor_err, e.opcode.as_deref())).collect();
    assert_eq!(
        got,
        [
            (1, Some(12), Some(129), Some("129")),
            (6, Some(5), Some(249), Some("32656")),
            (11, Some(5), Some(249), Some("32656")),
        ]
    );
    let e = &run.errors[0];
    assert_eq!(e.host.as_deref(), Some("hostname-test"));
    assert_eq!(e.peer.as_deref(), Some("172.36.143.59<44206>"));
    assert_eq!(e.source.as_deref(), Some("ib_plugin.c:1615"));
    // NCCL prints GIDs only for an Ethernet link layer.
    assert_eq!(run.transport.as_deref(), Some("RoCE"));
    assert!(run.hcas.is_empty());
    assert_eq!(run.gdr, None);
    assert_eq!(run.info_lines_ignored, 7);
}

#[test]
fn ib_completion_errors_old_format_on_three_hosts() {
    let text = include_str!("fixtures/nccl_tests/issue-nccl-928-h100-ib-error4-vendor-err-81-PARTIAL.log");
    let parsed = parse(text).expect("parses");
    let run = &parsed.value;
    assert_eq!(warning_lines(&parsed.warnings), [13]);
    let got: Vec<_> =
        run.errors.iter().map(|e| (e.host.as_deref(), e.status, e.vendor_err, e.opcode.as_deref())).collect();
    assert_eq!(
        got,
        [
            (Some("H100-2"), Some(4), Some(81), Some("32564")),
            (Some("H100-1"), Some(4), Some(81), Some("32613")),
            (Some("H100-5"), Some(4), Some(81), Some("32639")),
        ]
    );
    assert_eq!(run.errors[0].peer.as_deref(), Some("fe80::966d:ae03:8b:df78%ib0<53249>"));
    assert_eq!(run.errors[0].source.as_deref(), Some("transport/net_ib.cc:1295"));
    assert_eq!(run.transport.as_deref(), Some("IB"));
    assert!(run.rows.is_empty());
}

#[test]
fn json_field_names_follow_the_contract() {
    let text = include_str!("fixtures/nccl_tests/moc-h100-roce-2node-1gpu-all_reduce_perf-nccl2.26-debug-info.log");
    let json = fabcheck_parse::parse_to_json("nccl_tests", text).expect("known source").expect("parses").value;
    let last = &json["rows"][12];
    assert_eq!(last["size_bytes"], 26_843_545_600_u64);
    assert_eq!(last["out_of_place"]["busbw_gbs"], 14.97);
    assert_eq!(last["in_place"]["busbw_gbs"], 15.0);
    assert_eq!(json["avg_busbw_gbs"], 15.0418);
    assert_eq!(json["wrong"], 0);
    assert_eq!(json["transport"], "RoCE");
    assert_eq!(json["hcas"][0], "mlx5_5:1");
    assert_eq!(json["gdr"], false);
    assert!(fabcheck_parse::sources().contains(&"nccl_tests"));
}

#[test]
fn what_nccl_uses_is_kept_per_host() {
    let run =
        parse(include_str!("fixtures/nccl_tests/moc-h100-roce-2node-1gpu-all_reduce_perf-nccl2.26-debug-info.log"))
            .unwrap()
            .value;
    let net = &run.hosts["MOC-R4PCC04U37"];
    assert_eq!((net.hcas.as_slice(), net.socket), (["mlx5_5:1".to_string()].as_slice(), false));
    let run = parse(include_str!(
        "fixtures/nccl_tests/issue-nccl-tests-82-broadcast-socket-ib-disabled-no-libibverbs-PARTIAL.log"
    ))
    .unwrap()
    .value;
    let socket: Vec<&str> = run.hosts.iter().filter(|(_, n)| n.socket).map(|(h, _)| h.as_str()).collect();
    assert_eq!(socket, ["v100-gpu-1", "v100-gpu-5"]);
}

/// NCCL 2.4.2 starts its socket transport for the bootstrap on every rank, so each host prints
/// a `NET/Socket : Using` list (flannel.1 in it) while its rings go over NET/IB: no host is a
/// socket host, the run is RoCE, and each host keeps its own interface list.
#[test]
fn socket_interface_lists_beside_an_ib_run_do_not_make_it_a_socket_run() {
    let text = [
        include_str!("fixtures/nccl_tests/issue-nccl-224-2.4.2-roce-socket-list-flannel-excerpt1-PARTIAL.log"),
        include_str!("fixtures/nccl_tests/issue-nccl-224-2.4.2-roce-socket-list-flannel-excerpt2-PARTIAL.log"),
        include_str!("fixtures/nccl_tests/issue-nccl-224-2.4.2-roce-socket-list-flannel-excerpt3-PARTIAL.log"),
    ]
    .concat();
    let run = parse(&text).expect("parses").value;
    assert_eq!(run.transport.as_deref(), Some("RoCE"), "{:?}", run.transport_evidence);
    assert_eq!(run.hosts.keys().map(String::as_str).collect::<Vec<_>>(), ["gpu6", "gpu7"]);
    for (host, net) in &run.hosts {
        assert!(!net.socket, "{host}: {net:?}");
        assert_eq!(net.socket_interfaces, ["enp1s0f0", "enp96s0f0", "flannel.1"], "{host}");
        assert!(net.ib_channels > 0, "{host}: its rings go over NET/IB");
    }
    assert_eq!(run.hosts["gpu6"].hcas.len(), 34);
    // Which GPU of each host used which network device (`[cudaDev]` of the logging rank).
    assert_eq!(
        run.hosts["gpu6"].gpus_by_device.iter().map(|(d, g)| (*d, g.clone())).collect::<Vec<_>>(),
        [(1, vec![1])]
    );
    assert_eq!(run.hosts["gpu7"].gpus_by_device[&1], [0, 1]);
}

/// Two GPUs of one host through one network device: GPU 0 receives and GPU 1 sends on NET/IB/0.
#[test]
fn gpus_are_tied_to_the_network_device_they_use() {
    let run = parse(include_str!("fixtures/nccl_tests/issue-nccl-834-two-gpus-one-nic-net-ib-0-PARTIAL.log"))
        .expect("parses")
        .value;
    let net = &run.hosts["SH-IDC1-10-142-5-42"];
    assert_eq!(net.ib_channels, 2);
    assert_eq!(net.gpus_by_device.iter().map(|(d, g)| (*d, g.clone())).collect::<Vec<_>>(), [(0, vec![0, 1])]);
    // The other host's lines are all intra-node (P2P/IPC): no network device.
    assert!(run.hosts["SH-IDC1-10-142-5-123"].gpus_by_device.is_empty());
    assert_eq!(run.net_channels, 2);
}

/// No libibverbs: the host's data goes over sockets, on a list that takes a libvirt bridge and
/// container veths.
#[test]
fn a_socket_host_keeps_its_whole_interface_list() {
    let run = parse(include_str!("fixtures/nccl_tests/issue-vllm-16714-socket-virbr0-veth-no-libibverbs-PARTIAL.log"))
        .expect("parses")
        .value;
    assert_eq!(run.transport.as_deref(), Some("Socket"));
    let net = &run.hosts["ada6000-02"];
    assert!(net.socket && net.ib_unavailable);
    assert_eq!(
        net.socket_interfaces,
        ["enp3s0f0", "usb0", "virbr0", "vethba72486", "veth7c73dea", "vethdab3b18", "veth0f7a669", "vethea5e805"]
    );
}

/// Completion errors with IPv6 GIDs, `remoteGids` glued to the GID, with and without `hca`.
#[test]
fn completion_errors_give_side_peer_and_both_gids() {
    let run = parse(include_str!("fixtures/nccl_tests/issue-nccl-1405-ib-plugin-completion-ipv6-gids-PARTIAL.log"))
        .expect("parses")
        .value;
    assert_eq!(run.errors.len(), 3);
    let e = &run.errors[0];
    assert_eq!((e.status, e.vendor_err, e.direction.as_deref()), (Some(12), Some(129), Some("Recv")));
    assert_eq!(e.peer.as_deref(), Some("10.216.210.236<54862>"));
    assert_eq!(
        (e.local_gid.as_deref(), e.remote_gid.as_deref()),
        (Some("fd00:1148:9000:5000:4:200:3:ff22"), Some("fd00:1148:9000:5000:4:200:3:ff1f"))
    );
    assert_eq!(e.hca, None);
    assert_eq!(run.transport.as_deref(), Some("RoCE"), "GIDs are printed on an Ethernet link layer");
    let run =
        parse(include_str!("fixtures/nccl_tests/roce-tutorial-completion-fe80-gids-hca-PROVENANCE-WEAK-PARTIAL.log"))
            .expect("parses")
            .value;
    let found: Vec<_> = run
        .errors
        .iter()
        .map(|e| (e.host.as_deref(), e.status, e.vendor_err, e.hca.as_deref(), e.remote_gid.as_deref()))
        .collect();
    assert_eq!(
        found,
        [
            (Some("atl1g3r4u9gpu"), Some(5), Some(249), Some("mlx5_9"), Some("fe80::9e63:c0ff:feab:b9ca")),
            (Some("atl1g3r1u16gpu"), Some(12), Some(129), Some("mlx5_10"), Some("fe80::9e63:c0ff:feab:b6b2")),
        ]
    );
}

/// Wrong results on one size of a two-node GH200 run over Slingshot: the `#wrong` columns and the
/// footer both say so.
#[test]
fn gh200_slingshot_wrong_results_at_one_size() {
    let text = include_str!(
        "fixtures/nccl_tests/gh200-2node-slingshot-cxi-all_reduce-wrong-1048576-FAILED-nccl-tests-369.txt"
    );
    let run = parse(text).expect("parses").value;
    assert_eq!((run.nccl_tests_version.as_deref(), run.nccl_version.as_deref()), (Some("2.17.8"), Some("2.29.2")));
    assert_eq!(run.rows.len(), 25);
    let r = row(&run, 1_048_576);
    assert_eq!((r.out_of_place.wrong, r.in_place.as_ref().and_then(|m| m.wrong)), (Some(96), Some(32)));
    assert_eq!((run.out_of_bounds, run.wrong), (Some(4), Some(128)));
    assert_eq!(run.avg_busbw_gbs, Some(4.79995));
    assert!(run.errors.iter().any(|e| e.message.contains("Test failure")), "{:?}", run.errors);
}

/// Two runs saved as one output, the first failed: the failure is not undone by the clean
/// second run, and the second run's header is warned about.
#[test]
fn two_runs_in_one_output_keep_the_first_ones_failure() {
    let text =
        include_str!("fixtures/nccl_tests/dgx2-v100-12gpu-old-2.0-all_gather-FAILED-then-all_reduce-OK-two-runs.txt");
    let parsed = parse(text).expect("parses");
    let run = &parsed.value;
    assert_eq!(run.out_of_bounds, Some(4), "4 from all_gather, 0 from all_reduce");
    assert!(run.wrong >= Some(4));
    let second = text.lines().enumerate().filter(|(_, l)| l.starts_with("# nThread")).nth(1).map(|(i, _)| i + 1);
    let warned = parsed.warnings.iter().find(|w| w.message.contains("another run starts here")).expect("warned");
    assert_eq!(Some(warned.line), second);
}

/// One host, no verbs library: the data goes through shared memory and sockets, so the ring's
/// `GDR 1` says nothing about GPUDirect RDMA.
#[test]
fn a_socket_run_claims_no_gpudirect_rdma() {
    let text = include_str!(
        "fixtures/nccl_tests/rtx5090x2-nccl2.25.1-debug-info-cuda-failure-after-header-nccl-tests-287.txt"
    );
    let run = parse(text).expect("parses").value;
    assert_eq!((run.transport.as_deref(), run.net_channels), (Some("Socket"), 0));
    assert_eq!((run.gdr, run.gdr_evidence.as_deref()), (None, None));
    assert!(run.errors.iter().any(|e| e.message.contains("Cuda failure")), "{:?}", run.errors);
}

#[test]
fn mpirun_tag_output_with_ssh_notices_and_an_empty_tagged_last_line() {
    let text = include_str!("fixtures/nccl_tests/eks-efa-g4dn-t4-2node-mpirun-tag-output-info-interleaved-aws-ofi.txt");
    let parsed = parse(text).expect("parses");
    // ssh's `Warning: Permanently added ...` (lines 1-2) and the bare `[1,0]<stdout>:` at the end
    // are launcher chatter, not lines of the run that were not understood.
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let run = parsed.value;
    assert_eq!(run.rows.len(), 31);
    assert_eq!(busbw(&run, 1_073_741_824), (Some(3.11), Some(3.12)));
    assert_eq!(busbw(&run, 0), (Some(0.0), Some(0.0)));
    assert_eq!(row(&run, 65_536).out_of_place.time_us, Some(115.8));
    assert_eq!((run.avg_busbw_gbs, run.out_of_bounds), (Some(1.15327), Some(0)));
    assert_eq!(run.nccl_version.as_deref(), Some("2.12.7+cuda11.4"));
    assert_eq!((run.network.as_deref(), run.net_channels, run.gdr), (Some("AWS Libfabric"), 8, Some(false)));
    let hosts: Vec<_> = run.ranks.iter().map(|r| (r.rank, r.host.as_str(), r.gpu_name.as_str())).collect();
    assert_eq!(hosts, [(0, "test-nccl-efa-worker-0", "Tesla T4"), (1, "test-nccl-efa-worker-1", "Tesla T4")]);
}

/// nccl-tests built without MPI under mpirun: twelve processes, each printing itself as rank 0.
#[test]
fn processes_that_each_are_rank_0_are_warned_about() {
    let text = include_str!(
        "fixtures/nccl_tests/h100-2node-nonmpi-build-12-procs-all-rank0-header-fragment-PROVENANCE-WEAK.txt"
    );
    let parsed = parse(text).expect("parses");
    let run = &parsed.value;
    assert_eq!(run.ranks.len(), 12);
    assert!(run.ranks.iter().all(|r| r.rank == 0 && r.device == 0));
    let hosts: std::collections::BTreeSet<&str> = run.ranks.iter().map(|r| r.host.as_str()).collect();
    assert_eq!(hosts, ["cnode2-001", "cnode2-002"].into());
    // Said once, at the first repeat, naming what it means.
    assert_eq!(warning_lines(&parsed.warnings), [7]);
    assert!(parsed.warnings[0].message.contains("built without MPI"), "{}", parsed.warnings[0].message);
}

/// nccl-tests of 2017-2019 printed its column header and summary without `#`: the failure
/// (`Out of bounds values : 2 FAILED`) is read, not lost among unrecognised lines.
#[test]
fn old_summary_without_hash_keeps_the_failure() {
    let text = include_str!(
        "fixtures/nccl_tests/v100-sxm2-8gpu-all_gather-4G-old-nohash-format-error-1e+00-oob-2-FAILED-nccl-tests-37.txt"
    );
    let parsed = parse(text).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let run = parsed.value;
    assert_eq!((run.out_of_bounds, run.avg_busbw_gbs, run.wrong), (Some(2), Some(128.942), Some(2)));
    assert_eq!(run.rows.len(), 1);
    assert_eq!(busbw(&run, 4_294_967_296), (Some(129.05), Some(128.84)));
    assert_eq!(row(&run, 4_294_967_296).out_of_place.max_error, Some(1.0));
}

/// The first failure printed into the row it cut (`... -1 node0: Test CUDA failure ...`) is the
/// run's cause: kept first among the errors; the cut row is warned about.
#[test]
fn a_failure_printed_into_a_row_is_kept() {
    let text = include_str!(
        "fixtures/nccl_tests/h800-2node-16rank-alltoall-device-api-D1-illegal-memory-access-mid-row-nccl-tests-355.txt"
    );
    let parsed = parse(text).expect("parses");
    let run = &parsed.value;
    assert!(run.rows.is_empty());
    let first = &run.errors[0];
    assert_eq!((first.host.as_deref(), first.source.as_deref()), (Some("node0"), Some("common.cu:389")));
    assert_eq!(first.message, "Test CUDA failure common.cu:389 'an illegal memory access was encountered'");
    assert_eq!(run.errors.len(), 7);
    assert_eq!(run.nccl_version.as_deref(), Some("2.28.7+cuda13.0"));
    assert!(parsed.warnings.iter().any(|w| w.line == 27 && w.message.contains("5 fields")), "{:?}", parsed.warnings);
}

/// A harness's `COMMAND:` line with shell-escaped commas, Open MPI help between the header and
/// the rows: the environment is read as the processes got it.
#[test]
fn shell_escaped_environment_values_are_unescaped() {
    let text = include_str!(
        "fixtures/nccl_tests/rtx6000d-cx8-2node-16rank-alltoall-nccl-tests-2.18.3-nccl2.30.3-unalign-ompi-help-between-header-and-rows-PROVENANCE-WEAK.txt"
    );
    let run = parse(text).expect("parses").value;
    assert_eq!(run.env["NCCL_IB_HCA"], "mlx5_2,mlx5_3,mlx5_0,mlx5_1,mlx5_6,mlx5_7,mlx5_4,mlx5_5");
    assert_eq!(run.env["NCCL_DEBUG_SUBSYS"], "GRAPH,NET,TUNING");
    assert!(run.command.as_deref().is_some_and(|c| c.starts_with("mpirun --allow-run-as-root --hostfile")));
    assert_eq!((run.rows.len(), run.avg_busbw_gbs, run.out_of_bounds), (24, Some(21.1462), Some(0)));
    assert_eq!(run.ranks.len(), 16);
}

/// RCCL's own version line, and Open MPI's abort banner, which starts with `mpirun` but is no
/// command line.
#[test]
fn rccl_version_and_an_abort_banner() {
    let text = include_str!(
        "fixtures/nccl_tests/rccl-2.18.3-2node-bnxt-roce-ucx-plugin-reduce_perf-old-rccl-tests-header-ucx-error-rccl-1261.log"
    );
    let parsed = parse(text).expect("parses");
    assert!(parsed.warnings.iter().all(|w| w.line != 1), "the header is understood: {:?}", parsed.warnings);
    let run = parsed.value;
    assert_eq!(run.nccl_version.as_deref(), Some("2.18.3+hip5.7"));
    assert_eq!(run.command, None);
    assert!(run.errors.iter().any(|e| e.message.starts_with("Test NCCL failure common.cu:1158")), "{:?}", run.errors);
    // Old rccl-tests' header, every key with a colon.
    let p = run.params.as_ref().expect("the `# nThreads:` header");
    assert_eq!((p.n_threads, p.n_gpus, p.min_bytes, p.max_bytes), (Some(1), Some(1), Some(1024), Some(536_870_912)));
    assert_eq!((p.step_factor, p.warmup_iters, p.iters, p.agg_iters), (Some(2), Some(5), Some(20), Some(1)));
    assert_eq!((p.validation, p.graph), (Some(true), Some(0)));
}

#[test]
fn rows_printed_in_pieces_between_nccl_log_lines_are_put_back_together() {
    // NCCL_DEBUG with the COLL subsystem logs every launch from the test's own process, between
    // the pieces nccl-tests prints a row in, glued to their last number (`-1mew0:...`).
    let text = include_str!(
        "fixtures/nccl_tests/a100pcie-1node-2gpu-nccl2.27.7-trace-gdr-disabled-virtual-nic-mlx5_0+mlx5_1-huge.log"
    );
    let parsed = parse(text).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let run = &parsed.value;
    let sizes: Vec<u64> = run.rows.iter().map(|r| r.size_bytes).collect();
    assert_eq!(sizes, (23..=33).map(|p| 1u64 << p).collect::<Vec<_>>());
    assert_eq!(busbw(run, 8_388_608), (Some(100.66), Some(103.59)));
    assert_eq!(busbw(run, 8_589_934_592), (Some(216.60), Some(216.61)));
    let first = row(run, 8_388_608);
    assert_eq!(
        (first.count, first.dtype.as_str(), first.redop.as_deref(), first.root),
        (2_097_152, "float", Some("sum"), Some(-1))
    );
    assert_eq!((first.out_of_place.time_us, first.out_of_place.algbw_gbs), (Some(83.33), Some(100.66)));
    assert_eq!(row(run, 2_147_483_648).out_of_place.time_us, Some(10284.0));
    assert!(run.rows.iter().all(|r| r.out_of_place.wrong == Some(0)));
    assert_eq!((run.avg_busbw_gbs, run.out_of_bounds), (Some(178.078), Some(0)));
    // The glued numbers are not host names: the only host is mew0.
    assert_eq!(run.hosts.keys().collect::<Vec<_>>(), ["mew0"]);
    assert!(run.errors.is_empty());
    // Every channel is P2P between the two GPUs: the ring's `GDR 1` is about no network
    // transfer, and the adapters said `GPU Direct RDMA Disabled for HCA`.
    assert_eq!((run.net_channels, run.gdr, run.gdr_capable), (0, None, Some(false)));
}

#[test]
fn one_gpu_alone_copies_out_of_place_and_does_nothing_in_place() {
    // The last 20 lines of a one-GPU all_reduce: bus bandwidth 0, in place 0.10 µs, so newer
    // nccl-tests print algbw in six characters (`11061`, `1e+06`).
    let text = include_str!(
        "fixtures/nccl_tests/rtx5090-1gpu-nccl2.29.7-inplace-algbw-1e+06-g-format-TAIL20-PROVENANCE-WEAK.txt"
    );
    let parsed = parse(text).expect("parses");
    let messages: Vec<&str> = parsed.warnings.iter().map(|w| w.message.as_str()).collect();
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(messages[0].contains("before any column header"), "{messages:?}");
    let run = &parsed.value;
    assert_eq!(run.rows.len(), 12);
    assert_eq!(busbw(run, 134_217_728), (Some(0.0), Some(0.0)));
    let largest = row(run, 134_217_728);
    assert_eq!((largest.out_of_place.time_us, largest.out_of_place.algbw_gbs), (Some(176.33), Some(761.18)));
    let in_place = largest.in_place.as_ref().expect("in place");
    assert_eq!((in_place.time_us, in_place.algbw_gbs), (Some(0.10), Some(1e6)));
    assert_eq!(row(run, 1_048_576).in_place.as_ref().and_then(|m| m.algbw_gbs), Some(11061.0));
    assert_eq!((run.avg_busbw_gbs, run.out_of_bounds, run.wrong), (Some(0.0), Some(0), Some(0)));
}

#[test]
fn an_older_completion_error_and_libmlx5s_dump_before_it() {
    // NCCL 2.4 named no peer; libmlx5 dumps the failed completion's words before NCCL's WARN.
    let text = include_str!(
        "fixtures/nccl_tests/nccl-tests-old-2019-2node-roce-mlx5_2-gid3-header-then-mlx5-cqe-hexdump-error4-vendor81-nccl-tests-24-PARTIAL.log"
    );
    let parsed = parse(text).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let run = &parsed.value;
    assert_eq!(run.errors.len(), 1);
    let e = &run.errors[0];
    assert_eq!((e.line, e.host.as_deref(), e.source.as_deref()), (12, Some("gpu5"), Some("transport/net_ib.cu:788")));
    assert_eq!((e.status, e.opcode.as_deref(), e.vendor_err), (Some(4), Some("1"), Some(81)));
    assert_eq!((e.peer.as_deref(), e.direction.as_deref()), (None, None));
    assert!(run.rows.is_empty());
}

#[test]
fn each_host_keeps_the_nccl_version_its_ranks_printed() {
    // Two hosts on different NCCL builds (2.26.2 and 2.26.5), four processes that each ran alone.
    let text = include_str!(
        "fixtures/nccl_tests/v100-2host-4proc-nonmpi-build-nranks1-x4-interleaved-tables-mixed-nccl-2.26.2-2.26.5-rocep-roce-avg0-ssbandjl.log"
    );
    let parsed = parse(text).expect("parses");
    let run = &parsed.value;
    let versions: Vec<(&str, Option<&str>)> =
        run.hosts.iter().map(|(h, n)| (h.as_str(), n.nccl_version.as_deref())).collect();
    assert_eq!(versions, [("gdr114", Some("2.26.5+cuda12.9")), ("gdr116", Some("2.26.2+cuda12.8"))]);
    // ssh's X11 complaint is no line of the run's.
    assert!(!parsed.warnings.iter().any(|w| w.message.contains("Authorization")), "{:?}", parsed.warnings);
    assert_eq!(run.ranks.len(), 4);
    assert!(run.ranks.iter().all(|r| r.rank == 0));
}

#[test]
fn runs_without_result_checks_have_no_wrong_count_whatever_the_footer_says() {
    // `-c 0`, `#wrong` N/A, and the footer nccl-tests prints either way: `0 OK`.
    let na = parse(include_str!("fixtures/nccl_tests/dstack-docs-gcp-a3mega-all_gather-tcpxo-c0-na-wrong.txt"))
        .expect("parses")
        .value;
    assert_eq!(na.params.as_ref().and_then(|p| p.validation), Some(false), "the header without its `#` is read");
    assert_eq!((na.rows.len(), na.out_of_bounds, na.wrong), (11, Some(0), None));
    assert_eq!(busbw(&na, 8_589_934_592), (Some(188.54), Some(188.59)));
    assert_eq!(na.avg_busbw_gbs, Some(146.948));
    // `-c 0` again, this build printing `0` in `#wrong`: still nothing was checked.
    let zeros = parse(include_str!("fixtures/nccl_tests/dstack-docs-gcp-a3high-all_gather-tcpx-c0-zero-wrong.txt"))
        .expect("parses")
        .value;
    assert_eq!(zeros.rows[0].out_of_place.wrong, Some(0), "as printed");
    assert_eq!((zeros.out_of_bounds, zeros.wrong), (Some(0), None));
    assert_eq!(busbw(&zeros, 8_589_934_592), (Some(50.17), Some(50.29)));
}

/// NCCL 2.1/2.2 (horovod/horovod#489): no `NCCL` before `INFO`, the socket interface as `NET :
/// Using interface`, the sideband interface, the HCAs as `NET/IB: [0] mlx4_0:1/IB`, and `Using
/// internal Network IB`: an IB run whose socket interface is the bootstrap's.
#[test]
fn nccl_2_1_log_lines_without_the_nccl_marker_are_an_ib_run() {
    let text = include_str!(
        "fixtures/nccl_tests/issue-horovod-489-nccl2.1-info-without-nccl-marker-internal-network-ib-mlx4-PARTIAL.log"
    );
    let parsed = parse(text).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let run = &parsed.value;
    assert_eq!(run.transport.as_deref(), Some("IB"));
    assert_eq!(run.transport_evidence.as_deref(), Some("Using internal Network IB + NET/IB: [0] mlx4_0:1/IB"));
    assert_eq!(run.network.as_deref(), Some("IB"));
    assert_eq!(run.hcas, ["mlx4_0:1"]);
    assert_eq!(run.socket_interfaces, ["eth0"]);
    assert_eq!(run.oob_interface.as_deref(), Some("eth0"));
    let host = &run.hosts["nmyjs-202-75"];
    assert_eq!(
        (host.hcas.as_slice(), host.socket_interfaces.as_slice()),
        (&["mlx4_0:1".to_string()][..], &["eth0".to_string()][..])
    );
    assert!(!host.socket, "{host:?}");
    // `Using NCCL Low-latency ...` x5, `comm ... rank`, `CUDA Dev 0, IB Ports`: recognised, not needed.
    assert_eq!(run.info_lines_ignored, 8);
    assert!(run.errors.is_empty());
}

/// NCCL 2.3.7 (NVIDIA/nccl#207): the sideband line names ib0, yet `Using internal Network
/// Socket` says the data goes over TCP: a socket run, on ib0.
#[test]
fn nccl_2_3_sideband_line_is_not_the_transport() {
    let text = include_str!(
        "fixtures/nccl_tests/issue-nccl-207-2.3.7-net-using-interface-ib0-sideband-internal-network-socket-PARTIAL.log"
    );
    let parsed = parse(text).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let run = &parsed.value;
    assert_eq!(run.nccl_version.as_deref(), Some("2.3.7+cuda9.0"));
    assert_eq!((run.transport.as_deref(), run.network.as_deref()), (Some("Socket"), Some("Socket")));
    assert_eq!(run.transport_evidence.as_deref(), Some("Using internal Network Socket"));
    assert!(run.hcas.is_empty());
    assert_eq!(run.socket_interfaces, ["ib0"]);
    assert_eq!(run.oob_interface.as_deref(), Some("ib0"));
    let host = &run.hosts["gpu2"];
    assert_eq!(host.socket_interfaces, ["ib0"]);
    assert!(host.socket, "{host:?}");
}

/// NCCL 2.4.7 (horovod/horovod#1523): every rank lists its socket interface before the first
/// rank's `NET/IB : Using`, and NCCL < 2.5 prints no `Using network`: IB, and no host a socket one.
#[test]
fn nccl_2_4_socket_list_before_net_ib_is_an_ib_run() {
    let text = include_str!(
        "fixtures/nccl_tests/issue-horovod-1523-nccl2.4.7-socket-list-before-net-ib-no-using-network-PARTIAL.log"
    );
    let parsed = parse(text).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let run = &parsed.value;
    assert_eq!(run.transport.as_deref(), Some("IB"));
    assert_eq!(run.transport_evidence.as_deref(), Some("NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:192.168.11.1<0>"));
    assert_eq!(run.network, None);
    assert_eq!(run.hcas, ["mlx5_0:1"]);
    assert_eq!(run.socket_interfaces, ["ib0"]);
    assert_eq!(run.oob_interface.as_deref(), Some("ib0"));
    assert_eq!(run.env["NCCL_IB_DISABLE"], "0");
    assert_eq!(run.hosts.keys().collect::<Vec<_>>(), ["master_node", "secondary_node"]);
    assert!(run.hosts.values().all(|h| !h.socket), "{:?}", run.hosts);
    assert_eq!(run.hosts["secondary_node"].socket_interfaces, ["ib0"]);
    assert!(run.hosts["secondary_node"].hcas.is_empty());
}

/// NVIDIA/nccl#1053: NCCL_SOCKET_IFNAME=lo, IB disabled: the socket interface is the loopback.
#[test]
fn socket_transport_on_the_loopback() {
    let text = include_str!("fixtures/nccl_tests/issue-nccl-1053-socket-ifname-lo-127.0.0.1-ib-disabled-PARTIAL.log");
    let parsed = parse(text).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let run = &parsed.value;
    assert_eq!(run.transport.as_deref(), Some("Socket"));
    assert_eq!(run.transport_evidence.as_deref(), Some("Using network Socket"));
    assert_eq!(run.socket_interfaces, ["lo"]);
    assert_eq!(run.env["NCCL_SOCKET_IFNAME"], "lo");
    assert_eq!(run.env["NCCL_IB_DISABLE"], "1");
    assert_eq!(run.hosts["axa"].socket_interfaces, ["lo"]);
    assert!(run.hosts["axa"].socket);
    assert_eq!(run.gdr_capable, Some(false));
}
