//! `group_vars/` and `host_vars/` beside the inventory file, as Ansible reads them: for a group
//! or host `NAME`, the file `NAME`, `NAME.yml`, `NAME.yaml` or `NAME.json`, or every file of
//! the directory `NAME/` in name order (a later file winning). Ansible's precedence, later
//! winning: every group's inventory-file vars, `group_vars/all`, the other `group_vars/*` (each
//! in the group order of [`crate::resolve`]), the host's inventory-file vars, `host_vars/*`.
use std::path::{Path, PathBuf};

use crate::builder::{ALL, Builder, Var};
use crate::error::{ErrorKind, InventoryError};

/// Loads the variable directories beside an inventory into its declarations.
pub(crate) fn load(b: &mut Builder, dir: &Path) -> Result<(), InventoryError> {
    b.add_group(ALL);
    let groups: Vec<String> = b.groups.keys().cloned().collect();
    for group in groups {
        let vars = read(&dir.join("group_vars"), &group)?;
        if let Some(def) = b.groups.get_mut(&group) {
            def.dir_vars.extend(vars);
        }
    }
    for host in &mut b.hosts {
        host.vars.extend(read(&dir.join("host_vars"), &host.name)?);
    }
    Ok(())
}

/// The variables of `name` under `base`, in the order they apply.
fn read(base: &Path, name: &str) -> Result<Vec<(String, Var)>, InventoryError> {
    let mut vars = Vec::new();
    for file in files(base, name) {
        let shown = file.display().to_string();
        let text = std::fs::read_to_string(&file).map_err(|error| {
            InventoryError::new(&shown, None, ErrorKind::Read { what: "inventory variables", error })
        })?;
        for (key, value) in crate::yaml::parse_vars(&text, &shown)? {
            vars.push((key, Var { value, line: None }));
        }
    }
    Ok(vars)
}

/// The files that hold `name`'s variables under `base`.
fn files(base: &Path, name: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for candidate in [name.to_string(), format!("{name}.yml"), format!("{name}.yaml"), format!("{name}.json")] {
        let path = base.join(candidate);
        if path.is_file() {
            found.push(path);
        }
    }
    let dir = base.join(name);
    if dir.is_dir()
        && let Ok(entries) = std::fs::read_dir(&dir)
    {
        let mut inside: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file() && !p.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.')))
            .collect();
        inside.sort();
        found.extend(inside);
    }
    found
}
