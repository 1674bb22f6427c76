//! The OpenSSH client configuration (`~/.ssh/config`), read so that fabcheck connects the
//! way `ssh HOST` would: same HostName, User, Port, IdentityFile, ProxyJump, known_hosts
//! files, timeouts and algorithm lists.
//!
//! Supported: `Host` blocks with several patterns, `*`/`?` wildcards and `!negation`;
//! `Match all` (other `Match` criteria cannot be evaluated without running commands or
//! resolving names, so their block is skipped with a warning); keywords in any case, as
//! `Key value` or `Key=value`; `Include` (relative to `~/.ssh`, with globs, at most 16 deep);
//! first obtained value wins, except `IdentityFile`, which accumulates. `StrictHostKeyChecking`,
//! `RevokedHostKeys` and `KnownHostsCommand` are kept with their line, so that what fabcheck
//! does not honour, a revocation file it cannot read or a command that fails is said at its line. `KexAlgorithms`, `Ciphers`, `MACs` and `HostKeyAlgorithms` are kept as written,
//! with their file and line, for the SSH client to apply (see [`assemble`]).

mod algorithms;
mod command;
mod config;
mod host_keys;
mod include;
mod parse;
mod resolve;
mod tokens;

pub use algorithms::{AlgorithmKind, AlgorithmSetting, Assembled, LeftOut, assemble};
pub use command::KnownHostsCommand;
pub use config::{SshConfig, SshConfigWarning};
pub use host_keys::{ConfigLine, HostKeyChecking, HostKeySettings, RevokedHostKeys, StrictHostKeyChecking};
pub use resolve::{Given, JumpHop, SshHostConfig};
