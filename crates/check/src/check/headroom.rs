//! The headroom a lossless priority needs: what arrives between a pause being sent and the sender
//! stopping, from the link's speed, the cable's length and the MTU. One formula for the hosts'
//! NIC buffers and the switches' priority groups: the mlx5 driver's
//! (drivers/net/ethernet/mellanox/mlx5/core/en/port_buffer.c, `calculate_xoff` and
//! `update_xoff_threshold`), the one published formula that sizes a RoCE link's headroom from
//! those three. Switch ASICs size headroom in cells with constants of their own; against them it
//! is a yardstick, and the finding says so.

use crate::policy::Policy;

/// Cable length assumed per hop when neither the device nor the policy gives one, in metres.
const DEFAULT_CABLE_M: u32 = 5;
/// The NIC's buffer cell in bytes (mlx5's `port_buff_cell_sz` on ConnectX-5 and later).
const BUFFER_CELL_BYTES: u64 = 128;

/// The policy's cable length per hop (`pfc.cable_length_m`), else 5 m.
pub fn policy_cable_m(policy: &Policy) -> u32 {
    policy.pfc.as_ref().and_then(|p| p.cable_length_m).unwrap_or(DEFAULT_CABLE_M)
}

/// xoff = (301 + 2.16 × cable m) × speed Gb/s + 2.72 × MTU bytes, the speed at least 40 Gb/s:
/// the headroom above the pause threshold.
pub fn xoff_needed(speed_mbps: u64, cable_m: u32, mtu: u32) -> u64 {
    let speed = speed_mbps.max(40_000);
    (301 + 216 * u64::from(cable_m) / 100) * speed / 1000 + 272 * u64::from(mtu) / 100
}

/// A NIC's whole lossless receive buffer: xoff, plus a frame and one cell.
pub fn lossless_buffer_needed(speed_mbps: u64, cable_m: u32, mtu: u32) -> u64 {
    xoff_needed(speed_mbps, cable_m, mtu) + u64::from(mtu) + BUFFER_CELL_BYTES
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The driver's own arithmetic, checked against a real configuration: the ConnectX-7 of
    /// tests/fixtures/mlnx_qos/cx7-fw28.39-...-3fs-doc.txt has its lossless priority on a buffer
    /// of 220,896 bytes for a 30 m cable, which holds a 400G link at MTU 9000.
    #[test]
    fn the_headroom_follows_the_mlx5_driver() {
        assert_eq!(lossless_buffer_needed(400_000, 30, 9000), 146_000 + 24_480 + 9_000 + 128);
        assert!(lossless_buffer_needed(400_000, 30, 9000) <= 220_896);
        assert_eq!(lossless_buffer_needed(100_000, 7, 1500), 31_600 + 4_080 + 1_500 + 128);
        assert_eq!(lossless_buffer_needed(10_000, 5, 1500), lossless_buffer_needed(40_000, 5, 1500), "40 Gb/s floor");
        assert!(lossless_buffer_needed(400_000, 5, 4200) > 65_536, "the lab's pfc-buffer-small is short");
    }

    /// The lab's switch headroom holds a 400G port with a 5 m cable at MTU 9216; its
    /// `headroom-small` does not.
    #[test]
    fn the_labs_switch_headroom() {
        assert_eq!(xoff_needed(400_000, 5, 9216), 124_400 + 25_067);
        assert!(xoff_needed(400_000, 5, 9216) < 195_584 && xoff_needed(400_000, 5, 9216) > 65_536);
    }
}
