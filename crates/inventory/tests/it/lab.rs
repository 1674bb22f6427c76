//! A fabcheck-style inventory (fixtures/lab.ini and lab.yml): every INI construct, typed
//! accessors, and the two formats giving the same hosts.

use std::path::{Path, PathBuf};

use fabcheck_inventory::{Host, Inventory, Role, VarValue};

use crate::{fixture, groups_of, load, names};

const ORDER: [&str; 11] =
    ["bastion", "gpu01", "gpu02", "gpu03", "gpu04", "gpu05", "gpu06", "leaf1", "leaf2", "spinea", "spineb"];

fn home() -> Option<PathBuf> {
    std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from)
}

fn check(inv: &Inventory) {
    let file = inv.file();
    assert_eq!(names(inv.hosts()), ORDER, "{file}");
    let host = |n: &str| inv.host(n).unwrap_or_else(|| panic!("{file}: no {n}"));

    let gpu01 = host("gpu01");
    assert_eq!(gpu01.address(), "127.0.0.1");
    assert_eq!(gpu01.port(), None);
    assert_eq!(gpu01.nics(), ["mlx5_0", "mlx5_1"]);
    assert_eq!(gpu01.gpus(), Some(8));
    assert_eq!(gpu01.role(), Role::Host);
    assert_eq!(gpu01.platform(), "linux");
    assert_eq!(gpu01.user(), Some("ops"));
    if let Some(home) = home() {
        assert_eq!(gpu01.key_file(), Some(home.join(".ssh/fabcheck_lab").as_path()));
    }
    assert_eq!(groups_of(inv, "gpu01"), ["gpus", "rack1"]);

    let gpu03 = host("gpu03");
    assert_eq!(gpu03.port(), Some(2203));
    assert_eq!(gpu03.nics(), ["mlx5_0", "mlx5_1", "mlx5_2"]);
    assert!(matches!(gpu03.var("fabcheck_nics"), Some(VarValue::List(_))));

    for n in ["gpu04", "gpu05"] {
        assert_eq!((host(n).address(), host(n).port()), ("127.0.0.2", Some(2204)), "{file} {n}");
        assert_eq!(groups_of(inv, n), ["gpus", "rack2"]);
    }
    let gpu06 = host("gpu06");
    assert_eq!((gpu06.address(), gpu06.user(), gpu06.gpus()), ("::1", Some("root"), Some(4)));
    assert!(gpu06.nics().is_empty(), "no fabcheck_nics: discovered");

    let leaf1 = host("leaf1");
    assert_eq!((leaf1.role(), leaf1.platform()), (Role::Leaf, "sonic"));
    assert_eq!(groups_of(inv, "leaf1"), ["fabric", "leaves"]);
    let spinea = host("spinea");
    assert_eq!((spinea.role(), spinea.platform()), (Role::Spine, "eos"));
    assert!(spinea.role().is_switch());

    let bastion = host("bastion");
    assert_eq!(bastion.address(), "192.0.2.10");
    assert_eq!(bastion.groups(), ["ungrouped"]);
    assert!(bastion.in_group("all") && bastion.in_group("ungrouped") && !bastion.in_group("gpus"));

    assert_eq!(inv.members("fabric").unwrap(), ["leaf1", "leaf2", "spinea", "spineb"]);
    assert_eq!(inv.group("gpus").unwrap().children(), ["rack1", "rack2"]);
    assert_eq!(inv.members("all").unwrap(), ORDER);
    let groups: Vec<_> = inv.groups().iter().map(|g| g.name()).collect();
    assert_eq!(groups, ["all", "fabric", "gpus", "leaves", "rack1", "rack2", "spines", "ungrouped"], "{file}");
}

#[test]
fn lab_ini() {
    check(&load("lab.ini"));
}

#[test]
fn lab_yaml() {
    check(&load("lab.yml"));
}

/// Everything but the line numbers is the same whichever format the inventory is in.
#[test]
fn both_formats_give_the_same_hosts() {
    let (ini, yaml) = (load("lab.ini"), load("lab.yml"));
    let strip = |h: &Host| (h.name().to_owned(), h.groups().to_vec(), h.vars().clone(), h.nics());
    let a: Vec<_> = ini.hosts().iter().map(strip).collect();
    let b: Vec<_> = yaml.hosts().iter().map(strip).collect();
    assert_eq!(a, b);
    assert_eq!(ini.groups(), yaml.groups());
}

#[test]
fn load_detects_the_format_and_names_the_file() {
    let inv = Inventory::load(&fixture("lab.ini")).unwrap();
    assert!(inv.file().ends_with("lab.ini"));
    let dir = tempfile::tempdir().unwrap();
    let yaml_without_extension = dir.path().join("hosts");
    std::fs::write(&yaml_without_extension, std::fs::read(fixture("lab.yml")).unwrap()).unwrap();
    let inv = Inventory::load(&yaml_without_extension).unwrap();
    assert_eq!(inv.hosts().len(), ORDER.len());

    let missing = dir.path().join("missing.ini");
    let err = Inventory::load(&missing).unwrap_err();
    assert_eq!(err.file(), missing.display().to_string());
    assert!(err.to_string().contains(": cannot read inventory: "), "{err}");
    assert_eq!(err.line(), None);
}

#[test]
fn host_lines_are_recorded() {
    let inv = load("lab.ini");
    assert_eq!(inv.host("bastion").unwrap().line(), Some(4));
    assert_eq!(inv.host("gpu02").unwrap().line(), Some(7));
    let inv = load("lab.yml");
    assert_eq!(inv.host("gpu06").unwrap().line(), Some(28));
}

#[test]
fn nested_groups_four_deep() {
    let inv = load("deep.yml");
    assert_eq!(names(inv.hosts()), ["gpu01", "gpu02", "gpu03", "nas1"]);
    assert_eq!(groups_of(&inv, "gpu01"), ["dc", "gpu_rack1", "pod1", "pod2", "rack1", "storage"]);
    assert_eq!(groups_of(&inv, "gpu03"), ["dc", "pod1", "pod2", "rack1"]);
    assert_eq!(inv.host("gpu01").unwrap().var("depth"), Some(&VarValue::from("leafmost")));
    assert_eq!(inv.host("gpu03").unwrap().var("depth"), Some(&VarValue::from("rack")));
    assert_eq!(inv.host("nas1").unwrap().var("depth"), None);
    assert_eq!(inv.members("pod2").unwrap(), ["gpu01", "gpu02", "gpu03"]);
}

#[test]
fn quoting_in_host_lines() {
    let inv = Inventory::parse_ini(
        "h1 a=\"two words\" b='single # not a comment' c=x\\ y d=\"'42'\" e=42 f=\"42\" g=True h=007 # comment\n",
        "q.ini",
    )
    .unwrap();
    let h = inv.host("h1").unwrap();
    assert_eq!(h.var("a"), Some(&VarValue::from("two words")));
    assert_eq!(h.var("b"), Some(&VarValue::from("single # not a comment")));
    assert_eq!(h.var("c"), Some(&VarValue::from("x y")));
    assert_eq!(h.var("d"), Some(&VarValue::from("42")));
    assert_eq!(h.var("e"), Some(&VarValue::Int(42)));
    assert_eq!(h.var("f"), Some(&VarValue::Int(42)), "shlex removes the quotes, as in Ansible");
    assert_eq!(h.var("g"), Some(&VarValue::Bool(true)));
    assert_eq!(h.var("h"), Some(&VarValue::from("007")));
    assert_eq!(h.vars().len(), 8);
}

#[test]
fn yaml_keeps_serde_saphyr_scalar_types() {
    let inv = Inventory::parse_yaml(
        "all:\n  hosts:\n    h1:\n      a: yes\n      b: 'no'\n      c: 0755\n      d: 1.5\n      e: ~\n      f: {k: v}\n",
        "t.yml",
    )
    .unwrap();
    let h = inv.host("h1").unwrap();
    assert_eq!(h.var("a"), Some(&VarValue::Bool(true)));
    assert_eq!(h.var("b"), Some(&VarValue::from("no")));
    assert_eq!(h.var("c"), Some(&VarValue::from("0755")));
    assert_eq!(h.var("d"), Some(&VarValue::from("1.5")));
    assert_eq!(h.var("e"), None, "null means not set");
    assert!(matches!(h.var("f"), Some(VarValue::Map(_))));
}

#[test]
fn key_file_keeps_absolute_paths() {
    let inv = Inventory::parse_ini("h ansible_ssh_private_key_file=/keys/h\n", "k.ini").unwrap();
    assert_eq!(inv.host("h").unwrap().key_file(), Some(Path::new("/keys/h")));
}
