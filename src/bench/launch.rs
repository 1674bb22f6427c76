//! The launch command: Open MPI / HPC-X `mpirun` or Slurm `srun`, with the NCCL variables and the
//! nccl-tests arguments. Every host name and variable is validated before it enters the command
//! line, so no inventory value or user override can inject shell syntax.

use fabcheck_inventory::is_safe_name;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// How ranks are started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Launcher {
    /// Open MPI / HPC-X `mpirun -H h1:8,h2:8 -x VAR ...`.
    Mpirun,
    /// Slurm `srun -N n -w h1,h2 --export=ALL,VAR=...`.
    Srun,
}

/// The nccl-tests arguments (`-b -e -f -g -n -w -c`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestArgs {
    /// Smallest message (`-b`), e.g. `8`.
    pub min_bytes: String,
    /// Largest message (`-e`), e.g. `8G`.
    pub max_bytes: String,
    /// Size factor between rows (`-f`).
    pub factor: u32,
    /// GPUs per process (`-g`); ranks are one per GPU, so 1.
    pub gpus_per_process: u32,
    /// Timed iterations (`-n`).
    pub iters: u32,
    /// Warm-up iterations (`-w`).
    pub warmup: u32,
    /// Check results (`-c 1`): gives the #wrong column.
    pub check: bool,
}

impl Default for TestArgs {
    fn default() -> TestArgs {
        TestArgs {
            min_bytes: "8".into(),
            max_bytes: "8G".into(),
            factor: 2,
            gpus_per_process: 1,
            iters: 20,
            warmup: 5,
            check: true,
        }
    }
}

/// Everything needed to build one launch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    /// mpirun or srun.
    pub launcher: Launcher,
    /// The test binary (`all_reduce_perf`), or a path to it.
    pub test: String,
    /// Hosts, first one launches.
    pub hosts: Vec<String>,
    /// Ranks (GPUs) per host.
    pub gpus_per_host: u32,
    /// NCCL and other variables exported to every rank.
    pub env: BTreeMap<String, String>,
    /// Extra `--mca key value` pairs (mpirun only).
    pub mca: Vec<(String, String)>,
    /// nccl-tests arguments.
    pub args: TestArgs,
}

/// A launch that cannot be built safely.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot launch nccl-tests: {0}")]
pub struct LaunchError(String);

fn safe_value(v: &str) -> bool {
    !v.is_empty() && v.len() <= 256 && v.chars().all(|c| c.is_ascii_alphanumeric() || "_.,:=/+-@^".contains(c))
}

fn safe_path(v: &str) -> bool {
    safe_value(v) && !v.contains("..")
}

impl Launch {
    /// The command line, or why it would not be safe.
    pub fn command(&self) -> Result<String, LaunchError> {
        let bad = |what: &str, v: &str| {
            LaunchError(format!("{what} `{v}` contains characters that are not allowed in a command line"))
        };
        if self.hosts.is_empty() {
            return Err(LaunchError("no hosts".into()));
        }
        for h in &self.hosts {
            if !is_safe_name(h) {
                return Err(bad("host", h));
            }
        }
        if !safe_path(&self.test) {
            return Err(bad("test", &self.test));
        }
        for (k, v) in self.env.iter().chain(self.mca.iter().map(|(k, v)| (k, v))) {
            if !k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') || k.is_empty() {
                return Err(bad("variable", k));
            }
            if !safe_value(v) {
                return Err(bad("value", v));
            }
        }
        for v in [&self.args.min_bytes, &self.args.max_bytes] {
            if !v.chars().all(|c| c.is_ascii_alphanumeric()) || v.is_empty() {
                return Err(bad("size", v));
            }
        }
        let n = self.hosts.len() as u32 * self.gpus_per_host;
        let mut cmd = String::new();
        match self.launcher {
            Launcher::Mpirun => {
                let hosts: Vec<String> = self.hosts.iter().map(|h| format!("{h}:{}", self.gpus_per_host)).collect();
                let _ = write!(cmd, "mpirun --allow-run-as-root -np {n} -H {} --bind-to none", hosts.join(","));
                for (k, v) in &self.mca {
                    let _ = write!(cmd, " --mca {k} {v}");
                }
                for (k, v) in &self.env {
                    let _ = write!(cmd, " -x {k}={v}");
                }
            }
            Launcher::Srun => {
                let env: Vec<String> = self.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
                let _ = write!(
                    cmd,
                    "srun -N {} -w {} --ntasks-per-node={g} --gpus-per-node={g} --export=ALL{}{}",
                    self.hosts.len(),
                    self.hosts.join(","),
                    if env.is_empty() { "" } else { "," },
                    env.join(","),
                    g = self.gpus_per_host
                );
            }
        }
        let a = &self.args;
        let _ = write!(
            cmd,
            " {} -b {} -e {} -f {} -g {} -n {} -w {} -c {}",
            self.test,
            a.min_bytes,
            a.max_bytes,
            a.factor,
            a.gpus_per_process,
            a.iters,
            a.warmup,
            u8::from(a.check)
        );
        Ok(cmd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch(launcher: Launcher) -> Launch {
        Launch {
            launcher,
            test: "all_reduce_perf".into(),
            hosts: vec!["gpu001".into(), "gpu002".into()],
            gpus_per_host: 8,
            env: [("NCCL_IB_HCA", "mlx5_0,mlx5_1"), ("NCCL_IB_GID_INDEX", "3"), ("NCCL_DEBUG", "INFO")]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            mca: vec![("btl_tcp_if_include".into(), "eth0".into())],
            args: TestArgs::default(),
        }
    }

    #[test]
    fn mpirun_command() {
        assert_eq!(
            launch(Launcher::Mpirun).command().unwrap(),
            "mpirun --allow-run-as-root -np 16 -H gpu001:8,gpu002:8 --bind-to none --mca btl_tcp_if_include eth0 \
             -x NCCL_DEBUG=INFO -x NCCL_IB_GID_INDEX=3 -x NCCL_IB_HCA=mlx5_0,mlx5_1 \
             all_reduce_perf -b 8 -e 8G -f 2 -g 1 -n 20 -w 5 -c 1"
        );
    }

    #[test]
    fn srun_command() {
        assert_eq!(
            launch(Launcher::Srun).command().unwrap(),
            "srun -N 2 -w gpu001,gpu002 --ntasks-per-node=8 --gpus-per-node=8 \
             --export=ALL,NCCL_DEBUG=INFO,NCCL_IB_GID_INDEX=3,NCCL_IB_HCA=mlx5_0,mlx5_1 \
             all_reduce_perf -b 8 -e 8G -f 2 -g 1 -n 20 -w 5 -c 1"
        );
    }

    #[test]
    fn nothing_unsafe_reaches_the_command_line() {
        let mut l = launch(Launcher::Mpirun);
        l.env.insert("NCCL_IB_HCA".into(), "mlx5_0; reboot".into());
        assert!(l.command().is_err());
        let mut l = launch(Launcher::Mpirun);
        l.hosts.push("gpu003$(id)".into());
        assert!(l.command().is_err());
        let mut l = launch(Launcher::Mpirun);
        l.test = "../../bin/sh".into();
        assert!(l.command().is_err());
        let mut l = launch(Launcher::Srun);
        l.env.insert("BAD KEY".into(), "1".into());
        assert!(l.command().is_err());
    }
}
