//! Putting the reports on disk without ever leaving a half-written one.

use crate::{ReportError, reporters};
use fabcheck_model::AuditResult;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// What [`write_all`] or [`crate::write_diff`] left on disk: the files written, in the order
/// given, and each file that could not be, with why.
#[derive(Debug, Default)]
pub struct Written {
    /// The files now holding this run's reports.
    pub files: Vec<PathBuf>,
    /// One error per file that could not be rendered or written (a directory that cannot be
    /// created is one error for all of them).
    pub failed: Vec<ReportError>,
}

/// One file of a set: its name in the directory and how to produce its contents.
pub(crate) type Render<'a> = (&'static str, Box<dyn FnOnce(&mut dyn Write) -> Result<(), ReportError> + 'a>);

/// Renders every format and writes the files into `dir`, creating it if needed.
///
/// Each format is written on its own, as it is rendered, into a hidden temporary file in `dir`
/// and flushed to disk: a template bug or an encoder error in one format costs that file only,
/// and no report ever sits whole in memory (at 10,000 hosts `metrics.prom`, `findings.json` and
/// `config.json` are tens of megabytes each). See [`Written`] for what came of each, and
/// [`write_set`] for what is replaced when.
///
/// Readers (node_exporter scraping `metrics.prom` while cron rewrites it, a browser reloading
/// `report.html`) see the old file or the new one, never a torn one; the temporary name does not
/// end in `.prom`, so the textfile collector ignores it.
pub fn write_all(result: &AuditResult, dir: &Path) -> Written {
    let set: Vec<Render> = reporters()
        .into_iter()
        .map(|reporter| -> Render {
            (reporter.file_name(), Box::new(move |out: &mut dyn Write| reporter.write(result, out)))
        })
        .collect();
    write_set(dir, set)
}

/// Writes a set of files that belong together (one run's reports) into `dir`.
///
/// Every file is first rendered into a temporary file. When none could be, nothing is
/// touched: the previous run's files stay whole, as a set (a full disk, a directory that
/// cannot be created). Otherwise each rendered file replaces its old version, and the old
/// version of each file that failed is removed, so that the directory never holds one run's
/// `findings.json` beside another's `metrics.prom` (a stale metric is worse than none). No
/// temporary file is left behind.
pub(crate) fn write_set(dir: &Path, set: Vec<Render>) -> Written {
    let mut written = Written::default();
    if let Err(source) = fs::create_dir_all(dir) {
        written.failed.push(ReportError::CreateDir { path: dir.to_path_buf(), source });
        return written;
    }
    let mut staged: Vec<(PathBuf, PathBuf)> = Vec::new();
    let mut failed_paths = Vec::new();
    for (name, render) in set {
        let path = dir.join(name);
        match write_temp(&path, render) {
            Ok(tmp) => staged.push((tmp, path)),
            Err(e) => {
                written.failed.push(e);
                failed_paths.push(path);
            }
        }
    }
    if staged.is_empty() {
        return written;
    }
    for (tmp, path) in staged {
        match fs::rename(&tmp, &path) {
            Ok(()) => written.files.push(path),
            Err(source) => {
                let _ = fs::remove_file(&tmp);
                written.failed.push(ReportError::Write { path: path.clone(), source });
                failed_paths.push(path);
            }
        }
    }
    for stale in failed_paths {
        // Best effort: a file that was never there is not stale.
        let _ = fs::remove_file(stale);
    }
    sync_dir(dir);
    written
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
        let written = write_all(&fixture::audit_result(), &out);
        assert!(written.failed.is_empty(), "{:?}", written.failed);
        assert_eq!(written.files.len(), 6);
        assert_eq!(
            names(&out),
            ["config.json", "findings.json", "junit.xml", "metrics.prom", "report.html", "report.md"]
        );
        for path in &written.files {
            assert!(fs::metadata(path).unwrap().len() > 0, "{}", path.display());
        }
    }

    #[test]
    fn rewriting_replaces_the_files() {
        let tmp = tempfile::tempdir().unwrap();
        assert!(write_all(&fixture::audit_result(), tmp.path()).failed.is_empty());
        assert!(write_all(&fixture::clean_result(), tmp.path()).failed.is_empty());
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
        let written = write_all(&fixture::audit_result(), &blocker.join("out"));
        assert!(written.files.is_empty());
        let [err] = &written.failed[..] else { panic!("one error for the directory: {:?}", written.failed) };
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

    /// A set's file that renders: `name` holding `text`.
    fn file<'a>(name: &'static str, text: &'a str) -> Render<'a> {
        (
            name,
            Box::new(move |out: &mut dyn Write| {
                out.write_all(text.as_bytes()).map_err(|e| ReportError::render(name, e))
            }),
        )
    }

    /// A set's file whose template fails.
    fn broken(name: &'static str) -> Render<'static> {
        (name, Box::new(move |_: &mut dyn Write| Err(ReportError::render(name, io::Error::other("template bug")))))
    }

    #[test]
    fn a_format_that_fails_costs_its_own_file_only_and_its_stale_version_goes() {
        let tmp = tempfile::tempdir().unwrap();
        write_set(tmp.path(), vec![file("a.json", "old a"), file("b.md", "old b"), file("c.prom", "old c")]);
        let written = write_set(tmp.path(), vec![file("a.json", "new a"), broken("b.md"), file("c.prom", "new c")]);
        assert_eq!(written.files, [tmp.path().join("a.json"), tmp.path().join("c.prom")]);
        let [ReportError::Render { file: "b.md", .. }] = &written.failed[..] else { panic!("{:?}", written.failed) };
        assert_eq!(fs::read_to_string(tmp.path().join("a.json")).unwrap(), "new a");
        assert_eq!(fs::read_to_string(tmp.path().join("c.prom")).unwrap(), "new c");
        assert_eq!(
            names(tmp.path()),
            ["a.json", "c.prom"],
            "the earlier run's b.md is not left beside this run's files"
        );
    }

    #[test]
    fn a_set_that_cannot_be_written_at_all_leaves_the_previous_set_whole() {
        let tmp = tempfile::tempdir().unwrap();
        write_set(tmp.path(), vec![file("a.json", "old a"), file("b.md", "old b")]);
        let written = write_set(tmp.path(), vec![broken("a.json"), broken("b.md")]);
        assert!(written.files.is_empty());
        assert_eq!(written.failed.len(), 2);
        assert_eq!(fs::read_to_string(tmp.path().join("a.json")).unwrap(), "old a");
        assert_eq!(fs::read_to_string(tmp.path().join("b.md")).unwrap(), "old b");
        assert_eq!(names(tmp.path()), ["a.json", "b.md"]);
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
