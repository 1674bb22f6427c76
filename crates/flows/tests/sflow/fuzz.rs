//! Datagrams cut and mutated every way: the reader gives a datagram or an error, never a panic,
//! its sampled headers always lie within the input, and a datagram cut short is an error that
//! says where, never samples made up from what is missing.
use crate::build::{self, Sample};
use crate::fixtures::{captures, datagrams};
use fabcheck_flows::decode::frame;
use fabcheck_flows::flow::Flows;
use fabcheck_flows::sflow::{self, Datagram};
use proptest::prelude::*;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::LazyLock;

/// Every real datagram, and one of the kind the RoCE test writes (expanded samples, extended
/// records, a counter sample).
static SEEDS: LazyLock<Vec<Vec<u8>>> = LazyLock::new(|| {
    let mut seeds: Vec<Vec<u8>> = captures().iter().flat_map(|f| datagrams(f)).collect();
    let frame = [0x11u8; 90];
    let sample = |expanded| Sample { expanded, sequence: 1, rate: 4096, input: 3, output: 4, frame: &frame };
    seeds.push(build::datagram(IpAddr::V4(Ipv4Addr::LOCALHOST), 9, &[sample(true), sample(true)]));
    seeds
});

/// Reads `bytes` the way a capture's datagram is read, and checks what came back.
fn read(bytes: &[u8]) -> Option<Datagram<'_>> {
    let d = sflow::parse(bytes).ok()?;
    let range = bytes.as_ptr_range();
    for s in &d.flow_samples {
        if let Some(h) = s.header {
            let inside = h.bytes.is_empty() || range.contains(&h.bytes.as_ptr()) && h.bytes.len() <= bytes.len();
            assert!(inside, "a header outside the datagram");
            if let Some(link) = h.link() {
                let _ = frame(link, h.bytes);
            }
        }
    }
    Some(d)
}

#[test]
fn a_datagram_cut_short_is_an_error_that_says_where() {
    for seed in SEEDS.iter() {
        let whole = read(seed).unwrap();
        for n in 0..seed.len() {
            // Cut within the samples: an error; within trailing bytes no sample claims: the same.
            match read(&seed[..n]) {
                Some(d) => assert_eq!(d, whole, "cut at {n} of {}", seed.len()),
                None => assert!(sflow::parse(&seed[..n]).unwrap_err().at <= n),
            }
        }
    }
    let cut = &SEEDS[0][..300];
    assert_eq!(
        sflow::parse(cut).unwrap_err().to_string(),
        "sFlow datagram byte 252: sample 2 of 5: its data: 272 bytes, 48 left"
    );
    let mut v4 = SEEDS[0].clone();
    v4[3] = 4;
    assert_eq!(sflow::parse(&v4).unwrap_err().to_string(), "sFlow datagram byte 0: version 4, not 5");
    let mut flows = Flows::default();
    let pcap = build::pcap(&[(0, cut.to_vec()), (1, v4)]);
    fabcheck_flows::analyse(std::io::Cursor::new(pcap), &mut flows).unwrap();
    assert_eq!((flows.sflow.datagrams, flows.sflow.malformed), (2, 2));
    assert_eq!(
        flows.sflow.first_malformed.as_deref(),
        Some("frame 1: sFlow datagram byte 252: sample 2 of 5: its data: 272 bytes, 48 left")
    );
}

#[test]
fn every_bit_flipped_reads_without_panic() {
    for seed in SEEDS.iter() {
        for bit in 0..seed.len() * 8 {
            let mut bytes = seed.clone();
            bytes[bit / 8] ^= 1 << (bit % 8);
            read(&bytes);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Several bytes changed, a run inserted, the end cut: whatever the bytes.
    #[test]
    fn mutated_datagrams_read_without_panic(
        seed in any::<prop::sample::Index>(),
        changes in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..8),
        inserted in prop::collection::vec(any::<u8>(), 0..12),
        at in any::<prop::sample::Index>(),
        cut in any::<prop::sample::Index>(),
    ) {
        let mut bytes = SEEDS[seed.index(SEEDS.len())].clone();
        for (i, b) in changes {
            let i = i.index(bytes.len());
            bytes[i] = b;
        }
        let at = at.index(bytes.len());
        bytes.splice(at..at, inserted);
        bytes.truncate(cut.index(bytes.len() + 1));
        read(&bytes);
    }
}
