//! The JSON of `ansible-inventory --list`, both ways: read as an inventory (dynamic inventories,
//! vault-decrypted vars, whatever Ansible resolved), and written from a resolved inventory
//! (`fabcheck inventory --list`) so that operators can diff fabcheck's view with Ansible's.
//!
//! ```json
//! {"_meta": {"hostvars": {"gpu01": {"ansible_host": "10.0.0.1"}}},
//!  "all": {"children": ["gpu", "ungrouped"]},
//!  "gpu": {"hosts": ["gpu01"], "vars": {"fabcheck_gpus": 8}}}
//! ```
use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::builder::{Builder, Var};
use crate::error::{ErrorKind, InventoryError};
use crate::host::Host;
use crate::inventory::Inventory;
use crate::value::VarValue;

/// Whether `text` is `ansible-inventory --list` output: a JSON object with `_meta`.
pub(crate) fn is_listing(text: &str) -> bool {
    text.trim_start_matches('\u{feff}').trim_start().starts_with('{') && text.contains("\"_meta\"")
}

/// Reads the listing into declarations.
pub(crate) fn parse(text: &str, file: &str) -> Result<Builder, InventoryError> {
    let mut b = Builder::new(file);
    let fail = |line: usize, message: String| {
        InventoryError::new(file, u32::try_from(line).ok().filter(|l| *l > 0), ErrorKind::Yaml { message })
    };
    let root: Map<String, Value> =
        serde_json::from_str(text).map_err(|e| fail(e.line(), format!("not ansible-inventory --list JSON: {e}")))?;
    for (group, body) in root.iter().filter(|(k, _)| k.as_str() != "_meta") {
        let body = body.as_object().ok_or_else(|| fail(0, format!("group `{group}` is not an object")))?;
        b.add_group(group);
        for host in strings(body.get("hosts"), &format!("group `{group}`: hosts")).map_err(|m| fail(0, m))? {
            b.add_host(group, &host, None);
        }
        for child in strings(body.get("children"), &format!("group `{group}`: children")).map_err(|m| fail(0, m))? {
            b.add_group(&child);
            b.groups.entry(group.clone()).or_default().children.insert(child);
        }
        if let Some(vars) = body.get("vars").and_then(Value::as_object) {
            let def = b.groups.entry(group.clone()).or_default();
            def.vars.extend(vars.iter().filter_map(|(k, v)| Some((k.clone(), Var { value: var(v)?, line: None }))));
        }
    }
    let hostvars = root.get("_meta").and_then(|m| m.get("hostvars")).and_then(Value::as_object);
    for (host, vars) in hostvars.into_iter().flatten() {
        let index = match b.host_index.get(host.as_str()) {
            Some(&i) => i,
            None => b.add_host("ungrouped", host, None),
        };
        if let Some(vars) = vars.as_object() {
            let def = &mut b.hosts[index];
            def.vars.extend(vars.iter().filter_map(|(k, v)| Some((k.clone(), Var { value: var(v)?, line: None }))));
        }
    }
    Ok(b)
}

fn strings(v: Option<&Value>, what: &str) -> Result<Vec<String>, String> {
    match v {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| i.as_str().map(str::to_owned).ok_or_else(|| format!("{what}: `{i}` is not a name")))
            .collect(),
        Some(other) => Err(format!("{what}: `{other}` is not a list")),
    }
}

/// A JSON value as an inventory variable; null is no variable.
fn var(v: &Value) -> Option<VarValue> {
    Some(match v {
        Value::Null => return None,
        Value::Bool(b) => VarValue::Bool(*b),
        Value::Number(n) => n.as_i64().map_or_else(|| VarValue::String(n.to_string()), VarValue::Int),
        Value::String(s) => VarValue::String(s.clone()),
        Value::Array(items) => VarValue::List(items.iter().filter_map(var).collect()),
        Value::Object(map) => VarValue::Map(map.iter().filter_map(|(k, v)| Some((k.clone(), var(v)?))).collect()),
    })
}

/// The listing of `hosts` (a `--limit` selection of `inv`, or all of it): each host's merged
/// variables in `_meta.hostvars`, each group with its selected hosts and its child groups.
pub fn to_json(inv: &Inventory, hosts: &[&Host]) -> Value {
    let selected: std::collections::HashSet<&str> = hosts.iter().map(|h| h.name()).collect();
    let hostvars: Map<String, Value> =
        hosts.iter().map(|h| (h.name().to_owned(), serde_json::to_value(h.vars()).unwrap_or(Value::Null))).collect();
    let mut root = Map::new();
    root.insert("_meta".into(), json!({ "hostvars": hostvars }));
    for g in inv.groups() {
        let mut body: BTreeMap<&str, Value> = BTreeMap::new();
        if !g.children().is_empty() {
            body.insert("children", json!(g.children()));
        }
        // A host listed by a child group is the child's, not this group's (one set per group:
        // testing each host against each child's list was quadratic at 100,000 hosts).
        let in_children: std::collections::HashSet<usize> =
            g.children().iter().filter_map(|c| inv.group(c)).flat_map(|c| c.host_positions()).collect();
        let direct: Vec<&str> = g
            .host_positions()
            .filter(|i| !in_children.contains(i))
            .map(|i| inv.hosts()[i].name())
            .filter(|h| selected.contains(h))
            .collect();
        if !direct.is_empty() {
            body.insert("hosts", json!(direct));
        }
        root.insert(g.name().to_owned(), json!(body));
    }
    Value::Object(root)
}
