//! Cisco NX-OS: the QoS of `show running-config` (MQC policy maps applied through `system qos`
//! and interfaces), read with the indented-CLI machinery shared with EOS.

pub mod convert;
pub mod running_config;
