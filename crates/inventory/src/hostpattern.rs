//! Host entries as both inventory formats write them: `name`, `name:port`, `[v6::addr]:port`,
//! and ranges such as `gpu[01:16]`, `www[01:50:2].example.com` or `db-[a:f]`.
//!
//! Follows Ansible's `parse_address` and `expand_hostname_range`, except that a range whose
//! start is after its end is an error (Ansible silently expands it to nothing, which hides a
//! typo behind an empty group).

use crate::error::ErrorKind;
use crate::names::is_ipv6_literal;

/// Ranges may not expand to more hosts than this: a typo such as `gpu[1:9999999]` must fail
/// fast rather than allocate millions of hosts.
pub(crate) const MAX_EXPANSION: usize = 100_000;

/// The hosts a host entry stands for, and the port it names, if any.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Expanded {
    pub(crate) names: Vec<String>,
    pub(crate) port: Option<u16>,
}

/// Expands one host entry.
pub(crate) fn expand(pattern: &str) -> Result<Expanded, ErrorKind> {
    let bad = |reason: &str| ErrorKind::BadHostPattern { pattern: pattern.to_owned(), reason: reason.to_owned() };
    if pattern.is_empty() {
        return Err(bad("empty host name"));
    }
    // `[2001:db8::1]` or `[2001:db8::1]:2222`.
    if let Some(inner) = pattern.strip_prefix('[')
        && let Some((addr, after)) = inner.split_once(']')
        && is_ipv6_literal(addr)
    {
        let port = match after {
            "" => None,
            _ => match after.strip_prefix(':') {
                Some(port) => Some(parse_port(pattern, port)?),
                None => return Err(bad("unexpected text after `]`")),
            },
        };
        return Ok(Expanded { names: vec![addr.to_owned()], port });
    }
    // A bare IPv6 literal has colons but no port.
    if is_ipv6_literal(pattern) {
        return Ok(Expanded { names: vec![pattern.to_owned()], port: None });
    }
    let (host, port) = match rsplit_outside_brackets(pattern) {
        Some((host, port)) => (host, Some(parse_port(pattern, port)?)),
        None => (pattern, None),
    };
    if host.is_empty() {
        return Err(bad("empty host name"));
    }
    if rsplit_outside_brackets(host).is_some() {
        return Err(bad("more than one `:` outside a range"));
    }
    if host == "---" {
        return Err(bad("`---` starts a YAML document; name the file .yml"));
    }
    Ok(Expanded { names: expand_ranges(pattern, host)?, port })
}

/// Splits `host:port` at the last `:` that is not inside `[...]`.
fn rsplit_outside_brackets(s: &str) -> Option<(&str, &str)> {
    let mut depth = 0i32;
    let mut split = None;
    for (i, c) in s.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ':' if depth == 0 => split = Some(i),
            _ => {}
        }
    }
    split.map(|i| (&s[..i], &s[i + 1..]))
}

fn parse_port(pattern: &str, port: &str) -> Result<u16, ErrorKind> {
    let reason = if port.is_empty() {
        "ends in `:` without a port"
    } else {
        match port.parse::<u16>() {
            Ok(p) if p > 0 && port.bytes().all(|c| c.is_ascii_digit()) => return Ok(p),
            _ => "port is not a number from 1 to 65535",
        }
    };
    Err(ErrorKind::BadHostPattern { pattern: pattern.to_owned(), reason: reason.to_owned() })
}

/// Expands every `[start:end(:step)]` in `host`, left to right.
fn expand_ranges(pattern: &str, host: &str) -> Result<Vec<String>, ErrorKind> {
    let mut names = vec![host.to_owned()];
    while let Some(first) = names.first()
        && first.contains('[')
    {
        let mut next = Vec::new();
        for name in &names {
            let (head, values, tail) = split_range(pattern, name)?;
            if next.len() + values.len() > MAX_EXPANSION {
                return Err(ErrorKind::TooManyHosts { pattern: pattern.to_owned(), limit: MAX_EXPANSION });
            }
            next.extend(values.iter().map(|v| format!("{head}{v}{tail}")));
        }
        names = next;
    }
    if names.iter().any(|n| n.contains(']')) {
        return Err(range_error(pattern, "`]` without `[`"));
    }
    Ok(names)
}

fn range_error(pattern: &str, reason: &str) -> ErrorKind {
    ErrorKind::BadHostRange { pattern: pattern.to_owned(), reason: reason.to_owned() }
}

/// Splits `head[range]tail` and lists the range's values.
fn split_range<'a>(pattern: &str, name: &'a str) -> Result<(&'a str, Vec<String>, &'a str), ErrorKind> {
    let open = name.find('[').unwrap_or(0);
    let Some(len) = name[open..].find(']') else {
        return Err(range_error(pattern, "`[` without `]`"));
    };
    let (head, inner, tail) = (&name[..open], &name[open + 1..open + len], &name[open + len + 1..]);
    let bounds: Vec<&str> = inner.split(':').collect();
    let (start, end, step) = match bounds.as_slice() {
        [start, end] => (*start, *end, 1),
        [start, end, step] => match step.parse::<usize>() {
            Ok(step) if step > 0 => (*start, *end, step),
            _ => return Err(range_error(pattern, "step must be a positive integer")),
        },
        _ => {
            return Err(range_error(pattern, "expected [start:end] or [start:end:step]"));
        }
    };
    let start = if start.is_empty() { "0" } else { start };
    if end.is_empty() {
        return Err(range_error(pattern, "range has no end"));
    }
    let values = if let (Some(s), Some(e)) = (single_letter(start), single_letter(end)) {
        letter_range(pattern, s, e, step)?
    } else {
        number_range(pattern, start, end, step)?
    };
    Ok((head, values, tail))
}

fn single_letter(s: &str) -> Option<char> {
    let mut chars = s.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if c.is_ascii_alphabetic() => Some(c),
        _ => None,
    }
}

/// `[a:f]`; Ansible orders letters as `a..zA..Z`.
fn letter_range(pattern: &str, start: char, end: char, step: usize) -> Result<Vec<String>, ErrorKind> {
    const LETTERS: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let position = |c: char| LETTERS.find(c).unwrap_or(0);
    let (s, e) = (position(start), position(end));
    if s > e {
        return Err(range_error(pattern, "start is after end"));
    }
    Ok(LETTERS[s..=e].chars().step_by(step).map(String::from).collect())
}

/// `[1:16]` or, zero-padded to the width of both bounds, `[01:16]`.
fn number_range(pattern: &str, start: &str, end: &str, step: usize) -> Result<Vec<String>, ErrorKind> {
    let (Ok(s), Ok(e)) = (start.parse::<u64>(), end.parse::<u64>()) else {
        return Err(range_error(pattern, "bounds must both be numbers or both single letters"));
    };
    let width = if start.len() > 1 && start.starts_with('0') {
        if start.len() != end.len() {
            return Err(range_error(pattern, "zero-padded start and end must have the same width"));
        }
        start.len()
    } else {
        0
    };
    if s > e {
        return Err(range_error(pattern, "start is after end"));
    }
    let count = (e - s) / step as u64 + 1;
    if count > MAX_EXPANSION as u64 {
        return Err(ErrorKind::TooManyHosts { pattern: pattern.to_owned(), limit: MAX_EXPANSION });
    }
    Ok((s..=e).step_by(step).map(|n| format!("{n:0width$}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(p: &str) -> Vec<String> {
        expand(p).unwrap().names
    }

    #[test]
    fn plain_and_ports() {
        assert_eq!(expand("gpu01").unwrap(), Expanded { names: vec!["gpu01".into()], port: None });
        assert_eq!(expand("badwolf.example.com:5309").unwrap().port, Some(5309));
        assert_eq!(names("2001:db8::1"), ["2001:db8::1"]);
        let v6 = expand("[2001:db8::1]:2222").unwrap();
        assert_eq!((v6.names, v6.port), (vec!["2001:db8::1".into()], Some(2222)));
        assert_eq!(names("[::1]"), ["::1"]);
    }

    #[test]
    fn ranges() {
        assert_eq!(names("gpu[01:03]"), ["gpu01", "gpu02", "gpu03"]);
        assert_eq!(names("node[a:c]"), ["nodea", "nodeb", "nodec"]);
        assert_eq!(names("www[01:07:3].example.com"), ["www01.example.com", "www04.example.com", "www07.example.com"]);
        assert_eq!(names("n[8:10]"), ["n8", "n9", "n10"]);
        assert_eq!(names("n[:1]"), ["n0", "n1"]);
        assert_eq!(names("r[1:2]-[a:b]"), ["r1-a", "r1-b", "r2-a", "r2-b"]);
        let p = expand("gpu[01:02]:2222").unwrap();
        assert_eq!((p.names, p.port), (vec!["gpu01".into(), "gpu02".into()], Some(2222)));
        assert_eq!(names("x[y:B]"), ["xy", "xz", "xA", "xB"]);
    }

    #[test]
    fn bad_entries() {
        for (p, want) in [
            ("gpu[10:01]", "bad host range gpu[10:01]: start is after end"),
            ("gpu[01:100]", "bad host range gpu[01:100]: zero-padded start and end must have the same width"),
            ("gpu[1:]", "bad host range gpu[1:]: range has no end"),
            ("gpu[1:2:0]", "bad host range gpu[1:2:0]: step must be a positive integer"),
            ("gpu[1]", "bad host range gpu[1]: expected [start:end] or [start:end:step]"),
            ("gpu[1:b]", "bad host range gpu[1:b]: bounds must both be numbers or both single letters"),
            ("gpu[1:2", "bad host range gpu[1:2: `[` without `]`"),
            ("gpu]", "bad host range gpu]: `]` without `[`"),
            ("gpu01:", "bad host `gpu01:`: ends in `:` without a port"),
            ("gpu01:ssh", "bad host `gpu01:ssh`: port is not a number from 1 to 65535"),
            ("gpu01:0", "bad host `gpu01:0`: port is not a number from 1 to 65535"),
            ("a:b:22", "bad host `a:b:22`: more than one `:` outside a range"),
            ("---", "bad host `---`: `---` starts a YAML document; name the file .yml"),
        ] {
            assert_eq!(expand(p).unwrap_err().to_string(), want, "{p}");
        }
        assert!(matches!(expand("h[0:9999999]"), Err(ErrorKind::TooManyHosts { .. })));
        assert!(matches!(expand("a[0:999]b[0:999]"), Err(ErrorKind::TooManyHosts { .. })));
    }
}
