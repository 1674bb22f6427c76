//! Every error case, with the exact one-line message and the line it points at.

use fabcheck_inventory::{ErrorKind, Inventory};

use crate::parse;

const NIC_RULE: &str = "is not a valid interface or HCA name (letters, digits, `_.:-`, at most 32)";

#[test]
fn each_error_fixture_gives_its_message_and_line() {
    let cases: &[(&str, Option<u32>, &str)] = &[
        ("unterminated-quote.ini", Some(7), "errors/unterminated-quote.ini:7:21: unterminated quote in host line"),
        (
            "unknown-section.ini",
            Some(4),
            "errors/unknown-section.ini:4: unknown section type [gpus:hostvars] (expected [gpus], [gpus:vars] or [gpus:children])",
        ),
        ("bad-range.ini", Some(3), "errors/bad-range.ini:3: bad host range gpu[10:01]: start is after end"),
        ("cycle.ini", Some(8), "errors/cycle.ini:8: group `c` is its own descendant"),
        ("cycle.yml", Some(7), "errors/cycle.yml:7: group `b` is its own descendant"),
        (
            "undefined-child.ini",
            Some(3),
            "errors/undefined-child.ini:3: [fabric:children] includes undefined group `spiness`",
        ),
        (
            "vars-undefined.ini",
            Some(4),
            "errors/vars-undefined.ini:4: [gpu:vars] is for group `gpu`, which is never defined",
        ),
        (
            "expected-key-value.ini",
            Some(2),
            "errors/expected-key-value.ini:2: expected key=value after host `gpu01`, got `mlx5_0`",
        ),
        (
            "bad-section-header.ini",
            Some(3),
            "errors/bad-section-header.ini:3: invalid section header `[leaf switches]` (no spaces or `:` in group names)",
        ),
        (
            "bad-host.ini",
            Some(3),
            "errors/bad-host.ini:3: host `gpu02`: address `-oProxyCommand=touch /tmp/x` is not a host name, IPv4 or IPv6 address",
        ),
        (
            "bad-host-name.yml",
            Some(3),
            "errors/bad-host-name.yml:3: host `gpu01;reboot`: address `gpu01;reboot` is not a host name, IPv4 or IPv6 address",
        ),
        (
            "bad-port.ini",
            Some(5),
            "errors/bad-port.ini:5: host `gpu01`: ansible_port `70000` is not a port number (1-65535)",
        ),
        (
            "unknown-role.yml",
            Some(5),
            "errors/unknown-role.yml:5: host `leaf1`: unknown fabcheck_role `lief` (expected host, leaf, spine, superspine or collector)",
        ),
        ("bad-gpus.yml", Some(4), "errors/bad-gpus.yml:4: host `gpu01`: fabcheck_gpus `eight` is not a GPU count"),
        ("yaml-syntax.yml", Some(5), "errors/yaml-syntax.yml:5:10: illegal placement of ':' indicator"),
        (
            "yaml-unknown-key.yml",
            Some(4),
            "errors/yaml-unknown-key.yml:4:7: unknown field `host`, expected one of hosts, vars, children",
        ),
        (
            "yaml-duplicate.yml",
            Some(4),
            "errors/yaml-duplicate.yml:4:5: duplicate mapping key: gpu01, set DuplicateKeyPolicy in Options if acceptable",
        ),
        (
            "plugin-config.yml",
            None,
            "errors/plugin-config.yml: this is an inventory plugin configuration (`plugin:`), not a static inventory; fabcheck reads static inventories only",
        ),
    ];
    for (file, line, message) in cases {
        let err = parse(&format!("errors/{file}")).expect_err(file);
        assert_eq!(err.to_string(), *message);
        assert_eq!(err.line(), *line, "{file}");
        assert!(!err.to_string().contains('\n'), "one line: {err}");
    }
}

/// Shell injection through `fabcheck_nics` is refused wherever the value is set.
#[test]
fn bad_nics_name_host_value_file_and_line() {
    let cases = [
        ("bad-nic.ini", 3, "gpu02", "mlx5_1;reboot"),
        ("bad-nic-group.ini", 7, "gpu01", "$(touch /tmp/x)"),
        ("bad-nic.yml", 6, "gpu01", "mlx5_1 && reboot"),
    ];
    for (file, line, host, value) in cases {
        let err = parse(&format!("errors/{file}")).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("errors/{file}:{line}: host `{host}`: fabcheck_nics entry `{value}` {NIC_RULE}")
        );
        assert!(matches!(err.kind(), ErrorKind::InvalidNic { host: h, value: v } if h == host && v == value), "{err}");
    }
}

#[test]
fn more_ini_errors() {
    let cases = [
        ("[g]\nh a=\\", "t.ini:2:5: trailing backslash in host line"),
        ("[g:vars]\nnot an assignment\n[g]\n", "t.ini:2: expected key=value in [g:vars], got `not an assignment`"),
        ("[g:children]\na b\n", "t.ini:2: expected a group name in [g:children], got `a b`"),
        ("[g]\nh:\n", "t.ini:2: bad host `h:`: ends in `:` without a port"),
        ("[g]\nh[0:999999]\n", "t.ini:2: host pattern `h[0:999999]` expands to more than 100000 hosts"),
        ("[a:children]\na\n", "t.ini:2: group `a` is its own descendant"),
        ("[g:children]\nall\n", "t.ini:2: group `all` is its own descendant"),
        (
            "[g]\nh\n[g:vars]\nansible_group_priority=high\n",
            "t.ini:4: group `g`: ansible_group_priority `high` is not an integer",
        ),
        ("    h 'x\n", "t.ini:1:7: unterminated quote in host line"),
    ];
    for (text, want) in cases {
        let err = Inventory::parse_ini(text, "t.ini").unwrap_err();
        assert_eq!(err.to_string(), want, "{text:?}");
    }
}

#[test]
fn more_yaml_errors() {
    let cases = [
        ("", "t.yml: empty YAML inventory"),
        (
            "all:\n  children:\n    g: foo\n",
            "t.yml:3:5: invalid type: string \"foo\", expected a group (a mapping of hosts, vars and children, or nothing)",
        ),
        ("- a\n", "t.yml: invalid type: sequence, expected a mapping of groups (such as `all:`)"),
        ("all:\n  hosts:\n    h1: [a]\n", "t.yml:3:5: invalid type: sequence, expected a mapping of variables"),
        ("all:\n  hosts:\n    gpu[3:1]:\n", "t.yml:3: bad host range gpu[3:1]: start is after end"),
        (
            "all:\n  hosts:\n    h1: {ansible_port: 0}\n",
            "t.yml:3: host `h1`: ansible_port `0` is not a port number (1-65535)",
        ),
    ];
    for (text, want) in cases {
        let err = Inventory::parse_yaml(text, "t.yml").unwrap_err();
        assert_eq!(err.to_string(), want, "{text:?}");
    }
}

/// A child group defined after the `[parent:children]` that names it is fine (Ansible
/// allows it), and so is a `[g:vars]` before `[g]`.
#[test]
fn forward_references_are_fine() {
    let inv = Inventory::parse_ini("[p:children]\nc\n[c:vars]\nx=1\n[c]\nh\n", "t.ini").unwrap();
    assert_eq!(inv.host("h").unwrap().groups(), ["c", "p"]);
}

#[test]
fn host_names_must_be_usable_as_directory_names() {
    let err =
        Inventory::parse_yaml("all:\n  hosts:\n    ../../etc:\n      ansible_host: 10.0.0.1\n", "t.yml").unwrap_err();
    assert_eq!(
        err.to_string(),
        "t.yml:3: host name `../../etc` cannot be used: it names the device's evidence directory, so it may not be empty, start with `.`, be `manifest.json` or `_bench`, be longer than 200 bytes, or contain `/`, `\\` or a control character"
    );
    // Names that would collide with the snapshot's own files are refused the same way.
    for name in ["manifest.json", ".gpu01.partial"] {
        let text = format!("all:\n  hosts:\n    '{name}':\n      ansible_host: 10.0.0.1\n");
        let err = Inventory::parse_yaml(&text, "t.yml").unwrap_err().to_string();
        assert!(err.contains(&format!("host name `{name}` cannot be used")), "{err}");
    }
    let inv =
        Inventory::parse_yaml("all:\n  hosts:\n    web server 1:\n      ansible_host: 10.0.0.1\n", "t.yml").unwrap();
    assert_eq!(inv.hosts()[0].address(), "10.0.0.1");
}
