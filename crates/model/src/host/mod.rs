//! Host facts: what each Linux host command says, typed. The parsers in `fabcheck_parse::linux`
//! produce these; the facts stage and the checks read them.

pub mod ethtool_link;
pub mod ethtool_stats;
pub mod hw_counters;
pub mod ibdev2netdev;
pub mod iblinkinfo;
pub mod ibstat;
pub mod interrupts;
pub mod ip_link;
pub mod ip_route;
pub mod ip_rule;
pub mod irq_affinity;
pub mod lsmod;
pub mod mlnx_qos;
pub mod net_conf;
pub mod nvidia_smi_topo;
pub mod perfquery;
pub mod port_rate;
pub mod roce_ecn;
pub mod saquery_sm;
pub mod show_gids;
pub mod sminfo;
