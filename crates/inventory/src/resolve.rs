//! From declarations to hosts: implicit groups, group depth and Ansible's variable precedence.
//!
//! Ansible flattens variables onto each host in this order, later winning: the groups the
//! host is in (directly or as a descendant), sorted by depth below `all`, then by
//! `ansible_group_priority` (default 1), then by name; then the host's own variables. So
//! `all` < parent < child < host, and siblings at the same depth merge alphabetically. The
//! `group_vars/` files beside the inventory come after every group's inventory-file vars, in the
//! same group order, and `host_vars/` after the host's (see `vars_dirs`).

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::path::Path;

use crate::builder::{ALL, Builder, UNGROUPED, Var};
use crate::error::{ErrorKind, InventoryError};
use crate::group::Group;
use crate::host::{Host, canonical_var};
use crate::inventory::Inventory;
use crate::value::VarValue;

/// Turns what a parser declared into the final inventory.
pub(crate) fn finish(mut b: Builder, home: Option<&Path>) -> Result<Inventory, InventoryError> {
    attach_orphans_to_all(&mut b)?;
    place_ungrouped(&mut b);
    // Each declaration is consumed as its host is built, so the declarations and the hosts are
    // never both whole in memory (100,000 hosts).
    let defs = std::mem::take(&mut b.hosts);
    let parents = parents_of(&b);
    let depth = depths(&b);
    let mut order: HashMap<&str, (usize, i64)> = HashMap::new();
    for (name, def) in &b.groups {
        order.insert(name, (depth[name.as_str()], priority(&b, name, &def.vars)?));
    }

    let mut direct: Vec<Vec<&str>> = vec![Vec::new(); defs.len()];
    for (name, def) in &b.groups {
        for &h in &def.hosts {
            direct[h].push(name);
        }
    }

    let mut hosts = Vec::with_capacity(defs.len());
    let mut members: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
    for (index, def) in defs.into_iter().enumerate() {
        let groups = ancestors(&direct[index], &parents);
        let mut ranked: Vec<&str> = groups.iter().copied().collect();
        ranked.sort_by_key(|g| (order[g], *g));
        let mut merged: BTreeMap<String, Var> = BTreeMap::new();
        // The inventory file's group vars, then the group_vars/ files' (`all` first, being the
        // shallowest): Ansible ranks the directory above the file for every group.
        for g in &ranked {
            for (k, v) in &b.groups[*g].vars {
                merged.insert(canonical_var(k).to_owned(), v.clone());
            }
        }
        for g in &ranked {
            for (k, v) in &b.groups[*g].dir_vars {
                merged.insert(canonical_var(k).to_owned(), v.clone());
            }
        }
        for (k, v) in def.vars {
            merged.insert(canonical_var(&k).to_owned(), v);
        }
        for g in &groups {
            members.entry(g).or_default().push(index as u32);
        }
        let names = groups.iter().filter(|g| **g != ALL).map(|g| (*g).to_owned()).collect();
        hosts.push(Host::new(&def.name, names, merged, def.line, &b.file, home)?);
    }

    let groups = b
        .groups
        .iter()
        .map(|(name, def)| Group {
            name: name.clone(),
            children: def.children.iter().cloned().collect(),
            hosts: members.remove(name.as_str()).unwrap_or_default(),
            vars: def.vars.iter().map(|(k, v)| (k.clone(), v.value.clone())).collect(),
        })
        .collect();
    Ok(Inventory::from_parts(b.file.clone(), hosts, groups))
}

/// Every group without a parent becomes a child of `all`, as in Ansible.
fn attach_orphans_to_all(b: &mut Builder) -> Result<(), InventoryError> {
    let with_parent: BTreeSet<String> = b.groups.values().flat_map(|g| g.children.iter().cloned()).collect();
    let orphans: Vec<String> = b.groups.keys().filter(|g| *g != ALL && !with_parent.contains(*g)).cloned().collect();
    for g in orphans {
        b.add_child(ALL, &g, None)?;
    }
    Ok(())
}

/// A host is in `ungrouped` exactly when it is in no group other than `all`.
fn place_ungrouped(b: &mut Builder) {
    let mut grouped = vec![false; b.hosts.len()];
    for (name, def) in &b.groups {
        if name != ALL && name != UNGROUPED {
            for &h in &def.hosts {
                grouped[h] = true;
            }
        }
    }
    if let Some(ungrouped) = b.groups.get_mut(UNGROUPED) {
        ungrouped.hosts = (0..grouped.len()).filter(|&h| !grouped[h]).collect();
    }
}

fn parents_of(b: &Builder) -> HashMap<&str, Vec<&str>> {
    let mut parents: HashMap<&str, Vec<&str>> = HashMap::new();
    for (name, def) in &b.groups {
        for child in &def.children {
            parents.entry(child.as_str()).or_default().push(name);
        }
    }
    parents
}

/// Each group's depth: the longest `children` path from `all` (Ansible's `Group.depth`),
/// computed in topological order since the graph is known to be acyclic.
fn depths(b: &Builder) -> HashMap<&str, usize> {
    let mut indegree: HashMap<&str, usize> = b.groups.keys().map(|g| (g.as_str(), 0)).collect();
    for def in b.groups.values() {
        for child in &def.children {
            *indegree.entry(child.as_str()).or_default() += 1;
        }
    }
    let mut depth: HashMap<&str, usize> = b.groups.keys().map(|g| (g.as_str(), 0)).collect();
    let mut queue: VecDeque<&str> = indegree.iter().filter(|(_, d)| **d == 0).map(|(g, _)| *g).collect();
    while let Some(g) = queue.pop_front() {
        for child in &b.groups[g].children {
            let d = depth[g] + 1;
            let entry = depth.entry(child.as_str()).or_default();
            *entry = (*entry).max(d);
            let left = indegree.entry(child.as_str()).or_default();
            *left -= 1;
            if *left == 0 {
                queue.push_back(child);
            }
        }
    }
    depth
}

/// `ansible_group_priority`, default 1: a higher one merges later among groups of one depth.
fn priority(b: &Builder, group: &str, vars: &BTreeMap<String, Var>) -> Result<i64, InventoryError> {
    let Some(var) = vars.get("ansible_group_priority") else {
        return Ok(1);
    };
    let parsed = match &var.value {
        VarValue::Int(i) => Some(*i),
        VarValue::String(s) => s.trim().parse().ok(),
        _ => None,
    };
    parsed.ok_or_else(|| {
        b.error(var.line, ErrorKind::InvalidGroupPriority { group: group.to_owned(), value: var.value.to_string() })
    })
}

/// The groups a host is in: its direct groups and all their ancestors (`all` included).
fn ancestors<'a>(direct: &[&'a str], parents: &HashMap<&str, Vec<&'a str>>) -> BTreeSet<&'a str> {
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    let mut todo: Vec<&str> = direct.to_vec();
    while let Some(g) = todo.pop() {
        if seen.insert(g)
            && let Some(ps) = parents.get(g)
        {
            todo.extend(ps.iter().copied());
        }
    }
    seen
}
