//! Counter checks: each port's counters are read twice (`t0`, `t1`) around the window; the policy
//! judges the increase and its rate. A counter that goes down was reset (driver reload, port
//! flap): that is reported as `counter.reset`, never as a negative delta.

use crate::policy::{CounterRule, Policy};
use fabcheck_model::counters::canonical;
use fabcheck_model::facts::{CounterRead, HostFacts};
use fabcheck_model::{CounterSample, Finding, Severity};
use std::collections::BTreeMap;

/// Judges every port's counter deltas; returns the findings and the samples for the reports.
pub fn check(device: &str, facts: &HostFacts, policy: &Policy) -> (Vec<Finding>, Vec<CounterSample>) {
    let mut findings = Vec::new();
    let mut samples = Vec::new();
    for port in &facts.counters {
        let (f, s) = judge_port(device, &port.label, &port.before, &port.after, policy);
        findings.extend(f);
        samples.extend(s);
        findings.extend(wrong_priority(device, &port.label, &port.before, &port.after, policy));
    }
    (findings, samples)
}

/// RoCE traffic during the window while the lossless priorities' counters stood still and another
/// priority's grew: the RoCE traffic is not on the lossless priority (NCCL_IB_TC or the
/// application's traffic class unset, a DSCP the NIC does not map), so PFC does not protect it
/// whatever the configuration says. Real case: bytedance/byteps#179, an RDMA benchmark that moved
/// 136 GB each way on `rx/tx_prio0_bytes` with prio3 at 0 (its `ethtool -S | grep prio` before
/// and after, in the ethtool_stats fixtures).
///
/// That the traffic is RDMA comes from [`rdma_moved`]; which priority carried it from the
/// per-priority byte counters (`rx_prio3_bytes`), else, where a driver shows only packets, the
/// packet counters (`rx_prio3_packets`).
fn wrong_priority(
    device: &str,
    label: &str,
    before: &CounterRead,
    after: &CounterRead,
    policy: &Policy,
) -> Option<Finding> {
    let lossless: Vec<u8> = match policy.lossless_priorities() {
        Some(p) if !p.is_empty() => p,
        _ => policy.lossless_classes().iter().filter_map(|c| c.priority).collect(),
    };
    if lossless.is_empty() {
        return None;
    }
    let rdma = rdma_moved(before, after)?;
    let (unit, growth) =
        [("bytes", &PRIO_BYTES), ("packets", &PRIO_PACKETS)].into_iter().find_map(|(unit, names)| {
            let growth = names.map(|[rx, tx]| both_directions(before, after, rx, tx));
            growth.iter().any(Option::is_some).then_some((unit, growth))
        })?;
    let on_lossless: u64 = lossless.iter().filter_map(|&p| growth.get(usize::from(p)).copied().flatten()).sum();
    let (prio, moved) = (0..8u8)
        .filter(|p| !lossless.contains(p))
        .filter_map(|p| Some((p, growth[usize::from(p)]?)))
        .max_by_key(|(_, n)| *n)?;
    if on_lossless > 0 || moved == 0 {
        return None;
    }
    let lossless_list = lossless.iter().map(u8::to_string).collect::<Vec<_>>().join(",");
    let mut f = Finding::new(
        "nic.roce_wrong_priority",
        Severity::Error,
        device,
        format!(
            "{label} carried RDMA traffic in the window ({rdma}), none on lossless priority {lossless_list} and {moved} {unit} on priority {prio}: RoCE runs unprotected by PFC (set NCCL_IB_TC / the traffic class to the RoCE DSCP)"
        ),
    )
    .port(label)
    .expected_actual(format!("RDMA {unit} on priority {lossless_list}"), format!("priority {prio}: +{moved} {unit}"));
    f.evidence = before.files.iter().chain(&after.files).cloned().collect();
    Some(f)
}

/// The per-priority counters [`wrong_priority`] reads, receive and transmit, priority by priority:
/// named once here rather than formatted for every port it judges.
const PRIO_BYTES: [[&str; 2]; 8] = [
    ["rx_prio0_bytes", "tx_prio0_bytes"],
    ["rx_prio1_bytes", "tx_prio1_bytes"],
    ["rx_prio2_bytes", "tx_prio2_bytes"],
    ["rx_prio3_bytes", "tx_prio3_bytes"],
    ["rx_prio4_bytes", "tx_prio4_bytes"],
    ["rx_prio5_bytes", "tx_prio5_bytes"],
    ["rx_prio6_bytes", "tx_prio6_bytes"],
    ["rx_prio7_bytes", "tx_prio7_bytes"],
];
const PRIO_PACKETS: [[&str; 2]; 8] = [
    ["rx_prio0_packets", "tx_prio0_packets"],
    ["rx_prio1_packets", "tx_prio1_packets"],
    ["rx_prio2_packets", "tx_prio2_packets"],
    ["rx_prio3_packets", "tx_prio3_packets"],
    ["rx_prio4_packets", "tx_prio4_packets"],
    ["rx_prio5_packets", "tx_prio5_packets"],
    ["rx_prio6_packets", "tx_prio6_packets"],
    ["rx_prio7_packets", "tx_prio7_packets"],
];

/// The growth of counter `rx` plus counter `tx` over the window (either alone where the other is
/// not shown), `None` when neither read has them.
fn both_directions(before: &CounterRead, after: &CounterRead, rx: &str, tx: &str) -> Option<u64> {
    let delta = |name: &str| after.values.get(name)?.checked_sub(*before.values.get(name)?);
    let (rx, tx) = (delta(rx), delta(tx));
    (rx.is_some() || tx.is_some()).then(|| rx.unwrap_or(0) + tx.unwrap_or(0))
}

/// The RDMA device's responder counters (sysfs `hw_counters`, which a port's reads carry beside
/// its ethtool -S): RDMA WRITE, READ and atomic requests it served. The kernel's mlx5 driver
/// exposes them (`rx_write_requests`, `rx_read_requests`, `rx_atomic_requests`:
/// drivers/infiniband/hw/mlx5/counters.c) whether or not ethtool -S shows vport counters.
const RDMA_REQUESTS: [&str; 3] = ["rx_write_requests", "rx_read_requests", "rx_atomic_requests"];

/// What says RDMA moved on the port during the window, strongest first: the NIC's RDMA bytes
/// (`rx/tx_vport_rdma_unicast_bytes`, mlx5's ethtool -S), else the RDMA requests its device
/// served ([`RDMA_REQUESTS`]). Without either (a capture of `ethtool -S | grep prio`, a driver
/// with neither), traffic on priority 0 may be TCP, which belongs there: nothing is said.
fn rdma_moved(before: &CounterRead, after: &CounterRead) -> Option<String> {
    if let Some(bytes) = both_directions(before, after, "rx_vport_rdma_unicast_bytes", "tx_vport_rdma_unicast_bytes") {
        return (bytes > 0).then(|| format!("{bytes} RDMA bytes"));
    }
    let delta = |name: &str| after.values.get(name)?.checked_sub(*before.values.get(name)?);
    let requests: Vec<u64> = RDMA_REQUESTS.iter().filter_map(|n| delta(n)).collect();
    let total: u64 = requests.iter().sum();
    (total > 0).then(|| format!("{total} RDMA requests served"))
}

/// Judges one port's two reads against the policy's counter rules: the same rules for a NIC and
/// for a switch port (whose counters carry NIC-style names: `rx_prio3_pause`).
pub fn judge_port(
    device: &str,
    label: &str,
    before: &CounterRead,
    after: &CounterRead,
    policy: &Policy,
) -> (Vec<Finding>, Vec<CounterSample>) {
    let mut findings = Vec::new();
    let mut resets = Vec::new();
    let mut samples = Vec::new();
    // The device read its counters somewhere between sending each command and its answer: the
    // window is taken at its longest, so a read that waited in a queue never inflates a rate.
    let seconds = after.finished_ms.saturating_sub(before.started_ms) as f64 / 1000.0;
    let judged: BTreeMap<&str, (&str, &CounterRule)> = policy
        .counters
        .iter()
        .filter_map(|(rule_name, rule)| Some((counter_for(rule_name, &after.values)?, (rule_name.as_str(), rule))))
        .collect();
    // Both reads are sorted by name: the earlier one is walked alongside, not searched for each
    // name (a real host's port has thousands of counters).
    let mut earlier = before.values.iter().peekable();
    for (name, &value) in &after.values {
        while earlier.next_if(|(n, _)| *n < name).is_some() {}
        let Some((_, &old)) = earlier.next_if(|(n, _)| *n == name) else {
            continue;
        };
        let delta = value.checked_sub(old);
        let rate = delta.filter(|_| seconds > 0.0).map(|d| d as f64 / seconds);
        let Some(d) = delta else {
            resets.push(
                Finding::new(
                    "counter.reset",
                    Severity::Info,
                    device,
                    format!("{name} went from {old} to {value}: the counter was reset during the window"),
                )
                .port(label)
                .expected_actual(format!("≥ {old}"), value.to_string())
                .evidence(after.files.join(", ")),
            );
            samples.push(sample(device, label, name, value, None, None));
            continue;
        };
        let rule = judged.get(name.as_str());
        if let Some((_, rule)) = rule {
            let breach = match (rule.max.filter(|m| d > *m), rule.max_per_s.zip(rate).filter(|(m, r)| r > m)) {
                (Some(m), _) => Some((
                    format!("increase ≤ {} over {seconds:.1} s", amount(name, m)),
                    format!("+{}", amount(name, d)),
                )),
                (None, Some((m, r))) => {
                    Some((format!("≤ {}/s", amount_f(name, m)), format!("{}/s", amount_f(name, r))))
                }
                (None, None) => None,
            };
            if let Some((expected, actual)) = breach {
                let mut f = Finding::new(
                    code_for(name),
                    rule.severity,
                    device,
                    format!("{name} grew by {} in {seconds:.1} s on {label}{}", amount(name, d), meaning(name)),
                )
                .port(label)
                .expected_actual(expected, actual);
                f.evidence = before.files.iter().chain(&after.files).cloned().collect();
                findings.push(f);
            }
        }
        if rule.is_some() || worth_exporting(name) {
            samples.push(sample(device, label, name, value, Some(d), rate));
        }
    }
    findings.append(&mut resets);
    (findings, samples)
}

/// The counter of `values` a policy rule selects: the one it names, else the first with the same
/// canonical name (`out_of_buffer` selects ethtool's `rx_out_of_buffer` where hw_counters has no
/// `out_of_buffer`), so each rule judges one counter per port, however many tools count it.
fn counter_for<'a>(rule_name: &str, values: &'a BTreeMap<String, u64>) -> Option<&'a str> {
    if let Some((name, _)) = values.get_key_value(rule_name) {
        return Some(name);
    }
    let wanted = canonical(rule_name).unwrap_or_else(|| rule_name.to_string());
    values.keys().find(|name| canonical(name).as_deref() == Some(wanted.as_str())).map(String::as_str)
}

fn sample(device: &str, port: &str, name: &str, value: u64, delta: Option<u64>, rate: Option<f64>) -> CounterSample {
    CounterSample { device: device.into(), port: port.into(), counter: name.into(), value, delta, rate_per_s: rate }
}

/// The finding code for a counter, by what it counts.
fn code_for(name: &str) -> &'static str {
    let n = canonical(name).unwrap_or_else(|| name.to_string()).to_ascii_lowercase();
    if n.contains("out_of_buffer") {
        "counter.out_of_buffer"
    } else if n.contains("discard") || n.contains("drop") {
        // Egress queue drops and transmit discards are the sending side's, not receive discards.
        let transmit = n.starts_with("tx") || n.starts_with("queue") || n.contains("xmit");
        if transmit { "counter.tx_discards" } else { "counter.rx_discards" }
    } else if n.contains("seq_err") || n.contains("out_of_sequence") {
        "counter.seq_err"
    } else if n.contains("pause") {
        "counter.pause_storm"
    } else if n.contains("ecn") || n.contains("cnp") {
        "counter.ecn_marks"
    } else if n.contains("symbol_error") {
        "ib.symbol_errors"
    } else if n.contains("link_downed") {
        "ib.link_downed"
    } else {
        "counter.threshold"
    }
}

/// What the growth means, from NVIDIA's "Understanding mlx5 Linux Counters" and the ethtool
/// counters of the mlx5 driver's documentation.
fn meaning(name: &str) -> &'static str {
    match code_for(name) {
        "counter.out_of_buffer" => {
            ": the NIC ran out of receive buffers and dropped RDMA packets, so the lossless chain is broken"
        }
        "counter.rx_discards" => ": packets were discarded on receive at the port, the direct evidence of a lossy hop",
        "counter.tx_discards" => {
            ": packets were dropped on transmit (egress queue or port), the direct evidence of a lossy hop"
        }
        "counter.seq_err" => ": packets were lost and retransmitted (go-back-N)",
        "counter.pause_storm" => ": PFC is pausing traffic often, a sign of congestion or a PFC storm",
        _ => "",
    }
}

/// Counters exported to Prometheus even when the policy has no rule for them: those naming one
/// of these words (case matters: `Error` is perfquery's, `ecn` ethtool's).
const KEPT_WORDS: [&str; 9] =
    ["pause", "discard", "out_of_buffer", "seq_err", "out_of_sequence", "ecn", "cnp", "Error", "Downed"];

fn worth_exporting(name: &str) -> bool {
    names_a_kept_word(name) && !name.ends_with("_duration")
        || matches!(name, "rx_bytes" | "tx_bytes" | "PortXmitData" | "PortRcvData")
}

/// The bytes a word of [`KEPT_WORDS`] starts with.
const KEPT_FIRST_BYTES: [bool; 256] = {
    let mut first = [false; 256];
    let mut i = 0;
    while i < KEPT_WORDS.len() {
        first[KEPT_WORDS[i].as_bytes()[0] as usize] = true;
        i += 1;
    }
    first
};

/// Whether one of [`KEPT_WORDS`] occurs in `name`. Every counter of every port is asked, so the
/// name is walked once and the words are tried only where one's first letter stands: nine
/// `contains` each were a percent of a 1,000-host audit's CPU, and a regex over the words (with
/// its cache pool) a third of judging a port's counters.
fn names_a_kept_word(name: &str) -> bool {
    let bytes = name.as_bytes();
    (0..bytes.len()).any(|at| {
        KEPT_FIRST_BYTES[usize::from(bytes[at])]
            && KEPT_WORDS.iter().any(|word| bytes[at..].starts_with(word.as_bytes()))
    })
}

/// `n` of counter `name` with its unit: `4 packets`, `1200 bytes` (perfquery's 4-byte words
/// converted), so an expected and an actual value read alike everywhere they are shown.
fn amount(name: &str, n: u64) -> String {
    let unit = fabcheck_model::counters::unit(name);
    format!("{} {}", unit.count(n), unit.name)
}

/// A rate's amount, to the unit.
fn amount_f(name: &str, r: f64) -> String {
    let unit = fabcheck_model::counters::unit(name);
    format!("{:.0} {}", unit.rate(r), unit.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_of_pause_drops_errors_and_ecn_are_exported_without_a_rule() {
        let kept =
            ["rx_prio3_pause", "rx_discards_phy", "out_of_buffer", "packet_seq_err", "np_ecn_marked_roce_packets"];
        let more = ["rp_cnp_handled", "SymbolErrorCounter", "LinkDownedCounter", "rx_bytes", "PortRcvData"];
        assert!(kept.iter().chain(&more).all(|n| worth_exporting(n)));
        let dropped = ["rx_prio3_pause_duration", "rx_packets", "tx_prio0_bytes", "ECN"];
        assert!(!dropped.iter().any(|n| worth_exporting(n)));
    }

    /// The word test is the regex it replaced (`pause|discard|...`, unanchored, case-sensitive),
    /// on every counter name of the fixtures' reads and on the words cut, joined and cased.
    #[test]
    fn kept_words_are_found_where_the_regex_found_them() {
        let regex = regex::Regex::new(&KEPT_WORDS.join("|")).unwrap();
        let mut names: Vec<String> = KEPT_WORDS.iter().map(|w| w.to_string()).collect();
        for w in KEPT_WORDS {
            for cut in 1..w.len() {
                names.extend([w[..cut].to_string(), w[cut..].to_string(), format!("{}_{}", &w[..cut], &w[cut..])]);
            }
            names.extend([
                format!("rx_{w}_phy"),
                format!("x{w}"),
                w.to_uppercase(),
                w.to_lowercase(),
                format!("é{w}é"),
            ]);
        }
        names.extend(
            ["", "p", "rx_prio3_pause_duration", "SymbolErrorCounter", "LinkDownedCounter", "ECN"].map(String::from),
        );
        for name in &names {
            assert_eq!(names_a_kept_word(name), regex.is_match(name), "{name:?}");
        }
        assert!(names.iter().filter(|n| names_a_kept_word(n)).count() > 40);
    }

    #[test]
    fn transmit_side_drops_are_not_called_receive_discards() {
        assert_eq!(code_for("rx_discards_phy"), "counter.rx_discards");
        assert_eq!(code_for("PortRcvErrors"), "counter.rx_discards");
        assert_eq!(code_for("tx_discards_phy"), "counter.tx_discards");
        assert_eq!(code_for("PortXmitDiscards"), "counter.tx_discards");
        assert_eq!(code_for("queue3_drops"), "counter.tx_discards");
    }

    fn read(values: &[(&str, u64)], started_ms: u64) -> CounterRead {
        CounterRead {
            values: values.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            started_ms,
            finished_ms: started_ms,
            files: vec![format!("gpu01/read{started_ms}.txt")],
        }
    }

    fn judge(policy: &str, before: &[(&str, u64)], after: &[(&str, u64)]) -> Vec<(String, String)> {
        let policy = Policy::parse(policy, "p").unwrap();
        let (findings, _) = judge_port("gpu01", "ens1np0", &read(before, 0), &read(after, 1000), &policy);
        findings.into_iter().map(|f| (f.code, f.actual)).collect()
    }

    #[test]
    fn each_counter_is_paired_with_its_earlier_read_whatever_either_read_lacks() {
        let policy = Policy::parse("pfc: { priorities: [3] }\n", "p").unwrap();
        let before = read(&[("a_discard", 1), ("b_discard", 2), ("d_discard", 4), ("f_discard", 6)], 0);
        let after =
            read(&[("b_discard", 5), ("c_discard", 1), ("d_discard", 3), ("e_discard", 9), ("f_discard", 6)], 1000);
        let (findings, samples) = judge_port("gpu01", "ens1np0", &before, &after, &policy);
        let seen: Vec<(&str, Option<u64>)> = samples.iter().map(|s| (s.counter.as_str(), s.delta)).collect();
        assert_eq!(seen, [("b_discard", Some(3)), ("d_discard", None), ("f_discard", Some(0))]);
        let resets: Vec<&str> =
            findings.iter().filter(|f| f.code == "counter.reset").map(|f| f.message.as_str()).collect();
        assert_eq!(resets, ["d_discard went from 4 to 3: the counter was reset during the window"]);
    }

    #[test]
    fn rdma_bytes_with_the_lossless_priority_flat_name_the_priority_they_took() {
        let policy = Policy::parse("pfc: { priorities: [3] }\n", "p").unwrap();
        let at = |rdma: u64, p0: u64, p3: u64, ms| {
            read(&[("rx_vport_rdma_unicast_bytes", rdma), ("rx_prio0_bytes", p0), ("rx_prio3_bytes", p3)], ms)
        };
        let f = wrong_priority("gpu01", "ens1np0", &at(0, 0, 500, 0), &at(9000, 9100, 500, 1000), &policy).unwrap();
        assert_eq!((f.code.as_str(), f.actual.as_str()), ("nic.roce_wrong_priority", "priority 0: +9100 bytes"));
        assert!(wrong_priority("gpu01", "ens1np0", &at(0, 0, 500, 0), &at(9000, 100, 9500, 1000), &policy).is_none());
        assert!(
            wrong_priority("gpu01", "ens1np0", &at(0, 0, 0, 0), &at(0, 9100, 0, 1000), &policy).is_none(),
            "no RDMA"
        );
    }

    /// One of bytedance/byteps#179's reads (`ethtool -S enp178s0f0 | grep prio`), as values.
    fn byteps_read(text: &str, ms: u64) -> CounterRead {
        let values = text
            .lines()
            .filter_map(|l| l.trim().split_once(": "))
            .map(|(k, v)| (k.to_string(), v.parse().expect("a number")))
            .collect();
        CounterRead { values, started_ms: ms, finished_ms: ms, files: vec![format!("read{ms}")] }
    }

    /// The real reads around byteps' RDMA benchmark carry no vport counter: with the RDMA
    /// device's request counters grown (hw_counters, read beside them), the 136 GB each way on
    /// priority 0 with priority 3 flat are RoCE off the lossless priority; without any RDMA
    /// counter the same reads say nothing (priority 0 also carries TCP).
    #[test]
    fn rdma_off_the_lossless_priority_without_vport_counters() {
        let policy = Policy::parse("pfc: { priorities: [3] }\n", "p").unwrap();
        let mut before = byteps_read(
            include_str!(
                "../../../parse/tests/fixtures/ethtool_stats/mlx5-enp178s0f0-grep-prio-before-rdma-benchmark-byteps-179-turn2.txt"
            ),
            0,
        );
        let mut after = byteps_read(
            include_str!(
                "../../../parse/tests/fixtures/ethtool_stats/mlx5-enp178s0f0-grep-prio-after-rdma-benchmark-byteps-179-turn2-PARTIAL.txt"
            ),
            1000,
        );
        assert!(!before.values.keys().any(|k| k.contains("vport")));
        assert!(wrong_priority("gpu01", "enp178s0f0", &before, &after, &policy).is_none(), "no RDMA counter");
        before.values.insert("rx_write_requests".into(), 1_000);
        after.values.insert("rx_write_requests".into(), 2_000);
        let f = wrong_priority("gpu01", "enp178s0f0", &before, &after, &policy).expect("finding");
        assert_eq!(f.actual, "priority 0: +273138348022 bytes");
        assert_eq!(f.expected, "RDMA bytes on priority 3");
        assert!(f.message.contains("1000 RDMA requests served"), "{}", f.message);
        // A driver that counts packets per priority and no bytes: the packets say it.
        for read in [&mut before, &mut after] {
            read.values.retain(|k, _| !k.ends_with("_bytes"));
        }
        let f = wrong_priority("gpu01", "enp178s0f0", &before, &after, &policy).expect("finding");
        assert_eq!(f.actual, "priority 0: +253460607 packets");
        // RDMA on the lossless priority too: nothing.
        after.values.insert("rx_prio3_packets".into(), 5);
        assert!(wrong_priority("gpu01", "enp178s0f0", &before, &after, &policy).is_none());
    }

    #[test]
    fn a_rule_on_a_canonical_name_judges_each_tools_name_once() {
        let rule = "counters:\n  out_of_buffer: { max: 0, severity: critical }\n";
        // ethtool's name only (no hw_counters): the canonical rule selects it.
        assert_eq!(
            judge(rule, &[("rx_out_of_buffer", 5)], &[("rx_out_of_buffer", 9)]),
            [("counter.out_of_buffer".to_string(), "+4 packets".to_string())]
        );
        // Both tools count it: one finding, from the counter the rule names.
        assert_eq!(
            judge(
                rule,
                &[("out_of_buffer", 5), ("rx_out_of_buffer", 5)],
                &[("out_of_buffer", 7), ("rx_out_of_buffer", 7)]
            ),
            [("counter.out_of_buffer".to_string(), "+2 packets".to_string())]
        );
    }

    #[test]
    fn a_rule_on_a_vendor_name_keeps_working_and_selects_its_synonyms() {
        let rule = "counters:\n  rx_prio3_pause: { max: 10 }\n  SymbolErrorCounter: { max: 0 }\n";
        assert_eq!(
            judge(
                rule,
                &[("rx_prio3_pause", 0), ("SymbolErrorCounter", 1)],
                &[("rx_prio3_pause", 50), ("SymbolErrorCounter", 3)]
            ),
            [
                ("ib.symbol_errors".to_string(), "+2 errors".to_string()),
                ("counter.pause_storm".to_string(), "+50 frames".to_string())
            ],
            "in counter-name order"
        );
        let canonical_rule = "counters:\n  pause_rx3: { max: 10 }\n";
        assert_eq!(
            judge(canonical_rule, &[("rx_prio3_pause", 0)], &[("rx_prio3_pause", 50)]),
            [("counter.pause_storm".to_string(), "+50 frames".to_string())]
        );
    }

    /// Sent 0.1 s apart but the second answered 2 s after the first was sent: the counters were
    /// read up to 2 s apart, and 30 pauses in up to 2 s is no storm at 100/s.
    #[test]
    fn a_read_that_answered_late_never_inflates_a_rate() {
        let policy = Policy::parse("counters:\n  rx_prio3_pause: { max_per_s: 100 }\n", "p").unwrap();
        let before = read(&[("rx_prio3_pause", 0)], 0);
        let mut after = read(&[("rx_prio3_pause", 30)], 100);
        after.finished_ms = 2000;
        let (findings, samples) = judge_port("gpu01", "ens1np0", &before, &after, &policy);
        assert!(findings.is_empty(), "{findings:#?}");
        assert_eq!(samples[0].rate_per_s, Some(15.0));
        after.finished_ms = 100;
        assert_eq!(judge_port("gpu01", "ens1np0", &before, &after, &policy).0.len(), 1, "300/s when read at once");
    }
}
