//! The InfiniBand transport headers a RoCEv2 packet carries after UDP (IBTA Vol. 1, chapter 9;
//! Wireshark's `epan/dissectors/packet-infiniband.c` reads them the same way): the Base
//! Transport Header, the extended headers its opcode implies, and where the payload lies.
//!
//! ```text
//! BTH  (12): opcode | SE M PadCnt TVer | P_Key(2) | rsvd | DestQP(3) | A rsvd | PSN(3)
//! RETH (16): VA(8) R_Key(4) DMA length(4)       RDMA WRITE FIRST/ONLY, READ REQUEST
//! AETH  (4): syndrome | MSN(3)                   ACK, READ RESPONSE FIRST/LAST/ONLY
//! DETH  (8): Q_Key(4) rsvd | SrcQP(3)            UD
//! ImmDt (4), IETH (4), AtomicETH (28), AtomicAckETH (8); ICRC (4) ends the packet
//! ```
//!
//! The opcode's top three bits are the transport (RC, UC, RD, UD, CNP, XRC), the low five the
//! operation. RD opcodes also carry an RDETH (4) and a DETH (8) before the operation's headers.

/// The transport of an opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub enum Transport {
    /// Reliable connection.
    RC,
    /// Unreliable connection.
    UC,
    /// Reliable datagram (and Mellanox's DC, which uses its opcodes).
    RD,
    /// Unreliable datagram (RDMA-CM on QP1 among them).
    UD,
    /// Congestion notification packet (opcode 0x81).
    CNP,
    /// Extended reliable connection.
    XRC,
    /// A reserved opcode range.
    Reserved,
}

/// What a packet does, from the low five bits of its opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    /// SEND FIRST/MIDDLE/LAST/ONLY (with immediate or invalidate).
    Send(Part),
    /// RDMA WRITE FIRST/MIDDLE/LAST/ONLY (with immediate).
    Write(Part),
    /// RDMA READ REQUEST.
    ReadRequest,
    /// RDMA READ RESPONSE FIRST/MIDDLE/LAST/ONLY.
    ReadResponse(Part),
    /// ACKNOWLEDGE (an ACK or a NAK, by its AETH).
    Ack,
    /// ATOMIC ACKNOWLEDGE.
    AtomicAck,
    /// COMPARE SWAP, FETCH ADD.
    Atomic,
    /// A CNP, or an operation code fabcheck does not read.
    Other,
}

/// Where a packet sits in its message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    First,
    Middle,
    Last,
    Only,
}

impl Part {
    /// The packet starts a message.
    pub fn starts(self) -> bool {
        matches!(self, Part::First | Part::Only)
    }

    /// The packet ends a message.
    pub fn ends(self) -> bool {
        matches!(self, Part::Last | Part::Only)
    }
}

/// The Base Transport Header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bth {
    pub opcode: u8,
    /// Pad bytes before the ICRC (0-3).
    pub pad: u8,
    pub pkey: u16,
    pub dest_qp: u32,
    /// Acknowledge request.
    pub ack_req: bool,
    pub psn: u32,
}

/// The AETH's verdict on the packets it answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syndrome {
    /// ACK (with the credit count in the low bits).
    Ack,
    /// Receiver not ready.
    RnrNak,
    /// NAK with its code: 0 PSN sequence error, 1 invalid request, 2 remote access error, 3
    /// remote operational error, 4 invalid RD request.
    Nak(u8),
    /// The reserved pattern.
    Reserved,
}

/// One decoded RoCEv2 transport layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transported {
    pub bth: Bth,
    pub transport: Transport,
    pub operation: Operation,
    /// The AETH's syndrome, when the packet has one.
    pub syndrome: Option<Syndrome>,
    /// Immediate data, when present.
    pub immediate: Option<u32>,
    /// Bytes of extended headers after the BTH; `None` where the layout is not known (RD/DC).
    pub ext_len: Option<usize>,
}

impl Transported {
    /// Payload bytes, from the UDP payload length (UDP length minus 8): minus the BTH, the
    /// extended headers, the pad and the 4-byte ICRC. `None` when the headers are not known or
    /// the length is too short for them.
    pub fn payload_len(&self, udp_payload_len: usize) -> Option<usize> {
        let overhead = 12 + self.ext_len? + usize::from(self.bth.pad) + 4;
        udp_payload_len.checked_sub(overhead)
    }
}

/// The transport of `opcode`.
pub fn transport(opcode: u8) -> Transport {
    match opcode >> 5 {
        0 => Transport::RC,
        1 => Transport::UC,
        2 => Transport::RD,
        3 => Transport::UD,
        4 => Transport::CNP,
        5 => Transport::XRC,
        _ => Transport::Reserved,
    }
}

/// The operation of `opcode`'s low five bits.
pub fn operation(opcode: u8) -> Operation {
    use Part::*;
    match opcode & 0x1f {
        0x00 => Operation::Send(First),
        0x01 => Operation::Send(Middle),
        0x02 | 0x03 | 0x16 => Operation::Send(Last),
        0x04 | 0x05 | 0x17 => Operation::Send(Only),
        0x06 => Operation::Write(First),
        0x07 => Operation::Write(Middle),
        0x08 | 0x09 => Operation::Write(Last),
        0x0a | 0x0b => Operation::Write(Only),
        0x0c => Operation::ReadRequest,
        0x0d => Operation::ReadResponse(First),
        0x0e => Operation::ReadResponse(Middle),
        0x0f => Operation::ReadResponse(Last),
        0x10 => Operation::ReadResponse(Only),
        0x11 => Operation::Ack,
        0x12 => Operation::AtomicAck,
        0x13 | 0x14 => Operation::Atomic,
        _ => Operation::Other,
    }
}

/// Bytes of the extended headers `opcode` implies (RC, UC, UD, XRC, CNP), `None` for RD (whose
/// RDETH/DETH layout Mellanox's DC bends) and reserved ranges.
fn ext_len(opcode: u8, transport: Transport) -> Option<usize> {
    let low = opcode & 0x1f;
    let base = match transport {
        Transport::RC | Transport::UC => 0,
        Transport::XRC => 4,
        Transport::UD => 8,
        Transport::CNP => return Some(16),
        Transport::RD | Transport::Reserved => return None,
    };
    let reth = matches!(low, 0x06 | 0x0a | 0x0b | 0x0c);
    let aeth = matches!(low, 0x0d | 0x0f | 0x10 | 0x11 | 0x12);
    let imm = matches!(low, 0x03 | 0x05 | 0x09 | 0x0b);
    let ieth = matches!(low, 0x16 | 0x17);
    let extra = 16 * usize::from(reth)
        + 4 * usize::from(aeth)
        + 4 * usize::from(imm || ieth)
        + if low == 0x12 { 8 } else { 0 }
        + if matches!(low, 0x13 | 0x14) { 28 } else { 0 };
    Some(base + extra)
}

/// Decodes the headers at the start of a UDP payload (destination port 4791). `None` when it
/// is shorter than a BTH (and, for the headers the opcode implies, than those).
pub fn decode(payload: &[u8]) -> Option<Transported> {
    let b = payload.get(..12)?;
    let bth = Bth {
        opcode: b[0],
        pad: (b[1] >> 4) & 0x3,
        pkey: u16::from_be_bytes([b[2], b[3]]),
        dest_qp: u32::from_be_bytes([0, b[5], b[6], b[7]]),
        ack_req: b[8] & 0x80 != 0,
        psn: u32::from_be_bytes([0, b[9], b[10], b[11]]),
    };
    let transport = transport(bth.opcode);
    let operation = if transport == Transport::CNP { Operation::Other } else { operation(bth.opcode) };
    let ext = ext_len(bth.opcode, transport);
    let rest = &payload[12..];
    let low = bth.opcode & 0x1f;
    let base = match transport {
        Transport::UD => 8,
        Transport::XRC => 4,
        _ => 0,
    };
    let has_aeth =
        matches!(transport, Transport::RC | Transport::XRC) && matches!(low, 0x0d | 0x0f | 0x10 | 0x11 | 0x12);
    let syndrome = if has_aeth { rest.get(base).map(|s| syndrome(*s)) } else { None };
    let has_imm = matches!(transport, Transport::RC | Transport::UC | Transport::UD | Transport::XRC)
        && matches!(low, 0x03 | 0x05 | 0x09 | 0x0b);
    let immediate = if has_imm {
        let at = base + if low == 0x0b { 16 } else { 0 };
        rest.get(at..at + 4).map(|i| u32::from_be_bytes([i[0], i[1], i[2], i[3]]))
    } else {
        None
    };
    Some(Transported { bth, transport, operation, syndrome, immediate, ext_len: ext })
}

/// The AETH syndrome byte.
pub fn syndrome(s: u8) -> Syndrome {
    match (s >> 5) & 0x3 {
        0 => Syndrome::Ack,
        1 => Syndrome::RnrNak,
        3 => Syndrome::Nak(s & 0x1f),
        _ => Syndrome::Reserved,
    }
}

/// Whether `later` comes after `earlier` in 24-bit PSN order (a window of half the space).
pub fn psn_after(later: u32, earlier: u32) -> bool {
    let d = later.wrapping_sub(earlier) & 0x00ff_ffff;
    d != 0 && d < 0x0080_0000
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_by_opcode() {
        // RC RDMA WRITE ONLY with immediate: RETH + ImmDt.
        let mut p = vec![0x0b, 0x10, 0xff, 0xff, 0, 0x00, 0x01, 0x02, 0x80, 0x00, 0x00, 0x07];
        p.extend([0u8; 16]);
        p.extend(0xdead_beefu32.to_be_bytes());
        p.extend([0u8; 100 + 1 + 4]);
        let t = decode(&p).unwrap();
        assert_eq!((t.transport, t.operation), (Transport::RC, Operation::Write(Part::Only)));
        assert_eq!((t.bth.dest_qp, t.bth.psn, t.bth.pad, t.bth.ack_req), (0x102, 7, 1, true));
        assert_eq!(t.immediate, Some(0xdead_beef));
        assert_eq!(t.payload_len(p.len()), Some(100));
        // An ACK with a PSN sequence error NAK.
        let ack = [0x11, 0, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 9, 0x60, 0, 0, 3, 0, 0, 0, 0];
        let t = decode(&ack).unwrap();
        assert_eq!((t.operation, t.syndrome), (Operation::Ack, Some(Syndrome::Nak(0))));
        assert_eq!(syndrome(0x1f), Syndrome::Ack);
        assert_eq!(syndrome(0x21), Syndrome::RnrNak);
        assert_eq!(transport(0x81), Transport::CNP);
        assert!(decode(&[0; 11]).is_none());
        assert!(psn_after(0, 0x00ff_ffff) && !psn_after(5, 9));
    }
}
