//! What several renderers derive the same way from a NIC: GUIDs, GIDs, port state, rate, the card's
//! VPD, so that `ibstat`, `ibdev2netdev`, `show_gids`, sysfs and `ip link` always agree.

use crate::state::{LabHost, LabNic, LinkLayer};
use std::fmt::Write as _;
use std::net::Ipv4Addr;
use std::time::Duration;

/// The product name in the card's VPD, as `lspci -vv` shows it for an MCX75310AAS-NEAT: the VPD
/// ID string is a fixed 182-byte field padded with spaces, and `ibdev2netdev -v` prints it padded.
const CX7_PRODUCT_NAME: &str = "NVIDIA ConnectX-7 HHHL Adapter card, 400GbE / NDR IB (default mode), Single-port OSFP, PCIe 5.0 x16, Crypto Disabled, Secure Boot Enabled";
/// Length of the VPD ID string field of ConnectX cards (two real `ibdev2netdev -v` lines, a
/// BlueField-3 and a ConnectX-6, and a ConnectX-7 `lspci -vv` all pad to it).
const VPD_NAME_LEN: usize = 182;

/// The lab hosts' kernel (`uname -r`): Ubuntu 22.04's.
pub(crate) const KERNEL_RELEASE: &str = "5.15.0-105-generic";

/// The card's part number and padded VPD product name (`ibdev2netdev -v`).
pub(crate) fn vpd(_nic: &LabNic) -> (&'static str, String) {
    ("MCX75310AAS-NEAT", format!("{CX7_PRODUCT_NAME:<VPD_NAME_LEN$}"))
}

/// Logical state of a port, as the kernel reports it in `ports/1/state`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PortState {
    /// `4: ACTIVE`, physical `LinkUp`.
    Active,
    /// `2: INIT`, physical `LinkUp`: an InfiniBand port whose link trained but that no subnet
    /// manager has configured (no LID, no SM LID). A RoCE port never is in this state.
    Init,
    /// `1: DOWN`, physical `Disabled`.
    Down,
}

/// The port's state: an IB port with a link but no SM LID is `Init`, as on a real fabric without
/// a subnet manager.
pub(crate) fn port_state(nic: &LabNic) -> PortState {
    match (nic.up, nic.link_layer) {
        (false, _) => PortState::Down,
        (true, LinkLayer::InfiniBand) if nic.sm_lid == 0 => PortState::Init,
        (true, _) => PortState::Active,
    }
}

impl PortState {
    /// `ibstat` names: `Active`, `Initializing`, `Down`.
    pub(crate) fn ibstat(self) -> &'static str {
        match self {
            PortState::Active => "Active",
            PortState::Init => "Initializing",
            PortState::Down => "Down",
        }
    }

    /// `ibstat` physical state names.
    pub(crate) fn ibstat_physical(self) -> &'static str {
        match self {
            PortState::Active | PortState::Init => "LinkUp",
            PortState::Down => "Disabled",
        }
    }

    /// sysfs `ports/1/state`.
    pub(crate) fn sysfs(self) -> &'static str {
        match self {
            PortState::Active => "4: ACTIVE",
            PortState::Init => "2: INIT",
            PortState::Down => "1: DOWN",
        }
    }

    /// sysfs `ports/1/phys_state`.
    pub(crate) fn sysfs_physical(self) -> &'static str {
        match self {
            PortState::Active | PortState::Init => "5: LinkUp",
            PortState::Down => "3: Disabled",
        }
    }

    /// Whether the netdev has carrier (IPoIB has none until the port is Active).
    pub(crate) fn carrier(self) -> bool {
        self == PortState::Active
    }
}

/// The LID `ibstat` and `perfquery` see: unassigned (0) before an SM configured the port, 65535
/// on a down IB port (as the real samples show), always 0 on RoCE.
pub(crate) fn shown_lid(nic: &LabNic) -> u32 {
    match (nic.link_layer, port_state(nic)) {
        (LinkLayer::Ethernet, _) => 0,
        (LinkLayer::InfiniBand, PortState::Active) => nic.lid,
        (LinkLayer::InfiniBand, PortState::Init) => 0,
        (LinkLayer::InfiniBand, PortState::Down) => 65535,
    }
}

/// The SM LID the port reports (0 unless Active).
pub(crate) fn shown_sm_lid(nic: &LabNic) -> u32 {
    match (nic.link_layer, port_state(nic)) {
        (LinkLayer::InfiniBand, PortState::Active) => nic.sm_lid,
        _ => 0,
    }
}

/// Port rate as the kernel reports it: `(Gb/s, width, speed name)`. A down mlx5 RoCE port reports
/// the driver's default 4X QDR (40 Gb/s, `mlx5_query_port_roce`); a down IB port 4X SDR (10).
pub(crate) fn port_rate(nic: &LabNic) -> (u32, String, String) {
    match (port_state(nic), nic.link_layer) {
        (PortState::Down, LinkLayer::Ethernet) => (40, "4X".into(), "QDR".into()),
        (PortState::Down, LinkLayer::InfiniBand) => (10, "4X".into(), "SDR".into()),
        _ => (nic.rate_gbps, nic.width.clone(), nic.speed_name.clone()),
    }
}

/// sysfs `ports/1/rate` (drivers/infiniband/core/sysfs.c `rate_show`): `400 Gb/sec (4X NDR)`.
pub(crate) fn sysfs_rate(nic: &LabNic) -> String {
    let (gbps, width, speed) = port_rate(nic);
    format!("{gbps} Gb/sec ({width} {speed})")
}

/// Number of lanes of a width (`4X` → 4).
pub(crate) fn lanes(width: &str) -> u32 {
    width.trim_end_matches(['X', 'x']).parse().unwrap_or(4)
}

/// `aa:bb:cc:dd:ee:ff`.
pub(crate) fn mac_string(mac: &[u8]) -> String {
    let mut s = String::new();
    for (i, b) in mac.iter().enumerate() {
        if i > 0 {
            s.push(':');
        }
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// Port GUID: the node GUID on InfiniBand; the EUI-64 of the MAC on RoCE (U/L bit flipped,
/// `ff:fe` in the middle), as `ibstat` prints for ConnectX in Ethernet mode.
pub(crate) fn port_guid(nic: &LabNic) -> u64 {
    match nic.link_layer {
        LinkLayer::InfiniBand => nic.node_guid,
        LinkLayer::Ethernet => {
            let m = nic.mac;
            u64::from_be_bytes([m[0] ^ 0x02, m[1], m[2], 0xff, 0xfe, m[3], m[4], m[5]])
        }
    }
}

/// A 128-bit GID as sysfs prints it: eight groups of four hex digits.
fn gid_string(bytes: [u8; 16]) -> String {
    let mut s = String::new();
    for (i, pair) in bytes.chunks(2).enumerate() {
        if i > 0 {
            s.push(':');
        }
        let _ = write!(s, "{:02x}{:02x}", pair[0], pair[1]);
    }
    s
}

/// The link-local GID (index 0): `fe80::` + port GUID.
pub(crate) fn link_local_gid(nic: &LabNic) -> String {
    let mut b = [0u8; 16];
    b[0] = 0xfe;
    b[1] = 0x80;
    b[8..].copy_from_slice(&port_guid(nic).to_be_bytes());
    gid_string(b)
}

/// The IPv4-mapped RoCE GID: `::ffff:a.b.c.d`.
pub(crate) fn ipv4_gid(ip: Ipv4Addr) -> String {
    let mut b = [0u8; 16];
    b[10] = 0xff;
    b[11] = 0xff;
    b[12..].copy_from_slice(&ip.octets());
    gid_string(b)
}

/// The GID table of port 1: `(index, gid, type "v1"/"v2", ipv4)`, non-zero entries only.
pub(crate) fn gids(nic: &LabNic) -> Vec<(u32, String, &'static str, Option<Ipv4Addr>)> {
    let ll = link_local_gid(nic);
    match nic.link_layer {
        LinkLayer::InfiniBand => vec![(0, ll, "v1", None)],
        LinkLayer::Ethernet => {
            let mut g = vec![(0, ll.clone(), "v1", None), (1, ll, "v2", None)];
            if let (true, Some(ip)) = (nic.rocev2_gid, nic.ipv4) {
                g.push((nic.ipv4_gid_index, ipv4_gid(ip), "v1", Some(ip)));
                g.push((nic.ipv4_gid_index + 1, ipv4_gid(ip), "v2", Some(ip)));
            }
            g
        }
    }
}

/// NICs sorted by RDMA device name, as `ls /sys/class/infiniband` lists them.
pub(crate) fn nics_by_ibdev(host: &LabHost) -> Vec<&LabNic> {
    let mut nics: Vec<&LabNic> = host.nics.iter().collect();
    nics.sort_by(|a, b| a.ibdev.cmp(&b.ibdev));
    nics
}

/// A CPU list as the kernel prints it (`%*pbl`): `0-3,8`.
pub(crate) fn cpu_list(cpus: &[u32]) -> String {
    let mut sorted = cpus.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let start = sorted[i];
        let mut end = start;
        while i + 1 < sorted.len() && sorted[i + 1] == end + 1 {
            i += 1;
            end = sorted[i];
        }
        out.push(if start == end { start.to_string() } else { format!("{start}-{end}") });
        i += 1;
    }
    out.join(",")
}

/// A process id for `ibwarn: [PID]` lines: different per host and per moment, as a real one is.
pub(crate) fn pid(host: &LabHost, elapsed: Duration) -> u32 {
    let h = host.name.bytes().fold(7u32, |h, b| h.wrapping_mul(31).wrapping_add(b as u32));
    1000 + (h.wrapping_add((elapsed.as_millis() / 10) as u32 * 7)) % 400_000
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::healthy_host;

    #[test]
    fn guids_and_gids_follow_the_mac_and_node_guid() {
        let host = healthy_host(0);
        let roce = &host.nics[0];
        assert_eq!(mac_string(&roce.mac), "94:6d:ae:00:00:00");
        assert_eq!(port_guid(roce), 0x966d_aeff_fe00_0000);
        assert_eq!(link_local_gid(roce), "fe80:0000:0000:0000:966d:aeff:fe00:0000");
        assert_eq!(ipv4_gid(Ipv4Addr::new(172, 17, 242, 56)), "0000:0000:0000:0000:0000:ffff:ac11:f238");
        let ib = &host.nics[2];
        assert_eq!(link_local_gid(ib), "fe80:0000:0000:0000:946d:ae03:0000:0002");
    }

    #[test]
    fn cpu_lists_compress_to_ranges() {
        assert_eq!(cpu_list(&[0, 1, 2, 3, 8]), "0-3,8");
        assert_eq!(cpu_list(&[5]), "5");
        assert_eq!(cpu_list(&[3, 1, 2, 10, 11]), "1-3,10-11");
        assert_eq!(vpd(&healthy_host(0).nics[0]).1.len(), 182);
    }
}
