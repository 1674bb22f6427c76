//! The connections a run keeps open at once, within this machine's open-file limit.
//!
//! Every connection is a file descriptor, kept while its device waits out the counter window, so
//! a run of many devices can reach the process's limit (`ulimit -n`, RLIMIT_NOFILE) or the
//! system's, which sockets then share with the evidence files being written. The connections are
//! kept below it from the start ([`Connections::within_fd_limit`]); if a connection fails for
//! want of a descriptor all the same (EMFILE, ENFILE: something else took them), the ceiling is
//! lowered to what was open then and the device tries again once one closes. Either way it is
//! said once on stderr, and a device that never gets a connection is `collect.fd_limit`, the
//! auditor's limit, never `ssh.unreachable`: 1,755 devices were once blamed for it.

use super::device::Progress;
use crate::transport::TransportError;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;
use tokio::sync::Notify;

/// File descriptors left to the rest of the run (evidence files, key files, known_hosts
/// commands, the runtime's own) below the limit.
const FD_HEADROOM: usize = 16;

/// How long a device that met the open-file limit waits for a connection to close before it
/// tries again.
const FD_RETRY: Duration = Duration::from_secs(1);

/// The connections open, and the most that may be.
#[derive(Default)]
pub(super) struct Connections {
    open: AtomicUsize,
    /// The most open at once; 0 for no bound.
    ceiling: AtomicUsize,
    closed: Notify,
    /// The limit was said on stderr (once a run).
    said: AtomicBool,
}

/// One connection's place among the [`Connections`], given back when dropped.
pub(super) struct Place<'a>(&'a Connections);

impl Drop for Place<'_> {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::AcqRel);
        self.0.closed.notify_waiters();
    }
}

impl Connections {
    /// Bounded by this machine's open-file limit: the soft limit (fabcheck raised it to the hard
    /// one at start) less the descriptors open now and [`FD_HEADROOM`]. Unbounded where either
    /// cannot be read (the limit is then only learnt by meeting it).
    pub(super) fn within_fd_limit() -> Connections {
        let open = std::fs::read_dir("/proc/self/fd").map(Iterator::count);
        let ceiling = match (rlimit::getrlimit(rlimit::Resource::NOFILE), open) {
            (Ok((soft, _)), Ok(open)) => {
                usize::try_from(soft).unwrap_or(usize::MAX).saturating_sub(open + FD_HEADROOM).max(1)
            }
            _ => 0,
        };
        Connections { ceiling: AtomicUsize::new(ceiling), ..Connections::default() }
    }

    /// A place for one more connection: at once when there is room under the ceiling, else,
    /// with `wait`, once a connection closes (`None` without).
    pub(super) async fn room(&self, wait: bool, progress: &Progress) -> Option<Place<'_>> {
        loop {
            let closed = self.closed.notified();
            tokio::pin!(closed);
            closed.as_mut().enable();
            let ceiling = self.ceiling.load(Ordering::Acquire);
            let free = |n: usize| (ceiling == 0 || n < ceiling).then_some(n + 1);
            if self.open.fetch_update(Ordering::AcqRel, Ordering::Acquire, free).is_ok() {
                return Some(Place(self));
            }
            self.say(None, progress);
            if !wait {
                return None;
            }
            closed.await;
        }
    }

    /// A connection failed for want of a file descriptor (`e`) all the same: lowers the ceiling
    /// to the connections open now less the headroom (never raising it), and says so the first
    /// time.
    pub(super) fn met(&self, e: &TransportError, progress: &Progress) {
        let ceiling = self.open.load(Ordering::Acquire).saturating_sub(FD_HEADROOM).max(1);
        let lower = |c: usize| (c == 0 || ceiling < c).then_some(ceiling);
        let _ = self.ceiling.fetch_update(Ordering::AcqRel, Ordering::Acquire, lower);
        self.say(Some(e), progress);
    }

    /// The wait before a device that met the limit tries again: until a connection closes, or
    /// [`FD_RETRY`] (what took the descriptors may not be a connection).
    pub(super) async fn pause(&self) {
        let _ = tokio::time::timeout(FD_RETRY, self.closed.notified()).await;
    }

    /// Says once that the open-file limit bounds the run: the limit, what met it (`met`), the
    /// ceiling, and what to do about it.
    fn say(&self, met: Option<&TransportError>, progress: &Progress) {
        if self.said.swap(true, Ordering::AcqRel) {
            return;
        }
        let limit = rlimit::getrlimit(rlimit::Resource::NOFILE)
            .map_or_else(|_| String::new(), |(soft, _)| format!(" (`ulimit -n`: {soft})"));
        let met = match met {
            Some(TransportError::FdLimit { doing, reason }) => format!(" was reached {doing} ({reason}); it"),
            Some(other) => format!(" was reached ({other}); it"),
            None => String::new(),
        };
        let ceiling = self.ceiling.load(Ordering::Acquire);
        progress.collect.suspend(|| {
            eprintln!(
                "fabcheck: warning: this machine's open-file limit{limit}{met} leaves room for {ceiling} connections at once: the other devices wait for one to close (during a benchmark, they are not audited: collect.fd_limit); run with a lower --forks or a higher `ulimit -n`"
            );
        });
    }

    /// Why a device got no connection, when it did not meet the limit itself.
    pub(super) fn no_room(&self) -> TransportError {
        TransportError::FdLimit {
            doing: format!(
                "connecting, with the {} connections it has room for open",
                self.ceiling.load(Ordering::Acquire)
            ),
            reason: "none closed in time".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use indicatif::ProgressBar;

    fn quiet() -> Progress {
        Progress { collect: ProgressBar::hidden(), counters: ProgressBar::hidden() }
    }

    fn emfile() -> TransportError {
        TransportError::FdLimit { doing: "connecting to h:22".into(), reason: "Too many open files".into() }
    }

    /// From the start, the ceiling leaves the headroom and the descriptors already open.
    #[test]
    fn the_ceiling_starts_below_the_soft_limit() {
        let (soft, _) = rlimit::getrlimit(rlimit::Resource::NOFILE).unwrap();
        let ceiling = Connections::within_fd_limit().ceiling.load(Ordering::Acquire);
        let most = usize::try_from(soft).unwrap_or(usize::MAX).saturating_sub(FD_HEADROOM + 3).max(1);
        assert!((1..=most).contains(&ceiling), "{ceiling} of {soft}");
    }

    /// Meeting the limit with 20 connections open lowers the ceiling to 4 and never raises it;
    /// a place beyond it is had only once one closes, and not at all without waiting.
    #[tokio::test]
    async fn meeting_the_limit_lowers_the_ceiling_to_what_was_open_less_the_headroom() {
        let connections = Connections::default();
        let progress = quiet();
        let mut places = Vec::new();
        for _ in 0..20 {
            places.push(connections.room(false, &progress).await.expect("no bound yet"));
        }
        connections.met(&emfile(), &progress);
        assert_eq!(connections.ceiling.load(Ordering::Acquire), 4);
        places.truncate(3);
        connections.met(&emfile(), &progress);
        assert_eq!(connections.ceiling.load(Ordering::Acquire), 1, "down to one, never zero");
        let connections = Connections { ceiling: AtomicUsize::new(2), ..Connections::default() };
        let first = connections.room(false, &progress).await.unwrap();
        let _second = connections.room(false, &progress).await.unwrap();
        assert!(connections.room(false, &progress).await.is_none());
        let waiting = connections.room(true, &progress);
        tokio::pin!(waiting);
        assert!(futures::poll!(waiting.as_mut()).is_pending());
        drop(first);
        assert!(waiting.await.is_some(), "a closed connection makes room");
        assert!(connections.said.load(Ordering::Acquire));
    }
}
