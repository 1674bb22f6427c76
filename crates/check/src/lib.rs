//! fabcheck's judgment, over facts only: the [`policy`] a fabric is held to, the [`check`]s of
//! each device and of the fabric, the [`topology`] its LLDP views give, and the [`correlate`]
//! stage that turns symptoms into incidents with their causes.
//!
//! This crate depends on the data model (`fabcheck-model`) and not on the parsers: every path
//! from text to facts goes through the `fabcheck` crate's facts stage, and the compiler keeps
//! it so (`cargo tree -p fabcheck-check` shows no parser).
pub mod check;
pub mod correlate;
pub mod policy;
pub mod topology;
