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
    /// The same fault's name in every run and snapshot ([`Finding::base_id`], with a
    /// discriminator where that names several: see [`assign_ids`]). Set when the result is
    /// finished; empty until then.
    #[serde(default)]
    pub id: String,
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
    /// Ids of the findings that explain this one, one per entry of `caused_by` where the
    /// explaining finding is known (filled by correlation).
    #[serde(default)]
    pub explained_by: Vec<String>,
    /// Unified diff of the expected and the actual normalized configuration of the hop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// The waiver that accepts this finding for now (its reason and expiry): shown, never
    /// failing the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waived: Option<String>,
    /// What restores the policy here, when fabcheck knows (a root cause's, mostly).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix: Option<Fix>,
}

/// What restores the policy where a finding is, in the device's own syntax, computed from the
/// policy and what was found: printed for an operator to review and run, never run by fabcheck
/// (which stays read-only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fix {
    /// Commands to run on the device, in order; empty where no safe command exists.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub commands: Vec<String>,
    /// What to look at instead, where no command restores the policy (a link trained down: the
    /// cable or optic).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub inspect: String,
    /// What applying it does to traffic, and whether it outlasts a reboot.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
    /// Where the syntax comes from (the vendor's documentation).
    pub source: String,
}

impl Finding {
    /// A finding with the required fields; the rest are set with the builder methods.
    pub fn new(code: &str, severity: Severity, device: &str, message: impl Into<String>) -> Finding {
        Finding {
            id: String::new(),
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
            explained_by: Vec::new(),
            diff: None,
            waived: None,
            fix: None,
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

    /// The id's part that code, device and port make: `nic.pfc_mismatch@gpu002:ens1np0`,
    /// `host.gdr_disabled@gpu004`.
    pub fn base_id(&self) -> String {
        format!("{}@{}", self.code, self.hop())
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

/// Gives every finding its [`Finding::id`]: the base id, and after `#` a discriminator for a
/// finding about a path (every path and flow finding: one port's findings of one code are about
/// several paths) or one whose base id another finding shares (an ECN threshold's Kmin and Kmax
/// on one port, a host's findings in two benchmark pairs). The discriminator is a hash of what
/// stays the same from run to run: the path's hops, else what the policy expects and the message
/// (whose numbers are the same for these findings from one run to the next: pairs, thresholds),
/// and the finding's rank among equals last, so ids are unique within a result whatever it holds.
pub fn assign_ids(findings: &mut [Finding]) {
    let mut bases: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for f in findings.iter() {
        *bases.entry(f.base_id()).or_default() += 1;
    }
    let mut seen = std::collections::HashSet::new();
    for f in findings.iter_mut() {
        let base = f.base_id();
        let id = if !f.path.is_empty() {
            format!("{base}#{:08x}", fnv1a(f.path.join(" ").as_bytes()))
        } else if bases.get(&base).copied().unwrap_or(0) > 1 {
            format!("{base}#{:08x}", fnv1a(format!("{}\n{}", f.expected, f.message).as_bytes()))
        } else {
            base
        };
        let mut unique = id.clone();
        let mut rank = 1;
        while !seen.insert(unique.clone()) {
            rank += 1;
            unique = format!("{id}.{rank}");
        }
        f.id = unique;
    }
}

/// FNV-1a, 32 bits: a hash that is the same in every build and on every machine (std's is
/// randomized per process), for ids that must match across runs.
fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5, |h: u32, b| (h ^ u32::from(*b)).wrapping_mul(0x0100_0193))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(findings: &[Finding]) -> Vec<&str> {
        findings.iter().map(|f| f.id.as_str()).collect()
    }

    #[test]
    fn an_id_is_code_device_and_port_with_a_discriminator_only_where_they_name_several() {
        let mut path = Finding::new("path.inconsistent", Severity::Critical, "gpu002", "breaks").port("ens1np0");
        path.path = vec!["gpu002:ens1np0".into(), "leaf1:Ethernet8".into()];
        let mut other_path = path.clone();
        other_path.path.push("spine1:swp1".into());
        let mut findings = vec![
            Finding::new("nic.pfc_mismatch", Severity::Critical, "gpu002", "PFC off").port("ens1np0"),
            Finding::new("host.gdr_disabled", Severity::Error, "gpu004", "no peermem"),
            Finding::new("switch.ecn_threshold", Severity::Error, "leaf2", "Kmin 20 KB").port("Ethernet1/1"),
            Finding::new("switch.ecn_threshold", Severity::Error, "leaf2", "Kmax 50 KB").port("Ethernet1/1"),
            path,
            other_path,
            Finding::new("x.twin", Severity::Info, "h", "same"),
            Finding::new("x.twin", Severity::Info, "h", "same"),
        ];
        assign_ids(&mut findings);
        let got = ids(&findings);
        assert_eq!(&got[..2], ["nic.pfc_mismatch@gpu002:ens1np0", "host.gdr_disabled@gpu004"]);
        for id in &got[2..6] {
            assert!(id.len() == id.find('#').unwrap() + 9, "a base id and 8 hex digits: {id}");
        }
        assert_ne!(got[2], got[3], "Kmin and Kmax are two findings");
        assert_ne!(got[4], got[5], "two paths through one port");
        assert_eq!(got[7], format!("{}.2", got[6]), "twins in every field are told apart by rank");

        // The same findings in another run, in another order and with others beside them, have
        // the same ids.
        let mut again = findings.clone();
        again.reverse();
        again.push(Finding::new("nic.mtu_mismatch", Severity::Error, "gpu003", "MTU 1500").port("ens1np0"));
        assign_ids(&mut again);
        for f in &findings[..6] {
            assert!(again.iter().any(|g| g.id == f.id), "{} kept its id", f.id);
        }
    }
}
