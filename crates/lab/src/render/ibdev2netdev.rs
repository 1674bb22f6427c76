//! `ibdev2netdev` and `ibdev2netdev -v` (MLNX_OFED / mlx-tools shell script).
//!
//! Plain form: ib-tools/ibdev2netdev-8-mlx5-mixed-eth-ib-centos12-magnate3.txt
//! (`mlx5_0 port 1 ==> ens4f0 (Down)`). Verbose form from the script's `print_verbose_info`
//! (Mellanox/mlx-tools ofed_scripts/ibdev2netdev):
//! `echo "$x $d ($devid - $partid) $devdesc fw $fwver port $port ($ibstate) ==> $eth ($link_state)"`
//! with `ibstate` padded to 6 (`DOWN  `) and `devdesc` the VPD name, itself space-padded to its
//! 182-byte field, as published outputs show (ConnectX-6 `... Socket Direct<spaces> fw 20.30.1004`,
//! BlueField-3 `... Tall Bracket<spaces> fw 32.42.1000`).

use super::common::{self, PortState, port_state};
use crate::shell::Output;
use crate::state::LabHost;
use std::fmt::Write as _;

/// `ibdev2netdev [-v]`.
pub(crate) fn render(host: &LabHost, args: &[String]) -> Output {
    let verbose = match args {
        [] => false,
        [v] if v == "-v" => true,
        [h, ..] if h == "-h" || h == "--help" => return Output::ok(usage()),
        // The script prints its usage and `exit -1`s.
        _ => return Output::fail(255, usage(), ""),
    };
    let mut s = String::new();
    for nic in common::nics_by_ibdev(host) {
        let state = port_state(nic);
        let link = if state.carrier() { "Up" } else { "Down" };
        if verbose {
            let ibstate = match state {
                PortState::Active => "ACTIVE",
                PortState::Init => "INIT  ",
                PortState::Down => "DOWN  ",
            };
            let (part, desc) = common::vpd(nic);
            let _ = writeln!(
                s,
                "{} {} ({} - {part}) {desc} fw {} port 1 ({ibstate}) ==> {} ({link})",
                nic.pci, nic.ibdev, nic.ca_type, nic.firmware, nic.netdev
            );
        } else {
            let _ = writeln!(s, "{} port 1 ==> {} ({link})", nic.ibdev, nic.netdev);
        }
    }
    Output::ok(s)
}

fn usage() -> String {
    "ibdev2netdev <options>\n-h, --help                print help message\n-v, --verbose             print more info\n"
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::healthy_host;
    use crate::faults::{Fault, apply};

    #[test]
    fn plain_form_matches_the_sample_lines() {
        let out = render(&healthy_host(0), &[]).stdout;
        assert_eq!(out, "mlx5_0 port 1 ==> ens1np0 (Up)\nmlx5_1 port 1 ==> ens2np0 (Up)\nmlx5_2 port 1 ==> ib0 (Up)\n");
    }

    #[test]
    fn verbose_form_pads_like_the_real_script() {
        let mut host = healthy_host(0);
        apply(&mut host, &"gpu001=link-down@mlx5_1".parse::<Fault>().unwrap()).unwrap();
        let out = render(&host, &["-v".into()]).stdout;
        let lines: Vec<&str> = out.lines().collect();
        let prefix = "0000:1a:00.0 mlx5_0 (MT4129 - MCX75310AAS-NEAT) NVIDIA ConnectX-7 HHHL Adapter card, 400GbE / NDR IB (default mode), Single-port OSFP, PCIe 5.0 x16, Crypto Disabled, Secure Boot Enabled ";
        assert!(lines[0].starts_with(prefix), "{}", lines[0]);
        assert!(lines[0].ends_with("  fw 28.39.1002 port 1 (ACTIVE) ==> ens1np0 (Up)"));
        assert_eq!(
            lines[0].find(" fw ").unwrap(),
            lines[0].find('(').unwrap() + "(MT4129 - MCX75310AAS-NEAT) ".len() + 182
        );
        assert!(lines[1].ends_with(" port 1 (DOWN  ) ==> ens2np0 (Down)"));
        assert!(lines[2].ends_with(" port 1 (ACTIVE) ==> ib0 (Up)"));
        assert_eq!(render(&host, &["--verbose".into()]).status, 255);
    }

    #[test]
    fn parses_back_to_the_state() {
        let mut host = healthy_host(0);
        apply(&mut host, &"gpu001=link-down@mlx5_1".parse::<Fault>().unwrap()).unwrap();
        for args in [vec![], vec!["-v".to_string()]] {
            let p = fabcheck_parse::linux::ibdev2netdev::parse(&render(&host, &args).stdout).expect("parses");
            assert!(p.warnings.is_empty(), "{:?}", p.warnings);
            let m = &p.value.mappings;
            assert_eq!(
                m.iter().map(|m| (m.hca.as_str(), m.netdev.as_str(), m.up)).collect::<Vec<_>>(),
                [("mlx5_0", "ens1np0", Some(true)), ("mlx5_1", "ens2np0", Some(false)), ("mlx5_2", "ib0", Some(true))]
            );
            if !args.is_empty() {
                assert_eq!(m[1].port_state.as_deref(), Some("DOWN"));
                assert_eq!(m[0].pci.as_deref(), Some("0000:1a:00.0"));
                assert_eq!(m[0].firmware.as_deref(), Some("28.39.1002"));
            }
        }
    }
}
