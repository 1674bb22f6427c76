//! Real outputs read by the facts stage and judged by the checks: tests that need the parsers
//! and the checks together. They live here because `fabcheck-check` cannot reach the parsers
//! (its tests build facts by hand); this crate has both.

mod device;
#[cfg(feature = "lab")]
mod fix_read_back;
mod flows;
mod ib_fabric;
mod switch_port;
mod watchdog;
