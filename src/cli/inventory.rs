//! `fabcheck inventory --list -i INV [--limit P]`: the inventory as fabcheck resolves it, in the
//! JSON `ansible-inventory --list` prints, so that the two can be diffed (`jq -S`), and so that
//! what fabcheck will connect to is never a guess.
use super::app::InventoryArgs;
use crate::out;
use fabcheck_inventory::{Host, Inventory, ansible_listing};
use fabcheck_model::exit_codes;

/// Prints the listing; exit 0.
pub fn run(args: &InventoryArgs) -> anyhow::Result<i32> {
    let inv = Inventory::load(&args.inventory).map_err(|e| anyhow::anyhow!("{e}"))?;
    let hosts: Vec<&Host> = match &args.limit {
        Some(pattern) => inv.select(pattern).map_err(|e| anyhow::anyhow!("--limit {pattern}: {e}"))?,
        None => inv.hosts().iter().collect(),
    };
    super::targets::warn_ignored_vars(&args.inventory, &hosts);
    out!("{}", serde_json::to_string_pretty(&ansible_listing(&inv, &hosts))?)?;
    Ok(exit_codes::CLEAN)
}
