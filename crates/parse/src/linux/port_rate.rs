//! `grep -H '' /sys/class/infiniband/*/ports/*/rate`: the active rate of every RDMA port.
//!
//! ```text
//! /sys/class/infiniband/mlx5_0/ports/1/rate:200 Gb/sec (4X HDR)
//! /sys/class/infiniband/mlx5_1/ports/1/rate:10 Gb/sec (4X)
//! ```
//!
//! The value is the kernel's `rate_show()` (drivers/infiniband/core/sysfs.c):
//! `"%d%s Gb/sec (%dX%s)"`, the number in whole Gb/s with `.5` appended for half rates
//! (`2.5 Gb/sec (1X SDR)`), the width in lanes and a speed name (`SDR`, `DDR`, `QDR`, `FDR10`,
//! `FDR`, `EDR`, `HDR`, `NDR`, `XDR`). Kernels before HDR support print nothing for SDR
//! (`10 Gb/sec (4X)`). RoCE ports reuse the IB names for Ethernet speeds (40GbE prints
//! `40 Gb/sec (4X QDR)`), and a down port prints a placeholder rate. An out-of-tree driver on an
//! empty cage printed `0 GB/sec`. The device and port come from the path, whatever its prefix.
use crate::lines::{clip, cut_off, no_facts, numbered, split_run, unrecognised};
use crate::{ParseResult, ParseWarning, Parsed};
pub use fabcheck_model::host::port_rate::{PortRate, PortRates};
use regex::Regex;
use std::sync::LazyLock;

static VALUE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(\d+(?:\.\d+)?) [Gg][Bb]/sec(?: \((\d+X)(?: (\w+))?\))?$").expect("valid regex"));

/// Parses `grep -H '' /sys/class/infiniband/*/ports/*/rate` output.
///
/// # Errors
/// Empty input (no RDMA device), or no `.../ports/N/rate:` line.
pub fn parse(text: &str) -> ParseResult<PortRates> {
    let mut ports = Vec::new();
    let mut warnings = Vec::new();
    for l in numbered(text) {
        match rate_line(l.text) {
            Some(rate) => ports.push(rate),
            // Sysfs paths are long: quote more of the line than the other parsers do.
            None => warnings.push(ParseWarning::at(l.n, unrecognised(&clip(l.text, 120)))),
        }
    }
    if ports.is_empty() {
        return Err(no_facts(
            text,
            "empty output: no RDMA device under /sys/class/infiniband",
            "no `.../<hca>/ports/<n>/rate:<rate>` line: not the port rate listing",
        ));
    }
    warnings.extend(cut_off(text));
    Ok(Parsed { value: PortRates { ports }, warnings })
}

/// `<prefix>/<hca>/ports/<n>/rate:<value>`.
fn rate_line(line: &str) -> Option<PortRate> {
    let (path, value) = line.split_once("/rate:")?;
    let mut parts = path.rsplit('/');
    let port = parts.next()?.parse().ok()?;
    if parts.next()? != "ports" {
        return None;
    }
    let hca = parts.next().filter(|h| !h.is_empty())?.to_string();
    let (rate, width, speed) = rate_value(value.trim())?;
    Some(PortRate {
        hca,
        port,
        rate_gbps: rate.parse().ok()?,
        width: width.map(str::to_string),
        speed: speed.map(str::to_string),
    })
}

/// The rate, width and speed groups of [`VALUE`] in `value`: on ASCII, read as the regex reads
/// it, without the regex, whose Unicode classes cost more to compile (once per process) than
/// every line of a host; the regex reads the rest (a Unicode digit is a `\d` to it).
fn rate_value(value: &str) -> Option<(&str, Option<&str>, Option<&str>)> {
    if !value.is_ascii() {
        let c = VALUE.captures(value)?;
        return Some((c.get(1)?.as_str(), c.get(2).map(|m| m.as_str()), c.get(3).map(|m| m.as_str())));
    }
    let digits = |text| split_run(text, |b| b.is_ascii_digit());
    let rest = digits(value)?.1;
    let rest = match rest.strip_prefix('.') {
        Some(fraction) => digits(fraction)?.1,
        None => rest,
    };
    let rate = &value[..value.len() - rest.len()];
    let lanes = rest.strip_prefix(' ')?.strip_prefix(['G', 'g'])?.strip_prefix(['B', 'b'])?.strip_prefix("/sec")?;
    if lanes.is_empty() {
        return Some((rate, None, None));
    }
    let (count, rest) = digits(lanes.strip_prefix(" (")?)?;
    let rest = rest.strip_prefix('X')?;
    let width = &lanes[2..2 + count.len() + 1];
    // `\w` of ASCII text: letters, digits and `_`.
    let (speed, rest) = match rest.strip_prefix(' ') {
        Some(rest) => split_run(rest, |b| b.is_ascii_alphanumeric() || b == b'_').map(|(w, r)| (Some(w), r))?,
        None => (None, rest),
    };
    (rest == ")").then_some((rate, Some(width), speed))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Built, not captured: no published `grep -H` of these files was found. The values are the
    /// kernel's format with rates published verbatim elsewhere (tests/fixtures/port_rate/SOURCES.md).
    const SAMPLE: &str = "\
/sys/class/infiniband/mlx5_0/ports/1/rate:200 Gb/sec (4X HDR)
/sys/class/infiniband/mlx5_1/ports/1/rate:100 Gb/sec (2X HDR)
/sys/class/infiniband/mlx4_0/ports/2/rate:10 Gb/sec (4X)
/sys/class/infiniband/mlx5_2/ports/1/rate:2.5 Gb/sec (1X SDR)
/sys/class/infiniband/mlx5_3/ports/1/rate:0 GB/sec
";

    #[test]
    fn kernel_formats() {
        let ports = parse(SAMPLE).expect("parses").value.ports;
        assert_eq!(ports.len(), 5);
        assert_eq!((ports[0].hca.as_str(), ports[0].port, ports[0].rate_gbps), ("mlx5_0", 1, 200.0));
        assert_eq!((ports[1].width.as_deref(), ports[1].speed.as_deref()), (Some("2X"), Some("HDR")));
        assert_eq!((ports[2].port, ports[2].width.as_deref(), ports[2].speed.clone()), (2, Some("4X"), None));
        assert_eq!(ports[3].rate_gbps, 2.5);
        assert_eq!((ports[4].rate_gbps, ports[4].width.clone()), (0.0, None));
    }

    #[test]
    fn other_roots_and_bad_lines() {
        let text = "/host-sys/class/infiniband/ib0/ports/1/rate:400 Gb/sec (4X NDR)\n\
                    /sys/class/infiniband/mlx5_0/ports/x/rate:200 Gb/sec (4X HDR)\n\
                    grep: /sys/class/infiniband/*/ports/*/rate: No such file or directory\n\
                    /sys/class/infiniband/mlx5_0/ports/1/rate:fast\n";
        let parsed = parse(text).expect("parses");
        assert_eq!(parsed.value.ports[0].hca, "ib0");
        let lines: Vec<usize> = parsed.warnings.iter().map(|w| w.line).collect();
        assert_eq!(lines, [2, 3, 4]);
    }

    #[test]
    fn errors() {
        assert!(parse("").is_err());
        assert!(parse("grep: /sys/class/infiniband/*/ports/*/rate: No such file or directory\n").is_err());
    }

    crate::lines::parser_never_panics!(parse, SAMPLE);
}
