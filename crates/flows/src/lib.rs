//! RoCEv2 flows from packet captures: frames read from pcap or pcapng ([`capture`]), decoded to
//! their InfiniBand transport headers ([`decode`], [`bth`]), grouped into flows with their
//! metrics ([`flow`]), and written as `rdma-flow-record/1` JSON Lines ([`record`]).

pub mod bth;
pub mod capture;
pub mod decode;
pub mod flow;
pub mod histogram;
pub mod hops;
pub mod record;

use std::io::Read;

/// Reads one capture into `flows`.
///
/// # Errors
/// The capture is not pcap or pcapng, or cannot be read to its end (what was read is kept).
pub fn analyse(input: impl Read + Send + 'static, flows: &mut flow::Flows) -> Result<(), capture::CaptureError> {
    capture::for_each_frame(input, |c| {
        flows.frames += 1;
        let Some(link) = c.link else {
            flows.unknown_link += 1;
            return;
        };
        match decode::frame(link, c.data) {
            decode::Frame::RoceV2(p) => flows.add(c.time_ns, &p),
            decode::Frame::RoceV1 => flows.rocev1 += 1,
            decode::Frame::Malformed => flows.malformed += 1,
            decode::Frame::Other => flows.other += 1,
        }
    })
}
