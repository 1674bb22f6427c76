//! What the benchmarks share: running a process while sampling its peak resident memory.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Peak resident memory of a running process (VmHWM), in KiB.
pub fn peak_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status.lines().find(|l| l.starts_with("VmHWM:"))?.split_whitespace().nth(1)?.parse().ok()
}

/// Waits for `child`, sampling its peak memory every 5 ms: wall time since `start`, peak KiB.
pub fn wait_measured(child: &mut Child, start: Instant) -> (Duration, u64) {
    let mut peak = 0;
    loop {
        if let Some(kib) = peak_kib(child.id()) {
            peak = peak.max(kib);
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    (start.elapsed(), peak)
}

/// Runs `command` to its end with stdout discarded: wall time and peak memory.
#[allow(dead_code)] // Each benchmark uses its own part of this module.
pub fn run_measured(command: &mut Command) -> (Duration, u64) {
    let start = Instant::now();
    let mut child = command.stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    wait_measured(&mut child, start)
}
