//! The OpenSSH client configuration (`~/.ssh/config`), read so that fabcheck connects the
//! way `ssh HOST` would: same HostName, User, Port, IdentityFile, ProxyJump, known_hosts
//! files and timeouts.
//!
//! Supported: `Host` blocks with several patterns, `*`/`?` wildcards and `!negation`;
//! `Match all` (other `Match` criteria cannot be evaluated without running commands or
//! resolving names, so their block is skipped with a warning); keywords in any case, as
//! `Key value` or `Key=value`; `Include` (relative to `~/.ssh`, with globs, at most 16 deep);
//! first obtained value wins, except `IdentityFile`, which accumulates.

mod config;
mod include;
mod parse;
mod resolve;

pub use config::{SshConfig, SshConfigWarning};
pub use resolve::SshHostConfig;
