//! `grep -H '' /proc/sys/net/ipv4/conf/*/arp_ignore /proc/sys/net/ipv4/conf/*/arp_announce
//! /proc/sys/net/ipv4/conf/*/rp_filter`: per interface (and `all`, `default`), one line per file.
//!
//! ```text
//! /proc/sys/net/ipv4/conf/all/arp_ignore:0
//! /proc/sys/net/ipv4/conf/ens1np0/arp_announce:2
//! ```
//!
//! The interface and the setting come from the path, whatever its prefix; a value that is not a
//! number, or a setting other than the three, is a warning on its line.
use crate::lines::{cut_line_skipped, no_facts, numbered, unrecognised_clipped};
use crate::{ParseResult, ParseWarning, Parsed};
pub use fabcheck_model::host::net_conf::{ConfValues, NetConf};

/// Parses the `grep -H` listing.
///
/// # Errors
/// No `.../conf/<if>/<setting>:<value>` line.
pub fn parse(text: &str) -> ParseResult<NetConf> {
    let mut conf = NetConf::default();
    let mut warnings = Vec::new();
    for l in numbered(text) {
        if !l.ended {
            warnings.push(ParseWarning::at(l.n, cut_line_skipped(l.text)));
            continue;
        }
        let Some((interface, setting, value)) = conf_line(l.text) else {
            warnings.push(ParseWarning::at(l.n, unrecognised_clipped(l.text)));
            continue;
        };
        // Each interface has three lines: its name is copied for the first only, not for every
        // line as `entry` would.
        match conf.interfaces.get_mut(interface) {
            Some(values) => set(values, setting, value),
            None => {
                let mut values = ConfValues::default();
                set(&mut values, setting, value);
                conf.interfaces.insert(interface.to_string(), values);
            }
        }
    }
    if conf.interfaces.is_empty() {
        return Err(no_facts(
            text,
            "empty output: no /proc/sys/net/ipv4/conf file read",
            "no `.../conf/<interface>/<setting>:<value>` line: not the IPv4 interface settings",
        ));
    }
    Ok(Parsed { value: conf, warnings })
}

/// Stores `value` as `setting`, one of the three [`conf_line`] accepts.
fn set(values: &mut ConfValues, setting: &str, value: u32) {
    match setting {
        "arp_ignore" => values.arp_ignore = Some(value),
        "arp_announce" => values.arp_announce = Some(value),
        _ => values.rp_filter = Some(value),
    }
}

/// `<prefix>/conf/<interface>/<setting>:<value>` for the three settings.
fn conf_line(line: &str) -> Option<(&str, &str, u32)> {
    let (path, value) = line.rsplit_once(':')?;
    let mut parts = path.rsplit('/');
    let setting = parts.next().filter(|s| ["arp_ignore", "arp_announce", "rp_filter"].contains(s))?;
    let interface = parts.next().filter(|i| !i.is_empty())?;
    (parts.next()? == "conf").then_some(())?;
    Some((interface, setting, value.trim().parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_by_interface_and_the_effective_value() {
        let text = "/proc/sys/net/ipv4/conf/all/arp_ignore:0\n/proc/sys/net/ipv4/conf/all/rp_filter:0\n/proc/sys/net/ipv4/conf/ens1np0/arp_ignore:2\n/proc/sys/net/ipv4/conf/ens1np0/rp_filter:2\n/proc/sys/net/ipv4/conf/ens1np0/arp_announce:x\n/proc/sys/net/ipv4/conf/ens2np0/arp_ignore:0\n/proc/sys/net/ipv4/conf/ens2np0/arp_ignore:1";
        let parsed = parse(text).expect("parses");
        let c = &parsed.value;
        assert_eq!(c.interfaces["ens1np0"].arp_ignore, Some(2));
        assert_eq!(c.effective("ens1np0"), ConfValues { arp_ignore: Some(2), arp_announce: None, rp_filter: Some(2) });
        assert_eq!(c.effective("ens2np0").arp_ignore, Some(0), "the cut last line is not read");
        assert_eq!(parsed.warnings.iter().map(|w| w.line).collect::<Vec<_>>(), [5, 7]);
        assert!(parse("").is_err());
    }
}
