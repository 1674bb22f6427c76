//! Collection: which commands to run (the catalogue) and running them on every device, in
//! parallel, with the counter window in between. The output is raw evidence; parsing is later.

pub mod catalogue;
mod device;
mod discover;
mod window;

pub use device::{CollectOptions, DeviceTarget, Progress, Reach, collect_all};
pub use discover::{RdmaPort, discover_ports};
pub use window::{Gate, Window};
