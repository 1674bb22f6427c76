//! Facts of `ethtool IF`, as its parser (`fabcheck_parse::linux::ethtool_link`) produces them.

use serde::Serialize;

/// Link settings of one interface.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct EthtoolLink {
    /// The interface named in `Settings for IF:`.
    pub interface: Option<String>,
    /// Negotiated speed in Mb/s (`None` for `Unknown!`).
    pub speed_mbps: Option<u64>,
    /// `Full` or `Half` (`None` for `Unknown!`).
    pub duplex: Option<String>,
    /// `Auto-negotiation: on|off`.
    pub auto_negotiation: Option<bool>,
    /// `Direct Attach Copper`, `FIBRE`, `Other` ...
    pub port: Option<String>,
    /// `Link detected: yes|no`.
    pub link_detected: Option<bool>,
    /// Why the link is down, as ethtool gives it from the driver's extended link state:
    /// `Link detected: no (Autoneg, No partner detected)` → `Autoneg, No partner detected`.
    pub link_down_reason: Option<String>,
    /// Link modes the port supports, e.g. `100000baseCR4/Full`.
    pub supported_link_modes: Vec<String>,
    /// Link modes the port advertises.
    pub advertised_link_modes: Vec<String>,
}
