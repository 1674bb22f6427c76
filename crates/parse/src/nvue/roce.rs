//! `nv show qos roce` (NVIDIA Cumulus Linux 5.x, NVUE): the RoCE mode of the whole switch.
//!
//! ```text
//! cumulus@switch:mgmt:~$ nv show qos roce
//!                     operational            applied
//! ------------------  ---------------------  ---------------------
//! enable                                     on
//! mode                lossless-single-ipool  lossless-single-ipool
//! pfc
//!   pfc-priority      3
//!   rx-enabled        enabled
//! congestion-control
//!   enabled-tc        0,3
//!   min-threshold     146.48 KB
//! ...
//! RoCE PCP/DSCP->SP mapping configurations
//! ===========================================
//!        pcp  dscp                     switch-prio
//!     -  ---  -----------------------  -----------
//!     0  0    0,1,2,3,4,5,6,7          0
//! RoCE SP->TC mapping and ETS configurations
//! RoCE pool config
//! Exception List
//! ```
//!
//! The key/value part is read with the layout shared by the `nv show` commands; a value is the operational
//! column, or the applied one when the switch does not report it. Sizes (`146.48 KB`,
//! `1.43 MB`, `0 Bytes`) become bytes here, in binary units (`146.48 KB` is 149,996 bytes, the
//! documented 150,000-byte default as NVUE rounds it). `nv show interface IF qos roce status`
//! prints the same sections for one port, with rows named `cnp` and `roce` instead of numbered
//! ones, and a pool table with usage: [`super::roce_status`] reads it with this module.
//!
//! Variants seen: pool table with a gap in its numbering, `inf` and `100%` pool sizes,
//! `DWRR-50%` and `dwrr-50%`, `strict-priority` and `strict priority`, lines of one space, and
//! NVUE 5.15's `Extended Features` table (`packet-trim  enabled`).
use super::convert::{parse_scheduler, size_bytes};
use super::table::{self, Show, Table};
use crate::lines::{clip, no_facts};
use crate::switch::Scheduler;
use crate::{ParseResult, ParseWarning, Parsed};
use serde::Serialize;
use std::collections::BTreeMap;

/// What `nv show qos roce` (or the status of one port) reports.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RoceQos {
    /// The port, for `nv show interface IF qos roce status` (from its echoed prompt line).
    pub interface: Option<String>,
    /// `enable`: RoCE configured on the switch.
    pub enabled: Option<bool>,
    /// `mode`: `lossless`, `lossless-single-ipool` or `lossy`.
    pub mode: Option<String>,
    /// `pfc.pfc-priority`: the switch priorities with PFC.
    pub pfc_priorities: Vec<u8>,
    /// `pfc.rx-enabled`: pause frames received are honoured.
    pub pfc_rx: Option<bool>,
    /// `pfc.tx-enabled`: pause frames are sent.
    pub pfc_tx: Option<bool>,
    /// `pfc.cable-length` (`cable-length` in Cumulus 5.4) in metres.
    pub cable_length_m: Option<u32>,
    /// `congestion-control.congestion-mode` as printed (`ECN`, `ecn, absolute`).
    pub congestion_mode: Option<String>,
    /// `congestion-control.enabled-tc`: traffic classes with ECN marking.
    pub ecn_traffic_classes: Vec<u8>,
    /// `congestion-control.min-threshold` in bytes.
    pub ecn_min_bytes: Option<u64>,
    /// `congestion-control.max-threshold` in bytes.
    pub ecn_max_bytes: Option<u64>,
    /// `congestion-control.probability` in percent.
    pub ecn_probability_percent: Option<u32>,
    /// `trust.trust-mode` as printed (`pcp,dscp`).
    pub trust: Option<String>,
    /// `lldp-app-tlv.priority`: the priority advertised for RoCE in the LLDP application TLV.
    pub app_tlv_priority: Option<u8>,
    /// PCP → switch priority.
    pub pcp_to_switch_priority: BTreeMap<u8, u8>,
    /// DSCP → switch priority.
    pub dscp_to_switch_priority: BTreeMap<u8, u8>,
    /// Switch priority → traffic class.
    pub switch_priority_to_tc: BTreeMap<u8, u8>,
    /// Traffic class → scheduling (ETS).
    pub tc_scheduler: BTreeMap<u8, Scheduler>,
    /// The named classes of the status output (`cnp`, `roce`).
    pub classes: BTreeMap<String, RoceClass>,
    /// Buffer pools.
    pub pools: Vec<RocePool>,
    /// Rows of the `Exception List` (empty when it says `No Data`).
    pub exceptions: Vec<String>,
    /// `Extended Features` (NVUE 5.15): feature → status (`packet-trim` → `enabled`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub extended_features: BTreeMap<String, String>,
}

/// A named class of the status output: how the switch classifies and schedules it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RoceClass {
    /// PCP.
    pub pcp: Option<u8>,
    /// DSCP values.
    pub dscp: Vec<u8>,
    /// Switch priority.
    pub switch_priority: Option<u8>,
    /// Traffic class.
    pub traffic_class: Option<u8>,
    /// Scheduling of its traffic class.
    pub scheduler: Option<Scheduler>,
}

/// A buffer pool row.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RocePool {
    /// Pool name (`roce-reserved-egress`).
    pub name: String,
    /// `Dynamic` / `DYNAMIC`.
    pub mode: Option<String>,
    /// `pool-id` (status only).
    pub pool_id: Option<u32>,
    /// Size as printed (`100%`, `inf`, `15.16 MB`).
    pub size: Option<String>,
    /// Size in bytes when printed as a size.
    pub size_bytes: Option<u64>,
    /// Switch priorities drawing from it (ingress pools).
    pub switch_priorities: Vec<u8>,
    /// Traffic classes drawing from it (egress pools).
    pub traffic_classes: Vec<u8>,
    /// Current usage in bytes (status only).
    pub current_usage_bytes: Option<u64>,
    /// Peak usage in bytes (status only).
    pub max_usage_bytes: Option<u64>,
}

/// Parses `nv show qos roce`.
///
/// # Errors
/// Empty input, or no RoCE field or table (not this command's output).
pub fn parse(text: &str) -> ParseResult<RoceQos> {
    from_show(
        &table::read(text),
        text,
        "empty `nv show qos roce` output",
        "no RoCE fields or tables: not `nv show qos roce` output",
    )
}

/// The facts of either RoCE show command (this one and the per-port status).
pub(super) fn from_show(show: &Show, text: &str, empty: &str, foreign: &str) -> ParseResult<RoceQos> {
    let mut roce = RoceQos::default();
    let mut warnings = show.warnings.clone();
    let mut known = 0;
    for f in &show.fields {
        let v = f.value();
        let w = &mut warnings;
        known += 1;
        match f.path.as_str() {
            "enable" => roce.enabled = checked(on_off(v), f, w),
            "mode" => roce.mode = Some(v.to_string()),
            "pfc.pfc-priority" => roce.pfc_priorities = checked(list(v), f, w).unwrap_or_default(),
            "pfc.rx-enabled" => roce.pfc_rx = checked(on_off(v), f, w),
            "pfc.tx-enabled" => roce.pfc_tx = checked(on_off(v), f, w),
            // Under `pfc` since 5.5; at the top level in 5.4.
            "pfc.cable-length" | "cable-length" => roce.cable_length_m = checked(v.parse().ok(), f, w),
            "congestion-control.congestion-mode" => roce.congestion_mode = Some(v.to_string()),
            "congestion-control.enabled-tc" => {
                roce.ecn_traffic_classes = checked(list(v), f, w).unwrap_or_default();
            }
            "congestion-control.min-threshold" => roce.ecn_min_bytes = checked(size_bytes(v), f, w),
            "congestion-control.max-threshold" => roce.ecn_max_bytes = checked(size_bytes(v), f, w),
            "congestion-control.probability" => {
                roce.ecn_probability_percent = checked(v.parse().ok(), f, w);
            }
            "trust.trust-mode" => roce.trust = Some(v.to_string()),
            "lldp-app-tlv.priority" => roce.app_tlv_priority = checked(v.parse().ok(), f, w),
            // Printed, and of no use to the lossless chain.
            "lldp-app-tlv.protocol-id" | "lldp-app-tlv.selector" => {}
            _ => {
                known -= 1;
                let path = clip(&f.path, 80);
                w.push(ParseWarning::at(f.n, format!("unknown field `{path}`")));
            }
        }
    }
    for t in &show.tables {
        let title = t.title.to_ascii_lowercase();
        known += 1;
        if title.contains("pcp/dscp->sp") {
            classification(t, &mut roce, &mut warnings);
        } else if title.contains("sp->tc") {
            scheduling(t, &mut roce, &mut warnings);
        } else if title.contains("pool") {
            pools(t, &mut roce, &mut warnings);
        } else if title.contains("exception") {
            for (_, row) in &t.rows {
                roce.exceptions.push(row.join(" ").trim().to_string());
            }
            for (n, note) in &t.notes {
                if !note.eq_ignore_ascii_case("no data") {
                    warnings.push(ParseWarning::at(*n, crate::lines::unrecognised_clipped(note)));
                }
            }
        } else if title.contains("extended features") {
            for (n, row) in &t.rows {
                match row.as_slice() {
                    [feature, status] => {
                        roce.extended_features.insert(feature.clone(), status.clone());
                    }
                    _ => warnings
                        .push(ParseWarning::at(*n, format!("feature row `{}` not read", clip(&row.join(" "), 80)))),
                }
            }
        } else {
            known -= 1;
            warnings.push(ParseWarning::at(t.n, format!("unknown table `{}`", clip(&t.title, 80))));
        }
    }
    if known == 0 {
        return Err(no_facts(text, empty, foreign));
    }
    Ok(Parsed { value: roce, warnings })
}

/// `RoCE PCP/DSCP->SP mapping configurations`.
fn classification(t: &Table, roce: &mut RoceQos, warnings: &mut Vec<ParseWarning>) {
    for (n, row) in &t.rows {
        let pcp = t.cell(row, "pcp").map(str::parse::<u8>);
        let dscp = t.cell(row, "dscp").map(list);
        let sp = t.cell(row, "switch-prio").map(str::parse::<u8>);
        let (Some(Ok(sp)), Some(Ok(pcp)), Some(Some(dscp))) = (sp, pcp, dscp) else {
            warnings
                .push(ParseWarning::at(*n, format!("unreadable classification row `{}`", clip(&row.join(" "), 80))));
            continue;
        };
        roce.pcp_to_switch_priority.insert(pcp, sp);
        for d in &dscp {
            roce.dscp_to_switch_priority.insert(*d, sp);
        }
        if let Some(name) = class_name(row) {
            let class = roce.classes.entry(name).or_default();
            class.pcp = Some(pcp);
            class.dscp = dscp;
            class.switch_priority = Some(sp);
        }
    }
}

/// `RoCE SP->TC mapping and ETS configurations`.
fn scheduling(t: &Table, roce: &mut RoceQos, warnings: &mut Vec<ParseWarning>) {
    for (n, row) in &t.rows {
        let sp = t.cell(row, "switch-prio").map(str::parse::<u8>);
        let tc = t.cell(row, "traffic-class").map(str::parse::<u8>);
        let scheduler = t.cell(row, "scheduler-weight").and_then(parse_scheduler);
        let (Some(Ok(sp)), Some(Ok(tc))) = (sp, tc) else {
            warnings.push(ParseWarning::at(*n, format!("unreadable SP->TC row `{}`", clip(&row.join(" "), 80))));
            continue;
        };
        roce.switch_priority_to_tc.insert(sp, tc);
        match (&scheduler, roce.tc_scheduler.get(&tc)) {
            (Some(s), Some(before)) if s != before => warnings.push(ParseWarning::at(
                *n,
                format!("traffic class {tc} scheduled two ways ({before:?}, then {s:?}): the first is kept"),
            )),
            (Some(s), None) => {
                roce.tc_scheduler.insert(tc, s.clone());
            }
            (None, _) => {
                warnings.push(ParseWarning::at(*n, format!("unreadable scheduler in `{}`", clip(&row.join(" "), 80))))
            }
            _ => {}
        }
        if let Some(name) = class_name(row) {
            let class = roce.classes.entry(name).or_default();
            class.traffic_class = Some(tc);
            class.scheduler = scheduler;
            if class.switch_priority.is_none() {
                class.switch_priority = Some(sp);
            }
        }
    }
}

/// `RoCE pool config` / `RoCE Pool Status`.
fn pools(t: &Table, roce: &mut RoceQos, warnings: &mut Vec<ParseWarning>) {
    for (n, row) in &t.rows {
        let Some(name) = t.cell(row, "name") else {
            warnings.push(ParseWarning::at(*n, format!("pool row without a name `{}`", clip(&row.join(" "), 80))));
            continue;
        };
        let size = t.cell(row, "size");
        let usage = |col: &str, w: &mut Vec<ParseWarning>| {
            let v = t.cell(row, col)?;
            let bytes = size_bytes(v);
            if bytes.is_none() {
                w.push(bad(*n, &format!("`{col}`"), v));
            }
            bytes
        };
        let pool = RocePool {
            name: name.to_string(),
            mode: t.cell(row, "mode").map(str::to_string),
            pool_id: t.cell(row, "pool-id").and_then(|v| v.parse().ok()),
            size: size.map(str::to_string),
            size_bytes: size.and_then(size_bytes),
            switch_priorities: t.cell(row, "switch-priorities").and_then(list).unwrap_or_default(),
            traffic_classes: t.cell(row, "traffic-class").and_then(list).unwrap_or_default(),
            current_usage_bytes: usage("current-usage", warnings),
            max_usage_bytes: usage("max-usage", warnings),
        };
        roce.pools.push(pool);
    }
}

/// The row label when it names a class (`cnp`, `roce`) rather than numbering the row.
fn class_name(row: &[String]) -> Option<String> {
    let label = row.first()?;
    (!label.is_empty() && !label.chars().all(|c| c.is_ascii_digit())).then(|| label.clone())
}

/// `enabled`, `yes`, `on` / `disabled`, `no`, `off`.
pub(super) fn on_off(v: &str) -> Option<bool> {
    match v.to_ascii_lowercase().as_str() {
        "enabled" | "enable" | "yes" | "on" | "true" => Some(true),
        "disabled" | "disable" | "no" | "off" | "false" => Some(false),
        _ => None,
    }
}

/// `0,3` / `0,1,2` / `-` (none): a list of small numbers.
pub(super) fn list(v: &str) -> Option<Vec<u8>> {
    if v == "-" {
        return Some(Vec::new());
    }
    v.split(',').map(|x| x.trim().parse().ok()).collect()
}

fn bad(n: usize, what: &str, v: &str) -> ParseWarning {
    ParseWarning::at(n, format!("{what} has an unreadable value `{}`", clip(v, 40)))
}

/// `parsed`, after a warning on the field's line when it is `None` (the value was unreadable).
fn checked<T>(parsed: Option<T>, f: &table::Field, w: &mut Vec<ParseWarning>) -> Option<T> {
    if parsed.is_none() {
        w.push(bad(f.n, &format!("`{}`", clip(&f.path, 80)), f.value()));
    }
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = include_str!("../../tests/fixtures/nvue_roce/cumulus-5.12-nv-show-qos-roce.txt");

    #[test]
    fn unknown_fields_and_bad_values_warn_with_lines() {
        let text = "        operational  applied\n------  -----------  -------\nmode    lossless\nfoo     1\npfc\n  pfc-priority  x\n";
        let parsed = parse(text).expect("parses");
        let lines: Vec<usize> = parsed.warnings.iter().map(|w| w.line).collect();
        assert_eq!(lines, [4, 6]);
        assert_eq!(parsed.value.mode.as_deref(), Some("lossless"));
    }

    #[test]
    fn empty_and_foreign_text_are_errors() {
        assert!(parse("").is_err());
        assert!(parse("hello\nworld\n").is_err());
        assert!(parse("-----\n").is_err());
    }

    crate::lines::parser_never_panics!(parse, SAMPLE);
}
