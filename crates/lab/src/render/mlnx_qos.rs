//! `mlnx_qos -i IF` (mlnx-tools python/mlnx_qos, the version that prints `max_buffer_size=`).
//!
//! Layout from the tool's `pretty_print()` and mlnx_qos/cx7-fw28.39-ens4np0-trust-dscp-pfc5-custom-
//! dscp2prio-3fs-doc.txt (ConnectX-7): `DCBX mode`, `Priority trust state`, `dscp2prio mapping:`
//! only when trust is dscp, `default priority:`, `Receive buffer size (bytes): ..,max_buffer_size=N`,
//! `Cable len`, the PFC table (`\tenabled     ` then `%1d   ` per priority, trailing spaces
//! included), then `tc: N ratelimit: unlimited, tsa: vendor` and `\t priority:  P` for each TC that
//! has priorities (`sorted(tc2up)`).
//!
//! dscp2prio rows come from the kernel's DCB app list, which `dcb_app_add()` fills at its head:
//! the driver adds DSCP 0..63 in order at trust-dscp time, so each row reads descending, and a
//! DSCP remapped later (`--dscp2prio set,26,0`) is the newest entry, first in its new
//! priority's row (the CX7 sample: `prio:5 dscp:40,47,46,...`). A row longer than 24 characters
//! (eight DSCPs) wraps onto another `prio:N` line, as `printAppSelector` does.
//!
//! An interface without DCB (IPoIB) or that does not exist makes every netlink query fail: the
//! four "not supported" lines and exit status 1 (a published run on a VLAN interface).

use crate::shell::Output;
use crate::state::{LabHost, LabNic, LinkLayer, Trust};
use std::fmt::Write as _;

/// `mlnx_qos` with the given arguments.
pub(crate) fn render(host: &LabHost, args: &[String]) -> Output {
    let mut intf: Option<String> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "-i" || a == "--interface" {
            intf = it.next().cloned();
        } else if let Some(v) = a.strip_prefix("--interface=") {
            intf = Some(v.to_string());
        } else if let Some(v) = a.strip_prefix("-i").filter(|v| !v.is_empty()) {
            intf = Some(v.to_string());
        }
    }
    let Some(intf) = intf else {
        return Output::fail(1, "Interface name is required\nUsage: mlnx_qos -i <interface> [options]\n", "");
    };
    match host.nics.iter().find(|n| n.netdev == intf && n.link_layer == LinkLayer::Ethernet) {
        Some(nic) => Output::ok(qos(nic)),
        None => Output::fail(
            1,
            "Priority trust state is not supported on your system\nBuffers commands are not supported on your system\nRate limit is not supported on your system!\nETS features are not supported on your system\n",
            "",
        ),
    }
}

/// The dscp2prio rows of one priority, wrapped at 24 characters.
fn dscp_rows(nic: &LabNic, prio: u8, out: &mut String) {
    let mut remapped: Vec<usize> = Vec::new();
    let mut default: Vec<usize> = Vec::new();
    for dscp in (0..64).rev() {
        if nic.dscp_to_priority[dscp] == prio {
            if dscp / 8 == prio as usize { default.push(dscp) } else { remapped.push(dscp) }
        }
    }
    let mut s: String = remapped.iter().chain(&default).map(|d| format!("{d:02},")).collect();
    let pad = format!("\tprio:{prio} dscp:");
    while s.len() > 24 {
        let _ = writeln!(out, "{pad}{}", &s[..24]);
        s = s[24..].to_string();
    }
    if !s.is_empty() {
        let _ = writeln!(out, "{pad}{s}");
    }
}

fn qos(nic: &LabNic) -> String {
    let mut s = String::from("DCBX mode: OS controlled\n");
    match nic.trust {
        Trust::Dscp => {
            s.push_str("Priority trust state: dscp\ndscp2prio mapping:\n");
            for prio in 0..8 {
                dscp_rows(nic, prio, &mut s);
            }
        }
        Trust::Pcp => s.push_str("Priority trust state: pcp\n"),
    }
    s.push_str("default priority:\n");
    // Lossless priorities get receive buffer 1 (sized for the cable), the rest share buffer 0.
    let lossless = nic.pfc.iter().any(|p| *p);
    let sizes = if lossless {
        format!("19872,{},0,0,0,0,0,0,", nic.lossless_buffer_bytes)
    } else {
        "262016,0,0,0,0,0,0,0,".to_string()
    };
    let _ = writeln!(s, "Receive buffer size (bytes): {sizes}max_buffer_size=4151520");
    s.push_str("Cable len: 7\nPFC configuration:\n\tpriority    0   1   2   3   4   5   6   7\n\tenabled     ");
    for p in nic.pfc {
        let _ = write!(s, "{}   ", u8::from(p));
    }
    s.push_str("\n\tbuffer      ");
    for p in nic.pfc {
        let _ = write!(s, "{}   ", u8::from(p));
    }
    s.push('\n');
    for tc in 0..8u8 {
        let prios: Vec<usize> = (0..8).filter(|p| nic.priority_to_tc[*p] == tc).collect();
        if prios.is_empty() {
            continue;
        }
        let _ = writeln!(s, "tc: {tc} ratelimit: unlimited, tsa: vendor");
        for p in prios {
            let _ = writeln!(s, "\t priority:  {p}");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::healthy_host;
    use crate::faults::{Fault, apply};

    const CX7: &str = include_str!(
        "../../../parse/tests/fixtures/mlnx_qos/cx7-fw28.39-ens4np0-trust-dscp-pfc5-custom-dscp2prio-3fs-doc.txt"
    );
    const PCP: &str = include_str!(
        "../../../parse/tests/fixtures/mlnx_qos/mlx5-enp175s0f0np0-trust-pcp-ratelimit-gbps-per-tc-magnate3.txt"
    );

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    /// A line's shape: tabs as 8 spaces (the sample's markdown expanded them), each run of digits
    /// as one `9`.
    fn shape(l: &str) -> String {
        let mut s = String::new();
        for c in l.replace('\t', "        ").trim_end().chars() {
            if !c.is_ascii_digit() {
                s.push(c);
            } else if !s.ends_with('9') {
                s.push('9');
            }
        }
        s
    }

    #[test]
    fn same_line_shapes_as_the_cx7_sample() {
        let out = render(&healthy_host(0), &args("-i ens1np0")).stdout;
        let ours: Vec<String> = out.lines().map(shape).collect();
        let real: Vec<String> = CX7.lines().skip(1).map(shape).collect();
        // Same lines up to the TC section, where the sample uses ets/strict and we the default vendor.
        let cut = |v: &[String]| v.iter().take_while(|l| !l.starts_with("tc:")).cloned().collect::<Vec<_>>();
        assert_eq!(cut(&ours), cut(&real));
        assert!(out.contains(
            "\tenabled     0   0   0   1   0   0   0   0   \n\tbuffer      0   0   0   1   0   0   0   0   \n"
        ));
        assert!(out.contains("\tprio:3 dscp:31,30,29,28,27,26,25,24,\n"));
        assert!(out.ends_with("tc: 7 ratelimit: unlimited, tsa: vendor\n\t priority:  7\n"));
        assert!(out.contains("tc: 0 ratelimit: unlimited, tsa: vendor\n\t priority:  1\ntc: 1 ratelimit: unlimited, tsa: vendor\n\t priority:  0\n"));
    }

    #[test]
    fn pcp_has_no_dscp_rows() {
        let mut host = healthy_host(0);
        apply(&mut host, &"gpu001=trust-pcp".parse::<Fault>().unwrap()).unwrap();
        let out = render(&host, &args("-i ens1np0")).stdout;
        let head: Vec<String> = out.lines().take(3).map(shape).collect();
        assert_eq!(head, PCP.lines().take(3).map(shape).collect::<Vec<_>>());
        let p = fabcheck_parse::linux::mlnx_qos::parse(&out).expect("parses");
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(p.value.trust.as_deref(), Some("pcp"));
        assert!(p.value.dscp_to_priority.is_empty());
        assert_eq!(p.value.pfc_enabled, [3]);
    }

    #[test]
    fn parses_back_to_the_state() {
        let host = healthy_host(0);
        let p = fabcheck_parse::linux::mlnx_qos::parse(&render(&host, &args("-i ens1np0")).stdout).expect("parses");
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        let q = &p.value;
        assert_eq!(q.trust.as_deref(), Some("dscp"));
        assert_eq!(q.pfc_enabled, [3]);
        assert_eq!(q.dscp_to_priority.get(&26), Some(&3));
        assert_eq!(q.dscp_to_priority.get(&48), Some(&6));
        assert_eq!(q.dscp_to_priority.len(), 64);
        for p in 0..8u8 {
            assert_eq!(q.priority_to_tc.get(&p), Some(&host.nics[0].priority_to_tc[p as usize]));
        }
        assert_eq!(q.cable_len, Some(7));
    }

    #[test]
    fn faults_show_and_a_remapped_dscp_moves_first() {
        let mut host = healthy_host(0);
        for f in ["gpu001=dscp-map", "gpu001=pfc-off@mlx5_1"] {
            apply(&mut host, &f.parse::<Fault>().unwrap()).unwrap();
        }
        let out = render(&host, &args("-i ens1np0")).stdout;
        assert!(out.contains("\tprio:0 dscp:26,07,06,05,04,03,02,01,\n\tprio:0 dscp:00,\n"), "{out}");
        assert!(out.contains("\tprio:3 dscp:31,30,29,28,27,25,24,\n"));
        let p = fabcheck_parse::linux::mlnx_qos::parse(&out).unwrap();
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(p.value.dscp_to_priority.get(&26), Some(&0));
        let p = fabcheck_parse::linux::mlnx_qos::parse(&render(&host, &args("-i ens2np0")).stdout).unwrap();
        assert!(p.value.pfc_enabled.is_empty());
    }

    #[test]
    fn unsupported_interfaces_fail_like_the_tool() {
        let host = healthy_host(0);
        for intf in ["ib0", "nosuch"] {
            let out = render(&host, &args(&format!("-i {intf}")));
            assert_eq!(out.status, 1);
            assert_eq!(out.stdout.lines().count(), 4);
        }
        assert_eq!(render(&host, &[]).status, 1);
    }
}
