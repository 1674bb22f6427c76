//! The mlx5 driver's DCQCN tree (MLNX_OFED's `en_sysfs.c`): `grep -H -d skip ''` over
//! `/sys/class/net/IF/ecn/roce_rp/enable/*`, `roce_np/enable/*`, `roce_rp/*` and `roce_np/*`.
//!
//! Each file prints one decimal and a newline (`sprintf("%d\n")`), so `grep -H` gives
//! `/sys/class/net/IF/ecn/roce_np/enable/3:1` and `/sys/class/net/IF/ecn/roce_np/cnp_dscp:48`.
//! An `enable/N` file whose firmware query fails prints nothing: that priority is absent, never
//! taken as 0. Also read: the `PATH = VALUE` lines of scripts that print the same files after a
//! label (`ECN Enabled for priority 3: /sys/class/net/eth0/ecn/roce_np/enable/3 = 1`, as the
//! spiderpool docs show). Every other line is a warning.

use crate::lines::{NamedValues, cut_line_skipped, numbered, split_at_byte, split_at_str, trim, unrecognised};
use crate::{ParseError, ParseResult, ParseWarning, Parsed};
pub use fabcheck_model::host::roce_ecn::RoceEcn;

/// One value read from the tree.
enum Entry<'a> {
    Enable { np: bool, prio: u8, on: bool },
    Param { np: bool, name: &'a str, value: i64 },
}

/// Parses the DCQCN files of one netdev.
pub fn parse(text: &str) -> ParseResult<RoceEcn> {
    let mut out = RoceEcn::default();
    let mut warnings = Vec::new();
    let (mut np, mut rp) = (NamedValues::new(), NamedValues::new());
    for l in numbered(text) {
        let (n, t) = (l.n, l.text);
        if !l.ended {
            warnings.push(ParseWarning::at(n, cut_line_skipped(t)));
            continue;
        }
        let Some((netdev, entry)) = entry(t) else {
            warnings.push(ParseWarning::at(n, unrecognised(t)));
            continue;
        };
        // The first line's netdev is copied once; every later line's is compared with it.
        match &out.netdev {
            Some(first) if first != netdev => {
                warnings
                    .push(ParseWarning::at(n, format!("another netdev (`{netdev}`) than the first line's, skipped")));
                continue;
            }
            Some(_) => {}
            None => out.netdev = Some(netdev.to_string()),
        }
        match entry {
            Entry::Enable { np: true, prio, on } => _ = out.np_enabled.insert(prio, on),
            Entry::Enable { np: false, prio, on } => _ = out.rp_enabled.insert(prio, on),
            Entry::Param { np: true, name, value } => np.insert(name, value),
            Entry::Param { np: false, name, value } => rp.insert(name, value),
        }
    }
    (out.np, out.rp) = (np.into_map(), rp.into_map());
    if out.netdev.is_none() {
        return Err(ParseError::at(0, "no `/sys/class/net/IF/ecn/roce_rp|roce_np/...` values"));
    }
    Ok(Parsed { value: out, warnings })
}

/// `…/sys/class/net/IF/ecn/roce_np/enable/3:1` or `… /sys/class/net/IF/ecn/roce_np/cnp_dscp = 48`.
fn entry(line: &str) -> Option<(&str, Entry<'_>)> {
    const TREE: &str = "/sys/class/net/";
    // grep's lines start with the path; only a script's labelled lines need a search.
    let rest = match line.strip_prefix(TREE) {
        Some(rest) => rest,
        None => split_at_str(line, TREE)?.1,
    };
    let (netdev, rest) = split_at_byte(rest, b'/')?;
    let rest = rest.strip_prefix("ecn/")?;
    let (point, rest) = split_at_byte(rest, b'/')?;
    let np = match point {
        "roce_np" => true,
        "roce_rp" => false,
        _ => return None,
    };
    // The file name ends at `:` (grep -H) or at ` = ` (a script's PATH = VALUE).
    let (file, value) = match split_at_str(rest, " = ") {
        Some((file, value)) => (file, value),
        None => split_at_byte(rest, b':')?,
    };
    let value: i64 = trim(value).parse().ok()?;
    let entry = match file.strip_prefix("enable/") {
        Some(prio) => {
            let prio: u8 = prio.parse().ok().filter(|p| *p < 8)?;
            let on = match value {
                0 => false,
                1 => true,
                _ => return None,
            };
            Entry::Enable { np, prio, on }
        }
        None if !file.is_empty() && file.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_') => {
            Entry::Param { np, name: file, value }
        }
        None => return None,
    };
    (!netdev.is_empty()).then_some((netdev, entry))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grep_lines_give_both_points_and_the_parameters() {
        let text = "/sys/class/net/ens1np0/ecn/roce_np/enable/3:1\n/sys/class/net/ens1np0/ecn/roce_rp/enable/3:0\n/sys/class/net/ens1np0/ecn/roce_np/cnp_dscp:48\n/sys/class/net/ens1np0/ecn/roce_np/cnp_802p_prio:6\n/sys/class/net/ens1np0/ecn/roce_rp/rpg_time_reset:300\n";
        let p = parse(text).unwrap();
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        let e = p.value;
        assert_eq!(e.netdev.as_deref(), Some("ens1np0"));
        assert_eq!((e.np_enabled[&3], e.rp_enabled[&3]), (true, false));
        assert_eq!((e.cnp_dscp(), e.cnp_802p_prio()), (Some(48), Some(6)));
        assert_eq!(e.rp["rpg_time_reset"], 300);
    }

    #[test]
    fn other_lines_are_warnings_and_nothing_readable_is_an_error() {
        let p = parse("grep: /sys/class/net/x/ecn/roce_rp/enable: Is a directory\n/sys/class/net/x/ecn/roce_np/enable/9:1\n/sys/class/net/x/ecn/roce_np/enable/1:1\n").unwrap();
        assert_eq!(p.warnings.iter().map(|w| w.line).collect::<Vec<_>>(), [1, 2]);
        assert!(parse("").is_err());
        assert!(parse("grep: /sys/class/net/ens1np0/ecn/roce_rp/enable/*: No such file or directory\n").is_err());
    }

    /// The first line names the netdev; a value read twice keeps the later one; another netdev's
    /// lines are skipped with a warning; a script's `PATH = VALUE` reads like grep's `PATH:VALUE`.
    #[test]
    fn the_first_netdev_and_the_last_value_of_a_file() {
        let text = "/sys/class/net/a/ecn/roce_rp/rpg_gd:11\n/sys/class/net/b/ecn/roce_rp/rpg_gd:1\n/sys/class/net/a/ecn/roce_rp/rpg_gd:12\nx: /sys/class/net/a/ecn/roce_np/enable/3 = 1\n";
        let p = parse(text).unwrap();
        assert_eq!(p.warnings.iter().map(|w| w.line).collect::<Vec<_>>(), [2]);
        assert_eq!((p.value.netdev.as_deref(), p.value.rp["rpg_gd"], p.value.np_enabled[&3]), (Some("a"), 12, true));
    }

    crate::lines::parser_never_panics!(
        parse,
        "/sys/class/net/ens1np0/ecn/roce_np/enable/3:1\n/sys/class/net/ens1np0/ecn/roce_np/cnp_dscp:48\n"
    );
}
