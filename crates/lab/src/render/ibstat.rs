//! `ibstat` (infiniband-diags): one block per CA, tab-indented as the real tool prints it
//! (ib-tools/ibstat-cx6-hdr-mt4123-fw20.26-ib-one-port-disabled-lustreperfmon-27-PARTIAL.txt keeps
//! the tabs; the other samples are the same text with tabs expanded). RoCE ports follow
//! ibstat-cx7-roce-200g-plus-cx6dx-disabled-mooncake-1999-PARTIAL.txt (LID 0, SM lid 0, capability
//! mask 0x00010000, port GUID from the MAC).

use super::common::{self, PortState, port_state};
use crate::shell::Output;
use crate::state::{LabHost, LabNic, LinkLayer};
use std::fmt::Write as _;

/// `ibstat` (all CAs) or `ibstat CA` (one).
pub(crate) fn render(host: &LabHost, args: &[String]) -> Output {
    let nics = common::nics_by_ibdev(host);
    match args {
        [] => Output::ok(nics.iter().map(|n| ca_block(n)).collect::<String>()),
        // `-l`: CA names; `-p`: port GUIDs, one per line.
        [l] if l == "-l" || l == "--list_of_cas" => {
            Output::ok(nics.iter().map(|n| format!("{}\n", n.ibdev)).collect::<String>())
        }
        [p] if p == "-p" || p == "--port_list" => {
            Output::ok(nics.iter().map(|n| format!("0x{:016x}\n", common::port_guid(n))).collect::<String>())
        }
        [ca, ..] => match host.nics.iter().find(|n| &n.ibdev == ca) {
            Some(nic) => Output::ok(ca_block(nic)),
            // libibumad cannot stat /sys/class/infiniband/<ca>; ibstat panics with the errno.
            None => Output::fail(
                255,
                "",
                format!(
                    "ibpanic: [{}] main: stat of IB device '{ca}' failed: No such file or directory\n",
                    common::pid(host, Default::default())
                ),
            ),
        },
    }
}

fn ca_block(nic: &LabNic) -> String {
    let state = port_state(nic);
    let (rate, _, _) = common::port_rate(nic);
    let (cap_mask, link_layer) = match nic.link_layer {
        LinkLayer::Ethernet => ("0x00010000", "Ethernet"),
        LinkLayer::InfiniBand => ("0xa651e848", "InfiniBand"),
    };
    let mut s = String::new();
    let _ = writeln!(s, "CA '{}'", nic.ibdev);
    let _ = writeln!(s, "\tCA type: {}", nic.ca_type);
    let _ = writeln!(s, "\tNumber of ports: 1");
    let _ = writeln!(s, "\tFirmware version: {}", nic.firmware);
    let _ = writeln!(s, "\tHardware version: 0");
    let _ = writeln!(s, "\tNode GUID: 0x{:016x}", nic.node_guid);
    let _ = writeln!(s, "\tSystem image GUID: 0x{:016x}", nic.node_guid);
    let _ = writeln!(s, "\tPort 1:");
    let _ = writeln!(s, "\t\tState: {}", state.ibstat());
    let _ = writeln!(s, "\t\tPhysical state: {}", state.ibstat_physical());
    let _ = writeln!(s, "\t\tRate: {rate}");
    let _ = writeln!(s, "\t\tBase lid: {}", common::shown_lid(nic));
    let _ = writeln!(s, "\t\tLMC: 0");
    let _ = writeln!(s, "\t\tSM lid: {}", common::shown_sm_lid(nic));
    let _ = writeln!(s, "\t\tCapability mask: {cap_mask}");
    let _ = writeln!(s, "\t\tPort GUID: 0x{:016x}", common::port_guid(nic));
    let _ = writeln!(s, "\t\tLink layer: {link_layer}");
    debug_assert!(state != PortState::Init || nic.link_layer == LinkLayer::InfiniBand);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::healthy_host;
    use crate::faults::{Fault, apply};

    const SAMPLE: &str = include_str!(
        "../../../parse/tests/fixtures/ibstat/ibstat-cx6-hdr-mt4123-fw20.26-ib-one-port-disabled-lustreperfmon-27-PARTIAL.txt"
    );

    #[test]
    fn lines_have_the_shape_of_the_tab_indented_sample() {
        let out = render(&healthy_host(0), &[]).stdout;
        // Every line of ours has a line of the same key and indentation in the real output.
        let shape = |l: &str| l.split(':').next().unwrap_or("").to_string();
        let real: Vec<String> = SAMPLE.lines().skip(1).map(shape).collect();
        for line in out.lines().filter(|l| !l.starts_with("CA '")) {
            assert!(real.contains(&shape(line)), "no real line like {line:?}");
        }
        assert_eq!(out.lines().filter(|l| l.starts_with("CA '")).count(), 3);
        assert!(out.contains("\t\tLink layer: Ethernet\n") && out.contains("\t\tLink layer: InfiniBand\n"));
    }

    #[test]
    fn parses_back_to_the_state() {
        let host = healthy_host(0);
        let p = fabcheck_parse::linux::ibstat::parse(&render(&host, &[]).stdout).expect("parses");
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        let cas = &p.value.cas;
        assert_eq!(cas.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["mlx5_0", "mlx5_1", "mlx5_2"]);
        let roce = &cas[0].ports[0];
        assert_eq!(
            (roce.state.as_str(), roce.rate_gbps, roce.base_lid, roce.sm_lid),
            ("Active", Some(400.0), Some(0), Some(0))
        );
        assert_eq!(roce.link_layer.as_deref(), Some("Ethernet"));
        let ib = &cas[2].ports[0];
        assert_eq!((ib.base_lid, ib.sm_lid, ib.link_layer.as_deref()), (Some(2), Some(1), Some("InfiniBand")));
        assert_eq!(cas[0].firmware_version.as_deref(), Some("28.39.1002"));
    }

    #[test]
    fn faults_show() {
        let mut host = healthy_host(1);
        for f in ["gpu002=link-down@mlx5_1", "gpu002=link-degraded@mlx5_0", "gpu002=sm-missing"] {
            apply(&mut host, &f.parse::<Fault>().unwrap()).unwrap();
        }
        let p = fabcheck_parse::linux::ibstat::parse(&render(&host, &[]).stdout).unwrap();
        let port = |i: usize| p.value.cas[i].ports[0].clone();
        assert_eq!(port(0).rate_gbps, Some(200.0));
        assert_eq!(
            (port(1).state.as_str(), port(1).physical_state.as_str(), port(1).rate_gbps),
            ("Down", "Disabled", Some(40.0))
        );
        assert_eq!((port(2).state.as_str(), port(2).sm_lid, port(2).base_lid), ("Initializing", Some(0), Some(0)));
        assert_eq!(render(&host, &["-l".into()]).stdout, "mlx5_0\nmlx5_1\nmlx5_2\n");
        assert!(render(&host, &["-p".into()]).stdout.starts_with("0x966daefffe000100\n"));
        let one = render(&host, &["mlx5_1".into()]).stdout;
        assert!(one.starts_with("CA 'mlx5_1'\n") && one.matches("CA '").count() == 1);
        assert_eq!(render(&host, &["mlx5_7".into()]).status, 255);
    }
}
