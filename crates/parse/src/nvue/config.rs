//! `nv config show -o yaml` (NVIDIA Cumulus Linux 5.x, NVUE): the applied configuration.
//!
//! ```yaml
//! - header:
//!     model: SN5600
//!     nvue-api-version: nvue_v1
//!     version: Cumulus Linux 5.12.0
//! - set:
//!     qos:
//!       roce: { enable: on, mode: lossless }
//!       pfc: { default-global: { switch-priority: { '3': {} } } }
//!     interface:
//!       swp1-32: { type: swp, link: { mtu: 9216, speed: 400G } }
//!     system: { hostname: leaf01 }
//! ```
//!
//! Only what the lossless chain needs is read (the hostname, `qos`, and each interface's `type`,
//! `link` and `qos`); the rest of the configuration (bridges, routing, services) is skipped
//! unread, by design. Keys are kept as printed: NVUE folds ports and numbers that share a
//! configuration into one key (`swp1-32`, `swp2,6`, `0-3,5`), and [`super::convert`] expands them.
//!
//! Variants accepted: the `- header / - set` list of `nv config show -o yaml` and of
//! `/etc/nvue.d/startup.yaml`; the same as JSON (`-o json`); the bare tree of the NVUE REST API
//! (`GET /nvue_v1/?rev=applied`) or `nv config show` of older releases; an echoed prompt line
//! before it. `- unset:` entries (from `nv config diff`) are not applied and are warned about.
//!
//! The YAML is read into typed structs only, with YAML 1.2 booleans: `on`, `off`, `yes` and `no`
//! stay the strings NVUE means, never booleans. Scalars keep their line ([`Value`]), so that a
//! value the conversion cannot read is warned about at its line.
use crate::lines::{clip, is_prompt, no_facts, numbered};
use crate::{ParseError, ParseResult, ParseWarning, Parsed};
use serde::Deserialize;
use serde_saphyr::Spanned;
use std::fmt;
use std::marker::PhantomData;

/// The configuration as far as fabcheck reads it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NvueConfig {
    /// `header`: the release and platform that printed it.
    pub header: Option<Header>,
    /// `set`: the configuration tree.
    pub set: Tree,
    /// The input text, for line numbers of keys (YAML does not report them).
    pub(crate) text: String,
    /// Lines before the YAML (an echoed prompt): YAML counts its lines from its own start.
    pub(crate) line_offset: usize,
}

impl NvueConfig {
    /// The line of a value in the capture (0 when unknown).
    pub(crate) fn line(&self, v: &Value) -> usize {
        self.line_at(v.referenced)
    }

    /// A YAML location as a line of the capture (0 when unknown).
    pub(crate) fn line_at(&self, l: serde_saphyr::Location) -> usize {
        match l.line() {
            0 => 0,
            n => usize::try_from(n).unwrap_or(usize::MAX).saturating_add(self.line_offset),
        }
    }
}

/// `header`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct Header {
    /// `model` (`VX`, `SN5600`).
    pub model: Option<Value>,
    /// `version` (`Cumulus Linux 5.12.0`).
    pub version: Option<Value>,
}

/// `set` (or the bare tree): the parts of the configuration fabcheck reads.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct Tree {
    /// `header`, in the bare tree of the REST API.
    pub header: Option<Header>,
    /// `system`.
    pub system: Option<System>,
    /// `qos`.
    pub qos: Option<Qos>,
    /// `interface`: keys as printed (`swp1-32`).
    pub interface: Entries<Spanned<Interface>>,
}

/// `system`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct System {
    /// `hostname`.
    pub hostname: Option<Value>,
}

/// `qos`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "kebab-case")]
pub struct Qos {
    /// `roce`.
    pub roce: Option<Roce>,
    /// `pfc`: PFC profiles by name (`default-global` applies to every port).
    pub pfc: Entries<PfcProfile>,
    /// `pfc-watchdog`: its timers (the watchdog itself is turned on per port).
    pub pfc_watchdog: Option<PfcWatchdog>,
    /// `congestion-control`: ECN profiles by name.
    pub congestion_control: Entries<CongestionProfile>,
    /// `egress-scheduler`: ETS profiles by name.
    pub egress_scheduler: Entries<SchedulerProfile>,
    /// `egress-queue-mapping`: switch priority → traffic class, by profile.
    pub egress_queue_mapping: Entries<QueueMappingProfile>,
    /// `mapping`: trust and PCP/DSCP → switch priority, by profile.
    pub mapping: Entries<MappingProfile>,
}

/// `qos roce`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct Roce {
    /// `enable`: `on` / `off`.
    pub enable: Option<Value>,
    /// `mode`: `lossless`, `lossless-single-ipool`, `lossy`.
    pub mode: Option<Value>,
}

/// `qos pfc <profile>`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "kebab-case")]
pub struct PfcProfile {
    /// `switch-priority`: the priorities with PFC (keys; values are empty).
    pub switch_priority: Entries<serde::de::IgnoredAny>,
    /// `rx`: `enable` / `disable`.
    pub rx: Option<Value>,
    /// `tx`: `enable` / `disable`.
    pub tx: Option<Value>,
    /// `cable-length` in metres.
    pub cable_length: Option<Value>,
    /// `port-buffer` in bytes.
    pub port_buffer: Option<Value>,
    /// `xoff-threshold` in bytes.
    pub xoff_threshold: Option<Value>,
    /// `xon-threshold`: bytes below XOFF at which pausing stops.
    pub xon_threshold: Option<Value>,
}

/// `qos pfc-watchdog`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "kebab-case")]
pub struct PfcWatchdog {
    /// `polling-interval` (ms).
    pub polling_interval: Option<Value>,
    /// `robustness`: polling intervals before the watchdog acts.
    pub robustness: Option<Value>,
}

/// `qos congestion-control <profile>`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "kebab-case")]
pub struct CongestionProfile {
    /// `traffic-class`: ECN per traffic class (keys may be lists: `4,5,7`).
    pub traffic_class: Entries<EcnSettings>,
}

/// `qos congestion-control <profile> traffic-class <tc>`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "kebab-case")]
pub struct EcnSettings {
    /// `ecn`: `enable` / `disable`.
    pub ecn: Option<Value>,
    /// `red`: `enable` / `disable`.
    pub red: Option<Value>,
    /// `min-threshold` (bytes).
    pub min_threshold: Option<Value>,
    /// `max-threshold` (bytes).
    pub max_threshold: Option<Value>,
    /// `min-threshold-bytes`, the spelling of some releases' documentation.
    pub min_threshold_bytes: Option<Value>,
    /// `max-threshold-bytes`.
    pub max_threshold_bytes: Option<Value>,
    /// `probability` (percent).
    pub probability: Option<Value>,
}

/// `qos egress-scheduler <profile>`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "kebab-case")]
pub struct SchedulerProfile {
    /// `traffic-class`: scheduling per traffic class.
    pub traffic_class: Entries<SchedulerSettings>,
}

/// `qos egress-scheduler <profile> traffic-class <tc>`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "kebab-case")]
pub struct SchedulerSettings {
    /// `mode`: `dwrr` / `strict`.
    pub mode: Option<Value>,
    /// `bw-percent`.
    pub bw_percent: Option<Value>,
}

/// `qos egress-queue-mapping <profile>`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "kebab-case")]
pub struct QueueMappingProfile {
    /// `switch-priority <sp> traffic-class <tc>`.
    pub switch_priority: Entries<TrafficClassRef>,
}

/// `{ traffic-class: N }`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "kebab-case")]
pub struct TrafficClassRef {
    /// `traffic-class`.
    pub traffic_class: Option<Value>,
}

/// `qos mapping <profile>`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "kebab-case")]
pub struct MappingProfile {
    /// `trust`: `l2` (PCP), `l3` (DSCP), `both`, `port`.
    pub trust: Option<Value>,
    /// `pcp <pcp> switch-priority <sp>`.
    pub pcp: Entries<SwitchPriorityRef>,
    /// `dscp <dscp> switch-priority <sp>`.
    pub dscp: Entries<SwitchPriorityRef>,
    /// `port-default-sp`.
    pub port_default_sp: Option<Value>,
}

/// `{ switch-priority: N }`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "kebab-case")]
pub struct SwitchPriorityRef {
    /// `switch-priority`.
    pub switch_priority: Option<Value>,
}

/// `interface <name>`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct Interface {
    /// `type`: `swp`, `eth`, `bond`, `svi`, `loopback`.
    #[serde(rename = "type")]
    pub kind: Option<Value>,
    /// `link`.
    pub link: Option<Link>,
    /// `qos`.
    pub qos: Option<InterfaceQos>,
}

/// `interface <name> link`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct Link {
    /// `mtu`.
    pub mtu: Option<Value>,
    /// `speed` (`400G`, `auto`).
    pub speed: Option<Value>,
    /// `state`: `up` / `down`, printed as a key (`state: {up: {}}`) or a value.
    pub state: Option<Spanned<KeyOrValue>>,
}

/// `interface <name> qos`: the profiles the port uses instead of `default-global`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "kebab-case")]
pub struct InterfaceQos {
    /// `pfc profile`.
    pub pfc: Option<ProfileRef>,
    /// `congestion-control profile`.
    pub congestion_control: Option<ProfileRef>,
    /// `egress-scheduler profile`.
    pub egress_scheduler: Option<ProfileRef>,
    /// `mapping profile`.
    pub mapping: Option<ProfileRef>,
    /// `pfc-watchdog`: present (`{}`) turns it on; `state: disable` turns it off.
    pub pfc_watchdog: Option<Spanned<WatchdogState>>,
}

/// `{ profile: NAME }`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct ProfileRef {
    /// `profile`.
    pub profile: Option<Value>,
}

/// `interface <name> qos pfc-watchdog`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct WatchdogState {
    /// `state`: `enable` / `disable`.
    pub state: Option<Value>,
}

/// A scalar as printed, with its line: numbers keep their digits, `on`/`off` stay text.
pub type Value = Spanned<Scalar>;

/// A scalar's text; `None` for a mapping or sequence where a scalar belongs (warned about by
/// the conversion, at its line).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scalar(pub Option<String>);

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Scalar;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a scalar")
            }
            fn visit_str<E>(self, v: &str) -> Result<Scalar, E> {
                Ok(Scalar(Some(v.to_string())))
            }
            fn visit_bool<E>(self, v: bool) -> Result<Scalar, E> {
                Ok(Scalar(Some(v.to_string())))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Scalar, E> {
                Ok(Scalar(Some(v.to_string())))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Scalar, E> {
                Ok(Scalar(Some(v.to_string())))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Scalar, E> {
                Ok(Scalar(Some(v.to_string())))
            }
            fn visit_unit<E>(self) -> Result<Scalar, E> {
                Ok(Scalar(None))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<Scalar, A::Error> {
                while a.next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?.is_some() {}
                Ok(Scalar(None))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Scalar, A::Error> {
                while a.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(Scalar(None))
            }
        }
        d.deserialize_any(Visit)
    }
}

/// `state: up` or `state: {up: {}}`: the value, or the first key.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KeyOrValue(pub Option<String>);

impl<'de> Deserialize<'de> for KeyOrValue {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = KeyOrValue;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a scalar or a mapping")
            }
            fn visit_str<E>(self, v: &str) -> Result<KeyOrValue, E> {
                Ok(KeyOrValue(Some(v.to_string())))
            }
            fn visit_bool<E>(self, v: bool) -> Result<KeyOrValue, E> {
                Ok(KeyOrValue(Some(v.to_string())))
            }
            fn visit_unit<E>(self) -> Result<KeyOrValue, E> {
                Ok(KeyOrValue(None))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<KeyOrValue, A::Error> {
                let mut first = None;
                while let Some((k, _)) = a.next_entry::<String, serde::de::IgnoredAny>()? {
                    first.get_or_insert(k);
                }
                Ok(KeyOrValue(first))
            }
        }
        d.deserialize_any(Visit)
    }
}

/// A mapping in the order printed (keys as printed, folded ranges included).
#[derive(Debug, Clone, PartialEq)]
pub struct Entries<T>(pub Vec<(String, T)>);

impl<T> Default for Entries<T> {
    fn default() -> Self {
        Entries(Vec::new())
    }
}

impl<T> Entries<T> {
    /// The entry with this exact key.
    pub fn get(&self, key: &str) -> Option<&T> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Entries<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for Visit<T> {
            type Value = Entries<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a mapping")
            }
            fn visit_unit<E>(self) -> Result<Entries<T>, E> {
                Ok(Entries(Vec::new()))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<Entries<T>, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = a.next_entry::<String, T>()? {
                    entries.push(entry);
                }
                Ok(Entries(entries))
            }
        }
        d.deserialize_any(Visit(PhantomData))
    }
}

/// One entry of the `- header / - set` list.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Item {
    header: Option<Header>,
    set: Option<Tree>,
    unset: Option<serde::de::IgnoredAny>,
}

/// Parses `nv config show -o yaml` (or `-o json`, or the REST API's tree).
///
/// # Errors
/// Empty input, YAML that does not parse or has the wrong shape (the error names the line), or
/// a document with none of `header`, `set`, `qos`, `interface`, `system`.
pub fn parse(text: &str) -> ParseResult<NvueConfig> {
    let mut warnings = Vec::new();
    // An echoed prompt line (`cumulus@leaf01:~$ nv config show -o yaml`) is not YAML.
    let mut body = text;
    if let Some(first) = numbered(text).next()
        && is_prompt(first.text, "nv ")
    {
        body = &text[first.start + first.raw.len()..];
    }
    let offset = text.len() - body.len();
    let skipped_lines = text[..offset].matches('\n').count();
    if body.trim().is_empty() {
        return Err(no_facts(
            text,
            "empty `nv config show` output",
            "a prompt line and nothing else: no `nv config show` output",
        ));
    }
    let options = || {
        serde_saphyr::options! {
            strict_booleans: true,
            leading_zero_numbers_as_strings: true,
            underscored_numbers_as_strings: true,
            with_snippet: false,
        }
    };
    let yaml_error = |e: serde_saphyr::Error| {
        let line = e.location().map_or(0, |l| usize::try_from(l.line()).unwrap_or(0));
        let line = if line == 0 { 0 } else { line + skipped_lines };
        ParseError::at(line, format!("not `nv config show` output: {}", clip(&e.to_string(), 200)))
    };
    let is_list = body.trim_start().starts_with(['-', '[']) && !body.trim_start().starts_with("---");
    let (header, set) = if is_list {
        let items: Vec<Item> = serde_saphyr::from_str_with_options(body, options()).map_err(yaml_error)?;
        let mut header = None;
        let mut set: Option<Tree> = None;
        for item in items {
            if item.unset.is_some() {
                warnings.push(ParseWarning::at(
                    line_of(text, "unset:").unwrap_or(0),
                    "`unset` entry not applied: the output is a diff, not a configuration",
                ));
            }
            header = header.or(item.header);
            if let Some(tree) = item.set {
                if set.is_some() {
                    warnings.push(ParseWarning::at(0, "more than one `set` entry: only the first is read"));
                } else {
                    set = Some(tree);
                }
            }
        }
        if header.is_none() && set.is_none() {
            return Err(ParseError::at(0, "a YAML list without `header` or `set`: not `nv config show` output"));
        }
        (header, set.unwrap_or_default())
    } else {
        let tree: Tree = serde_saphyr::from_str_with_options(body, options()).map_err(yaml_error)?;
        if tree == Tree::default() {
            return Err(ParseError::at(0, "no `header`, `qos`, `interface` or `system`: not `nv config show` output"));
        }
        (tree.header.clone(), tree)
    };
    Ok(Parsed { value: NvueConfig { header, set, text: text.to_string(), line_offset: skipped_lines }, warnings })
}

/// The first line holding `needle` (1-based), for warnings about keys.
pub(crate) fn line_of(text: &str, needle: &str) -> Option<usize> {
    text.lines().position(|l| l.contains(needle)).map(|i| i + 1)
}

/// The line of `key:` at or before `value_line` (a mapping key is printed on the line of its
/// value, or on the line before a block value).
pub(crate) fn key_line(text: &str, key: &str, value_line: usize) -> usize {
    let plain = format!("{key}:");
    let quoted = [format!("'{key}':"), format!("\"{key}\":")];
    let lines: Vec<&str> = text.lines().take(value_line).collect();
    lines
        .iter()
        .rposition(|l| {
            let l = l.trim_start().trim_start_matches("- ");
            l.starts_with(&plain) || quoted.iter().any(|q| l.starts_with(q.as_str()))
        })
        .map_or(value_line, |i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = include_str!(
        "../../tests/fixtures/nvue/cl-5.15-vx-nv-config-show-o-yaml-swp-list-keys-nvair-PROVENANCE-WEAK.yaml"
    );

    #[test]
    fn yaml_booleans_stay_text() {
        let text = "- set:\n    qos:\n      roce:\n        enable: on\n    system:\n      hostname: no\n";
        let config = parse(text).expect("parses").value;
        let roce = config.set.qos.and_then(|q| q.roce).expect("roce");
        assert_eq!(roce.enable.map(|v| v.value.0), Some(Some("on".to_string())));
        let host = config.set.system.and_then(|s| s.hostname).expect("hostname");
        assert_eq!(host.value.0.as_deref(), Some("no"));
    }

    #[test]
    fn empty_foreign_and_broken_text_are_errors() {
        assert!(parse("").is_err());
        assert!(parse("hello world\n").is_err());
        assert!(parse("- foo: 1\n").is_err());
        assert!(parse("a: 1\n").is_err());
        let err = parse("- set:\n    qos: [1\n").unwrap_err();
        assert_eq!(err.line, 2, "{err}");
    }

    #[test]
    fn key_lines_are_found_before_block_values() {
        let text = "interface:\n  swp1-4:\n    type: swp\n  'swp9':\n    type: swp\n";
        assert_eq!(key_line(text, "swp1-4", 3), 2);
        assert_eq!(key_line(text, "swp9", 5), 4);
        assert_eq!(key_line(text, "nope", 5), 5);
    }

    crate::lines::parser_never_panics!(parse, SAMPLE);
}
