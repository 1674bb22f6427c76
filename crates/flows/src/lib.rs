//! RoCEv2 flows from packet captures: frames read from pcap or pcapng ([`capture`]), decoded to
//! their InfiniBand transport headers ([`decode`], [`bth`]), grouped into flows with their
//! metrics ([`flow`]), and written as `rdma-flow-record/1` JSON Lines ([`record`]). A capture of
//! what an sFlow collector receives works too: each sampled packet header in its datagrams
//! ([`sflow`]) is decoded like a frame and counted as the packets it stands for.

pub mod bth;
pub mod capture;
pub mod decode;
pub mod flow;
pub mod histogram;
pub mod hops;
pub mod record;
pub mod sflow;

use decode::Frame;
use flow::{Flows, Sampler, Sampling};
use std::io::Read;

/// Reads one capture into `flows`.
///
/// # Errors
/// The capture is not pcap or pcapng, or cannot be read to its end (what was read is kept).
pub fn analyse(input: impl Read + Send + 'static, flows: &mut Flows) -> Result<(), capture::CaptureError> {
    capture::for_each_frame(input, |c| {
        flows.frames += 1;
        let Some(link) = c.link else {
            flows.unknown_link += 1;
            return;
        };
        match decode::frame(link, c.data) {
            Frame::RoceV2(p) => flows.add(c.time_ns, &p),
            Frame::Sflow(datagram) => add_samples(flows, c.time_ns, datagram),
            Frame::RoceV1 => flows.rocev1 += 1,
            Frame::Malformed => flows.malformed += 1,
            Frame::Other => flows.other += 1,
        }
    })
}

/// The sampled packets of one sFlow datagram, captured at `time_ns`, into `flows`. A sampled
/// header that is itself an sFlow datagram is not followed.
fn add_samples(flows: &mut Flows, time_ns: u64, datagram: &[u8]) {
    let frame = flows.frames;
    flows.sflow.datagrams += 1;
    let d = match sflow::parse(datagram) {
        Ok(d) => d,
        Err(why) => return flows.sflow.malformed(frame, &why),
    };
    for why in &d.skipped {
        flows.sflow.malformed(frame, why);
    }
    flows.sflow.other_samples += d.other_samples;
    flows.sflow.flow_samples += d.flow_samples.len() as u64;
    for s in &d.flow_samples {
        let header = s.header.filter(|_| s.sampling_rate > 0).and_then(|h| Some((h.link()?, h.bytes)));
        let Some((link, bytes)) = header else {
            flows.sflow.unread += 1;
            continue;
        };
        let Frame::RoceV2(p) = decode::frame(link, bytes) else {
            flows.sflow.other += 1;
            continue;
        };
        flows.sflow.rocev2 += 1;
        let by = Sampler {
            agent: d.agent,
            sub_agent_id: d.sub_agent_id,
            source_class: s.source_class,
            source_index: s.source_index,
        };
        let sampling = Sampling { by, rate: s.sampling_rate, input: s.input.ifindex(), output: s.output.ifindex() };
        flows.add_sampled(time_ns, &p, &sampling);
    }
}
