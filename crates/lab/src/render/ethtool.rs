//! `ethtool IF` (ethtool 6.x over netlink) for a ConnectX-7 port and IPoIB.
//!
//! Layout from ethtool's netlink/settings.c: link modes in bit-index order, the first after
//! `Supported link modes:   `, the others on `\n\t` + 24 spaces; FEC modes joined by `\t `; `Speed:
//! Unknown!` and `Duplex: Unknown! (255)` without a link; `Lanes:` only when the kernel knows them
//! (mlx5 reports lanes, not while down). The modes are the mlx5 extended-PTYS table entries of a
//! 400G ConnectX-7 (`mlx5e_ethtool_get_link_ksettings`), pause as mlx5 reports it (global pause is
//! off when PFC is on), `Current message level: 0x00000004 (4)` then `\t\t\t       link`.
//!
//! An unknown interface: ethtool 6.1 prints `netlink error: no device matches name (offset 24)` /
//! `netlink error: No such device` for each of its five requests on stderr, then `No data
//! available` on stdout, status 75 (checked against a real ethtool 6.1).

use super::common::{self, port_state};
use crate::shell::Output;
use crate::state::{LabHost, LabNic, LinkLayer};
use std::fmt::Write as _;

/// Link modes of a 400G ConnectX-7 port, in ethtool bit order.
const CX7_MODES: &[&str] = &[
    "1000baseT/Full",
    "10000baseT/Full",
    "1000baseKX/Full",
    "10000baseKR/Full",
    "10000baseR_FEC",
    "40000baseKR4/Full",
    "40000baseCR4/Full",
    "40000baseSR4/Full",
    "40000baseLR4/Full",
    "25000baseCR/Full",
    "25000baseKR/Full",
    "25000baseSR/Full",
    "50000baseCR2/Full",
    "50000baseKR2/Full",
    "100000baseKR4/Full",
    "100000baseSR4/Full",
    "100000baseCR4/Full",
    "100000baseLR4_ER4/Full",
    "50000baseSR2/Full",
    "1000baseX/Full",
    "10000baseCR/Full",
    "10000baseSR/Full",
    "10000baseLR/Full",
    "10000baseER/Full",
    "50000baseKR/Full",
    "50000baseSR/Full",
    "50000baseCR/Full",
    "50000baseLR_ER_FR/Full",
    "50000baseDR/Full",
    "100000baseKR2/Full",
    "100000baseSR2/Full",
    "100000baseCR2/Full",
    "100000baseLR2_ER2_FR2/Full",
    "100000baseDR2/Full",
    "200000baseKR4/Full",
    "200000baseSR4/Full",
    "200000baseLR4_ER4_FR4/Full",
    "200000baseDR4/Full",
    "200000baseCR4/Full",
    "100000baseKR/Full",
    "100000baseSR/Full",
    "100000baseLR_ER_FR/Full",
    "100000baseCR/Full",
    "100000baseDR/Full",
    "200000baseKR2/Full",
    "200000baseSR2/Full",
    "200000baseLR2_ER2_FR2/Full",
    "200000baseDR2/Full",
    "200000baseCR2/Full",
    "400000baseKR4/Full",
    "400000baseSR4/Full",
    "400000baseLR4_ER4_FR4/Full",
    "400000baseDR4/Full",
    "400000baseCR4/Full",
];

/// The stderr and stdout of ethtool 6.1 for an interface that does not exist.
pub(crate) fn no_such_device() -> Output {
    Output::fail(
        75,
        "No data available\n",
        "netlink error: no device matches name (offset 24)\nnetlink error: No such device\n".repeat(5),
    )
}

fn modes(label: &str, list: &[&str]) -> String {
    let indent = format!("\n\t{:24}", "");
    format!("\t{label}{}\n", if list.is_empty() { "Not reported".to_string() } else { list.join(&indent) })
}

fn roce(nic: &LabNic) -> String {
    let up = port_state(nic).carrier();
    let pause = if nic.pfc.iter().any(|p| *p) { "No" } else { "Symmetric" };
    let mut s = format!("Settings for {}:\n\tSupported ports: [ Backplane ]\n", nic.netdev);
    s += &modes("Supported link modes:   ", CX7_MODES);
    s += "\tSupported pause frame use: Symmetric\n\tSupports auto-negotiation: Yes\n";
    s += "\tSupported FEC modes: None\t RS\t BASER\t LLRS\n";
    s += &modes("Advertised link modes:  ", CX7_MODES);
    let _ = writeln!(s, "\tAdvertised pause frame use: {pause}");
    s += "\tAdvertised auto-negotiation: Yes\n\tAdvertised FEC modes: None\t RS\t BASER\t LLRS\n";
    if up {
        let _ = writeln!(s, "\tSpeed: {}Mb/s", nic.rate_gbps as u64 * 1000);
        let _ = writeln!(s, "\tLanes: {}", common::lanes(&nic.width));
        s += "\tDuplex: Full\n";
    } else {
        s += "\tSpeed: Unknown!\n\tDuplex: Unknown! (255)\n";
    }
    s += "\tAuto-negotiation: on\n\tPort: FIBRE\n\tPHYAD: 0\n\tTransceiver: internal\n";
    s += "\tSupports Wake-on: d\n\tWake-on: d\n\tCurrent message level: 0x00000004 (4)\n\t\t\t       link\n";
    // mlx5 reports its extended link state, which ethtool prints after `no`.
    let _ = writeln!(s, "\tLink detected: {}", if up { "yes" } else { "no (Autoneg, No partner detected)" });
    s
}

/// IPoIB reports the IB port's rate and no link modes.
fn ipoib(nic: &LabNic) -> String {
    let up = port_state(nic).carrier();
    let mut s = format!("Settings for {}:\n\tSupported ports: [  ]\n", nic.netdev);
    s += &modes("Supported link modes:   ", &[]);
    s += "\tSupported pause frame use: No\n\tSupports auto-negotiation: No\n\tSupported FEC modes: Not reported\n";
    s += &modes("Advertised link modes:  ", &[]);
    s += "\tAdvertised pause frame use: No\n\tAdvertised auto-negotiation: No\n\tAdvertised FEC modes: Not reported\n";
    if up {
        let _ = writeln!(s, "\tSpeed: {}Mb/s", nic.rate_gbps as u64 * 1000);
        s += "\tDuplex: Full\n";
    } else {
        s += "\tSpeed: Unknown!\n\tDuplex: Unknown! (255)\n";
    }
    s += "\tAuto-negotiation: on\n\tPort: Other\n\tPHYAD: 255\n\tTransceiver: internal\n";
    let _ = writeln!(s, "\tLink detected: {}", if up { "yes" } else { "no" });
    s
}

/// `ethtool IF`.
pub(crate) fn render(host: &LabHost, intf: &str) -> Output {
    if intf == "lo" {
        return Output::ok("Settings for lo:\n\tLink detected: yes\n");
    }
    match host.nics.iter().find(|n| n.netdev == intf) {
        Some(nic) if nic.link_layer == LinkLayer::Ethernet => Output::ok(roce(nic)),
        Some(nic) => Output::ok(ipoib(nic)),
        None => no_such_device(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::healthy_host;
    use crate::faults::{Fault, apply};

    #[test]
    fn layout_of_netlink_ethtool() {
        let out = render(&healthy_host(0), "ens1np0").stdout;
        assert!(out.starts_with("Settings for ens1np0:\n\tSupported ports: [ Backplane ]\n\tSupported link modes:   1000baseT/Full\n\t                        10000baseT/Full\n"));
        assert!(out.contains("\t                        400000baseCR4/Full\n\tSupported pause frame use: Symmetric\n"));
        assert!(out.contains("\tSpeed: 400000Mb/s\n\tLanes: 4\n\tDuplex: Full\n"));
        assert!(out.ends_with("\tCurrent message level: 0x00000004 (4)\n\t\t\t       link\n\tLink detected: yes\n"));
    }

    #[test]
    fn parses_back_to_the_state() {
        let mut host = healthy_host(0);
        apply(&mut host, &"gpu001=link-degraded@mlx5_0".parse::<Fault>().unwrap()).unwrap();
        apply(&mut host, &"gpu001=link-down@mlx5_1".parse::<Fault>().unwrap()).unwrap();
        let healthy =
            fabcheck_parse::linux::ethtool_link::parse(&render(&healthy_host(0), "ens1np0").stdout).expect("parses");
        assert!(healthy.warnings.is_empty(), "{:?}", healthy.warnings);
        assert_eq!(healthy.value.speed_mbps, Some(400_000));
        assert_eq!(healthy.value.link_detected, Some(true));
        assert!(healthy.value.supported_link_modes.contains(&"400000baseCR4/Full".to_string()));
        let degraded = fabcheck_parse::linux::ethtool_link::parse(&render(&host, "ens1np0").stdout).unwrap();
        assert_eq!(degraded.value.speed_mbps, Some(200_000));
        let down = fabcheck_parse::linux::ethtool_link::parse(&render(&host, "ens2np0").stdout).unwrap();
        assert!(down.warnings.is_empty(), "{:?}", down.warnings);
        assert_eq!(
            (down.value.speed_mbps, down.value.duplex.clone(), down.value.link_detected),
            (None, None, Some(false))
        );
        let ib = fabcheck_parse::linux::ethtool_link::parse(&render(&host, "ib0").stdout).unwrap();
        assert!(ib.warnings.is_empty(), "{:?}", ib.warnings);
    }

    #[test]
    fn unknown_interface_like_ethtool_6() {
        let out = render(&healthy_host(0), "nosuch");
        assert_eq!((out.status, out.stdout.as_str()), (75, "No data available\n"));
        assert_eq!(out.stderr.lines().count(), 10);
    }
}
