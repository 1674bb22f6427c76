//! Canonical counter names: one name per thing counted, whatever tool or vendor counted it.
//!
//! A policy's counter rules may name a canonical counter (`out_of_buffer`, `pause_rx3`) or a
//! vendor's own name (`rx_out_of_buffer`, `rx_prio3_pause`): both select the same reads. Names
//! nothing here maps keep their own name.
//!
//! | canonical | ethtool -S (mlx5) | RDMA hw_counters | perfquery -x | switch (model) |
//! |---|---|---|---|---|
//! | `out_of_buffer` | `rx_out_of_buffer` | `out_of_buffer` | | |
//! | `rx_discards` | `rx_discards_phy` | | `PortRcvErrors` | |
//! | `tx_discards` | `tx_discards_phy` | | `PortXmitDiscards` | |
//! | `packet_seq_err` | | `packet_seq_err` | | |
//! | `pause_rx{P}` / `pause_tx{P}` | `rx_prio{P}_pause` / `tx_prio{P}_pause` (other drivers: `PFC_FRAMES` below) | | | PFC frames per priority |
//! | `ecn_marked` | | `np_ecn_marked_roce_packets` | | |
//! | `cnp_sent` / `cnp_handled` | | `np_cnp_sent` / `rp_cnp_handled` | | |
//! | `symbol_errors` | | | `SymbolErrorCounter` | |
//! | `link_downed` | | | `LinkDownedCounter` | |
//! | `queue{Q}_drops` / `queue{Q}_ecn_marked` | | | | per egress queue (transmit side) |

/// Fixed renames: vendor name → canonical name.
const RENAMES: &[(&str, &str)] = &[
    ("rx_out_of_buffer", "out_of_buffer"),
    ("out_of_buffer", "out_of_buffer"),
    ("rx_discards_phy", "rx_discards"),
    ("PortRcvErrors", "rx_discards"),
    ("tx_discards_phy", "tx_discards"),
    ("PortXmitDiscards", "tx_discards"),
    ("packet_seq_err", "packet_seq_err"),
    ("np_ecn_marked_roce_packets", "ecn_marked"),
    ("np_cnp_sent", "cnp_sent"),
    ("rp_cnp_handled", "cnp_handled"),
    ("SymbolErrorCounter", "symbol_errors"),
    ("LinkDownedCounter", "link_downed"),
];

/// PFC frames per priority P, as each NIC driver names them: `PREFIX P SUFFIX` → `CANONICAL P`.
const PFC_FRAMES: [(&str, &str, &str); 6] = [
    // mlx5
    ("rx_prio", "_pause", "pause_rx"),
    ("tx_prio", "_pause", "pause_tx"),
    // Broadcom bnxt_en: PFC frames with priority P's enable bit set (XON ones too, unlike
    // ice's XOFF count)
    ("rx_pfc_ena_frames_pri", "", "pause_rx"),
    ("tx_pfc_ena_frames_pri", "", "pause_tx"),
    // Intel ice (E810): XOFF frames of priority P
    ("rx_priority_", "_xoff.nic", "pause_rx"),
    ("tx_priority_", "_xoff.nic", "pause_tx"),
];

/// The canonical name of a counter as a tool or vendor names it; `None` when it has none.
pub fn canonical(name: &str) -> Option<String> {
    if let Some((_, c)) = RENAMES.iter().find(|(vendor, _)| *vendor == name) {
        return Some(c.to_string());
    }
    for (prefix, suffix, canonical) in PFC_FRAMES {
        if let Some(prio) = name.strip_prefix(prefix).and_then(|r| r.strip_suffix(suffix))
            && prio.len() == 1
            && prio.as_bytes()[0].is_ascii_digit()
        {
            return Some(format!("{canonical}{prio}"));
        }
    }
    let queue = name.strip_prefix("queue").and_then(|r| r.split_once('_'));
    if let Some((q, what)) = queue
        && !q.is_empty()
        && q.bytes().all(|b| b.is_ascii_digit())
        && matches!(what, "drops" | "ecn_marked")
    {
        return Some(name.to_string());
    }
    None
}

/// What a counter counts, as the reports show it: the unit, and what to multiply the raw value
/// by to get it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unit {
    /// `bytes`, `packets`, `frames`, `µs`, `errors`, `ticks` or `events`.
    pub name: &'static str,
    /// Raw value × factor = the value in `name`.
    pub factor: u64,
}

impl Unit {
    /// A raw count in this unit (perfquery's words as bytes).
    pub fn count(&self, raw: u64) -> u64 {
        raw.saturating_mul(self.factor)
    }

    /// A raw rate in this unit per second.
    pub fn rate(&self, raw_per_s: f64) -> f64 {
        raw_per_s * self.factor as f64
    }
}

/// The unit of a counter, by its name as the tool printed it. perfquery's `PortXmitData` and
/// `PortRcvData` count 4-byte words (InfiniBand Architecture Specification, PortCounters: "divided
/// by 4"), so their values are shown ×4 as bytes; mlx5's `*_pause_duration` counts microseconds;
/// `PortXmitWait` counts the port's internal clock ticks.
pub fn unit(name: &str) -> Unit {
    // Called for every counter in every report: ethtool's and sysfs's names are lower case
    // already and are not copied, and the words are looked for byte by byte (79 M instructions
    // for a 1,000-host lab's reports with a copy and `str::contains`, 25 M so).
    let lower = match name.bytes().any(|b| b.is_ascii_uppercase()) {
        true => std::borrow::Cow::Owned(name.to_ascii_lowercase()),
        false => std::borrow::Cow::Borrowed(name),
    };
    let has = |words: &[&str]| words.iter().any(|w| contains_word(lower.as_bytes(), w.as_bytes()));
    let (name, factor) = if matches!(name, "PortXmitData" | "PortRcvData") {
        ("bytes", 4)
    } else if has(&["bytes", "octets"]) {
        ("bytes", 1)
    } else if has(&["duration"]) {
        ("µs", 1)
    } else if name == "PortXmitWait" {
        ("ticks", 1)
    } else if has(&["pause", "pfc", "xoff", "xon"]) {
        ("frames", 1)
    } else if has(&["pkts", "packets", "discard", "drop", "out_of_buffer", "seq_err", "cnp", "ecn"]) {
        ("packets", 1)
    } else if has(&["err"]) {
        ("errors", 1)
    } else {
        ("events", 1)
    };
    Unit { name, factor }
}

/// Whether `word` occurs in `name` (both short; an empty word occurs everywhere).
fn contains_word(name: &[u8], word: &[u8]) -> bool {
    let Some(first) = word.first() else { return true };
    name.windows(word.len()).any(|at| at[0] == *first && at == word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_turn_perfquery_words_into_bytes() {
        let of = |n: &str| (unit(n).name, unit(n).factor);
        assert_eq!(of("PortXmitData"), ("bytes", 4));
        assert_eq!(of("PortRcvData"), ("bytes", 4));
        assert_eq!(of("rx_bytes"), ("bytes", 1));
        assert_eq!(of("PortXmitPkts"), ("packets", 1));
        assert_eq!(of("rx_prio3_pause"), ("frames", 1));
        assert_eq!(of("rx_prio3_pause_duration"), ("µs", 1));
        assert_eq!(of("rx_priority_3_xoff.nic"), ("frames", 1));
        assert_eq!(of("pfc_pri3_rx_duration_us"), ("µs", 1));
        assert_eq!(of("SAI_PORT_STAT_PFC_3_RX_PKTS"), ("frames", 1));
        assert_eq!(of("rx_out_of_buffer"), ("packets", 1));
        assert_eq!(of("SymbolErrorCounter"), ("errors", 1));
        assert_eq!(of("PortXmitWait"), ("ticks", 1));
        assert_eq!(of("LinkDownedCounter"), ("events", 1));
    }

    #[test]
    fn each_vendors_name_has_its_canonical_one() {
        assert_eq!(canonical("rx_out_of_buffer").as_deref(), Some("out_of_buffer"));
        assert_eq!(canonical("out_of_buffer").as_deref(), Some("out_of_buffer"));
        assert_eq!(canonical("rx_discards_phy").as_deref(), Some("rx_discards"));
        assert_eq!(canonical("PortXmitDiscards").as_deref(), Some("tx_discards"), "transmit side stays transmit");
        assert_eq!(canonical("rx_prio3_pause").as_deref(), Some("pause_rx3"));
        assert_eq!(canonical("tx_prio7_pause").as_deref(), Some("pause_tx7"));
        assert_eq!(canonical("rx_prio3_pause_duration"), None);
        assert_eq!(canonical("rx_prio10_pause"), None);
        assert_eq!(canonical("rx_pfc_ena_frames_pri3").as_deref(), Some("pause_rx3"), "bnxt_en");
        assert_eq!(canonical("tx_pfc_ena_frames_pri0").as_deref(), Some("pause_tx0"));
        assert_eq!(canonical("tx_priority_3_xoff.nic").as_deref(), Some("pause_tx3"), "ice");
        assert_eq!(canonical("rx_priority_3_xon.nic"), None, "XON resumes: not a pause");
        assert_eq!(canonical("rx_pfc_frames"), None, "all priorities together");
        assert_eq!(canonical("queue3_drops").as_deref(), Some("queue3_drops"));
        assert_eq!(canonical("queue_drops"), None);
        assert_eq!(canonical("rx_bytes"), None);
    }
}
