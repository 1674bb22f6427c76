//! Putting the reports on disk without ever leaving a half-written one.

use crate::{ReportError, reporters};
use fabcheck_model::AuditResult;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Renders every format and writes the files into `dir`, creating it if needed.
///
/// Returns the paths written, in the order of [`reporters`]. Each format is written as it is
/// rendered into a hidden temporary file in `dir` and flushed to disk; only when every format has
/// rendered are the temporary files renamed over the old ones. So a rendering bug or a full disk
/// leaves the previous reports untouched, and no report ever sits whole in memory (at 10,000
/// hosts `metrics.prom`, `findings.json` and `config.json` are tens of megabytes each). Readers
/// (node_exporter scraping `metrics.prom` while cron rewrites it, a browser reloading
/// `report.html`) see the old file or the new one, never a torn one; the temporary name does not
/// end in `.prom`, so the textfile collector ignores it.
///
/// # Errors
///
/// [`ReportError::Render`] if a format cannot be produced, [`ReportError::CreateDir`] if `dir`
/// cannot be created, [`ReportError::Write`] naming the file that could not be written. No
/// temporary file is left behind; a rename that fails (rare: same directory) leaves the files
/// renamed before it in place, each complete.
pub fn write_all(result: &AuditResult, dir: &Path) -> Result<Vec<PathBuf>, ReportError> {
    fs::create_dir_all(dir).map_err(|source| ReportError::CreateDir { path: dir.to_path_buf(), source })?;
    let mut staged: Vec<(PathBuf, PathBuf)> = Vec::new();
    let discard = |staged: &[(PathBuf, PathBuf)]| staged.iter().for_each(|(tmp, _)| drop(fs::remove_file(tmp)));
    for reporter in reporters() {
        let path = dir.join(reporter.file_name());
        match write_temp(&path, |out| reporter.write(result, out)) {
            Ok(tmp) => staged.push((tmp, path)),
            Err(e) => {
                discard(&staged);
                return Err(e);
            }
        }
    }
    let mut written = Vec::with_capacity(staged.len());
    for (i, (tmp, path)) in staged.iter().enumerate() {
        if let Err(source) = fs::rename(tmp, path) {
            discard(&staged[i..]);
            return Err(ReportError::Write { path: path.clone(), source });
        }
        written.push(path.clone());
    }
    sync_dir(dir);
    Ok(written)
}

/// Replaces `path` with `bytes` through a temporary file in the same directory (a rename is only
/// atomic within one file system).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let tmp =
        write_temp(path, |out| out.write_all(bytes).map_err(|e| ReportError::render("", e))).map_err(|e| match e {
            ReportError::Write { source, .. } => source,
            other => io::Error::other(other.to_string()),
        })?;
    fs::rename(&tmp, path).inspect_err(|_| drop(fs::remove_file(&tmp)))
}

/// Writes a temporary file beside `path` through `write`, flushed and synced; returns its name.
/// Nothing is left behind on error. An I/O error is [`ReportError::Write`] naming `path`, even
/// when it reaches `write` through an encoder that reports it as its own error.
fn write_temp(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> Result<(), ReportError>,
) -> Result<PathBuf, ReportError> {
    let failed = |source| ReportError::Write { path: path.to_path_buf(), source };
    let (tmp, file) = create_temp(path).map_err(failed)?;
    let mut out = Recording { inner: io::BufWriter::with_capacity(256 * 1024, file), error: None };
    let written = write(&mut out);
    let result = match (written, out.error.take()) {
        (_, Some(io)) => Err(failed(io)),
        (Err(e), None) => Err(e),
        (Ok(()), None) => out
            .inner
            .into_inner()
            .map_err(io::IntoInnerError::into_error)
            .and_then(|file| file.sync_all())
            .map_err(failed),
    };
    match result {
        Ok(()) => Ok(tmp),
        Err(e) => {
            // Best effort: the error that matters is the one being returned.
            let _ = fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// A writer that keeps its first I/O error, which encoders (serde_json, the Prometheus text
/// encoder) would otherwise turn into their own errors and lose the cause.
struct Recording<W> {
    inner: W,
    error: Option<io::Error>,
}

impl<W: Write> Write for Recording<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf).inspect_err(|e| self.keep(e))
    }

    /// The encoders write a few bytes at a time through this: the inner writer's own
    /// `write_all` (a copy into `BufWriter`'s buffer) instead of the default loop over `write`.
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.inner.write_all(buf).inspect_err(|e| self.keep(e))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush().inspect_err(|e| self.keep(e))
    }
}

impl<W> Recording<W> {
    fn keep(&mut self, e: &io::Error) {
        if self.error.is_none() {
            self.error = Some(io::Error::new(e.kind(), e.to_string()));
        }
    }
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

    #[test]
    fn a_format_that_fails_midway_leaves_no_file_and_keeps_its_cause() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("findings.json");
        fs::write(&path, "old").unwrap();
        let err = write_temp(&path, |out| {
            out.write_all(b"{\"half\": ").map_err(|e| ReportError::render("findings.json", e))?;
            Err(ReportError::render("findings.json", io::Error::other("encoder gave up")))
        })
        .unwrap_err();
        assert!(matches!(err, ReportError::Render { file: "findings.json", .. }), "{err:?}");
        assert_eq!(names(tmp.path()), ["findings.json"], "the temporary file is removed");
        assert_eq!(fs::read_to_string(&path).unwrap(), "old", "the previous report is untouched");
    }

    #[test]
    fn the_writer_keeps_the_io_error_an_encoder_turns_into_its_own() {
        let mut recording = Recording { inner: Failing, error: None };
        assert!(serde_json::to_writer(&mut recording, &[1, 2, 3]).is_err());
        assert_eq!(recording.error.as_ref().map(io::Error::kind), Some(io::ErrorKind::StorageFull));
        let mut text = String::new();
        let mut recording = Recording { inner: Failing, error: None };
        assert!(recording.write_all(b"x").is_err());
        text.push_str(&recording.error.unwrap().to_string());
        assert_eq!(text, "no space left on device");
    }

    /// A disk that is full.
    struct Failing;

    impl Write for Failing {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::new(io::ErrorKind::StorageFull, "no space left on device"))
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
}
