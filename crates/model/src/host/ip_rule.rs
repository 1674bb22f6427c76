//! Facts of `ip -j rule show` (or its text form), as its parser (`fabcheck_parse::linux::ip_rule`)
//! produces them: the policy-routing rules, which pick a routing table by source address.

use serde::Serialize;

/// Every rule, in priority order as printed.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct IpRules {
    /// The rules.
    pub rules: Vec<IpRule>,
}

/// One rule.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IpRule {
    /// `32763`.
    pub priority: u32,
    /// The source selector: `172.16.0.10`, `10.0.0.0/24`; `None` for `from all`.
    pub src: Option<String>,
    /// The destination selector (`to 172.16.0.0/16`), when there is one.
    pub dst: Option<String>,
    /// `not`: the selectors are inverted.
    pub not: bool,
    /// Input or output interface selector (`iif`, `oif`), when there is one.
    pub interface: Option<String>,
    /// The other match conditions, as `ip rule` prints them (`fwmark 0x77`, `uidrange 995-995`,
    /// `ipproto tcp`, `dport 4791`): the rule applies only to traffic that also matches them,
    /// so `from all fwmark 0x77 lookup 70` is not a rule for all traffic.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub selectors: Vec<String>,
    /// The table looked up: `local`, `main`, `default`, `152`; `None` for rules that do not
    /// look one up (`goto`, `blackhole`, `unreachable` ...).
    pub table: Option<String>,
}
