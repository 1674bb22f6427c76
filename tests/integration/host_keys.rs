//! Host keys through the binary against the lab, with no `--known-hosts`: each device's
//! known_hosts files and `StrictHostKeyChecking` come from ssh_config, as `ssh` reads them.

use crate::util::{Run, fabcheck, start_lab};
use std::path::Path;

/// `fabcheck audit` of the inventory's `limit` hosts with `ssh_config` and `extra` arguments,
/// its report in `out`.
fn audit(inventory: &str, limit: &str, ssh_config: &str, extra: &[&str], out: &Path) -> Run {
    let mut args = vec!["audit", "-i", inventory, "--limit", limit, "--ssh-config", ssh_config, "--window", "0"];
    args.extend(extra);
    args.extend(["--out", out.to_str().unwrap()]);
    let mut run = fabcheck(&args);
    run.out = out.to_path_buf();
    run
}
use std::collections::BTreeSet;

/// The lab's inventory with its devices named as in ssh_config, not by address, so that each
/// gets its own `Host` block.
fn by_name(lab: &crate::util::RunningLab) -> std::path::PathBuf {
    let inventory = std::fs::read_to_string(lab.lab.inventory_path()).unwrap().replace(" ansible_host=127.0.0.1", "");
    let inv = lab.dir.path().join("inventory.ini");
    std::fs::write(&inv, inventory).unwrap();
    inv
}

#[test]
fn ssh_configs_known_hosts_files_and_strict_checking_apply_per_device() {
    let lab = start_lab(5, &[]);
    let d = lab.dir.path();
    let inv = by_name(&lab);
    let listed = lab.lab.known_hosts_path();
    let recorded = d.join("recorded_known_hosts");
    let unlisted = d.join("empty_known_hosts");
    let config = d.join("ssh_config");
    let text = format!(
        "Host gpu001\n  UserKnownHostsFile {listed}\n\
         Host gpu002\n  UserKnownHostsFile {recorded}\n  StrictHostKeyChecking accept-new\n\
         Host gpu003\n  UserKnownHostsFile {unlisted}\n  StrictHostKeyChecking no\n\
         Host gpu004\n  UserKnownHostsFile none\n  GlobalKnownHostsFile {listed}\n\
         Host gpu005\n  UserKnownHostsFile {listed}\n  RevokedHostKeys {missing}\n\
         Host *\n  HostName 127.0.0.1\n  GlobalKnownHostsFile none\n",
        listed = listed.display(),
        recorded = recorded.display(),
        unlisted = unlisted.display(),
        missing = d.join("missing.krl").display(),
    );
    std::fs::write(&config, text).unwrap();
    let out = d.join("out");
    let (inv, config, out_text) = (inv.to_str().unwrap(), config.to_str().unwrap(), out.to_str().unwrap());
    let mut run = fabcheck(&["audit", "-i", inv, "--ssh-config", config, "--window", "0", "--out", out_text]);
    run.out = out;

    // gpu001 by its user file, gpu004 by its global file, gpu002 recorded as new; gpu003's
    // `no` is not honoured, so its key, listed nowhere, is refused; gpu005's revoked keys
    // cannot be read, so it is refused too, as ssh refuses it.
    let keys: BTreeSet<_> = run.keys().into_iter().map(|(code, device, _)| (code, device)).collect();
    let expected = [("ssh.hostkey_unknown", "gpu003"), ("ssh.hostkey_mismatch", "gpu005")];
    assert_eq!(keys, expected.map(|(c, d)| (c.to_string(), d.to_string())).into(), "{}", run.stderr);
    let gpu005 = run.findings().into_iter().find(|f| f.device == "gpu005").unwrap();
    let why = format!(
        "{} cannot be used (No such file or directory (os error 2)), and ssh refuses every host then (RevokedHostKeys at {config}:14)",
        d.join("missing.krl").display()
    );
    assert!(gpu005.message.contains(&why), "{gpu005:?}");
    let warning =
        format!("fabcheck: warning: {config}:14: RevokedHostKeys {} not found", d.join("missing.krl").display());
    assert_eq!(run.stderr.matches(&warning).count(), 1, "said once: {}", run.stderr);
    let summary =
        format!("fabcheck: warning: recorded 1 new host key in {} (trusted on first use)", recorded.display());
    assert!(run.stderr.contains(&summary), "{}", run.stderr);
    let gpu002 = lab.lab.hosts().find(|(name, _)| *name == "gpu002").unwrap().1;
    let lines: Vec<String> = std::fs::read_to_string(&recorded).unwrap().lines().map(String::from).collect();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].starts_with(&format!("[127.0.0.1]:{} ssh-ed25519 ", gpu002.port())), "{lines:?}");
    assert!(!unlisted.exists(), "nothing recorded for a device whose `no` is not honoured");
    let warning = format!("{config}:8: StrictHostKeyChecking no is not honoured");
    assert_eq!(run.stderr.matches(&warning).count(), 1, "{}", run.stderr);

    // A job on gpu001 alone hears nothing of gpu003's line: hosts are chosen before ssh_config
    // is read for them.
    let job = d.join("job");
    let job = job.to_str().unwrap();
    let run =
        fabcheck(&["audit", "-i", inv, "--nodelist", "gpu001", "--ssh-config", config, "--window", "0", "--out", job]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stderr.contains("StrictHostKeyChecking"), "{}", run.stderr);

    // The next run trusts gpu002's recorded key without accepting anything new.
    let again = d.join("again");
    let strict = d.join("strict_config");
    let text = format!("Host *\n  HostName 127.0.0.1\n  UserKnownHostsFile {}\n", recorded.display());
    std::fs::write(&strict, text).unwrap();
    let run = audit(inv, "gpu002", strict.to_str().unwrap(), &[], &again);
    assert!(run.keys().is_empty(), "{:?}\n{}", run.keys(), run.stderr);
    assert_eq!(std::fs::read_to_string(&recorded).unwrap().lines().count(), 1);

    // `HostKeyAlias`: gpu001's key listed under the alias alone is trusted, and checked by it.
    let gpu001 = lab.lab.hosts().find(|(name, _)| *name == "gpu001").unwrap().1;
    let listed_line = std::fs::read_to_string(&listed).unwrap();
    let key = listed_line.lines().find(|l| l.starts_with(&format!("[127.0.0.1]:{} ", gpu001.port()))).unwrap();
    let aliased = d.join("aliased_known_hosts");
    std::fs::write(&aliased, format!("lab-gpu-one {}\n", key.split_once(' ').unwrap().1)).unwrap();
    let alias_config = d.join("alias_config");
    let text = format!(
        "Host *\n  HostName 127.0.0.1\n  HostKeyAlias lab-gpu-one\n  UserKnownHostsFile {}\n",
        aliased.display()
    );
    std::fs::write(&alias_config, text).unwrap();
    let alias_out = d.join("alias_out");
    let run = audit(inv, "gpu001:gpu002", alias_config.to_str().unwrap(), &[], &alias_out);
    let keys: Vec<_> = run.keys().into_iter().map(|(code, device, _)| (code, device)).collect();
    assert_eq!(keys, [("ssh.hostkey_mismatch".to_string(), "gpu002".to_string())], "{}", run.stderr);

    // `--known-hosts` files are fabcheck's own: ssh_config's accept-new does not add to them.
    let given = d.join("given_known_hosts");
    std::fs::write(&given, "").unwrap();
    let (given, third) = (given.to_str().unwrap(), d.join("third"));
    let run = audit(inv, "gpu002", config, &["--known-hosts", given], &third);
    assert_eq!(run.keys().into_iter().map(|k| k.0).collect::<Vec<_>>(), ["ssh.hostkey_unknown"], "{}", run.stderr);
    assert_eq!(std::fs::read_to_string(given).unwrap(), "");
}

/// `RevokedHostKeys` as ssh reads it: a KRL made by ssh-keygen that revokes gpu001's key refuses
/// gpu001 and no other host; a line may list several files, a KRL and a list of keys.
#[test]
fn revoked_host_keys_refuse_the_keys_they_revoke_and_no_other() {
    let lab = start_lab(2, &[]);
    let d = lab.dir.path();
    let listed = std::fs::read_to_string(lab.lab.known_hosts_path()).unwrap();
    let key_of = |name: &str| {
        let port = lab.lab.hosts().find(|(n, _)| *n == name).unwrap().1.port();
        let line = listed.lines().find(|l| l.starts_with(&format!("[127.0.0.1]:{port} "))).unwrap();
        format!("{}\n", line.split_once(' ').unwrap().1)
    };
    std::fs::write(d.join("gpu001.pub"), key_of("gpu001")).unwrap();
    let krl = d.join("revoked.krl");
    let made = std::process::Command::new("ssh-keygen")
        .arg("-kf")
        .arg(&krl)
        .arg(d.join("gpu001.pub"))
        .output()
        .expect("ssh-keygen (openssh-client) is needed by this test");
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let list = d.join("revoked_keys");
    std::fs::write(
        &list,
        "# no lab host's key\nssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n",
    )
    .unwrap();
    let config = d.join("ssh_config");
    let text = format!(
        "Host *\n  HostName 127.0.0.1\n  UserKnownHostsFile {}\n  GlobalKnownHostsFile none\n  RevokedHostKeys {} {}\n",
        lab.lab.known_hosts_path().display(),
        list.display(),
        krl.display()
    );
    std::fs::write(&config, text).unwrap();
    let run = audit(lab.lab.inventory_path().to_str().unwrap(), "all", config.to_str().unwrap(), &[], &d.join("out"));
    let keys: Vec<_> = run.keys().into_iter().map(|(code, device, _)| (code, device)).collect();
    assert_eq!(keys, [("ssh.hostkey_mismatch".to_string(), "gpu001".to_string())], "{}", run.stderr);
    let gpu001 = run.findings().into_iter().find(|f| f.device == "gpu001").unwrap();
    let why = format!("revoked by {}: the key is listed (RevokedHostKeys at {}:5)", krl.display(), config.display());
    assert!(gpu001.message.contains(&why), "{gpu001:?}");
}

/// `KnownHostsCommand` as ssh runs it: called before the key exchange (`ORDER`) and for the key
/// presented (`HOSTNAME`), each argument but the program expanded; what it prints is read as
/// known_hosts lines after the files. gpu001's key comes from the command alone and is trusted
/// and never recorded; gpu002's command lists another key (changed); gpu003's command fails when
/// asked about its key (refused, as ssh refuses it, with what it said); gpu004's prints nothing, so its key is new
/// and `accept-new` records it in the user file, as ssh does.
#[test]
fn known_hosts_command_is_run_as_ssh_runs_it() {
    let lab = start_lab(4, &[]);
    let d = lab.dir.path();
    let listed = std::fs::read_to_string(lab.lab.known_hosts_path()).unwrap();
    let port = |name: &str| lab.lab.hosts().find(|(n, _)| *n == name).unwrap().1.port();
    let line_of = |name: &str| {
        listed.lines().find(|l| l.starts_with(&format!("[127.0.0.1]:{} ", port(name)))).unwrap().to_string()
    };
    let other_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl";
    let printed = format!(
        "# keys from the site's inventory service\n{}\n[127.0.0.1]:{} {other_key}\n",
        line_of("gpu001"),
        port("gpu002")
    );
    std::fs::write(d.join("printed"), printed).unwrap();
    let (log, script) = (d.join("calls.log"), d.join("keys.sh"));
    let name = |host: &str| format!("[127.0.0.1]:{}", port(host));
    let text = format!(
        "#!/bin/sh\necho \"$*\" >> {log}\ncase \"$2\" in\n  '{one}'|'{two}') cat {printed} ;;\n  \
         '{three}') [ \"$1\" = ORDER ] || {{ echo 'vault is sealed' >&2; exit 3; }} ;;\nesac\n",
        log = log.display(),
        printed = d.join("printed").display(),
        one = name("gpu001"),
        two = name("gpu002"),
        three = name("gpu003"),
    );
    std::fs::write(&script, text).unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let user_file = d.join("user_known_hosts");
    let config = d.join("ssh_config");
    let text = format!(
        "Host *\n  HostName 127.0.0.1\n  UserKnownHostsFile {}\n  GlobalKnownHostsFile none\n  \
         StrictHostKeyChecking accept-new\n  KnownHostsCommand {} %I \"%H\" %n %p %t %f ${{HOME}} 100%%\n",
        user_file.display(),
        script.display()
    );
    std::fs::write(&config, text).unwrap();
    let (config, inventory) = (config.to_str().unwrap(), lab.lab.inventory_path());
    let run = audit(inventory.to_str().unwrap(), "all", config, &[], &d.join("out"));
    let keys: Vec<_> = run.keys().into_iter().map(|(code, device, _)| (code, device)).collect();
    let expected = [("ssh.hostkey_mismatch", "gpu002"), ("ssh.hostkey_unknown", "gpu003")];
    assert_eq!(keys, expected.map(|(c, d)| (c.to_string(), d.to_string())), "{}", run.stderr);
    let findings = run.findings();
    let message = |device: &str| findings.iter().find(|f| f.device == device).unwrap().message.clone();
    let changed = "the host is listed with another key, at KnownHostsCommand-HOSTNAME:3";
    assert!(message("gpu002").contains(changed), "{}", message("gpu002"));
    let failed = format!("KnownHostsCommand at {config}:6; SHA256:");
    let gpu003 = message("gpu003");
    assert!(gpu003.contains(&failed) && gpu003.contains("failed (exit status: 3: vault is sealed)"), "{gpu003}");

    // Only gpu004, listed nowhere, was recorded: gpu001's key came from the command.
    let recorded = std::fs::read_to_string(&user_file).unwrap();
    let lines: Vec<&str> = recorded.lines().collect();
    assert_eq!(lines.len(), 1, "{recorded}");
    assert!(lines[0].starts_with(&format!("[127.0.0.1]:{} ssh-ed25519 ", port("gpu004"))), "{recorded}");

    // Each host asked twice, in ssh's order, with ssh's tokens (`%n` is the name ssh is given:
    // the inventory's address; `%p` the inventory's `ansible_port`, as Ansible gives it to ssh);
    // the program itself unexpanded.
    let calls = std::fs::read_to_string(&log).unwrap();
    let home = std::env::var("HOME").unwrap();
    for host in ["gpu001", "gpu002", "gpu003", "gpu004"] {
        let name = name(host);
        let mine: Vec<&str> = calls.lines().filter(|l| l.contains(&format!(" {name} "))).collect();
        assert_eq!(mine.len(), 2, "{calls}");
        let port = port(host);
        assert_eq!(mine[0], format!("ORDER {name} 127.0.0.1 {port} NONE NONE {home} 100%"), "{calls}");
        let fingerprint = mine[1].split(' ').nth(5).unwrap();
        assert!(fingerprint.starts_with("SHA256:") && fingerprint.len() == 50, "{calls}");
        let asked = format!("HOSTNAME {name} 127.0.0.1 {port} ssh-ed25519 {fingerprint} {home} 100%");
        assert_eq!(mine[1], asked, "{calls}");
    }

    // A program that is not an absolute path or does not exist gives no keys: the host is
    // judged by its files alone, and the error says why the command gave nothing. One that
    // exists but cannot be run refuses the host, as ssh's failed child does.
    let not_executable = d.join("not_executable.sh");
    std::fs::write(&not_executable, "#!/bin/sh\n").unwrap();
    let missing = d.join("missing.sh");
    let cases = [
        (
            "keys.sh".to_string(),
            "ssh.hostkey_unknown",
            "which gave nothing (KnownHostsCommand-HOSTNAME: keys.sh is not an absolute path)".to_string(),
        ),
        (
            missing.display().to_string(),
            "ssh.hostkey_unknown",
            format!("which gave nothing (KnownHostsCommand-HOSTNAME: {}: No such file", missing.display()),
        ),
        (
            not_executable.display().to_string(),
            "ssh.hostkey_unknown",
            format!("{} cannot be run: Permission denied", not_executable.display()),
        ),
    ];
    for (i, (program, code, why)) in cases.into_iter().enumerate() {
        let config = d.join(format!("config_{i}"));
        let text = format!(
            "Host *\n  HostName 127.0.0.1\n  UserKnownHostsFile none\n  GlobalKnownHostsFile none\n  KnownHostsCommand {program} %H\n"
        );
        std::fs::write(&config, text).unwrap();
        let run =
            audit(inventory.to_str().unwrap(), "gpu001", config.to_str().unwrap(), &[], &d.join(format!("out_{i}")));
        let codes: Vec<String> = run.keys().into_iter().map(|k| k.0).collect();
        assert_eq!(codes, [code], "{program}: {}", run.stderr);
        let message = run.findings().into_iter().find(|f| f.code == code).unwrap().message;
        assert!(message.contains(&why), "{program}: {message}");
        // Said once at the end, with its line, when the command could not be started at all
        // (both calls of gpu001's connection).
        let warning = format!("fabcheck: warning: {}:5: KnownHostsCommand gave no keys (", config.display());
        let warned = run.stderr.matches(&warning).count();
        assert_eq!(warned, usize::from(i < 2), "{program}: {}", run.stderr);
        assert_eq!(run.stderr.contains("; 2 calls)"), i < 2, "{program}: {}", run.stderr);
    }
}

/// A file name ssh cannot expand (an unset `${VAR}`, a token it does not know) makes ssh refuse
/// the host before connecting: fabcheck refuses that device alone, naming the setting, and audits
/// the others.
#[test]
fn a_file_name_ssh_cannot_expand_refuses_its_host_alone() {
    let lab = start_lab(3, &[]);
    let d = lab.dir.path();
    let inv = by_name(&lab);
    let config = d.join("ssh_config");
    let text = format!(
        "Host gpu001\n  IdentityFile ${{FABCHECK_TEST_UNSET_VARIABLE}}/id\nHost gpu002\n  UserKnownHostsFile ~/.ssh/kh_%Z\n\
         Host *\n  HostName 127.0.0.1\n  UserKnownHostsFile {}\n  IdentityFile ${{HOME}}/.ssh/not_there\n",
        lab.lab.known_hosts_path().display()
    );
    std::fs::write(&config, text).unwrap();
    let run = audit(inv.to_str().unwrap(), "all", config.to_str().unwrap(), &[], &d.join("out"));
    let keys: Vec<_> = run.keys().into_iter().map(|(code, device, _)| (code, device)).collect();
    let expected = [("ssh.protocol_error", "gpu001"), ("ssh.protocol_error", "gpu002")];
    assert_eq!(keys, expected.map(|(c, d)| (c.to_string(), d.to_string())), "{}", run.stderr);
    let findings = run.findings();
    let message = |device: &str| findings.iter().find(|f| f.device == device).unwrap().message.clone();
    let unset = "ssh_config: IdentityFile ${FABCHECK_TEST_UNSET_VARIABLE}/id: the environment variable \
                 ${FABCHECK_TEST_UNSET_VARIABLE} has no value (ssh refuses the host too)";
    assert_eq!(message("gpu001"), unset);
    let home = std::env::var("HOME").unwrap();
    let token = format!("UserKnownHostsFile ~/.ssh/kh_%Z: `{home}/.ssh/kh_%Z` has the token %Z");
    assert!(message("gpu002").contains(&token), "{}", message("gpu002"));

    // `--known-hosts` takes the place of ssh_config's known_hosts files, and of their errors.
    let given = lab.lab.known_hosts_path();
    let run = audit(
        inv.to_str().unwrap(),
        "all",
        config.to_str().unwrap(),
        &["--known-hosts", given.to_str().unwrap()],
        &d.join("given"),
    );
    let keys: Vec<_> = run.keys().into_iter().map(|(code, device, _)| (code, device)).collect();
    assert_eq!(keys, [("ssh.protocol_error".to_string(), "gpu001".to_string())], "{}", run.stderr);
}
