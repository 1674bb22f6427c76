//! The policy file: what the fabric must look like. YAML (serde-saphyr), typed, and strict: an
//! unknown key is an error that names it, so a typo never silently disables a check. Every section
//! is optional; what is absent is not checked.

use fabcheck_model::Severity;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

mod classes;
mod explain;
pub mod infer;
pub mod library;
mod one_or_list;
use one_or_list::OneOrList;

/// The built-in policy (`playbooks/policies/roce-lossless-prio3.yaml`), used by the demo and when
/// `--policy` is not given: the library's first design.
pub const DEFAULT_POLICY: &str = library::LIBRARY[0].text;

/// A whole policy.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    /// Shown in reports.
    #[serde(default)]
    pub name: Option<String>,
    /// How RoCE traffic is marked: one lossless class. The short form of `lossless` for the
    /// common design with one; a policy gives one or the other.
    #[serde(default)]
    pub roce: Option<TrafficClass>,
    /// Several lossless classes, each with its DSCPs, priority, traffic class and ECN (SONiC's
    /// default design makes priorities 3 and 4 lossless, each on its own DSCP and queue).
    #[serde(default)]
    pub lossless: Vec<TrafficClass>,
    /// How congestion notification packets are marked, and whether their queue is strict.
    #[serde(default)]
    pub cnp: Option<TrafficClass>,
    /// Priority flow control.
    #[serde(default)]
    pub pfc: Option<Pfc>,
    /// Host NIC settings.
    #[serde(default)]
    pub nic: Option<Nic>,
    /// Host settings outside the NIC.
    #[serde(default)]
    pub host: Option<HostRules>,
    /// ECN on switches (checked once switches are audited).
    #[serde(default)]
    pub ecn: Option<Ecn>,
    /// InfiniBand ports.
    #[serde(default)]
    pub infiniband: Option<Infiniband>,
    /// Counter limits, judged on deltas over the observation window.
    #[serde(default)]
    pub counters: BTreeMap<String, CounterRule>,
    /// nccl-tests bus bandwidth floors (used by `fabcheck bench`).
    #[serde(default)]
    pub nccl: Vec<NcclRule>,
    /// Variables every benchmark rank gets, overriding the ones derived from the audit
    /// (`NCCL_IB_QPS_PER_CONNECTION: "4"`); `--env` on the command line overrides these.
    #[serde(default)]
    pub nccl_env: BTreeMap<String, String>,
    /// Limits on RoCEv2 flows (`fabcheck flows`).
    #[serde(default)]
    pub flows: Option<FlowRules>,
    /// What metrics.prom exports.
    #[serde(default)]
    pub metrics: Option<MetricsRules>,
}

/// What metrics.prom exports.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricsRules {
    /// Which counters: `all` (the default), `judged` (those a `counters:` rule names), or a
    /// list of names as the devices print them (`[out_of_buffer, rx_prio3_pause]`).
    #[serde(default)]
    pub counters: Option<CounterExport>,
}

/// `metrics.counters`.
#[derive(Debug, Clone, PartialEq)]
pub enum CounterExport {
    /// `all` or `judged`.
    Keyword(String),
    /// These counters only.
    Names(Vec<String>),
}

impl<'de> Deserialize<'de> for CounterExport {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<CounterExport, D::Error> {
        Ok(match OneOrList::deserialize(d, "all, judged or a list of counter names")? {
            OneOrList::One(keyword) => CounterExport::Keyword(keyword),
            OneOrList::List(names) => CounterExport::Names(names),
        })
    }
}

impl Policy {
    /// The counters metrics.prom exports, by name; `None`: all of them.
    pub fn exported_counters(&self) -> Option<Vec<String>> {
        match self.metrics.as_ref()?.counters.as_ref()? {
            CounterExport::Keyword(k) if k == "judged" => Some(self.counters.keys().cloned().collect()),
            CounterExport::Keyword(_) => None,
            CounterExport::Names(names) => Some(names.clone()),
        }
    }
}

/// What a RoCEv2 flow must stay within; each limit is checked where it is given.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowRules {
    /// NAKs per data packet (`flow.nak_rate`).
    #[serde(default)]
    pub max_nak_rate: Option<f64>,
    /// Retransmitted data packets per data packet (`flow.retransmits`).
    #[serde(default)]
    pub max_retransmit_rate: Option<f64>,
    /// Share of packets marked CE (`flow.ecn_ce`).
    #[serde(default)]
    pub max_ce_fraction: Option<f64>,
    /// CNPs per second to a flow's sender (`flow.ecn_ce` too: congestion the receiver signalled).
    #[serde(default)]
    pub max_cnps_per_s: Option<f64>,
    /// Message completion time, 99th percentile, in microseconds (`flow.fct`).
    #[serde(default)]
    pub max_fct_p99_us: Option<f64>,
    /// Throughput of a flow that moved at least a megabyte, in Gb/s (`flow.throughput_low`).
    #[serde(default)]
    pub min_throughput_gbps: Option<f64>,
    /// Latency of one hop between two capture points, 99th percentile, in microseconds
    /// (`flow.hop_latency`).
    #[serde(default)]
    pub max_hop_latency_p99_us: Option<f64>,
    /// Both directions of a QP, and the data, on the policy's RoCE DSCP (`flow.dscp_mismatch`).
    #[serde(default)]
    pub lossless_dscp: Option<bool>,
}

/// DSCP and priority of a kind of traffic: a lossless class (`roce`, each of `lossless`) or the
/// CNPs (`cnp`). `name` and `ecn` belong to lossless classes, `queue` to the CNP class.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrafficClass {
    /// What reports call the class (`RoCE` when absent).
    #[serde(default)]
    pub name: Option<String>,
    /// DSCP values the class is marked with (0-63): one (`dscp: 26`) or several
    /// (`dscp: [24, 26]`), each of which must map to `priority` on hosts and `traffic_class` on
    /// switches.
    #[serde(default)]
    pub dscp: Option<Dscps>,
    /// Priority the DSCP must map to (0-7).
    #[serde(default)]
    pub priority: Option<u8>,
    /// Switch traffic class (checked on switches; the priority when absent).
    #[serde(default)]
    pub traffic_class: Option<u8>,
    /// ECN marking on the class's switch queue and DCQCN on its priority; `ecn.enabled` when
    /// absent.
    #[serde(default)]
    pub ecn: Option<bool>,
    /// The CNP queue's scheduling: `strict` (the default: CNPs overtake the data they slow
    /// down) or `weighted`, for designs that give CNPs a weighted queue of their own.
    #[serde(default)]
    pub queue: Option<Scheduling>,
}

/// How a switch queue is served.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scheduling {
    /// Strict priority.
    Strict,
    /// Weighted round robin (DWRR, WRR, ETS).
    Weighted,
}

impl TrafficClass {
    /// The class's DSCP values (none when the policy names none).
    pub fn dscps(&self) -> &[u8] {
        self.dscp.as_ref().map_or(&[], |d| d.0.as_slice())
    }

    /// The switch traffic class: the one given, else the priority.
    pub fn switch_tc(&self) -> Option<u8> {
        self.traffic_class.or(self.priority)
    }

    /// What messages call the class.
    pub fn label(&self) -> &str {
        self.name.as_deref().unwrap_or("RoCE")
    }
}

/// One DSCP or a list of them, as a policy may write either.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dscps(pub Vec<u8>);

impl<'de> Deserialize<'de> for Dscps {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Dscps, D::Error> {
        Ok(Dscps(OneOrList::deserialize(d, "a DSCP (0-63) or a list of DSCPs")?.into_vec()))
    }
}

/// PFC.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pfc {
    /// Exactly these priorities are lossless.
    #[serde(default)]
    pub priorities: Option<Vec<u8>>,
    /// PFC watchdog on switches.
    #[serde(default)]
    pub watchdog: Option<bool>,
    /// Cable length per hop in metres, for the headroom a lossless buffer needs (5 m when absent).
    #[serde(default)]
    pub cable_length_m: Option<u32>,
}

/// NIC QoS trust mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Trust {
    /// Classify by DSCP (routed RoCEv2).
    Dscp,
    /// Classify by VLAN PCP.
    Pcp,
}

impl Trust {
    /// As mlnx_qos prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            Trust::Dscp => "dscp",
            Trust::Pcp => "pcp",
        }
    }
}

/// `required` checks the thing; `ignore` says out loud that it is not checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Requirement {
    /// Must be present.
    Required,
    /// Not checked.
    Ignore,
}

/// Host NIC rules.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Nic {
    /// Trust mode.
    #[serde(default)]
    pub trust: Option<Trust>,
    /// Netdev MTU.
    #[serde(default)]
    pub mtu: Option<u32>,
    /// Minimum link speed.
    #[serde(default)]
    pub min_speed_gbps: Option<u32>,
    /// A RoCEv2 GID with an IPv4 address on each port.
    #[serde(default)]
    pub rocev2_gid: Option<Requirement>,
    /// DCQCN on the RoCE priority: the reaction and notification points enabled, CNPs marked as
    /// the policy's `cnp` says.
    #[serde(default)]
    pub dcqcn: Option<Requirement>,
}

/// IRQ affinity rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IrqAffinity {
    /// No CPU serves the interrupts of two RDMA NICs.
    Exclusive,
    /// Not checked.
    Ignore,
}

/// Host rules outside the NIC.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostRules {
    /// GPUDirect RDMA: nvidia_peermem (or nv_peer_mem) loaded.
    #[serde(default)]
    pub gdr: Option<Requirement>,
    /// IRQ placement of the RDMA NICs.
    #[serde(default)]
    pub irq_affinity: Option<IrqAffinity>,
}

/// ECN thresholds on the RoCE queue, as `[low, high]` ranges in KB.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ecn {
    /// ECN marking enabled.
    #[serde(default)]
    pub enabled: Option<bool>,
    /// Allowed range of Kmin.
    #[serde(default)]
    pub min_threshold_kb: Option<[u64; 2]>,
    /// Allowed range of Kmax.
    #[serde(default)]
    pub max_threshold_kb: Option<[u64; 2]>,
}

/// InfiniBand port rules.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Infiniband {
    /// Expected port rate.
    #[serde(default)]
    pub rate_gbps: Option<f64>,
    /// Expected link width (`4X`).
    #[serde(default)]
    pub width: Option<String>,
    /// A subnet manager reachable from every port.
    #[serde(default)]
    pub subnet_manager: Option<Requirement>,
}

/// A limit on one counter's delta over the window.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CounterRule {
    /// Largest acceptable increase over the window.
    #[serde(default)]
    pub max: Option<u64>,
    /// Largest acceptable increase per second.
    #[serde(default)]
    pub max_per_s: Option<f64>,
    /// Severity of a breach.
    #[serde(default = "default_counter_severity")]
    pub severity: Severity,
}

fn default_counter_severity() -> Severity {
    Severity::Error
}

/// A bus-bandwidth floor for one nccl-tests binary.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NcclRule {
    /// `all_reduce_perf`...
    pub test: String,
    /// Message sizes from which the floor applies (`1G`, `512M`, `1048576`).
    #[serde(default)]
    pub min_bytes: Option<String>,
    /// Minimum bus bandwidth in GB/s.
    #[serde(default)]
    pub min_busbw_gbs: Option<f64>,
}

/// A policy file that cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("{file}: {message}")]
pub struct PolicyError {
    /// The file.
    pub file: String,
    /// What is wrong, with the line when known.
    pub message: String,
}

impl Policy {
    /// Whether the policy sets no rule at all (a name, metrics and NCCL variables are not rules).
    pub fn checks_nothing(&self) -> bool {
        let rules = Policy { name: None, metrics: None, nccl_env: BTreeMap::new(), ..self.clone() };
        rules == Policy::default()
    }

    /// Reads and validates a policy file.
    pub fn load(path: &Path) -> Result<Policy, PolicyError> {
        let file = path.display().to_string();
        let text =
            std::fs::read_to_string(path).map_err(|e| PolicyError { file: file.clone(), message: e.to_string() })?;
        Policy::parse(&text, &file)
    }

    /// Parses and validates policy text; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<Policy, PolicyError> {
        let error = |message: String| PolicyError { file: file.to_string(), message };
        let policy: Policy = serde_saphyr::from_str(text).map_err(|e| error(e.to_string()))?;
        policy.validate().map_err(error)?;
        Ok(policy)
    }

    fn validate(&self) -> Result<(), String> {
        if let Some(CounterExport::Keyword(k)) = self.metrics.as_ref().and_then(|m| m.counters.as_ref())
            && k != "all"
            && k != "judged"
        {
            return Err(format!("metrics.counters: `{k}` is not all, judged or a list of counter names"));
        }
        let prio = |key: &str, v: Option<u8>| match v {
            Some(p) if p > 7 => Err(format!("{key}: priority {p} is out of range 0-7")),
            _ => Ok(()),
        };
        self.validate_classes()?;
        for p in self.pfc.iter().flat_map(|p| p.priorities.iter().flatten()) {
            prio("pfc.priorities", Some(*p))?;
        }
        for (key, [low, high]) in self.ecn.iter().flat_map(|e| {
            [("ecn.min_threshold_kb", e.min_threshold_kb), ("ecn.max_threshold_kb", e.max_threshold_kb)]
                .into_iter()
                .filter_map(|(k, r)| r.map(|r| (k, r)))
        }) {
            if low > high {
                return Err(format!("{key}: range [{low}, {high}] is upside down"));
            }
        }
        for (name, rule) in &self.counters {
            if rule.max.is_none() && rule.max_per_s.is_none() {
                return Err(format!("counters.{name}: give `max` or `max_per_s`"));
            }
        }
        Ok(())
    }

    /// The policy's name, or `unnamed`.
    pub fn display_name(&self) -> &str {
        self.name.as_deref().unwrap_or("unnamed")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_policy_parses_with_every_section() {
        let p = Policy::parse(DEFAULT_POLICY, "default").unwrap();
        assert_eq!(p.display_name(), "roce-lossless-prio3");
        assert_eq!(p.roce.as_ref().unwrap().dscps(), [26]);
        assert_eq!(p.roce.as_ref().unwrap().priority, Some(3));
        assert_eq!(p.cnp.as_ref().unwrap().dscps(), [48]);
        let several = Policy::parse("roce: { dscp: [24, 26], priority: 3 }\n", "p.yaml").unwrap();
        assert_eq!(several.roce.unwrap().dscps(), [24, 26]);
        let err = Policy::parse("roce: { dscp: [26, 70] }\n", "p.yaml").unwrap_err();
        assert_eq!(err.to_string(), "p.yaml: roce.dscp: DSCP 70 is out of range 0-63");
        assert_eq!(p.pfc.as_ref().unwrap().priorities, Some(vec![3]));
        assert_eq!(p.nic.as_ref().unwrap().trust, Some(Trust::Dscp));
        assert_eq!(p.nic.as_ref().unwrap().mtu, Some(4200));
        assert_eq!(p.host.as_ref().unwrap().gdr, Some(Requirement::Required));
        assert_eq!(p.counters["out_of_buffer"].severity, Severity::Critical);
        assert_eq!(p.counters["rx_prio3_pause"].max_per_s, Some(10000.0));
        assert_eq!(p.ecn.as_ref().unwrap().min_threshold_kb, Some([100, 400]));
        assert_eq!(p.nccl[0].test, "all_reduce_perf");
    }

    #[test]
    fn an_unknown_key_is_named_with_its_line() {
        let err = Policy::parse("name: x\nnic:\n  mtu: 4200\n  trsut: dscp\n", "p.yaml").unwrap_err();
        let msg = err.to_string();
        assert!(msg.starts_with("p.yaml: "), "{msg}");
        assert!(msg.contains("trsut"), "{msg}");
        assert!(msg.contains('4'), "line number missing: {msg}");
    }

    #[test]
    fn out_of_range_values_are_refused() {
        let err = Policy::parse("roce: { dscp: 64 }\n", "p.yaml").unwrap_err();
        assert_eq!(err.to_string(), "p.yaml: roce.dscp: DSCP 64 is out of range 0-63");
        let err = Policy::parse("pfc: { priorities: [3, 9] }\n", "p.yaml").unwrap_err();
        assert!(err.to_string().contains("priority 9"));
        let err = Policy::parse("counters: { out_of_buffer: { severity: error } }\n", "p.yaml").unwrap_err();
        assert!(err.to_string().contains("counters.out_of_buffer"));
        assert!(Policy::parse("nic: { trust: dcsp }\n", "p.yaml").is_err());
    }

    #[test]
    fn nccl_variables_can_be_set_by_the_policy() {
        let p =
            Policy::parse("nccl_env: { NCCL_IB_QPS_PER_CONNECTION: \"4\", NCCL_IB_TC: \"106\" }\n", "p.yaml").unwrap();
        assert_eq!(p.nccl_env["NCCL_IB_QPS_PER_CONNECTION"], "4");
        assert_eq!(p.nccl_env["NCCL_IB_TC"], "106");
    }

    #[test]
    fn an_empty_policy_checks_nothing() {
        assert_eq!(Policy::parse("{}\n", "p.yaml").unwrap(), Policy::default());
    }

    /// `metrics.counters`: all by default, the judged ones, or a list; anything else is refused.
    #[test]
    fn metrics_counters_all_judged_or_a_list() {
        let with =
            |m: &str| Policy::parse(&format!("counters: {{ out_of_buffer: {{ max: 0 }} }}\nmetrics: {m}\n"), "p.yaml");
        assert_eq!(with("{}").unwrap().exported_counters(), None);
        assert_eq!(with("{ counters: all }").unwrap().exported_counters(), None);
        assert_eq!(with("{ counters: judged }").unwrap().exported_counters(), Some(vec!["out_of_buffer".to_string()]));
        assert_eq!(
            with("{ counters: [rx_prio3_pause] }").unwrap().exported_counters(),
            Some(vec!["rx_prio3_pause".to_string()])
        );
        let bad = with("{ counters: some }").unwrap_err().to_string();
        assert!(bad.contains("metrics.counters: `some` is not all, judged or a list"), "{bad}");
    }

    /// Issue 34: a value of the wrong type said `data did not match any variant of untagged
    /// enum OneOrMany`, the name of a Rust type; it now says what the key takes, where.
    #[test]
    fn r34_a_value_of_the_wrong_type_says_what_the_key_takes() {
        let error = |text: &str| {
            let e = Policy::parse(text, "p.yaml").unwrap_err().to_string();
            assert!(!e.contains("OneOrMany") && !e.contains("untagged") && !e.contains("CounterExport"), "{e}");
            e
        };
        for (text, says) in [
            ("roce:\n  dscp: abc\n", "invalid type: string \"abc\", expected a DSCP (0-63) or a list of DSCPs"),
            ("roce:\n  dscp: 300\n", "invalid value: integer `300`, expected a DSCP (0-63) or a list of DSCPs"),
            ("roce:\n  dscp: -1\n", "invalid value: integer `-1`, expected a DSCP (0-63) or a list of DSCPs"),
            ("roce:\n  dscp: [24, x]\n", "invalid type: string \"x\", expected a DSCP (0-63) or a list of DSCPs"),
            ("roce:\n  dscp: [[24]]\n", "invalid type: sequence, expected a DSCP (0-63) or a list of DSCPs"),
            ("roce:\n  dscp: {a: 1}\n", "invalid type: map, expected a DSCP (0-63) or a list of DSCPs"),
            ("metrics:\n  counters: {a: 1}\n", "invalid type: map, expected all, judged or a list of counter names"),
            (
                "metrics:\n  counters: [out_of_buffer, 3]\n",
                "invalid value: integer `3`, expected all, judged or a list",
            ),
        ] {
            let e = error(text);
            assert!(e.starts_with("p.yaml: ") && e.contains(says), "{text}: {e}");
            assert!(e.contains("line 2"), "{text}: no line in {e}");
        }
    }
}
