//! Facts of `ibstat` (infiniband-diags), as its parser (`fabcheck_parse::linux::ibstat`) produces them.

use serde::Serialize;

/// Everything `ibstat` printed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ibstat {
    /// Channel adapters in output order.
    pub cas: Vec<Ca>,
}

/// One channel adapter (`CA 'mlx5_0'`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Ca {
    /// Device name, e.g. `mlx5_0`.
    pub name: String,
    /// `CA type`, e.g. `MT4129` (ConnectX-7).
    pub ca_type: Option<String>,
    /// `Number of ports`.
    pub num_ports: Option<u32>,
    /// `Firmware version`, e.g. `28.39.1002`.
    pub firmware_version: Option<String>,
    /// `Hardware version`.
    pub hardware_version: Option<String>,
    /// `Node GUID` as printed (`0x...`).
    pub node_guid: Option<String>,
    /// `System image GUID` as printed.
    pub system_image_guid: Option<String>,
    /// Ports in output order.
    pub ports: Vec<Port>,
}

/// One port of a CA (`Port 1:`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Port {
    /// Port number.
    pub port: u32,
    /// Logical state: `Active`, `Down`, `Initializing`, `Armed` (empty if the output was cut).
    pub state: String,
    /// Physical state: `LinkUp`, `Disabled`, `Polling` ... (empty if the output was cut).
    pub physical_state: String,
    /// `Rate` in Gb/s (`40 (FDR10)` gives 40).
    pub rate_gbps: Option<f64>,
    /// `Base lid` (0 on RoCE, 65535 when unassigned).
    pub base_lid: Option<u32>,
    /// `LMC`.
    pub lmc: Option<u32>,
    /// `SM lid`: the subnet manager's LID, 0 when none is known.
    pub sm_lid: Option<u32>,
    /// `Capability mask` as printed (`0x...`).
    pub capability_mask: Option<String>,
    /// `Port GUID` as printed.
    pub port_guid: Option<String>,
    /// `Link layer`: `InfiniBand` or `Ethernet` (RoCE).
    pub link_layer: Option<String>,
}
