//! RFC 3339 UTC timestamps without a date crate: the records' times, and the audit's start
//! (`fabcheck`'s `started` uses this one function too).

/// `secs` since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ`, with `nanos` as a 9-digit fraction
/// when given.
pub fn rfc3339(secs: u64, nanos: Option<u32>) -> String {
    let days = secs / 86_400;
    let (h, m, s) = ((secs % 86_400) / 3600, (secs % 3600) / 60, secs % 60);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let mo = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(mo <= 2);
    let fraction = nanos.map(|n| format!(".{n:09}")).unwrap_or_default();
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{m:02}:{s:02}{fraction}Z")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_across_leap_years_and_fractions() {
        assert_eq!(rfc3339(0, None), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_795_989_296, None), "2026-11-29T21:54:56Z");
        assert_eq!(rfc3339(951_782_400, None), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_700_000_000, Some(123)), "2023-11-14T22:13:20.000000123Z");
    }
}
