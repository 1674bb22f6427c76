//! RDMA port counters: `out_of_buffer`, `out_of_sequence`, `packet_seq_err`, `np_cnp_sent`,
//! `rp_cnp_handled`, `local_ack_timeout_err` ... per HCA port. Two formats, detected per line:
//!
//! * `grep -H '' /sys/class/infiniband/*/ports/*/hw_counters/*` (and `.../counters/*`, the IB
//!   PMA counters, which go into the same port's map): `/sys/class/infiniband/mlx5_0/ports/1/
//!   hw_counters/np_cnp_sent:1333`. A value such as `N/A (no PMA)` is a warning.
//! * MLNX_OFED `show_counters mlx5_1`: `Port 1 hw counters:` then `name: value` lines. The tool
//!   does not print the HCA name, so it is taken from an echoed `show_counters mlx5_1` line when
//!   there is one and is empty otherwise. `Port N cm counters:` sections repeat names per
//!   direction and are skipped with one warning.
//!
//! A last line without a line end (a cut capture) is skipped with a warning.

use crate::lines::{cut_line_skipped, numbered, prefix_key, split_at_byte, trim, unrecognised};
use crate::{ParseError, ParseResult, ParseWarning, Parsed};
pub use fabcheck_model::host::hw_counters::{HcaPort, HwCounters};

/// Parses sysfs `grep -H` output or `show_counters` output.
pub fn parse(text: &str) -> ParseResult<HwCounters> {
    // A handful of ports, their lines together: a list searched from its end beats a map keyed
    // by owned names (one allocation per line); sorted by HCA and port at the end.
    let mut ports: Vec<PortReading> = Vec::new();
    let mut warnings = Vec::new();
    let mut hca = String::new();
    // The `show_counters` port whose `name: value` lines follow (None: none yet, or a cm section).
    let mut current: Option<u32> = None;
    let mut in_cm = false;
    for l in numbered(text) {
        let (n, t) = (l.n, l.text);
        let mut warn = |message: String| warnings.push(ParseWarning::at(n, message));
        if !l.ended {
            warn(cut_line_skipped(t));
            continue;
        }
        if let Some(rest) = t.strip_prefix("/sys/class/infiniband/") {
            match sysfs_line(rest) {
                Some((dev, port, name, Ok(v))) => insert(&mut ports, dev, port, name, v, &mut warn),
                Some((_, _, name, Err(v))) => warn(format!("counter `{name}` has no number: `{v}`")),
                None => warn(unrecognised(t)),
            }
        } else if let Some((_, args)) = t.split_once("show_counters") {
            // The echoed command names the device: `show_counters  mlx5_1`.
            hca = args.split_whitespace().last().unwrap_or_default().to_string();
        } else if let Some(rest) = t.strip_prefix("Port ").and_then(|r| r.strip_suffix(" counters:")) {
            let (num, kind) = rest.split_once(' ').unwrap_or((rest, ""));
            match (num.parse::<u32>(), kind) {
                (Ok(port), "hw") => {
                    current = Some(port);
                    in_cm = false;
                    port_of(&mut ports, &hca, port);
                }
                (Ok(_), "cm") => {
                    current = None;
                    in_cm = true;
                    warn("cm counters repeat their names per direction, section skipped".into());
                }
                _ => warn(unrecognised(t)),
            }
        } else if in_cm {
            continue;
        } else if let (Some(port), Some((name, value))) = (current, t.split_once(':')) {
            match value.trim().parse::<u64>() {
                Ok(v) => insert(&mut ports, &hca, port, name.trim(), v, &mut warn),
                Err(_) => warn(format!("counter `{}` has no number: `{}`", name.trim(), value.trim())),
            }
        } else {
            warn(unrecognised(t));
        }
    }
    if ports.is_empty() {
        return Err(ParseError::at(0, "not hw_counters output: no sysfs counter lines and no `Port N hw counters:`"));
    }
    let mut ports: Vec<HcaPort> = ports.into_iter().map(PortReading::into_port).collect();
    ports.sort_by(|a, b| (&a.hca, a.port).cmp(&(&b.hca, b.port)));
    Ok(Parsed { value: HwCounters { ports }, warnings })
}

/// A port's counters as read, kept sorted by name (its [`prefix_key`], then the name): sysfs
/// lists a port's names in order, so a name is nearly always appended after one comparison of
/// two numbers, and the map is built once from the sorted list. Inserting each name into the
/// port's map, with an owned key searched from the root by `memcmp`, was most of a line's cost.
struct PortReading<'a> {
    hca: String,
    port: u32,
    counters: Vec<(u64, &'a str, u64)>,
}

impl<'a> PortReading<'a> {
    /// Sets `name` to `value`; false when the name was read before (the later value is kept).
    fn set(&mut self, name: &'a str, value: u64) -> bool {
        let key = prefix_key(name);
        if self.counters.last().is_none_or(|&(k, last, _)| (k, last) < (key, name)) {
            self.counters.push((key, name, value));
            return true;
        }
        match self.counters.binary_search_by(|&(k, n, _)| (k, n).cmp(&(key, name))) {
            Ok(at) => {
                self.counters[at].2 = value;
                false
            }
            Err(at) => {
                self.counters.insert(at, (key, name, value));
                true
            }
        }
    }

    /// The port with its map, built from names already sorted and unique (no search per name).
    fn into_port(self) -> HcaPort {
        let counters = self.counters.into_iter().map(|(_, name, value)| (name.to_string(), value)).collect();
        HcaPort { hca: self.hca, port: self.port, counters }
    }
}

/// `mlx5_0/ports/1/hw_counters/np_cnp_sent:1333` (after `/sys/class/infiniband/`).
fn sysfs_line(rest: &str) -> Option<(&str, u32, &str, Result<u64, &str>)> {
    let (path, value) = split_at_byte(rest, b':')?;
    let (dev, path) = split_at_byte(path, b'/')?;
    let (port, path) = split_at_byte(path.strip_prefix("ports/")?, b'/')?;
    let name = path.strip_prefix("hw_counters/").or_else(|| path.strip_prefix("counters/"))?;
    if name.bytes().any(|b| b == b'/') {
        return None;
    }
    let value = trim(value);
    Some((dev, port.parse().ok()?, name, value.parse().map_err(|_| value)))
}

/// The counters of `hca` port `port`, added when first seen.
fn port_of<'a, 'b>(ports: &'b mut Vec<PortReading<'a>>, hca: &str, port: u32) -> &'b mut PortReading<'a> {
    let at = match ports.iter().rposition(|p| p.hca == hca && p.port == port) {
        Some(at) => at,
        None => {
            ports.push(PortReading { hca: hca.to_string(), port, counters: Vec::new() });
            ports.len() - 1
        }
    };
    &mut ports[at]
}

fn insert<'a>(
    ports: &mut Vec<PortReading<'a>>,
    hca: &str,
    port: u32,
    name: &'a str,
    value: u64,
    warn: &mut impl FnMut(String),
) {
    if name.is_empty() {
        warn("counter without a name".into());
    } else if !port_of(ports, hca, port).set(name, value) {
        warn(format!("counter `{name}` appears twice for one port, the later value is kept"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = include_str!(
        "../../tests/fixtures/hw_counters/show_counters-mlx5_1-hw-counters-out_of_sequence-resp_cqe_error-magnate3.txt"
    );

    #[test]
    fn sysfs_lines_across_hcas_ports_and_kinds() {
        let text = "/sys/class/infiniband/mlx5_1/ports/1/hw_counters/out_of_buffer:7\n/sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_data:42\n/sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_wait:N/A (no PMA)\n/sys/class/infiniband/mlx5_0/ports/2/hw_counters/np_cnp_sent:3\n/sys/class/infiniband/mlx5_0/hw_counters/lifespan:10\n";
        let p = parse(text).unwrap();
        let got: Vec<_> = p.value.ports.iter().map(|p| (p.hca.as_str(), p.port, p.counters.len())).collect();
        assert_eq!(got, [("mlx5_0", 1, 1), ("mlx5_0", 2, 1), ("mlx5_1", 1, 1)]);
        assert_eq!(p.value.ports[2].counters["out_of_buffer"], 7);
        let lines: Vec<_> = p.warnings.iter().map(|w| w.line).collect();
        assert_eq!(lines, [3, 5]);
    }

    #[test]
    fn show_counters_without_device_line_and_cm_section() {
        let text = "Port 1 hw counters:\nout_of_buffer: 0\nPort 1 cm counters:\nreq: 5\nreq: 6\nPort 2 hw counters:\nout_of_sequence: 9\n";
        let p = parse(text).unwrap();
        assert_eq!(p.value.ports.len(), 2);
        assert_eq!(p.value.ports[0].hca, "");
        assert_eq!(p.value.ports[1].counters["out_of_sequence"], 9);
        assert_eq!(p.warnings.len(), 1);
        assert_eq!(p.warnings[0].line, 3);
    }

    #[test]
    fn rejects_empty_and_foreign_input() {
        assert!(parse("").is_err());
        assert!(parse("\n\t\n").is_err());
        assert!(parse("Device mlx5_9 not found\n").is_err());
        assert!(parse("NIC statistics:\n     rx_packets: 5\n").is_err());
    }

    crate::lines::parser_never_panics!(parse, SAMPLE);
}
