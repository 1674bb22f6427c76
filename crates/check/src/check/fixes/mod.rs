//! What restores the policy where a finding is, in the device's own syntax, computed from the
//! policy and what was found. fabcheck prints these under the finding's incident and never runs
//! them: it stays read-only, and an operator reviews a change before it reaches a device.
//!
//! - [`host`]: a GPU host's tools (`mlnx_qos`, the DCQCN sysfs files, `ip link`, `modprobe`);
//! - [`switch`]: a switch port's, in the syntax of the platform it runs (SONiC, Arista EOS,
//!   NVIDIA Cumulus/NVUE, Cisco NX-OS, Dell OS10). What must change is worked out once,
//!   vendor-neutral ([`switch::change`]); each platform's module only writes it down.
//!
//! Where no command restores the policy (a link trained down, a name the facts do not give),
//! the fix says what to inspect instead; where even that would be a guess, there is no fix.

mod host;
pub mod switch;

pub use host::attach;
pub use switch::attach_switch;
