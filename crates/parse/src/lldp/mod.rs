//! Parsers for LLDP neighbour tables: lldpd on hosts, Cumulus and SONiC (text and JSON), Arista
//! EOS and Cisco NX-OS (table and detail), Dell OS10 (detail), SONiC's `show lldp table`.
//! [`neighbors::parse`] tells the format apart; each format's module parses only its own.

pub mod eos_detail;
pub mod eos_json;
pub mod eos_table;
pub mod lldpcli;
pub mod lldpd_json;
pub mod neighbors;
pub mod nxos_detail;
pub mod nxos_table;
pub mod os10_detail;
pub mod sonic_table;

pub use neighbors::{LldpFormat, LldpNeighbors, parse};

/// The `fabcheck parse` sources of this module.
pub const SOURCES: &[&str] = &["lldp"];

/// Parses `text` as `source` when `source` is one of [`SOURCES`].
pub(crate) fn parse_to_json(source: &str, text: &str) -> Option<crate::ParseResult<serde_json::Value>> {
    (source == "lldp").then(|| crate::to_json(neighbors::parse(text)))
}
