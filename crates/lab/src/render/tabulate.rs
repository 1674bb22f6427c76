//! The tables sonic-utilities prints: python `tabulate(rows, headers, tablefmt="simple",
//! stralign="right")`, as `intfutil`, `pfcstat`, `queuestat` and `pfcwd` call it.
//!
//! Each column is as wide as its widest cell, and at least its header plus two (tabulate's
//! `MIN_PADDING`); headers and cells are right-aligned; columns are separated by two spaces, and
//! the rule under the headers is one run of dashes per column.
//!
//! ```text
//!   Port Rx    PFC0    PFC1
//! ---------  ------  ------
//! Ethernet0   1,200     201
//! ```

use std::fmt::Write as _;

/// The table, each line ended by `\n`.
pub(crate) fn tabulate(headers: &[&str], rows: &[Vec<String>]) -> String {
    let widths: Vec<usize> = headers
        .iter()
        .enumerate()
        .map(|(i, h)| rows.iter().filter_map(|r| r.get(i)).map(|c| c.chars().count()).fold(h.len() + 2, usize::max))
        .collect();
    let mut out = String::new();
    let line = |out: &mut String, cells: &mut dyn Iterator<Item = &str>| {
        let parts: Vec<String> = cells.zip(&widths).map(|(c, w)| format!("{c:>w$}")).collect();
        let _ = writeln!(out, "{}", parts.join("  "));
    };
    line(&mut out, &mut headers.iter().copied());
    let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    let _ = writeln!(out, "{}", rule.join("  "));
    for r in rows {
        line(&mut out, &mut r.iter().map(String::as_str));
    }
    out
}

/// A counter as python's `format(n, ',')` prints it: `1,234,567`.
pub(crate) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_layout_as_pfcstat() {
        let sample = "  Port Rx    PFC0    PFC1\n---------  ------  ------\nEthernet0   1,200     201\n";
        let rows = vec![vec!["Ethernet0".to_string(), thousands(1200), thousands(201)]];
        assert_eq!(tabulate(&["Port Rx", "PFC0", "PFC1"], &rows), sample);
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(123_456), "123,456");
    }
}
