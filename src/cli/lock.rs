//! One run at a time per directory: two runs writing into one `--out` or `--state` (a cron
//! audit that outlasted its interval, an operator's run beside it) would leave one run's
//! `findings.json` beside the other's `metrics.prom`, and one's state compared with the other's.
//!
//! Each directory a run writes holds `.fabcheck.lock`, locked (`flock`, advisory, released by the
//! kernel when the process ends however it ends) for as long as the run lasts. A second run
//! refuses at once, naming the directory, before it connects to anything.

use anyhow::Context as _;
use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};

/// The lock file's name in each directory.
const LOCK_FILE: &str = ".fabcheck.lock";

/// The locks of one run, released when dropped (or when the process ends).
#[derive(Debug)]
pub struct DirLocks {
    _files: Vec<File>,
}

/// Locks every directory of `dirs` that is given (creating it), each once however it is
/// spelled: `--out X --state X` is one directory, and locking it twice would refuse the run itself.
pub fn lock<'a>(dirs: impl IntoIterator<Item = &'a Path>) -> anyhow::Result<DirLocks> {
    let mut seen: Vec<PathBuf> = Vec::new();
    let mut files = Vec::new();
    for dir in dirs {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let canonical = dir.canonicalize().with_context(|| format!("resolving {}", dir.display()))?;
        if seen.contains(&canonical) {
            continue;
        }
        seen.push(canonical);
        let path = dir.join(LOCK_FILE);
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .with_context(|| format!("opening {}", path.display()))?;
        match file.try_lock() {
            Ok(()) => files.push(file),
            Err(TryLockError::WouldBlock) => anyhow::bail!(
                "{}: another fabcheck run is writing into this directory (it holds {}): two runs would mix their files; let it finish, or give this run another directory",
                dir.display(),
                path.display()
            ),
            // A file system without locks (some network mounts): the run goes on unguarded.
            Err(TryLockError::Error(e)) => {
                eprintln!("fabcheck: warning: cannot lock {} ({e}): runs into it are not kept apart", path.display());
            }
        }
    }
    Ok(DirLocks { _files: files })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_a_directory_is_refused_and_the_first_released_when_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let first = lock([out.as_path()]).unwrap();
        let err = lock([out.as_path()]).unwrap_err().to_string();
        assert!(err.contains("another fabcheck run is writing into this directory"), "{err}");
        drop(first);
        assert!(lock([out.as_path()]).is_ok());
    }

    #[test]
    fn one_directory_given_twice_is_locked_once() {
        let dir = tempfile::tempdir().unwrap();
        let same = dir.path().join("x");
        let also = dir.path().join(".").join("x");
        assert!(lock([same.as_path(), also.as_path()]).is_ok());
    }
}
