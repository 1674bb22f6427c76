//! sFlow v5 input: real sFlow captures read as tshark reads them, real RoCEv2 frames wrapped into
//! sFlow samples and counted as estimates at their agent, and datagrams mutated every way never
//! making the reader panic.
mod build;
#[path = "../common/mod.rs"]
mod common;
mod fixtures;
mod fuzz;
mod roce;
mod tshark;
