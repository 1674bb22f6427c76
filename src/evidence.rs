//! The evidence snapshot: every raw output with its command, exit status, stderr and timing, on
//! disk, so that `fabcheck audit --snapshot DIR` re-judges exactly the same bytes offline.
//!
//! Layout (format version [`EVIDENCE_FORMAT_VERSION`]):
//! ```text
//! DIR/manifest.json                 run metadata and one record per device (address, error)
//! DIR/<device>/<key>.txt            stdout, byte for byte
//! DIR/<device>/commands.json        per output: command, exit status, stderr, start, duration
//! ```
//! A device's directory is written under a temporary name and renamed when complete, and the
//! manifest is written (the same way) last: a crash never leaves half a device or a manifest that
//! names missing files. One directory rename per device, not one per file, because creating files
//! is the slow part on many file systems (about 0.3 ms each on the CI machines' ext4).

use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::path::{Path, PathBuf};

/// Bumped whenever a field is added or changes meaning.
pub const EVIDENCE_FORMAT_VERSION: u32 = 1;

/// One command's output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    /// Unique per device: `mlnx_qos.ens1np0`.
    pub key: String,
    /// Parser name.
    pub source: String,
    /// The command line as sent.
    pub command: String,
    /// Standard output (stored in `<key>.txt`, not in the metadata).
    #[serde(skip)]
    pub stdout: Vec<u8>,
    /// Standard error.
    pub stderr: String,
    /// Exit status; `None` if killed or if the transport failed.
    pub exit_status: Option<u32>,
    /// Transport failure for this command (timeout, connection lost), with its finding code.
    pub transport_error: Option<DeviceError>,
    /// Start, milliseconds since the Unix epoch.
    pub started_ms: u64,
    /// Duration in milliseconds.
    pub duration_ms: u64,
    /// Output cut at the cap.
    pub truncated: bool,
    /// The JSON form of the command was refused and this is the text one: which, and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json_refused: Option<String>,
}

impl Evidence {
    /// The standard output as text, borrowed when it is valid UTF-8 (as command output nearly
    /// always is: the check runs at memory speed, where the lossy conversion walks it character
    /// by character), with U+FFFD for what is not.
    pub fn stdout_text(&self) -> Cow<'_, str> {
        match std::str::from_utf8(&self.stdout) {
            Ok(text) => Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(&self.stdout),
        }
    }
}

/// A failure with its finding code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceError {
    /// Finding code (`ssh.timeout`).
    pub code: String,
    /// Message.
    pub message: String,
}

/// Everything collected from one device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceRecord {
    /// Inventory name.
    pub name: String,
    /// `host`, `leaf`...
    pub role: String,
    /// `linux`, `sonic`...
    pub platform: String,
    /// What was connected to.
    pub address: String,
    /// NICs named in the inventory (empty: discovered).
    pub nics: Vec<String>,
    /// Set when the device could not be reached at all.
    pub error: Option<DeviceError>,
    /// Outputs, in the order they were collected.
    #[serde(skip)]
    pub outputs: Vec<Evidence>,
}

impl DeviceRecord {
    /// The output with this key.
    pub fn output(&self, key: &str) -> Option<&Evidence> {
        self.outputs.iter().find(|e| e.key == key)
    }

    /// The standard output of `key` when its command succeeded: to decide what else to read or
    /// collect, never to judge (that is the facts stage's reading, with its findings).
    pub fn stdout_ok(&self, key: &str) -> Option<Cow<'_, str>> {
        self.output(key).filter(|e| e.exit_status == Some(0)).map(Evidence::stdout_text)
    }
}

/// The manifest at the snapshot root.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`EVIDENCE_FORMAT_VERSION`] of the writer.
    pub format_version: u32,
    /// fabcheck version of the writer.
    pub fabcheck: String,
    /// RFC 3339 start of the run.
    pub started: String,
    /// Counter window in seconds.
    pub window_s: f64,
    /// Devices, in inventory order (their outputs are in their directories).
    pub devices: Vec<DeviceRecord>,
}

/// Why a snapshot could not be written or read.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct EvidenceError {
    /// The file.
    pub path: String,
    /// What went wrong.
    pub message: String,
}

fn err(path: &Path, e: impl std::fmt::Display) -> EvidenceError {
    EvidenceError { path: path.display().to_string(), message: e.to_string() }
}

/// Writes one device's outputs into `root/<device>/`, replacing what a previous run left there.
pub fn write_device(root: &Path, record: &DeviceRecord) -> Result<(), EvidenceError> {
    let dir = root.join(&record.name);
    let partial = root.join(format!(".{}.partial", record.name));
    let _ = std::fs::remove_dir_all(&partial);
    std::fs::create_dir_all(&partial).map_err(|e| err(&partial, e))?;
    for e in &record.outputs {
        let path = partial.join(format!("{}.txt", e.key));
        std::fs::write(&path, &e.stdout).map_err(|x| err(&path, x))?;
    }
    let meta = serde_json::to_vec_pretty(&record.outputs).map_err(|x| err(&partial, x))?;
    let path = partial.join("commands.json");
    std::fs::write(&path, meta).map_err(|x| err(&path, x))?;
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(|e| err(&dir, e))?;
    }
    std::fs::rename(&partial, &dir).map_err(|e| err(&dir, e))
}

/// Writes the manifest (last, so a snapshot with a manifest is complete).
pub fn write_manifest(root: &Path, manifest: &Manifest) -> Result<(), EvidenceError> {
    let bytes = serde_json::to_vec_pretty(manifest).map_err(|e| err(root, e))?;
    let path = root.join("manifest.json");
    fabcheck_report::write_atomic(&path, &bytes).map_err(|e| err(&path, e))
}

/// A run's evidence directory while it is being written: `OUT/.evidence.<pid>.partial`, which
/// becomes `OUT/evidence` only when the run is complete, so the files of an earlier run are
/// never mixed with a new run's (a device the new run no longer has, a run interrupted half
/// way), and an interrupted run leaves the previous snapshot whole.
pub struct StagedEvidence {
    out: PathBuf,
    partial: PathBuf,
}

impl StagedEvidence {
    /// Creates the run's own directory under `out`.
    pub fn begin(out: &Path) -> Result<StagedEvidence, EvidenceError> {
        let partial = out.join(format!(".evidence.{}.partial", std::process::id()));
        let _ = std::fs::remove_dir_all(&partial);
        std::fs::create_dir_all(&partial).map_err(|e| err(&partial, e))?;
        Ok(StagedEvidence { out: out.to_path_buf(), partial })
    }

    /// Where the run writes its evidence.
    pub fn dir(&self) -> &Path {
        &self.partial
    }

    /// Makes the run's directory `OUT/evidence`, replacing the previous run's. When it cannot,
    /// the previous snapshot is put back and this run's is discarded.
    pub fn commit(self) -> Result<PathBuf, EvidenceError> {
        let current = self.out.join("evidence");
        let old = self.out.join(format!(".evidence.{}.old", std::process::id()));
        let had_previous = match std::fs::rename(&current, &old) {
            Ok(()) => true,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
            Err(e) => {
                self.discard();
                return Err(err(&current, e));
            }
        };
        if let Err(e) = std::fs::rename(&self.partial, &current) {
            if had_previous {
                let _ = std::fs::rename(&old, &current);
            }
            self.discard();
            return Err(err(&current, e));
        }
        if had_previous {
            // Best effort: the new snapshot is in place whether or not the old one goes.
            let _ = std::fs::remove_dir_all(&old);
        }
        Ok(current)
    }

    /// Removes this run's directory, leaving `OUT/evidence` as the previous run left it (and
    /// giving back the space a full disk needs for the reports).
    pub fn discard(self) {
        // Best effort: what is left is a hidden directory the next run of this process id removes.
        let _ = std::fs::remove_dir_all(&self.partial);
    }

    /// Where the complete snapshot goes: `OUT/evidence`.
    pub fn target(&self) -> PathBuf {
        self.out.join("evidence")
    }
}

/// The code of a device whose evidence in a snapshot cannot be read (missing or garbage files,
/// a name that is not a file name inside the snapshot): a finding on that device alone.
pub const UNREADABLE_EVIDENCE: &str = "collect.evidence_unreadable";

/// Bytes kept of each command's output when collecting (`--max-output`'s default), and read of
/// each output file of a snapshot.
pub const DEFAULT_MAX_OUTPUT: usize = 4 << 20;

/// Bytes read of a snapshot's metadata files (`manifest.json`, a device's `commands.json`): far
/// above what 10,000 devices write, far below what would exhaust the auditor's memory.
const METADATA_LIMIT: usize = 256 << 20;

/// Reads a snapshot back: the manifest and every device's outputs.
///
/// Every file is opened as a snapshot written by fabcheck holds it: a regular file reached
/// without following a symbolic link (a link to a secret outside the snapshot, a FIFO that never
/// ends, `/dev/zero`, a device directory that is a link: each is that device's
/// [`UNREADABLE_EVIDENCE`]). An output file is read to `max_output` bytes at most (the reader's
/// memory stays a small multiple of its input): what is longer is read as an output cut at
/// `--max-output`, which is unknown evidence, never a configuration.
///
/// A snapshot is input like any other: the names in its manifest and in each `commands.json`
/// are used as file names only when they are plain names inside the snapshot (no `/`, no
/// leading `.`), and a device whose files are missing, unreadable or not fabcheck's is
/// returned with an [`UNREADABLE_EVIDENCE`] error, so every other device is still judged. A
/// snapshot without a manifest (the run did not finish: the manifest is written last), of
/// another format, naming a device twice, or holding a device collected before the run began
/// (a directory of an earlier run left behind) is refused whole.
pub fn read_snapshot(root: &Path, max_output: usize) -> Result<(Manifest, Vec<DeviceRecord>), EvidenceError> {
    let mut records = Vec::new();
    let manifest = visit_snapshot(root, max_output, &mut |record| records.push(record))?;
    Ok((manifest, records))
}

/// As [`read_snapshot`], handing each device's record to `visit` as soon as it is read, so that
/// one device's outputs are in memory at a time; the manifest is returned at the end.
pub fn visit_snapshot(
    root: &Path,
    max_output: usize,
    visit: &mut impl FnMut(DeviceRecord),
) -> Result<Manifest, EvidenceError> {
    let path = root.join("manifest.json");
    let text = read_bounded(&path, METADATA_LIMIT).and_then(|(bytes, cut)| match cut {
        true => {
            Err(std::io::Error::other(format!("larger than {METADATA_LIMIT} bytes: not a manifest fabcheck wrote")))
        }
        false => String::from_utf8(bytes).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e)),
    });
    let text = text.map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => err(
            root,
            "no manifest.json: not an evidence snapshot, or the run that wrote it did not finish (the manifest is written last)",
        ),
        _ => err(&path, e),
    })?;
    let manifest = parse_manifest(&text).map_err(|message| err(&path, message))?;
    let started_ms = fabcheck_report::unix_seconds(&manifest.started).map(|s| s * 1000.0);
    for device in &manifest.devices {
        let mut record = device.clone();
        match read_device(root, &record, max_output) {
            Ok(outputs) => record.outputs = outputs,
            Err(message) => {
                record.error = Some(DeviceError { code: UNREADABLE_EVIDENCE.into(), message });
                record.outputs = Vec::new();
            }
        }
        // One second of slack: `started` is written to the second.
        let older = |e: &&Evidence| started_ms.is_some_and(|t| (e.started_ms as f64) + 1000.0 < t);
        if let Some(old) = record.outputs.iter().find(older) {
            return Err(err(
                root,
                format!(
                    "mixes two runs: {}'s `{}` was collected before this run started ({}): a device directory of an earlier run left behind",
                    record.name, old.key, manifest.started
                ),
            ));
        }
        visit(record);
    }
    Ok(manifest)
}

/// Several snapshots read as one run's (the nodes' own `audit --local` runs fanned out by Slurm
/// or Kubernetes, and the switches' audit): their devices in the order given, each handed to
/// `visit` as soon as it is read, so that a merge of thousands of nodes' snapshots holds one
/// device's outputs at a time (reading them all first took a 10,000-node merge past a
/// gigabyte). A device in two of them is refused, naming both: which of the two to believe is
/// the operator's call.
pub fn visit_snapshots(
    roots: &[PathBuf],
    max_output: usize,
    mut visit: impl FnMut(DeviceRecord),
) -> Result<(), EvidenceError> {
    let mut from: std::collections::HashMap<String, &Path> = std::collections::HashMap::new();
    for root in roots {
        let mut twice = None;
        visit_snapshot(root, max_output, &mut |record| {
            if twice.is_some() {
                return;
            }
            match from.insert(record.name.clone(), root) {
                Some(first) => twice = Some((record.name, first)),
                None => visit(record),
            }
        })?;
        if let Some((name, first)) = twice {
            return Err(err(
                root,
                format!("device `{name}` is also in {}: merge snapshots of different devices", first.display()),
            ));
        }
    }
    Ok(())
}

/// One device's outputs, or why they cannot be read.
fn read_device(root: &Path, record: &DeviceRecord, max_output: usize) -> Result<Vec<Evidence>, String> {
    if !fabcheck_inventory::is_usable_host_name(&record.name) {
        return Err(format!(
            "the manifest names this device `{}`, which is not a file name inside the snapshot",
            record.name
        ));
    }
    let dir = root.join(&record.name);
    let shown = |p: &Path| p.strip_prefix(root).unwrap_or(p).display().to_string();
    match std::fs::symlink_metadata(&dir) {
        // An unreachable device has no directory: nothing was collected.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && record.error.is_some() => return Ok(Vec::new()),
        Err(e) => return Err(format!("{}: {e}", shown(&dir))),
        Ok(meta) if !meta.is_dir() => {
            return Err(format!("{}: {}, not a directory", shown(&dir), kind_of(&meta.file_type())));
        }
        Ok(_) => {}
    }
    let meta_path = dir.join("commands.json");
    if record.error.is_some() && std::fs::symlink_metadata(&meta_path).is_err() {
        return Ok(Vec::new());
    }
    let meta = match read_bounded(&meta_path, METADATA_LIMIT) {
        Ok((_, true)) => return Err(format!("{}: larger than {METADATA_LIMIT} bytes", shown(&meta_path))),
        Ok((bytes, false)) => bytes,
        Err(e) => return Err(format!("{}: {e}", shown(&meta_path))),
    };
    let mut outputs = parse_commands(&meta).map_err(|message| format!("{}: {message}", shown(&meta_path)))?;
    for evidence in &mut outputs {
        let out_path = dir.join(format!("{}.txt", evidence.key));
        let (stdout, cut) = read_bounded(&out_path, max_output).map_err(|e| format!("{}: {e}", shown(&out_path)))?;
        evidence.stdout = stdout;
        evidence.truncated |= cut;
    }
    Ok(outputs)
}

/// The first `limit` bytes of the regular file at `path`, and whether there was more. A
/// symbolic link (as the last component: the directories above are checked by the caller) and
/// anything but a regular file are refused, without blocking on a FIFO.
fn read_bounded(path: &Path, limit: usize) -> std::io::Result<(Vec<u8>, bool)> {
    use std::io::Read as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let file =
        std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK).open(path).map_err(
            |e| match e.raw_os_error() {
                Some(libc::ELOOP) => std::io::Error::other("a symbolic link, not a file fabcheck wrote"),
                _ => e,
            },
        )?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::other(format!("{}, not a file fabcheck wrote", kind_of(&meta.file_type()))));
    }
    let mut bytes = Vec::with_capacity((meta.len() as usize).min(limit));
    file.take(limit as u64 + 1).read_to_end(&mut bytes)?;
    let cut = bytes.len() > limit;
    bytes.truncate(limit);
    Ok((bytes, cut))
}

/// What a file that is not a regular file is, for the message that refuses it.
fn kind_of(kind: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt as _;
    if kind.is_symlink() {
        "a symbolic link"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_dir() {
        "a directory"
    } else {
        "a regular file"
    }
}

/// A snapshot's `manifest.json`: of this format, naming each device once. Device names are
/// checked when each device is read, so that one bad name costs only that device.
pub fn parse_manifest(text: &str) -> Result<Manifest, String> {
    let manifest: Manifest = serde_json::from_str(text).map_err(|e| e.to_string())?;
    if manifest.format_version != EVIDENCE_FORMAT_VERSION {
        let v = manifest.format_version;
        return Err(format!("evidence format {v}; this fabcheck reads format {EVIDENCE_FORMAT_VERSION}"));
    }
    let mut seen = std::collections::HashSet::new();
    if let Some(twice) = manifest.devices.iter().find(|d| !seen.insert(d.name.as_str())) {
        return Err(format!("device `{}` is listed twice", twice.name));
    }
    Ok(manifest)
}

/// A device's `commands.json`: its outputs without their standard output, each key the stem of
/// a plain file name inside the device's directory.
pub fn parse_commands(meta: &[u8]) -> Result<Vec<Evidence>, String> {
    let outputs: Vec<Evidence> = serde_json::from_slice(meta).map_err(|e| format!("not fabcheck's: {e}"))?;
    match outputs.iter().find(|e| !is_plain_file_name(&format!("{}.txt", e.key))) {
        Some(bad) => Err(format!("output key `{}` is not a file name inside the snapshot", bad.key)),
        None => Ok(outputs),
    }
}

/// One path component that stays in its directory and is not one of the writer's temporary
/// names: no separator, no leading `.`, no control character, within the file-name limit.
fn is_plain_file_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 255
        && !name.starts_with('.')
        && !name.chars().any(|c| c == '/' || c == '\\' || c.is_control())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_reads_back_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        let record = DeviceRecord {
            name: "gpu001".into(),
            role: "host".into(),
            platform: "linux".into(),
            address: "127.0.0.1:2222".into(),
            nics: vec![],
            error: None,
            outputs: vec![Evidence {
                key: "ethtool_stats.ens1np0.t0".into(),
                source: "ethtool".into(),
                command: "ethtool -S ens1np0".into(),
                stdout: b"NIC statistics:\n     rx_packets: 1\n\xff".to_vec(),
                stderr: String::new(),
                exit_status: Some(0),
                transport_error: None,
                started_ms: 1,
                duration_ms: 2,
                truncated: false,
                json_refused: None,
            }],
        };
        write_device(dir.path(), &record).unwrap();
        let manifest = Manifest {
            format_version: EVIDENCE_FORMAT_VERSION,
            fabcheck: "x".into(),
            started: "t".into(),
            window_s: 0.0,
            devices: vec![DeviceRecord { outputs: vec![], ..record.clone() }],
        };
        write_manifest(dir.path(), &manifest).unwrap();
        let (m, records) = read_snapshot(dir.path(), DEFAULT_MAX_OUTPUT).unwrap();
        assert_eq!(m, manifest);
        assert_eq!(records, vec![record]);
        assert!(dir.path().join("gpu001/ethtool_stats.ens1np0.t0.txt").exists());
        let leftovers: Vec<_> = std::fs::read_dir(dir.path().join("gpu001"))
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().contains(".tmp."))
            .collect();
        assert!(leftovers.is_empty());
    }
}

/// Evidence and records for tests, as collection makes them.
#[cfg(test)]
pub(crate) mod testing {
    use super::{DeviceRecord, Evidence};

    /// Output `key` of a command that succeeded with `stdout`, sent and answered at `started_ms`.
    pub(crate) fn output(key: &str, stdout: &str, started_ms: u64) -> Evidence {
        Evidence {
            key: key.into(),
            source: String::new(),
            command: key.into(),
            stdout: stdout.as_bytes().to_vec(),
            stderr: String::new(),
            exit_status: Some(0),
            transport_error: None,
            started_ms,
            duration_ms: 0,
            truncated: false,
            json_refused: None,
        }
    }

    /// A reachable Linux host `name` with these outputs.
    pub(crate) fn host_record(name: &str, outputs: Vec<Evidence>) -> DeviceRecord {
        DeviceRecord {
            name: name.into(),
            role: "host".into(),
            platform: "linux".into(),
            address: "10.0.0.1:22".into(),
            nics: vec![],
            error: None,
            outputs,
        }
    }
}
