//! `fabcheck lab`: serves the simulated hosts until interrupted, with their inventory and
//! known_hosts written for any SSH client (fabcheck, ssh, ansible) to use.

use super::app::LabArgs;
use crate::out;
use anyhow::Context;
use fabcheck_lab::{Fault, Lab, LabConfig};
use fabcheck_model::exit_codes;
use std::path::Path;

/// How many devices of each kind.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    /// GPU hosts.
    pub hosts: usize,
    /// Leaf switches (0: hosts only).
    pub leaves: usize,
    /// Spine switches.
    pub spines: usize,
}

/// Starts the lab described by the arguments.
pub async fn start(shape: Shape, faults: &[String], dir: &Path) -> anyhow::Result<Lab> {
    let faults = faults
        .iter()
        .map(|f| f.parse::<Fault>().map_err(|e| anyhow::anyhow!("--fault {f}: {e}")))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let dir = std::path::absolute(dir).with_context(|| format!("resolving {}", dir.display()))?;
    if let Err(e) = rlimit::increase_nofile_limit(u64::MAX) {
        eprintln!("fabcheck: warning: cannot raise the open-file limit: {e}");
    }
    Lab::start(LabConfig { hosts: shape.hosts, leaves: shape.leaves, spines: shape.spines, faults, dir })
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))
}

/// Serves in the foreground.
pub async fn run(args: LabArgs) -> anyhow::Result<i32> {
    let lab =
        start(Shape { hosts: args.hosts, leaves: args.leaves, spines: args.spines }, &args.faults, &args.dir).await?;
    out!("lab: {} hosts, {} leaves, {} spines on 127.0.0.1", args.hosts, args.leaves, args.spines)?;
    out!("inventory: {}", lab.inventory_path().display())?;
    out!("known_hosts: {}", lab.known_hosts_path().display())?;
    out!(
        "try: fabcheck audit -i {} --known-hosts {}",
        lab.inventory_path().display(),
        lab.known_hosts_path().display()
    )?;
    tokio::select! {
        _ = lab.run_forever() => {}
        _ = tokio::signal::ctrl_c() => {}
    }
    Ok(exit_codes::CLEAN)
}
