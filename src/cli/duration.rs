//! Durations on the command line: `10s`, `500ms`, `2m`, or plain seconds (`10`, `0.5`).

use std::time::Duration;

/// Parses a duration for clap.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (number, unit) = match s.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => s.split_at(i),
        None => (s, "s"),
    };
    let value: f64 = number.parse().map_err(|_| format!("`{s}` is not a duration (e.g. 10s, 500ms, 2m)"))?;
    let seconds = match unit {
        "ms" => value / 1000.0,
        "s" => value,
        "m" => value * 60.0,
        _ => return Err(format!("unknown unit `{unit}` in `{s}` (use ms, s or m)")),
    };
    if !seconds.is_finite() || seconds < 0.0 {
        return Err(format!("`{s}` is not a duration"));
    }
    // Every duration is added to a clock reading somewhere; one this long would overflow it
    // (and is a typo: no audit window, timeout or benchmark runs for a year).
    if seconds > MAX_SECONDS {
        return Err(format!("`{s}` is longer than fabcheck allows (365 days)"));
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// Parses a limit (`--connect-timeout`, `--command-timeout`, `--device-timeout`, `bench
/// --timeout`): a duration above zero. A limit of zero fails every device or run without trying
/// it, while a zero counter window (`--window 0`, read twice back to back) is meaningful, so only
/// the limits refuse it.
pub fn parse_limit(s: &str) -> Result<Duration, String> {
    match parse_duration(s)? {
        d if d.is_zero() => Err(format!("`{}` leaves no time at all: a limit must be above zero (e.g. 10s)", s.trim())),
        d => Ok(d),
    }
}

/// The longest duration accepted: a year.
const MAX_SECONDS: f64 = 365.0 * 86_400.0;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        assert_eq!(parse_duration("10"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("0"), Ok(Duration::ZERO));
        assert!(parse_duration("-1").is_err());
        assert!(parse_duration("10h").is_err());
        assert!(parse_duration("soon").is_err());
        assert_eq!(parse_duration("365d"), Err("unknown unit `d` in `365d` (use ms, s or m)".to_string()));
        for huge in ["99999999999999999999", "99999999999999999999m", "1000000000000000000000000000000s", "525601m"] {
            assert!(parse_duration(huge).unwrap_err().contains("longer than fabcheck allows"), "{huge}");
        }
        assert_eq!(parse_duration("525600m"), Ok(Duration::from_secs(365 * 86_400)));
    }

    #[test]
    fn a_limit_is_above_zero() {
        for zero in ["0", "0s", "0ms", " 0.0m "] {
            assert_eq!(
                parse_limit(zero),
                Err(format!("`{}` leaves no time at all: a limit must be above zero (e.g. 10s)", zero.trim())),
                "{zero}"
            );
        }
        assert_eq!(parse_limit("1ms"), Ok(Duration::from_millis(1)));
        assert_eq!(parse_limit("10s"), Ok(Duration::from_secs(10)));
        assert!(parse_limit("soon").unwrap_err().contains("is not a duration"));
    }
}
