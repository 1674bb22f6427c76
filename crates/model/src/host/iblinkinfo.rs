//! Facts of `iblinkinfo` (infiniband-diags), as its parser (`fabcheck_parse::linux::iblinkinfo`) produces them.

use serde::Serialize;

/// Everything `iblinkinfo` printed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Iblinkinfo {
    /// Nodes in output order.
    pub nodes: Vec<Node>,
}

/// A `CA:` or `Switch:` block.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Node {
    /// `CA`, `Switch` or `Router`; empty in line mode (`iblinkinfo -l`), which prints no type.
    pub kind: String,
    /// A switch's port-0 GUID from its header; a CA's port GUID from its first link line (each
    /// port's own is its link's `guid`).
    pub guid: Option<String>,
    /// Node description, e.g. `gpu-v100-3 HCA-1`.
    pub name: String,
    /// One entry per port line.
    pub links: Vec<Link>,
}

/// One port of a node and what it is connected to.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Link {
    /// The port GUID the line starts with: a CA's port lines, and every line in line mode (a
    /// switch's ports share its port-0 GUID). A dual-port HCA has one per port.
    pub guid: Option<String>,
    /// The LID printed for this port (a switch prints its own LID on every port).
    pub lid: Option<u32>,
    /// Port number.
    pub port: u32,
    /// Active width, e.g. `4X` (none on a down port).
    pub width: Option<String>,
    /// Active per-lane speed in Gb/s as printed (none on a down port).
    pub speed_gbps: Option<f64>,
    /// Logical state, e.g. `Active`, `Down`.
    pub state: Option<String>,
    /// Physical state, e.g. `LinkUp`, `Polling`.
    pub physical_state: Option<String>,
    /// The peer port's LID.
    pub peer_lid: Option<u32>,
    /// The peer port's number.
    pub peer_port: Option<u32>,
    /// The peer node's description.
    pub peer_name: Option<String>,
    /// The width both ends support, when iblinkinfo says the link trained narrower
    /// (`( Could be 4X)`).
    pub could_be_width: Option<String>,
    /// The per-lane speed both ends support, when iblinkinfo says the link trained slower
    /// (`( Could be 53.125 Gbps)`: an HDR link running at EDR).
    pub could_be_gbps: Option<f64>,
}
