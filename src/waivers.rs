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

/// The waivers of a file, each checked: a date that is not a real `YYYY-MM-DD` day or an empty
/// reason is an error naming the file and the waiver.
pub fn load(path: &Path) -> anyhow::Result<(String, Vec<Waiver>)> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading waivers {}", path.display()))?;
    let file: File = serde_saphyr::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    for (i, w) in file.waivers.iter().enumerate() {
        let at = format!("{}: waiver {} ({} on {})", path.display(), i + 1, w.code, w.device);
        if let Err(why) = check_date(&w.expires) {
            anyhow::bail!("{at}: expires `{}` is not a date ({why})", w.expires);
        }
        if w.reason.trim().is_empty() {
            anyhow::bail!("{at}: a waiver needs a reason");
        }
    }
    let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
    Ok((name, file.waivers))
}

/// Whether `s` is a day of the calendar as `YYYY-MM-DD`, and if not, why. The form alone is not
/// enough: dates are compared as text with today's, so `2099-13-45` would waive until 2099.
fn check_date(s: &str) -> Result<(), String> {
    let b = s.as_bytes();
    let form = b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter().enumerate().all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit());
    if !form {
        return Err("YYYY-MM-DD".into());
    }
    let number = |range: std::ops::Range<usize>| s[range].parse::<u32>().unwrap_or(0);
    let (year, month, day) = (number(0..4), number(5..7), number(8..10));
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return Err(format!("there is no month {month}")),
    };
    if !(1..=days).contains(&day) {
        return Err(format!("month {month} of {year} has days 1 to {days}"));
    }
    Ok(())
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
        let impossible = write("waivers:\n  - { code: nic.x, device: gpu1, reason: r, expires: 2099-13-45 }\n");
        assert!(
            impossible.ends_with(
                "w.yaml: waiver 1 (nic.x on gpu1): expires `2099-13-45` is not a date (there is no month 13)"
            ),
            "{impossible}"
        );
        let no_reason = write("waivers:\n  - { code: nic.x, device: gpu1, reason: ' ', expires: 2026-12-31 }\n");
        assert!(no_reason.ends_with("a waiver needs a reason"), "{no_reason}");
        let unknown = write("waivers:\n  - { code: nic.x, device: gpu1, reason: r, expires: 2026-12-31, until: x }\n");
        assert!(unknown.contains("unknown field `until`"), "{unknown}");
    }

    /// Issue 34: a date of the right form that is no day of the calendar waived until its
    /// year, as the dates are compared as text.
    #[test]
    fn r34_an_expiry_is_a_day_of_the_calendar() {
        for good in ["2026-12-31", "2028-02-29", "2000-02-29", "2026-04-30", "2026-01-01"] {
            assert_eq!(check_date(good), Ok(()), "{good}");
        }
        for (bad, why) in [
            ("2099-13-45", "there is no month 13"),
            ("2099-00-10", "there is no month 0"),
            ("2026-02-29", "month 2 of 2026 has days 1 to 28"),
            ("1900-02-29", "month 2 of 1900 has days 1 to 28"),
            ("2026-04-31", "month 4 of 2026 has days 1 to 30"),
            ("2026-01-00", "month 1 of 2026 has days 1 to 31"),
            ("2026-1-01", "YYYY-MM-DD"),
            ("２０２６-01-01", "YYYY-MM-DD"),
        ] {
            assert_eq!(check_date(bad), Err(why.to_string()), "{bad}");
        }
    }
}
