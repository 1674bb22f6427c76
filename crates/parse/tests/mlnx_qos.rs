//! `mlnx_qos -i IF` on the real samples in tests/fixtures/mlnx_qos (see SOURCES.md there).

use fabcheck_parse::linux::mlnx_qos::{MlnxQos, parse};

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/mlnx_qos/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn clean(name: &str) -> MlnxQos {
    let parsed = parse(&fixture(name)).unwrap();
    assert_eq!(parsed.warnings, vec![], "{name}");
    parsed.value
}

fn identity_tcs(q: &MlnxQos) {
    assert_eq!(q.tcs.len(), 8);
    for (p, tc) in &q.priority_to_tc {
        assert_eq!(p, tc);
    }
}

#[test]
fn cx7_trust_dscp_pfc5_custom_unsorted_dscp_map() {
    let q = clean("cx7-fw28.39-ens4np0-trust-dscp-pfc5-custom-dscp2prio-3fs-doc.txt");
    assert_eq!(q.dcbx_mode.as_deref(), Some("OS controlled"));
    assert_eq!(q.trust.as_deref(), Some("dscp"));
    assert_eq!(q.dscp_to_priority.len(), 64);
    assert_eq!(q.dscp_to_priority[&40], 5);
    assert_eq!(q.dscp_to_priority[&41], 5);
    assert_eq!(q.dscp_to_priority[&47], 5);
    assert_eq!(q.dscp_to_priority[&48], 6);
    assert_eq!(q.dscp_to_priority[&26], 3);
    assert_eq!(q.dscp_to_priority[&0], 0);
    assert_eq!(q.default_priority, None);
    assert_eq!(q.receive_buffer, Some(vec![19872, 220896, 0, 0, 0, 0, 0, 0]));
    assert_eq!(q.receive_buffer_max, Some(4_151_520));
    assert_eq!(q.cable_len, Some(30));
    assert_eq!(q.pfc_enabled, vec![5]);
    assert_eq!(q.pfc_buffer, Some(vec![0, 0, 0, 0, 0, 1, 0, 0]));
    identity_tcs(&q);
    let bw: Vec<_> = q.tcs.iter().map(|t| t.bw_percent).collect();
    assert_eq!(bw, [Some(9), Some(1), Some(80), Some(10), None, None, None, None]);
    assert_eq!(q.tcs[4].tsa.as_deref(), Some("strict"));
    assert_eq!(q.tcs[0].tsa.as_deref(), Some("ets"));
    assert_eq!(q.tcs[0].ratelimit.as_deref(), Some("unlimited"));
}

#[test]
fn page_rendered_ofed42_pfc_on_0_2_6_7() {
    let q = clean("mellanox-community-doc2792-ofed4.2-trust-dscp-pfc-0-2-6-7-PAGE-RENDERED.txt");
    assert_eq!(q.trust.as_deref(), Some("dscp"));
    assert_eq!(q.dscp_to_priority[&26], 3);
    assert_eq!(q.dscp_to_priority[&46], 5);
    assert_eq!(q.dscp_to_priority[&63], 7);
    assert_eq!(q.cable_len, Some(10));
    assert_eq!(q.pfc_enabled, vec![0, 2, 6, 7]);
    assert_eq!(q.pfc_buffer, None);
    assert_eq!(q.receive_buffer, None);
    assert_eq!(q.tcs.len(), 8);
    assert_eq!(q.tcs[0].priorities, vec![1]);
    assert_eq!(q.tcs[1].priorities, vec![0]);
    assert_eq!(q.priority_to_tc[&0], 1);
    assert_eq!(q.priority_to_tc[&1], 0);
    assert_eq!(q.tcs[6].tsa.as_deref(), Some("strict"));
    assert_eq!(q.tcs[6].bw_percent, None);
    assert_eq!(q.tcs[7].bw_percent, Some(40));
    assert_eq!(q.tcs[3].bw_percent, Some(10));
}

#[test]
fn trust_pcp_with_gbps_rate_limits_and_buffer_row_of_ones() {
    let q = clean("mlx5-enp175s0f0np0-trust-pcp-ratelimit-gbps-per-tc-magnate3.txt");
    assert_eq!(q.trust.as_deref(), Some("pcp"));
    assert!(q.dscp_to_priority.is_empty());
    assert_eq!(q.default_priority, None);
    assert_eq!(q.receive_buffer, Some(vec![0, 156096, 0, 0, 0, 0, 0, 0]));
    assert_eq!(q.cable_len, Some(7));
    assert_eq!(q.pfc_enabled, Vec::<u8>::new());
    assert_eq!(q.pfc_buffer, Some(vec![1; 8]));
    let rates: Vec<_> = q.tcs.iter().map(|t| t.ratelimit.clone().unwrap()).collect();
    assert_eq!(rates[0], "25.0 Gbps");
    assert_eq!(rates[1], "5.0 Gbps");
    assert_eq!(rates[2], "10.0 Gbps");
    assert!(q.tcs.iter().all(|t| t.tsa.as_deref() == Some("vendor")));
    identity_tcs(&q);
}

#[test]
fn crlf_trust_pcp_no_pfc_with_stray_markdown_fence() {
    let parsed = parse(&fixture("mlx5-ens14f0-trust-pcp-no-pfc-cpugl13-magnate3.txt")).unwrap();
    // The copy ends with the closing "```" of the markdown block: reported, not silently dropped.
    assert_eq!(parsed.warnings.len(), 1);
    assert_eq!(parsed.warnings[0].line, 25);
    let q = parsed.value;
    assert_eq!(q.dcbx_mode.as_deref(), Some("OS controlled"));
    assert_eq!(q.trust.as_deref(), Some("pcp"));
    assert_eq!(q.receive_buffer, Some(vec![262016, 0, 0, 0, 0, 0, 0, 0]));
    assert_eq!(q.cable_len, Some(7));
    assert!(q.pfc_enabled.is_empty());
    assert_eq!(q.pfc_buffer, Some(vec![0; 8]));
    assert_eq!(q.tcs[0].priorities, vec![1]);
    assert_eq!(q.tcs[7].priorities, vec![7]);
}

#[test]
fn prompt_line_default_state_prio0_on_tc1() {
    let q = clean("mlx5-ens6-trust-pcp-no-pfc-defaults-centos12-magnate3.txt");
    assert_eq!(q.trust.as_deref(), Some("pcp"));
    assert_eq!(q.receive_buffer, Some(vec![524160, 0, 0, 0, 0, 0, 0, 0]));
    assert_eq!(q.receive_buffer_max, None, "no max_buffer_size printed");
    assert!(q.pfc_enabled.is_empty());
    assert_eq!(q.priority_to_tc[&0], 1);
    assert_eq!(q.priority_to_tc[&1], 0);
    assert_eq!(q.priority_to_tc[&3], 3);
    assert_eq!(q.tcs[3].tsa.as_deref(), Some("vendor"));
}

#[test]
fn older_ofed_trust_dscp_pfc3_without_buffer_rows() {
    let q = clean("netarbiter-mlx5-eth4-trust-dscp-pfc3-tsa-vendor.txt");
    assert_eq!(q.trust.as_deref(), Some("dscp"));
    assert_eq!(q.dscp_to_priority[&26], 3);
    assert_eq!(q.dscp_to_priority[&48], 6);
    assert_eq!(q.dscp_to_priority.len(), 64);
    assert_eq!(q.pfc_enabled, vec![3]);
    assert_eq!(q.pfc_buffer, None);
    assert_eq!(q.receive_buffer, None);
    assert_eq!(q.cable_len, Some(7));
    assert_eq!(q.priority_to_tc[&3], 3);
}

#[test]
fn json_uses_the_contract_field_names() {
    let text = fixture("netarbiter-mlx5-eth4-trust-dscp-pfc3-tsa-vendor.txt");
    let json = fabcheck_parse::parse_to_json("mlnx_qos", &text).unwrap().unwrap().value;
    assert_eq!(json["trust"], "dscp");
    assert_eq!(json["pfc_enabled"], serde_json::json!([3]));
    assert_eq!(json["dscp_to_priority"]["26"], 3);
}

/// A DSCP moved to another priority (30 → 6), which mlnx_qos prints as a second `prio:6` row:
/// both rows are read, and the moved DSCP leaves priority 3.
#[test]
fn remapped_dscp_in_a_second_row_of_its_priority() {
    let q = clean("mlx5-ens14f0-dscp-remapped-dup-prio6-rows-buffer-map-magnate3-qos.txt");
    assert_eq!((q.dcbx_mode.as_deref(), q.trust.as_deref()), (Some("OS controlled"), Some("dscp")));
    assert_eq!(q.dscp_to_priority.len(), 64);
    assert_eq!((q.dscp_to_priority[&30], q.dscp_to_priority[&48], q.dscp_to_priority[&55]), (6, 6, 6));
    assert_eq!((q.dscp_to_priority[&31], q.dscp_to_priority[&26], q.dscp_to_priority[&24]), (3, 3, 3));
    assert_eq!(q.receive_buffer, Some(vec![80256, 80256, 896, 80256, 896, 896, 896, 896]));
    assert_eq!((q.cable_len, q.pfc_enabled.as_slice()), (Some(7), &[3][..]));
    assert_eq!(q.pfc_buffer, Some(vec![0, 2, 5, 7, 1, 2, 3, 6]));
    assert_eq!((q.priority_to_tc[&0], q.priority_to_tc[&1], q.priority_to_tc[&3]), (1, 0, 3));
    assert!(q.tcs.iter().all(|t| t.tsa.as_deref() == Some("vendor")));
}
