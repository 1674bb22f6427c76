//! `fabcheck flows FILE...`: each capture read into RoCEv2 flows, their `rdma-flow-record/1`
//! JSON Lines written (docs/flow-records.md), and a table of the worst flows on the terminal:
//! NAKs first, then retransmissions, CNPs and CE marks; then each flow judged against the
//! policy's `flows:` limits (exit 1 when a finding reaches `--fail-on`). A capture that cannot be
//! read is named on stderr; the others are still analysed (exit 2 when none could be).
use super::app::FlowsArgs;
use super::audit::{load_policy, parse_fail_on};
use crate::check::flows::{hop_verdict, verdicts};
use crate::correlate::flows::{AddressBook, join};
use crate::out;
use crate::policy::Policy;
use anyhow::Context;
use fabcheck_flows::flow::Flows;
use fabcheck_flows::hops::{Hop, hop, index};
use fabcheck_flows::record::{Source, records};
use fabcheck_model::{AuditResult, Finding, exit_codes};
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Analyses every capture.
pub fn run(args: FlowsArgs) -> anyhow::Result<i32> {
    let policy = load_policy(args.policy.as_deref())?;
    let fail_on = parse_fail_on(&args.fail_on)?;
    let mut all: Vec<Value> = Vec::new();
    let mut findings: Vec<Finding> = Vec::new();
    let points = points(&args.at)?;
    let inputs = args.files.iter().map(|f| (f, None)).chain(points.iter().map(|(name, f)| (f, Some(name.clone()))));
    let mut read = 0;
    for (file, point) in inputs {
        let Some(judged) = judge_capture(file, point, &policy) else { continue };
        read += 1;
        all.extend(judged.records);
        findings.extend(judged.findings);
    }
    if read == 0 {
        anyhow::bail!("no capture could be read");
    }
    let mut hop_lines = Vec::new();
    for pair in points.windows(2) {
        let ((from, up), (to, down)) = (&pair[0], &pair[1]);
        let measured = std::fs::File::open(up)
            .map_err(|e| e.to_string())
            .and_then(|f| index(std::io::BufReader::new(f)).map_err(|e| e.to_string()))
            .and_then(|seen| {
                let f = std::fs::File::open(down).map_err(|e| e.to_string())?;
                hop(&seen, std::io::BufReader::new(f)).map_err(|e| e.to_string())
            });
        match measured {
            Ok(h) => {
                hop_lines.push(hop_line(from, to, &h));
                findings.extend(hop_verdict(from, to, &h, &policy, &down.display().to_string()));
            }
            Err(e) => eprintln!("fabcheck: error: hop {from} → {to}: {e}"),
        }
    }
    let lines: String = all.iter().map(|r| format!("{r}\n")).collect();
    let code = if findings.iter().any(|f| f.severity >= fail_on) { exit_codes::FINDINGS } else { exit_codes::CLEAN };
    if args.records.as_os_str() == "-" {
        std::io::stdout().write_all(lines.as_bytes()).context("writing the records")?;
        for f in &findings {
            eprintln!("{:<9} {:<20} {}", f.severity.as_str(), f.code, f.message);
        }
        return Ok(code);
    }
    std::fs::write(&args.records, lines).with_context(|| format!("writing {}", args.records.display()))?;
    eprintln!("fabcheck: {} flow records in {}", all.len(), args.records.display());
    for line in table(&all, args.top).into_iter().chain(hop_lines) {
        out!("{line}")?;
    }
    out!("\n{} flow findings (policy {})", findings.len(), policy.name.as_deref().unwrap_or("unnamed"))?;
    for f in &findings {
        out!("  {:<9} {:<20} {}", f.severity.as_str(), f.code, f.message)?;
    }
    Ok(code)
}

/// One capture read and judged.
pub(super) struct Judged {
    /// Its flows' records.
    pub(super) records: Vec<Value>,
    /// Its flow findings.
    pub(super) findings: Vec<Finding>,
}

/// Reads `file` (taken at `point`) into flows, their records and the policy's verdicts; `None`
/// when nothing could be read (said on stderr). A capture cut short is judged as far as it goes.
pub(super) fn judge_capture(file: &Path, point: Option<String>, policy: &Policy) -> Option<Judged> {
    let mut flows = Flows::default();
    let opened = std::fs::File::open(file).with_context(|| format!("opening {}", file.display()));
    let result = opened.and_then(|f| {
        fabcheck_flows::analyse(std::io::BufReader::new(f), &mut flows).with_context(|| file.display().to_string())
    });
    if let Err(e) = result {
        eprintln!("fabcheck: error: {e:#}");
        if flows.frames == 0 {
            return None;
        }
    }
    eprintln!(
        "fabcheck: {}: {} frames, {} RoCEv2 flows; {} RoCEv1, {} malformed RoCEv2, {} other{}",
        file.display(),
        flows.frames,
        flows.flows.len(),
        flows.rocev1,
        flows.malformed,
        flows.other,
        if flows.unknown_link > 0 {
            format!(", {} on a link type not read", flows.unknown_link)
        } else {
            String::new()
        }
    );
    let source = Source { kind: "capture", file: file.display().to_string(), point, sampling_rate: 1 };
    Some(Judged { records: records(&flows, &source), findings: verdicts(&flows, policy, &source.file) })
}

/// `audit --flows`: each capture judged, its findings joined with the audit and added to it, the
/// records written to `out/flows.jsonl`.
pub(super) fn into_audit(
    files: &[PathBuf],
    policy: &Policy,
    book: &AddressBook,
    mut result: AuditResult,
    out: &Path,
) -> anyhow::Result<AuditResult> {
    let mut records = String::new();
    let mut found = Vec::new();
    for file in files {
        if let Some(judged) = judge_capture(file, None, policy) {
            records.extend(judged.records.iter().map(|r| format!("{r}\n")));
            found.extend(judged.findings);
        }
    }
    let joined = join(found, book, &result);
    result.findings.extend(joined);
    let path = out.join("flows.jsonl");
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    std::fs::write(&path, records).with_context(|| format!("writing {}", path.display()))?;
    Ok(result.finish())
}

/// `leaf1=a.pcap` → (`leaf1`, `a.pcap`), in the order given.
fn points(at: &[String]) -> anyhow::Result<Vec<(String, PathBuf)>> {
    at.iter()
        .map(|a| match a.split_once('=') {
            Some((name, file)) if !name.is_empty() && !file.is_empty() => Ok((name.to_string(), PathBuf::from(file))),
            _ => anyhow::bail!("--at {a}: expected POINT=FILE (leaf1=a.pcap)"),
        })
        .collect()
}

/// One hop's latency for the terminal.
fn hop_line(from: &str, to: &str, h: &Hop) -> String {
    let stat = |v: Option<u64>| v.map_or("-".to_string(), duration);
    format!(
        "hop {from} → {to}: {} packets matched, {} not seen upstream, {} arriving before they left (clocks apart); latency min {}, avg {}, p99 {}, max {}",
        h.matched,
        h.unmatched,
        h.negative,
        stat(h.latency_ns.min()),
        stat(h.mean_ns()),
        stat(h.latency_ns.quantile(0.99)),
        stat(h.latency_ns.max())
    )
}

/// The worst data flows first: NAK rate, retransmissions, CNPs to the sender, CE marks, then the
/// most packets.
fn table(records: &[Value], top: usize) -> Vec<String> {
    let num = |r: &Value, k: &str| r.get(k).and_then(Value::as_f64).unwrap_or(0.0);
    let ce = |r: &Value| r["ecn_packets"]["ce"].as_f64().unwrap_or(0.0);
    let mut data: Vec<&Value> = records.iter().filter(|r| num(r, "data_packets") > 0.0).collect();
    data.sort_by(|a, b| {
        let key =
            |r: &Value| [num(r, "nak_rate"), num(r, "retransmits"), num(r, "cnps_to_sender"), ce(r), num(r, "packets")];
        key(b).partial_cmp(&key(a)).unwrap_or(std::cmp::Ordering::Equal)
    });
    let mut out = vec![format!(
        "{:<40} {:>9} {:>6} {:>12} {:>8} {:>10} {:>9} {:>6} {:>6} {:>6} {:>5}",
        "flow (src:port → dst qp)",
        "packets",
        "msgs",
        "bytes",
        "MB/s",
        "FCT p99",
        "NAK %",
        "retx",
        "CNPs",
        "CE",
        "DSCP"
    )];
    for r in data.into_iter().take(top) {
        let flow = format!(
            "{}:{} → {} qp {:#x}",
            r["src_ip"].as_str().unwrap_or("?"),
            r["udp_src_port"],
            r["dst_ip"].as_str().unwrap_or("?"),
            r["dst_qp"].as_u64().unwrap_or(0)
        );
        let opt = |v: Option<String>| v.unwrap_or_else(|| "-".into());
        let dscp: Vec<String> = r["dscp"].as_array().into_iter().flatten().map(|d| d.to_string()).collect();
        out.push(format!(
            "{:<40} {:>9} {:>6} {:>12} {:>8} {:>10} {:>9} {:>6} {:>6} {:>6} {:>5}",
            flow,
            r["packets"],
            r["messages"],
            opt(r.get("payload_bytes").map(|b| b.to_string())),
            opt(r.get("throughput_bytes_per_s").and_then(Value::as_f64).map(|b| format!("{:.1}", b / 1e6))),
            opt(r.pointer("/fct_ns/p99").and_then(Value::as_u64).map(duration)),
            opt(r.get("nak_rate").and_then(Value::as_f64).map(|n| format!("{:.3}", n * 100.0))),
            r["retransmits"],
            opt(r.get("cnps_to_sender").map(|c| c.to_string())),
            ce(r),
            dscp.join(","),
        ));
    }
    out
}

/// Nanoseconds for a human: `850 ns`, `12.5 µs`, `3.2 ms`, `1.4 s`.
fn duration(ns: u64) -> String {
    match ns {
        0..1_000 => format!("{ns} ns"),
        1_000..1_000_000 => format!("{:.1} µs", ns as f64 / 1e3),
        1_000_000..1_000_000_000 => format!("{:.1} ms", ns as f64 / 1e6),
        _ => format!("{:.1} s", ns as f64 / 1e9),
    }
}
