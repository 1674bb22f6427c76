//! `ibstat` (infiniband-diags): one block per channel adapter, one sub-block per port.
//!
//! ```text
//! CA 'mlx5_0'
//!         CA type: MT4129
//!         Number of ports: 1
//!         Firmware version: 28.39.1002
//!         ...
//!         Port 1:
//!                 State: Active
//!                 Physical state: LinkUp
//!                 Rate: 200
//!                 ...
//!                 Link layer: Ethernet
//! ```
//!
//! Variants seen: tab or space indentation (so indentation is ignored: CA and port keys differ),
//! CRLF line ends, a shell prompt before the output, `Rate: 40 (FDR10)` and `Rate: 2.5`,
//! `CA: 'mlx5_0'` from `ibstat CA PORT`, an `ibpanic:` line after the last CA (a device that
//! vanished while ibstat listed them: warned about as an incomplete list), and output cut
//! in the middle of a CA (the CA is kept with what was printed; the cut is warned about).
use crate::lines::{clip, cut_off, diag_no_facts, non_empty, numbered, unrecognised_clipped};
use crate::{ParseResult, ParseWarning, Parsed};
pub use fabcheck_model::host::ibstat::{Ca, Ibstat, Port};

/// Parses `ibstat` output.
///
/// # Errors
/// Empty input, or no `CA '<name>'` line (the message quotes an infiniband-diags error if one
/// was printed instead).
pub fn parse(text: &str) -> ParseResult<Ibstat> {
    let mut cas: Vec<Ca> = Vec::new();
    let mut warnings = Vec::new();
    for l in numbered(text) {
        let (n, line) = (l.n, l.text);
        if let Some(name) = ca_header(line) {
            cas.push(Ca { name: name.to_string(), ..Ca::default() });
            continue;
        }
        // ibstat gave up on a device after listing others (`ibpanic: ... stat of IB device
        // 'mlx5_8' failed`): the list is incomplete, and says which device is missing.
        if let Some(panic) = line.strip_prefix("ibpanic:") {
            let message = format!("ibstat stopped: {}; the CAs after it are missing", clip(panic.trim(), 160));
            warnings.push(ParseWarning::at(n, message));
            continue;
        }
        let Some(ca) = cas.last_mut() else {
            warnings.push(unrecognised(n, line));
            continue;
        };
        if let Some(num) = line.strip_prefix("Port ").and_then(|r| r.strip_suffix(':')) {
            match num.trim().parse() {
                Ok(port) => ca.ports.push(Port { port, ..Port::default() }),
                Err(_) => warnings.push(unrecognised(n, line)),
            }
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            warnings.push(unrecognised(n, line));
            continue;
        };
        let value = value.trim();
        // Built only for the key that keeps it: most lines are numbers or port keys.
        let text_value = || non_empty(value);
        let number = |w: &mut Vec<ParseWarning>| -> Option<u32> {
            value.parse().map_err(|_| w.push(bad_value(n, key, value))).ok()
        };
        match key {
            "CA type" => ca.ca_type = text_value(),
            "Number of ports" => ca.num_ports = number(&mut warnings),
            "Firmware version" => ca.firmware_version = text_value(),
            "Hardware version" => ca.hardware_version = text_value(),
            "Node GUID" => ca.node_guid = text_value(),
            "System image GUID" => ca.system_image_guid = text_value(),
            _ => {
                let known = PORT_KEYS.contains(&key);
                match ca.ports.last_mut() {
                    Some(port) if known => port_field(port, key, value, n, &mut warnings),
                    None if known => warnings.push(ParseWarning::at(n, format!("`{key}` before any `Port N:` line"))),
                    _ => warnings.push(unrecognised(n, line)),
                }
            }
        }
    }
    if cas.is_empty() {
        return Err(diag_no_facts(
            text,
            |diag| format!("ibstat listed no CA; infiniband-diags reported `{diag}`"),
            "empty ibstat output",
            "no `CA '<name>'` line: not ibstat output",
        ));
    }
    warnings.extend(cut_off(text));
    Ok(Parsed { value: Ibstat { cas }, warnings })
}

const PORT_KEYS: [&str; 9] =
    ["State", "Physical state", "Rate", "Base lid", "LMC", "SM lid", "Capability mask", "Port GUID", "Link layer"];

fn port_field(port: &mut Port, key: &str, value: &str, n: usize, w: &mut Vec<ParseWarning>) {
    let text = || non_empty(value);
    let mut number = || value.parse().map_err(|_| w.push(bad_value(n, key, value))).ok();
    match key {
        "State" => port.state = value.to_string(),
        "Physical state" => port.physical_state = value.to_string(),
        "Base lid" => port.base_lid = number(),
        "LMC" => port.lmc = number(),
        "SM lid" => port.sm_lid = number(),
        "Capability mask" => port.capability_mask = text(),
        "Port GUID" => port.port_guid = text(),
        "Link layer" => port.link_layer = text(),
        // "Rate: 40 (FDR10)": the number comes first.
        _ => {
            let first = value.split_whitespace().next().unwrap_or_default();
            port.rate_gbps = first.parse().map_err(|_| w.push(bad_value(n, key, value))).ok();
        }
    }
}

/// `CA 'mlx5_0'` (or `CA: 'mlx5_0'` from `ibstat mlx5_0 1`).
fn ca_header(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("CA")?;
    let rest = rest.strip_prefix(':').unwrap_or(rest).trim();
    rest.strip_prefix('\'')?.strip_suffix('\'')
}

fn unrecognised(line: usize, text: &str) -> ParseWarning {
    ParseWarning::at(line, unrecognised_clipped(text))
}

fn bad_value(line: usize, key: &str, value: &str) -> ParseWarning {
    let shown = clip(value, 40);
    ParseWarning::at(line, format!("`{key}` has an unreadable value `{shown}`"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = include_str!(
        "../../tests/fixtures/ibstat/ibstat-cx6-hdr-mt4123-fw20.26-ib-one-port-disabled-lustreperfmon-27-PARTIAL.txt"
    );

    #[test]
    fn single_port_form_and_fdr10_rate() {
        let text = "CA: 'mlx4_0'\nPort 1:\nState: Active\nPhysical state: LinkUp\nRate: 40 (FDR10)\n";
        let parsed = parse(text).expect("parses");
        let port = &parsed.value.cas[0].ports[0];
        assert_eq!(parsed.value.cas[0].name, "mlx4_0");
        assert_eq!((port.state.as_str(), port.rate_gbps), ("Active", Some(40.0)));
        assert!(parsed.warnings.is_empty());
    }

    #[test]
    fn port_key_before_port_line_and_bad_numbers_warn() {
        let text = "CA 'mlx5_0'\n\tState: Active\n\tNumber of ports: x\n\tPort 1:\n\t\tSM lid: ?\n";
        let parsed = parse(text).expect("parses");
        let lines: Vec<usize> = parsed.warnings.iter().map(|w| w.line).collect();
        assert_eq!(lines, [2, 3, 5]);
        assert_eq!(parsed.value.cas[0].ports[0].sm_lid, None);
    }

    #[test]
    fn empty_and_foreign_text_are_errors() {
        assert!(parse("").is_err());
        assert!(parse("hello\nworld\n").is_err());
        let err = parse("ibpanic: [12] main: stat of IB device 'mlx5_8' failed\n").unwrap_err();
        assert!(err.message.contains("ibpanic"), "{err}");
    }

    crate::lines::parser_never_panics!(parse, SAMPLE);
}
