//! Cisco NX-OS `show interface priority-flow-control`: per port the configured PFC mode, whether
//! PFC is operationally on and for which priorities, and the PFC frames received and sent.
//!
//! ```text
//! ============================================================
//! Port               Mode Oper(VL bmap)  RxPPP      TxPPP
//! ============================================================
//!
//! Ethernet1/47       Auto Off           7316       762946
//! Ethernet1/1/1      Auto On  (8)       0          0
//! ```
//!
//! `Mode` is the configuration (`Auto`: negotiated by DCBX, `On`, `Off`), `Oper` what runs, with
//! the bitmap of the priorities PFC pauses in hexadecimal (`(8)` is priority 3, `(20)` priority
//! 5, `(9)` priorities 0 and 3). `RxPPP`/`TxPPP` count per-priority pause frames on the port, all
//! priorities together: the command does not split them by priority (`show interface
//! priority-flow-control detail` and `show queuing interface` do, in other layouts). Rules
//! (`====`), blank lines and a command echo are skipped; any other line warns.

use crate::cli_tree::is_switch_prompt;
use crate::lines::{no_facts, numbered, unrecognised_clipped};
use crate::switch::canonical_interface;
use crate::{ParseResult, ParseWarning, Parsed};
use serde::Serialize;

/// Every port of the output.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PfcStatus {
    /// Ports in output order.
    pub ports: Vec<PfcPort>,
}

/// One port's row.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PfcPort {
    /// The port as printed.
    pub port: String,
    /// Canonical name ([`canonical_interface`]).
    pub name: String,
    /// Configured mode as printed: `Auto`, `On` or `Off`.
    pub mode: String,
    /// PFC operationally on.
    pub oper_on: bool,
    /// The priorities of the VL bitmap, ascending (empty when PFC is off or no bitmap is shown).
    pub priorities: Vec<u8>,
    /// The VL bitmap as printed, without its parentheses (`8`, `20`).
    pub vl_bitmap: Option<String>,
    /// PFC frames received (`RxPPP`), all priorities.
    pub rx_frames: u64,
    /// PFC frames sent (`TxPPP`), all priorities.
    pub tx_frames: u64,
}

/// Parses `show interface priority-flow-control`.
///
/// # Errors
/// Empty input, or no row under a `Port Mode Oper(VL bmap) RxPPP TxPPP` header.
pub fn parse(text: &str) -> ParseResult<PfcStatus> {
    let mut out = PfcStatus::default();
    let mut w = Vec::new();
    let mut seen_header = false;
    for l in numbered(text) {
        let t = l.text;
        if t.chars().all(|c| c == '=' || c == '-') || is_switch_prompt(t) || (!seen_header && t.starts_with("show ")) {
            continue;
        }
        if t.starts_with("Port") && t.contains("RxPPP") && t.contains("TxPPP") {
            seen_header = true;
            continue;
        }
        match seen_header.then(|| row(t)).flatten() {
            Some(p) => out.ports.push(p),
            None => w.push(ParseWarning::at(l.n, unrecognised_clipped(t))),
        }
    }
    if out.ports.is_empty() {
        return Err(no_facts(
            text,
            "empty show interface priority-flow-control output",
            "no `Port Mode Oper(VL bmap) RxPPP TxPPP` row: not NX-OS show interface priority-flow-control output",
        ));
    }
    Ok(Parsed { value: out, warnings: w })
}

/// `PORT MODE OPER [(BMAP)] RXPPP TXPPP`; the bitmap may also stick to the state (`On(8)`).
fn row(line: &str) -> Option<PfcPort> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let [port, mode, middle @ .., rx, tx] = words.as_slice() else {
        return None;
    };
    if !["auto", "on", "off"].contains(&mode.to_ascii_lowercase().as_str()) {
        return None;
    }
    let oper = middle.concat();
    let (state, bitmap) = match oper.split_once('(') {
        Some((state, rest)) => (state, Some(rest.strip_suffix(')')?)),
        None => (oper.as_str(), None),
    };
    let oper_on = match state.to_ascii_lowercase().as_str() {
        "on" => true,
        "off" => false,
        _ => return None,
    };
    let priorities = match bitmap {
        Some(b) => {
            let bits = u8::from_str_radix(b, 16).ok()?;
            (0..8).filter(|p| bits & (1 << p) != 0).collect()
        }
        None => Vec::new(),
    };
    Some(PfcPort {
        port: (*port).to_string(),
        name: canonical_interface(port),
        mode: (*mode).to_string(),
        oper_on,
        priorities,
        vl_bitmap: bitmap.map(str::to_string),
        rx_frames: rx.parse().ok()?,
        tx_frames: tx.parse().ok()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = include_str!(
        "../../tests/fixtures/nxos_pfc/nexus5k-show-interface-priority-flow-control-keepingitclassless-PARTIAL.txt"
    );

    #[test]
    fn bitmaps_are_hexadecimal_priority_sets() {
        let p = row("Ethernet1/1/1      Auto On  (8)       0          0").expect("row");
        assert_eq!((p.name.as_str(), p.oper_on, p.priorities.as_slice()), ("Ethernet1/1/1", true, &[3u8][..]));
        assert_eq!(row("Eth1/51 On On(20) 0 150").expect("row").priorities, [5]);
        assert_eq!(row("Eth1/2 Auto On (9) 4088353 1890").expect("row").priorities, [0, 3]);
        assert_eq!(row("Eth1/3 Off Off 0 0").expect("row").priorities, Vec::<u8>::new());
    }

    #[test]
    fn rows_that_do_not_read_warn() {
        let text = "Port Mode Oper(VL bmap) RxPPP TxPPP\nEth1/1 On On (8) 1 2\nEth1/2 Sideways Off 0 0\nEth1/3 On On (zz) 0 0\nEth1/4 On Off x 0\nEth1/5 On\n";
        let parsed = parse(text).expect("parses");
        assert_eq!(parsed.warnings.iter().map(|w| w.line).collect::<Vec<_>>(), [3, 4, 5, 6]);
        assert_eq!((parsed.value.ports[0].rx_frames, parsed.value.ports[0].tx_frames), (1, 2));
    }

    #[test]
    fn empty_and_foreign_text_are_errors() {
        assert!(parse("").is_err());
        assert!(parse("hello\nworld\n").is_err());
        assert!(parse("Eth1/1 On On (8) 1 2\n").is_err(), "a row needs the header");
    }

    crate::lines::parser_never_panics!(parse, SAMPLE);
}
