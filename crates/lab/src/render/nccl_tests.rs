//! nccl-tests (`all_reduce_perf`, `all_gather_perf`, `alltoall_perf`, `sendrecv_perf`,
//! `reduce_scatter_perf`, `broadcast_perf`) with NCCL's `NCCL_DEBUG` lines, as a job of ranks on
//! lab hosts: what `mpirun`/`srun` (`mpirun.rs`) or a direct run on one host prints.
//!
//! # Format
//! Byte for byte the nccl-tests of the real samples (nccl-tests/moc-h100-roce-2node-1gpu-*.log,
//! NCCL 2.26.2; the 16-rank gcp-a3mega sample for many ranks and small sizes): `# nThread ...`,
//! `# Using devices` and one `#  Rank %2d Group %2d Pid %6d on %10s device %2d [%04x:%02x:%02x] %s`
//! line per rank; the three-line table header; rows
//! `%12li  %12li  %8s  %6s  %6s` then per placement `  %7s  %6.2f  %6.2f  %5s` (time `%7.2f` under
//! 100 µs, `%7.1f` under 10 ms, `%7.0f` above; in-place `#wrong` is `N/A` for sendrecv and
//! alltoall, both are with `-c 0`); `# Out of bounds values : 0 OK`,
//! `# Avg bus bandwidth    : %g ` (the mean busbw of every row and placement), `#` and an empty
//! line. The size and count columns follow nccl-tests' per-collective counts (all_gather,
//! reduce_scatter and alltoall print the per-rank count and round the size to a multiple of
//! ranks × 4 bytes, so small sizes print as 0).
//!
//! NCCL's lines (`host:pid:tid [dev] NCCL INFO ...`, with `NCCL_DEBUG=INFO` in a rank's
//! environment) are a subset in the real log's shape and order: each host's first rank prints
//! its init sequence (bootstrap interface, `NET/IB : Using [0]mlx5_0:1/RoCE ... [RO]; OOB ...` or
//! the socket fallback, `Using network IB`, `NET/IB : GPU Direct RDMA (nvidia-peermem) enabled for
//! HCA 0 'mlx5_0` (sic) when peermem is loaded, `Init START`, ring channels on rank 0,
//! `Init COMPLETE`, `Init timings`), every other rank its `NET/...` line, `Using network` and
//! `Init COMPLETE`; after the table header come the inter-node connections (`Channel 00/0 :
//! 7[7] -> 8[0] [receive] via NET/IB/0/GDRDMA`; `/1 ... /Shared` for sendrecv and alltoall) and
//! `Connected all rings, use ring PXN 0 GDR 1`; after the rows, `Destroy COMPLETE`. `NCCL WARN`
//! lines start with an empty line, as NCCL prints them. `NCCL_DEBUG=WARN` keeps the warnings and a
//! bare `NCCL version` line. The ranks of an `nccl-2.4` host print NCCL 2.4.7's lines instead,
//! their rings at init (see `nccl_log.rs`); the table and the bandwidth are the same.
//!
//! # Performance
//! The large-size bus bandwidth `B` of a run comes from `nccl.rs` (its slowest host; one rail's
//! worth for sendrecv, whose inter-node pairs use one NIC each; NVLink within one host; alltoall
//! scaled by `(n-1)/(G(n-G))/2` for `G` ranks per host). Each size takes
//! `t = min over LL, LL128, Simple of (α_p + F·size/(B·e_p))` µs, with `F` the bus factor
//! (`2(n-1)/n` all_reduce, `(n-1)/n` all_gather, reduce_scatter and alltoall, 1 otherwise),
//! `e_p` = 0.12, 0.55, 1 and `α` = 6 + 1.2(n-1) µs over IB (+6 and +25 for LL128 and Simple),
//! 40 + 6(n-1) over sockets, 5 + 0.4(n-1) in one host: a latency floor, then a climb to `B` from
//! about 64 MB. Hosts losing packets jitter per size; others vary by ±0.3 %.
//!
//! # Time
//! A real 8 B–8 GB sweep on two hosts takes about 20 s (launch, ~2 s of init, warm-up, then per
//! size a sync run, `-n` timed runs and a check run, out-of-place and in-place). The lab computes
//! that time and plays the output out at 1/20 of it, capped at [`MAX_RUN`]: the header after the
//! launch, the init lines after init, each row when its size is done, so the output streams as
//! a real run does. A job with an `nccl-hang` host stops after the connection lines and never
//! exits.

use super::nccl::{self, Debug, Env, HostNccl, LOSSY, LOSSY_JITTER, NVLINK_GBS, debug_level};
use super::nccl_log;
use crate::shell::{Mark, Output};
use crate::state::{LabHost, NcclRelease};
use std::fmt::Write as _;
use std::time::Duration;

/// Real time is played out at this fraction.
const TIME_SCALE: f64 = 1.0 / 20.0;
/// The longest a lab run takes, however slow the simulated one.
pub(crate) const MAX_RUN: Duration = Duration::from_secs(3);

/// Where nccl-tests is installed on the lab's hosts (a program given by path must be in one).
pub(crate) const INSTALL_DIRS: &[&str] = &[
    "/opt/nccl-tests/build",
    "/usr/local/nccl-tests/build",
    "/usr/local/bin",
    "/usr/bin",
    "nccl-tests/build",
    "./nccl-tests/build",
];

/// A collective of nccl-tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Collective {
    AllReduce,
    AllGather,
    AllToAll,
    SendRecv,
    ReduceScatter,
    Broadcast,
}

impl Collective {
    const ALL: [Collective; 6] = [
        Collective::AllReduce,
        Collective::AllGather,
        Collective::AllToAll,
        Collective::SendRecv,
        Collective::ReduceScatter,
        Collective::Broadcast,
    ];

    /// The test a program name or path runs, whether or not it is installed there.
    pub(crate) fn from_program(program: &str) -> Option<Collective> {
        let base = program.rsplit('/').next().unwrap_or(program);
        Collective::ALL.into_iter().find(|c| c.binary() == base)
    }

    /// The binary's name.
    pub(crate) fn binary(self) -> &'static str {
        match self {
            Collective::AllReduce => "all_reduce_perf",
            Collective::AllGather => "all_gather_perf",
            Collective::AllToAll => "alltoall_perf",
            Collective::SendRecv => "sendrecv_perf",
            Collective::ReduceScatter => "reduce_scatter_perf",
            Collective::Broadcast => "broadcast_perf",
        }
    }

    fn redop(self, op: &str) -> String {
        match self {
            Collective::AllReduce | Collective::ReduceScatter | Collective::SendRecv => op.to_string(),
            _ => "none".into(),
        }
    }

    fn root(self, root: i32) -> i32 {
        match self {
            Collective::Broadcast => root,
            _ => -1,
        }
    }

    /// busbw / algbw for `n` ranks.
    fn bus_factor(self, n: u32) -> f64 {
        let n = f64::from(n.max(1));
        match self {
            Collective::AllReduce => 2.0 * (n - 1.0) / n,
            Collective::AllGather | Collective::ReduceScatter | Collective::AllToAll => (n - 1.0) / n,
            Collective::SendRecv | Collective::Broadcast => 1.0,
        }
    }

    /// The operation NCCL logs for each launch (`AllReduce: opCount ...`): nccl-tests runs
    /// sendrecv and alltoall as grouped sends and receives.
    fn nccl_op(self) -> &'static str {
        match self {
            Collective::AllReduce => "AllReduce",
            Collective::AllGather => "AllGather",
            Collective::ReduceScatter => "ReduceScatter",
            Collective::Broadcast => "Broadcast",
            Collective::AllToAll | Collective::SendRecv => "Send",
        }
    }

    /// Point-to-point: connections on `connIndex` 1 with shared buffers.
    pub(super) fn p2p(self) -> bool {
        matches!(self, Collective::SendRecv | Collective::AllToAll)
    }

    /// The size and count columns for a requested size.
    fn columns(self, size: u64, word: u64, n: u64) -> (u64, u64) {
        match self {
            Collective::AllGather | Collective::ReduceScatter | Collective::AllToAll => {
                let count = size / word / n;
                (count * word * n, count)
            }
            _ => {
                let count = size / word;
                (count * word, count)
            }
        }
    }
}

/// Whether `program` names an installed nccl-tests binary.
pub(crate) fn installed(program: &str) -> bool {
    Collective::from_program(program).is_some()
        && match program.rsplit_once('/') {
            None => true,
            Some((dir, _)) => INSTALL_DIRS.contains(&dir),
        }
}

/// nccl-tests' command line.
/// A `-d` data type: its name in the table, its size, and NCCL's `ncclDataType_t` (what the
/// COLL log lines print as `datatype`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct DataType {
    name: &'static str,
    bytes: u64,
    nccl: u32,
}

impl DataType {
    const FLOAT: DataType = DataType { name: "float", bytes: 4, nccl: 7 };
}

#[derive(Debug, Clone, PartialEq)]
struct Args {
    nthreads: u32,
    ngpus: u32,
    min: u64,
    max: u64,
    factor: u64,
    step: u64,
    iters: u32,
    warmup: u32,
    agg: u32,
    check: bool,
    op: String,
    dtype: DataType,
    root: i32,
    graph: u32,
}

impl Default for Args {
    fn default() -> Args {
        Args {
            nthreads: 1,
            ngpus: 1,
            min: 32 << 20,
            max: 32 << 20,
            factor: 1,
            step: 1 << 20,
            iters: 20,
            warmup: 5,
            agg: 1,
            check: true,
            op: "sum".into(),
            dtype: DataType::FLOAT,
            root: 0,
            graph: 0,
        }
    }
}

/// nccl-tests' `parsesize`: a number with an optional K, M or G (powers of 1024).
fn parse_size(s: &str) -> u64 {
    let digits = s.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let n: f64 = digits.parse().unwrap_or(0.0);
    let unit: u64 = match s[digits.len()..].chars().next() {
        Some('G' | 'g') => 1 << 30,
        Some('M' | 'm') => 1 << 20,
        Some('K' | 'k') => 1 << 10,
        _ => 1,
    };
    (n * unit as f64) as u64
}

fn parse_args(args: &[String]) -> Result<Args, String> {
    let mut a = Args::default();
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        let (flag, attached) = if let Some(long) = arg.strip_prefix("--") {
            match long.split_once('=') {
                Some((k, v)) => (format!("--{k}"), Some(v.to_string())),
                None => (arg.to_string(), None),
            }
        } else if arg.len() > 2 && arg.starts_with('-') {
            (arg[..2].to_string(), Some(arg[2..].to_string()))
        } else {
            (arg.to_string(), None)
        };
        let mut value = || -> Result<String, String> {
            match &attached {
                Some(v) => Ok(v.clone()),
                None => {
                    i += 1;
                    args.get(i).cloned().ok_or_else(|| format!("option requires an argument -- '{flag}'"))
                }
            }
        };
        let num = |v: String| v.parse::<i64>().unwrap_or(0).max(0) as u32;
        match flag.as_str() {
            "-t" | "--nthreads" => a.nthreads = num(value()?).max(1),
            "-g" | "--ngpus" => a.ngpus = num(value()?).max(1),
            "-b" | "--minbytes" => a.min = parse_size(&value()?),
            "-e" | "--maxbytes" => a.max = parse_size(&value()?),
            "-i" | "--stepbytes" => a.step = parse_size(&value()?).max(1),
            "-f" | "--stepfactor" => a.factor = u64::from(num(value()?)),
            "-n" | "--iters" => a.iters = num(value()?),
            "-m" | "--agg_iters" => a.agg = num(value()?),
            "-w" | "--warmup_iters" => a.warmup = num(value()?),
            "-c" | "--check" => a.check = num(value()?) != 0,
            "-o" | "--op" => a.op = value()?,
            "-r" | "--root" => a.root = num(value()?) as i32,
            "-G" | "--cudagraph" => a.graph = num(value()?),
            "-d" | "--datatype" => {
                a.dtype = match value()?.as_str() {
                    "double" => DataType { name: "double", bytes: 8, nccl: 8 },
                    "half" => DataType { name: "half", bytes: 2, nccl: 6 },
                    "bfloat16" => DataType { name: "bfloat16", bytes: 2, nccl: 9 },
                    "int8" => DataType { name: "int8", bytes: 1, nccl: 0 },
                    "uint8" => DataType { name: "uint8", bytes: 1, nccl: 1 },
                    "int32" => DataType { name: "int32", bytes: 4, nccl: 2 },
                    "uint32" => DataType { name: "uint32", bytes: 4, nccl: 3 },
                    "int64" => DataType { name: "int64", bytes: 8, nccl: 4 },
                    "uint64" => DataType { name: "uint64", bytes: 8, nccl: 5 },
                    _ => DataType::FLOAT,
                }
            }
            "-p" | "--parallel_init" | "-z" | "--blocking" | "-y" | "--stream_null" | "-T" | "--timeout" | "-C"
            | "--report_cputime" | "-a" | "--average" | "-R" | "--local_register" | "-N" | "--run_cycles" => {
                value()?;
            }
            other => {
                let shown = other.trim_start_matches('-');
                return Err(if other.starts_with("--") {
                    format!("unrecognized option '--{shown}'")
                } else {
                    format!("invalid option -- '{shown}'")
                });
            }
        }
        i += 1;
    }
    Ok(a)
}

impl Args {
    fn sizes(&self) -> Vec<u64> {
        let mut out = Vec::new();
        let mut size = self.min;
        while size <= self.max && out.len() < 4096 {
            out.push(size);
            size = if self.factor > 1 { size.saturating_mul(self.factor) } else { size.saturating_add(self.step) };
            if size == 0 {
                break;
            }
        }
        out
    }

    fn header(&self) -> String {
        let step = if self.factor > 1 { format!("{}(factor)", self.factor) } else { format!("{}(bytes)", self.step) };
        format!(
            "# nThread {} nGpus {} minBytes {} maxBytes {} step: {step} warmup iters: {} iters: {} agg iters: {} validation: {} graph: {}\n#\n# Using devices\n",
            self.nthreads,
            self.ngpus,
            self.min,
            self.max,
            self.warmup,
            self.iters,
            self.agg,
            u8::from(self.check),
            self.graph
        )
    }
}

/// One host's share of a job.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Node {
    /// Index of the host in the lab.
    pub host: usize,
    /// Processes started on it.
    pub procs: u32,
    /// The environment of those processes.
    pub env: Env,
}

/// A job: the nccl-tests binary started as `nodes` processes.
pub(crate) struct Job<'a> {
    pub hosts: &'a [LabHost],
    pub nodes: Vec<Node>,
    pub program: &'a str,
    pub args: &'a [String],
    pub elapsed: Duration,
}

/// The first process that exited non-zero, for the launcher's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Failure {
    /// Index into the job's nodes.
    pub node: usize,
    /// Its MPI rank (process index).
    pub proc: u32,
    /// Its exit status.
    pub code: u32,
}

/// What a job printed (stdout with its timing), and whether a process failed.
pub(crate) struct Run {
    pub out: Output,
    pub failure: Option<Failure>,
}

/// Output and the real time each part of it appears at, converted into [`Output::marks`].
pub(super) struct Script {
    pub(super) out: String,
    now: f64,
    marks: Vec<(f64, usize)>,
}

impl Script {
    fn new() -> Script {
        Script { out: String::new(), now: 0.0, marks: Vec::new() }
    }

    /// Real time passes.
    pub(super) fn wait(&mut self, seconds: f64) {
        if self.marks.last().is_none_or(|m| m.1 != self.out.len()) {
            self.marks.push((self.now, self.out.len()));
        }
        self.now += seconds.max(0.0);
    }

    fn finish(mut self, stderr: String, status: u32, hangs: bool) -> Output {
        self.marks.push((self.now, self.out.len()));
        let scale = TIME_SCALE.min(MAX_RUN.as_secs_f64() / self.now.max(1e-9));
        let last = self.marks.len() - 1;
        let marks = self
            .marks
            .iter()
            .enumerate()
            .map(|(i, (t, len))| Mark {
                at: Duration::from_secs_f64(t * scale),
                stdout: *len,
                stderr: if i == last { stderr.len() } else { 0 },
            })
            .collect();
        Output { stdout: self.out, stderr, status, marks, hangs, ..Output::default() }
    }
}

/// SplitMix64: the lab's deterministic noise.
struct Noise(u64);

impl Noise {
    fn new(seed: &str, elapsed: Duration) -> Noise {
        let h = seed.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
        Noise(h ^ elapsed.as_millis() as u64)
    }

    /// Uniform in [0, 1).
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }

    /// 64 random bits.
    fn bits(&mut self) -> u64 {
        let hi = (self.next() * (1u64 << 32) as f64) as u64;
        let lo = (self.next() * (1u64 << 32) as f64) as u64;
        hi << 32 | lo
    }
}

/// The first process id of a job on `host`: different per host and per moment, as real ones are.
fn pid_base(host: &LabHost, elapsed: Duration) -> u32 {
    let mut n = Noise::new(&host.name, elapsed);
    100_000 + (n.bits() % 800_000) as u32
}

/// One rank of the job.
pub(super) struct Rank {
    pub(super) rank: u32,
    pub(super) node: usize,
    /// Index of its process on its host.
    proc: u32,
    /// GPU (cudaDev).
    pub(super) dev: u32,
    pub(super) pid: u32,
    pub(super) comm: u64,
}

/// The job's layout and what NCCL makes of each node.
pub(super) struct Layout<'a> {
    pub(super) job: &'a Job<'a>,
    pub(super) coll: Collective,
    args: Args,
    pub(super) ranks: Vec<Rank>,
    /// First rank and rank count of each node.
    pub(super) spans: Vec<(u32, u32)>,
    pub(super) views: Vec<HostNccl>,
    pub(super) debug: Vec<Debug>,
    pub(super) comm_id: u64,
}

impl Layout<'_> {
    pub(super) fn host(&self, node: usize) -> &LabHost {
        &self.job.hosts[self.job.nodes[node].host]
    }

    pub(super) fn n(&self) -> u32 {
        self.ranks.len() as u32
    }

    /// `gpu001:12345:12369 [0] NCCL INFO ` for `rank`, on its init thread when `init`.
    pub(super) fn prefix(&self, rank: &Rank, tid_offset: u32) -> String {
        format!("{}:{}:{} [{}] NCCL INFO ", self.host(rank.node).name, rank.pid, rank.pid + tid_offset, rank.dev)
    }

    pub(super) fn warn(&self, rank: &Rank, tid_offset: u32, place: &str, text: &str) -> String {
        format!(
            "\n{}:{}:{} [{}] {place} NCCL WARN {text}\n",
            self.host(rank.node).name,
            rank.pid,
            rank.pid + tid_offset,
            rank.dev
        )
    }

    pub(super) fn info(&self, node: usize) -> bool {
        self.debug[node] >= Debug::Info
    }

    pub(super) fn bus_id(&self, rank: &Rank) -> String {
        format!("{:x}000", nccl::gpu_bus(rank.dev))
    }

    pub(super) fn first_rank_of(&self, node: usize) -> &Rank {
        &self.ranks[self.spans[node].0 as usize]
    }
}

/// Places the ranks and asks `nccl.rs` what each node gets.
fn layout<'a>(job: &'a Job<'a>, coll: Collective, args: Args, first_pid: u32) -> Layout<'a> {
    let mut noise = Noise::new(job.program, job.elapsed);
    let per_proc = args.nthreads * args.ngpus;
    let mut ranks = Vec::new();
    let mut spans = Vec::new();
    for (k, node) in job.nodes.iter().enumerate() {
        let host = &job.hosts[node.host];
        let base = pid_base(host, job.elapsed) + first_pid;
        spans.push((ranks.len() as u32, node.procs * per_proc));
        for p in 0..node.procs {
            for i in 0..per_proc {
                ranks.push(Rank {
                    rank: ranks.len() as u32,
                    node: k,
                    proc: p,
                    dev: p * per_proc + i,
                    pid: base + p,
                    comm: 0x5600_0000_0000 + ((noise.bits() & 0xffff_ffff) << 4),
                });
            }
        }
    }
    let views = job.nodes.iter().map(|n| nccl::host_view(&job.hosts[n.host], &n.env)).collect();
    let debug = job.nodes.iter().map(|n| debug_level(&n.env)).collect();
    Layout { job, coll, args, ranks, spans, views, debug, comm_id: noise.bits() }
}

/// Runs a job.
pub(crate) fn run(job: &Job) -> Run {
    let processes: u32 = job.nodes.iter().map(|n| n.procs).sum();
    if processes > 1 && job.nodes.iter().any(|n| job.hosts[n.host].nccl.tests_without_mpi) {
        return separate_processes(job);
    }
    run_processes(job, 0)
}

/// nccl-tests built without MPI (the `nccl-no-mpi` fault on any host of the job: the binary is
/// the cluster's shared one) under a launcher: every process is a run of its own, rank 0 of one
/// on its host's GPU 0, as nccl-tests#281 shows (nccl-tests/h100-2node-nonmpi-*.txt), and the
/// launcher passes on what they print as they print it.
fn separate_processes(job: &Job) -> Run {
    let mut outputs = Vec::new();
    let mut failure = None;
    let mut index = 0;
    for (k, node) in job.nodes.iter().enumerate() {
        for p in 0..node.procs {
            let alone = Job { nodes: vec![Node { procs: 1, ..node.clone() }], ..*job };
            let run = run_processes(&alone, p);
            if let (None, Some(f)) = (&failure, run.failure) {
                failure = Some(Failure { node: k, proc: index, code: f.code });
            }
            outputs.push(run.out);
            index += 1;
        }
    }
    Run { out: interleave(outputs), failure }
}

/// What processes running side by side print, each part at the time its process printed it.
fn interleave(outputs: Vec<Output>) -> Output {
    let mut parts: Vec<(Duration, &str)> = Vec::new();
    for out in &outputs {
        let mut from = 0;
        let ends = out
            .marks
            .iter()
            .map(|m| (m.at, m.stdout))
            .chain([(out.marks.last().map_or(Duration::ZERO, |m| m.at), out.stdout.len())]);
        for (at, to) in ends {
            if to > from {
                parts.push((at, &out.stdout[from..to]));
                from = to;
            }
        }
    }
    // Stable: of parts printed at the same moment, the earlier process's first.
    parts.sort_by_key(|(at, _)| *at);
    let mut merged = Output::ok(String::new());
    for (at, text) in parts {
        merged.stdout.push_str(text);
        merged.marks.push(Mark { at, stdout: merged.stdout.len(), stderr: 0 });
    }
    merged.stderr = outputs.iter().map(|o| o.stderr.as_str()).collect();
    merged.status = outputs.iter().map(|o| o.status).find(|s| *s != 0).unwrap_or(0);
    merged.hangs = outputs.iter().any(|o| o.hangs);
    if let Some(last) = merged.marks.last_mut() {
        last.stderr = merged.stderr.len();
    }
    merged
}

/// Runs a job whose processes' ids start `first_pid` after their host's first.
fn run_processes(job: &Job, first_pid: u32) -> Run {
    let coll = Collective::from_program(job.program).unwrap_or(Collective::AllReduce);
    let name = coll.binary();
    let args = match parse_args(job.args) {
        Ok(a) => a,
        Err(e) => {
            // getopt's complaint, from every process; the first one's exit ends the job.
            let mut s = Script::new();
            s.wait(0.5);
            let out = format!("{name}: {e}\n");
            return Run { out: s.finish(out, 1, false), failure: Some(Failure { node: 0, proc: 0, code: 1 }) };
        }
    };
    let l = layout(job, coll, args, first_pid);
    let mut s = Script::new();
    s.wait(0.8 + 0.01 * job.nodes.len() as f64);
    s.out.push_str(&l.args.header());

    // A process asked for a GPU its host does not have: cudaSetDevice fails before the device
    // report, so rank 0 has printed only the first lines.
    if let Some(bad) = l.ranks.iter().find(|r| r.dev >= l.host(r.node).gpus) {
        let host = &l.host(bad.node).name;
        let _ = write!(
            s.out,
            "{host}: Test CUDA failure common.cu:892 'invalid device ordinal'\n .. {host} pid {}: Test failure common.cu:1008\n",
            bad.pid
        );
        return failed(s, &l, bad, 2);
    }
    for r in &l.ranks {
        let host = l.host(r.node);
        let _ = writeln!(
            s.out,
            "#  Rank {:2} Group {:2} Pid {:6} on {:>10} device {:2} [0000:{:02x}:00] {}",
            r.rank,
            0,
            r.pid,
            host.name,
            r.dev,
            nccl::gpu_bus(r.dev),
            nccl::GPU_NAME
        );
    }
    s.wait(1.5 + 0.02 * f64::from(l.n()));
    if let Some(bad) = nccl_log::init_lines(&mut s, &l) {
        return failed(s, &l, bad, 3);
    }
    s.out.push_str(TABLE_HEADER);
    s.wait(0.3);
    nccl_log::connect_lines(&mut s, &l);
    let hung = l.job.nodes.iter().any(|n| l.job.hosts[n.host].nccl.hangs);
    if hung {
        return Run { out: s.finish(String::new(), 0, true), failure: None };
    }
    let avg = rows(&mut s, &l);
    for (k, _) in l.job.nodes.iter().enumerate() {
        // No published NCCL 2.4 log shows its destroy line.
        if l.info(k) && l.views[k].release == NcclRelease::V2_26 {
            let r = l.first_rank_of(k);
            let _ = writeln!(
                s.out,
                "{}comm {:#x} rank {} nranks {} cudaDev {} busId {} - Destroy COMPLETE",
                l.prefix(r, 31),
                r.comm,
                r.rank,
                l.n(),
                r.dev,
                l.bus_id(r)
            );
        }
    }
    let _ = write!(s.out, "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : {} \n#\n\n", fmt_g(avg));
    s.wait(0.2);
    Run { out: s.finish(String::new(), 0, false), failure: None }
}

fn failed(s: Script, l: &Layout, bad: &Rank, code: u32) -> Run {
    let failure =
        Failure { node: bad.node, proc: l.spans[bad.node].0 / (l.args.nthreads * l.args.ngpus) + bad.proc, code };
    Run { out: s.finish(String::new(), code, false), failure: Some(failure) }
}

const TABLE_HEADER: &str = "#\n#                                                              out-of-place                       in-place          \n#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       \n";

/// The large-size bus bandwidth of the job for one row and placement, with per-host noise.
fn bandwidth(l: &Layout, noise: &mut Noise) -> f64 {
    let n = l.n();
    let nodes = l.spans.len();
    let intra = l.views.iter().map(|v| v.intra_gbs).fold(NVLINK_GBS, f64::min);
    if nodes < 2 {
        return intra * (1.0 + 0.006 * (noise.next() - 0.5));
    }
    let views: Vec<&HostNccl> = l.views.iter().collect();
    let fabric = nccl::fabric(&views);
    let mut net = f64::INFINITY;
    let mut rail = f64::INFINITY;
    for v in &l.views {
        let (gbs, rails) = v.gbs(fabric);
        let f = if v.lossy() {
            LOSSY * (1.0 + LOSSY_JITTER * (noise.next() - 0.5))
        } else {
            1.0 + 0.006 * (noise.next() - 0.5)
        };
        net = net.min(gbs * f);
        rail = rail.min(gbs * f / rails as f64);
    }
    let g = l.spans.iter().map(|s| s.1).max().unwrap_or(1);
    let b = match l.coll {
        Collective::SendRecv => rail,
        Collective::AllToAll if g > 1 => net * f64::from(n - 1) / f64::from(g * (n - g).max(1)) / 2.0,
        _ => net,
    };
    // A ring crosses every host's GPUs: a host whose GPUs talk over PCIe holds the job to that.
    b.min(intra)
}

/// Time of one collective of `size` bytes (µs) at bus bandwidth `b` GB/s, its latency varying
/// by `jitter` (relative).
fn time_us(l: &Layout, size: u64, b: f64, jitter: f64) -> f64 {
    let n = f64::from(l.n());
    let f = l.coll.bus_factor(l.n()).max(1e-9);
    let base = if l.spans.len() < 2 {
        5.0 + 0.4 * (n - 1.0)
    } else if l.views.iter().any(|v| v.net_name() == "Socket") {
        40.0 + 6.0 * (n - 1.0)
    } else {
        6.0 + 1.2 * (n - 1.0)
    } * (1.0 + jitter);
    let bytes = size as f64 * f / 1e3; // bytes moved per rank, in units for GB/s → µs
    [(0.0, 0.12), (6.0, 0.55), (25.0, 1.0)]
        .iter()
        .map(|(extra, eff)| base + extra + bytes / (b * eff))
        .fold(f64::INFINITY, f64::min)
}

/// What one rank alone takes per size (µs): out of place, a copy within its GPU's memory (about
/// 3 µs, then [`ALONE_COPY_GBS`]); in place, nothing to move but for sendrecv and alltoall, which
/// copy to themselves (a published one-GPU run, nccl-tests/rtx5090-1gpu-*-inplace-*.txt: 0.10
/// µs in place, algbw up to `1e+06` GB/s).
fn alone_us(l: &Layout, size: u64, in_place: bool, jitter: f64) -> f64 {
    if in_place && !l.coll.p2p() {
        return 0.10 * (1.0 + jitter);
    }
    2.8 * (1.0 + jitter) + size as f64 / ALONE_COPY_GBS / 1e3
}

/// The rate of a copy within one H100's memory as nccl-tests counts it (bytes over time).
const ALONE_COPY_GBS: f64 = 1400.0;

/// The table rows; returns the average bus bandwidth.
fn rows(s: &mut Script, l: &Layout) -> f64 {
    let mut noise = Noise::new(&format!("{}{:?}", l.job.program, l.args), l.job.elapsed);
    let n = l.n();
    let word = l.args.dtype.bytes;
    let sizes = l.args.sizes();
    let runs = 1 + l.args.iters + u32::from(l.args.check);
    if let Some(&max) = sizes.last() {
        let b = bandwidth(l, &mut noise);
        let t = time_us(l, l.coll.columns(max, word, u64::from(n)).0, b, 0.0);
        s.wait(2.0 * f64::from(l.args.warmup) * t / 1e6);
    }
    let (mut sum, mut count) = (0.0, 0u32);
    // NCCL 2.4's launch lines are in no published log: an `nccl-2.4` host's process prints none.
    let log_launches = nccl::logs_collectives(&l.job.nodes[0].env) && l.views[0].release == NcclRelease::V2_26;
    for size in sizes {
        let (shown, elems) = l.coll.columns(size, word, u64::from(n));
        let _ = write!(
            s.out,
            "{shown:12}  {elems:12}  {:>8}  {:>6}  {:6}",
            l.args.dtype.name,
            l.coll.redop(&l.args.op),
            l.coll.root(l.args.root)
        );
        let mut row_time = 0.0;
        for in_place in [false, true] {
            // The launch, logged by the table's own process while its row is half printed.
            if log_launches {
                s.out.push_str(&launch_lines(l, elems, in_place));
            }
            let b = bandwidth(l, &mut noise);
            let jitter = 0.05 * (noise.next() - 0.5);
            let t = if n == 1 { alone_us(l, shown, in_place, jitter) } else { time_us(l, shown, b, jitter) };
            let algbw = shown as f64 / t / 1e3;
            let busbw = algbw * l.coll.bus_factor(n);
            sum += busbw;
            count += 1;
            row_time += t * f64::from(runs);
            let wrong = if !l.args.check || (in_place && l.coll.p2p()) { "N/A" } else { "0" };
            let _ = write!(s.out, "  {}  {algbw:6.2}  {busbw:6.2}  {wrong:>5}", fmt_time(t));
        }
        s.out.push('\n');
        s.wait(row_time / 1e6);
    }
    if count == 0 { 0.0 } else { sum / f64::from(count) }
}

/// NCCL's COLL lines for one launch by each rank of the process that prints the table, as NCCL
/// 2.27 prints them (nccl-tests/a100pcie-1node-2gpu-*-trace-*.log): `host:pid:pid [dev] NCCL INFO
/// AllReduce: opCount 0 sendbuff 0x720000000 recvbuff 0x920000000 count 2097152 datatype 7 op 0
/// root 0 comm 0x55b6aa64a990 [nranks=2] stream 0x55b6a98daaf0`; an in-place launch sends from
/// its receive buffer.
fn launch_lines(l: &Layout, count: u64, in_place: bool) -> String {
    let op = match l.args.op.as_str() {
        "prod" => 1,
        "max" => 2,
        "min" => 3,
        "avg" => 4,
        _ => 0,
    };
    let mine: Vec<&Rank> = l.ranks.iter().filter(|r| r.node == 0 && r.proc == 0).collect();
    // The thread logs under the device it set last, whichever rank's launch it logs.
    let Some(current) = mine.last() else { return String::new() };
    let mut out = String::new();
    for rank in &mine {
        let recv = 0x9_2000_0000 + u64::from(rank.dev) * 0x6_0000_0000;
        let send = if in_place { recv } else { recv - 0x2_0000_0000 };
        let _ = writeln!(
            out,
            "{}{}: opCount 0 sendbuff 0x{send:x} recvbuff 0x{recv:x} count {count} datatype {} op {op} root {} \
             comm 0x{:x} [nranks={}] stream 0x{:x}",
            l.prefix(current, 0),
            l.coll.nccl_op(),
            l.args.dtype.nccl,
            l.args.root.max(0),
            rank.comm,
            l.n(),
            rank.comm ^ 0x1_0000_0000
        );
    }
    out
}

/// nccl-tests' time column: `%7.2f` under 100 µs, `%7.1f` under 10 ms, `%7.0f` above.
fn fmt_time(us: f64) -> String {
    if us >= 10_000.0 {
        format!("{us:7.0}")
    } else if us >= 100.0 {
        format!("{us:7.1}")
    } else {
        format!("{us:7.2}")
    }
}

/// C's `%g`: six significant digits, trailing zeros dropped.
fn fmt_g(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return "0".into();
    }
    let sci = format!("{v:.5e}");
    let exp: i32 = sci.split_once('e').and_then(|(_, e)| e.parse().ok()).unwrap_or(0);
    let trim = |s: String| -> String {
        if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s }
    };
    if !(-4..6).contains(&exp) {
        let (m, _) = sci.split_once('e').unwrap_or((&sci, ""));
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(m.to_string()), exp.abs())
    } else {
        trim(format!("{v:.*}", (5 - exp) as usize))
    }
}

/// A test binary run directly on `hosts[me]`: one process driving `-g` GPUs.
pub(crate) fn render_local(
    hosts: &[LabHost],
    me: usize,
    env: &Env,
    program: &str,
    args: &[String],
    elapsed: Duration,
) -> Output {
    if !installed(program) {
        return Output::fail(
            127,
            "",
            if program.contains('/') {
                format!("bash: {program}: No such file or directory\n")
            } else {
                format!("bash: {program}: command not found\n")
            },
        );
    }
    let job = Job { hosts, nodes: vec![Node { host: me, procs: 1, env: env.clone() }], program, args, elapsed };
    let run = run(&job);
    let mut out = run.out;
    if let Some(f) = run.failure {
        out.status = f.code;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::healthy_host;

    #[test]
    fn formats_follow_nccl_tests() {
        assert_eq!(fmt_g(15.041_834), "15.0418");
        assert_eq!(fmt_g(70.742), "70.742");
        assert_eq!(fmt_g(0.000_012_345_67), "1.23457e-05");
        assert_eq!(fmt_g(92.0), "92");
        assert_eq!(fmt_g(999_999.7), "1e+06");
        assert_eq!(fmt_time(71_024.3), "  71024");
        assert_eq!(fmt_time(1_059.94), " 1059.9");
        assert_eq!(fmt_time(45.912), "  45.91");
        assert_eq!(parse_size("8G"), 8 << 30);
        assert_eq!(parse_size("128K"), 128 << 10);
        assert_eq!(parse_size("8"), 8);
    }

    #[test]
    fn arguments_and_sizes() {
        let args: Vec<String> = "-b 8 -e 8G -f 2 -g 1 -n 20 -w 5 -c 1".split(' ').map(String::from).collect();
        let a = parse_args(&args).unwrap();
        assert_eq!(a.sizes().len(), 31);
        assert_eq!(
            a.header().lines().next().unwrap(),
            "# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0"
        );
        let a = parse_args(&["-b1G".into(), "--maxbytes=2G".into(), "-i".into(), "1G".into()]).unwrap();
        assert_eq!(a.sizes(), [1 << 30, 2 << 30]);
        assert_eq!(parse_args(&["-q".into()]).unwrap_err(), "invalid option -- 'q'");
        assert_eq!(Collective::AllGather.columns(8, 4, 16), (0, 0));
        assert_eq!(Collective::AllToAll.columns(8 << 30, 4, 16), (8 << 30, 134_217_728));
    }

    #[test]
    fn install_paths() {
        assert!(installed("all_reduce_perf"));
        assert!(installed("/opt/nccl-tests/build/sendrecv_perf"));
        assert!(!installed("/tmp/all_reduce_perf"));
        assert!(!installed("gather_perf"));
    }

    #[test]
    fn a_direct_run_uses_nvlink() {
        let hosts = vec![healthy_host(0)];
        let args: Vec<String> = "-b 1G -e 1G -g 8".split(' ').map(String::from).collect();
        let out = render_local(&hosts, 0, &Env::new(), "all_reduce_perf", &args, Duration::ZERO);
        assert_eq!(out.status, 0, "{}", out.stdout);
        assert!(out.stdout.contains("#  Rank  7 Group  0 Pid"), "{}", out.stdout);
        let row = out.stdout.lines().find(|l| l.starts_with("  1073741824")).unwrap();
        let busbw: f64 = row.split_whitespace().nth(7).unwrap().parse().unwrap();
        assert!((300.0..NVLINK_GBS).contains(&busbw), "{row}");
        let out = render_local(&hosts, 0, &Env::new(), "all_reduce_perf", &["-g".into(), "9".into()], Duration::ZERO);
        assert_eq!(out.status, 2);
        assert!(out.stdout.contains("gpu001: Test CUDA failure common.cu:892 'invalid device ordinal'"));
    }
}
