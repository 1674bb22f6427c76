//! What ssh_config says of a host's keys, in one place: where they are listed, how strictly
//! they are checked, and the settings fabcheck does not carry out, with the line each was
//! written on (a value fabcheck does not honour is warned about by its line, not guessed at
//! from text).

use super::command::KnownHostsCommand;
use std::path::PathBuf;

/// The host-key settings ssh_config gives one host. `None` means the config does not say; a
/// known_hosts list that is `Some` but empty was written `none` (no file of that kind), or every
/// name in it was one ssh cannot expand, which [`user_known_hosts_refused`] then says (and
/// likewise `RevokedHostKeys`, in the host's `refused`): read those before the lists.
///
/// [`user_known_hosts_refused`]: HostKeySettings::user_known_hosts_refused
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostKeySettings {
    /// `UserKnownHostsFile` (one line may list several), expanded like identity files.
    pub user_known_hosts_files: Option<Vec<PathBuf>>,
    /// `GlobalKnownHostsFile`, likewise.
    pub global_known_hosts_files: Option<Vec<PathBuf>>,
    /// `StrictHostKeyChecking`, with its line.
    pub strict_host_key_checking: Option<HostKeyChecking>,
    /// `RevokedHostKeys` (`none`, or only names ssh cannot expand, give `None`).
    pub revoked_host_keys: Option<RevokedHostKeys>,
    /// `HostKeyAlias`.
    pub host_key_alias: Option<String>,
    /// `KnownHostsCommand` (`none` gives `None`).
    pub known_hosts_command: Option<KnownHostsCommand>,
    /// `CASignatureAlgorithms`, as written (`+`, `-`, `^` forms and patterns included).
    pub ca_signature_algorithms: Option<String>,
    /// Why ssh would refuse the host for its `UserKnownHostsFile` (a name it cannot expand),
    /// unless other files are given in their place (`--known-hosts`, as ssh's `-o`).
    pub user_known_hosts_refused: Option<String>,
}

/// What ssh does with a host key it has not seen before, or one that changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StrictHostKeyChecking {
    /// `yes` (or `true`): unknown and changed keys are refused.
    Yes,
    /// `ask`: ssh asks at the terminal; a batch run cannot, so it refuses as `yes` does.
    Ask,
    /// `accept-new`: unknown keys are recorded and trusted, changed keys refused.
    AcceptNew,
    /// `no` (or `off`, `false`): unknown keys are recorded, and ssh goes on past a changed key.
    No,
}

impl StrictHostKeyChecking {
    /// The value as ssh reads it (any case); `None` for anything ssh would refuse.
    pub(crate) fn parse(value: &str) -> Option<StrictHostKeyChecking> {
        match value.to_ascii_lowercase().as_str() {
            "yes" | "true" => Some(StrictHostKeyChecking::Yes),
            "ask" => Some(StrictHostKeyChecking::Ask),
            "accept-new" => Some(StrictHostKeyChecking::AcceptNew),
            "no" | "off" | "false" => Some(StrictHostKeyChecking::No),
            _ => None,
        }
    }
}

/// One `StrictHostKeyChecking` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostKeyChecking {
    /// Its value.
    pub mode: StrictHostKeyChecking,
    /// The file it is in.
    pub file: String,
    /// Its 1-based line.
    pub line: u32,
}

/// ssh_config's `RevokedHostKeys`: files of keys ssh refuses for host authentication.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RevokedHostKeys {
    /// The files, expanded like identity files (one line may list several).
    pub files: Vec<PathBuf>,
    /// Where it is set: a file that cannot be read refuses every host the line applies to.
    pub set_at: ConfigLine,
}

/// Where a setting was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigLine {
    /// The file.
    pub file: String,
    /// The 1-based line.
    pub line: u32,
}

#[cfg(test)]
mod tests {
    use super::StrictHostKeyChecking::{self, *};

    #[test]
    fn every_value_ssh_accepts_in_any_case_and_nothing_else() {
        let cases = [
            ("yes", Some(Yes)),
            ("True", Some(Yes)),
            ("ask", Some(Ask)),
            ("accept-new", Some(AcceptNew)),
            ("Accept-New", Some(AcceptNew)),
            ("no", Some(No)),
            ("off", Some(No)),
            ("FALSE", Some(No)),
            ("accept_new", None),
            ("", None),
            ("1", None),
        ];
        for (text, mode) in cases {
            assert_eq!(StrictHostKeyChecking::parse(text), mode, "{text:?}");
        }
    }
}
