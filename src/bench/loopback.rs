//! NCCL's socket interface on the loopback: `lo` reaches no other host, so a run between hosts
//! whose NCCL took it for its sockets (bootstrap, and the data when IB is off) cannot connect its
//! ranks, or connects them only where the hosts' own addresses sit on `lo` and NCCL still picks
//! 127.0.0.1 (NVIDIA/nccl#1053: `NET/Socket : Using [0]lo:127.0.0.1<0>`). NCCL's default
//! `NCCL_SOCKET_IFNAME=^lo,docker` leaves `lo` out, so it is there by NCCL_SOCKET_IFNAME=lo or
//! because the host had no other interface up (NVIDIA/nccl#286: "`lo` is loopback so you won't be
//! able to use it between two nodes"). NCCL up to 2.3 names it `NET : Using interface
//! lo:127.0.0.1<0>`, later ones `NET/Socket : Using [0]lo:...` (both reach `socket_interfaces`);
//! with IB carrying the data, recent ones print no socket list at all and name it only as the
//! bootstrap interface, `Bootstrap: Using lo:127.0.0.1<0>` or `OOB lo:...` (`oob_interface`).

use super::judge::Context;
use fabcheck_model::{Finding, Severity};
use fabcheck_parse::nccl::nccl_tests::{HostNet, NcclRun};

/// Linux's loopback interface name.
const LOOPBACK: &str = "lo";

/// One finding per host whose NCCL socket list takes the loopback.
pub fn socket_loopback(run: &NcclRun, ctx: &Context) -> Vec<Finding> {
    run.hosts
        .iter()
        .filter(|(_, net)| {
            net.socket_interfaces.iter().chain(&net.oob_interface).any(|i| i == LOOPBACK)
        })
        .map(|(host, net)| {
            Finding::new(
                "nccl.socket_loopback",
                Severity::Error,
                host,
                format!(
                    "{}: NCCL on {host} uses the loopback interface {LOOPBACK} for its sockets, which no other host can reach: set NCCL_SOCKET_IFNAME to the interface the hosts talk on",
                    ctx.label
                ),
            )
            .expected_actual("a routed interface", used(net))
        })
        .collect()
}

/// The interfaces a host's NCCL named for its sockets and its bootstrap: `lo`, `lo (bootstrap)`.
fn used(net: &HostNet) -> String {
    let mut all: Vec<String> = net.socket_interfaces.clone();
    if let Some(oob) = net.oob_interface.as_ref().filter(|o| !net.socket_interfaces.contains(o)) {
        all.push(format!("{oob} (bootstrap)"));
    }
    all.join(",")
}
