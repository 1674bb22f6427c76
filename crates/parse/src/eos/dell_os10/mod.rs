//! Dell OS10: the QoS of `show running-configuration` (WRED profiles, trust and traffic-class
//! maps, network-qos and queuing policy maps, `system qos`), read with the indented-CLI machinery
//! shared with EOS.

pub mod convert;
pub mod running_config;
