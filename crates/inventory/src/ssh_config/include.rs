//! ssh_config `Include`: which files a directive names, and reading them.
//!
//! As in OpenSSH, relative paths are relative to `~/.ssh`, `*` and `?` may appear in any
//! path component, matches are read in sorted order, and a pattern that matches nothing
//! (or a file that does not exist) is silently ignored.

use std::io::ErrorKind as IoErrorKind;
use std::path::{Component, Path, PathBuf};

use crate::error::{ErrorKind, InventoryError};
use crate::names::{has_wildcard, wildcard_match};
use crate::paths::expand_tilde;

use super::config::SshConfigWarning;
use super::parse::{Context, Item, parse};

/// Reads every file the `Include` arguments name, at nesting `depth`.
pub(crate) fn load(
    args: &[String],
    file: &str,
    line: u32,
    depth: usize,
    cx: &mut Context<'_>,
) -> Result<Vec<Vec<Item>>, InventoryError> {
    let mut files = Vec::new();
    for arg in args {
        let path = expand_tilde(arg, cx.home);
        let path = if path.is_absolute() {
            path
        } else if let Some(home) = cx.home {
            home.join(".ssh").join(path)
        } else {
            cx.warnings.push(SshConfigWarning {
                file: file.to_owned(),
                line,
                message: format!("`Include {arg}` is relative but $HOME is not set; skipped"),
            });
            continue;
        };
        for found in glob(&path) {
            let name = found.display().to_string();
            let text = match std::fs::read_to_string(&found) {
                Ok(text) => text,
                Err(e) if e.kind() == IoErrorKind::NotFound => continue,
                Err(error) => {
                    return Err(InventoryError::new(
                        &name,
                        None,
                        ErrorKind::Read { what: "included ssh_config", error },
                    ));
                }
            };
            files.push(parse(&text, &name, depth, cx)?);
        }
    }
    Ok(files)
}

/// The regular files matching `pattern`, sorted; wildcards never match a leading `.`
/// unless the pattern component itself starts with one, as with glob(3).
fn glob(pattern: &Path) -> Vec<PathBuf> {
    let mut found = vec![PathBuf::new()];
    for component in pattern.components() {
        match component {
            Component::Normal(part) if part.to_str().is_some_and(has_wildcard) => {
                let part = part.to_str().unwrap_or_default();
                let mut next = Vec::new();
                for dir in &found {
                    let Ok(entries) = std::fs::read_dir(dir) else {
                        continue;
                    };
                    let mut names: Vec<String> = entries
                        .filter_map(|e| e.ok()?.file_name().into_string().ok())
                        .filter(|n| (part.starts_with('.') || !n.starts_with('.')) && wildcard_match(part, n))
                        .collect();
                    names.sort();
                    next.extend(names.into_iter().map(|n| dir.join(n)));
                }
                found = next;
            }
            other => found.iter_mut().for_each(|p| p.push(other)),
        }
    }
    found.retain(|p| p.is_file());
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_matches_sorted_regular_files() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["b.conf", "a.conf", ".hidden.conf", "c.txt"] {
            std::fs::write(dir.path().join(name), "").unwrap();
        }
        std::fs::create_dir(dir.path().join("d.conf")).unwrap();
        let found = glob(&dir.path().join("*.conf"));
        let names: Vec<_> = found.iter().map(|p| p.file_name().unwrap().to_str().unwrap()).collect();
        assert_eq!(names, ["a.conf", "b.conf"]);
        assert_eq!(glob(&dir.path().join("a.conf")).len(), 1);
        assert!(glob(&dir.path().join("missing")).is_empty());
    }
}
