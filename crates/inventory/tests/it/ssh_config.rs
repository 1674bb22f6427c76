//! ~/.ssh/config resolution on fixtures/ssh-home (used as $HOME), and the precedence of
//! inventory variables over it.

use std::path::{Path, PathBuf};

use fabcheck_inventory::ssh_config::{
    AlgorithmKind, AlgorithmSetting, Given, HostKeyChecking, HostKeySettings, StrictHostKeyChecking,
};
use fabcheck_inventory::{ErrorKind, Inventory, SshConfig, SshHostConfig};

use crate::fixture;

fn home() -> PathBuf {
    fixture("ssh-home")
}

fn config() -> SshConfig {
    let path = home().join(".ssh/config");
    let text = std::fs::read_to_string(&path).unwrap();
    SshConfig::parse_with_home(&text, "ssh-home/.ssh/config", &home())
        .unwrap_or_else(|e| panic!("{e}"))
        .with_local_user("alice")
}

fn key(name: &str) -> PathBuf {
    home().join(".ssh").join(name)
}

#[test]
fn specific_block_then_wildcards_first_value_wins() {
    let gpu01 = config().resolve("gpu01");
    assert_eq!(
        gpu01,
        SshHostConfig {
            hostname: Some("gpu01.lab.example.com".into()),
            user: Some("ops".into()),
            port: Some(2222),
            identity_files: vec![key("id_ops@gpu01.lab.example.com"), key("gpu_fleet"), key("id_ed25519")],
            proxy_jump: Some("bastion".into()),
            host_keys: HostKeySettings {
                user_known_hosts_files: Some(vec![
                    key("known_hosts_fabcheck"),
                    PathBuf::from("/etc/ssh/ssh_known_hosts")
                ]),
                strict_host_key_checking: Some(HostKeyChecking {
                    mode: StrictHostKeyChecking::AcceptNew,
                    file: "ssh-home/.ssh/config".into(),
                    line: 26,
                }),
                ..HostKeySettings::default()
            },
            connect_timeout: Some(7),
            algorithms: vec![AlgorithmSetting {
                kind: AlgorithmKind::HostKeys,
                list: "^ssh-ed25519".into(),
                file: "ssh-home/.ssh/config".into(),
                line: 29,
            }],
            refused: None,
        }
    );
}

#[test]
fn several_patterns_on_one_host_line() {
    let gpu02 = config().resolve("gpu02");
    assert_eq!(gpu02.hostname.as_deref(), Some("gpu02.lab.example.com"));
    assert_eq!(gpu02.user.as_deref(), Some("ops"));
    let gpu03 = config().resolve("gpu03");
    assert_eq!(gpu03.hostname, None);
    assert_eq!(gpu03.user.as_deref(), Some("fallback"));
    assert_eq!(gpu03.identity_files, [key("gpu_fleet"), key("id_ed25519")]);
}

#[test]
fn negation_excludes_and_proxyjump_none_wins_first() {
    let gpu09 = config().resolve("gpu09");
    assert_eq!(gpu09.port, Some(22), "`gpu* !gpu09` does not apply; `Host *` does");
    assert_eq!(gpu09.user.as_deref(), Some("nobody"));
    assert_eq!(gpu09.proxy_jump, None, "`ProxyJump none` came first");
    assert_eq!(gpu09.identity_files, [key("id_ed25519")]);
}

#[test]
fn includes_with_globs_case_insensitive_keywords_and_equals() {
    let leaf1 = config().resolve("leaf1");
    assert_eq!(leaf1.user.as_deref(), Some("admin"), "10-switches.conf is read before 20-leaf1.conf");
    assert_eq!(leaf1.port, Some(8022));
    assert_eq!(leaf1.hostname.as_deref(), Some("leaf1.mgmt"));
    assert_eq!(leaf1.identity_files, [key("leaf1_key"), key("id_ed25519")], "nested include");
    assert_eq!(leaf1.proxy_jump.as_deref(), Some("jump.example.com"));
    let command = leaf1.host_keys.known_hosts_command.as_ref().unwrap();
    let env = |name: &str| (name == "SITE").then(|| "east".to_string());
    let argv = command.argv(&[('H', "[leaf1.mgmt]:8022"), ('I', "ORDER"), ('t', "NONE")], &env).unwrap();
    assert_eq!(argv, ["/usr/local/bin/site-keys", "--site", "east", "ORDER", "[leaf1.mgmt]:8022", "NONE"]);
    assert!(command.set_at.file.ends_with("conf.d/20-leaf1.conf") && command.set_at.line == 6, "{:?}", command.set_at);
    let leaf2 = config().resolve("leaf2");
    assert_eq!(leaf2.identity_files, [key("id_ed25519")], "the include sits in a `Host leaf1` block");
}

#[test]
fn algorithm_lists_first_obtained_wins_per_list_with_their_file_and_line() {
    let switches = home().join(".ssh/conf.d/10-switches.conf").display().to_string();
    let seen = |a: &AlgorithmSetting| (a.kind, a.list.clone(), a.file.clone(), a.line);
    let leaf1: Vec<_> = config().resolve("leaf1").algorithms.iter().map(seen).collect();
    assert_eq!(
        leaf1,
        [
            (AlgorithmKind::Kex, "+diffie-hellman-group14-sha1".into(), switches.clone(), 6),
            (AlgorithmKind::Ciphers, "aes128-ctr,aes128-cbc".into(), switches, 7),
            (AlgorithmKind::HostKeys, "^ssh-ed25519".into(), "ssh-home/.ssh/config".into(), 29),
        ],
        "20-leaf1.conf's KexAlgorithms comes second and loses"
    );
}

#[test]
fn an_algorithm_list_is_one_word_as_in_ssh() {
    let err = SshConfig::parse("Host a\n  Ciphers aes128-ctr, aes256-ctr\n", "cfg").unwrap_err();
    assert_eq!(
        err.to_string(),
        "cfg:2: Ciphers `aes128-ctr, aes256-ctr` is not one comma-separated list, without spaces"
    );
    assert_eq!(SshConfig::parse("MACs\n", "cfg").unwrap_err().to_string(), "cfg:1: MACs needs a value");
    assert_eq!(SshConfig::parse("Ciphers \"\"\n", "cfg").unwrap_err().to_string(), "cfg:1: Ciphers needs a value");
}

#[test]
fn unknown_hosts_get_the_global_settings() {
    let other = config().resolve("10.1.2.3");
    assert_eq!(other.user.as_deref(), Some("nobody"));
    assert_eq!(other.port, Some(22));
    assert_eq!(other.connect_timeout, Some(7));
    assert_eq!(other.proxy_jump.as_deref(), Some("jump.example.com"));
}

#[test]
fn known_hosts_files_not_said_none_or_listed_are_three_answers() {
    let text = "Host quiet\n  UserKnownHostsFile none\n  GlobalKnownHostsFile none\n\
                Host shared\n  GlobalKnownHostsFile /srv/ssh/cluster_keys ~/k2\n  StrictHostKeyChecking off\n";
    let config = SshConfig::parse_with_home(text, "cfg", Path::new("/home/a")).unwrap();
    let quiet = config.resolve("quiet");
    assert_eq!(quiet.host_keys.user_known_hosts_files, Some(vec![]), "`none`: no user file, not ssh's defaults");
    assert_eq!(quiet.host_keys.global_known_hosts_files, Some(vec![]));
    assert_eq!(quiet.host_keys.strict_host_key_checking, None);
    let shared = config.resolve("shared");
    assert_eq!(shared.host_keys.user_known_hosts_files, None, "not said: the caller's defaults");
    assert_eq!(
        shared.host_keys.global_known_hosts_files,
        Some(vec![PathBuf::from("/srv/ssh/cluster_keys"), PathBuf::from("/home/a/k2")])
    );
    let strict = shared.host_keys.strict_host_key_checking.unwrap();
    assert_eq!((strict.mode, strict.line), (StrictHostKeyChecking::No, 6));
}

#[test]
fn the_host_key_settings_are_resolved_per_host_with_their_lines() {
    let text = "Host krl\n  RevokedHostKeys /etc/ssh/revoked.krl ~/.ssh/%h.keys\n  KnownHostsCommand none\nHost open\n  RevokedHostKeys none\n\
                Host *\n  HostKeyAlias cluster\n  KnownHostsCommand /usr/bin/keys %H\n\
                  RevokedHostKeys /etc/ssh/all.krl\n  CASignatureAlgorithms -ssh-rsa,rsa-sha2-256\n";
    let config = SshConfig::parse_with_home(text, "cfg", Path::new("/home/a")).unwrap();
    let krl = config.resolve("krl");
    let revoked = krl.host_keys.revoked_host_keys.unwrap();
    assert_eq!((revoked.set_at.file.as_str(), revoked.set_at.line), ("cfg", 2));
    let files = [Path::new("/etc/ssh/revoked.krl"), Path::new("/home/a/.ssh/krl.keys")];
    assert_eq!(revoked.files, files, "every file of the line, expanded as identity files are");
    assert_eq!(krl.host_keys.known_hosts_command, None, "`none`, obtained first");
    assert_eq!(config.resolve("open").host_keys.revoked_host_keys, None, "`none`, obtained first");
    let other = config.resolve("other");
    assert_eq!(
        other.host_keys.revoked_host_keys.map(|r| (r.files, r.set_at.line)),
        Some((vec!["/etc/ssh/all.krl".into()], 9))
    );
    let command = other.host_keys.known_hosts_command.unwrap();
    assert_eq!((command.command.as_str(), command.set_at.line), ("/usr/bin/keys %H", 8), "the rest of its line");
    let argv = command.argv(&[('H', "cluster"), ('I', "HOSTNAME")], &|_| None).unwrap();
    assert_eq!(argv, ["/usr/bin/keys", "cluster"]);
    assert_eq!(other.host_keys.host_key_alias.as_deref(), Some("cluster"));
    assert_eq!(other.host_keys.ca_signature_algorithms.as_deref(), Some("-ssh-rsa,rsa-sha2-256"));
    assert!(config.warnings().is_empty(), "{:?}", config.warnings());
    for line in ["RevokedHostKeys /etc/ssh/revoked.krl none", "RevokedHostKeys /etc/ssh/revoked.krl \"\""] {
        let error = SshConfig::parse_with_home(&format!("{line}\n"), "cfg", Path::new("/")).unwrap_err().to_string();
        let named = error.contains("cfg:1") && error.contains("none alone") && error.contains("/etc/ssh/revoked.krl");
        assert!(named, "as ssh: {error}");
    }
}

#[test]
fn unsupported_match_is_skipped_with_a_warning() {
    let config = config();
    assert_eq!(config.warnings().len(), 1);
    assert_eq!(
        config.warnings()[0].to_string(),
        "ssh-home/.ssh/config:21: `Match exec test -f /tmp/x` is not supported (only `Match all` is); fabcheck skips its block"
    );
    assert!(config.resolve("anything").user.as_deref() != Some("matched"));
}

#[test]
fn empty_config_resolves_to_nothing() {
    let config = SshConfig::parse_with_home("", "empty", Path::new("/nonexistent")).unwrap();
    assert_eq!(config.resolve("gpu01"), SshHostConfig::default());
}

#[test]
fn load_reads_a_file_and_load_default_does_not_fail_without_one() {
    let config = SshConfig::load(&home().join(".ssh/deeper/leaf1.conf")).unwrap();
    assert_eq!(config.resolve("x").identity_files.len(), 1);
    let err = SshConfig::load(Path::new("/nonexistent/ssh_config")).unwrap_err();
    assert!(err.to_string().starts_with("/nonexistent/ssh_config: cannot read ssh_config: "), "{err}");
    // The real ~/.ssh/config of whoever runs the tests: it may or may not exist.
    if let Err(e) = SshConfig::load_default() {
        assert!(e.to_string().contains("config"), "{e}");
    }
}

#[test]
fn include_loops_are_stopped() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".ssh")).unwrap();
    std::fs::write(dir.path().join(".ssh/config"), "Include config\n").unwrap();
    let err = SshConfig::parse_with_home("Include config\n", "top", dir.path()).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::SshIncludeTooDeep { limit: 16 }), "{err}");
    assert!(
        err.to_string().ends_with(":1: Include nested more than 16 levels deep (does a file include itself?)"),
        "{err}"
    );
}

#[test]
fn bad_values_name_file_and_line() {
    let err = SshConfig::parse_with_home("Host a\n\n  Port 99999\n", "cfg", Path::new("/x")).unwrap_err();
    assert_eq!(err.to_string(), "cfg:3: Port `99999` is not a port number (1-65535)");
}

/// Inventory variables beat ~/.ssh/config, which beats the defaults; ssh_config is looked
/// up by the host's address, as Ansible's ssh connection does.
#[test]
fn ssh_target_precedence() {
    let inv = Inventory::parse_ini(
        "[gpus]\n\
         gpu01\n\
         gpu03 ansible_port=2022 ansible_user=me ansible_ssh_private_key_file=/keys/gpu03\n\
         lab1 ansible_host=gpu02\n",
        "t.ini",
    )
    .unwrap();
    let config = config();

    let gpu01 = inv.host("gpu01").unwrap().ssh_target(&config);
    assert_eq!(gpu01.address, "gpu01.lab.example.com");
    assert_eq!((gpu01.port, gpu01.user.as_str()), (2222, "ops"));
    assert_eq!(gpu01.proxy_jump.as_deref(), Some("bastion"));

    let gpu03 = inv.host("gpu03").unwrap().ssh_target(&config);
    assert_eq!((gpu03.port, gpu03.user.as_str()), (2022, "me"));
    assert_eq!(gpu03.identity_files, [PathBuf::from("/keys/gpu03"), key("gpu_fleet"), key("id_ed25519")]);

    let lab1 = inv.host("lab1").unwrap().ssh_target(&config);
    assert_eq!(lab1.address, "gpu02.lab.example.com", "looked up by ansible_host");

    let bare = SshConfig::parse_with_home("", "empty", Path::new("/x")).unwrap().with_local_user("alice");
    let defaults = inv.host("gpu01").unwrap().ssh_target(&bare);
    assert_eq!((defaults.address.as_str(), defaults.port, defaults.user.as_str()), ("gpu01", 22, "alice"));
    assert!(defaults.identity_files.is_empty());
}

/// `%p`, `%r` and `%C` are the connection's, in a `KnownHostsCommand` and in file names: the
/// user and port ssh is given (the inventory's) give what ssh_config's `Port` and `User` would.
#[test]
fn the_port_and_user_tokens_are_the_connections() {
    let resolve = |text: &str, given: Given<'_>| {
        let config = SshConfig::parse_with_home(text, "cfg", Path::new("/home/a")).unwrap().with_local_user("a");
        let resolved = config.resolve_given("gpu01", given);
        let argv = resolved.host_keys.known_hosts_command.unwrap().argv(&[], &|_| None).unwrap();
        (argv, resolved.host_keys.user_known_hosts_files.unwrap())
    };
    let lines = "  KnownHostsCommand /k %p %r %C\n  UserKnownHostsFile /kh/%p/%r/%C\n";
    let by_config = resolve(&format!("Host gpu01\n  Port 2200\n  User ops\n{lines}"), Given::default());
    let by_inventory =
        resolve(&format!("Host gpu01\n{lines}"), Given { user: Some("ops"), port: Some(2200), jump: None });
    assert_eq!(by_inventory, by_config);
    assert_eq!(by_config.0[1..3], ["2200", "ops"]);
    let given_wins = resolve(
        &format!("Host gpu01\n  Port 22\n  User x\n{lines}"),
        Given { user: Some("ops"), port: Some(2200), jump: None },
    );
    assert_eq!(given_wins, by_config, "over ssh_config's Port and User, as `-o` options are");
    let default = resolve(&format!("Host gpu01\n{lines}"), Given::default());
    assert_ne!(default.0[3], by_config.0[3], "%C hashes the port and user");
    // A hop after the first is run with `-J` and the hop before it: that is its `%j`.
    let hop = |given| {
        let text = "Host gpu01\n  ProxyJump own-bastion\n  UserKnownHostsFile /kh/%j\n";
        let config = SshConfig::parse_with_home(text, "cfg", Path::new("/home/a")).unwrap();
        config.resolve_given("gpu01", given).host_keys.user_known_hosts_files.unwrap()
    };
    assert_eq!(hop(Given::default()), [PathBuf::from("/kh/own-bastion")]);
    let jumped = Given { jump: Some("ops@bastion2.example.org:2222"), ..Given::default() };
    assert_eq!(hop(jumped), [PathBuf::from("/kh/bastion2.example.org")]);
}
