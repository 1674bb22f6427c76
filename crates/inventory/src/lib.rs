//! fabcheck's inventory: which devices to audit and how to reach them.
//!
//! fabcheck reads Ansible inventories as they are, so an operator's existing inventory (or
//! the one in `inventories/`) drives it unchanged:
//!
//! - [`Inventory::load`] reads the INI or YAML format (groups, `children`, group and host
//!   vars, host ranges like `gpu[01:16]`), merges variables onto each [`Host`] with
//!   Ansible's precedence (`all` < parent group < child group < host; siblings at the same
//!   depth alphabetically, later wins) and validates what fabcheck uses: `ansible_host`
//!   (host name or IP literal), `ansible_port` (1-65535), `fabcheck_role` ([`Role`]),
//!   `fabcheck_nics` (each a [`is_safe_name`], since fabcheck builds remote commands from
//!   them) and `fabcheck_gpus`.
//! - [`Inventory::select`] evaluates an Ansible `--limit` pattern.
//! - [`SshConfig`] reads `~/.ssh/config` so connections behave like `ssh HOST`.
//! - [`Host::ssh_target`] combines the two into an [`SshTarget`].
//!
//! Every failure is an [`InventoryError`] whose `Display` is one line naming the file and
//! line, e.g. `inventories/bad.ini:7: unterminated quote in host line`; the CLI maps it to
//! exit code 2.
//!
//! # Connection precedence
//!
//! For each setting fabcheck takes the first that is set of:
//!
//! 1. the inventory's `ansible_*` variables (`ansible_port`, `ansible_user`,
//!    `ansible_ssh_private_key_file`, whose key is tried before ssh_config's);
//! 2. `~/.ssh/config`, looked up by the host's address (`ansible_host`, else its inventory
//!    name), exactly as Ansible's ssh connection does; its `HostName` maps that address;
//! 3. defaults: port 22, user `$USER`.
//!
//! `ProxyJump`, `UserKnownHostsFile`, `GlobalKnownHostsFile`, `StrictHostKeyChecking` and
//! `ConnectTimeout` have no inventory variable here and come from ~/.ssh/config only.
//!
//! # Example
//!
//! ```
//! use fabcheck_inventory::{Inventory, Role, SshConfig};
//!
//! let inventory = Inventory::parse_ini(
//!     "[gpus]\n\
//!      gpu[01:02] ansible_host=127.0.0.1 fabcheck_nics=mlx5_0,mlx5_1\n\
//!      [leaves]\n\
//!      leaf1 ansible_host=127.0.0.3 fabcheck_role=leaf fabcheck_platform=sonic\n\
//!      [all:vars]\n\
//!      ansible_user=ops\n",
//!     "lab.ini",
//! )?;
//! let gpu01 = inventory.host("gpu01").unwrap();
//! assert_eq!(gpu01.nics(), ["mlx5_0", "mlx5_1"]);
//! assert_eq!(gpu01.user(), Some("ops"));
//!
//! let switches = inventory.select("all:!gpus")?;
//! assert_eq!(switches.len(), 1);
//! assert_eq!(switches[0].role(), Role::Leaf);
//!
//! let ssh = SshConfig::parse("Host 127.0.0.1\n  Port 2222\n", "config")?;
//! let target = gpu01.ssh_target(&ssh);
//! assert_eq!((target.port, target.user.as_str()), (2222, "ops"));
//! # Ok::<(), fabcheck_inventory::InventoryError>(())
//! ```
#![deny(missing_docs)]

mod builder;
mod error;
mod group;
mod host;
pub mod hostlist;
mod hostpattern;
mod ini;
mod ini_value;
mod inventory;
mod limit;
mod listing;
mod names;
mod paths;
mod resolve;
mod shlex;
pub mod ssh_config;
mod target;
mod value;
mod vars_dirs;
mod yaml;

pub use error::{ErrorKind, InventoryError};
pub use group::Group;
pub use host::{Host, Role};
pub use inventory::Inventory;
pub use listing::to_json as ansible_listing;
pub use names::{MAX_HOST_NAME_BYTES, is_safe_name, is_usable_host_name, wildcard_match};
pub use ssh_config::{SshConfig, SshConfigWarning, SshHostConfig};
pub use target::SshTarget;
pub use value::VarValue;
