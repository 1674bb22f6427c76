//! `grep -H '' /sys/class/infiniband/*/ports/*/rate`.
//!
//! No real capture of this command was found (tests/fixtures/port_rate/SOURCES.md), so the input
//! below is ASSEMBLED: each line is the kernel's `path:value` form around a rate value that a real
//! host printed, quoted verbatim from the sources listed in that file.
use fabcheck_parse::linux::port_rate::parse;

const ASSEMBLED: &str = "\
/sys/class/infiniband/rocep1s0f0/ports/1/rate:200 Gb/sec (2X NDR)
/sys/class/infiniband/rocep1s0f1/ports/1/rate:200 Gb/sec (4X HDR)
/sys/class/infiniband/roceP2p1s0f0/ports/1/rate:40 Gb/sec (4X QDR)
/sys/class/infiniband/ibp59s0/ports/1/rate:100 Gb/sec (2X HDR)
/sys/class/infiniband/mlx4_0/ports/1/rate:40 Gb/sec (4X FDR10)
/sys/class/infiniband/mlx4_0/ports/2/rate:10 Gb/sec (4X)
/sys/class/infiniband/mlx5_1/ports/1/rate:0 GB/sec
";

#[test]
fn published_rate_values() {
    let parsed = parse(ASSEMBLED).expect("parses");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let p = &parsed.value.ports;
    let row = |i: usize| (p[i].hca.as_str(), p[i].port, p[i].rate_gbps, p[i].width.as_deref(), p[i].speed.as_deref());
    assert_eq!(row(0), ("rocep1s0f0", 1, 200.0, Some("2X"), Some("NDR")));
    assert_eq!(row(1), ("rocep1s0f1", 1, 200.0, Some("4X"), Some("HDR")));
    assert_eq!(row(2), ("roceP2p1s0f0", 1, 40.0, Some("4X"), Some("QDR")));
    assert_eq!(row(3), ("ibp59s0", 1, 100.0, Some("2X"), Some("HDR")));
    assert_eq!(row(4), ("mlx4_0", 1, 40.0, Some("4X"), Some("FDR10")));
    assert_eq!(row(5), ("mlx4_0", 2, 10.0, Some("4X"), None));
    assert_eq!(row(6), ("mlx5_1", 1, 0.0, None, None));
}

#[test]
fn registered_as_a_source() {
    assert!(fabcheck_parse::sources().contains(&"port_rate"));
    let json = fabcheck_parse::parse_to_json("port_rate", ASSEMBLED).expect("known").expect("parses").value;
    assert_eq!(json["ports"][1]["rate_gbps"], 200.0);
    assert_eq!(json["ports"][1]["speed"], "HDR");
}
