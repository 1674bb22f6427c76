//! The parsers never panic, whatever the input.

use std::path::Path;

use fabcheck_inventory::{Inventory, SshConfig};
use proptest::prelude::*;

use crate::load;

/// Text built from the characters that matter to the formats, so that generated input
/// often looks like an inventory.
const INVENTORY_CHARS: &str = "[\\[\\]a-z0-9:=\"' #;\n!&*?~,.{}\\-\\\\]{0,300}";

/// Lines that look like INI inventory lines.
fn ini_line() -> impl Strategy<Value = String> {
    prop_oneof![
        "\\[[a-z]{1,3}(:(vars|children|x))?\\]",
        "[a-z]{1,4}(\\[[0-9a-c]{0,2}:[0-9a-c]{0,2}(:[0-9]{0,2})?\\])?(:[0-9]{0,6})? ([a-z_]{1,6}=[\"'a-z0-9,\\[\\];$ ]{0,12} ?){0,3}",
        "[a-z_]{1,6} ?= ?[a-zA-Z0-9'\"\\[\\], #]{0,12}",
        "[a-z]{1,3}",
        "[#;].{0,10}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn parse_ini_never_panics(text in "\\PC{0,300}") {
        let _ = Inventory::parse_ini(&text, "p.ini");
    }

    #[test]
    fn parse_ini_never_panics_on_inventory_like_text(text in INVENTORY_CHARS) {
        let _ = Inventory::parse_ini(&text, "p.ini");
    }

    #[test]
    fn parse_ini_never_panics_on_inventory_lines(lines in prop::collection::vec(ini_line(), 0..30)) {
        let _ = Inventory::parse_ini(&lines.join("\n"), "p.ini");
    }

    #[test]
    fn parse_yaml_never_panics(text in "\\PC{0,300}") {
        let _ = Inventory::parse_yaml(&text, "p.yml");
    }

    #[test]
    fn parse_yaml_never_panics_on_inventory_like_text(text in INVENTORY_CHARS) {
        let _ = Inventory::parse_yaml(&text, "p.yml");
    }

    #[test]
    fn parse_yaml_never_panics_on_indented_mappings(
        lines in prop::collection::vec(
            ("[ ]{0,8}", prop_oneof![
                Just("all:".to_owned()), Just("hosts:".to_owned()), Just("vars:".to_owned()),
                Just("children:".to_owned()), "[a-z]{1,3}(\\[[0-9]:[0-9]\\])?:( [a-z0-9~\\[\\]{},]{0,6})?",
                Just("- x".to_owned()),
            ]),
            0..30,
        )
    ) {
        let text: String = lines.iter().map(|(indent, line)| format!("{indent}{line}\n")).collect();
        let _ = Inventory::parse_yaml(&text, "p.yml");
    }

    #[test]
    fn ssh_config_never_panics(text in "[A-Za-z0-9 =\"'#*?!%~\n\\\\]{0,300}") {
        let _ = SshConfig::parse_with_home(&text, "p", Path::new("/nonexistent"))
            .map(|c| c.resolve("gpu01"));
    }

    #[test]
    fn select_never_panics(pattern in "[a-z0-9:,!&*?~\\[\\]().|^$ ]{0,30}") {
        let _ = load("lab.ini").select(&pattern);
    }
}
