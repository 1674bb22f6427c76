//! Rules for names that fabcheck passes on to SSH or splices into remote commands.
//!
//! The inventory is user input, and fabcheck builds shell command lines from some of its
//! values (`ethtool -S mlx5_0`). Anything that reaches a command line or an SSH argument is
//! checked here first, with rules strict enough that no quoting is ever needed.

use std::net::{Ipv4Addr, Ipv6Addr};

/// Whether `s` is safe to use as a network interface or HCA name in a remote command.
///
/// The rule is `^[A-Za-z0-9][A-Za-z0-9_.:-]{0,31}$`: it admits every name Linux and the RDMA
/// stack give (`eth0`, `ens1f0np0`, `bond0.100`, `mlx5_0`, `ib0:1`) and excludes `/`,
/// whitespace, quotes and every shell metacharacter, so the name can be placed in a command
/// line unquoted. A leading `-` is excluded too, so that a name is never read as an option.
/// The collector uses the same rule for names it discovers on a device.
///
/// ```
/// use fabcheck_inventory::is_safe_name;
/// assert!(is_safe_name("mlx5_0"));
/// assert!(is_safe_name("enp65s0f0np0"));
/// assert!(!is_safe_name("eth0;reboot"));
/// assert!(!is_safe_name("-oProxyCommand=x"));
/// ```
pub fn is_safe_name(s: &str) -> bool {
    let bytes = s.as_bytes();
    match bytes.split_first() {
        Some((first, rest)) => {
            bytes.len() <= 32
                && first.is_ascii_alphanumeric()
                && rest.iter().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b':' | b'-'))
        }
        None => false,
    }
}

/// Whether an inventory name is usable by fabcheck: besides naming the device in reports, it
/// names the device's directory in the evidence snapshot, so it must be one plain file name that
/// cannot collide with the snapshot's own files: not empty, no `/`, `\\` or control character,
/// no leading `.` (the writer's temporary directories are `.NAME.partial`, and `.`/`..` are not
/// names), not `manifest.json` nor `_bench` (the benchmarks' outputs) in any case, and at most [`MAX_HOST_NAME_BYTES`] bytes (file
/// names stop at 255, and the temporary name adds 9). (Ansible allows more; an alias with spaces
/// is still fine.)
pub fn is_usable_host_name(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with('.')
        && s.len() <= MAX_HOST_NAME_BYTES
        && !s.eq_ignore_ascii_case("manifest.json")
        && !s.eq_ignore_ascii_case("_bench")
        && !s.chars().any(|c| c == '/' || c == '\\' || c.is_control())
}

/// The longest inventory name, in bytes.
pub const MAX_HOST_NAME_BYTES: usize = 200;

/// Whether `s` can be given to SSH as the address of a device: a DNS host name, an IPv4
/// address or an IPv6 literal (optionally with a `%zone` that is itself a safe name).
///
/// Host names follow RFC 1123 labels, with `_` also allowed because `/etc/hosts` and many
/// lab inventories use it. A leading `-` is refused so that an address can never turn into
/// an `ssh` option.
pub(crate) fn is_valid_address(s: &str) -> bool {
    if s.parse::<Ipv4Addr>().is_ok() || is_ipv6_literal(s) {
        return true;
    }
    is_hostname(s)
}

/// Whether `s` is an IPv6 address, with an optional `%zone` suffix.
pub(crate) fn is_ipv6_literal(s: &str) -> bool {
    let (addr, zone) = match s.split_once('%') {
        Some((addr, zone)) => (addr, Some(zone)),
        None => (s, None),
    };
    addr.parse::<Ipv6Addr>().is_ok() && zone.is_none_or(is_safe_name)
}

/// RFC 1123 host name (with `_` tolerated); all-numeric dotted names must be real IPv4.
fn is_hostname(s: &str) -> bool {
    let name = s.strip_suffix('.').unwrap_or(s);
    if name.is_empty() || name.len() > 253 {
        return false;
    }
    let labels_ok = name.split('.').all(|label| {
        let b = label.as_bytes();
        !b.is_empty()
            && b.len() <= 63
            && b.iter().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_'))
            && b[0] != b'-'
            && b[b.len() - 1] != b'-'
    });
    // `999.1.1.1` has valid labels but is a typo of an address, not a name.
    let all_numeric = name.split('.').all(|l| l.bytes().all(|c| c.is_ascii_digit()));
    labels_ok && !all_numeric
}

/// Shell-style wildcard match where `*` matches any run of characters and `?` one character.
///
/// Used by `--limit` globs and by ssh_config `Host` patterns. It runs in linear time for a
/// given pattern (single backtrack point), so a hostile pattern cannot make it slow.
pub fn wildcard_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// Whether `pattern` uses glob syntax (and so should be matched against hosts too).
pub(crate) fn has_wildcard(pattern: &str) -> bool {
    pattern.contains(['*', '?'])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safe_names() {
        for ok in ["eth0", "mlx5_0", "ens1f0np0", "bond0.100", "ib0:1", "a", "0"] {
            assert!(is_safe_name(ok), "{ok}");
        }
        let long = "a".repeat(33);
        for bad in [
            "", "-eth0", "_x", "eth 0", "eth0/1", "a;b", "a|b", "$(x)", "`x`", "a'b", "a\"b", "a&b", "a>b", "a\nb",
            "é", &long,
        ] {
            assert!(!is_safe_name(bad), "{bad:?}");
        }
        assert!(is_safe_name(&"a".repeat(32)));
    }

    #[test]
    fn addresses() {
        for ok in [
            "gpu01",
            "gpu01.example.com",
            "gpu01.example.com.",
            "lab_host",
            "10.0.0.1",
            "127.0.0.2",
            "::1",
            "fe80::1%eth0",
            "2001:db8::5",
        ] {
            assert!(is_valid_address(ok), "{ok}");
        }
        for bad in
            ["", "-oProxyCommand=x", "a b", "a;b", "999.1.1.1", "host-", "a..b", "fe80::1%eth0;x", "[::1]", "user@host"]
        {
            assert!(!is_valid_address(bad), "{bad:?}");
        }
    }

    #[test]
    fn host_names() {
        for ok in ["gpu01", "web server 1", "10.0.0.1", "::1", "a..b"] {
            assert!(is_usable_host_name(ok), "{ok}");
        }
        let long = "g".repeat(MAX_HOST_NAME_BYTES + 1);
        for bad in [
            "",
            ".",
            "..",
            "../etc",
            "a/b",
            "a\\b",
            "a\nb",
            "a\0b",
            ".gpu01.partial",
            ".hidden",
            "manifest.json",
            "MANIFEST.JSON",
            "_bench",
            &long,
        ] {
            assert!(!is_usable_host_name(bad), "{bad:?}");
        }
    }

    #[test]
    fn wildcards() {
        assert!(wildcard_match("gpu0*", "gpu01"));
        assert!(wildcard_match("gpu0*", "gpu0"));
        assert!(!wildcard_match("gpu0*", "gpu10"));
        assert!(wildcard_match("gpu?1", "gpu01"));
        assert!(!wildcard_match("gpu?1", "gpu011"));
        assert!(wildcard_match("*", ""));
        assert!(wildcard_match("*.example.com", "a.b.example.com"));
        assert!(wildcard_match("a*b*c", "aXXbYYc"));
        assert!(!wildcard_match("a*b*c", "aXXbYY"));
        assert!(!wildcard_match("", "a"));
        let hostile = "*a".repeat(50);
        assert!(!wildcard_match(&hostile, &"a".repeat(49)));
    }
}
