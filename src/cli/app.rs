//! Argument definitions (clap derive): syntax only, no I/O, so `--help` works with a broken inventory.

use super::duration::{parse_duration, parse_limit};
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::time::Duration;

/// Audits the lossless fabric of GPU clusters (RoCEv2, InfiniBand) over SSH.
/// `--version`: the release, the commit it is built from, and the oldest glibc the binary runs
/// on (build.rs: 2.28 from `deploy/build-portable`, 2.34 from a plain cargo build on Debian 12).
/// `tests/integration/cli.rs` holds both builds to what they say, from their `GLIBC_` symbols.
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("FABCHECK_COMMIT"),
    "; Linux x86_64, glibc ",
    env!("FABCHECK_GLIBC_BASELINE"),
    " or later)"
);

#[derive(Debug, Parser)]
#[command(name = "fabcheck", version = VERSION, about, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Collect from every device over SSH (or --local, or a saved --snapshot) and check it against the policy.
    Audit(AuditArgs),
    /// Parse one saved command output and print its facts as JSON.
    Parse(ParseArgs),
    /// Serve the built-in lab (simulated GPU hosts over SSH on loopback) in the foreground.
    #[cfg(feature = "lab")]
    Lab(LabArgs),
    /// Start the lab with a few faults, audit it over SSH, print the verdict and the report's path.
    #[cfg(feature = "lab")]
    Demo(DemoArgs),
    /// Run nccl-tests on the audited hosts, with the counters read around it.
    #[command(subcommand)]
    Bench(BenchCommand),
    /// Save or compare the cluster's own bus-bandwidth baseline.
    #[command(subcommand)]
    Baseline(BaselineCommand),
    /// Run a playbook (playbooks/readiness.yaml, cron-audit.yaml, post-change.yaml).
    Run(RunArgs),
    /// RoCEv2 flows from packet captures (pcap, pcapng): per flow packets, bytes, messages and
    /// their completion times, ACK/NAK/RNR, retransmissions, CNPs, ECN and DSCP.
    Flows(FlowsArgs),
    /// The inventory as fabcheck resolves it, in the JSON of `ansible-inventory --list`.
    Inventory(InventoryArgs),
    /// The policy: the reference designs fabcheck ships, what a policy file will check, and the
    /// policy a running fleet follows (infer).
    #[command(subcommand)]
    Policy(PolicyCommand),
    /// Compare two runs (report directories, evidence snapshots or --state files): findings
    /// new and fixed, configuration values changed per device and port, counter growth.
    Diff(DiffArgs),
}

#[derive(Debug, Subcommand)]
pub enum PolicyCommand {
    /// The reference designs built in, each with its public source.
    List,
    /// Print a reference design's policy (YAML, with its comments).
    Show {
        /// A design's name (`fabcheck policy list`).
        name: String,
    },
    /// Validate a policy and print, key by key, what each will check; warn about keys that
    /// contradict each other. Exit 0 valid, 1 valid with warnings, 2 invalid.
    Check {
        /// A policy file, or a reference design's name.
        #[arg(value_name = "POLICY")]
        policy: PathBuf,
    },
    /// Write the policy the fleet runs: per setting, the value at least two thirds of the ports
    /// or hosts that have it run, commented with who does not. A majority that loses packets is
    /// a finding (exit 1), never a key.
    Infer(Box<InferArgs>),
}

#[derive(Debug, Args)]
pub struct InferArgs {
    /// Ansible inventory of the hosts and switches to read.
    #[arg(short = 'i', long, value_name = "INVENTORY", required_unless_present_any = ["snapshot", "local"])]
    pub inventory: Option<PathBuf>,
    /// Only hosts matching this Ansible pattern.
    #[arg(long, value_name = "PATTERN")]
    pub limit: Option<String>,
    /// Read saved evidence snapshots (directories an audit wrote) instead of collecting.
    #[arg(long, value_name = "DIR", num_args = 1.., conflicts_with_all = ["inventory", "local", "limit"])]
    pub snapshot: Vec<PathBuf>,
    /// Read this machine only.
    #[arg(long, conflicts_with = "inventory")]
    pub local: bool,
    /// Where the policy is written; stdout when absent.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// The policy's name.
    #[arg(long, value_name = "NAME", default_value = "inferred")]
    pub name: String,
    #[command(flatten)]
    pub ssh: SshArgs,
}

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The earlier run: a report directory, an evidence snapshot, or a --state directory or file.
    pub before: PathBuf,
    /// The later run, in any of the same forms.
    pub after: PathBuf,
    /// Where diff.md, diff.json and diff.junit.xml are written.
    #[arg(long, value_name = "DIR", default_value = "fabcheck-diff")]
    pub out: PathBuf,
    /// Exit 1 when the later run has a new finding at least this severe.
    #[arg(long, value_name = "SEVERITY", default_value = "error")]
    pub fail_on: String,
    /// Policy an evidence snapshot is judged with: a YAML file or a built-in design's name; roce-lossless-prio3 by default.
    #[arg(long, value_name = "POLICY")]
    pub policy: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct InventoryArgs {
    /// Ansible inventory (INI, YAML, or `ansible-inventory --list` JSON).
    #[arg(short = 'i', long, value_name = "INVENTORY")]
    pub inventory: PathBuf,
    /// Print every host's resolved variables and the groups (as `ansible-inventory --list`).
    #[arg(long, required = true)]
    pub list: bool,
    /// Only hosts matching this Ansible pattern.
    #[arg(long, value_name = "PATTERN")]
    pub limit: Option<String>,
}

#[derive(Debug, Args)]
pub struct FlowsArgs {
    /// Captures (pcap or pcapng), rdma-flow-record/1 JSON Lines (a collector's, or an earlier
    /// run's), or directories of them; each analysed on its own.
    #[arg(required_unless_present = "at", value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// A capture of the same traffic at a named point of its path (`leaf1=a.pcap`), in path
    /// order: each is analysed, and packets matched from one point to the next give each hop's
    /// latency.
    #[arg(long = "at", value_name = "POINT=FILE")]
    pub at: Vec<String>,
    /// Where the rdma-flow-record/1 JSON Lines go (`-`: standard output, and no table).
    #[arg(long, value_name = "FILE", default_value = "fabcheck-flows.jsonl")]
    pub records: PathBuf,
    /// How many of the worst flows the table shows.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub top: usize,
    /// Policy (a YAML file or a built-in design's name) whose `flows:` limits judge each flow; the built-in one by default.
    #[arg(long, value_name = "POLICY")]
    pub policy: Option<PathBuf>,
    /// Exit 1 when a flow finding is at least this severe.
    #[arg(long, value_name = "SEVERITY", default_value = "error")]
    pub fail_on: String,
}

/// What a run does with its findings besides the reports (audit, bench nccl, run).
#[derive(Debug, Clone, Default, Args)]
pub struct FindingsArgs {
    /// Write the `scontrol update ... State=DRAIN` command of each host whose findings reach
    /// `--fail-on` to this file (fabcheck never runs them). The audit's own failures (`collect.*`:
    /// a tool it could not run, an output it could not read) drain no node unless
    /// `--drain-on-collect-failure`; a node with no snapshot (`collect.snapshot_missing`) or no
    /// RDMA device is drained.
    #[arg(long, value_name = "FILE")]
    pub drain_list: Option<PathBuf>,
    /// Drain nodes for the audit's own failures too (`collect.*`).
    #[arg(long, requires = "drain_list")]
    pub drain_on_collect_failure: bool,
    /// A label every metric of metrics.prom carries (repeatable): `--metrics-label cluster=a100-east`.
    #[arg(long = "metrics-label", value_name = "NAME=VALUE")]
    pub metrics_labels: Vec<String>,
    /// Accepted findings (YAML: code, device and port globs, reason, expiry date): shown as
    /// waived, never failing the run; an expired waiver is a warning.
    #[arg(long, value_name = "FILE")]
    pub waivers: Option<PathBuf>,
    /// Keep this run in DIR (replacing the last one, atomically) and compare it with the one
    /// kept before: the reports and metrics say what is new, what was fixed, which
    /// configuration values drifted and how fast counters grew since; OUT gets diff.md,
    /// diff.json and diff.junit.xml.
    #[arg(long, value_name = "DIR")]
    pub state: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The playbook (YAML).
    pub playbook: PathBuf,
    /// Ansible inventory (INI or YAML).
    #[arg(short = 'i', long, value_name = "INVENTORY")]
    pub inventory: PathBuf,
    /// Where reports and evidence are written.
    #[arg(long, value_name = "DIR", default_value = "fabcheck-report")]
    pub out: PathBuf,
    /// Only devices matching this Ansible pattern.
    #[arg(long, value_name = "PATTERN")]
    pub limit: Option<String>,
    /// The job's hosts as a Slurm host list (`gpu[01-16]`, `$SLURM_JOB_NODELIST`).
    #[arg(long, value_name = "HOSTLIST")]
    pub nodelist: Option<String>,
    /// Waivers, drain list and metric labels.
    #[command(flatten)]
    pub findings: FindingsArgs,
    /// Policy (a YAML file or a built-in design's name), instead of the playbook's.
    #[arg(long, value_name = "POLICY")]
    pub policy: Option<PathBuf>,
    /// Exit 1 at findings of this severity or worse, instead of the playbook's `fail_on`.
    #[arg(long, value_name = "SEVERITY")]
    pub fail_on: Option<String>,
    /// Time between the two counter reads, instead of the playbook's `audit.window` (a playbook
    /// with a benchmark has the benchmark as its window).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub window: Option<Duration>,
    /// SSH and concurrency settings.
    #[command(flatten)]
    pub ssh: SshArgs,
}

impl NcclArgs {
    /// The command line's defaults, for a playbook to override.
    pub fn defaults(inventory: PathBuf, ssh: SshArgs) -> NcclArgs {
        NcclArgs {
            inventory,
            policy: None,
            out: PathBuf::from("fabcheck-report"),
            limit: None,
            nodelist: None,
            findings: FindingsArgs::default(),
            fail_on: "error".into(),
            test: vec!["all_reduce_perf".into()],
            pairwise: false,
            bisect: false,
            no_intra_node: false,
            launcher: crate::bench::launch::Launcher::Mpirun,
            gpus_per_host: 8,
            min_bytes: "8".into(),
            max_bytes: "8G".into(),
            factor: 2,
            iters: 20,
            warmup: 5,
            env: Vec::new(),
            mca: Vec::new(),
            timeout: Duration::from_secs(600),
            baseline: None,
            tolerance: 10.0,
            capture: false,
            ssh,
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// nccl-tests through mpirun or srun: busbw against the baseline, NCCL's transport, HCAs and GPUDirect.
    Nccl(Box<NcclArgs>),
    /// Judge saved nccl-tests output (NCCL_DEBUG=INFO logs) exactly as a live run is judged.
    Judge(Box<JudgeArgs>),
}

#[derive(Debug, Args)]
pub struct JudgeArgs {
    /// Saved nccl-tests outputs (one run each).
    #[arg(required = true, value_name = "LOG")]
    pub logs: Vec<PathBuf>,
    /// Audit these hosts first (as `bench nccl` does) so each run is judged against what they
    /// have: their HCAs, link rate and RoCE or InfiniBand; without it, against the log alone.
    #[arg(short = 'i', long, value_name = "INVENTORY")]
    pub inventory: Option<PathBuf>,
    /// Only hosts matching this Ansible pattern (with -i).
    #[arg(long, value_name = "PATTERN")]
    pub limit: Option<String>,
    /// Policy: a YAML file or a built-in design's name (`fabcheck policy list`); roce-lossless-prio3 when absent.
    #[arg(long, value_name = "POLICY")]
    pub policy: Option<PathBuf>,
    /// The cluster's saved baseline: a drop beyond --tolerance is `nccl.busbw_low`.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Allowed drop below the baseline, in percent.
    #[arg(long, value_name = "PERCENT", default_value_t = 10.0)]
    pub tolerance: f64,
    /// Where reports (and, with -i, the audit's evidence) are written.
    #[arg(long, value_name = "DIR", default_value = "fabcheck-report")]
    pub out: PathBuf,
    /// Exit 1 when a finding is at least this severe.
    #[arg(long, value_name = "SEVERITY", default_value = "error")]
    pub fail_on: String,
    /// SSH and concurrency settings (with -i).
    #[command(flatten)]
    pub ssh: SshArgs,
}

#[derive(Debug, Args)]
pub struct NcclArgs {
    /// Ansible inventory (INI or YAML).
    #[arg(short = 'i', long, value_name = "INVENTORY")]
    pub inventory: PathBuf,
    /// Policy: a YAML file or a built-in design's name (`fabcheck policy list`); roce-lossless-prio3 when absent.
    #[arg(long, value_name = "POLICY")]
    pub policy: Option<PathBuf>,
    /// Where reports and evidence are written.
    #[arg(long, value_name = "DIR", default_value = "fabcheck-report")]
    pub out: PathBuf,
    /// Only hosts matching this Ansible pattern.
    #[arg(long, alias = "hosts", value_name = "PATTERN")]
    pub limit: Option<String>,
    /// Waivers, drain list and metric labels.
    #[command(flatten)]
    pub findings: FindingsArgs,
    /// The job's hosts as a Slurm host list (`gpu[01-16]`, `$SLURM_JOB_NODELIST`): only these
    /// hosts (every switch stays), and the report opens with the job's verdict.
    #[arg(long, value_name = "HOSTLIST")]
    pub nodelist: Option<String>,
    /// Exit 1 when a finding is at least this severe.
    #[arg(long, value_name = "SEVERITY", default_value = "error")]
    pub fail_on: String,
    /// nccl-tests binaries, comma separated (a path is allowed).
    #[arg(long, value_name = "TEST,...", value_delimiter = ',', default_value = "all_reduce_perf")]
    pub test: Vec<String>,
    /// Pair every host with another, run the pairs side by side, re-pair slow pairs with known-good hosts, name the straggler.
    #[arg(long)]
    pub pairwise: bool,
    /// When the run over all hosts is slow, run halves side by side down to the slow host.
    #[arg(long, conflicts_with = "pairwise")]
    pub bisect: bool,
    /// Skip the runs of each host alone (intra-node: NVLink/PCIe, no network) that tell a slow
    /// network from a slow host (NVIDIA NCCL troubleshooting: fast alone, slow together is the network).
    #[arg(long)]
    pub no_intra_node: bool,
    /// How ranks are started.
    #[arg(long, value_enum, default_value = "mpirun")]
    pub launcher: crate::bench::launch::Launcher,
    /// Ranks (GPUs) per host.
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub gpus_per_host: u32,
    /// Smallest message (nccl-tests -b).
    #[arg(short = 'b', long, default_value = "8")]
    pub min_bytes: String,
    /// Largest message (nccl-tests -e).
    #[arg(short = 'e', long, default_value = "8G")]
    pub max_bytes: String,
    /// Size factor (nccl-tests -f).
    #[arg(short = 'f', long, default_value_t = 2)]
    pub factor: u32,
    /// Timed iterations (nccl-tests -n).
    #[arg(short = 'n', long, default_value_t = 20)]
    pub iters: u32,
    /// Warm-up iterations (nccl-tests -w).
    #[arg(short = 'w', long, default_value_t = 5)]
    pub warmup: u32,
    /// A variable for every rank, overriding the derived NCCL ones (repeatable): NCCL_IB_HCA==mlx5_0.
    #[arg(long = "env", value_name = "NAME=VALUE")]
    pub env: Vec<String>,
    /// An Open MPI MCA parameter (repeatable): btl_tcp_if_include=eth0.
    #[arg(long = "mca", value_name = "NAME=VALUE")]
    pub mca: Vec<String>,
    /// Limit for one run: a hang becomes `nccl.failed` with its last lines.
    #[arg(long, value_name = "DURATION", default_value = "10m", value_parser = parse_limit)]
    pub timeout: Duration,
    /// The cluster's saved baseline (`fabcheck baseline save`): a drop beyond --tolerance is `nccl.busbw_low`.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Allowed drop below the baseline, in percent.
    #[arg(long, value_name = "PERCENT", default_value_t = 10.0)]
    pub tolerance: f64,
    /// Run each host's capture command (inventory `fabcheck_capture_command`) on its RoCE ports
    /// while the benchmark runs, and judge and join the flows as `audit --capture` does.
    #[arg(long)]
    pub capture: bool,
    /// SSH and concurrency settings.
    #[command(flatten)]
    pub ssh: SshArgs,
}

#[derive(Debug, Subcommand)]
pub enum BaselineCommand {
    /// Save the benchmark curves of a report directory as the baseline.
    Save {
        /// The report directory of a good `fabcheck bench` run.
        #[arg(long, value_name = "DIR", default_value = "fabcheck-report")]
        from: PathBuf,
        /// The baseline file to write.
        #[arg(long, value_name = "FILE", default_value = "fabcheck-baseline.json")]
        to: PathBuf,
    },
    /// Compare a report directory's benchmarks with the baseline; exit 1 on a drop beyond the tolerance.
    Compare {
        /// The baseline file.
        #[arg(long, value_name = "FILE", default_value = "fabcheck-baseline.json")]
        baseline: PathBuf,
        /// The report directory to compare.
        #[arg(long, value_name = "DIR", default_value = "fabcheck-report")]
        from: PathBuf,
        /// Allowed drop, in percent.
        #[arg(long, value_name = "PERCENT", default_value_t = 10.0)]
        tolerance: f64,
    },
}

#[derive(Debug, Args)]
pub struct AuditArgs {
    /// Ansible inventory (INI or YAML).
    #[arg(short = 'i', long, value_name = "INVENTORY", required_unless_present_any = ["snapshot", "local"])]
    pub inventory: Option<PathBuf>,
    /// Policy: a YAML file or a built-in design's name (`fabcheck policy list`); roce-lossless-prio3 when absent.
    #[arg(long, value_name = "POLICY")]
    pub policy: Option<PathBuf>,
    /// Where reports and evidence are written.
    #[arg(long, value_name = "DIR", default_value = "fabcheck-report")]
    pub out: PathBuf,
    /// Only devices matching this Ansible pattern (`gpu*:!gpu13`, `leafs:&rack1`, `~gpu0[0-9]`).
    #[arg(long, value_name = "PATTERN")]
    pub limit: Option<String>,
    /// Waivers, drain list and metric labels.
    #[command(flatten)]
    pub findings: FindingsArgs,
    /// The job's hosts as a Slurm host list (`gpu[01-16]`, `$SLURM_JOB_NODELIST`): only these
    /// hosts (every switch stays), and the report opens with the job's verdict.
    #[arg(long, value_name = "HOSTLIST", conflicts_with_all = ["local", "snapshot"])]
    pub nodelist: Option<String>,
    /// Exit 1 when a finding is at least this severe: critical, error, warning or info.
    #[arg(long, value_name = "SEVERITY", default_value = "error")]
    pub fail_on: String,
    /// Time between the two counter reads (deltas and rates are judged over it).
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = parse_duration)]
    pub window: Duration,
    /// Re-judge saved evidence snapshots instead of collecting. Several (each node's own
    /// `audit --local`, the switches' audit) are merged into one audit, as if collected in one run.
    #[arg(long, value_name = "DIR", num_args = 1.., conflicts_with_all = ["inventory", "local", "limit"])]
    pub snapshot: Vec<PathBuf>,
    /// Packet captures (pcap, pcapng) of the fabric's RoCEv2 traffic: their flows are judged
    /// against the policy's `flows:` limits and joined with the audit (the sender's port, the
    /// findings on the flow's way), and their records written to OUT/flows.jsonl.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    pub flows: Vec<PathBuf>,
    /// Run each host's capture command (inventory `fabcheck_capture_command`, `{netdev}` for the
    /// port) on its RoCE ports during the window, and judge and join their flows as `--flows` does.
    #[arg(long)]
    pub capture: bool,
    /// Audit this machine without SSH (for Slurm or Kubernetes to fan out).
    #[arg(long, conflicts_with = "inventory")]
    pub local: bool,
    /// The name of this machine in a `--local` audit (its host name when absent): the scheduler's
    /// name for the node, such as Slurm's `$SLURMD_NODENAME`, so merged snapshots and drain lines
    /// use the names `scontrol` knows.
    #[arg(long, value_name = "NAME", requires = "local")]
    pub local_name: Option<String>,
    /// With `--snapshot`: the nodes a snapshot is expected from (a Slurm hostlist, `n[1-4]`, such
    /// as `$SLURM_JOB_NODELIST`); each missing one is a `collect.snapshot_missing` finding.
    #[arg(long, value_name = "HOSTLIST", requires = "snapshot")]
    pub expect_nodes: Option<String>,
    /// Read the hosts' LLDP neighbours (lldpctl) though no switch is in this run: for snapshots
    /// to be merged with the switches' later (`--snapshot A B...`), so their links are known.
    #[arg(long)]
    pub host_lldp: bool,
    /// SSH and concurrency settings.
    #[command(flatten)]
    pub ssh: SshArgs,
}

/// How devices are reached: shared by every subcommand that talks to devices.
#[derive(Debug, Clone, Args)]
pub struct SshArgs {
    /// Devices worked on at once (1 or more; more than there are devices is one each).
    #[arg(long, value_name = "N", default_value_t = 64, value_parser = parse_forks)]
    pub forks: usize,
    /// Record the keys of hosts not yet in known_hosts, in the first user file (a changed key is
    /// still refused); without it, ssh_config's `StrictHostKeyChecking accept-new` does so for its
    /// hosts, except into --known-hosts files.
    #[arg(long)]
    pub accept_new_hostkeys: bool,
    /// known_hosts files for every device (default: each device's UserKnownHostsFile and
    /// GlobalKnownHostsFile from ssh_config, else ~/.ssh/known_hosts{,2} and
    /// /etc/ssh/ssh_known_hosts{,2}).
    #[arg(long, value_name = "FILE")]
    pub known_hosts: Vec<PathBuf>,
    /// OpenSSH client config to honour (User, Port, HostName, IdentityFile, ProxyJump,
    /// ConnectTimeout, the algorithm lists, the known_hosts files, StrictHostKeyChecking,
    /// HostKeyAlias, CASignatureAlgorithms; see docs/auditing.md, SSH).
    #[arg(long, value_name = "FILE")]
    pub ssh_config: Option<PathBuf>,
    /// Limit for the TCP connect and for the SSH handshake.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = parse_limit)]
    pub connect_timeout: Duration,
    /// Limit for one command (on Linux hosts also enforced on the host, with `timeout -k`).
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = parse_limit)]
    pub command_timeout: Duration,
    /// Limit for a device's own work (connecting, configuration and first counter read; then its
    /// second read), the counter window apart: past it the device is `collect.device_timeout`,
    /// judged on what it gave, and the run goes on.
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = parse_limit)]
    pub device_timeout: Duration,
    /// Bytes kept of each command's stdout and of its stderr; with --snapshot, read of each
    /// saved output (a longer one is read as cut at this limit).
    #[arg(long, value_name = "BYTES", default_value_t = crate::evidence::DEFAULT_MAX_OUTPUT)]
    pub max_output: usize,
}

/// `--forks`: a count of devices at once, at least one (none would never start a device).
fn parse_forks(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(0) => Err("0 devices at a time would never start one: use 1 or more".to_string()),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("`{s}` is not a count of devices ({e})")),
    }
}

#[derive(Debug, Args)]
pub struct ParseArgs {
    /// The collector whose output FILE holds (see --help for the list).
    #[arg(value_parser = clap::builder::PossibleValuesParser::new(fabcheck_parse::sources()))]
    pub source: String,
    /// The saved output; `-` or absent reads standard input.
    pub file: Option<PathBuf>,
}

#[cfg(feature = "lab")]
#[derive(Debug, Args)]
pub struct LabArgs {
    /// Number of simulated GPU hosts.
    #[arg(long, default_value_t = 4)]
    pub hosts: usize,
    /// Number of leaf switches (SONiC, EOS, NVUE in turn); 0 for hosts only.
    #[arg(long, default_value_t = fabcheck_lab::LabConfig::DEFAULT_LEAVES)]
    pub leaves: usize,
    /// Number of spine switches (NVUE, SONiC, EOS in turn), each linked to every leaf.
    #[arg(long, default_value_t = fabcheck_lab::LabConfig::DEFAULT_SPINES)]
    pub spines: usize,
    /// The leaves' platforms, one leaf each (sonic, eos, nvue, nxos, dell_os10); replaces --leaves.
    #[arg(long, value_name = "PLATFORM,...", value_delimiter = ',', value_parser = lab_platform)]
    pub leaf_platforms: Vec<fabcheck_lab::Platform>,
    /// The spines' platforms, one spine each; replaces --spines.
    #[arg(long, value_name = "PLATFORM,...", value_delimiter = ',', value_parser = lab_platform)]
    pub spine_platforms: Vec<fabcheck_lab::Platform>,
    /// A fault to inject, as HOST=FAULT or HOST=FAULT@NIC (repeatable), e.g. gpu002=pfc-off.
    #[arg(long = "fault", value_name = "HOST=FAULT[@NIC]")]
    pub faults: Vec<String>,
    /// Hosts of real size: N channels a NIC (N completion IRQs on cores of their own, 4N CPUs in
    /// two NUMA nodes, and every channel's per-queue counters in `ethtool -S`), 1 to 63.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=63))]
    pub channels: Option<u32>,
    /// Where the lab writes its inventory, known_hosts and client key.
    #[arg(long, value_name = "DIR", default_value = "fabcheck-lab")]
    pub dir: PathBuf,
    /// The reference design the whole fabric is built to (hosts, switches, NCCL): roce-lossless-prio3,
    /// sonic-lossless-3-4, cisco-nexus-aiml or pfc-only-prio3; audit it with `--policy NAME`.
    #[arg(long, value_name = "NAME", default_value = "roce-lossless-prio3", value_parser = lab_design)]
    pub design: fabcheck_lab::Design,
}

#[cfg(feature = "lab")]
fn lab_design(name: &str) -> Result<fabcheck_lab::Design, String> {
    fabcheck_lab::Design::named(name)
}

#[cfg(feature = "lab")]
fn lab_platform(name: &str) -> Result<fabcheck_lab::Platform, String> {
    fabcheck_lab::Platform::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = fabcheck_lab::Platform::ALL.iter().map(|p| p.name()).collect();
        format!("not a lab platform (one of {})", names.join(", "))
    })
}

#[cfg(feature = "lab")]
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Number of simulated GPU hosts.
    #[arg(long, default_value_t = 8)]
    pub hosts: usize,
    /// Where reports and evidence are written.
    #[arg(long, value_name = "DIR", default_value = "fabcheck-report")]
    pub out: PathBuf,
    /// The reference design the labs are built to, and the policy they are audited with.
    #[arg(long, value_name = "NAME", default_value = "roce-lossless-prio3", value_parser = lab_design)]
    pub design: fabcheck_lab::Design,
}
