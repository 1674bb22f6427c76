//! Running nccl-tests: launch on the first host of each run, save the output as evidence, parse
//! and judge it; pairwise isolation and bisection run their rounds' runs side by side.

use super::baseline::Baseline;
use super::env::NcclFacts;
use super::isolate::{self, Trial};
use super::judge::{self, Context, best_at, curve};
use super::launch::{Launch, Launcher, TestArgs};
use super::reference::{Floor, nvlink_floor, policy_floor, reference_floor};
use super::triage;
use crate::collect::{DeviceTarget, Reach};
use crate::policy::Policy;
use crate::transport::{LocalSession, Session, SshOptions, SshSession};
use fabcheck_model::{BenchRun, Finding, Severity};
use fabcheck_parse::nccl::nccl_tests::{self, NcclRun};
use fabcheck_report::write_atomic;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::task::JoinSet;

/// The floor for `test` on `hosts` hosts: the cluster's own baseline when there is one, else
/// the higher of the policy's floor and the reference for the NICs found (the policy's figure
/// is per run, the reference counts every rail, so two 400G rails at 55 GB/s are caught).
pub fn floor(
    policy: &Policy,
    facts: &NcclFacts,
    baseline: Option<&Baseline>,
    tolerance: f64,
    test: &str,
    hosts: usize,
) -> Option<Floor> {
    let from_policy = policy_floor(policy, test);
    let min_bytes = from_policy.as_ref().map_or(1 << 30, |f| f.min_bytes);
    if let Some(floor) = baseline.and_then(|b| b.floor(test, hosts, min_bytes, tolerance)) {
        return Some(floor);
    }
    let reference = facts.rate_gbps.and_then(|rate| reference_floor(rate, facts.hcas.len().max(1)));
    match (from_policy, reference) {
        (Some(p), Some(r)) if r.min_busbw_gbs > p.min_busbw_gbs => Some(r),
        (Some(p), _) => Some(p),
        (None, r) => r,
    }
}

/// The floor for `test` on one host alone: the cluster's baseline for one host, else the
/// NVLink reference for the hosts' GPUs (the NVLink count most hosts' `nvidia-smi topo -m`
/// shows between every pair of GPUs).
pub fn intra_node_floor(facts: &NcclFacts, baseline: Option<&Baseline>, tolerance: f64, test: &str) -> Option<Floor> {
    if let Some(floor) = baseline.and_then(|b| b.floor(test, 1, 1 << 30, tolerance)) {
        return Some(floor);
    }
    nvlink_floor(test, facts.typical_nvlinks()?)
}

/// A run not yet measured: what it is and what it must reach.
pub fn new_run(
    label: &str,
    test: &str,
    hosts: &[String],
    floor: Option<&Floor>,
    baseline: Option<&Baseline>,
) -> BenchRun {
    BenchRun {
        label: label.to_string(),
        test: test.to_string(),
        hosts: hosts.to_vec(),
        command: String::new(),
        output: None,
        rows: Vec::new(),
        avg_busbw_gbs: None,
        peak_busbw_gbs: None,
        expected_min_gbs: floor.map(|f| f.min_busbw_gbs),
        expected_source: floor.map(|f| f.source.clone()),
        baseline: baseline.and_then(|b| b.curve(test, hosts.len())).map(|c| c.rows.clone()).unwrap_or_default(),
        transport: None,
        hcas: Vec::new(),
        gdr: None,
        ok: false,
        duration_s: 0.0,
    }
}

/// Fills `run` from nccl-tests' parsed output and judges it: the one way a run is judged,
/// launched live or read from a saved log (`fabcheck bench judge`).
pub fn judge_output(mut run: BenchRun, parsed: &NcclRun, ctx: &Context) -> (BenchRun, Vec<Finding>) {
    run.rows = curve(parsed);
    run.avg_busbw_gbs = parsed.avg_busbw_gbs;
    run.peak_busbw_gbs = run.rows.last().map(|p| p.busbw_gbs);
    run.transport = parsed.transport.clone();
    run.hcas = parsed.hcas.clone();
    run.gdr = parsed.gdr;
    let mut findings = judge::judge(parsed, ctx);
    // A run that measured nothing did not finish; where NCCL's completion errors already fail
    // it, they stand alone.
    if !findings.iter().any(|f| f.code == "nccl.failed") {
        findings.splice(0..0, judge::no_table(parsed, ctx));
    }
    run.ok = !findings.iter().any(|f| f.severity >= Severity::Error);
    (run, findings)
}

/// A benchmark output saved as `file` under the evidence directory `evidence`, where the report
/// links it; whether it was. Not saving it only warns: the run's findings stand without the copy.
pub fn save_output(evidence: &Path, file: &str, text: &str) -> bool {
    let path = evidence.join(file);
    let saved = path
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .map_err(|e| e.to_string())
        .and_then(|()| write_atomic(&path, text.as_bytes()).map_err(|e| e.to_string()));
    if let Err(e) = &saved {
        eprintln!("fabcheck: warning: benchmark output not saved as {}: {e}", path.display());
    }
    saved.is_ok()
}

/// A pair or half below this share of its round's median is slow even with no floor known.
const RELATIVE_SLOW: f64 = 0.85;

/// How to benchmark.
#[derive(Debug, Clone)]
pub struct BenchOptions {
    /// mpirun or srun.
    pub launcher: Launcher,
    /// nccl-tests binaries to run, in order.
    pub tests: Vec<String>,
    /// Ranks per host.
    pub gpus_per_host: u32,
    /// nccl-tests arguments.
    pub args: TestArgs,
    /// Variables that override the derived ones (`--env`).
    pub env: BTreeMap<String, String>,
    /// `--mca` pairs for mpirun.
    pub mca: Vec<(String, String)>,
    /// How long one run may take.
    pub timeout: Duration,
    /// Pairwise isolation instead of one run over every host.
    pub pairwise: bool,
    /// Bisect a slow run down to the slow host.
    pub bisect: bool,
    /// Also run each host alone (intra-node), to tell the network from the compute side.
    pub intra_node: bool,
    /// Allowed drop below the baseline (0.1 = 10 %).
    pub tolerance: f64,
    /// The cluster's saved baseline.
    pub baseline: Option<Baseline>,
}

/// What one run gave.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// For the report.
    pub run: BenchRun,
    /// Its findings.
    pub findings: Vec<Finding>,
    /// Finished but below the floor, or did not finish.
    pub slow: bool,
    /// Bus bandwidth at the judged sizes.
    pub best: Option<f64>,
    /// The run's output, relative to the evidence directory.
    pub evidence: String,
}

/// Runs benchmarks on the audited hosts.
pub struct Runner {
    targets: HashMap<String, DeviceTarget>,
    ssh: SshOptions,
    facts: NcclFacts,
    policy: Policy,
    options: BenchOptions,
    evidence: PathBuf,
}

impl Runner {
    /// A runner over `targets` (by inventory name), saving outputs under `evidence`.
    pub fn new(
        targets: Vec<DeviceTarget>,
        ssh: SshOptions,
        facts: NcclFacts,
        policy: Policy,
        options: BenchOptions,
        evidence: PathBuf,
    ) -> Arc<Runner> {
        let targets = targets.into_iter().map(|t| (t.name.clone(), t)).collect();
        Arc::new(Runner { targets, ssh, facts, policy, options, evidence })
    }

    /// The floor of a run on `hosts` hosts: one host alone is judged against the GPUs' own links.
    fn floor(&self, test: &str, hosts: usize) -> Option<Floor> {
        let baseline = self.options.baseline.as_ref();
        if hosts == 1 {
            return intra_node_floor(&self.facts, baseline, self.options.tolerance, test);
        }
        floor(&self.policy, &self.facts, baseline, self.options.tolerance, test, hosts)
    }

    /// Runs `test` on `hosts` (the first launches) and judges it.
    pub async fn run(self: Arc<Self>, label: String, test: String, hosts: Vec<String>) -> Outcome {
        let clock = Instant::now();
        let floor = self.floor(&test, hosts.len());
        let launch = Launch {
            launcher: self.options.launcher,
            test: test.clone(),
            hosts: hosts.clone(),
            gpus_per_host: self.options.gpus_per_host,
            env: self.facts.env(&self.options.env),
            mca: self.options.mca.clone(),
            args: self.options.args.clone(),
        };
        let slug: String = label.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
        let evidence = format!("_bench/{test}.{slug}.txt");
        let mut run = new_run(&label, &test, &hosts, floor.as_ref(), self.options.baseline.as_ref());
        let ctx = Context {
            label: &label,
            hosts: &hosts,
            facts: &self.facts,
            floor: floor.as_ref(),
            evidence: &evidence,
            intra_node: hosts.len() == 1,
        };
        let command = match launch.command() {
            Ok(c) => c,
            Err(e) => return self.failed(run, &ctx, &e.to_string(), "", clock),
        };
        run.command = command.clone();
        let (text, finished) = self.execute(&hosts[0], &command).await;
        if self.save(&evidence, &command, &text) {
            run.output = Some(evidence.clone());
        }
        if let Err(why) = finished {
            return self.failed(run, &ctx, &why, &text, clock);
        }
        let parsed = match nccl_tests::parse(&text) {
            Ok(p) => p.value,
            Err(e) => {
                return self.failed(run, &ctx, &format!("output not understood: {e}"), &text, clock);
            }
        };
        let (mut run, findings) = judge_output(run, &parsed, &ctx);
        let best = best_at(&run.rows, floor.as_ref().map_or(0, |f| f.min_bytes)).or(run.peak_busbw_gbs);
        let slow = !run.ok;
        run.duration_s = clock.elapsed().as_secs_f64();
        Outcome { run, findings, slow, best, evidence }
    }

    fn failed(&self, mut run: BenchRun, ctx: &Context, why: &str, text: &str, clock: Instant) -> Outcome {
        run.duration_s = clock.elapsed().as_secs_f64();
        Outcome {
            findings: judge::failed_run(ctx, why, text),
            run,
            slow: true,
            best: None,
            evidence: ctx.evidence.to_string(),
        }
    }

    /// Runs the launch command on the launching host; the error is why it did not finish.
    async fn execute(&self, host: &str, command: &str) -> (String, Result<(), String>) {
        let Some(target) = self.targets.get(host) else {
            return (String::new(), Err(format!("{host} is not in the inventory")));
        };
        let session = match &target.reach {
            Reach::Ssh(t) => match SshSession::connect(t, &self.ssh).await {
                Ok(s) => Session::Ssh(Box::new(s)),
                Err(e) => return (String::new(), Err(e.to_string())),
            },
            Reach::Local => Session::Local(LocalSession::new(self.ssh.max_output)),
        };
        let (out, result) = session.run_bounded(command, self.options.timeout).await;
        session.close().await;
        let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&out.stderr));
        let finished = match (result, out.exit_status) {
            (Err(e), _) => Err(e.to_string()),
            (Ok(()), Some(0)) => Ok(()),
            (Ok(()), Some(status)) => Err(format!("exit status {status}")),
            (Ok(()), None) => Err("killed by a signal".to_string()),
        };
        (text, finished)
    }

    /// The run's output and command, next to the devices' evidence.
    fn save(&self, file: &str, command: &str, text: &str) -> bool {
        save_output(&self.evidence, file, &format!("$ {command}\n{text}"))
    }

    /// Every test over `hosts`: one run over all of them (bisected when slow and asked), or
    /// pairwise isolation.
    pub async fn benchmark(self: Arc<Self>, hosts: Vec<String>) -> (Vec<BenchRun>, Vec<Finding>) {
        let mut runs = Vec::new();
        let mut findings = Vec::new();
        for test in self.options.tests.clone() {
            // The isolation's own verdicts, then each run's findings.
            let mut test_findings = Vec::new();
            let outcomes = if self.options.pairwise {
                self.clone().pairwise(&test, &hosts, &mut test_findings).await
            } else {
                self.clone().whole(&test, &hosts, &mut test_findings).await
            };
            for o in outcomes {
                runs.push(o.run);
                test_findings.extend(o.findings);
            }
            if self.options.intra_node {
                let alone = self.clone().alone(test.as_str(), &hosts).await;
                let slow_alone: Vec<String> = alone
                    .iter()
                    .filter(|o| o.findings.iter().any(|f| f.code == "nccl.intra_node_slow"))
                    .filter_map(|o| o.run.hosts.first().cloned())
                    .collect();
                triage::name_the_side(&mut test_findings, &slow_alone);
                for o in alone {
                    runs.push(o.run);
                    test_findings.extend(o.findings);
                }
            }
            findings.extend(test_findings);
        }
        (runs, findings)
    }

    /// Each host alone, side by side: its GPUs over NVLink/PCIe with no network in between. A
    /// host below the floor, or well below the others (with three hosts or more), is
    /// `nccl.intra_node_slow`.
    async fn alone(self: Arc<Self>, test: &str, hosts: &[String]) -> Vec<Outcome> {
        let groups = hosts.iter().map(|h| vec![h.clone()]).collect();
        let mut outcomes = self.clone().round(test, groups, "intra-node", None).await;
        let typical = median(outcomes.iter().filter_map(|o| o.best));
        for o in outcomes.iter_mut().filter(|o| o.slow && o.best.is_some()) {
            if o.findings.iter().any(|f| f.code == "nccl.intra_node_slow") {
                continue;
            }
            let host = o.run.hosts[0].clone();
            let best = o.best.unwrap_or_default();
            let typical = typical.unwrap_or_default();
            let mut f = Finding::new(
                "nccl.intra_node_slow",
                Severity::Error,
                &host,
                format!("{test}: {host} alone (its GPUs over NVLink/PCIe, no network) reaches {best:.1} GB/s where the other hosts reach {typical:.1} GB/s: the compute side (GPU, NVLink, PCIe), not the network{}", triage::topology_hint(&self.facts, &host)),
            )
            .expected_actual(format!("≈ {typical:.1} GB/s"), format!("{best:.1} GB/s"))
            .evidence(&o.evidence);
            f.path = vec![host];
            o.findings.push(f);
        }
        outcomes
    }

    async fn whole(self: Arc<Self>, test: &str, hosts: &[String], findings: &mut Vec<Finding>) -> Vec<Outcome> {
        let all = self.clone().run("all hosts".into(), test.into(), hosts.to_vec()).await;
        let slow = all.slow && all.findings.iter().any(|f| f.code == "nccl.busbw_low");
        let mut outcomes = vec![all];
        if slow && self.options.bisect && hosts.len() > 2 {
            let mut suspects = hosts.to_vec();
            let mut depth = 0;
            while suspects.len() > 2 {
                depth += 1;
                let (a, b) = isolate::halves(&suspects);
                let round =
                    self.clone().round(test, vec![a.clone(), b.clone()], &format!("bisection {depth}"), None).await;
                let slow_halves: Vec<&Outcome> = round.iter().filter(|o| o.slow).collect();
                let next = match slow_halves.as_slice() {
                    [only] => only.run.hosts.clone(),
                    _ => Vec::new(), // Both or neither half slow: the problem is not in one half.
                };
                outcomes.extend(round);
                if next.is_empty() {
                    break;
                }
                suspects = next;
            }
            if suspects.len() == 2 {
                let rest: Vec<String> = hosts.iter().filter(|h| !suspects.contains(h)).cloned().collect();
                let first = vec![Trial { hosts: suspects.clone(), slow: true }, Trial { hosts: rest, slow: false }];
                if let Some(pairs) = isolate::second_round(&first, None) {
                    let round = self.clone().round(test, pairs, "bisection check", None).await;
                    findings.extend(self.blame(test, &round));
                    outcomes.extend(round);
                }
            }
        }
        outcomes
    }

    async fn pairwise(self: Arc<Self>, test: &str, hosts: &[String], findings: &mut Vec<Finding>) -> Vec<Outcome> {
        let (pairs, odd) = isolate::first_round(hosts);
        let first = self.clone().round(test, pairs, "round 1", None).await;
        let good_median = median(first.iter().filter(|o| !o.slow).filter_map(|o| o.best));
        let trials: Vec<Trial> = first.iter().map(|o| Trial { hosts: o.run.hosts.clone(), slow: o.slow }).collect();
        let mut outcomes = first;
        match isolate::second_round(&trials, odd.as_ref()) {
            Some(pairs) if !pairs.is_empty() => {
                let second = self.clone().round(test, pairs, "round 2", good_median).await;
                findings.extend(self.blame(test, &second));
                let iso = isolate::verdict(&second.iter().map(|o| Trial { hosts: o.run.hosts.clone(), slow: o.slow }).collect::<Vec<_>>());
                // A slow pair whose two hosts are both fine with other partners: the problem is
                // between them (their path), not in either host.
                for t in trials.iter().filter(|t| t.slow && t.hosts.iter().all(|h| iso.cleared.contains(h))) {
                    let mut f = Finding::new(
                        "nccl.busbw_low",
                        Severity::Error,
                        &t.hosts[0],
                        format!("{test}: {} is slow together but each host is fast with a known-good partner: look at the path between them", t.hosts.join("+")),
                    );
                    f.path = t.hosts.clone();
                    findings.push(f);
                }
                outcomes.extend(second);
            }
            Some(_) => {}
            None => findings.push(Finding::new(
                "nccl.busbw_low",
                Severity::Error,
                hosts.first().map(String::as_str).unwrap_or("?"),
                format!("{test}: every pair is slow, so no single host is to blame: look at the fabric (switch PFC/ECN, a spine) rather than the hosts"),
            )),
        }
        // The isolation's verdict replaces each pair's own bandwidth finding.
        for o in &mut outcomes {
            o.findings.retain(|f| f.code != "nccl.busbw_low");
        }
        outcomes
    }

    /// Runs side by side; slow also means well below `reference` (the known-good pairs' median of
    /// the previous round) or, without one, below this round's median when it has three runs or more.
    async fn round(
        self: Arc<Self>,
        test: &str,
        groups: Vec<Vec<String>>,
        round: &str,
        reference: Option<f64>,
    ) -> Vec<Outcome> {
        let mut tasks = JoinSet::new();
        for (i, hosts) in groups.into_iter().enumerate() {
            // Pairs are `pair a+b (round 1)`: the report groups runs whose label starts with `pair `.
            let label = if hosts.len() == 2 {
                format!("pair {} ({round})", hosts.join("+"))
            } else {
                format!("{round}: {}", hosts.join("+"))
            };
            tasks.spawn(self.clone().run(label, test.to_string(), hosts).into_future_indexed(i));
        }
        let mut outcomes: Vec<(usize, Outcome)> = Vec::new();
        while let Some(Ok(pair)) = tasks.join_next().await {
            outcomes.push(pair);
        }
        outcomes.sort_by_key(|(i, _)| *i);
        let mut outcomes: Vec<Outcome> = outcomes.into_iter().map(|(_, o)| o).collect();
        let own: Vec<f64> = outcomes.iter().filter_map(|o| o.best).collect();
        let typical = reference.or_else(|| median(own.iter().copied()).filter(|_| own.len() >= 3));
        if let Some(median) = typical {
            for o in &mut outcomes {
                if o.best.is_some_and(|b| b < RELATIVE_SLOW * median) {
                    o.slow = true;
                    o.run.ok = false;
                }
            }
        }
        outcomes
    }

    /// `nccl.straggler` for each host that was slow next to a known-good partner.
    fn blame(&self, test: &str, second: &[Outcome]) -> Vec<Finding> {
        let trials: Vec<Trial> = second.iter().map(|o| Trial { hosts: o.run.hosts.clone(), slow: o.slow }).collect();
        let iso = isolate::verdict(&trials);
        iso.stragglers
            .iter()
            .map(|host| {
                let with_good = second.iter().find(|o| o.run.hosts.first() == Some(host));
                let (busbw, partner) =
                    with_good.map_or((None, ""), |o| (o.best, o.run.hosts.get(1).map_or("", String::as_str)));
                let typical = second
                    .iter()
                    .filter(|o| !o.slow)
                    .filter_map(|o| o.best)
                    .fold(None, |m: Option<f64>, b| Some(m.map_or(b, |m| m.max(b))));
                let mut f = Finding::new(
                    "nccl.straggler",
                    Severity::Error,
                    host,
                    format!(
                        "{test}: {host} is slow even next to a known-good host ({partner}): {} GB/s{}",
                        busbw.map_or("no result".into(), |b| format!("{b:.1}")),
                        typical.map_or(String::new(), |t| format!(" where good pairs reach {t:.1} GB/s"))
                    ),
                )
                .expected_actual(
                    typical.map_or("as fast as the other pairs".into(), |t| format!("≈ {t:.1} GB/s")),
                    busbw.map_or("no result".into(), |b| format!("{b:.1} GB/s")),
                );
                f.path = vec![host.clone(), partner.to_string()];
                f.evidence = second.iter().filter(|o| o.run.hosts.contains(host)).map(|o| o.evidence.clone()).collect();
                f
            })
            .collect()
    }
}

/// The median of some bus bandwidths.
fn median(values: impl Iterator<Item = f64>) -> Option<f64> {
    let mut v: Vec<f64> = values.collect();
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied()
}

/// Keeps a spawned run's place in its round.
trait Indexed: std::future::Future + Sized {
    async fn into_future_indexed(self, i: usize) -> (usize, Self::Output) {
        (i, self.await)
    }
}

impl<F: std::future::Future> Indexed for F {}
