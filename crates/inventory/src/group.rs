//! A group of the inventory, as `--limit` and reports see it.

use std::collections::BTreeMap;

use crate::value::VarValue;

/// One inventory group (including the implicit `all` and `ungrouped`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    pub(crate) name: String,
    pub(crate) children: Vec<String>,
    /// Positions in [`crate::Inventory::hosts`]: names again would be 100,000 more strings
    /// for `all` alone.
    pub(crate) hosts: Vec<u32>,
    pub(crate) vars: BTreeMap<String, VarValue>,
}

impl Group {
    /// The group name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The direct child groups, sorted.
    pub fn children(&self) -> &[String] {
        &self.children
    }

    /// Every host in the group, directly or through a child group, in inventory order: their
    /// positions in [`crate::Inventory::hosts`] (see [`crate::Inventory::members`]).
    pub fn host_positions(&self) -> impl Iterator<Item = usize> + '_ {
        self.hosts.iter().map(|&i| i as usize)
    }

    /// The variables set on this group itself (before merging).
    pub fn vars(&self) -> &BTreeMap<String, VarValue> {
        &self.vars
    }
}
