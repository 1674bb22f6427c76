//! The loaded inventory: hosts in inventory order, groups, and format detection.

use std::collections::HashMap;
use std::path::Path;

use crate::error::{ErrorKind, InventoryError};
use crate::group::Group;
use crate::host::Host;
use crate::paths::home_dir;
use crate::{ini, limit, listing, resolve, vars_dirs, yaml};

/// An Ansible inventory (INI or YAML), with variables merged onto each host and the values
/// fabcheck reads validated.
#[derive(Debug, Clone)]
pub struct Inventory {
    file: String,
    hosts: Vec<Host>,
    groups: Vec<Group>,
    host_index: HashMap<String, usize>,
    group_index: HashMap<String, usize>,
}

impl Inventory {
    /// Reads an inventory file, choosing the format as Ansible would for fabcheck's purposes:
    /// `.yml`, `.yaml` and `.json` are YAML, and so is any file whose first meaningful line
    /// is a YAML mapping key (`all:`), a `---` document start or a `{`; everything else is INI.
    ///
    /// # Errors
    ///
    /// An unreadable file, a syntax error, or a value fabcheck cannot use safely (see
    /// [`ErrorKind`]); the error names the file and, when it applies, the line.
    pub fn load(path: &Path) -> Result<Inventory, InventoryError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|error| InventoryError::new(&file, None, ErrorKind::Read { what: "inventory", error }))?;
        let mut b = if listing::is_listing(&text) {
            listing::parse(&text, &file)?
        } else if looks_like_yaml(&text, &file) {
            yaml::parse(&text, &file)?
        } else {
            ini::parse(&text, &file)?
        };
        // `group_vars/` and `host_vars/` beside the file, as Ansible reads them.
        vars_dirs::load(&mut b, path.parent().unwrap_or(Path::new(".")))?;
        resolve::finish(b, home_dir().as_deref())
    }

    /// Parses inventory text, detecting the format from `file_name` and the content as
    /// [`Inventory::load`] does.
    ///
    /// # Errors
    ///
    /// As for [`Inventory::load`].
    pub fn parse(text: &str, file_name: &str) -> Result<Inventory, InventoryError> {
        if listing::is_listing(text) {
            resolve::finish(listing::parse(text, file_name)?, home_dir().as_deref())
        } else if looks_like_yaml(text, file_name) {
            Inventory::parse_yaml(text, file_name)
        } else {
            Inventory::parse_ini(text, file_name)
        }
    }

    /// Parses an INI inventory; `file_name` is only used in errors.
    ///
    /// # Errors
    ///
    /// As for [`Inventory::load`].
    pub fn parse_ini(text: &str, file_name: &str) -> Result<Inventory, InventoryError> {
        resolve::finish(ini::parse(text, file_name)?, home_dir().as_deref())
    }

    /// Parses a YAML inventory; `file_name` is only used in errors.
    ///
    /// # Errors
    ///
    /// As for [`Inventory::load`].
    pub fn parse_yaml(text: &str, file_name: &str) -> Result<Inventory, InventoryError> {
        resolve::finish(yaml::parse(text, file_name)?, home_dir().as_deref())
    }

    pub(crate) fn from_parts(file: String, hosts: Vec<Host>, groups: Vec<Group>) -> Self {
        let host_index = hosts.iter().enumerate().map(|(i, h)| (h.name().to_owned(), i)).collect();
        let group_index = groups.iter().enumerate().map(|(i, g)| (g.name().to_owned(), i)).collect();
        Inventory { file, hosts, groups, host_index, group_index }
    }

    /// The file name the inventory was read from (as given), used in errors.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// Every host, in the order the inventory first declares them.
    pub fn hosts(&self) -> &[Host] {
        &self.hosts
    }

    /// The host with this inventory name.
    pub fn host(&self, name: &str) -> Option<&Host> {
        self.host_index.get(name).map(|&i| &self.hosts[i])
    }

    /// Every group, `all` and `ungrouped` included, sorted by name.
    pub fn groups(&self) -> &[Group] {
        &self.groups
    }

    /// The group with this name.
    pub fn group(&self, name: &str) -> Option<&Group> {
        self.group_index.get(name).map(|&i| &self.groups[i])
    }

    /// The names of the hosts in `group`, directly or through a child group, in inventory
    /// order; `None` when there is no such group.
    pub fn members(&self, group: &str) -> Option<Vec<&str>> {
        let group = self.group(group)?;
        Some(group.host_positions().map(|i| self.hosts[i].name()).collect())
    }

    /// The hosts an Ansible `--limit` pattern selects, in inventory order.
    ///
    /// Terms are separated by `,` (or by `:` when the pattern has no comma); each is `all`,
    /// `*`, a host or group name, a glob with `*` and `?`, or a regex after `~`. A term
    /// prefixed with `&` intersects and one prefixed with `!` excludes; as in Ansible, unions
    /// apply first, then intersections, then exclusions, whatever their order in the pattern
    /// (and a pattern of only `&`/`!` terms starts from `all`).
    ///
    /// With `:` as the separator, `:` inside `[...]` does not separate, and a pattern that is
    /// a whole IPv6 address is one term; use `,` to combine IPv6 addresses or regexes that
    /// contain `:`. A term may end with Ansible's subscript (`webservers[0]`, `[-1]`,
    /// `[0:2]` inclusive, `[2:]`).
    ///
    /// # Errors
    ///
    /// A term that matches no host or group (most likely a typo), a result with no host,
    /// or a bad regex.
    pub fn select(&self, pattern: &str) -> Result<Vec<&Host>, InventoryError> {
        limit::select(self, pattern)
    }

    /// The `ansible_*` variables set on `hosts` that fabcheck does not use (`ansible_become`,
    /// `ansible_password`, `ansible_ssh_common_args`...), each with how many of the hosts have
    /// it, sorted by name: an operator should know that fabcheck connects with the host,
    /// port, user and key alone and never escalates.
    pub fn ignored_ansible_vars(hosts: &[&Host]) -> Vec<(String, usize)> {
        let mut ignored: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
        for host in hosts {
            for name in
                host.vars().keys().filter(|k| k.starts_with("ansible_") && !USED_ANSIBLE_VARS.contains(&k.as_str()))
            {
                *ignored.entry(name.clone()).or_default() += 1;
            }
        }
        ignored.into_iter().collect()
    }
}

/// The `ansible_*` variables fabcheck reads (aliases are stored under these names), and the
/// ones that are not about connecting.
const USED_ANSIBLE_VARS: &[&str] = &[
    "ansible_host",
    "ansible_port",
    "ansible_user",
    "ansible_ssh_private_key_file",
    "ansible_group_priority",
    "ansible_python_interpreter",
];

/// Whether text should be read as YAML: by extension, else by its first meaningful line.
fn looks_like_yaml(text: &str, file_name: &str) -> bool {
    let ext = Path::new(file_name).extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    if matches!(ext.as_deref(), Some("yml" | "yaml" | "json")) {
        return true;
    }
    let Some(first) = text
        .lines()
        .map(|l| l.trim_start_matches('\u{feff}').trim())
        .find(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with(';'))
    else {
        return false;
    };
    if first.starts_with("---") || first.starts_with('{') {
        return true;
    }
    // A mapping key: `all:` or `gpus: {hosts: ...}`. INI host lines never have `: ` or a
    // trailing `:` (Ansible rejects the latter), and sections start with `[`.
    !first.starts_with('[')
        && first.split_once(':').is_some_and(|(key, rest)| {
            !key.is_empty() && !key.contains([' ', '\t', '=']) && (rest.is_empty() || rest.starts_with([' ', '\t']))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_detection() {
        assert!(looks_like_yaml("", "inv.yml"));
        assert!(looks_like_yaml("", "inv.YAML"));
        assert!(looks_like_yaml("# c\nall:\n  hosts:\n", "hosts"));
        assert!(looks_like_yaml("---\nall: {}\n", "hosts"));
        assert!(looks_like_yaml("gpus: {hosts: {a: }}\n", "hosts"));
        assert!(!looks_like_yaml("[gpus]\ngpu01\n", "hosts"));
        assert!(!looks_like_yaml("gpu01 ansible_host=10.0.0.1\n", "hosts.ini"));
        assert!(!looks_like_yaml("gpu01:2222 a=b\n", "hosts"));
        assert!(!looks_like_yaml("fe80::1\n", "hosts"));
        assert!(!looks_like_yaml("", "hosts"));
    }
}
