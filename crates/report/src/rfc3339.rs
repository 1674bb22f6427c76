//! Just enough RFC 3339 to turn `AuditResult::started` into a Unix timestamp for Prometheus.
//!
//! A date library would be a dependency for one number; the format fabcheck writes is fixed.

/// Seconds since the Unix epoch of `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`, or `None` if `s` is
/// not in that form.
pub fn unix_seconds(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let num = |range: std::ops::Range<usize>| -> Option<i64> {
        let part = s.get(range)?;
        part.bytes().all(|c| c.is_ascii_digit()).then(|| part.parse().ok())?
    };
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[13] != b':' || b[16] != b':' {
        return None;
    }
    if !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let mut rest = &s[19..];
    let mut fraction = 0.0;
    if let Some(after_dot) = rest.strip_prefix('.') {
        let digits = after_dot.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        fraction = format!("0.{}", &after_dot[..digits]).parse().ok()?;
        rest = &after_dot[digits..];
    }
    let offset = match rest.as_bytes() {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let digit = |c: &u8| c.is_ascii_digit().then(|| i64::from(c - b'0'));
            let minutes = (digit(h1)? * 10 + digit(h2)?) * 60 + digit(m1)? * 10 + digit(m2)?;
            if *sign == b'+' { minutes * 60 } else { -minutes * 60 }
        }
        _ => return None,
    };
    let days = days_from_civil(year, month, day);
    let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offset;
    Some(seconds as f64 + fraction)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
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
