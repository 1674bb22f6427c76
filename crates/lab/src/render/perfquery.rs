//! `perfquery [-x] [-C CA] [-P PORT]` (infiniband-diags): the local port's PMA counters.
//!
//! Extended format from ib-tools/perfquery-x-rhel75-zero-counters-infiniband-diags-16.txt:
//! `# Port extended counters: Lid 10 port 1 (CapMask: 0x5300 CapMask2: 0x0000002)`, then libibmad
//! `mad_dump_fields` lines, `Name:` padded with dots so every value starts in column 33.
//!
//! Failures: on a RoCE port umad cannot register the SMI/GSI agents, so (as in
//! ib-tools/ibhosts-mad-port-open-failure-magnate3.txt and treydock/infiniband_exporter#26)
//! `ibwarn: [pid] mad_rpc_open_port: client_register for mgmt 1 failed` goes to stderr and
//! `perfquery: iberror: failed: Failed to open 'CA' port 'N'` to stdout, status 255 (`exit(-1)`).
//! An unknown CA fails earlier: `mad_rpc_open_port: can't open UMAD port (CA:N)`. A port without
//! an SM-assigned LID times out on the ClassPortInfo query.

use super::common::{self, PortState, port_state};
use crate::shell::Output;
use crate::state::{LabHost, LinkLayer};
use std::fmt::Write as _;
use std::time::Duration;

/// Extended counters in `perfquery -x` order (`IB_PC_EXT_*` fields, then the error counters
/// newer infiniband-diags append from the non-extended query).
const EXTENDED: [&str; 23] = [
    "PortXmitData",
    "PortRcvData",
    "PortXmitPkts",
    "PortRcvPkts",
    "PortUnicastXmitPkts",
    "PortUnicastRcvPkts",
    "PortMulticastXmitPkts",
    "PortMulticastRcvPkts",
    "CounterSelect2",
    "SymbolErrorCounter",
    "LinkErrorRecoveryCounter",
    "LinkDownedCounter",
    "PortRcvErrors",
    "PortRcvRemotePhysicalErrors",
    "PortRcvSwitchRelayErrors",
    "PortXmitDiscards",
    "PortXmitConstraintErrors",
    "PortRcvConstraintErrors",
    "LocalLinkIntegrityErrors",
    "ExcessiveBufferOverrunErrors",
    "VL15Dropped",
    "PortXmitWait",
    "QP1Dropped",
];

/// Basic (32-bit) counters in `perfquery` order, with the width the PMA saturates them at.
const BASIC: [(&str, u32); 18] = [
    ("SymbolErrorCounter", 16),
    ("LinkErrorRecoveryCounter", 8),
    ("LinkDownedCounter", 8),
    ("PortRcvErrors", 16),
    ("PortRcvRemotePhysicalErrors", 16),
    ("PortRcvSwitchRelayErrors", 16),
    ("PortXmitDiscards", 16),
    ("PortXmitConstraintErrors", 8),
    ("PortRcvConstraintErrors", 8),
    ("CounterSelect2", 0),
    ("LocalLinkIntegrityErrors", 4),
    ("ExcessiveBufferOverrunErrors", 4),
    ("VL15Dropped", 16),
    ("PortXmitData", 32),
    ("PortRcvData", 32),
    ("PortXmitPkts", 32),
    ("PortRcvPkts", 32),
    ("PortXmitWait", 32),
];

/// One `Name:.....value` line, the value in column 33.
fn field(out: &mut String, name: &str, value: &str) {
    let key = format!("{name}:");
    let _ = writeln!(out, "{key:.<33}{value}");
}

/// `perfquery` with the given arguments.
pub(crate) fn render(host: &LabHost, args: &[String], elapsed: Duration) -> Output {
    let mut extended = false;
    let mut ca: Option<String> = None;
    let mut port: u32 = 1;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-x" | "--extended" => extended = true,
            "-C" | "--Ca" => ca = it.next().cloned(),
            "-P" | "--Port" => port = it.next().and_then(|p| p.parse().ok()).unwrap_or(0),
            _ => {}
        }
    }
    let pid = common::pid(host, elapsed);
    // Without -C, libibumad picks the first CA with an IB port.
    let name = ca.clone().unwrap_or_else(|| {
        host.nics
            .iter()
            .find(|n| n.link_layer == LinkLayer::InfiniBand)
            .map_or_else(|| "(null)".to_string(), |n| n.ibdev.clone())
    });
    let nic = host.nics.iter().find(|n| n.ibdev == name);
    let Some(nic) = nic.filter(|_| port == 1) else {
        return Output::fail(
            255,
            format!("perfquery: iberror: failed: Failed to open '{name}' port '{port}'\n"),
            format!("ibwarn: [{pid}] mad_rpc_open_port: can't open UMAD port ({name}:{port})\n"),
        );
    };
    if nic.link_layer == LinkLayer::Ethernet {
        let shown = ca.as_deref().unwrap_or("(null)");
        let shown_port = if ca.is_some() { port } else { 0 };
        return Output::fail(
            255,
            format!("perfquery: iberror: failed: Failed to open '{shown}' port '{shown_port}'\n"),
            format!("ibwarn: [{pid}] mad_rpc_open_port: client_register for mgmt 1 failed\n"),
        );
    }
    let lid = common::shown_lid(nic);
    if port_state(nic) != PortState::Active {
        return Output::fail(
            255,
            "perfquery: iberror: failed: classportinfo query\n",
            format!(
                "ibwarn: [{pid}] _do_madrpc: recv failed: Connection timed out\n\
                 ibwarn: [{pid}] mad_rpc: _do_madrpc failed; dport (Lid {lid})\n"
            ),
        );
    }
    let value = |name: &str| nic.port_counters.get(name).map_or(0, |c| c.at(elapsed));
    let mut out = String::new();
    let kind = if extended { "extended " } else { "" };
    let _ = writeln!(out, "# Port {kind}counters: Lid {lid} port 1 (CapMask: 0x5A00 CapMask2: 0x0000002)");
    field(&mut out, "PortSelect", "1");
    field(&mut out, "CounterSelect", "0x0000");
    if extended {
        for name in EXTENDED {
            let v = if name == "CounterSelect2" { "0x00000000".to_string() } else { value(name).to_string() };
            field(&mut out, name, &v);
        }
    } else {
        for (name, bits) in BASIC {
            let v = if bits == 0 { "0x00".to_string() } else { value(name).min((1u64 << bits) - 1).to_string() };
            field(&mut out, name, &v);
        }
    }
    Output::ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::healthy_host;
    use crate::faults::{Fault, apply};

    const SAMPLE: &str = include_str!(
        "../../../parse/tests/fixtures/perfquery/perfquery-x-rhel75-zero-counters-infiniband-diags-16.txt"
    );

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn same_lines_as_the_sample_in_the_same_order() {
        let out = render(&healthy_host(0), &args("-x -C mlx5_2 -P 1"), Duration::ZERO).stdout;
        let names = |t: &str| {
            t.lines()
                .skip_while(|l| l.starts_with('#'))
                .map(|l| l.split(':').next().unwrap().to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(names(&out), names(SAMPLE));
        let dots =
            |t: &str| t.lines().filter(|l| !l.starts_with('#')).map(|l| l.rfind('.').unwrap()).collect::<Vec<_>>();
        assert_eq!(dots(&out)[..], dots(SAMPLE)[..]);
        assert!(out.starts_with("# Port extended counters: Lid 2 port 1 (CapMask: 0x5A00"));
    }

    #[test]
    fn parses_back_to_the_counters_at_elapsed() {
        let host = healthy_host(0);
        let t = Duration::from_secs(100);
        let p = fabcheck_parse::linux::perfquery::parse(&render(&host, &args("-x -C mlx5_2 -P 1"), t).stdout)
            .expect("parses");
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!((p.value.lid, p.value.port), (Some(2), Some(1)));
        let nic = &host.nics[2];
        for (name, c) in &nic.port_counters {
            assert_eq!(p.value.counters.get(name), Some(&c.at(t)), "{name}");
        }
    }

    #[test]
    fn roce_ports_and_unknown_cas_fail_like_umad() {
        let host = healthy_host(0);
        let roce = render(&host, &args("-x -C mlx5_0 -P 1"), Duration::ZERO);
        assert_eq!(roce.status, 255);
        assert_eq!(roce.stdout, "perfquery: iberror: failed: Failed to open 'mlx5_0' port '1'\n");
        assert!(roce.stderr.contains("client_register for mgmt 1 failed"));
        let unknown = render(&host, &args("-x -C mlx5_9 -P 1"), Duration::ZERO);
        assert!(unknown.stderr.contains("can't open UMAD port (mlx5_9:1)"));
        assert!(fabcheck_parse::linux::perfquery::parse(&format!("{}{}", roce.stderr, roce.stdout)).is_err());
        let mut down = healthy_host(0);
        apply(&mut down, &"gpu001=link-down@mlx5_2".parse::<Fault>().unwrap()).unwrap();
        assert_eq!(render(&down, &args("-x -C mlx5_2 -P 1"), Duration::ZERO).status, 255);
        let basic = render(&host, &args("-C mlx5_2 -P 1"), Duration::ZERO).stdout;
        assert!(basic.starts_with("# Port counters: Lid 2 port 1"));
        assert!(basic.contains("PortXmitData:....................4294967295\n"));
    }
}
