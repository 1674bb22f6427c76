//! Collection: running each platform's commands ([`crate::platform`]) on every device, in
//! parallel, with the counter window in between. The output is raw evidence; reading it into
//! facts is the next stage ([`crate::facts`]).

mod bundle;
mod commands;
mod connections;
mod device;
mod timeout;
mod window;

pub use device::{CollectOptions, DeviceTarget, Progress, Reach, collect_all};
pub use timeout::{TIMED_OUT_STATUS, stopped_on_host, unbounded};
pub use window::{Gate, Interrupt, Window};
