//! Waivers (`--waivers FILE`): findings an operator has accepted for a while, with a reason
//! and an expiry date. A waived finding is still reported, marked as waived, and never fails
//! the run; a waiver past its date waives nothing and is itself a warning, so a forgotten one
//! cannot hide a fault for ever.
//!
//! ```yaml
//! waivers:
//!   - code: nic.link_degraded        # a code, or a glob (`nic.*`)
//!     device: gpu00*                 # a glob on the device name (`*`, `?`)
//!     port: ens2np0                  # optional: a glob on the port
//!     reason: RMA 4711, cable replacement on 2026-12-10
//!     expires: 2026-12-31            # the last day it applies (UTC)
//! ```
use anyhow::Context;
use fabcheck_inventory::wildcard_match;
use fabcheck_model::{Finding, Severity};
use serde::Deserialize;
use std::path::Path;

/// The file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    waivers: Vec<Waiver>,
}

/// One waiver.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Waiver {
    code: String,
    device: String,
    #[serde(default)]
    port: Option<String>,
    reason: String,
    expires: String,
}

/// The waivers of a file, each checked: a date that is not `YYYY-MM-DD` or an empty reason is
/// an error naming the file and the waiver.
pub fn load(path: &Path) -> anyhow::Result<(String, Vec<Waiver>)> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading waivers {}", path.display()))?;
    let file: File = serde_saphyr::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    for (i, w) in file.waivers.iter().enumerate() {
        let at = format!("{}: waiver {} ({} on {})", path.display(), i + 1, w.code, w.device);
        if !is_date(&w.expires) {
            anyhow::bail!("{at}: expires `{}` is not a date (YYYY-MM-DD)", w.expires);
        }
        if w.reason.trim().is_empty() {
            anyhow::bail!("{at}: a waiver needs a reason");
        }
    }
    let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
    Ok((name, file.waivers))
}

fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter().enumerate().all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

/// Marks the findings the waivers accept on `today` (`YYYY-MM-DD`, UTC) as waived, and adds a
/// `waiver.expired` warning (on `file`, the waivers' file name) for each waiver past its date.
pub fn apply(findings: &mut Vec<Finding>, waivers: &[Waiver], today: &str, file: &str) {
    let (live, expired): (Vec<&Waiver>, Vec<&Waiver>) = waivers.iter().partition(|w| w.expires.as_str() >= today);
    for f in findings.iter_mut().filter(|f| f.waived.is_none()) {
        if let Some(w) = live.iter().find(|w| covers(w, f)) {
            f.waived = Some(format!("{} (until {})", w.reason, w.expires));
        }
    }
    for w in expired {
        let port = w.port.as_deref().map(|p| format!(" port {p}")).unwrap_or_default();
        findings.push(
            Finding::new(
                "waiver.expired",
                Severity::Warning,
                file,
                format!(
                    "the waiver of {} on {}{port} expired on {}: it waives nothing now ({})",
                    w.code, w.device, w.expires, w.reason
                ),
            )
            .expected_actual(format!("expires on or after {today}"), w.expires.clone()),
        );
    }
}

/// Whether waiver `w` covers finding `f`: code, device and (when the waiver names one) port.
fn covers(w: &Waiver, f: &Finding) -> bool {
    wildcard_match(&w.code, &f.code)
        && wildcard_match(&w.device, &f.device)
        && w.port.as_deref().is_none_or(|p| f.port.as_deref().is_some_and(|fp| wildcard_match(p, fp)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn waiver(code: &str, device: &str, port: Option<&str>, expires: &str) -> Waiver {
        Waiver {
            code: code.into(),
            device: device.into(),
            port: port.map(String::from),
            reason: "RMA 4711".into(),
            expires: expires.into(),
        }
    }

    #[test]
    fn a_live_waiver_marks_what_it_covers_and_an_expired_one_is_a_warning() {
        let mut findings = vec![
            Finding::new("nic.link_degraded", Severity::Error, "gpu007", "half rate").port("ens2np0"),
            Finding::new("nic.link_degraded", Severity::Error, "gpu007", "half rate").port("ens1np0"),
            Finding::new("nic.mtu_mismatch", Severity::Error, "gpu012", "MTU"),
            Finding::new("host.gdr_disabled", Severity::Error, "gpu004", "no peermem"),
        ];
        let waivers = [
            waiver("nic.*", "gpu00?", Some("ens2*"), "2026-12-31"),
            waiver("nic.mtu_mismatch", "gpu01*", None, "2026-12-01"),
            waiver("host.gdr_disabled", "gpu004", None, "2026-11-30"),
        ];
        apply(&mut findings, &waivers, "2026-12-01", "waivers.yaml");
        let waived: Vec<Option<&str>> = findings.iter().map(|f| f.waived.as_deref()).collect();
        assert_eq!(
            waived,
            [Some("RMA 4711 (until 2026-12-31)"), None, Some("RMA 4711 (until 2026-12-01)"), None, None],
            "the port must match; the last day still applies; an expired waiver waives nothing"
        );
        let expired = &findings[4];
        assert_eq!(
            (expired.code.as_str(), expired.severity, expired.device.as_str()),
            ("waiver.expired", Severity::Warning, "waivers.yaml")
        );
        assert!(expired.message.contains("host.gdr_disabled on gpu004 expired on 2026-11-30"), "{}", expired.message);
    }

    #[test]
    fn a_bad_waiver_file_is_an_error_that_names_the_waiver() {
        let dir = tempfile::tempdir().unwrap();
        let write = |text: &str| {
            let p = dir.path().join("w.yaml");
            std::fs::write(&p, text).unwrap();
            load(&p).map(|_| ()).unwrap_err().to_string()
        };
        let bad_date = write("waivers:\n  - { code: nic.x, device: gpu1, reason: r, expires: 31/12/2026 }\n");
        assert!(
            bad_date.ends_with("w.yaml: waiver 1 (nic.x on gpu1): expires `31/12/2026` is not a date (YYYY-MM-DD)"),
            "{bad_date}"
        );
        let no_reason = write("waivers:\n  - { code: nic.x, device: gpu1, reason: ' ', expires: 2026-12-31 }\n");
        assert!(no_reason.ends_with("a waiver needs a reason"), "{no_reason}");
        let unknown = write("waivers:\n  - { code: nic.x, device: gpu1, reason: r, expires: 2026-12-31, until: x }\n");
        assert!(unknown.contains("unknown field `until`"), "{unknown}");
    }
}
