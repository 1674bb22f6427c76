//! From a captured frame to what fabcheck counts: a RoCEv2 packet with its addresses, UDP ports,
//! DSCP and ECN and its InfiniBand transport headers, or the kind of frame it is otherwise.
//!
//! RoCEv2 is UDP **destination** port 4791: senders pick the source port (4791 included), so a
//! frame whose source port is 4791 and destination port another is not RoCE. RoCEv1 (EtherType
//! 0x8915, a GRH and no IP) is counted as such. Sizes come from the IPv4 total length / IPv6
//! payload length and the UDP length, never the captured length: capture tools cut frames (one
//! real capture keeps 243 of 4,140 bytes of every data packet). ERSPAN mirror traffic (GRE
//! protocol 0x88BE, type II with its 8-byte header, or 0x22EB, type III with 12 bytes and an
//! optional 8-byte platform subheader) is unwrapped once to the mirrored Ethernet frame. UDP to
//! port 6343 is an sFlow datagram: handed back whole, since it holds many sampled packets
//! ([`crate::sflow`]).
use crate::bth::{self, Transported};
use crate::sflow::SFLOW_PORT;
use etherparse::{LaxNetSlice, LaxSlicedPacket, LinkSlice, TransportSlice};
use std::net::IpAddr;

/// The UDP destination port of RoCEv2 (IANA).
pub const ROCEV2_PORT: u16 = 4791;
/// The EtherType of RoCEv1.
const ROCEV1_ETHERTYPE: u16 = 0x8915;
/// GRE protocols of ERSPAN type II and type III.
const ERSPAN_II: u16 = 0x88be;
const ERSPAN_III: u16 = 0x22eb;

/// What a frame is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame<'a> {
    /// A RoCEv2 packet.
    RoceV2(RocePacket),
    /// An sFlow datagram (UDP destination port 6343): its UDP payload.
    Sflow(&'a [u8]),
    /// RoCEv1 (EtherType 0x8915): counted, not analysed.
    RoceV1,
    /// UDP to port 4791 too short for a BTH.
    Malformed,
    /// Anything else (TCP, ARP, other UDP ...).
    Other,
}

/// A RoCEv2 packet's fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RocePacket {
    pub src: IpAddr,
    pub dst: IpAddr,
    pub src_port: u16,
    /// DSCP (6 bits).
    pub dscp: u8,
    /// ECN: 0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE.
    pub ecn: u8,
    /// UDP payload length from the UDP header (the packet's, not the capture's).
    pub udp_payload_len: usize,
    pub transport: Transported,
}

/// The link types fabcheck reads (pcap LINKTYPE_*).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    Ethernet,
    /// Raw IP (LINKTYPE_RAW 101, LINKTYPE_IPV4 228, LINKTYPE_IPV6 229).
    RawIp,
    /// Linux cooked capture (LINKTYPE_LINUX_SLL 113): a 16-byte header, then the protocol.
    LinuxSll,
    /// Linux cooked capture v2 (LINKTYPE_LINUX_SLL2 276, what `tcpdump -i any` writes since
    /// libpcap 1.10): a 20-byte header, then the protocol.
    LinuxSll2,
}

impl Link {
    /// The link type of a pcap or pcapng interface, if fabcheck reads it.
    pub fn from_linktype(linktype: i32) -> Option<Link> {
        match linktype {
            1 => Some(Link::Ethernet),
            101 | 228 | 229 | 12 | 14 => Some(Link::RawIp),
            113 => Some(Link::LinuxSll),
            276 => Some(Link::LinuxSll2),
            _ => None,
        }
    }
}

/// Reads one frame.
pub fn frame(link: Link, data: &[u8]) -> Frame<'_> {
    read(link, data, false)
}

/// Reads one frame; `mirrored`: it came out of an ERSPAN packet, whose own GRE is not followed
/// (a mirror of a mirror is not traffic, and following nested GRE would let one crafted frame
/// recurse as deep as it is long).
fn read(link: Link, data: &[u8], mirrored: bool) -> Frame<'_> {
    let sliced = match link {
        Link::Ethernet => LaxSlicedPacket::from_ethernet(data).ok(),
        Link::RawIp => LaxSlicedPacket::from_ip(data).ok(),
        Link::LinuxSll => data.get(16..).and_then(|ip| LaxSlicedPacket::from_ip(ip).ok()),
        Link::LinuxSll2 => data.get(20..).and_then(|ip| LaxSlicedPacket::from_ip(ip).ok()),
    };
    let Some(p) = sliced else { return Frame::Other };
    if let Some(LinkSlice::Ethernet2(eth)) = &p.link {
        let ethertype = p.vlan().map_or(eth.ether_type(), |v| v.payload().ether_type);
        if ethertype.0 == ROCEV1_ETHERTYPE {
            return Frame::RoceV1;
        }
    }
    let Some(net) = &p.net else { return Frame::Other };
    let (src, dst, dscp, ecn, protocol) = match net {
        LaxNetSlice::Ipv4(v4) => {
            let h = v4.header();
            (
                IpAddr::V4(h.source_addr()),
                IpAddr::V4(h.destination_addr()),
                h.dcp().value(),
                h.ecn().value(),
                h.protocol().0,
            )
        }
        LaxNetSlice::Ipv6(v6) => {
            let h = v6.header();
            let tc = h.traffic_class();
            (IpAddr::V6(h.source_addr()), IpAddr::V6(h.destination_addr()), tc >> 2, tc & 0x3, h.next_header().0)
        }
        LaxNetSlice::Arp(_) => return Frame::Other,
    };
    if protocol == 47 {
        return match erspan(net_payload(net)) {
            Some(inner) if !mirrored => read(Link::Ethernet, inner, true),
            _ => Frame::Other,
        };
    }
    let Some(TransportSlice::Udp(udp)) = &p.transport else { return Frame::Other };
    match udp.destination_port() {
        ROCEV2_PORT => {}
        SFLOW_PORT => return Frame::Sflow(udp.payload()),
        _ => return Frame::Other,
    }
    let udp_payload_len = usize::from(udp.length()).saturating_sub(8);
    match bth::decode(udp.payload()) {
        Some(transport) => {
            Frame::RoceV2(RocePacket { src, dst, src_port: udp.source_port(), dscp, ecn, udp_payload_len, transport })
        }
        None => Frame::Malformed,
    }
}

/// The IP payload as captured.
fn net_payload<'a>(net: &LaxNetSlice<'a>) -> &'a [u8] {
    match net {
        LaxNetSlice::Ipv4(v4) => v4.payload().payload,
        LaxNetSlice::Ipv6(v6) => v6.payload().payload,
        LaxNetSlice::Arp(_) => &[],
    }
}

/// The Ethernet frame an ERSPAN GRE packet mirrors.
fn erspan(gre: &[u8]) -> Option<&[u8]> {
    let flags = u16::from_be_bytes([*gre.first()?, *gre.get(1)?]);
    let protocol = u16::from_be_bytes([*gre.get(2)?, *gre.get(3)?]);
    // GRE: 4 bytes, plus checksum (C), key (K) and sequence (S) words when flagged.
    let words = [0x8000u16, 0x2000, 0x1000].iter().filter(|f| flags & **f != 0).count();
    let after_gre = 4 + 4 * words;
    let header = match protocol {
        ERSPAN_II => 8,
        ERSPAN_III => {
            // The O bit (last bit of the second word) adds an 8-byte platform subheader.
            let o = gre.get(after_gre + 11).is_some_and(|b| b & 0x01 != 0);
            12 + if o { 8 } else { 0 }
        }
        _ => return None,
    };
    gre.get(after_gre + header..)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first RoCEv2 frame of a real capture.
    fn real_frame() -> Vec<u8> {
        let capture = include_bytes!("../tests/fixtures/pcap/cx-mlx5-rc-send-write-ack-dscp26-ect0-magnate3.pcap");
        let mut first = None;
        crate::capture::for_each_frame(std::io::Cursor::new(capture.to_vec()), |c| {
            if first.is_none() && matches!(frame(Link::Ethernet, c.data), Frame::RoceV2(_)) {
                first = Some(c.data.to_vec());
            }
        })
        .unwrap();
        first.unwrap()
    }

    /// `inner` mirrored: Ethernet, IPv4 (protocol 47), GRE with a sequence number, then the
    /// ERSPAN header of `protocol` (`header` bytes).
    fn mirrored(inner: &[u8], protocol: u16, header: &[u8]) -> Vec<u8> {
        let mut gre = vec![0x10, 0x00];
        gre.extend(protocol.to_be_bytes());
        gre.extend(7u32.to_be_bytes());
        gre.extend(header);
        gre.extend(inner);
        let total = (20 + gre.len()) as u16;
        let mut ip = vec![0x45, 0, 0, 0, 0, 0, 0, 0, 64, 47, 0, 0, 10, 9, 9, 1, 10, 9, 9, 2];
        ip[2..4].copy_from_slice(&total.to_be_bytes());
        let mut eth = vec![2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 0x08, 0x00];
        eth.extend(ip);
        eth.extend(gre);
        eth
    }

    #[test]
    fn erspan_ii_and_iii_unwrap_to_the_mirrored_packet() {
        let inner = real_frame();
        let Frame::RoceV2(direct) = frame(Link::Ethernet, &inner) else { panic!("a RoCEv2 frame") };
        assert_eq!(
            frame(Link::Ethernet, &mirrored(&inner, ERSPAN_II, &[0x10, 0, 0, 1, 0, 0, 0, 0])),
            Frame::RoceV2(direct)
        );
        let mut iii = vec![0x20, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0];
        assert_eq!(frame(Link::Ethernet, &mirrored(&inner, ERSPAN_III, &iii)), Frame::RoceV2(direct));
        // The O bit: an 8-byte platform subheader follows.
        iii[11] |= 1;
        iii.extend([0u8; 8]);
        assert_eq!(frame(Link::Ethernet, &mirrored(&inner, ERSPAN_III, &iii)), Frame::RoceV2(direct));
        assert_eq!(frame(Link::Ethernet, &mirrored(&inner, 0x6558, &[])), Frame::Other, "not ERSPAN");
    }

    /// A mirror of a mirror is not followed: one level of ERSPAN is read, the next is `Other`,
    /// and a frame nested 2,000 deep reads without recursing into it.
    #[test]
    fn erspan_is_unwrapped_once_whatever_the_nesting() {
        let inner = real_frame();
        let header = [0x10, 0, 0, 1, 0, 0, 0, 0];
        let twice = mirrored(&mirrored(&inner, ERSPAN_II, &header), ERSPAN_II, &header);
        assert_eq!(frame(Link::Ethernet, &twice), Frame::Other);
        let mut deep = inner;
        for _ in 0..2_000 {
            deep = mirrored(&deep, ERSPAN_II, &header);
        }
        assert_eq!(frame(Link::Ethernet, &deep), Frame::Other);
    }

    #[test]
    fn only_the_destination_port_makes_rocev2_and_garbage_never_panics() {
        let mut inner = real_frame();
        // Swap the UDP ports: source 4791, destination the other: not RoCEv2.
        let udp = 14 + 20;
        let (s, d) = (inner[udp..udp + 2].to_vec(), inner[udp + 2..udp + 4].to_vec());
        inner[udp..udp + 2].copy_from_slice(&d);
        inner[udp + 2..udp + 4].copy_from_slice(&s);
        assert_eq!(frame(Link::Ethernet, &inner), Frame::Other);
        for n in 0..inner.len() {
            let _ = frame(Link::Ethernet, &inner[..n]);
            let _ = frame(Link::RawIp, &inner[..n]);
            let _ = frame(Link::LinuxSll, &inner[..n]);
            let _ = frame(Link::LinuxSll2, &inner[..n]);
        }
    }

    /// The same IP packet behind an Ethernet header, a cooked v1 header (16 bytes) and a cooked
    /// v2 header (20 bytes, `tcpdump -i any`) reads the same.
    #[test]
    fn linux_cooked_captures_v1_and_v2_read_as_ethernet_does() {
        let eth = real_frame();
        let Frame::RoceV2(direct) = frame(Link::Ethernet, &eth) else { panic!("a RoCEv2 frame") };
        let ip = &eth[14..];
        let sll: Vec<u8> = [0u8; 14].iter().copied().chain([0x08, 0x00]).chain(ip.iter().copied()).collect();
        let sll2: Vec<u8> = [0x08u8, 0x00].iter().copied().chain([0u8; 18]).chain(ip.iter().copied()).collect();
        assert_eq!(frame(Link::LinuxSll, &sll), Frame::RoceV2(direct));
        assert_eq!(frame(Link::LinuxSll2, &sll2), Frame::RoceV2(direct));
        assert_eq!(Link::from_linktype(276), Some(Link::LinuxSll2));
    }
}
