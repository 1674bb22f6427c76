//! `nv show interface IF qos pfc-watchdog` (NVIDIA Cumulus Linux 5.x, NVUE): whether the port's
//! PFC watchdog runs, and per traffic class whether it is in a deadlock (a PFC storm) now and how
//! many it has seen.
//!
//! ```text
//!                  operational  applied
//! ---------------  -----------  -------
//! state            enabled      enabled
//!
//! PFC WD Status
//! ===========================
//!     traffic-class  status    deadlock-count
//!     -------------  --------  --------------
//!
//!     2              DEADLOCK  2
//! ```
//!
//! `status` is `OK` or `DEADLOCK`; `deadlock-count` counts the storms detected since the counters
//! were cleared (Cumulus 5.12's QoS guide). A row whose class or count is not a number is a
//! warning on its line.
use super::roce_status::interface_of;
use super::table;
use crate::lines::{clip, no_facts};
use crate::{ParseResult, ParseWarning, Parsed};
use serde::Serialize;
use std::collections::BTreeMap;

/// The watchdog of one port.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PortWatchdog {
    /// The port, from the echoed prompt line when the capture kept one.
    pub interface: Option<String>,
    /// `state`: `enabled` or `disabled`, as running (else as applied).
    pub state: Option<String>,
    /// Per traffic class.
    pub classes: BTreeMap<u8, ClassWatchdog>,
}

/// One traffic class.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ClassWatchdog {
    /// `DEADLOCK` now.
    pub deadlock: bool,
    /// Deadlocks (storms) detected.
    pub deadlock_count: u64,
}

/// Parses the watchdog output.
///
/// # Errors
/// Empty input, or neither a `state` line nor a `PFC WD Status` row.
pub fn parse(text: &str) -> ParseResult<PortWatchdog> {
    let show = table::read(text);
    let mut warnings = show.warnings.clone();
    let mut value = PortWatchdog {
        interface: show.command.as_deref().and_then(interface_of),
        state: show.fields.iter().find(|f| f.path == "state").map(|f| f.value().to_string()),
        classes: BTreeMap::new(),
    };
    for t in &show.tables {
        if !t.title.to_ascii_lowercase().contains("pfc wd status") {
            warnings.push(ParseWarning::at(t.n, format!("unexpected table `{}`", clip(&t.title, 80))));
            continue;
        }
        for (n, row) in &t.rows {
            let class = t.cell(row, "traffic-class").and_then(|c| c.parse().ok());
            let count = t.cell(row, "deadlock-count").and_then(|c| c.parse().ok());
            match (class, count, t.cell(row, "status")) {
                (Some(class), Some(deadlock_count), Some(status)) => {
                    value.classes.insert(
                        class,
                        ClassWatchdog { deadlock: status.eq_ignore_ascii_case("DEADLOCK"), deadlock_count },
                    );
                }
                _ => warnings
                    .push(ParseWarning::at(*n, format!("watchdog row not understood: `{}`", clip(&row.join(" "), 80)))),
            }
        }
        for (n, note) in &t.notes {
            warnings.push(ParseWarning::at(*n, format!("unexpected line in the watchdog table: `{}`", clip(note, 80))));
        }
    }
    if value.state.is_none() && value.classes.is_empty() {
        return Err(no_facts(
            text,
            "empty `nv show interface IF qos pfc-watchdog` output",
            "no `state` line and no watchdog row: not `nv show interface IF qos pfc-watchdog` output",
        ));
    }
    Ok(Parsed { value, warnings })
}
