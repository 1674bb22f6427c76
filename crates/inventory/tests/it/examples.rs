//! The example inventories of `inventories/` (docs/auditing.md uses them) load as Ansible reads them:
//! `group_vars/` and `host_vars/` beside the file, directories of files in name order, the
//! older names of the connection variables, and Ansible's precedence between all of them.

use fabcheck_inventory::{Inventory, Role, VarValue};
use std::path::PathBuf;

fn example(path: &str) -> Inventory {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../inventories").join(path);
    Inventory::load(&file).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn an_ansible_tree_with_group_vars_and_host_vars() {
    let inv = example("roce-cluster/hosts.ini");
    let gpu01 = inv.host("gpu01").unwrap();
    assert_eq!(gpu01.address(), "10.0.0.1");
    // group_vars/all wins over hosts.ini's [gpu:vars] (Ansible ranks the directory above
    // every group's inventory-file vars).
    assert_eq!(gpu01.user(), Some("audit"));
    assert_eq!(gpu01.port(), Some(22));
    assert!(gpu01.key_file().unwrap().ends_with(".ssh/fabcheck_ed25519"), "{:?}", gpu01.key_file());
    // group_vars/gpu/ is a directory: both of its files.
    assert_eq!(gpu01.nics(), ["mlx5_0", "mlx5_1"]);
    assert!(gpu01.var("fabcheck_capture_command").is_some());
    assert_eq!(gpu01.gpus(), Some(8));
    // host_vars/gpu04.yml, under the older names, wins over the host's line in hosts.ini.
    let gpu04 = inv.host("gpu04").unwrap();
    assert_eq!((gpu04.address(), gpu04.port()), ("10.0.9.4", Some(2222)));
    assert_eq!(gpu04.nics(), ["mlx5_0"]);
    assert_eq!(gpu04.user(), Some("audit"));
}

#[test]
fn an_infiniband_cluster_in_yaml() {
    let inv = example("infiniband-cluster.yaml");
    assert_eq!(inv.hosts().len(), 4);
    let node01 = inv.host("node01").unwrap();
    assert_eq!((node01.address(), node01.user(), node01.gpus()), ("172.16.1.1", Some("audit"), Some(8)));
    assert_eq!(node01.var("fabcheck_iblinkinfo"), Some(&VarValue::Bool(true)));
    assert_eq!(inv.host("node02").unwrap().var("fabcheck_iblinkinfo"), None);
}

#[test]
fn a_fabric_with_switches_and_a_collector() {
    let inv = example("fabric/hosts.ini");
    let role = |name: &str| inv.host(name).unwrap().role();
    assert_eq!(
        (role("gpu01"), role("leaf1"), role("spine1"), role("flows1")),
        (Role::Host, Role::Leaf, Role::Spine, Role::Collector)
    );
    assert_eq!(inv.host("leaf2").unwrap().platform(), "eos");
    assert_eq!(inv.host("spine1").unwrap().user(), Some("cumulus"));
    assert!(inv.host("flows1").unwrap().var("fabcheck_flows_command").is_some());
}

/// `ansible-inventory --list` JSON both ways: the listing fabcheck writes of an Ansible tree
/// loads back as the same hosts with the same variables (so a dynamic inventory's listing, or
/// Ansible's own, is an inventory like any other), and `--limit` lists only its hosts.
#[test]
fn the_ansible_listing_round_trips() {
    let inv = example("roce-cluster/hosts.ini");
    let all: Vec<&fabcheck_inventory::Host> = inv.hosts().iter().collect();
    let listing = fabcheck_inventory::ansible_listing(&inv, &all);
    assert_eq!(listing["all"]["children"], serde_json::json!(["gpu", "ungrouped"]));
    assert_eq!(listing["gpu"]["hosts"], serde_json::json!(["gpu01", "gpu02", "gpu03", "gpu04"]));
    assert_eq!(listing["_meta"]["hostvars"]["gpu04"]["ansible_port"], 2222);
    let text = serde_json::to_string_pretty(&listing).unwrap();
    let back = Inventory::parse(&text, "listing.json").unwrap();
    assert_eq!(back.hosts().len(), 4);
    for h in inv.hosts() {
        let b = back.host(h.name()).unwrap();
        assert_eq!(
            (b.address(), b.port(), b.user(), b.nics(), b.vars()),
            (h.address(), h.port(), h.user(), h.nics(), h.vars()),
            "{}",
            h.name()
        );
        assert_eq!(b.groups(), h.groups(), "{}", h.name());
    }
    let some = inv.select("gpu03:gpu04").unwrap();
    let limited = fabcheck_inventory::ansible_listing(&inv, &some);
    assert_eq!(limited["gpu"]["hosts"], serde_json::json!(["gpu03", "gpu04"]));
    assert_eq!(limited["_meta"]["hostvars"].as_object().unwrap().len(), 2);
    // Not a listing: named.
    let err = Inventory::parse("{\"_meta\": {}, \"gpu\": [1]}", "bad.json").unwrap_err().to_string();
    assert!(err.contains("group `gpu` is not an object"), "{err}");
}
