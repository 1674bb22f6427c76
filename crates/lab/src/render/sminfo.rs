//! `sminfo` (infiniband-diags): the master SM seen from the host's IB port.
//!
//! Success: ib-tools/sminfo-master-lid4-magnate3.txt,
//! `sminfo: sm lid 4 sm guid 0x8c0eb0300f6fc26, activity count 5568705 priority 15 state 3 SMINFO_MASTER`
//! (the GUID printed with `%" PRIx64`, no zero padding).
//!
//! Failure (no SM: the port's SM LID is 0, so the SMInfo query goes to the directed-route path
//! "0" and times out): libibmad's `IBWARN` lines on stderr, `ibwarn: [pid] _do_madrpc: recv
//! failed: Connection timed out` and `ibwarn: [pid] mad_rpc: _do_madrpc failed; dport (DR path
//! slid 0; dlid 0; 0)` (`portid2str`/`drpath2str`), then infiniband-diags' `ibexit()` which
//! `printf`s `sminfo: iberror: failed: query` to stdout and `exit(-1)`s (status 255).

use super::common::{self, PortState, port_state};
use crate::shell::Output;
use crate::state::{LabHost, LinkLayer};
use std::time::Duration;

/// `sminfo`.
pub(crate) fn render(host: &LabHost, elapsed: Duration) -> Output {
    let ib = host.nics.iter().find(|n| n.link_layer == LinkLayer::InfiniBand);
    let Some(ib) = ib else {
        // No IB port: the MAD port cannot be opened on RoCE (as ib-tools/ibhosts-mad-port-open-failure-magnate3.txt).
        let pid = common::pid(host, elapsed);
        return Output::fail(
            255,
            "sminfo: iberror: failed: Failed to open '(null)' port '0'\n",
            format!("ibwarn: [{pid}] mad_rpc_open_port: client_register for mgmt 1 failed\n"),
        );
    };
    match (&host.sm, port_state(ib)) {
        (Some(sm), PortState::Active) => Output::ok(format!(
            "sminfo: sm lid {} sm guid 0x{:x}, activity count {} priority {} state 3 SMINFO_MASTER\n",
            sm.lid,
            sm.guid,
            sm.activity.at(elapsed),
            sm.priority
        )),
        _ => {
            let pid = common::pid(host, elapsed);
            Output::fail(
                255,
                "sminfo: iberror: failed: query\n",
                format!(
                    "ibwarn: [{pid}] _do_madrpc: recv failed: Connection timed out\n\
                     ibwarn: [{pid}] mad_rpc: _do_madrpc failed; dport (DR path slid 0; dlid 0; 0)\n"
                ),
            )
        }
    }
}

/// `saquery -s`: the master SM's record, then the standby's when one runs, in the layout of
/// infiniband-diags' `dump_sm_info_record`. Without an SM (or an IB port) the SA cannot be asked.
pub(crate) fn saquery_sm(host: &LabHost, elapsed: Duration) -> Output {
    let ib = host.nics.iter().find(|n| n.link_layer == LinkLayer::InfiniBand);
    let (Some(sm), Some(PortState::Active)) = (&host.sm, ib.map(port_state)) else {
        let pid = common::pid(host, elapsed);
        return Output::fail(
            255,
            "",
            format!(
                "ibwarn: [{pid}] sa_query: umad_recv failed: attr 0x18: Connection timed out\nsaquery: iberror: failed: Query SA failed\n"
            ),
        );
    };
    let record = |lid: u32, guid: u64, activity: u64, priority: u32, state: u32| {
        format!(
            "SMInfoRecord dump:\n\t\tRID\n\t\tLID...................{lid}\n\t\tSMInfo dump:\n\t\tGUID..................0x{guid:016x}\n\t\tSM_Key................0x0000000000000000\n\t\tActCount..............{activity}\n\t\tPriority..............{priority}\n\t\tSMState...............{state}\n"
        )
    };
    let mut out = record(sm.lid, sm.guid, sm.activity.at(elapsed), sm.priority, 3);
    if let Some(priority) = sm.standby_priority {
        out.push_str(&record(sm.lid + 1, sm.guid + 0x10, 7, priority, 2));
    }
    Output::ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::healthy_host;
    use crate::faults::{Fault, apply};

    const SAMPLE: &str = include_str!("../../../parse/tests/fixtures/sminfo/sminfo-master-lid4-magnate3.txt");

    #[test]
    fn master_line_has_the_sample_shape_and_parses() {
        let host = healthy_host(0);
        let out = render(&host, Duration::from_secs(10));
        let shape = |s: &str| {
            s.split_whitespace()
                .filter(|w| w.parse::<u64>().is_err() && !w.starts_with("0x"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(shape(&out.stdout), shape(SAMPLE.trim_end_matches(['\r', '\n'])));
        let p = fabcheck_parse::linux::sminfo::parse(&out.stdout).expect("parses");
        assert!(p.warnings.is_empty());
        assert_eq!(p.value.sm_lid, 1);
        assert_eq!(p.value.sm_guid, "0xc42a10300b95bfa");
        assert_eq!(p.value.activity_count, 5_568_705 + 30);
        assert_eq!((p.value.priority, p.value.state_name.as_str()), (15, "SMINFO_MASTER"));
    }

    #[test]
    fn saquery_lists_the_master_and_its_standby_and_parses() {
        let host = healthy_host(0);
        let out = saquery_sm(&host, Duration::from_secs(10));
        let p = fabcheck_parse::linux::saquery_sm::parse(&out.stdout).expect("parses");
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        let states: Vec<_> = p.value.records.iter().map(|r| (r.priority, r.state)).collect();
        assert_eq!(states, [(Some(15), Some(3)), (Some(13), Some(2))]);
        let mut alone = healthy_host(0);
        apply(&mut alone, &"gpu001=sm-no-standby".parse::<Fault>().unwrap()).unwrap();
        let p = fabcheck_parse::linux::saquery_sm::parse(&saquery_sm(&alone, Duration::ZERO).stdout).unwrap();
        assert_eq!((p.value.count(3), p.value.count(2)), (1, 0));
    }

    #[test]
    fn no_sm_fails_like_infiniband_diags() {
        let mut host = healthy_host(0);
        apply(&mut host, &"gpu001=sm-missing".parse::<Fault>().unwrap()).unwrap();
        let out = render(&host, Duration::ZERO);
        assert_eq!(out.status, 255);
        assert_eq!(out.stdout, "sminfo: iberror: failed: query\n");
        assert!(out.stderr.contains("_do_madrpc: recv failed: Connection timed out"));
        let err = fabcheck_parse::linux::sminfo::parse(&format!("{}{}", out.stderr, out.stdout)).unwrap_err();
        assert!(err.message.contains("infiniband-diags"), "{err}");
    }
}
