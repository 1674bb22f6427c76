//! `fabcheck lab`: serves the simulated hosts until interrupted, with their inventory and
//! known_hosts written for any SSH client (fabcheck, ssh, ansible) to use.

use super::app::LabArgs;
use crate::out;
use anyhow::Context;
use fabcheck_lab::{Design, Fault, Lab, LabConfig, Platform};
use fabcheck_model::exit_codes;
use std::path::Path;

/// How many devices of each kind.
#[derive(Debug, Clone, Default)]
pub struct Shape {
    /// GPU hosts.
    pub hosts: usize,
    /// Leaf switches (0: hosts only).
    pub leaves: usize,
    /// Spine switches.
    pub spines: usize,
    /// The leaves' and spines' platforms, one switch each, instead of the default rotation.
    pub platforms: Option<(Vec<Platform>, Vec<Platform>)>,
    /// Channels a host's NIC (`--channels`): hosts of real size.
    pub channels: Option<u32>,
    /// The design every device is built to (`--design`).
    pub design: Design,
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
    let config = LabConfig {
        hosts: shape.hosts,
        leaves: shape.leaves,
        spines: shape.spines,
        faults,
        dir,
        channels: shape.channels,
    };
    let platforms = shape.platforms.as_ref().map(|(l, s)| (l.as_slice(), s.as_slice()));
    Lab::start_on(&shape.design, config, platforms).await.map_err(|e| anyhow::anyhow!("{e}"))
}

/// Serves in the foreground.
pub async fn run(args: LabArgs) -> anyhow::Result<i32> {
    let chosen = !args.leaf_platforms.is_empty() || !args.spine_platforms.is_empty();
    let shape = Shape {
        hosts: args.hosts,
        leaves: if chosen { args.leaf_platforms.len() } else { args.leaves },
        spines: if chosen { args.spine_platforms.len() } else { args.spines },
        platforms: chosen.then(|| (args.leaf_platforms.clone(), args.spine_platforms.clone())),
        channels: args.channels,
        design: args.design.clone(),
    };
    let lab = start(shape.clone(), &args.faults, &args.dir).await?;
    let design = shape.design.name;
    out!(
        "lab: {} hosts, {} leaves, {} spines on 127.0.0.1, built to {design}",
        shape.hosts,
        shape.leaves,
        shape.spines
    )?;
    out!("inventory: {}", lab.inventory_path().display())?;
    out!("known_hosts: {}", lab.known_hosts_path().display())?;
    out!(
        "try: fabcheck audit -i {} --known-hosts {} --policy {design}",
        lab.inventory_path().display(),
        lab.known_hosts_path().display()
    )?;
    tokio::select! {
        _ = lab.run_forever() => {}
        _ = tokio::signal::ctrl_c() => {}
    }
    Ok(exit_codes::CLEAN)
}
