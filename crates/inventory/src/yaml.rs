//! Ansible's YAML inventory format, deserialised into typed structs with serde-saphyr.
//!
//! ```yaml
//! all:
//!   vars: { ansible_user: ops }
//!   children:
//!     gpus:
//!       hosts:
//!         gpu[01:16]:
//!         gpu17: { fabcheck_nics: [mlx5_0, mlx5_1] }
//!       vars: { fabcheck_gpus: 8 }
//! ```
//!
//! Top-level keys are groups (usually just `all`); each group may have `hosts` (a mapping
//! of host entries to their variables, or null), `vars` and `children` (nested groups, to
//! any depth). As in Ansible, `hosts` and `children` may also be a single name. Unlike
//! Ansible, which warns and skips, any other key in a group is an error: a misspelt `host:`
//! must not silently drop hosts from an audit. Duplicate keys are an error too.

use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde_saphyr::Spanned;

use crate::builder::Builder;
use crate::error::{ErrorKind, InventoryError};
use crate::hostpattern;
use crate::value::{MaybeVar, ScalarKey, VarValue};

/// One group: its `hosts`, `vars` and `children`, in file order (which decides the order of
/// hosts, as in Ansible).
struct GroupBody(Vec<Section>);

enum Section {
    Hosts(Entries<Option<VarMap>>),
    Vars(VarMap),
    Children(Entries<GroupValue>),
}

impl<'de> Deserialize<'de> for GroupBody {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct BodyVisitor;
        impl<'de> Visitor<'de> for BodyVisitor {
            type Value = GroupBody;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a group (a mapping of hosts, vars and children)")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                const KEYS: &[&str] = &["hosts", "vars", "children"];
                let mut sections = Vec::new();
                while let Some(ScalarKey(key)) = map.next_key()? {
                    let section = match key.as_str() {
                        "hosts" => map.next_value::<Option<_>>()?.map(Section::Hosts),
                        "vars" => map.next_value::<Option<_>>()?.map(Section::Vars),
                        "children" => map.next_value::<Option<_>>()?.map(Section::Children),
                        other => return Err(de::Error::unknown_field(other, KEYS)),
                    };
                    sections.extend(section);
                }
                Ok(GroupBody(sections))
            }
        }
        deserializer.deserialize_map(BodyVisitor)
    }
}

/// A name as written, with its line when known.
struct Name {
    text: String,
    line: Option<u32>,
}

/// A mapping from names to `T`, in file order. Where `ONE_NAME` (inside a group, as Ansible
/// allows), a lone string stands for one name with a default `T`.
struct Entries<T, const ONE_NAME: bool = true>(Vec<(Name, T)>);

impl<'de, T: Deserialize<'de> + Default, const ONE_NAME: bool> Deserialize<'de> for Entries<T, ONE_NAME> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EntriesVisitor<T, const ONE_NAME: bool>(PhantomData<T>);
        impl<'de, T: Deserialize<'de> + Default, const ONE_NAME: bool> Visitor<'de> for EntriesVisitor<T, ONE_NAME> {
            type Value = Entries<T, ONE_NAME>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                if ONE_NAME {
                    f.write_str("a mapping of names (or a single name)")
                } else {
                    f.write_str("a mapping of groups (such as `all:`)")
                }
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                if !ONE_NAME {
                    return Err(E::invalid_type(de::Unexpected::Str(v), &self));
                }
                let name = Name { text: v.to_owned(), line: None };
                Ok(Entries(vec![(name, T::default())]))
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(Entries(Vec::new()))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut entries = Vec::new();
                while let Some(key) = map.next_key::<Spanned<ScalarKey>>()? {
                    let name = Name { text: key.value.0, line: Some(line_u32(key.referenced.line())) };
                    entries.push((name, map.next_value()?));
                }
                Ok(Entries(entries))
            }
        }
        deserializer.deserialize_any(EntriesVisitor(PhantomData))
    }
}

/// A group's value: a [`GroupBody`] mapping, or nothing (`northeast:`).
#[derive(Default)]
struct GroupValue(Option<GroupBody>);

impl<'de> Deserialize<'de> for GroupValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct GroupVisitor;
        impl<'de> Visitor<'de> for GroupVisitor {
            type Value = GroupValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a group (a mapping of hosts, vars and children, or nothing)")
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(GroupValue(None))
            }
            fn visit_none<E>(self) -> Result<Self::Value, E> {
                Ok(GroupValue(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                GroupBody::deserialize(de::value::MapAccessDeserializer::new(map)).map(|b| GroupValue(Some(b)))
            }
        }
        deserializer.deserialize_any(GroupVisitor)
    }
}

/// Variables in file order, each with the line of its key; null values are left out.
#[derive(Default)]
struct VarMap(Vec<(Name, VarValue)>);

impl<'de> Deserialize<'de> for VarMap {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct VarMapVisitor;
        impl<'de> Visitor<'de> for VarMapVisitor {
            type Value = VarMap;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a mapping of variables")
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(VarMap::default())
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut vars = Vec::new();
                while let Some(key) = map.next_key::<Spanned<ScalarKey>>()? {
                    let MaybeVar(value) = map.next_value()?;
                    if let Some(value) = value {
                        let name = Name { text: key.value.0, line: Some(line_u32(key.referenced.line())) };
                        vars.push((name, value));
                    }
                }
                Ok(VarMap(vars))
            }
        }
        deserializer.deserialize_any(VarMapVisitor)
    }
}

/// The variables of a `group_vars/` or `host_vars/` file (a YAML mapping; empty or null is
/// none), in file order.
pub(crate) fn parse_vars(text: &str, file: &str) -> Result<Vec<(String, VarValue)>, InventoryError> {
    let vars: Option<VarMap> = serde_saphyr::from_str(text).map_err(|e| yaml_error(file, &e))?;
    Ok(vars.map(|v| v.0.into_iter().map(|(name, value)| (name.text, value)).collect()).unwrap_or_default())
}

/// Parses YAML inventory text into declarations.
pub(crate) fn parse(text: &str, file: &str) -> Result<Builder, InventoryError> {
    let options = serde_saphyr::options! {
        // `0755` stays text rather than becoming the number 755.
        leading_zero_numbers_as_strings: true,
        with_snippet: false,
    };
    let mut b = Builder::new(file);
    let doc: Option<Entries<GroupValue, false>> = match serde_saphyr::from_str_with_options(text, options) {
        Ok(doc) => doc,
        Err(_) if is_plugin_config(text) => {
            return Err(b.error(
                None,
                ErrorKind::Yaml {
                    message: "this is an inventory plugin configuration (`plugin:`), not a static inventory; fabcheck reads static inventories only".to_owned(),
                },
            ));
        }
        Err(e) => return Err(yaml_error(file, &e)),
    };
    let groups = doc.map(|d| d.0).unwrap_or_default();
    if groups.is_empty() {
        return Err(b.error(None, ErrorKind::Yaml { message: "empty YAML inventory".to_owned() }));
    }
    for (name, body) in groups {
        b.add_group(&name.text);
        walk(&mut b, &name.text, body)?;
    }
    Ok(b)
}

/// Whether the text is a dynamic-inventory plugin configuration (top-level `plugin:` key),
/// which Ansible rejects as an inventory with a message of its own; so do we.
fn is_plugin_config(text: &str) -> bool {
    #[derive(Deserialize)]
    struct Probe {
        plugin: Option<serde::de::IgnoredAny>,
    }
    serde_saphyr::from_str::<Probe>(text).is_ok_and(|p| p.plugin.is_some())
}

/// Declares one group's hosts, variables and (recursively) children. The recursion is
/// bounded by serde-saphyr's nesting budget.
fn walk(b: &mut Builder, group: &str, body: GroupValue) -> Result<(), InventoryError> {
    let Some(GroupBody(sections)) = body.0 else {
        return Ok(());
    };
    for section in sections {
        match section {
            Section::Hosts(hosts) => {
                for (entry, vars) in hosts.0 {
                    let expanded = hostpattern::expand(&entry.text).map_err(|kind| b.error(entry.line, kind))?;
                    let vars = vars.map(|v| v.0).unwrap_or_default();
                    for name in &expanded.names {
                        let host = b.add_host(group, name, entry.line);
                        if let Some(port) = expanded.port {
                            b.set_host_var(host, "ansible_port", i64::from(port).into(), entry.line);
                        }
                        for (key, value) in &vars {
                            b.set_host_var(host, &key.text, value.clone(), key.line);
                        }
                    }
                }
            }
            Section::Vars(vars) => {
                for (key, value) in vars.0 {
                    b.set_group_var(group, &key.text, value, key.line);
                }
            }
            Section::Children(children) => {
                for (child, child_body) in children.0 {
                    b.add_child(group, &child.text, child.line)?;
                    walk(b, &child.text, child_body)?;
                }
            }
        }
    }
    Ok(())
}

/// serde-saphyr's error as ours: its location in our fields, its message without it. Only the
/// suffix that repeats that location is cut (` at line L, column C`, or for an alias
/// ` (used at line L, column C)`): an alias error also says where the anchor is defined, and
/// cutting at the last ` at line ` left a budget breach reading `... (used`.
fn yaml_error(file: &str, e: &serde_saphyr::Error) -> InventoryError {
    let message = e.without_snippet().to_string();
    let location = e.location().filter(|l| l.line() > 0);
    let message = match location {
        Some(l) => {
            let (line, column) = (l.line(), l.column());
            let repeated =
                [format!(" at line {line}, column {column}"), format!(" (used at line {line}, column {column})")];
            match repeated.iter().find_map(|suffix| message.strip_suffix(suffix.as_str())) {
                Some(rest) => rest.to_owned(),
                None => message,
            }
        }
        None => message,
    };
    let error = InventoryError::new(file, location.map(|l| line_u32(l.line())), ErrorKind::Yaml { message });
    match location {
        Some(l) if l.column() > 0 => error.with_column(line_u32(l.column())),
        _ => error,
    }
}

/// serde-saphyr counts in `u64`; no inventory has four billion lines.
fn line_u32(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_groups_and_vars() {
        let text = "all:\n  vars: {a: 1}\n  children:\n    g:\n      hosts: h1\n      children:\n        k:\n          hosts:\n            h2: {x: y, n: ~}\n";
        let b = parse(text, "t.yml").unwrap();
        assert_eq!(b.hosts.len(), 2);
        assert!(b.groups["all"].children.contains("g"));
        assert!(b.groups["g"].children.contains("k"));
        assert_eq!(b.hosts[1].vars["x"].line, Some(9));
        assert!(!b.hosts[1].vars.contains_key("n"));
    }

    #[test]
    fn errors_carry_serde_saphyr_locations() {
        let err = parse("all:\n  hosts:\n    a: 1\n  b: [\n", "t.yml").unwrap_err();
        assert_eq!(err.file(), "t.yml");
        assert!(err.line().is_some(), "{err}");
        let err = parse("all:\n  host:\n    a:\n", "t.yml").unwrap_err();
        assert!(err.to_string().contains("unknown field `host`"), "{err}");
        assert_eq!(err.line(), Some(2), "{err}");
    }

    /// Issue 34: an alias bomb's budget error was cut at its last ` at line ` and ended in
    /// `(used`; the whole message is kept, less the location the error already carries.
    #[test]
    fn r34_a_budget_breach_is_said_whole() {
        let mut text = String::from("all:\n  vars:\n    a: &a [x, x, x, x, x, x, x, x, x]\n");
        for (name, alias) in
            ["b", "c", "d", "e", "f", "g", "h", "i", "j"].iter().zip(["a", "b", "c", "d", "e", "f", "g", "h", "i"])
        {
            text.push_str(&format!("    {name}: &{name} [{}]\n", vec![format!("*{alias}"); 9].join(", ")));
        }
        let err = parse(&text, "bomb.yml").unwrap_err();
        let message = err.to_string();
        assert!(message.starts_with("bomb.yml:"), "{message}");
        assert!(message.contains("budget breached"), "{message}");
        assert!(message.contains("(defined at line "), "{message}");
        assert!(message.trim_end().ends_with(')'), "cut: {message}");
        assert!(!message.ends_with("(used"), "{message}");
        // An error with one location keeps the message before it, as before.
        let plain = parse("all:\n  host:\n    a:\n", "t.yml").unwrap_err().to_string();
        assert!(!plain.contains(" at line "), "{plain}");
    }
}
