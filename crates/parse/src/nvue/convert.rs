//! NVUE facts → the vendor-neutral model ([`crate::switch`]).
//!
//! # What NVUE leaves unsaid
//! `nv config show` prints only what was set; everything else is the platform default, which
//! the switch applies and which the Cumulus Linux 5.x documentation states (the "Quality of
//! Service" and "RDMA over Converged Ethernet" pages). [`to_model`] fills those defaults in,
//! so that a switch nobody configured reads as what it does (no PFC anywhere), not as unknown:
//!
//! | setting | without RoCE | `qos roce enable on` |
//! |---|---|---|
//! | trust | `l2` (PCP) | PCP and DSCP |
//! | PCP → switch priority | identity | identity |
//! | DSCP → switch priority | `d / 8` | `d / 8` |
//! | switch priority → traffic class | identity | 3 → 3, 6 → 6, others → 0 |
//! | ETS | DWRR 12 % (even TCs), 13 % (odd) | TC 6 strict, TCs 0 and 3 DWRR 50 % |
//! | ECN | TC 0, 150,000 – 1,500,000 bytes, 100 % | TCs 0 and 3, same thresholds |
//! | PFC | none | switch priority 3 (`lossless` modes), none (`lossy`) |
//! | PFC watchdog | off on every port; polling 100 ms, robustness 3 | same |
//!
//! Explicit settings then override these: the `default-global` profile of each section for
//! every port, and a port's own profile (`interface swp1 qos pfc profile P`) for that port (a
//! port profile replaces the default profile's traffic classes and priorities; a mapping profile
//! is laid over the default mapping, as NVUE does when it lists no mapping).
//!
//! # Choices
//! - Trust `both` (`pcp,dscp`) becomes `dscp`: with both trusted, Cumulus classifies IP packets
//!   (RoCEv2 included) by DSCP, which is what the lossless chain depends on. The facts keep the
//!   text as printed.
//! - A traffic class is an egress queue on Spectrum switches: `tc_to_queue` is the identity.
//! - PFC is lossless only when pause frames are both sent (`tx`) and honoured (`rx`).
//! - Ports are the `swp` interfaces the configuration names, range keys expanded (`swp1-32`,
//!   `swp2,6`); a port NVUE does not mention has no settings of its own and is not listed.
//! - The watchdog's detection time is polling interval × robustness; its restoration time one
//!   polling interval (the watchdog restores after one interval without pause frames); its
//!   action `drop` (it discards the stormed queue's packets).
//! - Counters: NVUE counts per RoCE class, not per priority. Pause frames go to the RoCE
//!   priority, ECN marks (a port-wide counter, in practice the RoCE queue's), RoCE discards and
//!   packets to the RoCE traffic class, CNP ones to the CNP traffic class ([`RoceClasses`]).
use super::config::{
    CongestionProfile, Entries, Interface, MappingProfile, NvueConfig, PfcProfile, QueueMappingProfile,
    SchedulerProfile, Value, key_line, line_of,
};
use super::pfc_watchdog::PortWatchdog;
use super::roce::RoceQos;
use super::roce_counters::RoceCounters;
use crate::lines::clip;
use crate::switch::{
    BufferProfile, Ecn, PfcWatchdog, PortCounters, PortQos, QueueQos, Scheduler, SwitchQos, WatchdogStats,
    canonical_interface, to_bytes,
};
use crate::{ParseWarning, Parsed};
use std::collections::{BTreeMap, BTreeSet};
use std::str::FromStr;

/// The most names or numbers one range key may expand to (`swp1-4096` is a typo, not a switch).
const MAX_EXPANSION: usize = 1024;

/// The documented ECN defaults (bytes, percent).
const ECN_MIN: u64 = 150_000;
const ECN_MAX: u64 = 1_500_000;
const ECN_PROBABILITY: u32 = 100;

/// The documented PFC watchdog timers.
const WATCHDOG_POLL_MS: u32 = 100;
const WATCHDOG_ROBUSTNESS: u32 = 3;

/// The configuration of one port, as resolved from defaults and profiles.
#[derive(Debug, Clone)]
struct Resolved {
    trust: Option<String>,
    pcp_to_sp: BTreeMap<u8, u8>,
    dscp_to_sp: BTreeMap<u8, u8>,
    sp_to_tc: BTreeMap<u8, u8>,
    schedulers: BTreeMap<u8, Scheduler>,
    ecn: BTreeMap<u8, Ecn>,
    pfc: Pfc,
}

#[derive(Debug, Clone)]
struct Pfc {
    priorities: BTreeSet<u8>,
    rx: bool,
    tx: bool,
}

impl Default for Pfc {
    fn default() -> Self {
        Pfc { priorities: BTreeSet::new(), rx: true, tx: true }
    }
}

fn default_ecn() -> Ecn {
    Ecn {
        enabled: true,
        min_bytes: Some(ECN_MIN),
        max_bytes: Some(ECN_MAX),
        probability_percent: Some(ECN_PROBABILITY),
        uncertain_unit: None,
    }
}

/// The platform defaults (see the module documentation); `roce` is the RoCE mode when enabled.
fn defaults(roce: Option<&str>) -> Resolved {
    let pcp_to_sp = (0..8).map(|p| (p, p)).collect();
    let dscp_to_sp = (0..64).map(|d| (d, d / 8)).collect();
    match roce {
        None => Resolved {
            trust: Some("l2".into()),
            pcp_to_sp,
            dscp_to_sp,
            sp_to_tc: (0..8).map(|p| (p, p)).collect(),
            schedulers: (0..8)
                .map(|tc| (tc, Scheduler::Weighted { weight: if tc % 2 == 0 { 12 } else { 13 } }))
                .collect(),
            ecn: [(0, default_ecn())].into(),
            pfc: Pfc::default(),
        },
        Some(mode) => Resolved {
            trust: Some("both".into()),
            pcp_to_sp,
            dscp_to_sp,
            sp_to_tc: (0..8).map(|p| (p, if p == 3 || p == 6 { p } else { 0 })).collect(),
            schedulers: [
                (0, Scheduler::Weighted { weight: 50 }),
                (3, Scheduler::Weighted { weight: 50 }),
                (6, Scheduler::Strict),
            ]
            .into(),
            ecn: [(0, default_ecn()), (3, default_ecn())].into(),
            pfc: Pfc { priorities: if mode == "lossy" { BTreeSet::new() } else { [3].into() }, ..Pfc::default() },
        },
    }
}

/// Converts `nv config show` into the model.
///
/// Warnings (with the line of the value or key) for values that cannot be read, range keys that
/// do not expand, profiles a port names but the configuration does not define, and trust modes
/// or RoCE modes this conversion does not know.
pub fn to_model(config: &NvueConfig) -> Parsed<SwitchQos> {
    let mut c = Converter { config, warnings: Vec::new() };
    let qos = config.set.qos.clone().unwrap_or_default();
    let roce_mode = c.roce_mode();
    let mut global = defaults(roce_mode.as_deref());
    if let Some(p) = qos.mapping.get("default-global") {
        c.overlay_mapping(&mut global, p);
    }
    if let Some(p) = qos.egress_queue_mapping.get("default-global") {
        c.overlay_queue_mapping(&mut global.sp_to_tc, p);
    }
    if let Some(p) = qos.egress_scheduler.get("default-global") {
        c.overlay_schedulers(&mut global.schedulers, p);
    }
    if let Some(p) = qos.congestion_control.get("default-global") {
        c.overlay_ecn(&mut global.ecn, p);
    }
    if let Some(p) = qos.pfc.get("default-global") {
        c.overlay_pfc(&mut global.pfc, p);
    }
    let mut model = SwitchQos {
        hostname: config.set.system.as_ref().and_then(|s| s.hostname.as_ref()).and_then(|h| c.text(h)),
        pfc_watchdog: Some(c.watchdog(qos.pfc_watchdog.as_ref())),
        buffer_profiles: c.buffer_profiles(&qos.pfc),
        ..SwitchQos::default()
    };
    for (name, interfaces) in c.ports() {
        let port = c.port(&name, &interfaces, &global, &qos);
        model.ports.insert(canonical_interface(&name), port);
    }
    // Ports are converted after the profiles: put the warnings back in line order.
    c.warnings.sort_by_key(|w| w.line);
    Parsed { value: model, warnings: c.warnings }
}

struct Converter<'a> {
    config: &'a NvueConfig,
    warnings: Vec<ParseWarning>,
}

impl<'a> Converter<'a> {
    fn warn(&mut self, line: usize, message: String) {
        self.warnings.push(ParseWarning::at(line, message));
    }

    /// A scalar's text; a mapping where a scalar belongs is warned about.
    fn text(&mut self, v: &Value) -> Option<String> {
        let text = v.value.0.clone();
        if text.is_none() {
            let line = self.config.line(v);
            self.warn(line, "a mapping or list where a value belongs".into());
        }
        text
    }

    /// A number, warned about when unreadable.
    fn number<T: FromStr>(&mut self, v: &Value, what: &str) -> Option<T> {
        let text = self.text(v)?;
        let parsed = text.trim().parse().ok();
        if parsed.is_none() {
            let line = self.config.line(v);
            self.warn(line, format!("`{what}` has an unreadable value `{}`", clip(&text, 40)));
        }
        parsed
    }

    /// `enable`/`on` → true, `disable`/`off` → false.
    fn switch(&mut self, v: &Value, what: &str) -> Option<bool> {
        let text = self.text(v)?;
        let parsed = super::roce::on_off(text.trim());
        if parsed.is_none() {
            let line = self.config.line(v);
            self.warn(line, format!("`{what}` has an unreadable value `{}`", clip(&text, 40)));
        }
        parsed
    }

    /// The RoCE mode when RoCE is on (`qos roce enable on`, or a `mode` without `enable`).
    fn roce_mode(&mut self) -> Option<String> {
        let roce = self.config.set.qos.as_ref()?.roce.clone()?;
        let enabled = match &roce.enable {
            Some(v) => self.switch(v, "roce enable")?,
            None => roce.mode.is_some(),
        };
        if !enabled {
            return None;
        }
        let mode = roce.mode.as_ref().and_then(|m| self.text(m)).unwrap_or_else(|| "lossless".into());
        if !matches!(mode.as_str(), "lossless" | "lossless-single-ipool" | "lossy") {
            let line = roce.mode.as_ref().map_or(0, |m| self.config.line(m));
            self.warn(line, format!("unknown RoCE mode `{}`: read as lossless", clip(&mode, 40)));
        }
        Some(mode)
    }

    /// Numbers of a folded key (`3`, `0-3,5`), each at most `max`.
    fn numbers(&mut self, key: &str, max: u8, what: &str) -> Vec<u8> {
        match expand_numbers(key) {
            Some(ns) if ns.iter().all(|&n| n <= max) => ns,
            _ => {
                let line = line_of(&self.config.text, key).unwrap_or(0);
                self.warn(line, format!("{what} `{}` is not a number or range up to {max}", clip(key, 40)));
                Vec::new()
            }
        }
    }

    fn overlay_mapping(&mut self, r: &mut Resolved, p: &MappingProfile) {
        if let Some(v) = &p.trust
            && let Some(t) = self.text(v)
        {
            if trust_of(&t).is_none() {
                let line = self.config.line(v);
                self.warn(line, format!("unknown trust `{}`", clip(&t, 40)));
            }
            r.trust = Some(t);
        }
        for (map, entries, max) in [(&mut r.pcp_to_sp, &p.pcp, 7), (&mut r.dscp_to_sp, &p.dscp, 63)] {
            for (key, sp) in &entries.0 {
                let Some(v) = &sp.switch_priority else {
                    continue;
                };
                let Some(sp) = self.number::<u8>(v, "switch-priority").filter(|&sp| sp <= 7) else {
                    continue;
                };
                for n in self.numbers(key, max, "mapping key") {
                    map.insert(n, sp);
                }
            }
        }
    }

    fn overlay_queue_mapping(&mut self, map: &mut BTreeMap<u8, u8>, p: &QueueMappingProfile) {
        for (key, tc) in &p.switch_priority.0 {
            let Some(v) = &tc.traffic_class else { continue };
            let Some(tc) = self.number::<u8>(v, "traffic-class").filter(|&tc| tc <= 7) else {
                continue;
            };
            for sp in self.numbers(key, 7, "switch priority") {
                map.insert(sp, tc);
            }
        }
    }

    fn overlay_schedulers(&mut self, map: &mut BTreeMap<u8, Scheduler>, p: &SchedulerProfile) {
        for (key, s) in &p.traffic_class.0 {
            let mode = s.mode.as_ref().and_then(|v| self.text(v));
            let weight = s.bw_percent.as_ref().and_then(|v| self.number::<u32>(v, "bw-percent"));
            let tcs = self.numbers(key, 7, "traffic class");
            for tc in tcs {
                let before = map.get(&tc).cloned();
                let scheduler = match (mode.as_deref(), weight, before) {
                    (Some("strict"), _, _) => Scheduler::Strict,
                    (_, Some(weight), _) => Scheduler::Weighted { weight },
                    (Some("dwrr"), None, Some(Scheduler::Weighted { weight })) => Scheduler::Weighted { weight },
                    // `dwrr` without a weight: no bandwidth, "no egress scheduling".
                    (Some("dwrr"), None, _) => Scheduler::Weighted { weight: 0 },
                    (None, None, Some(before)) => before,
                    (other, _, _) => {
                        let line = s.mode.as_ref().map_or(0, |v| self.config.line(v));
                        let shown = clip(other.unwrap_or_default(), 40);
                        self.warn(line, format!("unknown scheduler mode `{shown}`"));
                        continue;
                    }
                };
                map.insert(tc, scheduler);
            }
        }
    }

    fn overlay_ecn(&mut self, map: &mut BTreeMap<u8, Ecn>, p: &CongestionProfile) {
        for (key, s) in &p.traffic_class.0 {
            let enabled = s.ecn.as_ref().and_then(|v| self.switch(v, "ecn"));
            let min = s.min_threshold.as_ref().or(s.min_threshold_bytes.as_ref());
            let max = s.max_threshold.as_ref().or(s.max_threshold_bytes.as_ref());
            let min = min.and_then(|v| self.size(v, "min-threshold"));
            let max = max.and_then(|v| self.size(v, "max-threshold"));
            let probability = s.probability.as_ref().and_then(|v| self.number(v, "probability"));
            for tc in self.numbers(key, 7, "traffic class") {
                let ecn = map.entry(tc).or_insert(Ecn { enabled: true, ..Ecn::default() });
                ecn.enabled = enabled.unwrap_or(ecn.enabled);
                ecn.min_bytes = min.or(ecn.min_bytes);
                ecn.max_bytes = max.or(ecn.max_bytes);
                ecn.probability_percent = probability.or(ecn.probability_percent);
            }
        }
    }

    fn overlay_pfc(&mut self, pfc: &mut Pfc, p: &PfcProfile) {
        if !p.switch_priority.0.is_empty() {
            pfc.priorities.clear();
            for (key, _) in &p.switch_priority.0 {
                pfc.priorities.extend(self.numbers(key, 7, "PFC switch priority"));
            }
        }
        if let Some(rx) = p.rx.as_ref().and_then(|v| self.switch(v, "pfc rx")) {
            pfc.rx = rx;
        }
        if let Some(tx) = p.tx.as_ref().and_then(|v| self.switch(v, "pfc tx")) {
            pfc.tx = tx;
        }
    }

    /// A size in bytes (`150000`, or with a unit).
    fn size(&mut self, v: &Value, what: &str) -> Option<u64> {
        let text = self.text(v)?;
        let bytes = size_bytes(&text);
        if bytes.is_none() {
            let line = self.config.line(v);
            self.warn(line, format!("`{what}` has an unreadable value `{}`", clip(&text, 40)));
        }
        bytes
    }

    fn watchdog(&mut self, w: Option<&super::config::PfcWatchdog>) -> PfcWatchdog {
        let poll = w.and_then(|w| w.polling_interval.as_ref()).and_then(|v| self.millis(v)).unwrap_or(WATCHDOG_POLL_MS);
        let robustness = w
            .and_then(|w| w.robustness.as_ref())
            .and_then(|v| self.number(v, "robustness"))
            .unwrap_or(WATCHDOG_ROBUSTNESS);
        PfcWatchdog {
            enabled: false,
            detection_ms: Some(poll.saturating_mul(robustness)),
            restoration_ms: Some(poll),
            action: Some("drop".into()),
            big_red_switch: None,
            note: None,
        }
    }

    /// `200`, `200ms`, `1s` → milliseconds.
    fn millis(&mut self, v: &Value) -> Option<u32> {
        let text = self.text(v)?;
        let t = text.trim().to_ascii_lowercase();
        let parsed = if let Some(s) = t.strip_suffix("ms") {
            s.trim().parse().ok()
        } else if let Some(s) = t.strip_suffix('s') {
            s.trim().parse::<u32>().ok().and_then(|s| s.checked_mul(1000))
        } else {
            t.parse().ok()
        };
        if parsed.is_none() {
            let line = self.config.line(v);
            self.warn(line, format!("`polling-interval` has an unreadable value `{}`", clip(&text, 40)));
        }
        parsed
    }

    /// PFC profiles that set buffer sizes, by profile name.
    fn buffer_profiles(&mut self, pfc: &Entries<PfcProfile>) -> BTreeMap<String, BufferProfile> {
        let mut profiles = BTreeMap::new();
        for (name, p) in &pfc.0 {
            let size = p.port_buffer.as_ref().and_then(|v| self.size(v, "port-buffer"));
            let xoff = p.xoff_threshold.as_ref().and_then(|v| self.size(v, "xoff-threshold"));
            if size.is_some() || xoff.is_some() {
                // `xon-threshold` is a distance below XOFF in NVUE, not the model's threshold.
                profiles.insert(
                    name.clone(),
                    BufferProfile { pool: None, size_bytes: size, xon_bytes: None, xoff_bytes: xoff },
                );
            }
        }
        profiles
    }

    /// The `swp` ports, each with every interface entry that names it, in printed order.
    fn ports(&mut self) -> BTreeMap<String, Vec<(usize, &'a Interface)>> {
        let config = self.config;
        let mut ports: BTreeMap<String, Vec<(usize, &Interface)>> = BTreeMap::new();
        for (key, interface) in &config.set.interface.0 {
            let line = key_line(&config.text, key, config.line_at(interface.referenced));
            let Some(names) = expand_names(key) else {
                if key.starts_with("swp") {
                    self.warn(line, format!("interface key `{}` does not expand to ports", clip(key, 40)));
                }
                continue;
            };
            let kind = interface.value.kind.as_ref().and_then(|v| v.value.0.clone());
            for name in names {
                let is_port = name.starts_with("swp") && kind.as_deref().is_none_or(|k| k == "swp");
                if is_port {
                    ports.entry(name).or_default().push((line, &interface.value));
                }
            }
        }
        ports
    }

    /// One port: the global profiles, the port's own profiles, its link settings.
    fn port(
        &mut self,
        name: &str,
        interfaces: &[(usize, &Interface)],
        global: &Resolved,
        qos: &super::config::Qos,
    ) -> PortQos {
        let mut r = global.clone();
        let mut port = PortQos { pfc_watchdog: Some(false), ..PortQos::default() };
        for &(line, interface) in interfaces {
            if let Some(q) = &interface.qos {
                let profile = |c: &mut Self, p: &Option<super::config::ProfileRef>| {
                    p.as_ref()
                        .and_then(|p| p.profile.as_ref())
                        .and_then(|v| c.text(v))
                        .filter(|p| p != "default-global")
                };
                if let Some(p) = profile(self, &q.mapping) {
                    match qos.mapping.get(&p) {
                        Some(m) => {
                            r.trust = global.trust.clone();
                            r.pcp_to_sp = global.pcp_to_sp.clone();
                            r.dscp_to_sp = global.dscp_to_sp.clone();
                            self.overlay_mapping(&mut r, m);
                        }
                        None => self.unknown_profile(line, name, "mapping", &p),
                    }
                }
                if let Some(p) = profile(self, &q.egress_scheduler) {
                    match qos.egress_scheduler.get(&p) {
                        Some(s) => {
                            r.schedulers.clear();
                            self.overlay_schedulers(&mut r.schedulers, s);
                        }
                        None => self.unknown_profile(line, name, "egress-scheduler", &p),
                    }
                }
                if let Some(p) = profile(self, &q.congestion_control) {
                    match qos.congestion_control.get(&p) {
                        Some(e) => {
                            r.ecn.clear();
                            self.overlay_ecn(&mut r.ecn, e);
                        }
                        None => self.unknown_profile(line, name, "congestion-control", &p),
                    }
                }
                if let Some(p) = profile(self, &q.pfc) {
                    match qos.pfc.get(&p) {
                        Some(pfc) => {
                            r.pfc = Pfc::default();
                            self.overlay_pfc(&mut r.pfc, pfc);
                        }
                        None => self.unknown_profile(line, name, "pfc", &p),
                    }
                }
                if let Some(w) = &q.pfc_watchdog {
                    let on = match &w.value.state {
                        Some(v) => self.switch(v, "pfc-watchdog state").unwrap_or(true),
                        None => true,
                    };
                    port.pfc_watchdog = Some(on);
                }
            }
            if let Some(link) = &interface.link {
                if let Some(v) = &link.mtu {
                    port.mtu = self.number(v, "mtu").or(port.mtu);
                }
                if let Some(v) = &link.speed
                    && let Some(text) = self.text(v)
                {
                    match speed_mbps(&text) {
                        Ok(speed) => port.speed_mbps = speed.or(port.speed_mbps),
                        Err(()) => {
                            let line = self.config.line(v);
                            let shown = clip(&text, 40);
                            self.warn(line, format!("`speed` has an unreadable value `{shown}`"));
                        }
                    }
                }
                if let Some(state) = &link.state {
                    match state.value.0.as_deref() {
                        Some("up") => port.admin_up = Some(true),
                        Some("down") => port.admin_up = Some(false),
                        other => {
                            let line = self.config.line_at(state.referenced);
                            let shown = clip(other.unwrap_or_default(), 40);
                            self.warn(line, format!("`link state` has an unreadable value `{shown}`"));
                        }
                    }
                }
            }
        }
        fill_port(&mut port, &r);
        port
    }

    fn unknown_profile(&mut self, line: usize, port: &str, section: &str, profile: &str) {
        let profile = clip(profile, 40);
        self.warn(
            line,
            format!("{port} uses {section} profile `{profile}`, which the configuration does not define: the default profile is kept"),
        );
    }
}

/// The QoS fields of a port from its resolved profiles.
fn fill_port(port: &mut PortQos, r: &Resolved) {
    port.lossless_priorities =
        Some(if r.pfc.rx && r.pfc.tx { r.pfc.priorities.iter().copied().collect() } else { Vec::new() });
    port.trust = r.trust.as_deref().and_then(trust_of);
    port.dscp_to_tc = r.dscp_to_sp.iter().filter_map(|(&d, sp)| r.sp_to_tc.get(sp).map(|&tc| (d, tc))).collect();
    port.tc_to_queue = (0..8).map(|tc| (tc, tc)).collect();
    port.queues = (0..8)
        .map(|tc| {
            let queue = QueueQos {
                scheduler: r.schedulers.get(&tc).cloned(),
                ecn: Some(r.ecn.get(&tc).cloned().unwrap_or_default()),
            };
            (tc, queue)
        })
        .collect();
}

/// The model's port from `nv show qos roce` (every port of the switch runs it) or from one
/// port's `nv show interface IF qos roce status`.
pub fn status_to_port(roce: &RoceQos) -> PortQos {
    let lossy = roce.mode.as_deref() == Some("lossy");
    let pfc_said = !roce.pfc_priorities.is_empty() || roce.pfc_rx.is_some() || roce.pfc_tx.is_some();
    let lossless_priorities = if lossy || roce.enabled == Some(false) {
        Some(Vec::new())
    } else if pfc_said {
        let both = roce.pfc_rx != Some(false) && roce.pfc_tx != Some(false);
        Some(if both { roce.pfc_priorities.clone() } else { Vec::new() })
    } else {
        None
    };
    let dscp_to_tc = roce
        .dscp_to_switch_priority
        .iter()
        .filter_map(|(&d, sp)| roce.switch_priority_to_tc.get(sp).map(|&tc| (d, tc)))
        .collect();
    let tcs: BTreeSet<u8> = roce
        .switch_priority_to_tc
        .values()
        .chain(roce.tc_scheduler.keys())
        .chain(&roce.ecn_traffic_classes)
        .copied()
        .collect();
    let ecn_said = roce.congestion_mode.is_some() || !roce.ecn_traffic_classes.is_empty();
    let marking = roce.congestion_mode.as_deref().is_none_or(|m| m.to_ascii_lowercase().contains("ecn"));
    let queues = tcs
        .iter()
        .map(|&tc| {
            let ecn = ecn_said.then(|| {
                if marking && roce.ecn_traffic_classes.contains(&tc) {
                    Ecn {
                        enabled: true,
                        min_bytes: roce.ecn_min_bytes,
                        max_bytes: roce.ecn_max_bytes,
                        probability_percent: roce.ecn_probability_percent,
                        // NVUE prints binary units (see `size_bytes`): the bytes are exact.
                        uncertain_unit: None,
                    }
                } else {
                    Ecn::default()
                }
            });
            let queue = QueueQos { scheduler: roce.tc_scheduler.get(&tc).cloned(), ecn };
            (tc, queue)
        })
        .collect();
    PortQos {
        lossless_priorities,
        trust: roce.trust.as_deref().and_then(trust_of),
        dscp_to_tc,
        tc_to_queue: tcs.iter().map(|&tc| (tc, tc)).collect(),
        queues,
        ..PortQos::default()
    }
}

/// The model of a switch from `nv show qos roce`: RoCE mode applies to every port, so each of
/// `ports` (the switch's `swp` ports, from `nv show interface` or the configuration) gets the
/// same settings. Interface names are made canonical.
pub fn roce_to_model(roce: &RoceQos, ports: &[String]) -> SwitchQos {
    let port = status_to_port(roce);
    SwitchQos { ports: ports.iter().map(|p| (canonical_interface(p), port.clone())).collect(), ..SwitchQos::default() }
}

/// The priority and traffic classes NVUE's RoCE counters belong to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoceClasses {
    /// The RoCE (lossless) priority: its PFC pause frames.
    pub priority: u8,
    /// The RoCE traffic class.
    pub roce_tc: u8,
    /// The CNP traffic class.
    pub cnp_tc: u8,
}

impl Default for RoceClasses {
    /// NVUE's RoCE defaults: priority 3 on traffic class 3, CNPs on traffic class 6.
    fn default() -> Self {
        RoceClasses { priority: 3, roce_tc: 3, cnp_tc: 6 }
    }
}

impl RoceClasses {
    /// The classes a switch reports (`nv show qos roce` or a port's status); defaults for what
    /// it does not say.
    pub fn from_roce(roce: &RoceQos) -> RoceClasses {
        let d = RoceClasses::default();
        let class = |name: &str| roce.classes.get(name);
        let priority = class("roce")
            .and_then(|c| c.switch_priority)
            .or_else(|| roce.pfc_priorities.first().copied())
            .unwrap_or(d.priority);
        let roce_tc = class("roce")
            .and_then(|c| c.traffic_class)
            .or_else(|| roce.switch_priority_to_tc.get(&priority).copied())
            .unwrap_or(d.roce_tc);
        let cnp_tc = class("cnp")
            .and_then(|c| c.traffic_class)
            .or_else(|| roce.switch_priority_to_tc.get(&6).copied())
            .unwrap_or(d.cnp_tc);
        RoceClasses { priority, roce_tc, cnp_tc }
    }
}

/// The model's watchdog statistics of a port from `nv show interface IF qos pfc-watchdog`: per
/// traffic class, in a deadlock now, and the deadlocks seen (NVUE counts no dropped packets).
pub fn watchdog_stats(wd: &PortWatchdog) -> BTreeMap<u8, WatchdogStats> {
    wd.classes
        .iter()
        .map(|(tc, c)| {
            let stats = WatchdogStats {
                stormed: Some(c.deadlock),
                storms_detected: Some(c.deadlock_count),
                ..WatchdogStats::default()
            };
            (*tc, stats)
        })
        .collect()
}

/// The model's counters of a port from `nv show interface IF qos roce counters`.
pub fn counters_to_port(counters: &RoceCounters, classes: &RoceClasses) -> PortCounters {
    let get = |path: &str| counters.counters.get(path).copied();
    let mut port = PortCounters::default();
    let add = |map: &mut BTreeMap<u8, u64>, key: u8, value: Option<u64>| {
        if let Some(v) = value {
            let slot = map.entry(key).or_insert(0);
            *slot = slot.saturating_add(v);
        }
    };
    add(&mut port.pfc_rx, classes.priority, get("rx-stats.rx-pfc-stats.pause-packets"));
    add(&mut port.pfc_tx, classes.priority, get("tx-stats.tx-pfc-stats.pause-packets"));
    add(&mut port.ecn_marked, classes.roce_tc, get("tx-stats.tx-ecn-stats.ecn-marked-packets"));
    add(&mut port.queue_drops, classes.roce_tc, get("tx-stats.tx-roce-stats.unicast-no-buffer-discard"));
    add(&mut port.rx_no_buffer, classes.priority, get("rx-stats.rx-roce-stats.no-buffer-discard"));
    add(&mut port.queue_drops, classes.cnp_tc, get("tx-stats.tx-cnp-stats.unicast-no-buffer-discard"));
    add(&mut port.queue_tx_packets, classes.roce_tc, get("tx-stats.tx-roce-stats.roce-packets"));
    add(&mut port.queue_tx_packets, classes.cnp_tc, get("tx-stats.tx-cnp-stats.cnp-packets"));
    port
}

/// A size as NVUE prints it, in bytes: `150000`, `0 Bytes`, `146.48 KB`, `1.43 MB`,
/// `92824.38 GB`. Binary units: Cumulus Linux 5.12's QoS guide sets the default ECN thresholds
/// at "150000 bytes" and "1500000 bytes", which `nv show qos roce` prints as `146.48 KB` and
/// `1.43 MB` (150000 / 1024, 1500000 / 1048576; tests/fixtures/nvue_roce). NVUE prints two
/// decimals, so a large size is exact to half a unit of its last place only. `inf` and
/// percentages are not sizes.
pub(crate) fn size_bytes(text: &str) -> Option<u64> {
    let t = text.trim();
    if t.chars().all(|c| c.is_ascii_digit()) {
        return t.parse().ok();
    }
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let value: f64 = number.parse().ok()?;
    match unit.trim().to_ascii_lowercase().as_str() {
        // `to_bytes` stops at MB: a GB is 1024 of them.
        "gb" | "gbytes" => to_bytes(value * 1024.0, "MB", None, None),
        "tb" | "tbytes" => to_bytes(value * 1024.0 * 1024.0, "MB", None, None),
        unit => to_bytes(value, unit, None, None),
    }
}

/// `DWRR-50%`, `dwrr-50%`, `strict-priority`, `strict priority`.
pub(crate) fn parse_scheduler(text: &str) -> Option<Scheduler> {
    let t = text.trim().to_ascii_lowercase();
    if t.starts_with("strict") || t == "sp" {
        return Some(Scheduler::Strict);
    }
    if !(t.starts_with("dwrr") || t.starts_with("wrr") || t.starts_with("ets")) {
        return None;
    }
    let digits: String = t.chars().skip_while(|c| !c.is_ascii_digit()).take_while(char::is_ascii_digit).collect();
    digits.parse().ok().map(|weight| Scheduler::Weighted { weight })
}

/// NVUE's trust modes as the model's: `l2` → `pcp`, `l3` → `dscp`, both → `dscp` (IP packets
/// are classified by DSCP when both are trusted), `port` → `port`.
pub fn trust_of(nvue: &str) -> Option<String> {
    let t = nvue.trim().to_ascii_lowercase().replace(' ', "");
    let model = match t.as_str() {
        "l2" | "pcp" | "802.1p" => "pcp",
        "l3" | "dscp" => "dscp",
        "both" | "pcp,dscp" | "dscp,pcp" | "l2,l3" | "l3,l2" => "dscp",
        "port" => "port",
        _ => return None,
    };
    Some(model.to_string())
}

/// `400G` → 400,000 Mb/s; `auto` → no speed; anything else an error.
fn speed_mbps(text: &str) -> Result<Option<u64>, ()> {
    let t = text.trim().to_ascii_uppercase();
    if t == "AUTO" {
        return Ok(None);
    }
    let (number, factor) = if let Some(n) = t.strip_suffix('G') {
        (n, 1000)
    } else if let Some(n) = t.strip_suffix('M') {
        (n, 1)
    } else {
        return Err(());
    };
    number.parse::<u64>().ok().and_then(|n| n.checked_mul(factor)).map(Some).ok_or(())
}

/// The names a folded interface key stands for: `swp1-32`, `swp2,6` (the prefix carries over),
/// `swp1-4,swp6`, `swp1s0-3`; a key without numbers is itself. `None` when it does not expand
/// (a bad range, or more than 1,024 names).
pub fn expand_names(key: &str) -> Option<Vec<String>> {
    let mut names = Vec::new();
    let mut prefix = String::new();
    for part in key.split(',') {
        let part = part.trim();
        let (first, last) = match part.split_once('-') {
            Some((a, b)) => (a, Some(b)),
            None => (part, None),
        };
        let digits_at = first
            .rfind(|c: char| !c.is_ascii_digit())
            .map_or(0, |i| i + first[i..].chars().next().map_or(1, char::len_utf8));
        let (p, start) = first.split_at(digits_at);
        if start.is_empty() {
            if last.is_some() || part.is_empty() {
                return None;
            }
            names.push(part.to_string());
            prefix.clear();
            continue;
        }
        if !p.is_empty() {
            prefix = p.to_string();
        }
        let start: u32 = start.parse().ok()?;
        let end: u32 = match last {
            None => start,
            Some(b) => b.strip_prefix(prefix.as_str()).unwrap_or(b).parse().ok()?,
        };
        if end < start || names.len() + (end - start) as usize >= MAX_EXPANSION {
            return None;
        }
        names.extend((start..=end).map(|n| format!("{prefix}{n}")));
    }
    (!names.is_empty()).then_some(names)
}

/// The numbers of a folded key (`3`, `0-3,5`), each at most 255.
pub fn expand_numbers(key: &str) -> Option<Vec<u8>> {
    let mut numbers = Vec::new();
    for part in key.split(',') {
        let (a, b) = match part.trim().split_once('-') {
            Some((a, b)) => (a.trim(), b.trim()),
            None => (part.trim(), part.trim()),
        };
        let (a, b): (u8, u8) = (a.parse().ok()?, b.parse().ok()?);
        if b < a {
            return None;
        }
        numbers.extend(a..=b);
    }
    Some(numbers)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Constructed from the documented `nv set` commands: RoCE, profiles, ranges, watchdog.
    const CONSTRUCTED: &str = "- set:\n    interface:\n      swp1-4,swp6:\n        link: {mtu: 9216, speed: 400G, state: {up: {}}}\n        qos:\n          pfc: {profile: p}\n          pfc-watchdog: {}\n        type: swp\n    qos:\n      roce: {enable: on, mode: lossless}\n      pfc:\n        p: {switch-priority: {'3,5': {}}, rx: enable}\n      congestion-control:\n        default-global: {traffic-class: {'0-3': {min-threshold: 40000}}}\n      egress-scheduler:\n        default-global: {traffic-class: {'6': {mode: strict}, '3': {mode: dwrr, bw-percent: 60}}}\n      mapping:\n        default-global: {trust: both, dscp: {'26,27': {switch-priority: 3}}}\n";
    const AIR: &str = include_str!(
        "../../tests/fixtures/nvue/cl-5.15-vx-nv-config-show-o-yaml-swp-list-keys-nvair-PROVENANCE-WEAK.yaml"
    );

    /// What `fabcheck parse nvue` runs: parse, then convert.
    fn parse_and_convert(text: &str) {
        if let Ok(config) = super::super::config::parse(text) {
            let _ = to_model(&config.value);
        }
    }

    crate::lines::parser_never_panics!(parse_and_convert, [CONSTRUCTED, AIR]);

    #[test]
    fn constructed_sample_converts() {
        let config = super::super::config::parse(CONSTRUCTED).expect("parses");
        let model = to_model(&config.value);
        assert!(model.warnings.is_empty(), "{:?}", model.warnings);
        let p = &model.value.ports["swp6"];
        assert_eq!(p.lossless_priorities, Some(vec![3, 5]));
        assert_eq!((p.admin_up, p.speed_mbps), (Some(true), Some(400_000)));
        assert_eq!(p.queues[&3].scheduler, Some(Scheduler::Weighted { weight: 60 }));
        assert_eq!(p.queues[&2].ecn.as_ref().map(|e| (e.enabled, e.min_bytes)), Some((true, Some(40_000))));
        assert_eq!(model.value.ports.len(), 5);
    }

    #[test]
    fn keys_expand() {
        let names = |k: &str| expand_names(k).map(|v| v.join(" "));
        assert_eq!(names("swp1-3").as_deref(), Some("swp1 swp2 swp3"));
        assert_eq!(names("swp2,6").as_deref(), Some("swp2 swp6"));
        assert_eq!(names("swp1-2,swp6").as_deref(), Some("swp1 swp2 swp6"));
        assert_eq!(names("swp1s0-1").as_deref(), Some("swp1s0 swp1s1"));
        assert_eq!(names("swp1-swp2").as_deref(), Some("swp1 swp2"));
        assert_eq!(names("eth0").as_deref(), Some("eth0"));
        assert_eq!(names("br_default").as_deref(), Some("br_default"));
        assert_eq!(names("swp3-1"), None);
        assert_eq!(names("swp1-99999"), None);
        assert_eq!(names("swp1-x"), None);
        assert_eq!(names("é1-2").as_deref(), Some("é1 é2"));
        assert_eq!(expand_numbers("0-3,5"), Some(vec![0, 1, 2, 3, 5]));
        assert_eq!(expand_numbers("3"), Some(vec![3]));
        assert_eq!(expand_numbers("x"), None);
    }

    #[test]
    fn sizes_schedulers_trust_speeds() {
        assert_eq!(size_bytes("146.48 KB"), Some(149_996));
        assert_eq!(size_bytes("1.43 MB"), Some(1_499_464));
        assert_eq!(size_bytes("0 Bytes"), Some(0));
        assert_eq!(size_bytes("803785675319"), Some(803_785_675_319));
        assert_eq!(size_bytes("1 GB"), Some(1 << 30));
        assert_eq!(size_bytes("inf"), None);
        assert_eq!(size_bytes("100%"), None);
        assert_eq!(parse_scheduler("DWRR-50%"), Some(Scheduler::Weighted { weight: 50 }));
        assert_eq!(parse_scheduler("strict priority"), Some(Scheduler::Strict));
        assert_eq!(parse_scheduler("fair"), None);
        assert_eq!(trust_of("pcp,dscp").as_deref(), Some("dscp"));
        assert_eq!(trust_of("l2").as_deref(), Some("pcp"));
        assert_eq!(trust_of("magic"), None);
        assert_eq!(speed_mbps("400G"), Ok(Some(400_000)));
        assert_eq!(speed_mbps("auto"), Ok(None));
        assert_eq!(speed_mbps("fast"), Err(()));
    }
}
