//! ssh_config text to a list of items: block headers, the settings fabcheck uses, and the
//! contents of included files.
//!
//! Values are checked here (a bad `Port` is an error even in a block that never applies, as
//! in ssh) but expanded (`%h`, `~`) only when a host is resolved.

use std::path::Path;

use crate::error::{ErrorKind, InventoryError};
use crate::shlex::{self, Comments, SplitError};

use super::algorithms::{AlgorithmKind, AlgorithmSetting};
use super::config::SshConfigWarning;
use super::host_keys::{ConfigLine, HostKeyChecking, StrictHostKeyChecking};
use super::include;

/// How deep `Include` may nest (OpenSSH's `READCONF_MAX_DEPTH`).
pub(crate) const MAX_INCLUDE_DEPTH: usize = 16;

/// One meaningful line of a config file.
#[derive(Debug, Clone)]
pub(crate) enum Item {
    /// `Host pattern...`: starts a block that applies when the patterns match.
    Host(Vec<String>),
    /// `Match all`: starts a block that always applies.
    MatchAll,
    /// Any other `Match`: starts a block that never applies here.
    MatchUnsupported,
    /// A setting fabcheck uses.
    Setting(Setting),
    /// `Include`: the items of each file it names, in glob order.
    Include(Vec<Vec<Item>>),
}

/// The settings fabcheck reads, with their raw (unexpanded) values.
#[derive(Debug, Clone)]
pub(crate) enum Setting {
    HostName(String),
    User(String),
    Port(u16),
    IdentityFile(String),
    ProxyJump(String),
    UserKnownHostsFile(Vec<String>),
    GlobalKnownHostsFile(Vec<String>),
    StrictHostKeyChecking(HostKeyChecking),
    /// `RevokedHostKeys`: its files (`none` alone for none), and where it is written.
    RevokedHostKeys(Vec<String>, ConfigLine),
    /// `HostKeyAlias`: the name host keys are looked up and recorded by.
    HostKeyAlias(String),
    /// `KnownHostsCommand`: the rest of its line, as written, and where (`None` for `none`).
    KnownHostsCommand(Option<(String, ConfigLine)>),
    /// `CASignatureAlgorithms`, as written.
    CaSignatureAlgorithms(String),
    /// `None` for `ConnectTimeout none`.
    ConnectTimeout(Option<u64>),
    /// `KexAlgorithms`, `Ciphers`, `MACs` or `HostKeyAlgorithms`.
    Algorithms(AlgorithmSetting),
}

/// What parsing needs from outside: the home directory (for `Include` and `~`) and a place
/// for warnings.
pub(crate) struct Context<'a> {
    pub(crate) home: Option<&'a Path>,
    pub(crate) warnings: &'a mut Vec<SshConfigWarning>,
}

/// Parses the text of one file, reading the files it includes.
pub(crate) fn parse(text: &str, file: &str, depth: usize, cx: &mut Context<'_>) -> Result<Vec<Item>, InventoryError> {
    let mut items = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = u32::try_from(index + 1).unwrap_or(u32::MAX);
        let error = |kind| InventoryError::new(file, Some(line), kind);
        let Some((keyword, args)) = split_line(raw).map_err(|e| {
            error(match e {
                SplitError::UnterminatedQuote(_) => ErrorKind::UnterminatedQuote { context: "ssh_config line" },
                SplitError::TrailingBackslash(_) => ErrorKind::TrailingBackslash { context: "ssh_config line" },
            })
        })?
        else {
            continue;
        };
        let lower = keyword.to_ascii_lowercase();
        let algorithms = AlgorithmKind::from_keyword(&lower);
        let needs_value = algorithms.is_some()
            || matches!(
                lower.as_str(),
                "host"
                    | "match"
                    | "include"
                    | "hostname"
                    | "user"
                    | "port"
                    | "identityfile"
                    | "proxyjump"
                    | "userknownhostsfile"
                    | "globalknownhostsfile"
                    | "stricthostkeychecking"
                    | "revokedhostkeys"
                    | "hostkeyalias"
                    | "knownhostscommand"
                    | "casignaturealgorithms"
                    | "connecttimeout"
            );
        if needs_value && args.is_empty() {
            return Err(error(ErrorKind::SshMissingValue { keyword }));
        }
        let first = args.first().cloned().unwrap_or_default();
        if let Some(kind) = algorithms {
            // One list, as ssh wants it: `Ciphers a, b` is an error there too.
            if args.len() > 1 {
                let value = args.join(" ");
                let expected = "one comma-separated list, without spaces";
                return Err(error(ErrorKind::SshBadValue { keyword: keyword.clone(), value, expected }));
            }
            if first.is_empty() {
                return Err(error(ErrorKind::SshMissingValue { keyword }));
            }
            items.push(Item::Setting(Setting::Algorithms(AlgorithmSetting {
                kind,
                list: first,
                file: file.to_owned(),
                line,
            })));
            continue;
        }
        let bad = |expected| error(ErrorKind::SshBadValue { keyword: keyword.clone(), value: first.clone(), expected });
        let item = match lower.as_str() {
            "host" => Item::Host(args),
            "match" if args.len() == 1 && first.eq_ignore_ascii_case("all") => Item::MatchAll,
            "match" => {
                cx.warnings.push(SshConfigWarning {
                    file: file.to_owned(),
                    line,
                    message: format!(
                        "`Match {}` is not supported (only `Match all` is); fabcheck skips its block",
                        args.join(" ")
                    ),
                });
                Item::MatchUnsupported
            }
            "include" => {
                if depth >= MAX_INCLUDE_DEPTH {
                    return Err(error(ErrorKind::SshIncludeTooDeep { limit: MAX_INCLUDE_DEPTH }));
                }
                Item::Include(include::load(&args, file, line, depth + 1, cx)?)
            }
            "hostname" => Item::Setting(Setting::HostName(first)),
            "user" => Item::Setting(Setting::User(first)),
            "port" => match first.parse::<u16>() {
                Ok(port) if port > 0 => Item::Setting(Setting::Port(port)),
                _ => return Err(bad("a port number (1-65535)")),
            },
            "identityfile" => Item::Setting(Setting::IdentityFile(first)),
            "proxyjump" => Item::Setting(Setting::ProxyJump(first)),
            "userknownhostsfile" => Item::Setting(Setting::UserKnownHostsFile(args)),
            "globalknownhostsfile" => Item::Setting(Setting::GlobalKnownHostsFile(args)),
            // As ssh: `none` only alone, and no empty argument.
            "revokedhostkeys"
                if args.iter().any(String::is_empty)
                    || (args.len() > 1 && args.iter().any(|a| a.eq_ignore_ascii_case("none"))) =>
            {
                let value = args.join(" ");
                let expected = "files, or none alone";
                return Err(error(ErrorKind::SshBadValue { keyword: keyword.clone(), value, expected }));
            }
            "revokedhostkeys" => {
                Item::Setting(Setting::RevokedHostKeys(args, ConfigLine { file: file.to_owned(), line }))
            }
            "hostkeyalias" => Item::Setting(Setting::HostKeyAlias(first)),
            "knownhostscommand" => {
                let command = command_value(raw);
                let set_at = ConfigLine { file: file.to_owned(), line };
                Item::Setting(Setting::KnownHostsCommand(
                    (!command.eq_ignore_ascii_case("none")).then_some((command, set_at)),
                ))
            }
            "casignaturealgorithms" => Item::Setting(Setting::CaSignatureAlgorithms(first)),
            // fabcheck runs no local command to reach a device: the host would be connected to
            // directly, which fails or, worse, reaches another machine. Said at its line, since
            // ProxyJump does what most ProxyCommands (`ssh -W %h:%p bastion`) do.
            "proxycommand" if !first.eq_ignore_ascii_case("none") => {
                cx.warnings.push(SshConfigWarning {
                    file: file.to_owned(),
                    line,
                    message: format!(
                        "`ProxyCommand {}` is not supported: fabcheck does not run it and connects to its hosts directly; use `ProxyJump` for a jump host",
                        command_value(raw)
                    ),
                });
                continue;
            }
            "stricthostkeychecking" => match StrictHostKeyChecking::parse(&first) {
                Some(mode) => {
                    Item::Setting(Setting::StrictHostKeyChecking(HostKeyChecking { mode, file: file.to_owned(), line }))
                }
                None => return Err(bad("yes, no, ask, accept-new or off")),
            },
            "connecttimeout" if first.eq_ignore_ascii_case("none") => Item::Setting(Setting::ConnectTimeout(None)),
            "connecttimeout" => match first.parse::<u64>() {
                Ok(seconds) => Item::Setting(Setting::ConnectTimeout(Some(seconds))),
                Err(_) => return Err(bad("a number of seconds")),
            },
            // Everything else is ssh's business, not fabcheck's.
            _ => continue,
        };
        items.push(item);
    }
    Ok(items)
}

/// The value of a command keyword as ssh keeps it (`parse_command` in readconf.c): the rest of
/// the line after the keyword and any blanks or `=`, quotes and all, without trailing blanks.
fn command_value(raw: &str) -> String {
    let line = raw.trim();
    let end = line.find(|c: char| c.is_whitespace() || c == '=').unwrap_or(line.len());
    line[end..].trim_start_matches(|c: char| c.is_whitespace() || c == '=').to_owned()
}

/// Splits one line into its keyword and arguments (`Key value`, `Key=value`, `Key = value`);
/// `None` for blank lines and comments.
fn split_line(raw: &str) -> Result<Option<(String, Vec<String>)>, SplitError> {
    let line = raw.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let end = line.find(|c: char| c.is_whitespace() || c == '=').unwrap_or(line.len());
    let (keyword, rest) = line.split_at(end);
    let rest = rest.trim_start();
    let rest = rest.strip_prefix('=').unwrap_or(rest);
    let args = shlex::split(rest, Comments::WordStart)?;
    Ok(Some((keyword.to_owned(), args)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyword_forms() {
        let kw = |l: &str| split_line(l).unwrap();
        assert_eq!(kw("  HostName  a.b "), Some(("HostName".into(), vec!["a.b".into()])));
        assert_eq!(kw("Port=2222"), Some(("Port".into(), vec!["2222".into()])));
        assert_eq!(kw("Port = 2222"), Some(("Port".into(), vec!["2222".into()])));
        assert_eq!(kw("Host a b !c # note"), Some(("Host".into(), vec!["a".into(), "b".into(), "!c".into()])));
        assert_eq!(kw(r#"IdentityFile "~/my keys/id""#), Some(("IdentityFile".into(), vec!["~/my keys/id".into()])));
        assert_eq!(kw("# comment"), None);
        assert_eq!(kw("   "), None);
    }

    /// As readconf.c's `parse_command`: the rest of the line, quotes, `#` and inner blanks kept.
    #[test]
    fn a_command_is_the_rest_of_its_line() {
        assert_eq!(command_value("  KnownHostsCommand  /bin/k \"%H x\"  # keys\t "), "/bin/k \"%H x\"  # keys");
        assert_eq!(command_value("KnownHostsCommand= =/bin/k %H"), "/bin/k %H");
        assert_eq!(command_value("KnownHostsCommand=/bin/k"), "/bin/k");
    }

    #[test]
    fn bad_values_are_errors_with_lines() {
        let mut warnings = Vec::new();
        let mut cx = Context { home: None, warnings: &mut warnings };
        let err = parse("Host a\n  Port ssh\n", "cfg", 0, &mut cx).unwrap_err();
        assert_eq!(err.to_string(), "cfg:2: Port `ssh` is not a port number (1-65535)");
        let err = parse("HostName\n", "cfg", 0, &mut cx).unwrap_err();
        assert_eq!(err.to_string(), "cfg:1: HostName needs a value");
        let err = parse("Host a\nConnectTimeout soon\n", "cfg", 0, &mut cx).unwrap_err();
        assert_eq!(err.to_string(), "cfg:2: ConnectTimeout `soon` is not a number of seconds");
        let err = parse("StrictHostKeyChecking maybe\n", "cfg", 0, &mut cx).unwrap_err();
        assert_eq!(err.to_string(), "cfg:1: StrictHostKeyChecking `maybe` is not yes, no, ask, accept-new or off");
        let err = parse("User \"x\n", "cfg", 0, &mut cx).unwrap_err();
        assert_eq!(err.to_string(), "cfg:1: unterminated quote in ssh_config line");
    }
}
