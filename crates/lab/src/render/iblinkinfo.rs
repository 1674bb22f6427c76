//! `iblinkinfo`: the lab's InfiniBand fabric, one NDR switch (LID 1, where the subnet manager
//! runs) with every host's IB HCA on a port of its own. Layout of infiniband-diags' iblinkinfo
//! (`print_port()`), as in the real sample ib-tools/iblinkinfo-mqm8700-*: a `CA:` block per
//! host, then the `Switch:` block with a line per port. Node descriptions are `host mlx5_N`, as
//! current OFED sets them. A port that is down shows only on the switch side, with no peer.

use crate::build::SM_LID;
use crate::render::common::{port_guid, shown_lid};
use crate::state::{LabHost, LabNic, LinkLayer};
use std::fmt::Write as _;

/// Description of the lab's IB switch.
const SWITCH: &str = "MF0;ibsw1:MQM9700/U1";
/// Its node GUID.
const SWITCH_GUID: u64 = 0x0c42_a103_00b9_5bfa;

/// Lane speed of an IB speed name, Gb/s, as iblinkinfo prints it.
fn lane_gbps(nic: &LabNic) -> &'static str {
    match nic.speed_name.as_str() {
        "NDR" => "106.25",
        "HDR" => "53.125",
        "EDR" => "25.78125",
        _ => "10.0",
    }
}

/// The output for a lab of `hosts`.
pub fn render(hosts: &[LabHost]) -> String {
    let ports: Vec<(&LabHost, &LabNic)> = hosts
        .iter()
        .flat_map(|h| h.nics.iter().filter(|n| n.link_layer == LinkLayer::InfiniBand).map(move |n| (h, n)))
        .collect();
    let mut out = String::new();
    for (i, (host, nic)) in ports.iter().enumerate() {
        if !nic.up {
            continue; // Unreachable through the fabric: no CA block.
        }
        let _ = writeln!(out, "CA: {} {}:", host.name, nic.ibdev);
        let _ = writeln!(
            out,
            "      0x{:016x} {:>6} {:>4}[  ] ==( {:>2} {:>13} Gbps {}/  LinkUp)==>  {:>6} {:>4}[  ] \"{SWITCH}\" ( )",
            port_guid(nic),
            shown_lid(nic),
            1,
            nic.width,
            lane_gbps(nic),
            state(host),
            SM_LID,
            i + 1
        );
    }
    let _ = writeln!(out, "Switch: 0x{SWITCH_GUID:016x} {SWITCH}:");
    for (i, (host, nic)) in ports.iter().enumerate() {
        if nic.up {
            let _ = writeln!(
                out,
                "  {:>6} {:>4}[  ] ==( {:>2} {:>13} Gbps {}/  LinkUp)==>  {:>6} {:>4}[  ] \"{} {}\" ( )",
                SM_LID,
                i + 1,
                nic.width,
                lane_gbps(nic),
                state(host),
                shown_lid(nic),
                1,
                host.name,
                nic.ibdev
            );
        } else {
            let _ = writeln!(
                out,
                "  {:>6} {:>4}[  ] ==(                Down/ Polling)==>             [  ] \"\" ( )",
                SM_LID,
                i + 1
            );
        }
    }
    out
}

/// Without a subnet manager the ports stay in Initialize.
fn state(host: &LabHost) -> &'static str {
    if host.sm.is_some() { "Active" } else { "Initialize" }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::healthy_host;
    use crate::faults::{Fault, apply};

    #[test]
    fn parses_back_link_by_link() {
        let mut hosts: Vec<LabHost> = (0..3).map(healthy_host).collect();
        apply(&mut hosts[1], &"gpu002=link-degraded@mlx5_2".parse::<Fault>().unwrap()).unwrap();
        let text = render(&hosts);
        let parsed = fabcheck_parse::linux::iblinkinfo::parse(&text).unwrap();
        assert!(parsed.warnings.is_empty(), "{:?}\n{text}", parsed.warnings);
        let view = parsed.value;
        assert_eq!(view.nodes.len(), 4, "three CAs and the switch");
        assert_eq!(view.nodes[0].name, "gpu001 mlx5_2");
        let switch = &view.nodes[3];
        assert_eq!((switch.kind.as_str(), switch.name.as_str(), switch.links.len()), ("Switch", SWITCH, 3));
        let degraded = &switch.links[1];
        assert_eq!((degraded.width.as_deref(), degraded.speed_gbps), (Some("2X"), Some(106.25)));
        assert_eq!(degraded.peer_name.as_deref(), Some("gpu002 mlx5_2"));
        assert_eq!(switch.links[0].state.as_deref(), Some("Active"));
    }
}
