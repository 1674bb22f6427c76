//! RFC 3339 `started` times as Unix timestamps, for Prometheus and for comparing runs.

/// Seconds since the Unix epoch of `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`, or `None` if `s` is
/// not in that form.
pub fn unix_seconds(s: &str) -> Option<f64> {
    let t = chrono::DateTime::parse_from_rfc3339(s).ok()?;
    Some(t.timestamp() as f64 + f64::from(t.timestamp_subsec_nanos()) / 1e9)
}

#[cfg(test)]
mod tests {
    use super::unix_seconds;

    #[test]
    fn parses_the_forms_fabcheck_and_chrono_write() {
        assert_eq!(unix_seconds("1970-01-01T00:00:00Z"), Some(0.0));
        assert_eq!(unix_seconds("2000-03-01T00:00:00Z"), Some(951_868_800.0));
        assert_eq!(unix_seconds("2025-03-14T02:59:26+01:00"), Some(1_741_917_566.0));
        assert_eq!(unix_seconds("2025-03-14T01:59:26.5Z"), Some(1_741_917_566.5));
        assert_eq!(unix_seconds("2025-03-13T20:59:26-04:00"), Some(1_741_913_966.0));
    }

    #[test]
    fn rejects_anything_else() {
        for bad in [
            "",
            "yesterday",
            "2025-03-14",
            "2025-03-14T02:59:26",
            "2025-13-14T02:59:26Z",
            "2025-03-14T02:59:26.Z",
            "2025-03-14T02:59:26+0100",
            "2025-03-14T02:59:26Zjunk",
            "２０２５-03-14T02:59:26Z",
        ] {
            assert_eq!(unix_seconds(bad), None, "{bad}");
        }
    }
}
