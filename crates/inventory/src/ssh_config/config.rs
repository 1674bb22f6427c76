//! Loading an ssh_config and the warnings loading it produced.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::error::{ErrorKind, InventoryError};
use crate::paths::{home_dir, local_host, local_uid, local_user};

use super::parse::{Context, Item, parse};
use super::resolve::{Given, Local, SshHostConfig, resolve};

/// A parsed OpenSSH client configuration, ready to [`resolve`](SshConfig::resolve) hosts.
#[derive(Debug, Clone, Default)]
pub struct SshConfig {
    items: Vec<Item>,
    warnings: Vec<SshConfigWarning>,
    home: Option<PathBuf>,
    local_user: Option<String>,
    /// This machine's name and the user ID, for `%l`, `%L`, `%i` and `%C`.
    local_host: Option<String>,
    local_uid: Option<String>,
}

/// Something in an ssh_config that fabcheck ignores and the user should know about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SshConfigWarning {
    /// The file.
    pub file: String,
    /// The 1-based line.
    pub line: u32,
    /// What is ignored and why.
    pub message: String,
}

impl fmt::Display for SshConfigWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

impl SshConfig {
    /// Reads `$HOME/.ssh/config`; an absent file (or unset `$HOME`) is an empty config.
    ///
    /// # Errors
    ///
    /// An unreadable file or a malformed line, naming the file and line.
    pub fn load_default() -> Result<SshConfig, InventoryError> {
        let home = home_dir();
        let Some(path) = home.as_ref().map(|h| h.join(".ssh").join("config")) else {
            return Ok(SshConfig::empty(None));
        };
        match std::fs::read_to_string(&path) {
            Ok(text) => SshConfig::parse_in(&text, &path.display().to_string(), home),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(SshConfig::empty(home)),
            Err(error) => Err(read_error(&path, error)),
        }
    }

    /// Reads the config file at `path` (includes relative to `$HOME/.ssh`).
    ///
    /// # Errors
    ///
    /// A missing or unreadable file, or a malformed line, naming the file and line.
    pub fn load(path: &Path) -> Result<SshConfig, InventoryError> {
        let text = std::fs::read_to_string(path).map_err(|error| read_error(path, error))?;
        SshConfig::parse_in(&text, &path.display().to_string(), home_dir())
    }

    /// Parses config text; `file_name` is used in errors and warnings.
    ///
    /// # Errors
    ///
    /// A malformed line or unreadable include, naming the file and line.
    pub fn parse(text: &str, file_name: &str) -> Result<SshConfig, InventoryError> {
        SshConfig::parse_in(text, file_name, home_dir())
    }

    /// Parses config text with `home` as the home directory (for `~` and relative
    /// `Include`s) instead of `$HOME`: for tests and for callers that must not depend on
    /// the environment.
    ///
    /// # Errors
    ///
    /// As for [`SshConfig::parse`].
    pub fn parse_with_home(text: &str, file_name: &str, home: &Path) -> Result<SshConfig, InventoryError> {
        SshConfig::parse_in(text, file_name, Some(home.to_path_buf()))
    }

    /// The same config with `user` as the local user (`%u`, and `%r` and the default login
    /// when no `User` applies) instead of `$USER`.
    pub fn with_local_user(mut self, user: &str) -> SshConfig {
        self.local_user = Some(user.to_owned());
        self
    }

    /// The local user name used for `%u` and as the default login (`$USER` unless set).
    pub fn local_user(&self) -> Option<&str> {
        self.local_user.as_deref()
    }

    /// What was ignored while loading (unsupported `Match` blocks, unusable `Include`s).
    pub fn warnings(&self) -> &[SshConfigWarning] {
        &self.warnings
    }

    /// The settings that apply to `alias` (the name given to ssh: for an inventory host, its
    /// [`address`](crate::Host::address)), as `ssh -G alias` would compute them for the
    /// keywords fabcheck uses.
    pub fn resolve(&self, alias: &str) -> SshHostConfig {
        self.resolve_given(alias, Given::default())
    }

    /// [`resolve`](SshConfig::resolve), with the user, port and jump host ssh is given over
    /// ssh_config, as its `%r`, `%p`, `%j` and `%C` tokens (file names, `KnownHostsCommand`).
    pub fn resolve_given(&self, alias: &str, given: Given<'_>) -> SshHostConfig {
        let local = Local {
            home: self.home.as_deref(),
            user: self.local_user.as_deref(),
            host: self.local_host.as_deref(),
            uid: self.local_uid.as_deref(),
            // A value that is not UTF-8 counts as unset: refused, never turned into another path.
            env: &|name| std::env::var(name).ok(),
        };
        resolve(&self.items, alias, &local, given)
    }

    fn empty(home: Option<PathBuf>) -> SshConfig {
        SshConfig {
            home,
            local_user: local_user(),
            local_host: local_host(),
            local_uid: local_uid(),
            ..SshConfig::default()
        }
    }

    fn parse_in(text: &str, file_name: &str, home: Option<PathBuf>) -> Result<SshConfig, InventoryError> {
        let mut warnings = Vec::new();
        let mut cx = Context { home: home.as_deref(), warnings: &mut warnings };
        let items = parse(text, file_name, 0, &mut cx)?;
        Ok(SshConfig {
            items,
            warnings,
            home,
            local_user: local_user(),
            local_host: local_host(),
            local_uid: local_uid(),
        })
    }
}

fn read_error(path: &Path, error: std::io::Error) -> InventoryError {
    InventoryError::new(&path.display().to_string(), None, ErrorKind::Read { what: "ssh_config", error })
}
