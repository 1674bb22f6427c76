//! One inventory host after variable merging, with the values fabcheck reads already typed
//! and validated.
//!
//! Validation happens once, when the inventory loads, so that a bad NIC name or address
//! stops the run before any SSH connection (exit code 2) and the accessors cannot fail.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::builder::Var;
use crate::error::{ErrorKind, InventoryError};
use crate::names::{is_safe_name, is_usable_host_name, is_valid_address};
use crate::paths::expand_tilde;
use crate::value::VarValue;

/// What a device is in the fabric, from `fabcheck_role`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Role {
    /// A GPU host (the default: design.md says a host without a role is a GPU host).
    #[default]
    Host,
    /// A leaf (top-of-rack) switch.
    Leaf,
    /// A spine switch.
    Spine,
    /// A super-spine switch.
    Superspine,
    /// A flow collector: a read-only command on it (`fabcheck_flows_command`) prints
    /// `rdma-flow-record/1` JSON Lines.
    Collector,
}

impl Role {
    /// The role as written in the inventory.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Host => "host",
            Role::Leaf => "leaf",
            Role::Spine => "spine",
            Role::Superspine => "superspine",
            Role::Collector => "collector",
        }
    }

    /// Whether the device is a switch (leaf, spine, super-spine).
    pub fn is_switch(self) -> bool {
        matches!(self, Role::Leaf | Role::Spine | Role::Superspine)
    }

    /// Reads a role, ignoring ASCII case.
    fn parse(s: &str) -> Option<Role> {
        [Role::Host, Role::Leaf, Role::Spine, Role::Superspine, Role::Collector]
            .into_iter()
            .find(|r| r.as_str().eq_ignore_ascii_case(s))
    }
}

/// Ansible's other names for the connection variables fabcheck reads: `ansible_ssh_host`,
/// `ansible_ssh_port`, `ansible_ssh_user` (Ansible before 2.0, still accepted) and
/// `ansible_private_key_file`.
const ALIASES: [(&str, &str); 4] = [
    ("ansible_ssh_host", "ansible_host"),
    ("ansible_ssh_port", "ansible_port"),
    ("ansible_ssh_user", "ansible_user"),
    ("ansible_private_key_file", "ansible_ssh_private_key_file"),
];

/// The name fabcheck reads a variable under: an alias is the same variable as its name, so
/// whichever is set last in Ansible's precedence wins, whatever it is spelled.
pub(crate) fn canonical_var(name: &str) -> &str {
    ALIASES.iter().find(|(alias, _)| *alias == name).map_or(name, |(_, canonical)| canonical)
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One inventory host, with its variables merged as Ansible merges them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Host {
    name: String,
    groups: Vec<String>,
    vars: BTreeMap<String, VarValue>,
    line: Option<u32>,
    address: String,
    port: Option<u16>,
    user: Option<String>,
    key_file: Option<PathBuf>,
    role: Role,
    platform: String,
    nics: Vec<String>,
    gpus: Option<u32>,
}

impl Host {
    /// The inventory name (the Ansible "alias").
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Every group the host belongs to, directly or through `children`, sorted; `all` is left
    /// out and `ungrouped` is present when it applies (Ansible's `group_names`).
    pub fn groups(&self) -> &[String] {
        &self.groups
    }

    /// Whether the host is in `group` (`all` included).
    pub fn in_group(&self, group: &str) -> bool {
        group == crate::builder::ALL || self.groups.binary_search_by(|g| g.as_str().cmp(group)).is_ok()
    }

    /// All variables after merging (all < parent groups < child groups < host).
    pub fn vars(&self) -> &BTreeMap<String, VarValue> {
        &self.vars
    }

    /// One merged variable.
    pub fn var(&self, key: &str) -> Option<&VarValue> {
        self.vars.get(key)
    }

    /// The line of the inventory file where the host is first declared, when known.
    pub fn line(&self) -> Option<u32> {
        self.line
    }

    /// Where to connect: `ansible_host`, or the name; a validated host name or IP literal.
    pub fn address(&self) -> &str {
        &self.address
    }

    /// `ansible_port` (or `name:port`); `None` leaves it to ~/.ssh/config, then 22.
    pub fn port(&self) -> Option<u16> {
        self.port
    }

    /// `ansible_user`; `None` leaves it to ~/.ssh/config, then the local user.
    pub fn user(&self) -> Option<&str> {
        self.user.as_deref()
    }

    /// `ansible_ssh_private_key_file`, with a leading `~` expanded from `$HOME`.
    pub fn key_file(&self) -> Option<&Path> {
        self.key_file.as_deref()
    }

    /// `fabcheck_role`, [`Role::Host`] when absent.
    pub fn role(&self) -> Role {
        self.role
    }

    /// `fabcheck_platform` (`linux`, `sonic`, `eos`, `nvue`, ...), `linux` when absent.
    pub fn platform(&self) -> &str {
        &self.platform
    }

    /// `fabcheck_nics`: the interfaces or HCAs to audit, empty when they are to be
    /// discovered. Each is a [`crate::is_safe_name`].
    pub fn nics(&self) -> Vec<String> {
        self.nics.clone()
    }

    /// `fabcheck_gpus`: how many GPUs the host should have, when the inventory says.
    pub fn gpus(&self) -> Option<u32> {
        self.gpus
    }

    /// Builds a host from its merged variables, validating the ones fabcheck reads.
    pub(crate) fn new(
        name: &str,
        groups: Vec<String>,
        merged: BTreeMap<String, Var>,
        line: Option<u32>,
        file: &str,
        home: Option<&Path>,
    ) -> Result<Host, InventoryError> {
        let reader = Reader { host: name, vars: &merged, file, line };
        if !is_usable_host_name(name) {
            return Err(reader.error(None, ErrorKind::InvalidHostName { host: name.to_owned() }));
        }
        let address = reader.address()?;
        let port = reader.port()?;
        let user = reader.user()?;
        let key_file = reader.string("ansible_ssh_private_key_file", "a file path")?.map(|p| expand_tilde(&p, home));
        let role = reader.role()?;
        let platform = reader.platform()?;
        let nics = reader.nics()?;
        let gpus = reader.gpus()?;
        Ok(Host {
            name: name.to_owned(),
            groups,
            vars: merged.into_iter().map(|(k, v)| (k, v.value)).collect(),
            line,
            address,
            port,
            user,
            key_file,
            role,
            platform,
            nics,
            gpus,
        })
    }
}

/// Reads typed values out of one host's merged variables.
struct Reader<'a> {
    host: &'a str,
    vars: &'a BTreeMap<String, Var>,
    file: &'a str,
    /// The host's own line, for values that do not come from a variable (its name).
    line: Option<u32>,
}

impl Reader<'_> {
    /// An error pointing at the line that set `key` (or the host's line).
    fn error(&self, key: Option<&str>, kind: ErrorKind) -> InventoryError {
        let line = key.and_then(|k| self.vars.get(k)).and_then(|v| v.line).or(self.line);
        InventoryError::new(self.file, line, kind)
    }

    fn invalid(&self, var: &'static str, value: &VarValue, expected: &'static str) -> InventoryError {
        self.error(
            Some(var),
            ErrorKind::InvalidVar { host: self.host.to_owned(), var, value: value.to_string(), expected },
        )
    }

    /// A scalar variable as text (numbers are accepted: `ansible_user: 1000`).
    fn string(&self, var: &'static str, expected: &'static str) -> Result<Option<String>, InventoryError> {
        match self.vars.get(var).map(|v| &v.value) {
            None => Ok(None),
            Some(VarValue::String(s)) if !s.is_empty() => Ok(Some(s.clone())),
            Some(VarValue::Int(i)) => Ok(Some(i.to_string())),
            Some(other) => Err(self.invalid(var, other, expected)),
        }
    }

    fn address(&self) -> Result<String, InventoryError> {
        let (key, address) = match self.string("ansible_host", "a host name or address")? {
            Some(a) => (Some("ansible_host"), a),
            None => (None, self.host.to_owned()),
        };
        if is_valid_address(&address) {
            Ok(address)
        } else {
            Err(self.error(key, ErrorKind::InvalidAddress { host: self.host.to_owned(), value: address }))
        }
    }

    fn port(&self) -> Result<Option<u16>, InventoryError> {
        let Some(value) = self.vars.get("ansible_port").map(|v| &v.value) else {
            return Ok(None);
        };
        let port = match value {
            VarValue::Int(i) => u16::try_from(*i).ok(),
            VarValue::String(s) => s.trim().parse::<u16>().ok(),
            _ => None,
        };
        match port {
            Some(p) if p > 0 => Ok(Some(p)),
            _ => Err(self.error(
                Some("ansible_port"),
                ErrorKind::InvalidPort { host: self.host.to_owned(), value: value.to_string() },
            )),
        }
    }

    /// `ansible_user`, which reaches SSH as the login name: no whitespace, no control
    /// characters, no leading `-`.
    fn user(&self) -> Result<Option<String>, InventoryError> {
        let user = self.string("ansible_user", "a user name")?;
        match &user {
            Some(u) if u.starts_with('-') || u.chars().any(|c| c.is_whitespace() || c.is_control()) => {
                Err(self.invalid("ansible_user", &VarValue::String(u.clone()), "a user name"))
            }
            _ => Ok(user),
        }
    }

    /// `fabcheck_platform`, which picks the command catalogue and may name evidence
    /// directories: a safe name, default `linux`.
    fn platform(&self) -> Result<String, InventoryError> {
        match self.string("fabcheck_platform", "a platform name")? {
            None => Ok("linux".to_owned()),
            Some(p) if is_safe_name(&p) => Ok(p),
            Some(p) => Err(self.invalid("fabcheck_platform", &VarValue::String(p), "a platform name")),
        }
    }

    fn role(&self) -> Result<Role, InventoryError> {
        let Some(value) = self.vars.get("fabcheck_role").map(|v| &v.value) else {
            return Ok(Role::Host);
        };
        value.as_str().and_then(Role::parse).ok_or_else(|| {
            self.error(
                Some("fabcheck_role"),
                ErrorKind::UnknownRole { host: self.host.to_owned(), value: value.to_string() },
            )
        })
    }

    /// `fabcheck_nics` as a list, a comma-separated string, or a bracketed `[a,b]` string
    /// (what an unquoted INI list becomes once shlex has removed its quotes).
    fn nics(&self) -> Result<Vec<String>, InventoryError> {
        let Some(value) = self.vars.get("fabcheck_nics").map(|v| &v.value) else {
            return Ok(Vec::new());
        };
        let entries: Vec<String> = match value {
            VarValue::List(items) => items.iter().map(VarValue::to_string).collect(),
            VarValue::String(s) => {
                let inner = s.trim().strip_prefix('[').and_then(|s| s.strip_suffix(']')).unwrap_or(s);
                inner.split(',').map(str::trim).filter(|n| !n.is_empty()).map(str::to_owned).collect()
            }
            other => vec![other.to_string()],
        };
        match entries.iter().find(|n| !is_safe_name(n)) {
            Some(bad) => Err(self.error(
                Some("fabcheck_nics"),
                ErrorKind::InvalidNic { host: self.host.to_owned(), value: bad.clone() },
            )),
            None => Ok(entries),
        }
    }

    fn gpus(&self) -> Result<Option<u32>, InventoryError> {
        let Some(value) = self.vars.get("fabcheck_gpus").map(|v| &v.value) else {
            return Ok(None);
        };
        let count = match value {
            VarValue::Int(i) => u32::try_from(*i).ok(),
            VarValue::String(s) => s.trim().parse::<u32>().ok(),
            _ => None,
        };
        count.map(Some).ok_or_else(|| self.invalid("fabcheck_gpus", value, "a GPU count"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(vars: &[(&str, VarValue)]) -> Result<Host, InventoryError> {
        let merged = vars
            .iter()
            .enumerate()
            .map(|(i, (k, v))| {
                let line = Some(u32::try_from(i).unwrap() + 10);
                ((*k).to_owned(), Var { value: v.clone(), line })
            })
            .collect();
        Host::new("gpu01", vec![], merged, Some(1), "inv.ini", Some(Path::new("/home/op")))
    }

    #[test]
    fn defaults() {
        let h = host(&[]).unwrap();
        assert_eq!(h.address(), "gpu01");
        assert_eq!(h.port(), None);
        assert_eq!(h.user(), None);
        assert_eq!(h.key_file(), None);
        assert_eq!(h.role(), Role::Host);
        assert_eq!(h.platform(), "linux");
        assert!(h.nics().is_empty());
        assert_eq!(h.gpus(), None);
    }

    #[test]
    fn typed_values() {
        let h = host(&[
            ("ansible_host", "10.0.0.1".into()),
            ("ansible_port", VarValue::Int(2222)),
            ("ansible_user", "ops".into()),
            ("ansible_ssh_private_key_file", "~/.ssh/lab".into()),
            ("fabcheck_role", "Leaf".into()),
            ("fabcheck_platform", "sonic".into()),
            ("fabcheck_nics", "mlx5_0, mlx5_1".into()),
            ("fabcheck_gpus", "8".into()),
        ])
        .unwrap();
        assert_eq!(h.address(), "10.0.0.1");
        assert_eq!(h.port(), Some(2222));
        assert_eq!(h.user(), Some("ops"));
        assert_eq!(h.key_file(), Some(Path::new("/home/op/.ssh/lab")));
        assert_eq!(h.role(), Role::Leaf);
        assert!(h.role().is_switch());
        assert_eq!(h.platform(), "sonic");
        assert_eq!(h.nics(), ["mlx5_0", "mlx5_1"]);
        assert_eq!(h.gpus(), Some(8));
        let listed = host(&[("fabcheck_nics", VarValue::List(vec!["mlx5_0".into()]))]).unwrap();
        assert_eq!(listed.nics(), ["mlx5_0"]);
        let bracketed = host(&[("fabcheck_nics", "[mlx5_0,mlx5_1]".into())]).unwrap();
        assert_eq!(bracketed.nics(), ["mlx5_0", "mlx5_1"]);
    }

    #[test]
    fn bad_values_name_host_value_and_line() {
        let cases: [(&str, VarValue, &str); 10] = [
            (
                "fabcheck_platform",
                "sonic os".into(),
                "inv.ini:10: host `gpu01`: fabcheck_platform `sonic os` is not a platform name",
            ),
            (
                "fabcheck_nics",
                "mlx5_0;reboot".into(),
                "inv.ini:10: host `gpu01`: fabcheck_nics entry `mlx5_0;reboot` is not a valid interface or HCA name (letters, digits, `_.:-`, at most 32)",
            ),
            (
                "fabcheck_nics",
                "mlx5_0 mlx5_1".into(),
                "inv.ini:10: host `gpu01`: fabcheck_nics entry `mlx5_0 mlx5_1` is not a valid interface or HCA name (letters, digits, `_.:-`, at most 32)",
            ),
            (
                "ansible_host",
                "$(reboot)".into(),
                "inv.ini:10: host `gpu01`: address `$(reboot)` is not a host name, IPv4 or IPv6 address",
            ),
            (
                "ansible_host",
                "-oProxyCommand=x".into(),
                "inv.ini:10: host `gpu01`: address `-oProxyCommand=x` is not a host name, IPv4 or IPv6 address",
            ),
            (
                "ansible_port",
                VarValue::Int(70000),
                "inv.ini:10: host `gpu01`: ansible_port `70000` is not a port number (1-65535)",
            ),
            ("ansible_port", "0".into(), "inv.ini:10: host `gpu01`: ansible_port `0` is not a port number (1-65535)"),
            (
                "fabcheck_role",
                "lief".into(),
                "inv.ini:10: host `gpu01`: unknown fabcheck_role `lief` (expected host, leaf, spine, superspine or collector)",
            ),
            ("fabcheck_gpus", "eight".into(), "inv.ini:10: host `gpu01`: fabcheck_gpus `eight` is not a GPU count"),
            ("ansible_user", "a b".into(), "inv.ini:10: host `gpu01`: ansible_user `a b` is not a user name"),
        ];
        for (key, value, want) in cases {
            assert_eq!(host(&[(key, value)]).unwrap_err().to_string(), want);
        }
    }
}
