//! Computing the settings for one host alias, the way ssh walks its config.
//!
//! Items are read top to bottom; a `Host` or `Match` line switches whether the following
//! settings apply; the first value obtained for each keyword wins (so specific blocks go
//! first and `Host *` last), except `IdentityFile`, whose lines accumulate. An `Include`d file
//! starts with its settings applying and cannot change whether the including block applies.

use std::path::{Path, PathBuf};

use crate::names::wildcard_match;
use crate::paths::expand_tilde;

use super::algorithms::AlgorithmSetting;
use super::command::KnownHostsCommand;
use super::host_keys::{ConfigLine, HostKeyChecking, HostKeySettings, RevokedHostKeys};
use super::parse::{Item, Setting};
use super::tokens::{Env, connection_hash, expand};

/// What ~/.ssh/config says for one host alias (only the keywords fabcheck uses).
///
/// `None` and empty lists mean the config does not say: the caller applies its defaults
/// (port 22, the local user, ssh's default key and known_hosts files).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SshHostConfig {
    /// `HostName`, with `%h` expanded to the alias (as written when ssh would refuse it: see
    /// [`refused`](SshHostConfig::refused)).
    pub hostname: Option<String>,
    /// `User`.
    pub user: Option<String>,
    /// `Port`.
    pub port: Option<u16>,
    /// Every applicable `IdentityFile`, in order, with `~` and ssh's `%` tokens expanded.
    pub identity_files: Vec<PathBuf>,
    /// `ProxyJump`; `ProxyJump none` gives `None`.
    pub proxy_jump: Option<String>,
    /// Where its host keys are listed and how they are checked.
    pub host_keys: HostKeySettings,
    /// `ConnectTimeout` in seconds; `ConnectTimeout none` gives `None`.
    pub connect_timeout: Option<u64>,
    /// The first `KexAlgorithms`, `Ciphers`, `MACs` and `HostKeyAlgorithms` that apply, each
    /// at most once, unapplied (the caller knows its algorithms).
    pub algorithms: Vec<AlgorithmSetting>,
    /// Why ssh would refuse to connect to this host: a `HostName`, `IdentityFile` or
    /// `RevokedHostKeys` with a token it does not know there, or an unset `${VAR}`
    /// (`IdentityFile ${KEYS}/id: the environment variable ${KEYS} has no value`); the first met.
    /// Such a name is left out of its list. (`UserKnownHostsFile`'s is in [`HostKeySettings`].)
    pub refused: Option<String>,
}

/// The first value obtained for each keyword, before expansion.
#[derive(Default)]
struct Obtained {
    hostname: Option<String>,
    user: Option<String>,
    port: Option<u16>,
    identity_files: Vec<String>,
    proxy_jump: Option<String>,
    known_hosts: Option<Vec<String>>,
    global_known_hosts: Option<Vec<String>>,
    strict: Option<HostKeyChecking>,
    revoked: Option<(Vec<String>, ConfigLine)>,
    alias: Option<String>,
    command: Option<Option<(String, ConfigLine)>>,
    ca_signatures: Option<String>,
    timeout: Option<Option<u64>>,
    algorithms: Vec<AlgorithmSetting>,
}

impl Obtained {
    fn take(&mut self, setting: &Setting) {
        fn first<T: Clone>(slot: &mut Option<T>, value: &T) {
            if slot.is_none() {
                *slot = Some(value.clone());
            }
        }
        match setting {
            Setting::HostName(v) => first(&mut self.hostname, v),
            Setting::User(v) => first(&mut self.user, v),
            Setting::Port(v) => first(&mut self.port, v),
            Setting::IdentityFile(v) => self.identity_files.push(v.clone()),
            Setting::ProxyJump(v) => first(&mut self.proxy_jump, v),
            Setting::UserKnownHostsFile(v) => first(&mut self.known_hosts, v),
            Setting::GlobalKnownHostsFile(v) => first(&mut self.global_known_hosts, v),
            Setting::StrictHostKeyChecking(v) => first(&mut self.strict, v),
            Setting::RevokedHostKeys(files, at) => first(&mut self.revoked, &(files.clone(), at.clone())),
            Setting::HostKeyAlias(v) => first(&mut self.alias, v),
            Setting::KnownHostsCommand(v) => first(&mut self.command, v),
            Setting::CaSignatureAlgorithms(v) => first(&mut self.ca_signatures, v),
            Setting::ConnectTimeout(v) => first(&mut self.timeout, v),
            Setting::Algorithms(v) => {
                if !self.algorithms.iter().any(|a| a.kind == v.kind) {
                    self.algorithms.push(v.clone());
                }
            }
        }
    }
}

/// What ssh knows of this side of a connection, for its `%` tokens.
pub(crate) struct Local<'a> {
    /// The home directory (`~`, `%d`).
    pub(crate) home: Option<&'a Path>,
    /// The local user (`%u`, and `%r` when no `User` applies).
    pub(crate) user: Option<&'a str>,
    /// This machine's name (`%l`, `%L`).
    pub(crate) host: Option<&'a str>,
    /// The user ID (`%i`).
    pub(crate) uid: Option<&'a str>,
    /// The environment's variables (`${VAR}` in file names).
    pub(crate) env: Env<'a>,
}

/// What ssh is given on its command line over ssh_config (`-o User=`, `-o Port=`, as Ansible
/// passes `ansible_user` and `ansible_port`; a jump hop's `user@host:port`, and for a hop after
/// the first the hops before it, as ssh runs it with `-J`): its `%r`, `%p`, `%j` and `%C` are
/// these.
#[derive(Debug, Clone, Copy, Default)]
pub struct Given<'a> {
    /// The remote user.
    pub user: Option<&'a str>,
    /// The port.
    pub port: Option<u16>,
    /// The ProxyJump list in place of ssh_config's (`%j` is its last hop's host).
    pub jump: Option<&'a str>,
}

/// Resolves `alias` against parsed items.
pub(crate) fn resolve(items: &[Item], alias: &str, local: &Local<'_>, given: Given<'_>) -> SshHostConfig {
    let mut obtained = Obtained::default();
    let mut active = true;
    walk(items, &alias.to_ascii_lowercase(), &mut active, &mut obtained);

    // HostName takes `%h` alone (ssh's `percent_expand`); anything else refuses the host, as a
    // file name ssh cannot expand does (the first such setting is kept).
    let mut refused = None;
    fn refuse(setting: &str, value: &str, e: String, refused: &mut Option<String>) {
        refused.get_or_insert_with(|| format!("{setting} {value}: {e}"));
    }
    let hostname = obtained.hostname.map(|h| {
        expand(&h, &[('h', alias)], None).unwrap_or_else(|e| {
            refuse("HostName", &h, e, &mut refused);
            h.clone()
        })
    });
    // As ssh (ssh.c): the host in lower case unless it is an address, and the alias too.
    let remote_host = hostname.clone().unwrap_or_else(|| alias.to_owned());
    let remote_host = if is_address(&remote_host) { remote_host } else { remote_host.to_ascii_lowercase() };
    let local_user = local.user.unwrap_or_default();
    let remote_user =
        given.user.map(str::to_owned).or_else(|| obtained.user.clone()).unwrap_or_else(|| local_user.to_owned());
    let port = given.port.or(obtained.port).unwrap_or(22).to_string();
    let home_text = local.home.map(|h| h.display().to_string()).unwrap_or_default();
    let this_host = local.host.unwrap_or_default();
    let jump = given.jump.or(obtained.proxy_jump.as_deref()).map(jump_host).unwrap_or_default().to_owned();
    let key_alias = obtained.alias.as_deref().map_or_else(|| alias.to_owned(), str::to_ascii_lowercase);
    let hash = connection_hash(&[this_host, &remote_host, &port, &remote_user, &jump]);
    // ssh's DEFAULT_CLIENT_PERCENT_EXPAND_ARGS (sshconnect.h).
    let tokens = [
        ('h', remote_host.as_str()),
        ('n', alias),
        ('u', local_user),
        ('r', remote_user.as_str()),
        ('d', home_text.as_str()),
        ('p', port.as_str()),
        ('l', this_host),
        ('L', this_host.split('.').next().unwrap_or_default()),
        ('i', local.uid.unwrap_or_default()),
        ('k', key_alias.as_str()),
        ('j', jump.as_str()),
        ('C', hash.as_str()),
    ];
    // As ssh's `default_client_percent_dollar_expand`, after `~`: a name with an unknown token
    // or an unset variable is an error, which refuses the host, and is left out.
    let path = |setting: &str, p: &String, refused: &mut Option<String>| {
        let tilded = expand_tilde(p, local.home);
        match expand(&tilded.to_string_lossy(), &tokens, Some(local.env)) {
            Ok(expanded) => Some(PathBuf::from(expanded)),
            Err(e) => {
                refuse(setting, p, e, refused);
                None
            }
        }
    };
    let known_hosts_command = obtained.command.flatten().map(|(command, set_at)| KnownHostsCommand {
        command,
        tokens: tokens.iter().map(|(k, v)| (*k, (*v).to_owned())).collect(),
        set_at,
    });

    let identity_files = obtained.identity_files.iter().filter_map(|f| path("IdentityFile", f, &mut refused)).collect();
    let revoked_host_keys = obtained.revoked.and_then(|(list, set_at)| {
        let files = file_list(&list, |f| path("RevokedHostKeys", f, &mut refused));
        (!files.is_empty()).then_some(RevokedHostKeys { files, set_at })
    });
    // Apart: `--known-hosts` takes the place of these files, and of their errors.
    let mut known_hosts_refused = None;
    let user_known_hosts_files =
        obtained.known_hosts.map(|list| file_list(&list, |f| path("UserKnownHostsFile", f, &mut known_hosts_refused)));

    SshHostConfig {
        hostname,
        user: obtained.user,
        port: obtained.port,
        identity_files,
        proxy_jump: obtained.proxy_jump.filter(|p| !p.eq_ignore_ascii_case("none")),
        host_keys: HostKeySettings {
            user_known_hosts_files,
            // ssh expands only `~` there (`tilde_expand_paths`).
            global_known_hosts_files: obtained
                .global_known_hosts
                .map(|list| file_list(&list, |f| Some(expand_tilde(f, local.home)))),
            strict_host_key_checking: obtained.strict,
            revoked_host_keys,
            host_key_alias: obtained.alias,
            known_hosts_command,
            ca_signature_algorithms: obtained.ca_signatures,
            user_known_hosts_refused: known_hosts_refused,
        },
        connect_timeout: obtained.timeout.flatten(),
        algorithms: obtained.algorithms,
        refused,
    }
}

/// The files a list names, each expanded by `expand` (`None`: left out); `none` names none.
fn file_list(list: &[String], expand: impl FnMut(&String) -> Option<PathBuf>) -> Vec<PathBuf> {
    list.iter().filter(|f| !f.eq_ignore_ascii_case("none")).filter_map(expand).collect()
}

/// Whether ssh takes `host` for an address, which it does not lower-case: a name with `:` or
/// `%`, or of digits and dots only (`is_addr_fast`; every IP address is one of these).
fn is_address(host: &str) -> bool {
    host.contains([':', '%']) || host.bytes().all(|b| b.is_ascii_digit() || b == b'.')
}

fn walk(items: &[Item], alias: &str, active: &mut bool, obtained: &mut Obtained) {
    for item in items {
        match item {
            Item::Host(patterns) => *active = host_matches(patterns, alias),
            Item::MatchAll => *active = true,
            Item::MatchUnsupported => *active = false,
            Item::Setting(setting) if *active => obtained.take(setting),
            Item::Setting(_) => {}
            Item::Include(files) if *active => {
                for file in files {
                    let mut file_active = true;
                    walk(file, alias, &mut file_active, obtained);
                }
            }
            Item::Include(_) => {}
        }
    }
}

/// A `Host` line applies if a pattern matches and no `!pattern` does (case-insensitively;
/// ssh lower-cases the host name it matches).
fn host_matches(patterns: &[String], alias: &str) -> bool {
    let mut matched = false;
    for pattern in patterns {
        let pattern = pattern.to_ascii_lowercase();
        match pattern.strip_prefix('!') {
            Some(negated) if wildcard_match(negated, alias) => return false,
            Some(_) => {}
            None => matched |= wildcard_match(&pattern, alias),
        }
    }
    matched
}

/// The host of a `ProxyJump` list's last hop (`%j`): the one ssh connects through last, without
/// its user or port; `none` gives none.
fn jump_host(spec: &str) -> &str {
    if spec.eq_ignore_ascii_case("none") {
        return "";
    }
    JumpHop::parse(spec.rsplit(',').next().unwrap_or(spec)).host
}

/// One hop of a `ProxyJump` list, as ssh reads it: `ssh://[user@]host[:port]` (`parse_ssh_uri`)
/// or `[user@]host[:port]` (`parse_user_host_port`), an IPv6 host in brackets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JumpHop<'a> {
    /// The user, when given (everything before the last `@`).
    pub user: Option<&'a str>,
    /// The host.
    pub host: &'a str,
    /// The port, when given and a port number.
    pub port: Option<u16>,
}

impl<'a> JumpHop<'a> {
    /// Reads one hop.
    pub fn parse(hop: &'a str) -> JumpHop<'a> {
        let hop = hop.trim();
        let hop = hop.strip_prefix("ssh://").map_or(hop, |rest| rest.trim_end_matches('/'));
        let (user, rest) = match hop.rsplit_once('@') {
            Some((user, rest)) => (Some(user), rest),
            None => (None, hop),
        };
        let (host, port) = match rest.strip_prefix('[').and_then(|r| r.split_once(']')) {
            Some((host, after)) => (host, after.strip_prefix(':')),
            // An IPv6 address without brackets has no port (ssh refuses it; its host is kept).
            None => match rest.split_once(':').filter(|(_, port)| !port.contains(':')) {
                Some((host, port)) => (host, Some(port)),
                None => (rest, None),
            },
        };
        JumpHop { user, host, port: port.and_then(|p| p.parse().ok()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` parsed and resolved for `alias` as `local`.
    fn resolve_text(text: &str, alias: &str, local: &Local<'_>) -> SshHostConfig {
        let mut warnings = Vec::new();
        let mut cx = super::super::parse::Context { home: None, warnings: &mut warnings };
        let items = super::super::parse::parse(text, "cfg", 0, &mut cx).unwrap();
        resolve(&items, alias, local, Given::default())
    }

    /// Where `ssh -G` was run for the expected values below: root on a machine named `vm`.
    fn root_on_vm() -> Local<'static> {
        Local { home: Some(Path::new("/root")), user: Some("root"), host: Some("vm"), uid: Some("0"), env: &|_| None }
    }

    /// Every token ssh expands in a file name, against OpenSSH's own: `ssh -G -F cfg gpu01`
    /// (OpenSSH 9.2p1, on a machine named `vm`, as root) printed the `userknownhostsfile` below
    /// for this config. With a ProxyJump, `%j` is the last hop's host and `%C` hashes it too, as
    /// OpenSSH 9.6 and later do (`ssh_connection_hash`; 9.2 knew neither).
    #[test]
    fn every_token_of_a_file_name_as_ssh_expands_it() {
        let config = |jump: &str| {
            let text = format!(
                "Host gpu01\n  User root\n  Port 2200\n  HostKeyAlias cluster\n{jump}  \
                 UserKnownHostsFile /x/%d/%u/%i/%l/%L/%n/%h/%p/%r/%k/%C\n  IdentityFile %j\n  GlobalKnownHostsFile ~/g/%h\n"
            );
            resolve_text(&text, "gpu01", &root_on_vm())
        };
        let direct = config("");
        let by_ssh = "/x//root/root/0/vm/vm/gpu01/gpu01/2200/root/cluster/1ef9c314cd7d02945aa47bfe69b173346427415a";
        assert_eq!(direct.host_keys.user_known_hosts_files, Some(vec![PathBuf::from(by_ssh)]));
        let global = Some(vec![PathBuf::from("/root/g/%h")]);
        assert_eq!(direct.host_keys.global_known_hosts_files, global, "as ssh: `~` only");
        let jumped = config("  ProxyJump ops@bastion.example.org:2222\n");
        let known = jumped.host_keys.user_known_hosts_files.unwrap()[0].display().to_string();
        assert!(known.ends_with("/cluster/bdfc69d30e6128525b811d0bd6fa3622c1015fe2"), "{known}");
        assert_eq!(jumped.identity_files, [PathBuf::from("bastion.example.org")]);
        assert_eq!(jump_host("a,u@b.example.org:2222"), "b.example.org");
        assert_eq!(jump_host("[fe80::1]:22"), "fe80::1");
        assert_eq!(jump_host("a,ssh://ops@c.example.org:2200"), "c.example.org");
        assert_eq!(jump_host("none"), "");
        let hop = |s| JumpHop::parse(s);
        assert_eq!(hop("ssh://ops@bastion:2222"), JumpHop { user: Some("ops"), host: "bastion", port: Some(2222) });
        assert_eq!(hop("ops@[fe80::1]:2200"), JumpHop { user: Some("ops"), host: "fe80::1", port: Some(2200) });
        assert_eq!(hop("a@b@bastion"), JumpHop { user: Some("a@b"), host: "bastion", port: None });
        assert_eq!(hop("bastion"), JumpHop { user: None, host: "bastion", port: None });
        assert_eq!(hop("fe80::1"), JumpHop { user: None, host: "fe80::1", port: None });
    }

    /// `%h` and `%k` in lower case, as ssh has them, but an address's `%h` and `%n` as written:
    /// OpenSSH 9.2's `ssh -G -F cfg Node7` (on `vm`, as root) printed these for this config.
    #[test]
    fn host_and_alias_tokens_are_in_lower_case_as_ssh_has_them() {
        let text = "Host Node7\n  HostName Gpu01.Example.ORG\n  HostKeyAlias Cluster-A\n  User root\n  Port 2200\n  \
                    UserKnownHostsFile /x/%h/%k/%n/%C\nHost node9\n  HostName FE80::1\n  UserKnownHostsFile /x/%h/%k\n";
        let file =
            |alias| resolve_text(text, alias, &root_on_vm()).host_keys.user_known_hosts_files.unwrap()[0].clone();
        let by_ssh = "/x/gpu01.example.org/cluster-a/Node7/44ce87e7e3d117e99f74a8a047e6c33cb65a01e7";
        assert_eq!(file("Node7"), PathBuf::from(by_ssh));
        assert_eq!(file("node9"), PathBuf::from("/x/FE80::1/node9"), "an address as written");
    }

    /// As ssh's `default_client_percent_dollar_expand`: `${VAR}` is the environment's, and a
    /// token ssh does not know or an unset variable makes the host one ssh refuses, named by
    /// the setting that says so; `GlobalKnownHostsFile` takes `~` only.
    #[test]
    fn file_names_take_the_environment_and_refuse_what_ssh_refuses() {
        let env = |name: &str| (name == "KEYS").then(|| "/srv/keys".to_string());
        let local = Local { home: Some(Path::new("/home/a")), user: Some("a"), env: &env, ..root_on_vm() };
        let resolved = |text: &str| resolve_text(text, "gpu01", &local);
        let ok = resolved(
            "IdentityFile ${KEYS}/%h\nUserKnownHostsFile ${KEYS}/known_hosts\nGlobalKnownHostsFile ${KEYS}/g\n",
        );
        assert_eq!(ok.identity_files, [PathBuf::from("/srv/keys/gpu01")]);
        assert_eq!(ok.host_keys.user_known_hosts_files, Some(vec![PathBuf::from("/srv/keys/known_hosts")]));
        assert_eq!(ok.host_keys.global_known_hosts_files, Some(vec![PathBuf::from("${KEYS}/g")]), "`~` only there");
        assert_eq!(ok.refused, None);
        // A name ssh cannot expand is left out of its list, and the host refused; a
        // UserKnownHostsFile's refusal is kept apart (`--known-hosts` replaces those files).
        let bad = resolved("IdentityFile ~/.ssh/id_%x\nIdentityFile ~/.ssh/ok\nUserKnownHostsFile ${UNSET}/k ~/k2\n");
        assert_eq!(bad.identity_files, [PathBuf::from("/home/a/.ssh/ok")]);
        assert_eq!(bad.host_keys.user_known_hosts_files, Some(vec![PathBuf::from("/home/a/k2")]));
        assert!(bad.refused.as_deref().is_some_and(|r| r.starts_with("IdentityFile ~/.ssh/id_%x:")), "{bad:?}");
        let known = bad.host_keys.user_known_hosts_refused.unwrap_or_default();
        assert!(known.starts_with("UserKnownHostsFile ${UNSET}/k:"), "{known}");
        // An address keeps its case in `%h`; `%%` is HostName's `%`.
        let scoped = resolved("HostName fe80::1%%ETH0\nUserKnownHostsFile /kh/%h\n");
        assert_eq!(scoped.hostname.as_deref(), Some("fe80::1%ETH0"));
        assert_eq!(scoped.host_keys.user_known_hosts_files, Some(vec![PathBuf::from("/kh/fe80::1%ETH0")]));
        for (text, error) in [
            ("IdentityFile ~/.ssh/id_%x\n", "IdentityFile ~/.ssh/id_%x: `/home/a/.ssh/id_%x` has the token %x"),
            ("HostName %h.%d\n", "HostName %h.%d: `%h.%d` has the token %d"),
            (
                "UserKnownHostsFile ${UNSET}/k\n",
                "UserKnownHostsFile ${UNSET}/k: the environment variable ${UNSET} has no value",
            ),
            (
                "RevokedHostKeys /etc/ssh/revoked%\n",
                "RevokedHostKeys /etc/ssh/revoked%: `/etc/ssh/revoked%` ends in a lone `%`",
            ),
        ] {
            let refused =
                resolved(text).refused.or(resolved(text).host_keys.user_known_hosts_refused).unwrap_or_default();
            assert!(refused.starts_with(error), "{text}: {refused}");
        }
    }

    #[test]
    fn negation_beats_any_match() {
        let p = |s: &[&str]| s.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
        assert!(host_matches(&p(&["gpu*"]), "gpu01"));
        assert!(!host_matches(&p(&["gpu*", "!gpu01"]), "gpu01"));
        assert!(!host_matches(&p(&["!gpu01", "gpu*"]), "gpu01"));
        assert!(!host_matches(&p(&["!gpu01"]), "leaf1"));
        assert!(host_matches(&p(&["GPU01"]), "gpu01"));
    }
}
