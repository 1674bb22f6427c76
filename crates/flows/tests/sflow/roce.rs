//! Real RoCEv2 frames (a ConnectX capture of tests/fixtures/pcap: RDMA-CM, SEND, WRITE and ACKs,
//! DSCP 26 from one host and 0 from the other) wrapped into the samples of two sFlow agents at
//! 1 in 1000, as a collector would capture them: each sampled packet counts as 1000 in a flow of
//! its agent's data source, marked an estimate, with no message metrics; tshark reads the same
//! BTHs in the samples.
use crate::build::{self, Sample};
use crate::tshark::{self, numbers};
use fabcheck_flows::capture::for_each_frame;
use fabcheck_flows::decode::{Frame, Link, frame};
use fabcheck_flows::flow::{FlowKey, Flows, Sampler};
use fabcheck_flows::record::{Source, records};
use fabcheck_flows::sflow;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::path::Path;

const CAPTURE: &str = "tests/fixtures/pcap/cx-mlx5-rc-send-write-ack-dscp26-ect0-magnate3.pcap";
const RATE: u32 = 1000;
/// A leaf switch sending compact samples, and one with an IPv6 address sending expanded ones.
const LEAF: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 9, 9, 1));
const SPINE: IpAddr = IpAddr::V6(Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 0, 2));
/// The host sending on DSCP 26, and the ifIndexes of the two hosts' switch ports.
const HOST_56: IpAddr = IpAddr::V4(Ipv4Addr::new(172, 17, 242, 56));
const PORT_56: u32 = 7;
const PORT_47: u32 = 8;

fn path() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(CAPTURE)
}

/// The capture's RoCEv2 frames with their times.
fn frames() -> Vec<(u64, Vec<u8>)> {
    let mut out = Vec::new();
    for_each_frame(std::fs::File::open(path()).unwrap(), |c| {
        if matches!(frame(Link::Ethernet, c.data), Frame::RoceV2(_)) {
            out.push((c.time_ns, c.data.to_vec()));
        }
    })
    .unwrap();
    assert_eq!(out.len(), 17, "every frame of {CAPTURE} is RoCEv2");
    out
}

/// Every frame sampled by both agents, four samples a datagram, each datagram captured when its
/// last packet was: the capture a collector of theirs would make.
fn collector_capture() -> Vec<u8> {
    let frames = frames();
    let mut datagrams = Vec::new();
    for (n, chunk) in frames.chunks(4).enumerate() {
        for (agent, expanded) in [(LEAF, false), (SPINE, true)] {
            let samples: Vec<Sample<'_>> = chunk
                .iter()
                .enumerate()
                .map(|(i, (_, f))| {
                    let Frame::RoceV2(p) = frame(Link::Ethernet, f) else { unreachable!() };
                    let (input, output) = if p.src == HOST_56 { (PORT_56, PORT_47) } else { (PORT_47, PORT_56) };
                    Sample { expanded, sequence: (n * 4 + i) as u32, rate: RATE, input, output, frame: f }
                })
                .collect();
            datagrams.push((chunk[chunk.len() - 1].0, build::datagram(agent, n as u32, &samples)));
        }
    }
    build::pcap(&datagrams)
}

fn analysed(capture: Vec<u8>) -> Flows {
    let mut flows = Flows::default();
    fabcheck_flows::analyse(std::io::Cursor::new(capture), &mut flows).unwrap();
    flows
}

fn sampler(agent: IpAddr, src: IpAddr) -> Sampler {
    let port = if src == HOST_56 { PORT_56 } else { PORT_47 };
    Sampler { agent: Some(agent), sub_agent_id: 0, source_class: 0, source_index: port }
}

#[test]
fn each_sampled_packet_counts_as_its_rate_in_a_flow_of_its_agent() {
    let full = analysed(std::fs::read(path()).unwrap());
    let sampled = analysed(collector_capture());
    let s = &sampled.sflow;
    // 17 frames, 4 a datagram: 5 datagrams per agent, each with a counter sample.
    assert_eq!((s.datagrams, s.flow_samples, s.other_samples, s.rocev2), (10, 34, 10, 34));
    assert_eq!((s.other, s.unread, s.malformed, &s.first_malformed), (0, 0, 0, &None));
    assert_eq!(sampled.flows.len(), 2 * full.flows.len(), "each flow at each agent");
    let n = u64::from(RATE);
    for (key, f) in &full.flows {
        for agent in [LEAF, SPINE] {
            let at = FlowKey { sampler: Some(sampler(agent, key.src)), ..*key };
            let g = &sampled.flows[&at];
            assert_eq!(
                (g.packets, g.data_packets, g.payload_bytes, g.ecn, g.acks, g.cnps, g.read_requests, g.retransmits),
                (
                    f.packets * n,
                    f.data_packets * n,
                    f.payload_bytes.map(|b| b * n),
                    f.ecn.map(|e| e * n),
                    f.acks * n,
                    f.cnps * n,
                    f.read_requests * n,
                    f.retransmits * n
                ),
                "{at:?}"
            );
            assert_eq!((&g.dscp, &g.transports, g.cm), (&f.dscp, &f.transports, f.cm), "{at:?}");
            assert_eq!(g.messages, 0, "{at:?}: no message from samples");
            let seen = g.sampled.as_ref().unwrap();
            assert_eq!((seen.samples, seen.max_rate), (f.packets, RATE), "{at:?}");
            let (input, output) = if key.src == HOST_56 { (PORT_56, PORT_47) } else { (PORT_47, PORT_56) };
            assert_eq!(
                (seen.input_ifindex.iter().collect::<Vec<_>>(), seen.output_ifindex.iter().collect::<Vec<_>>()),
                (vec![&input], vec![&output])
            );
        }
    }
}

#[test]
fn sampled_records_are_estimates_at_the_agent_without_message_metrics() {
    let source = Source { kind: "capture".into(), file: "collector.pcap".into(), point: None, sampling_rate: 1 };
    let full = records(&analysed(std::fs::read(path()).unwrap()), &source);
    let sampled = records(&analysed(collector_capture()), &source);
    assert!(full.iter().all(|r| r.estimated == Some(false) && r.sflow.is_none() && r.source == source));
    // The SEND/WRITE flow of the host on DSCP 26, as the leaf sampled it, and as captured whole.
    let data = |r: &&fabcheck_flows::record::FlowRecord| r.is_data() && r.src_ip == HOST_56;
    let whole = full.iter().find(data).unwrap();
    let leaf = sampled.iter().find(|r| data(r) && r.sflow.as_ref().unwrap().agent == Some(LEAF)).unwrap();
    assert_eq!(leaf.estimated, Some(true));
    assert_eq!(
        (leaf.source.kind.as_str(), leaf.source.file.as_str(), leaf.source.point.as_deref(), leaf.source.sampling_rate),
        ("sflow", "collector.pcap", Some("10.9.9.1"), 1000)
    );
    let sflow = leaf.sflow.as_ref().unwrap();
    assert_eq!(
        (sflow.data_source.as_str(), sflow.samples, &sflow.input_ifindex, &sflow.output_ifindex),
        ("0:7", whole.packets, &vec![PORT_56], &vec![PORT_47])
    );
    assert_eq!((leaf.packets, leaf.data_packets), (whole.packets * 1000, whole.data_packets.map(|d| d * 1000)));
    assert_eq!(
        (leaf.payload_bytes, leaf.ecn_packets.ect0),
        (whole.payload_bytes.map(|b| b * 1000), whole.ecn_packets.ect0 * 1000)
    );
    assert_eq!((&leaf.dscp, &leaf.reverse_dscp), (&vec![26], &whole.reverse_dscp));
    assert!(whole.messages.is_some() && whole.fct_ns.is_some() && whole.throughput_bytes_per_s.is_some());
    assert_eq!(
        (leaf.messages, leaf.messages_incomplete, leaf.fct_ns, leaf.throughput_bytes_per_s),
        (None, None, None, None),
        "no message metrics from samples"
    );
    // The ACKs came back through the same leaf (on the other port): linked, scaled.
    assert_eq!(leaf.reverse, whole.reverse);
    assert_eq!(leaf.acks, whole.acks.map(|a| a * 1000));
    assert!(leaf.acks.is_some_and(|a| a > 0));
    // The spine's IPv6 address is its point; a point named by the caller wins.
    let spine = sampled.iter().find(|r| data(r) && r.sflow.as_ref().unwrap().agent == Some(SPINE)).unwrap();
    assert_eq!(spine.source.point.as_deref(), Some("fd00::2"));
    let named = Source { point: Some("leaf1".into()), ..source };
    assert!(records(&analysed(collector_capture()), &named).iter().all(|r| r.source.point.as_deref() == Some("leaf1")));
    // What is written reads back.
    let line = serde_json::to_string(leaf).unwrap();
    assert_eq!(fabcheck_flows::record::read_lines(&line).0, vec![leaf.clone()], "{line}");
}

#[test]
fn tshark_reads_the_same_rocev2_packets_in_the_samples() {
    let file = Path::new(env!("CARGO_TARGET_TMPDIR")).join("sflow-wrapped-rocev2.pcap");
    let capture = collector_capture();
    std::fs::write(&file, &capture).unwrap();
    const FIELDS: [&str; 5] =
        ["infiniband.bth.opcode", "infiniband.bth.destqp", "infiniband.bth.psn", "ip.dsfield.dscp", "ip.dsfield.ecn"];
    let theirs = tshark::fields(&file, "sflow", &FIELDS);
    let mut datagrams = Vec::new();
    for_each_frame(std::io::Cursor::new(capture), |c| {
        let Frame::Sflow(d) = frame(c.link.unwrap(), c.data) else { panic!("an sFlow datagram") };
        datagrams.push(d.to_vec());
    })
    .unwrap();
    assert_eq!(datagrams.len(), theirs.len());
    let mut packets = 0;
    for (i, (bytes, t)) in datagrams.iter().zip(&theirs).enumerate() {
        let d = sflow::parse(bytes).unwrap();
        let mut ours: [Vec<u64>; 5] = Default::default();
        for s in &d.flow_samples {
            let h = s.header.unwrap();
            let Frame::RoceV2(p) = frame(h.link().unwrap(), h.bytes) else { panic!("datagram {i}: RoCEv2") };
            let b = &p.transport.bth;
            for (list, v) in
                ours.iter_mut().zip([b.opcode.into(), b.dest_qp.into(), b.psn.into(), p.dscp.into(), p.ecn.into()])
            {
                list.push(v);
            }
            packets += 1;
        }
        // tshark's DSCP and ECN lists start with the datagram's own IP header.
        for (n, field) in FIELDS.iter().enumerate() {
            let mut values = numbers(&t[n]);
            if field.starts_with("ip.") {
                values.remove(0);
            }
            assert_eq!(ours[n], values, "datagram {i}: {field}");
        }
    }
    assert_eq!(packets, 34);
}
