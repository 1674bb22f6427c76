//! nccl-tests output (`all_reduce_perf`, `all_gather_perf`, `alltoall_perf`, `sendrecv_perf` ...
//! run through `mpirun`/`srun`), with the NCCL log lines `NCCL_DEBUG=INFO|WARN` mixes into it.
//!
//! # The format, as nccl-tests prints it
//!
//! Current nccl-tests (`src/util.cu`; older versions lack the first two lines and `unalign`):
//!
//! ```text
//! # nccl-tests version 2.17.6 nccl-headers=22803 nccl-library=22803
//! # Collective test starting: all_reduce_perf
//! # nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0
//! #
//! # Using devices
//! #  Rank  0 Group  0 Pid   6899 on ztan-mig-235z device  0 [0000:04:00] NVIDIA H100 80GB HBM3
//! #
//! #                                                              out-of-place                       in-place
//! #       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
//! #        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
//!            8             2     float     sum      -1    135.8    0.00    0.00      0    123.5    0.00    0.00      0
//! # Out of bounds values : 0 OK
//! # Avg bus bandwidth    : 70.742
//! #
//! # Collective test concluded: all_reduce_perf
//! ```
//!
//! Variants, all read:
//! - **Old table** (nccl-tests before `#wrong`, e.g. the one built with NCCL 2.9): no `Group` in
//!   rank lines (`#   Rank  0 Pid  14926 on v100-gpu-1 device  0 [0x00] Tesla V100-PCIE-16GB`,
//!   bus id `[0x1a]`), `redop` only for reductions and `root` only for rooted collectives
//!   (broadcast: `size count type root`), and an `error` column (the largest relative error,
//!   `0e+00`, with `*` when over the bound: [`Measure::max_error`]) instead of `#wrong`; `N/A` in
//!   it when run with `-c 0` (`validation: 0`).
//! - Lines without their `#` (the header `nThread ...`, the column header and the footer), as
//!   nccl-tests before 2019 printed some and as dstack's documentation shows them all.
//! - `N/A` in the in-place `#wrong` of sendrecv/alltoall (nothing is checked in place): `None`.
//! - `cputime` instead of `time` (CPU time reporting); a trailing `timestamp` column
//!   (`2025-06-01 12:00:00`, two fields); per-iteration columns `i_min i_max i_p99 i_cv%` after
//!   each `#wrong` (per-iteration timing), under a first line `out-of-place (+ per-iteration)`;
//!   a row with the out-of-place group left blank (trace replay) has an all-`None` out-of-place
//!   [`Measure`]. `#wrong` is `%6g` (`1e+06` for a million) and times are `1.2e+05` when wide.
//! - Footer: `# Avg bus bandwidth : 70.742 OK|FAILED` when an expected average was given (`%g`:
//!   `nan` reads as `None`); `# Out of bounds values : 3 FAILED`; `# error: ...` after a failure;
//!   `# GPU memory usage ...`, `# Writing JSON output to ...`, `# Blocking Enabled ...`,
//!   `# Parallel Init Enabled ...` and `# Per-Iteration Report ...` lines are recognised and
//!   ignored.
//! - The launch command echoed before the output (`$ mpirun ... -x NCCL_IB_HCA=mlx5_0
//!   ./build/broadcast_perf -b 8 ...`): `command`, `test` from the `*_perf` binary, and
//!   `-x NCCL_*=value` into `env` when NCCL itself did not report the variable.
//! - Launcher prefixes `[1,0]<stdout>:` (`mpirun --tag-output`) and `0: ` (`srun -l`) are dropped,
//!   and so is the notice of `mpirun`'s ssh that it added a node's host key.
//! - nccl-tests' own failure lines: `host: Test NCCL failure common.cu:1005 'unhandled system
//!   error / ...'`, ` .. host pid 123: Test failure common.cu:1065`, `Test CUDA failure`,
//!   `Test timeout` become [`NcclError`]s.
//!
//! Columns are always taken from the column-name header line, never by position; a row before
//! any header (a capture cut above it) is read by field count (13: today's format; 12: old with
//! `root` or `redop`; 11: old with neither), with one warning.
//!
//! # NCCL log lines (`host:pid:tid [dev] NCCL INFO ...`, `host:pid:tid [dev] file.cc:123 NCCL WARN ...`)
//!
//! - `NCCL version 2.26.2+cuda12.2` (bare, or as an INFO message): `nccl_version` (else it is
//!   derived from `nccl-library=22803` of the first header line).
//! - `NCCL_IB_HCA set by environment to mlx5_0`, `NCCL_IB_HCA set to mlx5_0`,
//!   `NCCL_IB_GID_INDEX set by environment to 3.`: `env` (the integer's `.` dropped).
//! - `NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/IB/SHARP [RO]; OOB eth0:10.0.0.1<0>`: `hcas`
//!   (`mlx5_0:1`, first seen order, once each), their link layers, `sharp`, `oob_interface`;
//!   `Bootstrap : Using eth0:10.0.0.1<0>` gives `oob_interface` when no NET/IB line does.
//! - `NET/Socket : Using [0]eth0:10.0.0.1<0>`: `socket_interfaces`.
//! - `Using network IB|IBext_v8|Socket|...`: `network`.
//! - NCCL up to 2.3: log lines whose marker is a bare `INFO`/`WARN` (up to 2.2), `NET : Using
//!   interface eth0:10.0.0.1<0>` (one per socket interface: `socket_interfaces`, no transport
//!   evidence, since the bootstrap of IB runs prints it too), `NET/IB : Using interface eth0 for
//!   sideband communication` (`oob_interface`), `NET/IB: [0] mlx4_0:1/IB` (`hcas`) and `Using
//!   internal Network IB|Socket` (`network`).
//! - `Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0/GDRDMA` (`/Shared`, `(1)` for PXN).
//! - `Connected all rings, use ring PXN 0 GDR 1`; `GPU Direct RDMA Enabled for GPU 1b000 / HCA 0
//!   (distance 4 <= 5), read 1`; `NET/IB : GPU Direct RDMA (nvidia-peermem) enabled for HCA 0
//!   'mlx5_0'`, `NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)`.
//! - Every WARN line is an [`NcclError`]; `Got completion from peer` ones also give status,
//!   opcode, vendor error and HCA (four spellings, see `debug_log::completion`).
//! - A row cut into pieces by log lines: nccl-tests prints a row as its parameters, then each
//!   placement's results, and NCCL logs from the same process between them
//!   (`NCCL_DEBUG_SUBSYS=COLL` at every launch), glued to the piece's last number: `... sum
//!   -1gpu1:12:34 [1] NCCL INFO AllReduce: opCount ...`. The pieces are gathered until the row
//!   has the header's fields, the host split off the glued word (see
//!   `debug_log::DebugLine::spliced_after`); a row whose pieces stop coming is warned about.
//! - `Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read` (`via SHM/...`): a channel within one host.
//! - `Enabled NCCL Func/Proto/Algo Matrix:` is followed by table lines without a prefix
//!   (`    Broadcast |   1   2   1 | ...`): recognised as part of the INFO output.
//! - Every other INFO/TRACE line is recognised, not used, and counted in `info_lines_ignored`.
//!
//! # How `transport` and `gdr` are decided
//!
//! `transport` (`IB`, `RoCE` or `Socket`) comes from the strongest evidence present: `Using
//! network X`, then the network of the NET channels, then `NET/IB : Using`, then `NET/Socket :
//! Using` (NCCL 2.4 to 2.6 list socket interfaces on IB runs too), then a `Got completion` WARN
//! from NET/IB, then inference (`NCCL WARN Failed to open
//! libibverbs.so`, `NET/IB : No device found`, `NCCL_IB_DISABLE=1`: NCCL falls back to sockets).
//! An IB-family network (`IB`, `IBext_v*`) is `RoCE` when an HCA of the NET/IB line is `/RoCE`
//! (or, without that line, when a completion error prints a `localGid`: NCCL prints GIDs only
//! on an Ethernet link layer), `IB` otherwise; old completion errors (`with error 4, ...`) print
//! no GID and read as `IB`. Another network (`AWS Libfabric`, TCPX) leaves `transport` `None`
//! with `network` set. `transport_evidence` quotes the deciding line (for an IB-family network,
//! `Using network IB + NET/IB : Using [0]mlx5_5:1/RoCE ...`: the choice, then the link layer).
//!
//! `gdr` (GPUDirect RDMA used by the network transport): the `GDR n` of `Connected all rings`
//! lines when printed and the transport is not `Socket` (NCCL ANDs every rank's flag, so any
//! `GDR 0` is `false`; over sockets the flag is about no network transfer); else `true` when
//! a NET channel is `/GDRDMA` or a path says `GPU Direct RDMA Enabled for GPU`, `false` when NET
//! channels exist without `/GDRDMA` (`via NET/IB/1`, `via NET/IB/1/Shared`) or a path says
//! `Disabled for GPU`; else `false` when the adapter says `Disabled for HCA` (no peermem); else
//! `None` (e.g. a log cut before the channels are connected, a socket run, or a run whose
//! channels are all within one host: `via P2P`, `via SHM`). GDR used on the
//! receive side only (`[receive] ... /GDRDMA`, `[send]` without: GDR read off) counts as used.
//! Each host's own `gdr_receive` says the same of its `[receive]` channels, so a host without
//! GPUDirect RDMA among hosts with it is seen though the run's `gdr` is `true`.
//! `gdr_capable` is the adapter's side (`(nvidia-peermem) enabled for HCA`, `(DMABUF) enabled`,
//! `Disabled for HCA ... (no module)`), which does not mean NCCL chose to use it.
//!
//! A last line without a line end (a cut capture) is kept when it is readable, with a warning
//! that the output may be cut there, and skipped with a warning otherwise.
use super::debug_log::{self, GdrLine, Level};
use super::table::{Layout, is_number};
use crate::lines::{clip, cut_line_skipped, cut_off, no_facts, numbered, unrecognised_clipped};
use crate::{ParseResult, ParseWarning, Parsed};
use regex::Regex;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

/// Everything one nccl-tests run printed.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct NcclRun {
    /// The test binary: `all_reduce_perf` (`# Collective test starting:`, else the `*_perf`
    /// word of an echoed launch command).
    pub test: Option<String>,
    /// `# nccl-tests version 2.17.6 ...`.
    pub nccl_tests_version: Option<String>,
    /// `NCCL version 2.26.2+cuda12.2` as printed (after `NCCL version `).
    pub nccl_version: Option<String>,
    /// The launch command echoed before the output, from the launcher or binary on.
    pub command: Option<String>,
    /// The `# nThread ...` line.
    pub params: Option<Params>,
    /// `#  Rank ...` lines.
    pub ranks: Vec<Rank>,
    /// Table rows in output order.
    pub rows: Vec<Row>,
    /// `# Avg bus bandwidth : X` in GB/s (the last one printed).
    pub avg_busbw_gbs: Option<f64>,
    /// `# Out of bounds values : N`: how many measures had wrong results (summed when one output
    /// holds several runs).
    pub out_of_bounds: Option<u64>,
    /// Wrong results: the sum of the `#wrong` columns (elements), at least `out_of_bounds` and
    /// the old format's `*`-flagged measures; zero or not is what to rely on. `None` when nothing
    /// was checked, so a wrong value would have gone unseen: the header says `validation: 0`
    /// (`-c 0`; some builds then print `0` in `#wrong` all the same), or, without that header,
    /// every `#wrong` (or old `error`) is `N/A` and nothing counted as out of bounds
    /// (nccl-tests prints `Out of bounds values : 0 OK` whether it checked or not).
    pub wrong: Option<u64>,
    /// `IB`, `RoCE` or `Socket` (see the module doc for how it is decided).
    pub transport: Option<String>,
    /// The line (message) `transport` was decided from.
    pub transport_evidence: Option<String>,
    /// The network module: `Using network X`, else the one of the NET channels (`IB`,
    /// `IBext_v6`, `Socket`, `AWS Libfabric` ...).
    pub network: Option<String>,
    /// HCA ports of `NET/IB : Using` (`mlx5_0:1`), first seen order, once each.
    pub hcas: Vec<String>,
    /// Whether an HCA was listed `/IB/SHARP` (the SHARP plugin).
    pub sharp: bool,
    /// The out-of-band (socket) interface NCCL bootstraps on: `OOB eth0:...` of `NET/IB :
    /// Using`, else `Bootstrap : Using eth0:...`.
    pub oob_interface: Option<String>,
    /// Interfaces of `NET/Socket : Using [0]eth0:...` (data over TCP).
    pub socket_interfaces: Vec<String>,
    /// Whether NCCL's network transport uses GPUDirect RDMA (see the module doc).
    pub gdr: Option<bool>,
    /// The line (message) `gdr` was decided from.
    pub gdr_evidence: Option<String>,
    /// Whether the adapters can do GPUDirect RDMA (peermem or DMA-BUF), as NET/IB reports it.
    pub gdr_capable: Option<bool>,
    /// How many channel connections went through the network (`via NET/...` lines).
    pub net_channels: usize,
    /// WARN lines, nccl-tests failures and `# error:` lines, in output order.
    pub errors: Vec<NcclError>,
    /// NCCL variables: reported by NCCL (`X set by environment to V`, `X set to V`), else
    /// passed on the echoed command line (`-x X=V`).
    pub env: BTreeMap<String, String>,
    /// NCCL INFO/TRACE lines recognised but not needed (and Algo Matrix lines).
    pub info_lines_ignored: usize,
    /// What NCCL said it uses on each host (from the `host:pid:tid` prefix of its lines), so a
    /// finding can name the one host that fell back to sockets or took the wrong HCA.
    pub hosts: BTreeMap<String, HostNet>,
}

/// NCCL's network choice on one host.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct HostNet {
    /// HCAs from its `NET/IB : Using [0]mlx5_0:1/RoCE ...` line (`mlx5_0:1`).
    pub hcas: Vec<String>,
    /// Interfaces of its `NET/Socket : Using [0]eth0:... [1]virbr0:...` line. NCCL prints that
    /// line whenever the socket transport loads, also when IB carries the data.
    pub socket_interfaces: Vec<String>,
    /// The interface it bootstraps on: `OOB lo:...` of its `NET/IB : Using` line, else its
    /// `Bootstrap : Using lo:...` line.
    pub oob_interface: Option<String>,
    /// Its channel connections through an IB-family network (`via NET/IB/0/GDRDMA`).
    pub ib_channels: usize,
    /// Its channel connections through sockets (`via NET/Socket/0`).
    pub socket_channels: usize,
    /// Whether what it received through an IB-family network went straight into GPU memory:
    /// `true` when one of its `[receive]` channels is `/GDRDMA`, `false` when it has such
    /// channels and none is (no peermem or dmabuf on that host, or its GPUs too far from its
    /// NICs), `None` without receive channel lines. The run's `gdr` can be `true` while one
    /// host's is `false`.
    pub gdr_receive: Option<bool>,
    /// Which of its GPUs (`[cudaDev]` of the logging rank) sent or received through which
    /// network device (the index of `NET/IB/<i>`, as in its `Using [i]...` list), from the
    /// channel lines through an IB-family network.
    pub gpus_by_device: BTreeMap<u32, Vec<u32>>,
    /// It could not open libibverbs, or NET/IB found no device.
    pub ib_unavailable: bool,
    /// Its data went over sockets: socket channels; or, with no channel lines, no IB net at all
    /// (libibverbs missing, or only a socket interface list).
    pub socket: bool,
    /// The NCCL version its ranks printed (`NCCL version 2.26.2+cuda12.8`, the first one).
    pub nccl_version: Option<String>,
}

/// The `# nThread 1 nGpus 1 minBytes 8 maxBytes ... validation: 1 graph: 0` line.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Params {
    /// `nThread` (`-t`; old rccl-tests: `nThreads:`).
    pub n_threads: Option<u32>,
    /// `nGpus` per thread (`-g`).
    pub n_gpus: Option<u32>,
    /// `minBytes` (`-b`).
    pub min_bytes: Option<u64>,
    /// `maxBytes` (`-e`).
    pub max_bytes: Option<u64>,
    /// `step: 2(factor)` (`-f`).
    pub step_factor: Option<u64>,
    /// `step: 1048576(bytes)` (`-i`).
    pub step_bytes: Option<u64>,
    /// `warmup iters` (`-w`; old rccl-tests: `warmupIters:`).
    pub warmup_iters: Option<u32>,
    /// `iters` (`-n`).
    pub iters: Option<u32>,
    /// `agg iters` (`-m`).
    pub agg_iters: Option<u32>,
    /// `validation` (`-c`): whether results were checked (else `#wrong`/`error` are `N/A`).
    pub validation: Option<bool>,
    /// `graph` (`-G`): CUDA graph launches.
    pub graph: Option<u32>,
}

/// One `#  Rank  0 Group  0 Pid 6899 on host device  0 [0000:04:00] NVIDIA H100 80GB HBM3` line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rank {
    /// Global rank.
    pub rank: u32,
    /// `Group` (absent in old nccl-tests).
    pub group: Option<u32>,
    /// Process id.
    pub pid: u32,
    /// Host name.
    pub host: String,
    /// CUDA device index on the host.
    pub device: u32,
    /// PCI address as printed: `0000:04:00` (current) or `0x1a` (old).
    pub bus_id: String,
    /// GPU model: `NVIDIA H100 80GB HBM3`.
    pub gpu_name: String,
}

/// One table row: an operation on one message size.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// `size` in bytes.
    pub size_bytes: u64,
    /// `count` in elements.
    pub count: u64,
    /// `type`: `float`, `bfloat16`, `int8` ...
    pub dtype: String,
    /// `redop` as printed (`sum`, `none` for alltoall); `None` when the table has no such column.
    pub redop: Option<String>,
    /// `root` (`-1` when not rooted); `None` when the table has no such column.
    pub root: Option<i64>,
    /// Out-of-place results.
    pub out_of_place: Measure,
    /// In-place results (`None` when the table has a single group).
    pub in_place: Option<Measure>,
    /// `timestamp` column, when printed.
    pub timestamp: Option<String>,
}

/// The measured columns of one group (out-of-place or in-place).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Measure {
    /// `time` (or `cputime`) in microseconds.
    pub time_us: Option<f64>,
    /// `algbw` in GB/s.
    pub algbw_gbs: Option<f64>,
    /// `busbw` in GB/s: the figure to judge the network by.
    pub busbw_gbs: Option<f64>,
    /// `#wrong` elements; `None` for `N/A` or in the old format.
    pub wrong: Option<u64>,
    /// The old format's `error` column (largest relative error); `None` for `N/A`.
    pub max_error: Option<f64>,
    /// Per-iteration statistics (`-R`), when printed.
    pub per_iter: Option<PerIter>,
}

/// The `i_min i_max i_p99 i_cv%` columns.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PerIter {
    /// Fastest iteration, microseconds.
    pub min_us: Option<f64>,
    /// Slowest iteration, microseconds.
    pub max_us: Option<f64>,
    /// 99th percentile, microseconds.
    pub p99_us: Option<f64>,
    /// Coefficient of variation, percent.
    pub cv_pct: Option<f64>,
}

/// A failure NCCL or nccl-tests reported.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct NcclError {
    /// 1-based line number in the output.
    pub line: usize,
    /// The host that reported it (`host` of `host:pid:tid`).
    pub host: Option<String>,
    /// NCCL's source location (`transport/net_ib.cc:1295`), when printed.
    pub source: Option<String>,
    /// The message (after `NCCL WARN `), at most 400 characters.
    pub message: String,
    /// `Got completion from peer P`: the peer's socket address (`10.0.0.2<44206>`).
    pub peer: Option<String>,
    /// The work completion status (`ibv_wc_status`: 12 retry exceeded, 4 local protection,
    /// 5 flushed): `status=12`, `status=IBV_WC_RETRY_EXC_ERR(12)` or `with error 4`.
    pub status: Option<u32>,
    /// The vendor syndrome (`vendor err 129`, `vendor_err=129`).
    pub vendor_err: Option<u32>,
    /// The opcode as printed (`129`, `IBV_WC_SEND(0)`).
    pub opcode: Option<String>,
    /// The HCA (`hca mlx5_3`), printed by NCCL ≥ 2.22.
    pub hca: Option<String>,
    /// `Send` or `Recv`: the side of the work request that failed.
    pub direction: Option<String>,
    /// The local GID (RoCE), IPv4-mapped or IPv6.
    pub local_gid: Option<String>,
    /// The remote GID (RoCE).
    pub remote_gid: Option<String>,
}

/// Parses nccl-tests output (with or without NCCL log lines).
///
/// # Errors
/// Empty input, or nothing recognisable as nccl-tests or NCCL output.
pub fn parse(text: &str) -> ParseResult<NcclRun> {
    let mut state = State::default();
    let mut warnings = Vec::new();
    for l in numbered(text) {
        let line = strip_launcher_prefix(l.text);
        // `mpirun --tag-output` tags empty lines too: `[1,0]<stdout>:` alone is an empty line
        // (the last one, without its line end, still says the capture was cut).
        if line.is_empty() {
            if !l.ended {
                warnings.extend(cut_off(text));
            }
            continue;
        }
        match state.line(l.n, line, &mut warnings) {
            Ok(()) if !l.ended => warnings.extend(cut_off(text)),
            Ok(()) => {}
            Err(_) if !l.ended => warnings.push(ParseWarning::at(l.n, cut_line_skipped(&clip(line, 100)))),
            Err(message) => warnings.push(ParseWarning::at(l.n, message)),
        }
    }
    if let Some((start, pieces)) = state.pending_row.take() {
        warnings.push(unfinished_row(start, &pieces));
    }
    // nccl-tests ends every finished run with its summary: rows without it are a run that was
    // killed, hung or cut, whose last rows were never measured (a capture cut mid-line is
    // already said to be cut).
    let summary = state.run.avg_busbw_gbs.is_some() || state.run.out_of_bounds.is_some();
    if !state.run.rows.is_empty() && !summary && text.ends_with('\n') {
        warnings.push(ParseWarning::at(
            text.lines().count(),
            "the table has no `Out of bounds values` or `Avg bus bandwidth` summary after it: the run did not finish (killed, hung or cut)",
        ));
    }
    if state.facts == 0 {
        return Err(no_facts(
            text,
            "empty nccl-tests output",
            "no nccl-tests table, rank line or NCCL log line: not nccl-tests output",
        ));
    }
    Ok(Parsed { value: state.finish(), warnings })
}

/// Evidence for the transport, strongest first (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Strength {
    Inferred,
    CompletionError,
    /// `NET/Socket : Using ...`: NCCL 2.4 to 2.6 load the socket transport beside NET/IB (for
    /// its bootstrap) and list its interfaces on healthy IB runs too (horovod/horovod#1523,
    /// NVIDIA/nccl#224), so a `NET/IB : Using` line outweighs it.
    SocketList,
    NetUsing,
    Channel,
    UsingNetwork,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    /// NET/IB or an IB plugin: IB or RoCE, decided at the end from the HCAs' link layers.
    IbFamily,
    Roce,
    Socket,
    /// Another network module: no `transport`.
    Other,
}

#[derive(Default)]
struct State {
    run: NcclRun,
    layout: Option<Layout>,
    guessed: bool,
    facts: usize,
    in_matrix: bool,
    wrong_sum: u64,
    flagged: u64,
    /// A measure of the table said whether its values were right (`#wrong` or the old `error`).
    checked: bool,
    transport: Option<(Strength, Kind, String)>,
    links: Vec<String>,
    /// The first `NET/IB : Using` message: it names the link layers an IB-family network runs on.
    ib_using: Option<String>,
    roce_gid: bool,
    bootstrap: Option<String>,
    library_code: Option<u32>,
    test_from_command: Option<String>,
    command_env: Vec<(String, String)>,
    /// A rank number was listed twice (warned about once).
    rank_repeated: bool,
    ring_gdr: Option<(bool, String)>,
    gdr_used: Option<String>,
    gdr_unused: Option<String>,
    gdr_capability: (Option<String>, Option<String>),
    /// A table row nccl-tests is printing in pieces with NCCL log lines between them: the line
    /// it started on and its pieces so far (see [`debug_log::DebugLine::spliced_after`]).
    pending_row: Option<(usize, String)>,
    /// Channel lines between GPUs of one host (P2P, SHM).
    local_channels: usize,
    /// The hosts the rank lines name.
    rank_hosts: BTreeSet<String>,
}

/// A line of libmlx5's completion dump: four 32-bit words in hex (`00000000 02005104 09000ac5
/// 0000bfd2`).
fn completion_dump(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    words.len() == 4 && words.iter().all(|w| w.len() == 8 && w.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The warning for a row whose printing stopped after some pieces.
fn unfinished_row(start: usize, pieces: &str) -> ParseWarning {
    ParseWarning::at(
        start,
        format!("table row printed in pieces between NCCL log lines never finished: `{}`", clip(pieces.trim(), 100)),
    )
}

static RANK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^#\s*Rank\s+(\d+)\s+(?:Group\s+(\d+)\s+)?Pid\s+(\d+)\s+on\s+(\S+)\s+device\s+(\d+)\s+\[([^\]]*)\]\s*(.*)$",
    )
    .expect("valid regex")
});

static LAUNCHER_PREFIX: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(?:\[\d+,\d+\]<(?:stdout|stderr)>:\s?|\d+:(?: |$))").expect("valid regex"));

/// The line without what `mpirun --tag-output` or `srun -l` put before it.
fn strip_launcher_prefix(line: &str) -> &str {
    match LAUNCHER_PREFIX.find(line) {
        Some(m) => line[m.end()..].trim_start(),
        None => line,
    }
}

/// Footer and banner lines that say nothing this parser keeps.
const IGNORED_COMMENTS: [&str; 10] = [
    "Using devices",
    "Errors with asterisks indicate",
    "Testing ",
    "Blocking Enabled",
    "Per-Iteration Report",
    "Parallel Init Enabled",
    "Writing JSON output",
    "skipping json output",
    "GPU memory usage",
    "Writing results to file",
];

impl State {
    /// Reads one line; `Err` is the warning for a line that was not understood.
    fn line(&mut self, n: usize, line: &str, warnings: &mut Vec<ParseWarning>) -> Result<(), String> {
        if std::mem::take(&mut self.in_matrix) && matrix_line(line) {
            self.in_matrix = true;
            self.run.info_lines_ignored += 1;
            return Ok(());
        }
        if let Some(d) = debug_log::split(line) {
            self.facts += 1;
            let spliced = d.spliced_after(line, |h| self.rank_hosts.contains(h) || self.run.hosts.contains_key(h));
            let d = match spliced {
                Some((before, glued)) if self.add_piece(n, before, warnings) => glued,
                _ => d,
            };
            self.debug_line(n, d);
            return Ok(());
        }
        // libmlx5's dump of a failed work completion (`mlx5: gpu5: got completion with error:`
        // and four lines of 32-bit words): NCCL's WARN line after it says what failed.
        if (line.starts_with("mlx5: ") && line.ends_with("got completion with error:")) || completion_dump(line) {
            return Ok(());
        }
        if let Some(read) = self.last_piece(n, line, warnings) {
            return read;
        }
        // RCCL prints `RCCL version 2.18.3+hip5.7 HEAD:b502725` or
        // `RCCL version : 2.22.3-HEAD:7d8d67c`.
        let rccl = line.strip_prefix("RCCL version").map(|v| v.trim_start().trim_start_matches(':'));
        if let Some(version) = line.strip_prefix("NCCL version ").or(rccl) {
            self.facts += 1;
            self.version(version.split_whitespace().next().unwrap_or(""));
            return Ok(());
        }
        if let Some(body) = line.strip_prefix('#') {
            let body = body.trim();
            if !body.is_empty() {
                self.comment(n, line, body, warnings)?;
                self.facts += 1;
            }
            return Ok(());
        }
        // nccl-tests before 2019 printed its column header and summary without the `#`, and
        // some captures (dstack's documentation) lost every `#`.
        let old_comment = ["Out of bounds values", "Avg bus bandwidth", "out-of-place", "(B)", "nThread ", "nThreads:"]
            .iter()
            .any(|start| line.starts_with(start))
            || (line.starts_with("size") && line.contains("count"));
        if old_comment {
            self.facts += 1;
            return self.comment(n, line, line, warnings);
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.first().is_some_and(|f| f.bytes().all(|b| b.is_ascii_digit())) {
            // A failure printed into a row (`... float none -1 node0: Test CUDA failure ...`):
            // the failure is the run's cause; the row before it is read as what it is.
            let Some((row, failure)) = failure_in_row(n, line) else {
                return self.row(n, &fields, warnings);
            };
            self.facts += 1;
            self.run.errors.push(failure);
            let fields: Vec<&str> = row.split_whitespace().collect();
            return self.row(n, &fields, warnings);
        }
        if let Some(error) = test_failure(n, line) {
            self.facts += 1;
            self.run.errors.push(error);
            return Ok(());
        }
        if self.command(line) {
            self.facts += 1;
            return Ok(());
        }
        // The launcher's ssh telling that it learnt a node's host key, or that X11 forwarding
        // found no authority: nothing about the run.
        if line.starts_with("Warning: Permanently added ")
            || line == "Authorization required, but no authorization protocol specified"
        {
            return Ok(());
        }
        Err(unrecognised_clipped(line))
    }

    /// Takes `text`, printed before a log line on its line, as a piece of a table row when it is
    /// one: more results of the row started (numbers only), or the start of a row (its size).
    /// A row that starts while another waits for its last piece leaves that one unfinished.
    fn add_piece(&mut self, n: usize, text: &str, warnings: &mut Vec<ParseWarning>) -> bool {
        let fields: Vec<&str> = text.split_whitespace().collect();
        let Some(first) = fields.first() else { return false };
        let continues = self.pending_row.is_some() && fields.iter().all(|f| is_number(f));
        let starts = first.bytes().all(|b| b.is_ascii_digit());
        if self.layout.is_none() || !(continues || starts) {
            return false;
        }
        if !continues && let Some((start, pieces)) = self.pending_row.take() {
            warnings.push(unfinished_row(start, &pieces));
        }
        // All its fields are in (a log line glued to its last piece): the row is whole.
        if let Some((start, row)) = self.append_piece(n, text) {
            let fields: Vec<&str> = row.split_whitespace().collect();
            if let Err(message) = self.row(start, &fields, warnings) {
                warnings.push(ParseWarning::at(start, message));
            }
        }
        true
    }

    /// A line while a row printed in pieces waits: more of its results (numbers), or its last
    /// piece (the fields that complete the row, a timestamp's date and time included). Any
    /// other line leaves the row unfinished, which is said, and is read as itself (`None`).
    fn last_piece(&mut self, n: usize, line: &str, warnings: &mut Vec<ParseWarning>) -> Option<Result<(), String>> {
        let (_, pieces) = self.pending_row.as_ref()?;
        let width = self.layout.as_ref().map_or(0, Layout::width);
        let fields: Vec<&str> = line.split_whitespace().collect();
        let all = pieces.split_whitespace().count() + fields.len();
        let more = !fields.is_empty() && fields.iter().all(|f| is_number(f)) && all < width;
        if !more && all != width {
            let (start, pieces) = self.pending_row.take()?;
            warnings.push(unfinished_row(start, &pieces));
            return None;
        }
        let (_, row) = match self.append_piece(n, line) {
            None => return Some(Ok(())),
            Some(whole) => whole,
        };
        let fields: Vec<&str> = row.split_whitespace().collect();
        Some(self.row(n, &fields, warnings))
    }

    /// Adds `text` to the row waiting for its pieces (one starting at line `n` when none
    /// waits), and hands the row back, with the line it started on, once it has the header's
    /// fields.
    fn append_piece(&mut self, n: usize, text: &str) -> Option<(usize, String)> {
        let width = self.layout.as_ref().map_or(0, Layout::width);
        let (_, pieces) = self.pending_row.get_or_insert_with(|| (n, String::new()));
        pieces.push_str(text);
        pieces.push(' ');
        if pieces.split_whitespace().count() < width {
            return None;
        }
        self.pending_row.take()
    }

    fn version(&mut self, version: &str) {
        let version = version.trim();
        if self.run.nccl_version.is_none() && !version.is_empty() {
            self.run.nccl_version = Some(version.to_string());
        }
    }

    /// A non-empty line starting with `#` (`body` is what follows it): banner, rank, column
    /// header or footer.
    fn comment(&mut self, n: usize, line: &str, body: &str, warnings: &mut Vec<ParseWarning>) -> Result<(), String> {
        let value_after_colon =
            |b: &str| b.split_once(':').and_then(|(_, v)| v.split_whitespace().next().map(str::to_string));
        if let Some(c) = RANK.captures(line) {
            let number = |i: usize| c.get(i).and_then(|m| m.as_str().parse().ok());
            let (Some(rank), Some(pid), Some(device)) = (number(1), number(3), number(5)) else {
                return Err(unrecognised_clipped(line));
            };
            if self.run.ranks.iter().any(|r| r.rank == rank) && !std::mem::replace(&mut self.rank_repeated, true) {
                warnings.push(ParseWarning::at(
                    n,
                    format!(
                        "rank {rank} is listed again (on {}): processes that each print themselves as rank {rank} ran alone, as nccl-tests built without MPI (MPI=1) does under mpirun or srun",
                        &c[4]
                    ),
                ));
            }
            self.rank_hosts.insert(c[4].to_string());
            self.run.ranks.push(Rank {
                rank,
                group: number(2),
                pid,
                host: c[4].to_string(),
                device,
                bus_id: c[6].to_string(),
                gpu_name: c[7].trim().to_string(),
            });
        } else if body.starts_with("nThread ") || body.starts_with("nThreads:") {
            // Another run's header (logs of two runs saved as one file): its results are read
            // into the same run, so a failure in either stays a failure; said once per header.
            if self.run.params.is_some() {
                warnings.push(ParseWarning::at(
                    n,
                    "another run starts here (a second `# nThread` header): both runs' rows and results are read as one; a failure in either fails it",
                ));
            }
            self.run.params = Some(params(body));
        } else if let Some(rest) =
            body.strip_prefix("nccl-tests version ").or_else(|| body.strip_prefix("rccl-tests version "))
        {
            let mut words = rest.split_whitespace();
            self.run.nccl_tests_version = words.next().map(str::to_string);
            self.library_code = words.find_map(|w| w.strip_prefix("nccl-library=")).and_then(|c| c.parse().ok());
        } else if let Some(test) =
            body.strip_prefix("Collective test starting:").or_else(|| body.strip_prefix("Collective test concluded:"))
        {
            if self.run.test.is_none() {
                self.run.test = Some(test.trim().to_string()).filter(|t| !t.is_empty());
            }
        } else if body.starts_with("Out of bounds values") {
            // Summed over the runs of the output: an earlier run's wrong values are not undone by
            // a later clean one.
            match value_after_colon(body).as_deref().and_then(|v| v.parse::<u64>().ok()) {
                Some(v) => self.run.out_of_bounds = Some(self.run.out_of_bounds.unwrap_or(0).saturating_add(v)),
                None => warnings.push(ParseWarning::at(n, format!("unreadable {}", quote_line(line)))),
            }
        } else if body.starts_with("Avg bus bandwidth") {
            match value_after_colon(body).map(|v| v.parse::<f64>()) {
                Some(Ok(v)) => self.run.avg_busbw_gbs = Some(v).filter(|v| v.is_finite()),
                _ => warnings.push(ParseWarning::at(n, format!("unreadable {}", quote_line(line)))),
            }
        } else if let Some(message) = body.strip_prefix("error:") {
            self.run.errors.push(NcclError {
                line: n,
                message: debug_log::message(message.trim()),
                ..NcclError::default()
            });
        } else if let Some(layout) = Layout::from_header(&body.split_whitespace().collect::<Vec<_>>()) {
            self.layout = Some(layout);
        } else if body.contains("out-of-place")
            || body.contains("in-place")
            || body.starts_with("(B)")
            || IGNORED_COMMENTS.iter().any(|c| body.starts_with(c))
        {
            // Group titles, units and banners: nothing to keep.
        } else {
            return Err(unrecognised_clipped(line));
        }
        Ok(())
    }

    /// A line starting with a number: a table row.
    fn row(&mut self, n: usize, fields: &[&str], warnings: &mut Vec<ParseWarning>) -> Result<(), String> {
        let layout = match &self.layout {
            Some(layout) => layout.clone(),
            None => {
                let Some(layout) = Layout::guess(fields) else {
                    return Err(format!(
                        "table row before any column header, and its {} fields match no known \
                         layout: `{}`",
                        fields.len(),
                        clip(&fields.join(" "), 100)
                    ));
                };
                if !std::mem::replace(&mut self.guessed, true) {
                    warnings.push(ParseWarning::at(
                        n,
                        "table row before any column header: columns assumed from its field count",
                    ));
                }
                layout
            }
        };
        let read = layout.read(fields).map_err(|why| format!("{why}: `{}`", clip(&fields.join(" "), 100)))?;
        warnings.extend(read.problems.into_iter().map(|p| ParseWarning::at(n, p)));
        let row = read.row;
        for measure in std::iter::once(&row.out_of_place).chain(row.in_place.as_ref()) {
            self.wrong_sum = self.wrong_sum.saturating_add(measure.wrong.unwrap_or(0));
            self.checked |= measure.wrong.is_some() || measure.max_error.is_some();
        }
        self.flagged += read.flagged;
        self.run.rows.push(row);
        self.facts += 1;
        Ok(())
    }

    /// An echoed launch command: `mpirun ... ./build/all_reduce_perf -b 8 ...`.
    fn command(&mut self, line: &str) -> bool {
        let words: Vec<&str> = line.split_whitespace().collect();
        // A launcher followed by an option, or a test binary: not a launcher's own message
        // (`mpirun detected that one or more processes exited ...`).
        let launcher = |i: usize| {
            ["mpirun", "mpiexec", "srun", "orterun"].contains(&basename(words[i]))
                && words.get(i + 1).is_some_and(|next| next.starts_with('-'))
        };
        let start = (0..words.len()).find(|&i| launcher(i) || perf_binary(words[i]).is_some());
        let Some(start) = start else {
            return false;
        };
        // An env assignment (`NCCL_DEBUG=INFO mpirun ...`) right before belongs to the command.
        let start = (0..start).rev().take_while(|&i| env_assignment(words[i]).is_some()).last().unwrap_or(start);
        let offset = words[start].as_ptr() as usize - line.as_ptr() as usize;
        self.run.command.get_or_insert_with(|| line[offset..].to_string());
        if self.test_from_command.is_none() {
            self.test_from_command = words.iter().find_map(|w| perf_binary(w)).map(str::to_string);
        }
        for word in &words[start..] {
            if let Some((name, value)) = env_assignment(word) {
                self.command_env.push((name.to_string(), unescape(value)));
            }
        }
        true
    }

    fn debug_line(&mut self, n: usize, d: debug_log::DebugLine<'_>) {
        let message = d.message;
        if let Some(host) = d.host {
            self.host_net(host, d.device, message);
        }
        if d.level == Level::Warn {
            let mut error = NcclError {
                line: n,
                host: d.host.map(str::to_string),
                source: d.source.map(str::to_string),
                message: debug_log::message(message),
                ..NcclError::default()
            };
            if let Some(c) = debug_log::completion(message) {
                let kind = if c.local_gid.is_some() { Kind::Roce } else { Kind::IbFamily };
                self.roce_gid |= c.local_gid.is_some();
                self.evidence(Strength::CompletionError, kind, message);
                error.peer = c.peer;
                error.status = c.status;
                error.vendor_err = c.vendor_err;
                error.opcode = c.opcode;
                error.hca = c.hca;
                error.direction = c.direction;
                error.local_gid = c.local_gid;
                error.remote_gid = c.remote_gid;
            } else if message.contains("Failed to open libibverbs") {
                self.evidence(Strength::Inferred, Kind::Socket, message);
            }
            self.run.errors.push(error);
            return;
        }
        if !self.info(message) {
            self.run.info_lines_ignored += 1;
        }
    }

    /// Keeps what a host's line says about its network.
    fn host_net(&mut self, host: &str, gpu: Option<u32>, message: &str) {
        let entry = self.run.hosts.entry(host.to_string()).or_default();
        if let Some(version) = message.strip_prefix("NCCL version ").and_then(|v| v.split_whitespace().next()) {
            entry.nccl_version.get_or_insert_with(|| version.to_string());
        }
        let using = debug_log::ib_using(message);
        if let Some(oob) =
            using.as_ref().and_then(|u| u.oob_interface.clone()).or_else(|| debug_log::bootstrap(message))
        {
            entry.oob_interface.get_or_insert(oob);
        }
        let devices = using.map(|u| u.devices).or_else(|| debug_log::ib_list_old(message));
        if let Some(devices) = devices {
            for device in devices {
                if !entry.hcas.contains(&device.name) {
                    entry.hcas.push(device.name);
                }
            }
        } else if let Some(interfaces) =
            debug_log::socket_using(message).or_else(|| debug_log::socket_interface_old(message).map(|i| vec![i]))
        {
            for interface in interfaces {
                if !entry.socket_interfaces.contains(&interface) {
                    entry.socket_interfaces.push(interface);
                }
            }
        } else if message.contains("Failed to open libibverbs")
            || (message.starts_with("NET/IB") && message.contains("No device found"))
        {
            entry.ib_unavailable = true;
        } else if let Some(channel) = debug_log::net_channel(message) {
            match network_kind(channel.network) {
                Kind::Socket => entry.socket_channels += 1,
                Kind::IbFamily | Kind::Roce => {
                    entry.ib_channels += 1;
                    if channel.receive {
                        entry.gdr_receive = Some(entry.gdr_receive == Some(true) || channel.gdr);
                    }
                    if let (Some(device), Some(gpu)) = (channel.device, gpu) {
                        let gpus = entry.gpus_by_device.entry(device).or_default();
                        if let Err(at) = gpus.binary_search(&gpu) {
                            gpus.insert(at, gpu);
                        }
                    }
                }
                Kind::Other => {}
            }
        }
    }

    /// An INFO (or TRACE) message; false when it says nothing this parser keeps.
    fn info(&mut self, message: &str) -> bool {
        if let Some(version) = message.strip_prefix("NCCL version ") {
            self.version(version);
        } else if let Some((name, value)) = debug_log::env(message) {
            self.run.env.insert(name, value);
        } else if let Some(using) = debug_log::ib_using(message) {
            self.evidence(Strength::NetUsing, Kind::IbFamily, message);
            self.ib_using.get_or_insert_with(|| evidence_text(message));
            self.hcas(using.devices);
            if self.run.oob_interface.is_none() {
                self.run.oob_interface = using.oob_interface;
            }
        } else if let Some(interfaces) = debug_log::socket_using(message) {
            self.evidence(Strength::SocketList, Kind::Socket, message);
            for interface in interfaces {
                if !self.run.socket_interfaces.contains(&interface) {
                    self.run.socket_interfaces.push(interface);
                }
            }
        } else if let Some(devices) = debug_log::ib_list_old(message) {
            self.evidence(Strength::NetUsing, Kind::IbFamily, message);
            self.ib_using.get_or_insert_with(|| evidence_text(message));
            self.hcas(devices);
        } else if let Some(interface) = debug_log::socket_interface_old(message) {
            // Printed for the bootstrap of IB runs too: no evidence of the transport.
            if !self.run.socket_interfaces.contains(&interface) {
                self.run.socket_interfaces.push(interface);
            }
        } else if let Some(interface) = debug_log::sideband(message) {
            self.run.oob_interface.get_or_insert(interface);
        } else if message.starts_with("NET/IB") && message.contains("No device found") {
            self.evidence(Strength::Inferred, Kind::Socket, message);
        } else if let Some(interface) = debug_log::bootstrap(message) {
            self.bootstrap.get_or_insert(interface);
        } else if let Some(network) = debug_log::network(message) {
            self.evidence(Strength::UsingNetwork, network_kind(network), message);
            self.run.network.get_or_insert_with(|| network.to_string());
        } else if let Some(channel) = debug_log::net_channel(message) {
            self.run.net_channels += 1;
            self.evidence(Strength::Channel, network_kind(channel.network), message);
            if self.run.network.is_none() {
                self.run.network = Some(channel.network.to_string());
            }
            let slot = if channel.gdr { &mut self.gdr_used } else { &mut self.gdr_unused };
            slot.get_or_insert_with(|| evidence_text(message));
        } else if debug_log::local_channel(message) {
            self.local_channels += 1;
        } else if let Some(gdr) = debug_log::ring_gdr(message) {
            match &self.ring_gdr {
                Some((false, _)) => {}
                Some((true, _)) if gdr => {}
                _ => self.ring_gdr = Some((gdr, evidence_text(message))),
            }
        } else if let Some(line) = debug_log::gdr_line(message) {
            let slot = match line {
                GdrLine::Path(true) => &mut self.gdr_used,
                GdrLine::Path(false) => &mut self.gdr_unused,
                GdrLine::Capability(true) => &mut self.gdr_capability.0,
                GdrLine::Capability(false) => &mut self.gdr_capability.1,
            };
            slot.get_or_insert_with(|| evidence_text(message));
        } else if message.ends_with("Algo Matrix:") {
            self.in_matrix = true;
            return false;
        } else {
            return false;
        }
        true
    }

    /// Keeps the HCAs of a NET/IB list, first seen order, once each, with their link layers.
    fn hcas(&mut self, devices: Vec<debug_log::NetDevice>) {
        for device in devices {
            self.run.sharp |= device.link.contains("SHARP");
            if !self.run.hcas.contains(&device.name) {
                self.run.hcas.push(device.name);
                self.links.push(device.link);
            }
        }
    }

    /// Keeps the strongest transport evidence (the first of equal strength).
    fn evidence(&mut self, strength: Strength, kind: Kind, message: &str) {
        if self.transport.as_ref().is_none_or(|(s, _, _)| strength > *s) {
            self.transport = Some((strength, kind, evidence_text(message)));
        }
    }

    fn finish(mut self) -> NcclRun {
        for (name, value) in std::mem::take(&mut self.command_env) {
            self.run.env.entry(name).or_insert(value);
        }
        if self.run.env.get("NCCL_IB_DISABLE").is_some_and(|v| v == "1") {
            self.evidence(Strength::Inferred, Kind::Socket, "NCCL_IB_DISABLE=1");
        }
        let mut run = self.run;
        // A host's own channel lines decide; without them, its IB failing, or (weaker) a socket
        // list and no NET/IB line when the run as a whole went over sockets: a log cut before a
        // host's NET/IB line must not make it a socket host of an IB run.
        let ib_disabled = run.env.get("NCCL_IB_DISABLE").is_some_and(|v| v == "1");
        let run_socket = matches!(self.transport, Some((_, Kind::Socket, _)));
        for net in run.hosts.values_mut() {
            let listed_only = net.hcas.is_empty() && !net.socket_interfaces.is_empty() && run_socket;
            let no_ib = net.ib_unavailable || ib_disabled || listed_only;
            net.socket = net.socket_channels > 0 || (net.ib_channels == 0 && no_ib);
        }
        if let Some((_, kind, evidence)) = self.transport {
            let roce = self.links.iter().any(|l| l.starts_with("RoCE"));
            let transport = match kind {
                Kind::Socket => Some("Socket"),
                Kind::Roce => Some("RoCE"),
                Kind::IbFamily if roce || (self.links.is_empty() && self.roce_gid) => Some("RoCE"),
                Kind::IbFamily => Some("IB"),
                Kind::Other => None,
            };
            // `Using network IB` says IB was chosen, the NET/IB line on which link layer.
            let evidence = match self.ib_using {
                Some(using) if kind == Kind::IbFamily && using != evidence => {
                    format!("{evidence} + {using}")
                }
                _ => evidence,
            };
            run.transport = transport.map(str::to_string);
            run.transport_evidence = transport.map(|_| evidence);
        }
        let (capable, incapable) = self.gdr_capability;
        run.gdr_capable = match (&capable, &incapable) {
            (Some(_), _) => Some(true),
            (None, Some(_)) => Some(false),
            (None, None) => None,
        };
        // The ring's `GDR 1` of a run whose data goes over sockets (one host with no verbs, or
        // NCCL_IB_DISABLE) is about no network transfer: GPUDirect RDMA is not in play.
        let ring_gdr = self.ring_gdr.filter(|_| run.transport.as_deref() != Some("Socket"));
        // Every channel within one host (P2P, SHM): no byte crossed the network, so whether the
        // network used GPUDirect RDMA is no question (the ring's `GDR 1` is then about nothing).
        let no_network = self.local_channels > 0 && run.net_channels == 0;
        let (gdr, evidence) = match (ring_gdr, self.gdr_used, self.gdr_unused, incapable) {
            _ if no_network => (None, None),
            (Some((used, why)), ..) => (Some(used), Some(why)),
            (None, Some(why), ..) => (Some(true), Some(why)),
            (None, None, Some(why), _) => (Some(false), Some(why)),
            (None, None, None, Some(why)) if capable.is_none() => (Some(false), Some(why)),
            _ => (None, None),
        };
        (run.gdr, run.gdr_evidence) = (gdr, evidence);
        run.oob_interface = run.oob_interface.or(self.bootstrap);
        if run.test.is_none() {
            run.test = self.test_from_command;
        }
        if run.nccl_version.is_none() {
            run.nccl_version = self.library_code.map(version_from_code);
        }
        let unchecked = run.params.as_ref().and_then(|p| p.validation) == Some(false);
        let checked = self.checked || self.flagged > 0 || run.out_of_bounds.is_some_and(|n| n > 0);
        run.wrong =
            (checked && !unchecked).then(|| self.wrong_sum.max(run.out_of_bounds.unwrap_or(0)).max(self.flagged));
        run
    }
}

/// A line of the table after `Enabled NCCL Func/Proto/Algo Matrix:` (`    Broadcast |  1 ...`).
fn matrix_line(line: &str) -> bool {
    line.contains('|') && line.starts_with(|c: char| c.is_ascii_alphabetic())
}

/// How a network module name maps to a transport.
fn network_kind(network: &str) -> Kind {
    if network == "Socket" {
        Kind::Socket
    } else if network.starts_with("IB") {
        Kind::IbFamily
    } else {
        Kind::Other
    }
}

/// A message kept as evidence, cut to 200 characters.
fn evidence_text(message: &str) -> String {
    clip(message, 200)
}

fn quote_line(line: &str) -> String {
    format!("`{}`", clip(line, 100))
}

/// `22803` → `2.28.3` (NCCL ≥ 2.9 codes are `major*10000 + minor*100 + patch`; older ones
/// `major*1000 + minor*100 + patch`).
fn version_from_code(code: u32) -> String {
    if code >= 10000 {
        format!("{}.{}.{}", code / 10000, code % 10000 / 100, code % 100)
    } else {
        format!("{}.{}.{}", code / 1000, code % 1000 / 100, code % 100)
    }
}

/// The `# nThread ...` line's keys and values; also old rccl-tests' form, each key with a colon
/// (`# nThreads: 1 nGpus: 1 nRanks: 1 minBytes: 1024 ... warmupIters: 5 iters: 20 agg iters: 1`),
/// whose `nRanks` is skipped: the ranks are the `# Rank` lines.
fn params(body: &str) -> Params {
    let body = body.replace("warmup iters:", "warmup_iters:").replace("agg iters:", "agg_iters:");
    let words: Vec<&str> = body.split_whitespace().collect();
    let mut p = Params::default();
    for pair in words.windows(2) {
        let (key, value) = (pair[0].trim_end_matches(':'), pair[1]);
        let int = || value.parse::<u32>().ok();
        let long = || value.parse::<u64>().ok();
        match key {
            "nThread" | "nThreads" => p.n_threads = int(),
            "nGpus" => p.n_gpus = int(),
            "minBytes" => p.min_bytes = long(),
            "maxBytes" => p.max_bytes = long(),
            "step" => {
                let (number, unit) = value.split_once('(').unwrap_or((value, "factor)"));
                let number = number.parse().ok();
                if unit.starts_with("bytes") {
                    p.step_bytes = number;
                } else {
                    p.step_factor = number;
                }
            }
            "warmup_iters" | "warmupIters" => p.warmup_iters = int(),
            "iters" => p.iters = int(),
            "agg_iters" => p.agg_iters = int(),
            "validation" => p.validation = int().map(|v| v != 0),
            "graph" => p.graph = int(),
            _ => {}
        }
    }
    p
}

/// The last path component of `word`.
fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// `all_reduce_perf` from `./build/all_reduce_perf` or `all_reduce_perf_mpi`.
fn perf_binary(word: &str) -> Option<&str> {
    let name = basename(word);
    let name = name.strip_suffix("_mpi").unwrap_or(name);
    let plain = name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    (plain && name.len() > 5 && name.ends_with("_perf")).then_some(name)
}

/// `NCCL_IB_HCA=mlx5_0` (after `-x`, or before the command).
fn env_assignment(word: &str) -> Option<(&str, &str)> {
    let (name, value) = word.split_once('=')?;
    let valid =
        name.starts_with("NCCL_") && name.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
    valid.then_some((name, value))
}

/// A shell word's value without its backslash escapes: `mlx5_2\,mlx5_3` is `mlx5_2,mlx5_3`.
fn unescape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        out.push(if c == '\\' { chars.next().unwrap_or(c) } else { c });
    }
    out
}

/// A row cut by a failure line (`2097152 32768 float none -1 node0: Test CUDA failure ...`):
/// the row's text, and the failure from the word before `: Test` on.
fn failure_in_row(n: usize, line: &str) -> Option<(&str, NcclError)> {
    let at = line.find(": Test ")?;
    let who = line[..at].rfind(char::is_whitespace).map_or(0, |space| space + 1);
    Some((&line[..who], test_failure(n, &line[who..])?))
}

/// nccl-tests' failure lines: `host: Test NCCL failure common.cu:1005 '...'`,
/// ` .. host pid 123: Test failure common.cu:1065`, `host: Test timeout (60s) common.cu:400`.
fn test_failure(n: usize, line: &str) -> Option<NcclError> {
    let (who, message) = line.split_once(": Test ")?;
    let failure = message.split_whitespace().take(3).any(|w| w == "failure" || w == "timeout");
    if !failure {
        return None;
    }
    let who = who.trim_start_matches(['.', ' ']);
    let host = who.split_whitespace().next().filter(|h| !h.is_empty());
    let source = message.split_whitespace().find(|w| w.contains(".cu:") || w.contains(".cc:")).map(str::to_string);
    Some(NcclError {
        line: n,
        host: host.map(str::to_string),
        source,
        message: debug_log::message(&format!("Test {message}")),
        ..NcclError::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL_REDUCE: &str = include_str!(
        "../../tests/fixtures/nccl_tests/moc-h100-roce-2node-1gpu-all_reduce_perf-nccl2.26-debug-info.log"
    );
    const BROADCAST_OLD: &str = include_str!(
        "../../tests/fixtures/nccl_tests/issue-nccl-tests-82-broadcast-socket-ib-disabled-no-libibverbs-PARTIAL.log"
    );
    const COMPLETION: &str = include_str!(
        "../../tests/fixtures/nccl_tests/issue-nccl-1814-roce-status12-vendor-err-129-then-249-PARTIAL.log"
    );

    #[test]
    fn empty_and_foreign_text_are_errors() {
        assert_eq!(parse("").unwrap_err().message, "empty nccl-tests output");
        assert!(parse("hello\nworld\n").is_err());
        assert!(parse("#\n#\n").is_err());
    }

    #[test]
    fn launcher_prefixes_and_failures() {
        let text = "[1,0]<stdout>:gpu1:10:11 [0] NCCL INFO Using network Socket\n\
                    0: gpu1:10:11 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n\
                    gpu1: Test NCCL failure common.cu:1005 'unhandled system error / '\n \
                    .. gpu1 pid 10: Test failure common.cu:1065\n\
                    # error: remote process exited\n";
        let run = parse(text).expect("parses").value;
        assert_eq!(run.transport.as_deref(), Some("Socket"));
        assert_eq!(run.socket_interfaces, ["eth0"]);
        let sources: Vec<_> = run.errors.iter().map(|e| e.source.as_deref()).collect();
        assert_eq!(sources, [Some("common.cu:1005"), Some("common.cu:1065"), None]);
        assert!(run.errors.iter().take(2).all(|e| e.host.as_deref() == Some("gpu1")));
    }

    #[test]
    fn current_header_lines_and_gdr_capability() {
        let text = "# nccl-tests version 2.17.6 nccl-headers=22803 nccl-library=22803\n\
                    # Collective test starting: alltoall_perf\n\
                    h:1:2 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)\n\
                    h:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [RO]; OOB ib0:10.0.0.1<0>\n";
        let run = parse(text).expect("parses").value;
        assert_eq!(run.test.as_deref(), Some("alltoall_perf"));
        assert_eq!(run.nccl_version.as_deref(), Some("2.28.3"));
        assert_eq!((run.gdr, run.gdr_capable), (Some(false), Some(false)));
        assert_eq!(run.transport.as_deref(), Some("IB"));
    }

    #[test]
    fn gdr_from_channels_paths_and_ring_lines() {
        let info = |m: &str| format!("h:1:2 [0] NCCL INFO {m}\n");
        let send = info("Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0");
        let recv = info("Channel 00/0 : 1[0] -> 0[0] [receive] via NET/IB/0/GDRDMA");
        let run = parse(&format!("{send}{recv}")).expect("parses").value;
        // GDR on the receive side only (GDR read off) counts as used.
        assert_eq!(run.gdr, Some(true));
        assert_eq!(run.transport.as_deref(), Some("IB"));
        let ring0 = info("Connected all rings, use ring PXN 0 GDR 0");
        let ring1 = info("Connected all rings, use ring PXN 0 GDR 1");
        let run = parse(&format!("{recv}{ring1}{ring0}{ring1}")).expect("parses").value;
        assert_eq!(run.gdr, Some(false));
        assert_eq!(run.gdr_evidence.as_deref(), Some("Connected all rings, use ring PXN 0 GDR 0"));
        let path = info("GPU Direct RDMA Enabled for GPU 1b000 / HCA 0 (distance 4 <= 5), read 1");
        let cap = info("NET/IB : GPU Direct RDMA (nvidia-peermem) enabled for HCA 0 'mlx5_0'");
        let run = parse(&format!("{cap}{path}")).expect("parses").value;
        assert_eq!((run.gdr, run.gdr_capable), (Some(true), Some(true)));
        let run = parse(&cap).expect("parses").value;
        assert_eq!((run.gdr, run.gdr_capable), (None, Some(true)));
    }

    #[test]
    fn nccl_reported_variables_win_over_the_command_line() {
        let text = "$ NCCL_DEBUG=INFO mpirun -np 2 -x NCCL_IB_HCA=mlx5_9 -x NCCL_IB_DISABLE=1 \
                    ./build/all_gather_perf_mpi -b 8\n\
                    h:1:2 [0] NCCL INFO NCCL_IB_HCA set by environment to mlx5_0\n";
        let run = parse(text).expect("parses").value;
        assert_eq!(run.test.as_deref(), Some("all_gather_perf"));
        assert!(run.command.as_deref().is_some_and(|c| c.starts_with("NCCL_DEBUG=INFO mpirun")));
        assert_eq!(run.env["NCCL_IB_HCA"], "mlx5_0");
        assert_eq!(run.env["NCCL_DEBUG"], "INFO");
        assert_eq!(run.transport.as_deref(), Some("Socket"));
        assert_eq!(run.transport_evidence.as_deref(), Some("NCCL_IB_DISABLE=1"));
    }

    #[test]
    fn rows_before_any_header_are_guessed_once() {
        let text = "8 2 float sum -1 1.0 0.0 0.0 0 1.0 0.0 0.0 0\n16 4 float sum -1 1.0 0.0 0.0 3 1.0 0.0 0.0 0\n";
        let parsed = parse(text).expect("parses");
        assert_eq!(parsed.value.rows.len(), 2);
        assert_eq!(parsed.value.wrong, Some(3));
        assert_eq!(parsed.warnings.len(), 2);
        assert!(parsed.warnings[1].message.contains("the run did not finish"), "{:?}", parsed.warnings);
    }

    /// A table header, then one row printed in pieces between NCCL log lines of `host` (whose
    /// rank line says `rank_host`), then the last piece.
    fn pieces(rank_host: &str, host: &str, last: &str) -> String {
        format!(
            "#  Rank  0 Group  0 Pid  1 on {rank_host} device  0 [0000:17:00] GPU\n\
             #       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n\
             #        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n\
             \x20    8388608       2097152     float     sum      -1{host}:1:1 [0] NCCL INFO AllReduce: opCount 0\n\
             {host}:1:1 [0] NCCL INFO AllReduce: opCount 0\n\
             \x20   83.33  100.66  100.66    N/A{host}:1:1 [0] NCCL INFO AllReduce: opCount 0\n\
             {last}"
        )
    }

    #[test]
    fn a_row_in_pieces_is_read_whatever_the_host_name() {
        let last = "    80.98  103.59  103.59      0\n# Avg bus bandwidth    : 1.0\n";
        // A host name that starts with digits is split off by the rank line's name; a name
        // never listed, at its first letter after the number.
        for (rank_host, host) in [("10node", "10node"), ("gpu-a", "gpu-b")] {
            let parsed = parse(&pieces(rank_host, host, last)).expect("parses");
            assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
            let run = &parsed.value;
            assert_eq!(run.rows.len(), 1, "{host}");
            assert_eq!((run.rows[0].root, run.rows[0].out_of_place.wrong), (Some(-1), None));
            assert_eq!(run.rows[0].in_place.as_ref().and_then(|m| m.busbw_gbs), Some(103.59));
            assert_eq!(run.hosts.keys().collect::<Vec<_>>(), [host]);
        }
    }

    #[test]
    fn a_row_whose_last_piece_never_came_is_said() {
        let parsed = parse(&pieces("gpu1", "gpu1", "# Out of bounds values : 0 OK\n")).expect("parses");
        assert!(parsed.value.rows.is_empty());
        assert_eq!(parsed.warnings.len(), 1, "{:?}", parsed.warnings);
        assert_eq!(parsed.warnings[0].line, 4);
        assert!(parsed.warnings[0].message.contains("never finished"), "{:?}", parsed.warnings);
        let cut = parse(&pieces("gpu1", "gpu1", "")).expect("parses");
        assert!(cut.warnings.iter().any(|w| w.line == 4 && w.message.contains("never finished")), "{:?}", cut.warnings);
    }

    const HEADER: &str = "#  Rank  0 Group  0 Pid  1 on gpu1 device  0 [0000:17:00] GPU\n\
        #       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n";

    #[test]
    fn a_piece_cut_off_by_a_warn_line_waits_for_the_rest_of_its_row() {
        // A WARN line starts with a line end, so the out-of-place results stand alone; a dated
        // WARN (NCCL ≥ 2.23) comes before the in-place ones, and its date is no piece of the row.
        let text = format!(
            "{HEADER}     8388608       2097152     float     sum      -1gpu1:1:1 [0] NCCL INFO AllReduce: opCount 0\n\
             \x20   83.33  100.66  100.66      0\n\
             [2025-06-01 10:00:00] gpu1:1:2 [0] net_ib.cc:1 NCCL WARN NET/IB : Got async event\n\
             \x20   80.98  103.59  103.59  1e+06gpu9:1:1 [0] NCCL INFO AllReduce: opCount 0\n\
             \n"
        );
        let parsed = parse(&text).expect("parses");
        let warnings: Vec<&str> = parsed.warnings.iter().map(|w| w.message.as_str()).collect();
        assert!(warnings.iter().all(|w| w.contains("no `Out of bounds values`")), "{warnings:?}");
        let run = &parsed.value;
        assert_eq!(run.errors.len(), 1);
        // `1e+06` (`#wrong` as `%g` prints it) is the row's last number, not the host's.
        assert_eq!(run.hosts.keys().collect::<Vec<_>>(), ["gpu1", "gpu9"]);
        assert_eq!(run.rows.len(), 1);
        let row = &run.rows[0];
        assert_eq!((row.out_of_place.busbw_gbs, row.out_of_place.wrong), (Some(100.66), Some(0)));
        let in_place = row.in_place.as_ref().expect("in place");
        assert_eq!((in_place.busbw_gbs, in_place.wrong), (Some(103.59), Some(1_000_000)));
    }

    #[test]
    fn a_row_in_pieces_ends_with_its_timestamp() {
        let text = "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong  timestamp\n\
             \x20    8388608       2097152     float     sum      -1gpu1:1:1 [0] NCCL INFO AllReduce: opCount 0\n\
             \x20   83.33  100.66  100.66      0gpu1:1:1 [0] NCCL INFO AllReduce: opCount 0\n\
             \x20   80.98  103.59  103.59      0  2025-06-01 12:00:00\n\
             # Avg bus bandwidth    : 1.0\n";
        let parsed = parse(text).expect("parses");
        assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
        let row = &parsed.value.rows[0];
        assert_eq!((row.size_bytes, row.timestamp.as_deref()), (8_388_608, Some("2025-06-01 12:00:00")));
        assert_eq!(row.in_place.as_ref().and_then(|m| m.busbw_gbs), Some(103.59));
    }

    #[test]
    fn a_dated_warn_line_is_no_row_piece() {
        let text = "[2025-06-01 10:00:00] 3node:12:34 [3] init.cc:10 NCCL WARN Cuda failure\n";
        let run = parse(text).expect("parses").value;
        assert_eq!(run.errors[0].host.as_deref(), Some("3node"));
        assert!(run.rows.is_empty());
    }

    /// Rows cut into pieces by COLL log lines, in the published trace's shape.
    const COLL_PIECES: &str = "#  Rank  0 Group  0 Pid  1 on mew0 device  0 [0000:17:00] GPU\n\
        #       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n\
        \x20    8388608       2097152     float     sum      -1mew0:1:1 [1] NCCL INFO AllReduce: opCount 0 count 2097152\n\
        mew0:1:1 [0] NCCL INFO AllReduce: 8388608 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..23}\n\
        \x20   83.33  100.66  100.66      0mew0:1:1 [1] NCCL INFO AllReduce: opCount 0 count 2097152\n\
        \x20   80.98  103.59  103.59      0\n\
        \x20   16777216       4194304     float     sum      -1mew0:1:1 [1] NCCL INFO AllReduce: opCount 0 count 4194304\n\
        \x20   128.3  130.79  130.79    N/Amew0:1:1 [1] NCCL INFO AllReduce: opCount 0 count 4194304\n\
        \x20   127.0  132.13  132.13  1e+06\n\
        # Out of bounds values : 0 OK\n";

    #[test]
    fn the_coll_sample_reads_whole() {
        let parsed = parse(COLL_PIECES).expect("parses");
        assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
        assert_eq!(parsed.value.rows.len(), 2);
    }

    crate::lines::parser_never_panics!(parse, [ALL_REDUCE, BROADCAST_OLD, COMPLETION, COLL_PIECES]);
}
