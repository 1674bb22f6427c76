//! The fabric designs the lab builds: which traffic is lossless on which priority, where CNPs
//! go, and whether the NICs run DCQCN, as one value that the hosts, every switch platform and
//! the faults all read.
//!
//! Each design is one of the reference policies the main crate ships (`playbooks/policies/`),
//! written here as the lab's own values: the lab does not depend on the main crate, so a test
//! there (`tests/integration/lab_designs.rs`) ties each design to its policy by auditing a lab
//! built on it with that policy.

use crate::state::EcnThresholds;

/// One lossless class: the DSCPs that carry it, the priority PFC protects and the switch
/// traffic class (and egress queue: the lab maps them one to one) it is queued in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LosslessClass {
    /// The DSCPs marking the class's traffic, the one the NICs send first.
    pub dscps: Vec<u8>,
    /// The 802.1p priority: PFC on it, on hosts and switches.
    pub priority: u8,
    /// The switch traffic class and egress queue.
    pub tc: u8,
    /// ECN marking on the class's queue; `None`: the design leaves congestion to PFC.
    pub ecn: Option<EcnThresholds>,
}

/// Where the DCQCN congestion notification packets go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CnpClass {
    /// The DSCP the NICs mark CNPs with (`ecn/roce_np/cnp_dscp`).
    pub dscp: u8,
    /// The 802.1p priority the NICs give CNPs (`ecn/roce_np/cnp_802p_prio`).
    pub priority: u8,
    /// The switch traffic class and egress queue of the CNP DSCP.
    pub tc: u8,
    /// The CNP queue is served in strict priority (else weighted round robin, as SONiC's
    /// default leaves it).
    pub strict: bool,
}

/// A whole fabric design.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Design {
    /// The reference policy's name.
    pub name: &'static str,
    /// The lossless classes, the one RoCE traffic runs on first.
    pub lossless: Vec<LosslessClass>,
    /// The CNP class; `None` when the design sends no CNPs.
    pub cnp: Option<CnpClass>,
    /// DCQCN's reaction and notification points on in the NICs.
    pub dcqcn: bool,
    /// The PFC watchdog on every switch port.
    pub watchdog: bool,
}

/// 1 KB, as the policies and switch CLIs count thresholds.
const KB: u64 = 1024;

impl Design {
    /// The reference designs, by name, the default first.
    pub const NAMES: [&'static str; 4] =
        ["roce-lossless-prio3", "sonic-lossless-3-4", "cisco-nexus-aiml", "pfc-only-prio3"];

    /// The names [`Design::named`] knows.
    pub fn names() -> &'static [&'static str] {
        &Self::NAMES
    }

    /// The design of that reference policy; the error lists the names.
    pub fn named(name: &str) -> Result<Design, String> {
        match name {
            "roce-lossless-prio3" => Ok(Design::roce_lossless_prio3()),
            "sonic-lossless-3-4" => Ok(Design::sonic_lossless_3_4()),
            "cisco-nexus-aiml" => Ok(Design::cisco_nexus_aiml()),
            "pfc-only-prio3" => Ok(Design::pfc_only_prio3()),
            other => Err(format!("no lab design `{other}` (one of {})", Self::NAMES.join(", "))),
        }
    }

    /// NVIDIA's ConnectX/Spectrum RoCE design, the built-in policy: DSCP 26 on priority and TC 3,
    /// ECN at 150 KB / 1500 KB, CNPs on DSCP 48, priority and TC 6, strict.
    pub fn roce_lossless_prio3() -> Design {
        Design {
            name: "roce-lossless-prio3",
            lossless: vec![LosslessClass {
                dscps: vec![26],
                priority: 3,
                tc: 3,
                ecn: Some(EcnThresholds { min_bytes: 150 * KB, max_bytes: 1500 * KB }),
            }],
            cnp: Some(CnpClass { dscp: 48, priority: 6, tc: 6, strict: true }),
            dcqcn: true,
            watchdog: true,
        }
    }

    /// SONiC's default QoS (qos_config.j2): DSCP 3 → 3 and 4 → 4 lossless, both queues marking
    /// ECN as WRED_PROFILE AZURE_LOSSLESS does (1 MB / 2 MB), CNPs on DSCP 48 in DWRR queue 6.
    pub fn sonic_lossless_3_4() -> Design {
        let ecn = Some(EcnThresholds { min_bytes: 1024 * KB, max_bytes: 2048 * KB });
        Design {
            name: "sonic-lossless-3-4",
            lossless: vec![
                LosslessClass { dscps: vec![3], priority: 3, tc: 3, ecn },
                LosslessClass { dscps: vec![4], priority: 4, tc: 4, ecn },
            ],
            cnp: Some(CnpClass { dscp: 48, priority: 6, tc: 6, strict: false }),
            dcqcn: true,
            watchdog: true,
        }
    }

    /// Cisco's Nexus AI/ML blueprint: DSCP 24 and 26 in no-drop qos-group 3 with WRED ECN at
    /// 150 KB / 3000 KB, CNPs (DSCP 48) in strict qos-group 7. The NICs keep their default CNP
    /// priority 6: the blueprint sets only the switches.
    pub fn cisco_nexus_aiml() -> Design {
        Design {
            name: "cisco-nexus-aiml",
            lossless: vec![LosslessClass {
                dscps: vec![24, 26],
                priority: 3,
                tc: 3,
                ecn: Some(EcnThresholds { min_bytes: 150 * KB, max_bytes: 3000 * KB }),
            }],
            cnp: Some(CnpClass { dscp: 48, priority: 6, tc: 7, strict: true }),
            dcqcn: true,
            watchdog: true,
        }
    }

    /// PFC without DCQCN: DSCP 26 on priority 3 lossless, no ECN marking, no CNPs, DCQCN off in
    /// the NICs.
    pub fn pfc_only_prio3() -> Design {
        Design {
            name: "pfc-only-prio3",
            lossless: vec![LosslessClass { dscps: vec![26], priority: 3, tc: 3, ecn: None }],
            cnp: None,
            dcqcn: false,
            watchdog: true,
        }
    }

    /// The class RoCE traffic runs on (the first), which the faults break.
    pub fn roce(&self) -> &LosslessClass {
        &self.lossless[0]
    }

    /// The DSCP the NICs mark RoCE traffic with.
    pub fn roce_dscp(&self) -> u8 {
        self.roce().dscps[0]
    }

    /// Whether `priority` is lossless.
    pub fn is_lossless(&self, priority: usize) -> bool {
        self.lossless.iter().any(|c| c.priority as usize == priority)
    }

    /// The lossless class queued in traffic class `tc`.
    pub fn class_of_tc(&self, tc: usize) -> Option<&LosslessClass> {
        self.lossless.iter().find(|c| c.tc as usize == tc)
    }

    /// The PFC priorities, ascending.
    pub fn pfc_priorities(&self) -> Vec<usize> {
        let mut p: Vec<usize> = self.lossless.iter().map(|c| c.priority as usize).collect();
        p.sort_unstable();
        p.dedup();
        p
    }

    /// The lossless traffic classes, ascending.
    pub fn lossless_tcs(&self) -> Vec<usize> {
        let mut t: Vec<usize> = self.lossless.iter().map(|c| c.tc as usize).collect();
        t.sort_unstable();
        t.dedup();
        t
    }

    /// Every DSCP the design names (lossless and CNP): the ones a switch configuration states.
    pub fn named_dscps(&self) -> Vec<usize> {
        let lossless = self.lossless.iter().flat_map(|c| c.dscps.iter().map(|&d| d as usize));
        let mut d: Vec<usize> = lossless.chain(self.cnp.map(|c| c.dscp as usize)).collect();
        d.sort_unstable();
        d.dedup();
        d
    }

    /// A switch's DSCP → traffic class map: the class selector (DSCP / 8) the platforms apply
    /// unconfigured, with the design's DSCPs on their classes.
    pub fn switch_dscp_map(&self) -> [u8; 64] {
        let mut map: [u8; 64] = std::array::from_fn(|d| (d / 8) as u8);
        for c in &self.lossless {
            for &d in &c.dscps {
                map[d as usize] = c.tc;
            }
        }
        if let Some(cnp) = self.cnp {
            map[cnp.dscp as usize] = cnp.tc;
        }
        map
    }

    /// The ECN thresholds of traffic class `tc`'s queue on a healthy port.
    pub fn ecn_of_tc(&self, tc: usize) -> Option<EcnThresholds> {
        self.class_of_tc(tc).and_then(|c| c.ecn)
    }

    /// The healthy ECN of every queue.
    pub fn queue_ecn(&self) -> [Option<EcnThresholds>; 8] {
        std::array::from_fn(|q| self.ecn_of_tc(q))
    }

    /// Whether any lossless queue marks ECN.
    pub fn marks_ecn(&self) -> bool {
        self.lossless.iter().any(|c| c.ecn.is_some())
    }

    /// A healthy port's CNP queue is strict (true too where there is no CNP class: nothing is
    /// weighted that the design does not weight).
    pub fn cnp_strict(&self) -> bool {
        self.cnp.is_none_or(|c| c.strict)
    }
}

impl Default for Design {
    /// The built-in policy's design.
    fn default() -> Design {
        Design::roce_lossless_prio3()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_builds_its_design_and_others_are_refused_with_the_names() {
        for name in Design::names() {
            assert_eq!(Design::named(name).unwrap().name, *name);
        }
        let err = Design::named("prio5").unwrap_err();
        assert!(Design::NAMES.iter().all(|n| err.contains(n)), "{err}");
    }

    #[test]
    fn switch_maps_put_the_named_dscps_on_their_classes() {
        let sonic = Design::sonic_lossless_3_4().switch_dscp_map();
        assert_eq!((sonic[3], sonic[4], sonic[48], sonic[26]), (3, 4, 6, 3));
        let cisco = Design::cisco_nexus_aiml().switch_dscp_map();
        assert_eq!((cisco[24], cisco[26], cisco[48]), (3, 3, 7));
        assert_eq!(Design::pfc_only_prio3().queue_ecn(), [None; 8]);
        assert_eq!(Design::sonic_lossless_3_4().pfc_priorities(), [3, 4]);
    }
}
