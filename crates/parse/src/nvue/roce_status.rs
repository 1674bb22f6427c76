//! `nv show interface IF qos roce status` (NVIDIA Cumulus Linux 5.x, NVUE): RoCE on one port.
//!
//! ```text
//! cumulus@switch:mgmt:~$ nv show interface swp16 qos roce status
//!                     operational    applied  description
//! ------------------  -------------  -------  -----------------------------------
//! congestion-control
//!   congestion-mode   ecn, absolute           Congestion config mode
//!   enabled-tc        0,3                     Congestion config enabled Traffic Class
//!   max-threshold     1.43 MB                 Congestion config max-threshold
//! pfc
//!   pfc-priority      3                       switch-prio on which PFC is enabled
//!   rx-enabled        yes                     PFC Rx Enabled status
//! mode                lossless                Roce Mode
//!
//! RoCE PCP/DSCP->SP mapping configurations
//! ===========================================
//!           pcp  dscp  switch-prio
//!     ----  ---  ----  -----------
//!     cnp   6    48    6
//!     roce  3    26    3
//! RoCE SP->TC mapping and ETS configurations
//! RoCE Pool Status          (pool-id, size, current-usage, max-usage)
//! ```
//!
//! The same sections as `nv show qos roce` ([`super::roce`]), with a description column, lines
//! with trailing spaces and separator lines of one space. The port is named only by the command:
//! [`parse`] takes it from the echoed prompt line when the capture kept one, [`parse_for`] from
//! the caller (the collector knows which port it asked about).
use super::convert::status_to_port;
use super::roce::{self, RoceQos};
use super::table;
use crate::switch::{PortQos, canonical_interface};
use crate::{ParseResult, ParseWarning, Parsed};

/// Parses the status output; `interface` is read from the echoed prompt line, if any.
///
/// # Errors
/// Empty input, or no RoCE field or table (not this command's output).
pub fn parse(text: &str) -> ParseResult<RoceQos> {
    let show = table::read(text);
    let mut parsed = roce::from_show(
        &show,
        text,
        "empty `nv show interface IF qos roce status` output",
        "no RoCE fields or tables: not `nv show interface IF qos roce status` output",
    )?;
    parsed.value.interface = show.command.as_deref().and_then(interface_of);
    Ok(parsed)
}

/// Parses the status output of `interface` into the model's port.
///
/// # Errors
/// As [`parse`]. A prompt line naming another port is a warning (the caller's name is kept).
pub fn parse_for(interface: &str, text: &str) -> ParseResult<PortQos> {
    let Parsed { value, mut warnings } = parse(text)?;
    if let Some(echoed) = &value.interface
        && canonical_interface(echoed) != canonical_interface(interface)
    {
        warnings
            .push(ParseWarning::at(1, format!("the prompt shows `{echoed}`, the caller asked about `{interface}`")));
    }
    Ok(Parsed { value: status_to_port(&value), warnings })
}

/// `nv show interface swp16 qos roce status` → `swp16`.
pub(super) fn interface_of(command: &str) -> Option<String> {
    let mut words = command.split_whitespace();
    words.find(|w| *w == "interface")?;
    words.next().map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str =
        include_str!("../../tests/fixtures/nvue_roce_status/cumulus-5.12-nv-show-interface-qos-roce-status.txt");

    #[test]
    fn interface_comes_from_the_prompt() {
        assert_eq!(interface_of("nv show interface swp16 qos roce status").as_deref(), Some("swp16"));
        assert_eq!(interface_of("nv show qos roce"), None);
        let parsed = parse_for("swp17", SAMPLE).expect("parses");
        assert!(parsed.warnings.iter().any(|w| w.message.contains("swp16")));
    }

    #[test]
    fn empty_and_foreign_text_are_errors() {
        assert!(parse("").is_err());
        assert!(parse("$ nv show interface swp1 qos roce status\nError: not found\n").is_err());
    }

    crate::lines::parser_never_panics!(parse, SAMPLE);
}
