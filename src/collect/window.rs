//! What happens between a device's two counter reads: a timer (the audit's `--window`), or a
//! gate that opens when something else is done, so the counter deltas cover exactly that (a
//! benchmark: the counters are read just before and just after it).

use crate::evidence::DeviceRecord;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{Notify, watch};

/// What separates the two counter reads.
#[derive(Clone, Debug)]
pub enum Window {
    /// Wait this long after the first read.
    Sleep(Duration),
    /// Wait until the gate opens.
    Gate(Arc<Gate>),
}

impl Window {
    /// The length written into the evidence manifest (0 for a gate: its length is the benchmark's).
    pub fn nominal(&self) -> Duration {
        match self {
            Window::Sleep(d) => *d,
            Window::Gate(_) => Duration::ZERO,
        }
    }
}

/// An operator's interrupt (SIGINT, SIGTERM): the counter window ends at once, devices through
/// their first read make the second within a short grace, connects and first reads in flight
/// are cancelled, and the run is judged and reported as it stands, marked interrupted, in
/// seconds instead of after every timeout, and without losing what was collected.
#[derive(Clone, Debug)]
pub struct Interrupt(Arc<watch::Sender<bool>>);

impl Default for Interrupt {
    fn default() -> Self {
        Interrupt(Arc::new(watch::channel(false).0))
    }
}

impl Interrupt {
    /// Ends every window now.
    pub fn fire(&self) {
        self.0.send_replace(true);
    }

    /// Whether the run was interrupted.
    pub fn fired(&self) -> bool {
        *self.0.borrow()
    }

    /// Waits until the run is interrupted (forever if it never is).
    pub async fn wait(&self) {
        let mut rx = self.0.subscribe();
        let _ = rx.wait_for(|fired| *fired).await;
    }
}

/// Devices arrive at the gate after their first read (each leaves a copy of what it has so far);
/// whoever waits on [`Gate::first_reads`] gets them all, runs, then [`Gate::open`]s it.
pub struct Gate {
    expected: usize,
    arrived: Mutex<Vec<DeviceRecord>>,
    all_in: Notify,
    opened: watch::Sender<bool>,
}

impl std::fmt::Debug for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gate").field("expected", &self.expected).finish_non_exhaustive()
    }
}

impl Gate {
    /// A gate for `expected` devices.
    pub fn new(expected: usize) -> Arc<Gate> {
        Arc::new(Gate {
            expected,
            arrived: Mutex::new(Vec::new()),
            all_in: Notify::new(),
            opened: watch::channel(false).0,
        })
    }

    /// A device has done its first read (or could not be reached: it arrives all the same).
    pub(crate) fn arrive(&self, record: &DeviceRecord) {
        let mut arrived = self.arrived.lock().unwrap_or_else(|p| p.into_inner());
        arrived.push(record.clone());
        if arrived.len() >= self.expected {
            self.all_in.notify_one();
        }
    }

    /// Waits until every device has arrived and returns what each had collected.
    pub async fn first_reads(&self) -> Vec<DeviceRecord> {
        loop {
            let notified = self.all_in.notified();
            {
                let arrived = self.arrived.lock().unwrap_or_else(|p| p.into_inner());
                if arrived.len() >= self.expected {
                    return arrived.clone();
                }
            }
            notified.await;
        }
    }

    /// Lets every device take its second read.
    pub fn open(&self) {
        self.opened.send_replace(true);
    }

    /// Waits until the gate is open.
    pub(crate) async fn wait_open(&self) {
        let mut rx = self.opened.subscribe();
        let _ = rx.wait_for(|open| *open).await;
    }
}
