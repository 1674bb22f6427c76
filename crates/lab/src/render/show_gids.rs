//! `show_gids [DEV]` (MLNX_OFED / mlx-tools sbin/show_gids, a bash script).
//!
//! The script's `echo -e` lines, tab-separated: header `DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV`,
//! rows `$d\t$p\t$g\t$gid\t\t\t$_type\t$_ndev` (no IPv4) or `$d\t$p\t$g\t$gid\t$ipv4  \t$_type\t$_ndev`,
//! then `n_gids_found=N`. Layout checked against
//! ib-tools/show_gids-centos12-19-gids-mixed-roce-ib-magnate3.txt (tabs expanded there): RoCE
//! ports have the link-local pair at 0/1 and the IPv4 pair at 2/3, the IB port one v1 GID and an
//! empty netdev cell.

use super::common;
use crate::shell::Output;
use crate::state::{LabHost, LinkLayer};
use std::fmt::Write as _;

/// `show_gids` or `show_gids DEV`.
pub(crate) fn render(host: &LabHost, args: &[String]) -> Output {
    let mut out = String::from(
        "DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV\n---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---\n",
    );
    let mut err = String::new();
    let mut count = 0;
    let nics = match args.first() {
        None => common::nics_by_ibdev(host),
        Some(dev) => match host.nics.iter().find(|n| &n.ibdev == dev) {
            Some(nic) => vec![nic],
            None => {
                // `ls /sys/class/infiniband/$d/ports/` fails; the loop body never runs.
                let _ =
                    writeln!(err, "ls: cannot access '/sys/class/infiniband/{dev}/ports/': No such file or directory");
                vec![]
            }
        },
    };
    for nic in nics {
        let ndev = match nic.link_layer {
            LinkLayer::Ethernet => nic.netdev.as_str(),
            // The kernel exposes no ndev for IB GIDs: the cell is empty.
            LinkLayer::InfiniBand => "",
        };
        for (index, gid, version, ipv4) in common::gids(nic) {
            match ipv4 {
                Some(ip) => {
                    let _ = writeln!(out, "{}\t1\t{index}\t{gid}\t{ip}  \t{version}\t{ndev}", nic.ibdev);
                }
                None => {
                    let _ = writeln!(out, "{}\t1\t{index}\t{gid}\t\t\t{version}\t{ndev}", nic.ibdev);
                }
            }
            count += 1;
        }
    }
    let _ = writeln!(out, "n_gids_found={count}");
    Output::fail(0, out, err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::healthy_host;
    use crate::faults::{Fault, apply};

    const SAMPLE: &str =
        include_str!("../../../parse/tests/fixtures/show_gids/show_gids-centos12-19-gids-mixed-roce-ib-magnate3.txt");

    /// Expands tabs to 8-column stops, as the terminal the sample was copied from did.
    fn expand(line: &str) -> String {
        let mut s = String::new();
        for c in line.chars() {
            if c == '\t' {
                s.push(' ');
                while !s.len().is_multiple_of(8) {
                    s.push(' ');
                }
            } else {
                s.push(c);
            }
        }
        s
    }

    #[test]
    fn expands_to_the_sample_layout() {
        let out = render(&healthy_host(0), &[]).stdout;
        let real: Vec<&str> = SAMPLE.lines().map(|l| l.trim_end_matches('\r')).collect();
        let ours: Vec<String> = out.lines().map(expand).collect();
        assert_eq!(ours[0], real[0]);
        assert_eq!(ours[1], real[1]);
        // Same column positions as the sample's IPv4 row and its IB row.
        let col = |l: &str, word: &str| l.find(word).unwrap();
        let real_v4 = real.iter().find(|l| l.contains("172.17.242.56")).unwrap();
        let our_v4 = ours.iter().find(|l| l.contains("10.100.0.1")).unwrap();
        assert_eq!(col(our_v4, "10.100"), col(real_v4, "172.17"));
        assert_eq!(col(our_v4, "v1"), col(real_v4, "v1"));
        let real_ib = real.iter().find(|l| l.starts_with("mlx5_5")).unwrap();
        let our_ib = ours.iter().find(|l| l.starts_with("mlx5_2")).unwrap();
        assert_eq!(our_ib.trim_end().len(), real_ib.len());
        assert_eq!(ours.last().unwrap(), "n_gids_found=9");
    }

    #[test]
    fn parses_back_to_the_state() {
        let host = healthy_host(0);
        let p = fabcheck_parse::linux::show_gids::parse(&render(&host, &[]).stdout).expect("parses");
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(p.value.n_gids_found, Some(9));
        assert_eq!(p.value.gids.len(), 9);
        assert_eq!(p.value.rocev2_ipv4_index("mlx5_0", 1), Some(3));
        assert_eq!(p.value.rocev2_ipv4_index("mlx5_1", 1), Some(3));
        let ib = p.value.gids.iter().find(|g| g.dev == "mlx5_2").unwrap();
        assert_eq!((ib.gid.as_str(), ib.version.as_str()), ("fe80:0000:0000:0000:946d:ae03:0000:0002", "v1"));
        let v4 = p.value.gids.iter().find(|g| g.dev == "mlx5_0" && g.index == 3).unwrap();
        assert_eq!(v4.ipv4.as_deref(), Some("10.100.0.1"));
        assert_eq!(v4.netdev.as_deref(), Some("ens1np0"));
    }

    #[test]
    fn gid_missing_and_link_down() {
        let mut host = healthy_host(0);
        apply(&mut host, &"gpu001=gid-missing@mlx5_1".parse::<Fault>().unwrap()).unwrap();
        apply(&mut host, &"gpu001=link-down@mlx5_0".parse::<Fault>().unwrap()).unwrap();
        let p = fabcheck_parse::linux::show_gids::parse(&render(&host, &[]).stdout).unwrap();
        assert_eq!(p.value.rocev2_ipv4_index("mlx5_1", 1), None);
        assert_eq!(p.value.rocev2_ipv4_index("mlx5_0", 1), Some(3), "GIDs stay when the link is down");
        let one = render(&host, &["mlx5_9".into()]);
        assert!(one.stdout.ends_with("n_gids_found=0\n") && one.stderr.contains("cannot access"));
    }
}
