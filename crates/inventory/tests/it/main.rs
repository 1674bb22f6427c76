//! Integration tests of fabcheck-inventory on the fixture files in `tests/fixtures/`.

mod docs_examples;
mod errors;
mod examples;
mod lab;
mod limit;
mod precedence;
mod proptests;
mod ssh_config;

use std::path::PathBuf;

use fabcheck_inventory::{Host, Inventory, InventoryError};

/// The path of a fixture file.
pub(crate) fn fixture(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(path)
}

/// Parses a fixture, naming it by its relative path so that error messages are stable.
pub(crate) fn parse(path: &str) -> Result<Inventory, InventoryError> {
    let text = std::fs::read_to_string(fixture(path)).expect("fixture exists");
    Inventory::parse(&text, path)
}

/// Parses a fixture that must load.
pub(crate) fn load(path: &str) -> Inventory {
    parse(path).unwrap_or_else(|e| panic!("{e}"))
}

/// Host names, for compact assertions.
pub(crate) fn names<'a>(hosts: impl IntoIterator<Item = &'a Host>) -> Vec<&'a str> {
    hosts.into_iter().map(Host::name).collect()
}

/// Group names of one host.
pub(crate) fn groups_of<'a>(inventory: &'a Inventory, host: &str) -> Vec<&'a str> {
    inventory.host(host).unwrap_or_else(|| panic!("no host {host}")).groups().iter().map(String::as_str).collect()
}
