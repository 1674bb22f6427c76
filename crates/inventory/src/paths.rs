//! The operator's home directory and user name, and `~` expansion.
//!
//! Read from the environment the way OpenSSH and Ansible do (`$HOME`, `$USER`), and passed
//! around explicitly so that tests can use a temporary home.

use std::path::{Path, PathBuf};

/// `$HOME`, when it is set and not empty.
pub(crate) fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from)
}

/// The local user name: `$USER`, else `$LOGNAME`.
pub(crate) fn local_user() -> Option<String> {
    ["USER", "LOGNAME"].into_iter().filter_map(|v| std::env::var(v).ok()).find(|u| !u.is_empty())
}

/// This machine's name (`%l`; `%L` is its first label), as the kernel gives it; `None` where
/// the kernel does not say.
pub(crate) fn local_host() -> Option<String> {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname").ok()?;
    Some(name.trim().to_owned()).filter(|n| !n.is_empty())
}

/// This process's real user ID (`%i`, ssh's `getuid()`): the first of `/proc/self/status`'s
/// `Uid:` fields.
pub(crate) fn local_uid() -> Option<String> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find_map(|l| l.strip_prefix("Uid:"))?;
    line.split_whitespace().next().map(str::to_owned)
}

/// Expands a leading `~` or `~/` with `home`; `~user/` and paths without `~` are kept as
/// they are, as is everything when the home directory is unknown.
pub(crate) fn expand_tilde(path: &str, home: Option<&Path>) -> PathBuf {
    match (path.strip_prefix('~'), home) {
        (Some(""), Some(home)) => home.to_path_buf(),
        (Some(rest), Some(home)) if rest.starts_with('/') => home.join(rest.trim_start_matches('/')),
        _ => PathBuf::from(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tilde() {
        let home = Some(Path::new("/home/op"));
        assert_eq!(expand_tilde("~/.ssh/id", home), Path::new("/home/op/.ssh/id"));
        assert_eq!(expand_tilde("~", home), Path::new("/home/op"));
        assert_eq!(expand_tilde("~bob/x", home), Path::new("~bob/x"));
        assert_eq!(expand_tilde("/etc/x", home), Path::new("/etc/x"));
        assert_eq!(expand_tilde("~/x", None), Path::new("~/x"));
    }
}
