//! fabcheck: audits the lossless fabric of GPU clusters (RoCEv2, InfiniBand) over SSH.
pub mod transport;
