//! The real sFlow captures of tests/fixtures/sflow (see SOURCES.md there) read as tshark reads
//! them: per datagram its agent, sub-agent, sequence number and samples; per flow sample its
//! sequence number, data source, sampling rate, input and output interfaces and its sampled
//! header (protocol, frame length, the bytes). Their sampled packets are not RoCE (tshark finds no
//! InfiniBand in them): counted, no flow.
use crate::tshark::{self, numbers};
use fabcheck_flows::capture::for_each_frame;
use fabcheck_flows::decode::{Frame, frame};
use fabcheck_flows::flow::Flows;
use fabcheck_flows::sflow::{self, Datagram, FlowSample};
use std::path::{Path, PathBuf};

/// The captures, in name order.
pub fn captures() -> Vec<PathBuf> {
    crate::common::captures("sflow", 12)
}

/// The UDP payload of every sFlow frame of `file`, in file order.
pub fn datagrams(file: &Path) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for_each_frame(std::fs::File::open(file).unwrap(), |c| {
        if let Frame::Sflow(d) = frame(c.link.unwrap(), c.data) {
            out.push(d.to_vec());
        }
    })
    .unwrap();
    out
}

/// The numbers compared: tshark's field for a compact sample's, and for an expanded one's (the
/// data source and interfaces are words of their own there).
const NUMBERS: [(&str, &str); 14] = [
    ("sflow_245.sub_agent_id", "sflow_245.sub_agent_id"),
    ("sflow_245.sequence_number", "sflow_245.sequence_number"),
    ("sflow.flow_sample.sequence_number", "sflow.flow_sample.sequence_number"),
    ("sflow.flow_sample.source_id_class", "sflow.flow_sample.source_id_type"),
    ("sflow.flow_sample.index", "sflow.flow_sample.source_id_index"),
    ("sflow.flow_sample.sampling_rate", "sflow.flow_sample.sampling_rate"),
    ("sflow.flow_sample.input_interface", "sflow.flow_sample.input_interface_value"),
    ("sflow.flow_sample.input_interface_format", "sflow.flow_sample.input_interface_format"),
    ("sflow.flow_sample.output_interface_format", "sflow.flow_sample.output_interface.format"),
    ("sflow.flow_sample.output_interface_value", "sflow.flow_sample.output_interface_value"),
    ("sflow_245.header_protocol", "sflow_245.header_protocol"),
    ("sflow_245.header.frame_length", "sflow_245.header.frame_length"),
    ("sflow_245.numsamples", "sflow_245.numsamples"),
    ("sflow_245.header.sampled_header_length", "sflow_245.header.sampled_header_length"),
];

/// Our reading of tshark's `field` (a compact sample's name) of datagram `d`.
fn ours(d: &Datagram<'_>, field: &str) -> Vec<u64> {
    let each = |get: fn(&FlowSample<'_>) -> Option<u32>| d.flow_samples.iter().filter_map(get).map(u64::from).collect();
    match field {
        "sflow_245.sub_agent_id" => vec![d.sub_agent_id.into()],
        "sflow_245.sequence_number" => vec![d.sequence.into()],
        "sflow_245.numsamples" => vec![d.flow_samples.len() as u64 + d.other_samples],
        "sflow.flow_sample.sequence_number" => each(|s| Some(s.sequence)),
        "sflow.flow_sample.source_id_class" => each(|s| Some(s.source_class)),
        "sflow.flow_sample.index" => each(|s| Some(s.source_index)),
        "sflow.flow_sample.sampling_rate" => each(|s| Some(s.sampling_rate)),
        // tshark shows a compact sample's input word whole: format (0 for an input) and value;
        // an expanded sample's value alone (its format, a word of its own, is compared apart).
        "sflow.flow_sample.input_interface" => each(|s| Some(s.input.format << 30 | s.input.value)),
        "sflow.flow_sample.input_interface_format" => each(|s| Some(s.input.format)),
        "sflow.flow_sample.output_interface_format" => each(|s| Some(s.output.format)),
        "sflow.flow_sample.output_interface_value" => each(|s| Some(s.output.value)),
        "sflow_245.header_protocol" => each(|s| s.header.map(|h| h.protocol)),
        "sflow_245.header.frame_length" => each(|s| s.header.map(|h| h.frame_length)),
        "sflow_245.header.sampled_header_length" => each(|s| s.header.map(|h| h.bytes.len() as u32)),
        other => panic!("no reading of {other}"),
    }
}

#[test]
fn every_sflow_datagram_reads_as_tshark_reads_it() {
    let mut fields = vec!["sflow_245.agent", "sflow_245.agent.v6", "sflow_245.sampletype", "sflow_245.header"];
    fields.extend(NUMBERS.iter().flat_map(|(c, e)| [*c, *e]));
    fields.sort_unstable();
    fields.dedup();
    let mut samples = 0;
    for file in captures() {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let theirs = tshark::fields(&file, "sflow", &fields);
        let ours_all = datagrams(&file);
        assert_eq!(ours_all.len(), theirs.len(), "{name}: sFlow datagrams");
        for (i, (bytes, t)) in ours_all.iter().zip(&theirs).enumerate() {
            let d = sflow::parse(bytes).unwrap_or_else(|e| panic!("{name} datagram {i}: {e}"));
            assert!(d.skipped.is_empty(), "{name} datagram {i}: {:?}", d.skipped);
            let at = |field: &str| &t[fields.iter().position(|f| *f == field).unwrap()];
            let agent = at("sflow_245.agent").iter().chain(at("sflow_245.agent.v6")).next();
            assert_eq!(d.agent.map(|a| a.to_string()).as_ref(), agent, "{name} datagram {i}: agent");
            let types = numbers(at("sflow_245.sampletype"));
            let flow = types.iter().filter(|t| matches!(t, 1 | 3)).count();
            assert_eq!((d.flow_samples.len(), d.other_samples as usize), (flow, types.len() - flow), "{name}: samples");
            // An agent never mixes compact and expanded samples (sFlow v5, section 5).
            let expanded = types.contains(&3);
            for (compact, wide) in NUMBERS {
                let theirs = numbers(at(if expanded { wide } else { compact }));
                // A compact sample's input has no format word of its own.
                if compact.ends_with("input_interface_format") && !expanded {
                    continue;
                }
                assert_eq!(ours(&d, compact), theirs, "{name} datagram {i}: {compact}");
            }
            // tshark 4.0's header bytes run over the XDR padding; its header length does not.
            let headers = d.flow_samples.iter().filter_map(|s| s.header);
            for (h, theirs) in headers.zip(at("sflow_245.header")) {
                let hex: String = h.bytes.iter().map(|b| format!("{b:02x}")).collect();
                assert_eq!(hex, theirs[..hex.len()], "{name} datagram {i}: header bytes");
            }
            samples += d.flow_samples.len();
        }
    }
    assert_eq!(samples, 17, "flow samples compared");
}

#[test]
fn their_sampled_packets_are_counted_and_make_no_flow() {
    let mut total = fabcheck_flows::flow::SflowCounts::default();
    for file in captures() {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        assert!(tshark::fields(&file, "infiniband", &["frame.number"]).is_empty(), "{name}: tshark finds RoCE");
        let mut flows = Flows::default();
        fabcheck_flows::analyse(std::fs::File::open(&file).unwrap(), &mut flows).unwrap();
        assert!(flows.flows.is_empty(), "{name}: {:?}", flows.flows.keys());
        assert_eq!((flows.frames, flows.other, flows.malformed), (flows.sflow.datagrams, 0, 0), "{name}");
        let s = &flows.sflow;
        total.datagrams += s.datagrams;
        total.flow_samples += s.flow_samples;
        total.other += s.other;
        total.unread += s.unread;
        total.malformed += s.malformed;
    }
    // 17 flow samples: 16 with a sampled header of other traffic (Ethernet, QinQ, VXLAN, raw
    // IPv4), one with decoded IPv4 fields only (nxthdr's).
    assert_eq!((total.datagrams, total.flow_samples, total.other, total.unread, total.malformed), (12, 17, 16, 1, 0));
}
