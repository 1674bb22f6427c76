use serde::{Deserialize, Serialize};
use std::fmt;

/// How bad a finding is. Ordered: `Info < Warning < Error < Critical`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing, never a failure (a counter reset, a discovered GID index).
    Info,
    /// Degraded but not broken (PFC pause rate high).
    Warning,
    /// Broken configuration or a device that could not be audited.
    Error,
    /// Traffic is being lost or will be under load (PFC off on the RoCE priority).
    Critical,
}

impl Severity {
    /// All severities, most severe first (the order reports list them in).
    pub const ALL: [Severity; 4] = [Severity::Critical, Severity::Error, Severity::Warning, Severity::Info];

    /// The lower-case name used in JSON, on the command line and in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
            Severity::Critical => "critical",
        }
    }

    /// Parses the lower-case name (`--fail-on`, policy files).
    pub fn from_name(name: &str) -> Option<Severity> {
        Severity::ALL.into_iter().find(|s| s.as_str() == name)
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One thing fabcheck found on one device (or port, or path).
///
/// `expected` and `actual` are short human-readable values ("dscp", "pcp"); `evidence` lists the
/// snapshot files (relative to the snapshot root) that show `actual`, so a reader can check it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// Stable dotted code, e.g. `nic.pfc_mismatch`.
    pub code: String,
    /// How bad it is.
    pub severity: Severity,
    /// The inventory name of the device.
    pub device: String,
    /// Interface, HCA port or switch port, when the finding is about one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<String>,
    /// The hops of the GPU-to-GPU path, when the finding is about a path.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub path: Vec<String>,
    /// What the policy asks for.
    #[serde(default)]
    pub expected: String,
    /// What the device has.
    #[serde(default)]
    pub actual: String,
    /// One sentence for a human.
    pub message: String,
    /// Snapshot files that show `actual`.
    #[serde(default)]
    pub evidence: Vec<String>,
    /// Codes of findings that explain this one (filled by correlation).
    #[serde(default)]
    pub caused_by: Vec<String>,
    /// Unified diff of the expected and the actual normalized configuration of the hop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// The waiver that accepts this finding for now (its reason and expiry): shown, never
    /// failing the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waived: Option<String>,
}

impl Finding {
    /// A finding with the required fields; the rest are set with the builder methods.
    pub fn new(code: &str, severity: Severity, device: &str, message: impl Into<String>) -> Finding {
        Finding {
            code: code.to_string(),
            severity,
            device: device.to_string(),
            port: None,
            path: Vec::new(),
            expected: String::new(),
            actual: String::new(),
            message: message.into(),
            evidence: Vec::new(),
            caused_by: Vec::new(),
            diff: None,
            waived: None,
        }
    }

    /// Sets the port (interface, HCA port, switch port).
    pub fn port(mut self, port: impl Into<String>) -> Finding {
        self.port = Some(port.into());
        self
    }

    /// Sets what was expected and what was found.
    pub fn expected_actual(mut self, expected: impl Into<String>, actual: impl Into<String>) -> Finding {
        self.expected = expected.into();
        self.actual = actual.into();
        self
    }

    /// Adds an evidence file.
    pub fn evidence(mut self, file: impl Into<String>) -> Finding {
        self.evidence.push(file.into());
        self
    }

    /// The check this finding belongs to: the code's first segment (`nic`, `ssh`, `counter`...).
    pub fn category(&self) -> &str {
        self.code.split('.').next().unwrap_or(&self.code)
    }

    /// The hop it is about, as paths name hops: `device:port`, or the device when it names no
    /// port.
    pub fn hop(&self) -> String {
        match &self.port {
            Some(port) => format!("{}:{port}", self.device),
            None => self.device.clone(),
        }
    }
}

/// The device of a hop named `device:port` (or of a bare device name).
pub fn hop_device(hop: &str) -> &str {
    hop.split_once(':').map_or(hop, |(device, _)| device)
}
