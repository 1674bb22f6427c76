//! A GPU host's facts: its RDMA ports (RoCE and InfiniBand) with their QoS, link and GID facts,
//! its adapters' models and firmware, the subnet manager's answer, loaded modules, IRQ placement,
//! counter reads around the window, and its LLDP and InfiniBand fabric views when they were
//! collected.

use super::RdmaPort;
use super::evidence_file;
use super::ports::discover;
use super::reader::{Got, Reader};
use super::{AdapterFacts, CounterRead, Dcqcn, HostFacts, IbPortFacts, IrqFacts, NicFacts, PortCounterReads, SmAnswer};
use crate::evidence::DeviceRecord;
use fabcheck_flows::flow::Flows;
use fabcheck_flows::record::{FlowRecord, Source};
use fabcheck_model::Finding;
use fabcheck_model::host::ibdev2netdev::Mapping;
use fabcheck_model::host::ibstat::{Ca, Port};
use fabcheck_model::host::ip_link::IpLink;
use fabcheck_parse::linux::{
    ethtool_link, ethtool_stats, hw_counters, iblinkinfo, interrupts, ip_route, ip_rule, irq_affinity, lsmod, mlnx_qos,
    net_conf, nvidia_smi_topo, perfquery, port_rate, roce_ecn, saquery_sm, show_gids, sminfo,
};
use fabcheck_parse::{ParseError, ParseResult};

/// The outputs of a host that are not about its RDMA devices: what they lack or fail to give is
/// worth saying on a host that has none. (The others — ibdev2netdev, ibstat, show_gids, sminfo,
/// saquery, the sysfs counters and rates, lsmod for the RDMA and peer-memory modules,
/// nvidia-smi's GPU-to-NIC topology — have nothing to read there.)
const NOT_RDMA_OUTPUTS: [&str; 7] =
    ["ip_link", "ip_route", "ip_rule", "net_conf", "interrupts", "irq_affinity", "lldp"];

/// The evidence that the host has no RDMA device: the sysfs glob over
/// `/sys/class/infiniband/*/ports/*/rate` matched nothing (grep says `No such file or
/// directory` for the unexpanded pattern), where every RDMA device, RoCE or InfiniBand, has a
/// port (the kernel's Documentation/ABI/stable/sysfs-class-infiniband).
fn no_rdma_device(record: &DeviceRecord) -> Option<String> {
    let e = record.output("port_rate")?;
    let unmatched = e.stdout.is_empty()
        && e.stderr.contains("/sys/class/infiniband/*/ports/*/rate")
        && e.stderr.contains("No such file or directory");
    unmatched.then(|| super::evidence_file(&record.name, "port_rate"))
}

/// Reads a host's outputs.
pub fn read(out: &mut Reader, record: &DeviceRecord) -> HostFacts {
    // The outputs that name the ports are parsed once, by discovery, and read from its results.
    let found = discover(record, &record.nics);
    let ports = found.ports;
    let rdma_listed = record.stdout_ok("ibdev2netdev").is_some();
    let mappings = out.get("ibdev2netdev", None, reuse(found.ibdev2netdev)).map(|m| m.mappings).unwrap_or_default();
    let cas = out.get("ibstat", None, reuse(found.ibstat)).map(|s| s.cas).unwrap_or_default();
    let netdevs = out.get("ip_link", None, reuse(found.ip_link)).map(|l| l.links).unwrap_or_default();
    let nics = nic_facts(out, &ports, &cas, &netdevs);
    let ib_ports = ib_port_facts(out, &ports, &cas);
    let adapters = adapter_facts(&ports, &cas, &mappings);
    let sm = if ib_ports.is_empty() {
        SmAnswer::Unknown
    } else {
        match out.get_or_failed("sminfo", None, sminfo::parse) {
            Got::Value(sm) => SmAnswer::Lid(sm.sm_lid),
            Got::Failed { .. } => SmAnswer::NoAnswer,
            Got::Nothing => SmAnswer::Unknown,
        }
    };
    // A failed query is no fact about standbys: the SM checks report a missing SM from sminfo.
    let sm_records = match ib_ports.is_empty() {
        true => None,
        false => match out.get_or_failed("saquery_sm", None, saquery_sm::parse) {
            Got::Value(records) => Some(records),
            Got::Failed { .. } | Got::Nothing => None,
        },
    };
    let modules = out.get("lsmod", None, lsmod::parse);
    let irqs =
        match (out.get("interrupts", None, interrupts::parse), out.get("irq_affinity", None, irq_affinity::parse)) {
            (Some(interrupts), Some(affinity)) => Some(IrqFacts { interrupts, affinity, mappings }),
            _ => None,
        };
    let counters = counter_reads(out, &ports, &cas);
    let lldp = out.get("lldp", None, fabcheck_parse::lldp::parse).map(|l| l.neighbors);
    let iblinkinfo = out.get("iblinkinfo", None, iblinkinfo::parse);
    let gpu_topo = out.get("nvidia_smi_topo", None, nvidia_smi_topo::parse);
    let rules = out.get("ip_rule", None, ip_rule::parse).map(|r| r.rules);
    let routes = out.get("ip_route", None, ip_route::parse).map(|r| r.routes);
    let net_conf = out.get("net_conf", None, net_conf::parse);
    let flows = capture_flows(out, record);
    let no_rdma_device = no_rdma_device(record).filter(|_| ports.is_empty());
    if no_rdma_device.is_some() {
        // What RDMA tools lack or fail to read there says nothing; one that hangs still ties up
        // the host's sessions, and is kept.
        let nothing_to_read = |f: &Finding| {
            matches!(f.code.as_str(), "collect.tool_missing" | "collect.command_failed")
                && !f
                    .evidence
                    .iter()
                    .any(|file| NOT_RDMA_OUTPUTS.iter().any(|key| file.ends_with(&format!("/{key}.txt"))))
        };
        out.findings.retain(|f| !nothing_to_read(f));
    }
    HostFacts {
        ports,
        rdma_listed,
        no_rdma_device,
        nics,
        netdevs,
        ib_ports,
        adapters,
        sm,
        sm_records,
        modules,
        irqs,
        counters,
        lldp,
        iblinkinfo,
        gpu_topo,
        rules,
        routes,
        net_conf,
        flows,
    }
}

/// A parse that hands over discovery's result for the same output (the reader parses only outputs
/// that were collected, and discovery parsed every one of those).
fn reuse<T>(parsed: Option<ParseResult<T>>) -> impl FnOnce(&str) -> ParseResult<T> {
    move |_| parsed.unwrap_or_else(|| Err(ParseError::at(0, "not collected")))
}

/// `timeout`'s exit status when it stopped the capture: what was captured until then is whole.
const TIMED_OUT: u32 = 124;

/// The flows of each port's capture (`capture.IF`, a pcap on stdout): read into records, the
/// capture point the host. A capture that failed is a `collect.command_failed`; one cut short
/// is read as far as it goes.
fn capture_flows(out: &mut Reader, record: &DeviceRecord) -> Vec<FlowRecord> {
    let mut records = Vec::new();
    for e in record.outputs.iter().filter(|e| e.key.starts_with("capture.") && e.transport_error.is_none()) {
        let port = e.key.trim_start_matches("capture.");
        if !matches!(e.exit_status, Some(0 | TIMED_OUT)) {
            out.command_failed(&e.key, Some(port), e.exit_status, &e.stderr);
            continue;
        }
        let mut flows = Flows::default();
        if let Err(why) = fabcheck_flows::analyse(std::io::Cursor::new(e.stdout.clone()), &mut flows)
            && flows.frames == 0
        {
            out.unreadable(&e.key, Some(port), &why.to_string());
            continue;
        }
        let source = Source {
            kind: "capture".into(),
            file: evidence_file(&record.name, &e.key),
            point: Some(format!("{}:{port}", record.name)),
            sampling_rate: 1,
        };
        records.extend(fabcheck_flows::record::records(&flows, &source));
    }
    records
}

fn ibstat_port(cas: &[Ca], port: &RdmaPort) -> Option<Port> {
    cas.iter().filter(|c| c.name == port.hca).flat_map(|c| &c.ports).find(|p| p.port == port.port).cloned()
}

fn nic_facts(out: &mut Reader, ports: &[RdmaPort], cas: &[Ca], links: &[IpLink]) -> Vec<NicFacts> {
    let gids = out.get("show_gids", None, show_gids::parse);
    let mut facts = Vec::new();
    for port in ports.iter().filter(|p| !p.infiniband) {
        let label = port.label();
        let netdev = port.netdev.clone().unwrap_or_default();
        facts.push(NicFacts {
            qos: out.get(&format!("mlnx_qos.{netdev}"), Some(&label), mlnx_qos::parse),
            ethtool: out.get(&format!("ethtool_link.{netdev}"), Some(&label), ethtool_link::parse),
            link: links.iter().find(|l| l.ifname == netdev).cloned(),
            ibstat: ibstat_port(cas, port),
            rocev2_gid_index: gids.as_ref().and_then(|g| g.rocev2_ipv4_index(&port.hca, port.port)),
            gids_read: gids.is_some(),
            dcqcn: dcqcn(out, &netdev, &label),
            port: port.clone(),
        });
    }
    facts
}

/// `grep` over a tree that does not exist fails with `No such file or directory` for each
/// pattern, and prints nothing when every file it found printed nothing: both say the driver
/// exposes no DCQCN state, which is not a failed command.
fn dcqcn(out: &mut Reader, netdev: &str, label: &str) -> Dcqcn {
    let key = format!("roce_ecn.{netdev}");
    match out.get_or_failed(&key, Some(label), roce_ecn::parse) {
        Got::Value(ecn) => Dcqcn::Read(ecn),
        Got::Failed { status: Some(1), stderr } if stderr.trim().is_empty() => Dcqcn::NotExposed,
        Got::Failed { stderr, .. }
            if !stderr.trim().is_empty() && stderr.lines().all(|l| l.contains("No such file or directory")) =>
        {
            Dcqcn::NotExposed
        }
        Got::Failed { status, stderr } => {
            out.command_failed(&key, Some(label), status, &stderr);
            Dcqcn::Unknown
        }
        Got::Nothing => Dcqcn::Unknown,
    }
}

/// The cards the ports sit on, with their model and firmware, each read from ibstat where it
/// printed them, else from `ibdev2netdev -v`. Devices are one card when they share ibstat's
/// `System image GUID` (a card's ports, Socket Direct halves and VFs do) or their PCI slot (the
/// address without its function), and run one firmware; a device with neither is a card of its
/// own. A device whose model or firmware neither output printed is left out: unknown, not
/// different.
fn adapter_facts(ports: &[RdmaPort], cas: &[Ca], mappings: &[Mapping]) -> Vec<AdapterFacts> {
    let mut cards: Vec<Card> = Vec::new();
    for hca in ports.iter().map(|p| p.hca.as_str()) {
        if cards.iter().any(|card| card.facts.hcas.iter().any(|h| h == hca)) {
            continue;
        }
        let ca = cas.iter().find(|c| c.name == hca);
        let mapping = mappings.iter().find(|m| m.hca == hca);
        let model = ca
            .and_then(|c| c.ca_type.as_deref())
            .or_else(|| mapping.and_then(|m| m.adapter.as_deref()).and_then(|a| a.split_whitespace().next()));
        let firmware = match ca.and_then(|c| c.firmware_version.clone()) {
            Some(version) => Some((version, "ibstat")),
            None => mapping.and_then(|m| m.firmware.clone()).map(|version| (version, "ibdev2netdev")),
        };
        let (Some(model), Some((firmware, source))) = (model, firmware) else { continue };
        let guid = ca
            .and_then(|c| c.system_image_guid.as_deref())
            .filter(|g| g.trim_start_matches("0x").bytes().any(|b| b != b'0'))
            .map(String::from);
        let slot = mapping
            .and_then(|m| m.pci.as_deref())
            .map(|pci| pci.rsplit_once('.').map_or(pci, |(slot, _)| slot).to_string());
        let same = |card: &Card| {
            card.facts.firmware == firmware
                && (guid.is_some() && card.guid == guid || slot.is_some() && card.slot == slot)
        };
        match cards.iter_mut().find(|card| same(card)) {
            Some(card) => {
                card.facts.hcas.push(hca.to_string());
                card.guid = card.guid.take().or(guid);
                card.slot = card.slot.take().or(slot);
            }
            None => cards.push(Card {
                guid,
                slot,
                facts: AdapterFacts {
                    hcas: vec![hca.to_string()],
                    model: model.to_ascii_uppercase(),
                    firmware,
                    source,
                },
            }),
        }
    }
    cards.into_iter().map(|card| card.facts).collect()
}

/// A card being put together from its devices, with what tells its devices apart from others'.
struct Card {
    guid: Option<String>,
    slot: Option<String>,
    facts: AdapterFacts,
}

fn ib_port_facts(out: &mut Reader, ports: &[RdmaPort], cas: &[Ca]) -> Vec<IbPortFacts> {
    let ib: Vec<&RdmaPort> = ports.iter().filter(|p| p.infiniband).collect();
    if ib.is_empty() {
        return Vec::new();
    }
    let rates = out.get("port_rate", None, port_rate::parse).map(|r| r.ports).unwrap_or_default();
    ib.into_iter()
        .map(|port| IbPortFacts {
            ibstat: ibstat_port(cas, port),
            rate: rates.iter().find(|r| r.hca == port.hca && r.port == port.port).cloned(),
            port: port.clone(),
        })
        .collect()
}

/// Each port's reads around the window. A port that is not Active carries no traffic and may not
/// answer counter queries: its port checks report it, its counters are not read.
fn counter_reads(out: &mut Reader, ports: &[RdmaPort], cas: &[Ca]) -> Vec<PortCounterReads> {
    let hw = |out: &mut Reader, phase: &str| {
        out.get(&format!("hw_counters.{phase}"), None, hw_counters::parse).map(|h| h.ports).unwrap_or_default()
    };
    let (t0, t1) = (hw(out, "t0"), hw(out, "t1"));
    let mut reads = Vec::new();
    for port in ports.iter().filter(|p| ibstat_port(cas, p).is_none_or(|s| s.state == "Active")) {
        let before = port_read(out, port, "t0", &t0);
        let after = port_read(out, port, "t1", &t1);
        if let (Some(before), Some(after)) = (before, after) {
            reads.push(PortCounterReads { label: port.label(), before, after });
        }
    }
    reads
}

/// A port's counters in one phase: ethtool -S (RoCE) or perfquery (IB), plus its hw_counters.
fn port_read(out: &mut Reader, port: &RdmaPort, phase: &str, hw: &[hw_counters::HcaPort]) -> Option<CounterRead> {
    let label = port.label();
    let key = match (&port.netdev, port.infiniband) {
        (Some(netdev), false) => format!("ethtool_stats.{netdev}.{phase}"),
        _ => format!("perfquery.{}.{phase}", port.hca),
    };
    let mut values = if port.infiniband {
        out.get(&key, Some(&label), perfquery::parse)?.counters
    } else {
        out.get(&key, Some(&label), ethtool_stats::parse)?.counters
    };
    let mut files = vec![out.file(&key)];
    if let Some(h) = hw.iter().find(|h| h.hca == port.hca && h.port == port.port) {
        // Inserted one by one, not merged with `append`: a real port's ethtool map holds
        // thousands of per-queue counters, and `append` rebuilds all of it for some fifty (the
        // whole audit of a 63-channel lab host took 3.6% more instructions; on the default lab's
        // 59 counters it was a little quicker).
        values.extend(h.counters.iter().map(|(k, v)| (k.clone(), *v)));
        files.push(out.file(&format!("hw_counters.{phase}")));
    }
    let (started_ms, finished_ms) = out.span(&key)?;
    Some(CounterRead { values, started_ms, finished_ms, files })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::testing::{host_record, output};

    /// A card as the tests compare it: (devices, model, firmware, source).
    type Card = (Vec<String>, String, String, &'static str);

    /// The cards of a host with these outputs.
    fn cards_of(ibdev2netdev: &str, ibstat: Option<&str>) -> Vec<Card> {
        let mut outputs = vec![output("ibdev2netdev", ibdev2netdev, 0)];
        outputs.extend(ibstat.map(|text| output("ibstat", text, 0)));
        let record = host_record("gpu01", outputs);
        let mut out = Reader::new(&record);
        read(&mut out, &record).adapters.into_iter().map(|a| (a.hcas, a.model, a.firmware, a.source)).collect()
    }

    fn card(hcas: &[&str], model: &str, firmware: &str, source: &'static str) -> Card {
        (hcas.iter().map(|h| h.to_string()).collect(), model.into(), firmware.into(), source)
    }

    /// A real `ibdev2netdev -v` of a host with two dual-port ConnectX-4 Lx, a ConnectX-5 with two
    /// VFs, and a ConnectX-6: without ibstat, cards are told by PCI slot, and each card's model and
    /// firmware come from its first device's line.
    #[test]
    fn without_ibstat_cards_are_told_by_pci_slot_from_ibdev2netdev_v() {
        let text = include_str!(
            "../../crates/parse/tests/fixtures/ibdev2netdev/ibdev2netdev-v-8dev-cx4lx-cx5-vf-cx6-socket-direct-padded-desc.txt"
        );
        let found = cards_of(text, None);
        assert_eq!(
            found,
            [
                card(&["mlx5_0", "mlx5_1"], "MT4117", "14.27.1016", "ibdev2netdev"),
                card(&["mlx5_2", "mlx5_6", "mlx5_7"], "MT4119", "16.27.1016", "ibdev2netdev"),
                card(&["mlx5_3", "mlx5_4"], "MT4117", "14.27.1016", "ibdev2netdev"),
                card(&["mlx5_5"], "MT4123", "20.30.1004", "ibdev2netdev"),
            ]
        );
    }

    /// A real ibstat of a host with a dual-port ConnectX-7 (one System image GUID for both
    /// devices) beside a ConnectX-6 Dx: two cards.
    #[test]
    fn ibstat_tells_a_card_by_its_system_image_guid() {
        let ibstat = include_str!(
            "../../crates/parse/tests/fixtures/ibstat/ibstat-cx7-roce-200g-plus-cx6dx-disabled-mooncake-1999-PARTIAL.txt"
        );
        let names = fabcheck_parse::linux::ibstat::parse(ibstat).unwrap().value.cas;
        let ibdev2netdev: String =
            names.iter().enumerate().map(|(i, ca)| format!("{} port 1 ==> eth{i} (Up)\n", ca.name)).collect();
        let found = cards_of(&ibdev2netdev, Some(ibstat));
        let hcas: Vec<&str> = names.iter().map(|ca| ca.name.as_str()).collect();
        assert_eq!(
            found,
            [card(&hcas[..2], "MT4129", "28.39.1002", "ibstat"), card(&hcas[2..], "MT4125", "22.31.1014", "ibstat"),]
        );
    }

    /// Real ibstat outputs of one host's ConnectX-6 (`mlx5_5`) and its VF (`mlx5_6`, `MT4124`),
    /// which share the PF's System image GUID: one card, named by the PF first.
    #[test]
    fn a_vf_is_counted_with_its_pf() {
        let pf = include_str!(
            "../../crates/parse/tests/fixtures/ibstat/ibstat-cx6-hdr-mt4123-active-after-sm-fix-magnate3.txt"
        );
        let vf = include_str!(
            "../../crates/parse/tests/fixtures/ibstat/ibstat-cx6-vf-mt4124-state-down-physical-linkup-magnate3.txt"
        );
        let ibdev2netdev = "mlx5_5 port 1 ==> ib0 (Up)\nmlx5_6 port 1 ==> ib1 (Down)\n";
        let found = cards_of(ibdev2netdev, Some(&format!("{pf}{vf}")));
        assert_eq!(found, [card(&["mlx5_5", "mlx5_6"], "MT4123", "20.30.1004", "ibstat")]);
    }

    /// One card's two devices told by different keys: ibstat lists only the first (its GUID), but
    /// `ibdev2netdev -v` puts both on one PCI slot. They are one card, not two votes.
    #[test]
    fn a_device_joins_its_card_by_either_key() {
        let ibstat = "CA 'mlx5_0'\n\tCA type: MT4129\n\tFirmware version: 28.39.1002\n\tSystem image GUID: 0x58a2e10300dae626\n\tPort 1:\n\t\tState: Active\n\t\tLink layer: Ethernet\n";
        let ibdev2netdev = "0000:17:00.0 mlx5_0 (MT4129 - MCX755106AS-HEAT) ConnectX-7 fw 28.39.1002 port 1 (ACTIVE) ==> ens1f0np0 (Up)\n0000:17:00.1 mlx5_1 (MT4129 - MCX755106AS-HEAT) ConnectX-7 fw 28.39.1002 port 1 (ACTIVE) ==> ens1f1np1 (Up)\n";
        let found = cards_of(ibdev2netdev, Some(ibstat));
        assert_eq!(found, [card(&["mlx5_0", "mlx5_1"], "MT4129", "28.39.1002", "ibstat")]);
    }

    /// ibstat's `Firmware version` is preferred; where it printed none, `ibdev2netdev -v`'s is
    /// taken, and with neither the device is left out (unknown is not different). A model
    /// ibdev2netdev prints in lower case is compared in upper case, as ibstat prints it.
    #[test]
    fn ibstat_is_read_first_and_a_device_without_firmware_is_left_out() {
        let ibstat = "CA 'mlx5_0'\n\tCA type: MT4129\n\tFirmware version: 28.39.1002\n\tSystem image GUID: 0x0000000000000000\n\tPort 1:\n\t\tState: Active\n\t\tLink layer: Ethernet\nCA 'mlx5_1'\n\tPort 1:\n\t\tState: Active\n\t\tLink layer: Ethernet\nCA 'mlx5_2'\n\tCA type: MT4129\n\tFirmware version: 28.39.1002\n\tSystem image GUID: 0x0000000000000000\n\tPort 1:\n\t\tState: Active\n\t\tLink layer: Ethernet\n";
        let ibdev2netdev = "0000:17:00.0 mlx5_0 (MT4129 - MCX75310AAS-NEAT) ConnectX-7 fw 28.36.1010 port 1 (ACTIVE) ==> ens1np0 (Up)\n0000:18:00.0 mlx5_1 (mt4129 - MCX75310AAS-NEAT) ConnectX-7 fw 28.41.1000 port 1 (ACTIVE) ==> ens2np0 (Up)\nmlx5_2 port 1 ==> ens3np0 (Up)\nmlx5_3 port 1 ==> ens4np0 (Up)\n";
        let found = cards_of(ibdev2netdev, Some(ibstat));
        assert_eq!(
            found,
            [
                card(&["mlx5_0"], "MT4129", "28.39.1002", "ibstat"),
                card(&["mlx5_1"], "MT4129", "28.41.1000", "ibdev2netdev"),
                card(&["mlx5_2"], "MT4129", "28.39.1002", "ibstat"),
            ],
            "a zero System image GUID tells no card, so mlx5_0 and mlx5_2 stay apart; mlx5_3 is unknown"
        );
    }
}
