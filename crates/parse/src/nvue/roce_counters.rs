//! `nv show interface IF qos roce counters` (NVIDIA Cumulus Linux 5.x, NVUE): RoCE counters of
//! one port.
//!
//! ```text
//! cumulus@switch:mgmt:~$ nv show interface swp16 qos roce counters
//!                                operational   applied  description
//! -----------------------------  ------------  -------  ---------------------------------
//! rx-stats
//!   rx-pfc-stats
//!     pause-duration             0                      Rx PFC pause duration for RoCE traffic
//!     pause-packets              0                      Rx PFC pause packets for RoCE traffic
//!   rx-roce-stats
//!     no-buffer-discard          0                      Rx buffer discards for RoCE traffic
//! tx-stats
//!   tx-ecn-stats
//!     ecn-marked-packets         693777677344           Tx ECN marked packets
//!   tx-roce-stats
//!     roce-bytes                 92824.38 GB            Tx RoCE Packet bytes
//!     unicast-no-buffer-discard  663060754115           Tx buffer discards for RoCE traffic
//! ```
//!
//! Every counter is kept, by its path (`tx-stats.tx-roce-stats.roce-packets`), so that a counter
//! a later release adds is not lost; sizes (`144 Bytes`, `56.52 MB`, `92824.38 GB`) become
//! bytes, in binary units. The counters are the RoCE classes', not per priority: which priority
//! and traffic class they belong to is the RoCE configuration's, so turning them into the
//! model's per-priority and per-queue maps takes it ([`super::convert::counters_to_port`]).
use super::roce_status::interface_of;
use super::table;
use crate::lines::{clip, no_facts};
use crate::{ParseResult, ParseWarning, Parsed};
use serde::Serialize;
use std::collections::BTreeMap;

/// The RoCE counters of one port.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RoceCounters {
    /// The port, from the echoed prompt line when the capture kept one.
    pub interface: Option<String>,
    /// Counter path → value (bytes for sizes).
    pub counters: BTreeMap<String, u64>,
}

/// Parses the counters output.
///
/// # Errors
/// Empty input, or not one counter (not this command's output).
pub fn parse(text: &str) -> ParseResult<RoceCounters> {
    let show = table::read(text);
    let mut warnings = show.warnings.clone();
    let mut counters = BTreeMap::new();
    for f in &show.fields {
        match super::convert::size_bytes(f.value()) {
            Some(v) => {
                counters.insert(f.path.clone(), v);
            }
            None => warnings.push(ParseWarning::at(
                f.n,
                format!("counter `{}` has an unreadable value `{}`", clip(&f.path, 80), clip(f.value(), 40)),
            )),
        }
    }
    for t in &show.tables {
        warnings.push(ParseWarning::at(t.n, format!("unexpected table `{}`", clip(&t.title, 80))));
    }
    if counters.is_empty() {
        return Err(no_facts(
            text,
            "empty `nv show interface IF qos roce counters` output",
            "no counter: not `nv show interface IF qos roce counters` output",
        ));
    }
    Ok(Parsed { value: RoceCounters { interface: show.command.as_deref().and_then(interface_of), counters }, warnings })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = include_str!(
        "../../tests/fixtures/nvue_roce_counters/cumulus-5.12-nv-show-interface-qos-roce-counters-docs.txt"
    );

    #[test]
    fn unreadable_counters_warn() {
        let text = "    operational  applied\n--  -----------  -------\nrx\n  a   12\n  b   lots\n";
        let parsed = parse(text).expect("parses");
        assert_eq!(parsed.value.counters.get("rx.a"), Some(&12));
        assert_eq!(parsed.warnings.len(), 1);
        assert_eq!(parsed.warnings[0].line, 5);
    }

    #[test]
    fn empty_and_foreign_text_are_errors() {
        assert!(parse("").is_err());
        assert!(parse("no counters here\n").is_err());
    }

    crate::lines::parser_never_panics!(parse, SAMPLE);
}
