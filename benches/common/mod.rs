//! What the benchmarks share: running a process while sampling its peak resident memory.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Peak resident memory of a running process (VmHWM), in KiB.
pub fn peak_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status.lines().find(|l| l.starts_with("VmHWM:"))?.split_whitespace().nth(1)?.parse().ok()
}

/// CPU time a running process has used (user + system, `/proc/PID/stat` in clock ticks of 1/100 s,
/// Linux's USER_HZ), in seconds.
pub fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name, which is in parentheses and may hold spaces.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / 100.0)
}

/// Waits for `child`, sampling its peak memory and CPU time every 5 ms: wall time since `start`,
/// peak KiB, and CPU seconds (at the last sample before it exited).
pub fn wait_measured(child: &mut Child, start: Instant) -> (Duration, u64, f64) {
    let (mut peak, mut cpu) = (0, 0.0);
    loop {
        if let Some(kib) = peak_kib(child.id()) {
            peak = peak.max(kib);
        }
        if let Some(s) = cpu_seconds(child.id()) {
            cpu = s;
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    (start.elapsed(), peak, cpu)
}

/// Runs `command` to its end with stdout and stderr discarded: wall time, peak memory (KiB) and
/// CPU seconds.
pub fn run_measured(command: &mut Command) -> (Duration, u64, f64) {
    let start = Instant::now();
    let mut child = command.stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    wait_measured(&mut child, start)
}
