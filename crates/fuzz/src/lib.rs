//! In-process fuzzing of every reader of outside input, on stable Rust: `fabcheck-fuzz` runs
//! millions of mutated real outputs per minute through the parsers, the inventory, policy and
//! snapshot readers, the facts stage and the flow readers, one process for all of them.
//!
//! Without compiler instrumentation (cargo-fuzz needs nightly), the campaign is guided by what
//! each input made the reader return ([`shape`]): an input whose facts, warnings or error have
//! a shape never seen joins the corpus. Inputs are made by the edits real outputs differ by
//! ([`mutate`]).
pub mod campaign;
pub mod mutate;
pub mod seeds;
pub mod shape;
pub mod targets;
