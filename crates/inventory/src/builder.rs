//! The inventory as the parsers declare it, before variables are merged.
//!
//! Both format readers (INI and YAML) only call this builder, so group membership, the
//! `children` graph and its cycle check are written once.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::error::{ErrorKind, InventoryError};
use crate::value::VarValue;

/// The implicit group that contains every host.
pub(crate) const ALL: &str = "all";
/// The implicit group of hosts that are in no other group.
pub(crate) const UNGROUPED: &str = "ungrouped";

/// A variable with the line that set it, so validation errors can point at it.
#[derive(Debug, Clone)]
pub(crate) struct Var {
    pub(crate) value: VarValue,
    pub(crate) line: Option<u32>,
}

/// A group as declared: its own hosts, child groups and variables.
#[derive(Debug, Default)]
pub(crate) struct GroupDef {
    /// Direct member hosts, by index into [`Builder::hosts`] (so in inventory order).
    pub(crate) hosts: BTreeSet<usize>,
    pub(crate) children: BTreeSet<String>,
    pub(crate) vars: BTreeMap<String, Var>,
    /// Its `group_vars/` file's variables, which win over every group's inventory-file ones.
    pub(crate) dir_vars: BTreeMap<String, Var>,
}

/// A host as declared: its name, first line and own variables.
#[derive(Debug)]
pub(crate) struct HostDef {
    pub(crate) name: String,
    pub(crate) line: Option<u32>,
    pub(crate) vars: BTreeMap<String, Var>,
}

/// Collects declarations from one inventory file.
#[derive(Debug)]
pub(crate) struct Builder {
    pub(crate) file: String,
    pub(crate) groups: BTreeMap<String, GroupDef>,
    pub(crate) hosts: Vec<HostDef>,
    pub(crate) host_index: HashMap<String, usize>,
}

impl Builder {
    /// A builder for `file` with the implicit groups `all` and `ungrouped`.
    pub(crate) fn new(file: &str) -> Self {
        let mut groups = BTreeMap::new();
        groups.insert(ALL.to_owned(), GroupDef::default());
        groups.insert(UNGROUPED.to_owned(), GroupDef::default());
        Builder { file: file.to_owned(), groups, hosts: Vec::new(), host_index: HashMap::new() }
    }

    /// An error in this builder's file.
    pub(crate) fn error(&self, line: Option<u32>, kind: ErrorKind) -> InventoryError {
        InventoryError::new(&self.file, line, kind)
    }

    /// Declares `group` (a no-op if it exists).
    pub(crate) fn add_group(&mut self, group: &str) {
        self.groups.entry(group.to_owned()).or_default();
    }

    /// Adds host `name` to `group`, declaring both as needed; returns the host's index.
    pub(crate) fn add_host(&mut self, group: &str, name: &str, line: Option<u32>) -> usize {
        let index = match self.host_index.get(name) {
            Some(&index) => index,
            None => {
                self.hosts.push(HostDef { name: name.to_owned(), line, vars: BTreeMap::new() });
                self.host_index.insert(name.to_owned(), self.hosts.len() - 1);
                self.hosts.len() - 1
            }
        };
        self.groups.entry(group.to_owned()).or_default().hosts.insert(index);
        index
    }

    /// Sets a host variable; a later definition of the same host wins, as in Ansible.
    pub(crate) fn set_host_var(&mut self, host: usize, key: &str, value: VarValue, line: Option<u32>) {
        self.hosts[host].vars.insert(key.to_owned(), Var { value, line });
    }

    /// Sets a group variable; a later definition wins.
    pub(crate) fn set_group_var(&mut self, group: &str, key: &str, value: VarValue, line: Option<u32>) {
        self.groups.entry(group.to_owned()).or_default().vars.insert(key.to_owned(), Var { value, line });
    }

    /// Makes `child` a child of `parent`, refusing an edge that would close a loop.
    pub(crate) fn add_child(&mut self, parent: &str, child: &str, line: Option<u32>) -> Result<(), InventoryError> {
        if child == ALL {
            // `all` is everyone's ancestor, so making it a child always closes a loop.
            return Err(self.error(line, ErrorKind::GroupCycle { group: ALL.to_owned() }));
        }
        if parent == child || self.is_descendant(parent, child) {
            return Err(self.error(line, ErrorKind::GroupCycle { group: parent.to_owned() }));
        }
        self.add_group(child);
        self.groups.entry(parent.to_owned()).or_default().children.insert(child.to_owned());
        Ok(())
    }

    /// Whether `group` is reachable from `from` through `children` (iterative, so a deep or
    /// looping graph can neither overflow the stack nor spin).
    fn is_descendant(&self, group: &str, from: &str) -> bool {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from];
        while let Some(g) = todo.pop() {
            if g == group {
                return true;
            }
            if seen.insert(g)
                && let Some(def) = self.groups.get(g)
            {
                todo.extend(def.children.iter().map(String::as_str));
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cycles_are_refused_at_the_edge_that_closes_them() {
        let mut b = Builder::new("t.ini");
        b.add_child("a", "b", Some(1)).unwrap();
        b.add_child("b", "c", Some(2)).unwrap();
        let err = b.add_child("c", "a", Some(3)).unwrap_err();
        assert_eq!(err.to_string(), "t.ini:3: group `c` is its own descendant");
        let err = b.add_child("a", "a", Some(4)).unwrap_err();
        assert_eq!(err.to_string(), "t.ini:4: group `a` is its own descendant");
        let err = b.add_child("a", "all", Some(5)).unwrap_err();
        assert_eq!(err.to_string(), "t.ini:5: group `all` is its own descendant");
    }

    #[test]
    fn hosts_are_unique_and_keep_their_first_line() {
        let mut b = Builder::new("t.ini");
        let first = b.add_host("g1", "h", Some(2));
        let again = b.add_host("g2", "h", Some(9));
        assert_eq!(first, again);
        assert_eq!(b.hosts.len(), 1);
        assert_eq!(b.hosts[0].line, Some(2));
        assert!(b.groups["g2"].hosts.contains(&first));
    }
}
