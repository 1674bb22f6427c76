//! `show_gids` (MLNX_OFED script): the GID table of every RDMA port, one GID per row.
//!
//! ```text
//! DEV     PORT    INDEX   GID                                     IPv4            VER     DEV
//! ---     ----    -----   ---                                     ------------    ---     ---
//! mlx5_2  1       2       0000:0000:0000:0000:0000:ffff:ac11:f238 172.17.242.56   v1      ens6
//! mlx5_5  1       0       fe80:0000:0000:0000:08c0:eb03:00b6:a0b4                 v1
//! n_gids_found=19
//! ```
//!
//! The columns are tab-separated and the IPv4 and netdev cells are often empty (link-local GIDs,
//! IB ports), so fixed positions do not work and splitting on whitespace leaves rows of 5 to 7
//! words. Rows are therefore read by content: DEV PORT INDEX GID, then an optional IPv4
//! address, the `v1`/`v2` version, and an optional netdev. Variants seen: an extra tab after the
//! IPv4 cell, every line indented (pasted into markdown), CRLF, prompt lines, a cut last row.
use crate::lines::{cut_off, no_facts, numbered, unrecognised_clipped};
use crate::{ParseResult, ParseWarning, Parsed};
pub use fabcheck_model::host::show_gids::{Gid, ShowGids};
use std::net::Ipv4Addr;

/// Parses `show_gids` output.
///
/// # Errors
/// Empty input, or neither the `DEV PORT INDEX GID` header nor a single GID row.
pub fn parse(text: &str) -> ParseResult<ShowGids> {
    let mut value = ShowGids { gids: Vec::new(), n_gids_found: None };
    let mut warnings = Vec::new();
    let mut header = false;
    // One buffer for the words of every line, not a new list per line.
    let mut words: Vec<&str> = Vec::new();
    for l in numbered(text) {
        let line = l.text;
        words.clear();
        words.extend(line.split_whitespace());
        let recognised = match words.as_slice() {
            ["DEV", "PORT", "INDEX", "GID", ..] => {
                header = true;
                true
            }
            _ if words.iter().all(|w| w.chars().all(|c| c == '-')) => true,
            _ => match line.strip_prefix("n_gids_found=") {
                Some(n) => {
                    value.n_gids_found = n.trim().parse().ok();
                    value.n_gids_found.is_some()
                }
                None => row(&words).map(|g| value.gids.push(g)).is_some(),
            },
        };
        if !recognised {
            warnings.push(ParseWarning::at(l.n, unrecognised_clipped(line)));
        }
    }
    if !header && value.gids.is_empty() {
        return Err(no_facts(
            text,
            "empty show_gids output",
            "no `DEV PORT INDEX GID` header and no GID row: not show_gids output",
        ));
    }
    let cut = cut_off(text);
    // show_gids counts the rows it prints and ends with the count: without it, or with another
    // count, rows are missing (a capture cut at a line end, a table pasted in part).
    let last = text.lines().count();
    match value.n_gids_found {
        None if header && cut.is_none() && !text.contains("n_gids_found=") => warnings.push(ParseWarning::at(
            last,
            "no `n_gids_found=` line after the table: show_gids ends with it, so GIDs may be missing",
        )),
        Some(n) if usize::try_from(n).ok() != Some(value.gids.len()) => warnings.push(ParseWarning::at(
            last,
            format!("n_gids_found={n}, but {} GID rows were read: GIDs may be missing", value.gids.len()),
        )),
        _ => {}
    }
    warnings.extend(cut);
    Ok(Parsed { value, warnings })
}

/// `DEV PORT INDEX GID [IPv4] VER [netdev]`, or `None`.
fn row(words: &[&str]) -> Option<Gid> {
    let [dev, port, index, gid, rest @ ..] = words else {
        return None;
    };
    if !gid.contains(':') {
        return None;
    }
    let (ipv4, rest) = match rest {
        [ip, tail @ ..] if ip.parse::<Ipv4Addr>().is_ok() => (Some(ip.to_string()), tail),
        _ => (None, rest),
    };
    let (version, netdev) = match rest {
        [v] => (*v, None),
        [v, dev] => (*v, Some(dev.to_string())),
        _ => return None,
    };
    let mut chars = version.chars();
    if chars.next() != Some('v') || !chars.all(|c| c.is_ascii_digit()) || version.len() < 2 {
        return None;
    }
    Some(Gid {
        dev: dev.to_string(),
        port: port.parse().ok()?,
        index: index.parse().ok()?,
        gid: gid.to_string(),
        ipv4,
        version: version.to_string(),
        netdev,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str =
        include_str!("../../tests/fixtures/show_gids/show_gids-centos12-19-gids-mixed-roce-ib-magnate3.txt");

    #[test]
    fn rows_are_read_by_content() {
        let text = "mlx5_0\t1\t3\t0000:0000:0000:0000:0000:ffff:0b00:0048\t11.0.0.72\t\tv2\tens3np0\n\
                    mlx5_1\t1\t0\tfe80:0000:0000:0000:a288:c2ff:fe5b:0374\t\t\tv1\n";
        let gids = parse(text).expect("parses").value.gids;
        assert_eq!(gids[0].ipv4.as_deref(), Some("11.0.0.72"));
        assert_eq!(gids[0].netdev.as_deref(), Some("ens3np0"));
        assert_eq!((gids[1].ipv4.clone(), gids[1].netdev.clone()), (None, None));
    }

    #[test]
    fn rocev2_index_needs_v2_and_ipv4() {
        let text = "mlx5_0 1 1 fe80::1 v2 eth0\nmlx5_0 1 5 ::ffff:10.0.0.1 10.0.0.1 v2 eth0\n\
                    mlx5_0 1 3 ::ffff:10.0.0.1 10.0.0.1 v2 eth0\nmlx5_0 1 2 ::ffff:10.0.0.1 10.0.0.1 v1 eth0\n";
        let gids = parse(text).expect("parses").value;
        assert_eq!(gids.rocev2_ipv4_index("mlx5_0", 1), Some(3));
        assert_eq!(gids.rocev2_ipv4_index("mlx5_0", 2), None);
    }

    #[test]
    fn bad_rows_warn_and_foreign_text_fails() {
        let parsed =
            parse("DEV PORT INDEX GID IPv4 VER DEV\nmlx5_0 1 x fe80::1 v1\nn_gids_found=oops\n").expect("header");
        assert_eq!(parsed.warnings.iter().map(|w| w.line).collect::<Vec<_>>(), [2, 3]);
        assert!(parse("").is_err());
        assert!(parse("total 0\n").is_err());
    }

    crate::lines::parser_never_panics!(parse, SAMPLE);
}
