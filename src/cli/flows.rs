//! `fabcheck flows FILE...`: each input read into `rdma-flow-record/1` records (a capture's flows,
//! or the JSON Lines a collector or an earlier run wrote), the records written
//! (docs/flow-records.md), a table of the worst flows on the terminal (NAKs first, then
//! retransmissions, CNPs and CE marks), each hop's latency between `--at` points, and each flow
//! judged against the policy's `flows:` limits (exit 1 when a finding reaches `--fail-on`). An
//! input that cannot be read (a capture that does not parse, JSON Lines of which no line is a
//! record) is named on stderr; the others are still analysed (exit 2 when none could be). In an
//! audit (`--flows`), such an input is a `collect.parse_error` finding on the file.
use super::app::FlowsArgs;
use super::audit::{load_policy, parse_fail_on};
use crate::check::flows::{hop_verdict, verdicts};
use crate::correlate::flows::{AddressBook, join, views};
use crate::out;
use crate::policy::Policy;
use anyhow::Context;
use fabcheck_flows::flow::Flows;
use fabcheck_flows::hops::{Hop, hop, index};
use fabcheck_flows::record::{FlowRecord, Source, read_lines, records};
use fabcheck_model::{AuditResult, Finding, Severity, exit_codes};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Analyses every input.
pub fn run(args: FlowsArgs) -> anyhow::Result<i32> {
    let policy = load_policy(args.policy.as_deref())?;
    let fail_on = parse_fail_on(&args.fail_on)?;
    let points = points(&args.at)?;
    let files = expand(&args.files);
    let inputs = files.iter().map(|f| (f, None)).chain(points.iter().map(|(name, f)| (f, Some(name.clone()))));
    let mut all: Vec<FlowRecord> = Vec::new();
    let mut read = 0;
    for (file, point) in inputs {
        match read_input(file, point) {
            Ok(records) => {
                read += 1;
                all.extend(records);
            }
            Err(why) => eprintln!("fabcheck: error: {why}"),
        }
    }
    if read == 0 {
        anyhow::bail!("no input could be read");
    }
    // The same flow seen at several points is judged once, from the first point that saw it.
    let mut seen = std::collections::BTreeSet::new();
    let once: Vec<FlowRecord> = all
        .iter()
        .filter(|r| r.source.point.is_none() || seen.insert((r.src_ip, r.dst_ip, r.udp_src_port, r.dst_qp)))
        .cloned()
        .collect();
    let mut findings = verdicts(&once, &policy);
    let mut hop_lines = Vec::new();
    for pair in points.windows(2) {
        let ((from, up), (to, down)) = (&pair[0], &pair[1]);
        match measure_hop(up, down) {
            Ok(h) => {
                hop_lines.push(hop_line(from, to, &h));
                findings.extend(hop_verdict(
                    from,
                    to,
                    h.latency_ns.quantile(0.99),
                    h.matched,
                    &policy,
                    &down.display().to_string(),
                ));
            }
            Err(e) => eprintln!("fabcheck: error: hop {from} → {to}: {e}"),
        }
    }
    let lines = jsonl(&all)?;
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

/// `audit --flows` and `--capture` (and `bench nccl --capture`): the hosts' captured flows and
/// each input's judged, the findings joined with the audit and added to it, the records written
/// to `out/flows.jsonl`.
pub(super) fn into_audit(
    files: &[PathBuf],
    captured: Vec<FlowRecord>,
    policy: &Policy,
    book: &AddressBook,
    mut result: AuditResult,
    out: &Path,
) -> anyhow::Result<AuditResult> {
    let mut all = captured;
    let mut unreadable = Vec::new();
    for file in expand(files) {
        match read_input(&file, None) {
            Ok(records) => all.extend(records),
            Err(why) => {
                eprintln!("fabcheck: error: {why}");
                unreadable.push(unreadable_input(&file, &why));
            }
        }
    }
    let joined = join(verdicts(&all, policy), book, &result);
    result.findings.extend(joined);
    result.findings.extend(unreadable);
    (result.flows, result.flows_total, result.flows_failing) = views(&all, policy, book);
    let path = out.join("flows.jsonl");
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    std::fs::write(&path, jsonl(&all)?).with_context(|| format!("writing {}", path.display()))?;
    Ok(result.finish())
}

/// An input of `audit --flows` that could not be read: the run's own finding on the file (it is
/// no device), so the reports say which flows were not judged rather than only stderr.
fn unreadable_input(file: &Path, why: &str) -> Finding {
    Finding::new(
        "collect.parse_error",
        Severity::Error,
        &file.display().to_string(),
        format!("{why}: its flows are not judged"),
    )
    .expected_actual("a pcap or pcapng capture, or rdma-flow-record/1 JSON Lines", "unreadable")
}

/// The inputs with each directory replaced by its `.jsonl`, `.pcap` and `.pcapng` files (a
/// collector's drop directory), in name order.
fn expand(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for p in paths {
        match std::fs::read_dir(p) {
            Ok(entries) => {
                let mut found: Vec<PathBuf> = entries
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|f| f.extension().is_some_and(|x| x == "jsonl" || x == "pcap" || x == "pcapng"))
                    .collect();
                found.sort();
                out.extend(found);
            }
            Err(_) => out.push(p.clone()),
        }
    }
    out
}

/// The records as JSON Lines.
fn jsonl(records: &[FlowRecord]) -> anyhow::Result<String> {
    let mut out = String::new();
    for r in records {
        out.push_str(&serde_json::to_string(r).context("encoding a flow record")?);
        out.push('\n');
    }
    Ok(out)
}

/// One input's records: JSON Lines of `rdma-flow-record/1` (a line that is not one is named on
/// stderr), or a capture taken at `point` read into flows (one cut short is read as far as it
/// goes, and said on stderr). An input of which nothing can be read is an error naming the
/// file, and for JSON Lines its first line that is not a record.
fn read_input(file: &Path, point: Option<String>) -> Result<Vec<FlowRecord>, String> {
    let mut head = [0u8; 1];
    let first = std::fs::File::open(file).and_then(|mut f| f.read(&mut head).map(|n| (n, head[0])));
    match first {
        Ok((1, b'{')) => {
            let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
            let (records, errors) = read_lines(&text);
            if records.is_empty()
                && let Some((n, why)) = errors.first()
            {
                return Err(format!(
                    "{}: none of its {} lines is an rdma-flow-record/1 record (line {n}: {why})",
                    file.display(),
                    errors.len()
                ));
            }
            for (n, why) in &errors {
                eprintln!("fabcheck: error: {}:{n}: not an rdma-flow-record/1 line: {why}", file.display());
            }
            eprintln!("fabcheck: {}: {} flow records", file.display(), records.len());
            Ok(records)
        }
        Ok(_) => capture_records(file, point),
        Err(e) => Err(format!("opening {}: {e}", file.display())),
    }
}

/// A capture read into flows and their records; cut short, judged as far as it goes.
fn capture_records(file: &Path, point: Option<String>) -> Result<Vec<FlowRecord>, String> {
    let mut flows = Flows::default();
    let result = std::fs::File::open(file)
        .map_err(|e| e.to_string())
        .and_then(|f| fabcheck_flows::analyse(std::io::BufReader::new(f), &mut flows).map_err(|e| e.to_string()));
    if let Err(e) = result {
        let why = format!("{}: {e}", file.display());
        if flows.frames == 0 {
            return Err(why);
        }
        eprintln!("fabcheck: error: {why}");
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
    let source = Source { kind: "capture".into(), file: file.display().to_string(), point, sampling_rate: 1 };
    Ok(records(&flows, &source))
}

/// The hop from the capture at `up` to the one at `down`.
fn measure_hop(up: &Path, down: &Path) -> Result<Hop, String> {
    let open =
        |p: &Path| std::fs::File::open(p).map(std::io::BufReader::new).map_err(|e| format!("{}: {e}", p.display()));
    let seen = index(open(up)?).map_err(|e| format!("{}: {e}", up.display()))?;
    hop(&seen, open(down)?).map_err(|e| format!("{}: {e}", down.display()))
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
fn table(records: &[FlowRecord], top: usize) -> Vec<String> {
    let mut data: Vec<&FlowRecord> = records.iter().filter(|r| r.is_data()).collect();
    let key = |r: &FlowRecord| {
        let n = |v: Option<u64>| v.unwrap_or(0) as f64;
        [r.nak_rate.unwrap_or(0.0), n(r.retransmits), n(r.cnps_to_sender), r.ecn_packets.ce as f64, r.packets as f64]
    };
    data.sort_by(|a, b| key(b).partial_cmp(&key(a)).unwrap_or(std::cmp::Ordering::Equal));
    let row = |cells: [String; 11]| {
        format!(
            "{:<40} {:>9} {:>6} {:>12} {:>8} {:>10} {:>9} {:>6} {:>6} {:>6} {:>5}",
            cells[0],
            cells[1],
            cells[2],
            cells[3],
            cells[4],
            cells[5],
            cells[6],
            cells[7],
            cells[8],
            cells[9],
            cells[10]
        )
    };
    let titles = [
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
        "DSCP",
    ];
    let mut out = vec![row(titles.map(String::from))];
    let opt = |v: Option<String>| v.unwrap_or_else(|| "-".into());
    for r in data.into_iter().take(top) {
        let dscp: Vec<String> = r.dscp.iter().map(u8::to_string).collect();
        out.push(row([
            r.name(),
            r.packets.to_string(),
            opt(r.messages.map(|m| m.to_string())),
            opt(r.payload_bytes.map(|b| b.to_string())),
            opt(r.throughput_bytes_per_s.map(|b| format!("{:.1}", b / 1e6))),
            opt(r.fct_ns.map(|f| duration(f.p99))),
            opt(r.nak_rate.map(|n| format!("{:.3}", n * 100.0))),
            opt(r.retransmits.map(|n| n.to_string())),
            opt(r.cnps_to_sender.map(|c| c.to_string())),
            r.ecn_packets.ce.to_string(),
            dscp.join(","),
        ]));
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
