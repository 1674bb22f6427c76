//! `fabcheck lab`: serves the simulated hosts until interrupted, with their inventory and
//! known_hosts written for any SSH client (fabcheck, ssh, ansible) to use.

use super::app::LabArgs;
use crate::out;
use anyhow::Context;
use fabcheck_lab::{Fault, Lab, LabConfig};
use fabcheck_model::exit_codes;
use std::path::Path;

/// Starts the lab described by the arguments.
pub async fn start(hosts: usize, faults: &[String], dir: &Path) -> anyhow::Result<Lab> {
    let faults = faults
        .iter()
        .map(|f| f.parse::<Fault>().map_err(|e| anyhow::anyhow!("--fault {f}: {e}")))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let dir = std::path::absolute(dir).with_context(|| format!("resolving {}", dir.display()))?;
    if let Err(e) = rlimit::increase_nofile_limit(u64::MAX) {
        eprintln!("fabcheck: warning: cannot raise the open-file limit: {e}");
    }
    Lab::start(LabConfig { hosts, faults, dir }).await.map_err(|e| anyhow::anyhow!("{e}"))
}

/// Serves in the foreground.
pub async fn run(args: LabArgs) -> anyhow::Result<i32> {
    let lab = start(args.hosts, &args.faults, &args.dir).await?;
    out!("lab: {} hosts on 127.0.0.1", args.hosts)?;
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
