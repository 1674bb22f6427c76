//! The procfs and sysfs files `cat` and `grep` read: `/proc/interrupts`,
//! `/proc/irq/N/smp_affinity_list`, `/sys/class/infiniband/DEV/...` and `/sys/class/net/IF/...`.
//!
//! Paths are listed without reading (the shell globs over them); a file's text is built only when
//! it is read, at the moment of the read. Formats are the kernel's: `rate` from `rate_show()`
//! (`400 Gb/sec (4X NDR)`), `state` `4: ACTIVE`, hw_counters one decimal per file (as
//! rdma-counters/mlx5_0-hw_counters-grep-format-*.txt shows them through `grep -H ''`), CPU lists
//! from `%*pbl`, node GUIDs as `946d:ae03:0000:0000`. The DCQCN switches and CNP marking under
//! `ecn/` can be written too ([`write`]), as the fixes for the `dcqcn-*` and `cnp-dscp` faults do.

use super::common::{self, port_state};
use super::interrupts;
use super::ip_link;
use super::ip_route::ConfFile;
use crate::state::{DcqcnPoint, LabHost, LabNic};
use std::time::Duration;

/// A file the lab can read.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Node {
    Interrupts,
    IrqAffinity(Vec<u32>),
    Ib { nic: usize, file: IbFile },
    Net { iface: usize, file: NetFile },
    Ecn { nic: usize, file: EcnFile },
    Conf { iface: String, file: ConfFile },
}

/// Files under `/sys/class/net/IF/ecn` (MLNX_OFED's `en_sysfs.c`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum EcnFile {
    RpEnable(u8),
    NpEnable(u8),
    /// A reaction-point parameter with its firmware default.
    Rp(&'static str, i64),
    /// A notification-point parameter; the CNP marking ones come from the NIC.
    Np(&'static str),
}

/// The reaction point's parameters and their firmware defaults (mlxconfig's `*_P1` values).
const RP_PARAMS: [(&str, i64); 16] = [
    ("clamp_tgt_rate", 0),
    ("clamp_tgt_rate_after_time_inc", 1),
    ("dce_tcp_g", 1019),
    ("dce_tcp_rtt", 1),
    ("initial_alpha_value", 1023),
    ("rate_reduce_monitor_period", 4),
    ("rate_to_set_on_first_cnp", 0),
    ("rpg_ai_rate", 5),
    ("rpg_byte_reset", 32767),
    ("rpg_gd", 11),
    ("rpg_hai_rate", 50),
    ("rpg_max_rate", 0),
    ("rpg_min_dec_fac", 50),
    ("rpg_min_rate", 1),
    ("rpg_threshold", 1),
    ("rpg_time_reset", 300),
];

/// Files under `/sys/class/infiniband/DEV`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum IbFile {
    FwVer,
    NodeGuid,
    SysImageGuid,
    HcaType,
    Rate,
    State,
    PhysState,
    LinkLayer,
    Lid,
    SmLid,
    HwCounter(String),
}

/// Files under `/sys/class/net/IF`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum NetFile {
    Mtu,
    Operstate,
    Carrier,
    Address,
    Speed,
}

/// Every file, with its path.
pub(crate) fn files(host: &LabHost) -> Vec<(String, Node)> {
    let mut out = vec![("/proc/interrupts".to_string(), Node::Interrupts)];
    for line in interrupts::irq_lines(host) {
        out.push((format!("/proc/irq/{}/smp_affinity_list", line.irq), Node::IrqAffinity(line.affinity)));
    }
    for (i, nic) in host.nics.iter().enumerate() {
        let dev = format!("/sys/class/infiniband/{}", nic.ibdev);
        let port = format!("{dev}/ports/1");
        let mut add = |path: String, file: IbFile| out.push((path, Node::Ib { nic: i, file }));
        add(format!("{dev}/fw_ver"), IbFile::FwVer);
        add(format!("{dev}/hca_type"), IbFile::HcaType);
        add(format!("{dev}/node_guid"), IbFile::NodeGuid);
        add(format!("{dev}/sys_image_guid"), IbFile::SysImageGuid);
        add(format!("{port}/lid"), IbFile::Lid);
        add(format!("{port}/link_layer"), IbFile::LinkLayer);
        add(format!("{port}/phys_state"), IbFile::PhysState);
        add(format!("{port}/rate"), IbFile::Rate);
        add(format!("{port}/sm_lid"), IbFile::SmLid);
        add(format!("{port}/state"), IbFile::State);
        for name in nic.hw_counters.keys() {
            add(format!("{port}/hw_counters/{name}"), IbFile::HwCounter(name.clone()));
        }
    }
    for (i, nic) in host.nics.iter().enumerate().filter(|(_, n)| n.dcqcn.is_some()) {
        let ecn = format!("/sys/class/net/{}/ecn", nic.netdev);
        let mut add = |path: String, file: EcnFile| out.push((path, Node::Ecn { nic: i, file }));
        for prio in 0..8u8 {
            add(format!("{ecn}/roce_np/enable/{prio}"), EcnFile::NpEnable(prio));
            add(format!("{ecn}/roce_rp/enable/{prio}"), EcnFile::RpEnable(prio));
        }
        for name in ["cnp_802p_prio", "cnp_dscp", "min_time_between_cnps"] {
            add(format!("{ecn}/roce_np/{name}"), EcnFile::Np(name));
        }
        for (name, default) in RP_PARAMS {
            add(format!("{ecn}/roce_rp/{name}"), EcnFile::Rp(name, default));
        }
    }
    let mut conf: Vec<String> = ["all", "default"].into_iter().map(String::from).collect();
    conf.extend(ip_link::interfaces(host).into_iter().map(|i| i.name));
    for iface in conf {
        for (leaf, file) in ConfFile::ALL {
            out.push((format!("/proc/sys/net/ipv4/conf/{iface}/{leaf}"), Node::Conf { iface: iface.clone(), file }));
        }
    }
    for (i, iface) in ip_link::interfaces(host).iter().enumerate() {
        for (leaf, file) in [
            ("address", NetFile::Address),
            ("carrier", NetFile::Carrier),
            ("mtu", NetFile::Mtu),
            ("operstate", NetFile::Operstate),
            ("speed", NetFile::Speed),
        ] {
            out.push((format!("/sys/class/net/{}/{leaf}", iface.name), Node::Net { iface: i, file }));
        }
    }
    out
}

/// A sysfs GUID: `946d:ae03:0000:0000`.
fn sysfs_guid(guid: u64) -> String {
    let b = guid.to_be_bytes();
    b.chunks(2).map(|p| format!("{:02x}{:02x}", p[0], p[1])).collect::<Vec<_>>().join(":")
}

fn ib_file(nic: &LabNic, file: &IbFile, elapsed: Duration) -> String {
    match file {
        IbFile::FwVer => nic.firmware.clone(),
        IbFile::NodeGuid | IbFile::SysImageGuid => sysfs_guid(nic.node_guid),
        IbFile::HcaType => nic.ca_type.clone(),
        IbFile::Rate => common::sysfs_rate(nic),
        IbFile::State => port_state(nic).sysfs().into(),
        IbFile::PhysState => port_state(nic).sysfs_physical().into(),
        IbFile::LinkLayer => match nic.link_layer {
            crate::state::LinkLayer::Ethernet => "Ethernet".into(),
            crate::state::LinkLayer::InfiniBand => "InfiniBand".into(),
        },
        IbFile::Lid => format!("0x{:x}", common::shown_lid(nic)),
        IbFile::SmLid => format!("0x{:x}", common::shown_sm_lid(nic)),
        IbFile::HwCounter(name) => nic.hw_counters.get(name).map_or(0, |c| c.at(elapsed)).to_string(),
    }
}

/// One `ecn` file: a decimal and a newline, as the driver's `sprintf("%d\n")` prints it.
fn ecn_file(nic: &LabNic, file: EcnFile) -> i64 {
    let Some(d) = nic.dcqcn else { return 0 };
    match file {
        EcnFile::RpEnable(p) => i64::from(d.rp[usize::from(p)]),
        EcnFile::NpEnable(p) => i64::from(d.np[usize::from(p)]),
        EcnFile::Rp(_, default) => default,
        EcnFile::Np("cnp_dscp") => i64::from(d.cnp_dscp),
        EcnFile::Np("cnp_802p_prio") => i64::from(d.cnp_prio),
        // min_time_between_cnps: 4 µs, the firmware default.
        EcnFile::Np(_) => 4,
    }
}

/// What a file the lab lets be written sets: the DCQCN switches and CNP marking, which the
/// driver lets root set and the lab keeps (any other file is read-only here, `Permission denied`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Setting {
    /// `roce_rp/enable/P` or `roce_np/enable/P`.
    Point(DcqcnPoint, u8),
    /// `roce_np/cnp_dscp`.
    CnpDscp,
    /// `roce_np/cnp_802p_prio`.
    CnpPrio,
}

impl Setting {
    /// What `node` sets, and on which NIC; `None`: read-only.
    fn of(node: &Node) -> Option<(usize, Setting)> {
        let Node::Ecn { nic, file } = node else {
            return None;
        };
        let setting = match *file {
            EcnFile::RpEnable(prio) => Setting::Point(DcqcnPoint::Reaction, prio),
            EcnFile::NpEnable(prio) => Setting::Point(DcqcnPoint::Notification, prio),
            EcnFile::Np("cnp_dscp") => Setting::CnpDscp,
            EcnFile::Np("cnp_802p_prio") => Setting::CnpPrio,
            EcnFile::Rp(..) | EcnFile::Np(_) => return None,
        };
        Some((*nic, setting))
    }

    /// The largest value the driver takes: a switch is 0 or 1, a DSCP 0-63, a priority 0-7.
    fn max(self) -> u8 {
        match self {
            Setting::Point(..) => 1,
            Setting::CnpDscp => 63,
            Setting::CnpPrio => 7,
        }
    }
}

impl Node {
    /// Whether the lab lets the file be written (see [`write`]).
    pub(crate) fn writable(&self) -> bool {
        Setting::of(self).is_some()
    }
}

/// The driver refused what was written (its store function's `-EINVAL`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct InvalidArgument;

/// Writes `text` to a [`Node::writable`] file as MLNX_OFED's store functions take it: one
/// decimal (a trailing newline allowed, as `echo` writes it), 0 or 1 for an `enable/P` file, a
/// DSCP (0-63) for `cnp_dscp`, a priority (0-7) for `cnp_802p_prio`; anything else is refused and
/// changes nothing.
pub(crate) fn write(host: &mut LabHost, node: &Node, text: &str) -> Result<(), InvalidArgument> {
    let (nic, setting) = Setting::of(node).ok_or(InvalidArgument)?;
    let nic = host.nics.get_mut(nic).ok_or(InvalidArgument)?;
    let value: u8 = text.strip_suffix('\n').unwrap_or(text).parse().map_err(|_| InvalidArgument)?;
    if value > setting.max() {
        return Err(InvalidArgument);
    }
    let done = match (setting, nic.dcqcn.as_mut()) {
        (Setting::Point(point, prio), _) => nic.set_dcqcn(point, prio.into(), value == 1),
        (Setting::CnpDscp, Some(dcqcn)) => {
            dcqcn.cnp_dscp = value;
            true
        }
        (Setting::CnpPrio, Some(dcqcn)) => {
            dcqcn.cnp_prio = value;
            true
        }
        (Setting::CnpDscp | Setting::CnpPrio, None) => false,
    };
    if done { Ok(()) } else { Err(InvalidArgument) }
}

/// The text of a file at `elapsed`.
pub(crate) fn read(host: &LabHost, node: &Node, elapsed: Duration) -> String {
    match node {
        Node::Interrupts => interrupts::proc_interrupts(host, elapsed),
        Node::IrqAffinity(cpus) => format!("{}\n", common::cpu_list(cpus)),
        Node::Ib { nic, file } => format!("{}\n", ib_file(&host.nics[*nic], file, elapsed)),
        Node::Ecn { nic, file } => format!("{}\n", ecn_file(&host.nics[*nic], *file)),
        Node::Conf { iface, file } => format!("{}\n", file.value(iface)),
        Node::Net { iface, file } => {
            let ifaces = ip_link::interfaces(host);
            let i = &ifaces[*iface];
            let v = match file {
                NetFile::Mtu => i.mtu.to_string(),
                NetFile::Operstate => i.operstate.to_lowercase(),
                NetFile::Carrier => u8::from(i.flags.contains(&"LOWER_UP")).to_string(),
                NetFile::Address => i.address.clone(),
                NetFile::Speed => i.speed.to_string(),
            };
            format!("{v}\n")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::healthy_host;

    #[test]
    fn lists_and_reads() {
        let host = healthy_host(0);
        let f = files(&host);
        let get = |p: &str| read(&host, &f.iter().find(|(path, _)| path == p).unwrap().1, Duration::ZERO);
        assert_eq!(get("/sys/class/infiniband/mlx5_0/ports/1/rate"), "400 Gb/sec (4X NDR)\n");
        assert_eq!(get("/sys/class/infiniband/mlx5_2/ports/1/state"), "4: ACTIVE\n");
        assert_eq!(get("/sys/class/infiniband/mlx5_2/ports/1/lid"), "0x2\n");
        assert_eq!(get("/sys/class/infiniband/mlx5_0/node_guid"), "946d:ae03:0000:0000\n");
        assert_eq!(get("/proc/irq/140/smp_affinity_list"), "0\n");
        assert_eq!(get("/proc/irq/0/smp_affinity_list"), "0-31\n");
        assert_eq!(get("/sys/class/net/ens1np0/mtu"), "4200\n");
        assert_eq!(get("/sys/class/infiniband/mlx5_0/ports/1/hw_counters/lifespan"), "12\n");
        assert_eq!(get("/sys/class/net/ens1np0/ecn/roce_np/enable/3"), "1\n");
        assert_eq!(get("/sys/class/net/ens2np0/ecn/roce_np/cnp_dscp"), "48\n");
        assert_eq!(get("/sys/class/net/ens1np0/ecn/roce_rp/rpg_time_reset"), "300\n");
        assert!(!f.iter().any(|(p, _)| p.starts_with("/sys/class/net/ib0/ecn")), "IPoIB has no DCQCN tree");
    }
}
