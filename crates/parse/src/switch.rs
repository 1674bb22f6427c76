//! The vendor-neutral switch model every vendor parser produces (it lives in `fabcheck_model`,
//! which the checks read), and the unit conversion the parsers share.

pub use fabcheck_model::switch::*;

/// A size with its unit converted to bytes. `cell_bytes` is the switch's buffer cell size (for
/// `cells`), `mss_bytes` the segment size (for `segments`). Unknown units give `None`, never a guess.
pub fn to_bytes(value: f64, unit: &str, cell_bytes: Option<u64>, mss_bytes: Option<u64>) -> Option<u64> {
    if !value.is_finite() || value < 0.0 {
        return None;
    }
    let factor = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" | "byte" | "bytes" => 1.0,
        "kb" | "kbyte" | "kbytes" | "k" => 1024.0,
        "mb" | "mbyte" | "mbytes" | "m" => 1024.0 * 1024.0,
        "cell" | "cells" => cell_bytes? as f64,
        "segment" | "segments" => mss_bytes? as f64,
        _ => return None,
    };
    let bytes = value * factor;
    (bytes <= u64::MAX as f64).then(|| bytes.round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_convert_to_bytes_explicitly() {
        assert_eq!(to_bytes(320.0, "kbytes", None, None), Some(327_680));
        assert_eq!(to_bytes(1.43, "MB", None, None), Some(1_499_464));
        assert_eq!(to_bytes(146.48, "KB", None, None), Some(149_996));
        assert_eq!(to_bytes(100.0, "cells", Some(254), None), Some(25_400));
        assert_eq!(to_bytes(100.0, "cells", None, None), None, "no cell size, no guess");
        assert_eq!(to_bytes(10.0, "segments", None, Some(1500)), Some(15_000));
        assert_eq!(to_bytes(2_000_000.0, "", None, None), Some(2_000_000));
        assert_eq!(to_bytes(1.0, "furlongs", None, None), None);
        assert_eq!(to_bytes(f64::NAN, "", None, None), None);
    }
}
