//! Ansible's variable precedence: all < parent group < child group < host; groups at the same
//! depth merge alphabetically (later wins) unless `ansible_group_priority` says otherwise.

use fabcheck_inventory::VarValue;

use crate::load;

#[test]
fn precedence_in_both_formats() {
    for file in ["precedence.ini", "precedence.yml"] {
        let inv = load(file);
        let var = |host: &str, key: &str| inv.host(host).unwrap().var(key).cloned();
        // leaves (depth 2) beats fabric (depth 1) beats all.
        assert_eq!(var("leaf1", "level"), Some(VarValue::from("leaves")), "{file}");
        // The host's own value beats every group.
        assert_eq!(var("leaf2", "level"), Some(VarValue::from("host")), "{file}");
        // a_site and b_site are siblings: alphabetical order, b_site wins (in the YAML file
        // b_site comes first, so this is not file order).
        assert_eq!(var("leaf1", "site"), Some(VarValue::from("b")), "{file}");
        // y_prio has ansible_group_priority 5, so it merges after z_prio.
        assert_eq!(var("leaf2", "site"), Some(VarValue::from("y")), "{file}");
    }
}
