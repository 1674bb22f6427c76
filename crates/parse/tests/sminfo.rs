//! `sminfo` on the real samples in tests/fixtures/sminfo (see SOURCES.md there).
use fabcheck_parse::linux::sminfo::parse;

#[test]
fn master_sm_at_lid_4() {
    let text = include_str!("fixtures/sminfo/sminfo-master-lid4-magnate3.txt");
    let parsed = parse(text).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let sm = parsed.value;
    assert_eq!((sm.sm_lid, sm.sm_guid.as_str()), (4, "0x8c0eb0300f6fc26"));
    assert_eq!((sm.activity_count, sm.priority, sm.state), (5568705, 15, 3));
    assert_eq!(sm.state_name, "SMINFO_MASTER");
}

/// What infiniband-diags print when no MAD port can be opened (here from `ibhosts`): an error
/// that names the cause, never an empty fact.
#[test]
fn mad_port_open_failure_is_an_error() {
    let text = include_str!("fixtures/sminfo/ibhosts-mad-port-open-failure-magnate3.txt");
    let err = parse(text).expect_err("no SM information");
    assert!(err.message.contains("could not query the fabric"), "{err}");
    assert!(err.message.contains("mad_rpc_open_port: client_register for mgmt 1 failed"), "{err}");
    for parser in ["perfquery", "iblinkinfo", "ibstat"] {
        let err = fabcheck_parse::parse_to_json(parser, text).expect("known source").expect_err("fails");
        assert!(err.message.contains("mad_rpc_open_port"), "{parser}: {err}");
    }
}
