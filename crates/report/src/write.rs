//! Putting the reports on disk without ever leaving a half-written one.

use crate::{ReportError, reporters};
use fabcheck_model::AuditResult;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Renders every format and writes the files into `dir`, creating it if needed.
///
/// Returns the paths written, in the order of [`reporters`]. Everything is rendered before
/// anything is written, so a rendering bug leaves the previous reports untouched. Each file is
/// then replaced atomically: written to a hidden temporary file in `dir`, flushed to disk, and
/// renamed over the old one. Readers (node_exporter scraping `metrics.prom` while cron rewrites
/// it, a browser reloading `report.html`) see the old file or the new one, never a torn one; the
/// temporary name does not end in `.prom`, so the textfile collector ignores it.
///
/// # Errors
///
/// [`ReportError::Render`] if a format cannot be produced, [`ReportError::CreateDir`] if `dir`
/// cannot be created, [`ReportError::Write`] naming the file that could not be written. Files
/// written before the failure stay (each is complete); no temporary file is left behind.
pub fn write_all(result: &AuditResult, dir: &Path) -> Result<Vec<PathBuf>, ReportError> {
    let rendered =
        reporters().iter().map(|r| Ok((r.file_name(), r.render(result)?))).collect::<Result<Vec<_>, ReportError>>()?;
    fs::create_dir_all(dir).map_err(|source| ReportError::CreateDir { path: dir.to_path_buf(), source })?;
    let mut written = Vec::with_capacity(rendered.len());
    for (name, bytes) in rendered {
        let path = dir.join(name);
        write_atomic(&path, &bytes).map_err(|source| ReportError::Write { path: path.clone(), source })?;
        written.push(path);
    }
    sync_dir(dir);
    Ok(written)
}

/// Replaces `path` with `bytes` through a temporary file in the same directory (a rename is only
/// atomic within one file system).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let (tmp, mut file) = create_temp(path)?;
    let result = file.write_all(bytes).and_then(|()| file.sync_all()).and_then(|()| {
        drop(file);
        fs::rename(&tmp, path)
    });
    if result.is_err() {
        // Best effort: the error that matters is the one being returned.
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Creates `.<name>.<pid>.<n>.tmp` next to `path`, never opening an existing file (a stale
/// temporary file from a crashed run, or another fabcheck writing the same directory).
fn create_temp(path: &Path) -> io::Result<(PathBuf, File)> {
    static SEQUENCE: AtomicU64 = AtomicU64::new(0);
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    loop {
        let n = SEQUENCE.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()));
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(file) => return Ok((tmp, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && n < 1_000 => continue,
            Err(e) => return Err(e),
        }
    }
}

/// Makes the renames durable. Best effort: some file systems refuse to fsync a directory, and the
/// files themselves are already complete on disk.
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> =
            fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names
    }

    #[test]
    fn writes_six_files_and_no_temporaries() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("fabcheck-report");
        let written = write_all(&fixture::audit_result(), &out).unwrap();
        assert_eq!(written.len(), 6);
        assert_eq!(
            names(&out),
            ["config.json", "findings.json", "junit.xml", "metrics.prom", "report.html", "report.md"]
        );
        for path in &written {
            assert!(fs::metadata(path).unwrap().len() > 0, "{}", path.display());
        }
    }

    #[test]
    fn rewriting_replaces_the_files() {
        let tmp = tempfile::tempdir().unwrap();
        write_all(&fixture::audit_result(), tmp.path()).unwrap();
        write_all(&fixture::clean_result(), tmp.path()).unwrap();
        assert_eq!(names(tmp.path()).len(), 6);
        let md = fs::read_to_string(tmp.path().join("report.md")).unwrap();
        assert!(md.starts_with("**PASS**"), "{md}");
    }

    #[test]
    fn stale_temporaries_are_not_reused() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("x.txt");
        let (first, _) = create_temp(&path).unwrap();
        write_atomic(&path, b"new").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new");
        assert!(first.exists(), "the other writer's file is left alone");
    }

    #[test]
    fn an_unwritable_directory_is_named_in_the_error() {
        let tmp = tempfile::tempdir().unwrap();
        let blocker = tmp.path().join("file");
        fs::write(&blocker, "not a directory").unwrap();
        let err = write_all(&fixture::audit_result(), &blocker.join("out")).unwrap_err();
        assert!(matches!(err, ReportError::CreateDir { .. }), "{err:?}");
        assert!(err.to_string().contains("file/out"), "{err}");
    }
}
