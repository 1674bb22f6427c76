//! Facts of the mlx5 driver's DCQCN tree, `/sys/class/net/IF/ecn/` (MLNX_OFED), as its parser
//! (`fabcheck_parse::linux::roce_ecn`) produces them.

use serde::Serialize;
use std::collections::BTreeMap;

/// One netdev's DCQCN state: the reaction point (RP: slows the sender on CNPs) and the
/// notification point (NP: sends CNPs for ECN-marked packets), per priority, and their parameters.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RoceEcn {
    /// The netdev the paths name.
    pub netdev: Option<String>,
    /// `roce_rp/enable/N`: reaction point on for priority N (a file that printed nothing is absent).
    pub rp_enabled: BTreeMap<u8, bool>,
    /// `roce_np/enable/N`: notification point on for priority N.
    pub np_enabled: BTreeMap<u8, bool>,
    /// `roce_rp/*`: congestion-control parameters (`rpg_time_reset` in µs, `rpg_ai_rate` in Mb/s...).
    pub rp: BTreeMap<String, i64>,
    /// `roce_np/*`: `min_time_between_cnps` (µs), `cnp_dscp`, `cnp_802p_prio`.
    pub np: BTreeMap<String, i64>,
}

impl RoceEcn {
    /// The DSCP the NIC puts on the CNPs it sends.
    pub fn cnp_dscp(&self) -> Option<i64> {
        self.np.get("cnp_dscp").copied()
    }

    /// The 802.1p priority the NIC puts on the CNPs it sends.
    pub fn cnp_802p_prio(&self) -> Option<i64> {
        self.np.get("cnp_802p_prio").copied()
    }
}
