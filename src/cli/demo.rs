//! `fabcheck demo`: the lab with a few typical faults, audited over SSH like a real cluster,
//! through exactly the `audit` code path.

use super::app::{AuditArgs, DemoArgs, SshArgs};
use super::audit;
use anyhow::Context;
use fabcheck_model::exit_codes;
use std::time::Duration;

/// The faults the demo injects: a lossless hop broken, packets being dropped, no GPUDirect.
const DEMO_FAULTS: [&str; 3] = [
    "gpu002=pfc-off",
    "gpu003=out-of-buffer",
    "gpu004=peermem-missing",
];

/// SSH settings for the lab: its own known_hosts, no ~/.ssh/config.
pub fn lab_ssh_args(lab: &fabcheck_lab::Lab, empty_ssh_config: std::path::PathBuf) -> SshArgs {
    SshArgs {
        forks: 64,
        accept_new_hostkeys: false,
        known_hosts: vec![lab.known_hosts_path()],
        ssh_config: Some(empty_ssh_config),
        connect_timeout: Duration::from_secs(10),
        command_timeout: Duration::from_secs(30),
        max_output: 4 << 20,
    }
}

/// Runs the demo. Exits 0 when the audit ran: its findings are the point of the demo.
pub async fn run(args: DemoArgs) -> anyhow::Result<i32> {
    let lab_dir = args.out.join("lab");
    let faults: Vec<String> = DEMO_FAULTS
        .iter()
        .take(args.hosts.saturating_sub(1))
        .map(|f| f.to_string())
        .collect();
    let lab = super::lab::start(args.hosts, &faults, &lab_dir).await?;
    eprintln!(
        "fabcheck: lab of {} simulated GPU hosts on loopback, faults: {}",
        args.hosts,
        faults.join(", ")
    );
    // The lab is self-contained: the user's ~/.ssh/config (a ProxyJump on `Host *`, say) must not apply.
    let empty_ssh_config = lab_dir.join("ssh_config");
    std::fs::write(&empty_ssh_config, "")
        .with_context(|| format!("writing {}", empty_ssh_config.display()))?;
    let audit = AuditArgs {
        inventory: Some(lab.inventory_path()),
        policy: None,
        out: args.out.clone(),
        limit: None,
        fail_on: "error".into(),
        window: Duration::from_secs(2),
        snapshot: None,
        local: false,
        ssh: lab_ssh_args(&lab, empty_ssh_config),
    };
    audit::run(audit).await?;
    Ok(exit_codes::CLEAN)
}
