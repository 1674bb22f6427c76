//! `mlnx_qos -i IF` (mlnx-tools python/mlnx_qos, the version that prints `max_buffer_size=`).
//!
//! Layout from the tool's `pretty_print()` and mlnx_qos/cx7-fw28.39-ens4np0-trust-dscp-pfc5-custom-
//! dscp2prio-3fs-doc.txt (ConnectX-7): `DCBX mode`, `Priority trust state`, `dscp2prio mapping:`
//! only when trust is dscp, `default priority:`, `Receive buffer size (bytes): ..,max_buffer_size=N`,
//! `Cable len`, the PFC table (`\tenabled     ` then `%1d   ` per priority, trailing spaces
//! included), then `tc: N ratelimit: unlimited, tsa: vendor` and `\t priority:  P` for each TC that
//! has priorities (`sorted(tc2up)`).
//!
//! dscp2prio rows come from the kernel's DCB app list, which `dcb_app_add()` fills at its head:
//! the driver adds DSCP 0..63 in order at trust-dscp time, so each row reads descending, and a
//! DSCP remapped later (`--dscp2prio set,26,0`) is the newest entry, first in its new
//! priority's row (the CX7 sample: `prio:5 dscp:40,47,46,...`). A row longer than 24 characters
//! (eight DSCPs) wraps onto another `prio:N` line, as `printAppSelector` does.
//!
//! An interface without DCB (IPoIB) or that does not exist makes every netlink query fail: the
//! four "not supported" lines and exit status 1 (a published run on a VLAN interface).
//!
//! Setting (`--pfc LIST`, `--trust dscp|pcp`, `--dscp2prio set|del,DSCP,PRIO|flush`, as `--opt V`
//! or `--opt=V`) follows the tool's source (mlnx-tools python/mlnx_qos, optparse): its checks and
//! messages, then the whole configuration printed as it is after the change, status 0; the DSCP
//! map changes as mlx5's DCB callbacks change it (see `set_trust` and `apply_map`).

use crate::build::firmware_dscp_map;
use crate::shell::{Output, not_simulated};
use crate::state::{LabHost, LabNic, LinkLayer, Trust};
use std::fmt::Write as _;

/// optparse's usage text, which the tool prints after a bad value (on stdout, its own
/// `print_usage()`) and before an option error (on stderr).
const USAGE: &str = "Usage: mlnx_qos -i <interface> [options]\n\n";

/// The tool's options as optparse knows them: their names, canonical (long) name last, and
/// whether each takes a value.
const OPTIONS: [(&[&str], bool); 18] = [
    (&["-f", "--pfc"], true),
    (&["-F", "--specific_pfc"], true),
    (&["-P", "--get_pfc"], true),
    (&["-p", "--prio_tc"], true),
    (&["-s", "--tsa"], true),
    (&["-t", "--tcbw"], true),
    (&["-r", "--ratelimit"], true),
    (&["-d", "--dcbx"], true),
    (&["--trust"], true),
    (&["--dscp2prio"], true),
    (&["--defltprio"], true),
    (&["--cable_len"], true),
    (&["--prio2buffer"], true),
    (&["--buffer_size"], true),
    (&["-i", "--interface"], true),
    (&["-a"], false),
    (&["-h", "--help"], false),
    (&["--version"], false),
];

/// What a command line asks, as optparse reads it (each option by its canonical name).
#[derive(Debug, Default)]
struct Request {
    options: Vec<(&'static str, String)>,
    positional: Vec<String>,
}

/// optparse's reading of `args`: `--name value`, `--name=value`, `-x value`, `-xvalue`, flags
/// clustered (`-ai IF`), `--` ending the options; `--version` answers at once (`--help` would:
/// not simulated). An unknown option or a missing value is optparse's error: the usage and
/// `mlnx_qos: error: ...` on stderr, status 2.
fn parse(args: &[String]) -> Result<Request, Output> {
    let error = |message: String| Output::fail(2, "", format!("{USAGE}mlnx_qos: error: {message}\n"));
    let find = |name: &str| OPTIONS.iter().find(|(names, _)| names.contains(&name));
    let mut request = Request::default();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        // Each option as written, with the value attached to it.
        let mut pending: Vec<(String, Option<String>)> = Vec::new();
        if arg == "--" {
            request.positional.extend(it.by_ref().cloned());
        } else if let Some(long) = arg.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (format!("--{n}"), Some(v.to_string())),
                None => (arg.clone(), None),
            };
            pending.push((name, value));
        } else if let Some(shorts) = arg.strip_prefix('-').filter(|s| !s.is_empty()) {
            // Flags may be clustered; the first option taking a value takes the rest of the word.
            for (i, c) in shorts.char_indices() {
                let name = format!("-{c}");
                let rest = &shorts[i + c.len_utf8()..];
                if find(&name).is_some_and(|(_, takes)| *takes) {
                    pending.push((name, (!rest.is_empty()).then(|| rest.to_string())));
                    break;
                }
                pending.push((name, None));
            }
        } else {
            request.positional.push(arg.clone());
        }
        for (name, attached) in pending {
            let Some((names, takes)) = find(&name) else {
                return Err(error(format!("no such option: {name}")));
            };
            let canonical = names.last().copied().unwrap_or_default();
            let value = match (takes, attached) {
                (true, Some(v)) => v,
                (true, None) => match it.next() {
                    Some(v) => v.clone(),
                    None => return Err(error(format!("{name} option requires 1 argument"))),
                },
                (false, Some(_)) => return Err(error(format!("{name} option does not take a value"))),
                (false, None) if canonical == "--version" => return Err(Output::ok("mlnx_qos 1.2\n")),
                (false, None) if canonical == "--help" => return Err(not_simulated("mlnx_qos", "--help")),
                (false, None) => String::new(),
            };
            request.options.push((canonical, value));
        }
    }
    Ok(request)
}

/// One `--dscp2prio` action on the port's DSCP app table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MapAction {
    Set { dscp: u8, prio: u8 },
    Del { dscp: u8, prio: u8 },
    Flush,
}

/// Python's `int()` of a command-line value: surrounding blanks, a sign, decimal digits.
fn python_int(text: &str) -> Option<i64> {
    text.trim().parse().ok()
}

/// The tool's `parse_int()`: an integer in `min..=max`, else `Bad value for WHAT: ...` and the
/// usage on stdout, status 1.
fn parse_int(text: &str, min: i64, max: i64, what: &str) -> Result<i64, Output> {
    let bad = |why: String| Output::fail(1, format!("Bad value for {what}: {why}\n{USAGE}"), "");
    let v = python_int(text).ok_or_else(|| bad(format!("invalid literal for int() with base 10: '{text}'")))?;
    if v < min || v > max {
        return Err(bad(format!("{v} is not in the range {min}..{max}")));
    }
    Ok(v)
}

/// `--pfc LIST`: exactly eight 0/1 flags, priorities 0 to 7, checked as the tool checks them.
fn parse_pfc(list: &str) -> Result<[bool; 8], Output> {
    let mut pfc = [false; 8];
    let mut items = list.split(',');
    for flag in &mut pfc {
        let Some(item) = items.next() else {
            return Err(Output::fail(1, "pfc list must have 8 items\n", ""));
        };
        *flag = parse_int(item, 0, 1, "PFC")? == 1;
    }
    match items.next() {
        Some(_) => Err(Output::fail(1, "Too many items for PFC\n", "")),
        None => Ok(pfc),
    }
}

/// `--dscp2prio set|del,DSCP,PRIO` or `flush`: a malformed one is the tool's `Invalid dscp2prio
/// command`; a negative number passes its checks and fails in the kernel (`dscp2prio command
/// failed`), status 1 either way.
fn parse_map(opt: &str) -> Result<MapAction, Output> {
    let invalid = || Output::fail(1, "Invalid dscp2prio command. Refer to the help.\n", "");
    if opt == "flush" {
        return Ok(MapAction::Flush);
    }
    let [action, dscp, prio] = opt.split(',').collect::<Vec<_>>()[..] else {
        return Err(invalid());
    };
    let (Some(dscp), Some(prio)) = (python_int(dscp), python_int(prio)) else {
        return Err(invalid());
    };
    if !matches!(action, "set" | "del") || dscp > 63 || prio > 7 {
        return Err(invalid());
    }
    let (Ok(dscp), Ok(prio)) = (u8::try_from(dscp), u8::try_from(prio)) else {
        return Err(map_failed());
    };
    Ok(if action == "set" { MapAction::Set { dscp, prio } } else { MapAction::Del { dscp, prio } })
}

/// The tool's answer when the kernel refuses a `--dscp2prio` action.
fn map_failed() -> Output {
    Output::fail(1, "dscp2prio command failed\n", "")
}

/// One action on the port, as mlx5's DCB app callbacks (`mlx5e_dcbnl_ieee_setapp`/`delapp`) do
/// it: the first DSCP entry switches the port to trust dscp; deleting an entry sets that DSCP
/// back to priority 0 and fails (`-ENOENT`) unless the entry is there; deleting them all (`flush`)
/// switches the port to trust pcp. (The lab keeps the firmware's map, not the kernel's list of
/// entries: deleting entries one by one never empties it.)
fn apply_map(nic: &mut LabNic, action: MapAction) -> Result<(), Output> {
    let map = &mut nic.dscp_to_priority;
    match action {
        MapAction::Set { dscp, prio } => {
            nic.trust = Trust::Dscp;
            map[usize::from(dscp)] = prio;
        }
        MapAction::Del { dscp, prio } => {
            if nic.trust != Trust::Dscp || map[usize::from(dscp)] != prio {
                return Err(map_failed());
            }
            map[usize::from(dscp)] = 0;
        }
        MapAction::Flush => set_trust(nic, Trust::Pcp),
    }
    Ok(())
}

/// `--trust`, as the tool sets it over netlink: nothing when the port already trusts that;
/// to pcp, every DSCP entry deleted (each DSCP back to priority 0); to dscp, the firmware's map
/// installed entry by entry (`setDefaultAppEntry`).
fn set_trust(nic: &mut LabNic, trust: Trust) {
    if nic.trust == trust {
        return;
    }
    nic.dscp_to_priority = match trust {
        Trust::Pcp => [0; 64],
        Trust::Dscp => firmware_dscp_map(),
    };
    nic.trust = trust;
}

/// `mlnx_qos` with the given arguments: the port's QoS configuration, after the changes asked
/// (`--pfc`, `--trust`, `--dscp2prio`), as the tool prints it after setting them. Every value
/// is checked before any is applied: a refused command changes nothing. The tool prints its own
/// complaints on stdout, status 1; optparse's (an unknown option, a missing value) go to stderr,
/// status 2. Options that set what the lab does not keep (`--prio_tc`, `--cable_len` ...) are
/// not simulated.
pub(crate) fn render(host: &LabHost, args: &[String]) -> Output {
    let request = match parse(args) {
        Ok(r) => r,
        Err(out) => return out,
    };
    if !request.positional.is_empty() {
        return Output::fail(1, format!("Bad arguments\n{USAGE}"), "");
    }
    let value = |name: &str| request.options.iter().rev().find(|(n, _)| *n == name).map(|(_, v)| v.as_str());
    let Some(intf) = value("--interface") else {
        return Output::fail(1, format!("Interface name is required\n{USAGE}"), "");
    };
    if let Some((name, _)) =
        request.options.iter().find(|(n, _)| !matches!(*n, "--interface" | "--pfc" | "--trust" | "--dscp2prio" | "-a"))
    {
        return not_simulated("mlnx_qos", name);
    }
    // An empty value is no value to the tool (`if options.pfc:`).
    let pfc = match value("--pfc").filter(|v| !v.is_empty()).map(parse_pfc).transpose() {
        Ok(pfc) => pfc,
        Err(out) => return out,
    };
    let trust = value("--trust").filter(|v| !v.is_empty());
    let maps: Vec<&str> =
        request.options.iter().filter(|(n, _)| *n == "--dscp2prio").map(|(_, v)| v.as_str()).collect();
    if !maps.is_empty() && trust.is_some() {
        return Output::fail(1, "trust and dscp2prio commands cannot be used at the same time.\n", "");
    }
    let maps = match maps.into_iter().map(parse_map).collect::<Result<Vec<_>, _>>() {
        Ok(m) => m,
        Err(out) => return out,
    };
    let trust = match trust {
        None => None,
        Some("dscp") => Some(Trust::Dscp),
        Some("pcp") => Some(Trust::Pcp),
        Some(_) => return Output::fail(1, "Invalid trust state command. Refer to the help.\n", ""),
    };
    let Some(index) = host.nics.iter().position(|n| n.netdev == intf && n.link_layer == LinkLayer::Ethernet) else {
        return Output::fail(
            1,
            "Priority trust state is not supported on your system\nBuffers commands are not supported on your system\nRate limit is not supported on your system!\nETS features are not supported on your system\n",
            "",
        );
    };
    if pfc.is_none() && trust.is_none() && maps.is_empty() {
        return Output::ok(qos(&host.nics[index]));
    }
    let mut changed = host.clone();
    let nic = &mut changed.nics[index];
    if let Some(pfc) = pfc {
        nic.pfc = pfc;
    }
    for action in maps {
        if let Err(out) = apply_map(nic, action) {
            return out;
        }
    }
    if let Some(trust) = trust {
        set_trust(nic, trust);
    }
    let out = Output::ok(qos(nic));
    if changed == *host { out } else { Output { changed: Some(Box::new(changed)), ..out } }
}

/// The dscp2prio rows of one priority, wrapped at 24 characters.
fn dscp_rows(nic: &LabNic, prio: u8, out: &mut String) {
    let mut remapped: Vec<usize> = Vec::new();
    let mut default: Vec<usize> = Vec::new();
    for dscp in (0..64).rev() {
        if nic.dscp_to_priority[dscp] == prio {
            if dscp / 8 == prio as usize { default.push(dscp) } else { remapped.push(dscp) }
        }
    }
    let mut s: String = remapped.iter().chain(&default).map(|d| format!("{d:02},")).collect();
    let pad = format!("\tprio:{prio} dscp:");
    while s.len() > 24 {
        let _ = writeln!(out, "{pad}{}", &s[..24]);
        s = s[24..].to_string();
    }
    if !s.is_empty() {
        let _ = writeln!(out, "{pad}{s}");
    }
}

fn qos(nic: &LabNic) -> String {
    let mut s = String::from("DCBX mode: OS controlled\n");
    match nic.trust {
        Trust::Dscp => {
            s.push_str("Priority trust state: dscp\ndscp2prio mapping:\n");
            for prio in 0..8 {
                dscp_rows(nic, prio, &mut s);
            }
        }
        Trust::Pcp => s.push_str("Priority trust state: pcp\n"),
    }
    s.push_str("default priority:\n");
    // Lossless priorities get receive buffer 1 (sized for the cable), the rest share buffer 0.
    let lossless = nic.pfc.iter().any(|p| *p);
    let sizes = if lossless {
        format!("19872,{},0,0,0,0,0,0,", nic.lossless_buffer_bytes)
    } else {
        "262016,0,0,0,0,0,0,0,".to_string()
    };
    let _ = writeln!(s, "Receive buffer size (bytes): {sizes}max_buffer_size=4151520");
    s.push_str("Cable len: 7\nPFC configuration:\n\tpriority    0   1   2   3   4   5   6   7\n\tenabled     ");
    for p in nic.pfc {
        let _ = write!(s, "{}   ", u8::from(p));
    }
    s.push_str("\n\tbuffer      ");
    for p in nic.pfc {
        let _ = write!(s, "{}   ", u8::from(p));
    }
    s.push('\n');
    for tc in 0..8u8 {
        let prios: Vec<usize> = (0..8).filter(|p| nic.priority_to_tc[*p] == tc).collect();
        if prios.is_empty() {
            continue;
        }
        let _ = writeln!(s, "tc: {tc} ratelimit: unlimited, tsa: vendor");
        for p in prios {
            let _ = writeln!(s, "\t priority:  {p}");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::healthy_host;
    use crate::faults::{Fault, apply};

    const CX7: &str = include_str!(
        "../../../parse/tests/fixtures/mlnx_qos/cx7-fw28.39-ens4np0-trust-dscp-pfc5-custom-dscp2prio-3fs-doc.txt"
    );
    const PCP: &str = include_str!(
        "../../../parse/tests/fixtures/mlnx_qos/mlx5-enp175s0f0np0-trust-pcp-ratelimit-gbps-per-tc-magnate3.txt"
    );

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    /// A line's shape: tabs as 8 spaces (the sample's markdown expanded them), each run of digits
    /// as one `9`.
    fn shape(l: &str) -> String {
        let mut s = String::new();
        for c in l.replace('\t', "        ").trim_end().chars() {
            if !c.is_ascii_digit() {
                s.push(c);
            } else if !s.ends_with('9') {
                s.push('9');
            }
        }
        s
    }

    #[test]
    fn same_line_shapes_as_the_cx7_sample() {
        let out = render(&healthy_host(0), &args("-i ens1np0")).stdout;
        let ours: Vec<String> = out.lines().map(shape).collect();
        let real: Vec<String> = CX7.lines().skip(1).map(shape).collect();
        // Same lines up to the TC section, where the sample uses ets/strict and we the default vendor.
        let cut = |v: &[String]| v.iter().take_while(|l| !l.starts_with("tc:")).cloned().collect::<Vec<_>>();
        assert_eq!(cut(&ours), cut(&real));
        assert!(out.contains(
            "\tenabled     0   0   0   1   0   0   0   0   \n\tbuffer      0   0   0   1   0   0   0   0   \n"
        ));
        assert!(out.contains("\tprio:3 dscp:31,30,29,28,27,26,25,24,\n"));
        assert!(out.ends_with("tc: 7 ratelimit: unlimited, tsa: vendor\n\t priority:  7\n"));
        assert!(out.contains("tc: 0 ratelimit: unlimited, tsa: vendor\n\t priority:  1\ntc: 1 ratelimit: unlimited, tsa: vendor\n\t priority:  0\n"));
    }

    #[test]
    fn pcp_has_no_dscp_rows() {
        let mut host = healthy_host(0);
        apply(&mut host, &"gpu001=trust-pcp".parse::<Fault>().unwrap()).unwrap();
        let out = render(&host, &args("-i ens1np0")).stdout;
        let head: Vec<String> = out.lines().take(3).map(shape).collect();
        assert_eq!(head, PCP.lines().take(3).map(shape).collect::<Vec<_>>());
        let p = fabcheck_parse::linux::mlnx_qos::parse(&out).expect("parses");
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(p.value.trust.as_deref(), Some("pcp"));
        assert!(p.value.dscp_to_priority.is_empty());
        assert_eq!(p.value.pfc_enabled, [3]);
    }

    #[test]
    fn parses_back_to_the_state() {
        let host = healthy_host(0);
        let p = fabcheck_parse::linux::mlnx_qos::parse(&render(&host, &args("-i ens1np0")).stdout).expect("parses");
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        let q = &p.value;
        assert_eq!(q.trust.as_deref(), Some("dscp"));
        assert_eq!(q.pfc_enabled, [3]);
        assert_eq!(q.dscp_to_priority.get(&26), Some(&3));
        assert_eq!(q.dscp_to_priority.get(&48), Some(&6));
        assert_eq!(q.dscp_to_priority.len(), 64);
        for p in 0..8u8 {
            assert_eq!(q.priority_to_tc.get(&p), Some(&host.nics[0].priority_to_tc[p as usize]));
        }
        assert_eq!(q.cable_len, Some(7));
    }

    #[test]
    fn faults_show_and_a_remapped_dscp_moves_first() {
        let mut host = healthy_host(0);
        for f in ["gpu001=dscp-map", "gpu001=pfc-off@mlx5_1"] {
            apply(&mut host, &f.parse::<Fault>().unwrap()).unwrap();
        }
        let out = render(&host, &args("-i ens1np0")).stdout;
        assert!(out.contains("\tprio:0 dscp:26,07,06,05,04,03,02,01,\n\tprio:0 dscp:00,\n"), "{out}");
        assert!(out.contains("\tprio:3 dscp:31,30,29,28,27,25,24,\n"));
        let p = fabcheck_parse::linux::mlnx_qos::parse(&out).unwrap();
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(p.value.dscp_to_priority.get(&26), Some(&0));
        let p = fabcheck_parse::linux::mlnx_qos::parse(&render(&host, &args("-i ens2np0")).stdout).unwrap();
        assert!(p.value.pfc_enabled.is_empty());
    }

    /// The DSCP map as mlx5's DCB callbacks leave it: trusting pcp deletes every DSCP entry (each
    /// back to priority 0), trusting dscp again installs the firmware's map, a DSCP entry set on a
    /// pcp port switches it to dscp, deleting an entry sends its DSCP to priority 0.
    #[test]
    fn trust_and_dscp2prio_change_the_map_as_the_kernel_does() {
        let host = healthy_host(0);
        let set = |host: &LabHost, a: &str| {
            let out = render(host, &args(&format!("-i ens1np0 {a}")));
            assert_eq!((out.status, out.stderr.as_str()), (0, ""), "{a}: {}", out.stdout);
            *out.changed.unwrap_or_else(|| Box::new(host.clone()))
        };
        let pcp = set(&host, "--trust pcp");
        assert_eq!((pcp.nics[0].trust, pcp.nics[0].dscp_to_priority), (Trust::Pcp, [0; 64]));
        assert_eq!(set(&pcp, "--trust dscp"), host);
        let one = set(&pcp, "--dscp2prio set,26,3");
        assert_eq!(
            (one.nics[0].trust, one.nics[0].dscp_to_priority[26], one.nics[0].dscp_to_priority[27]),
            (Trust::Dscp, 3, 0)
        );
        let deleted = set(&host, "--dscp2prio del,26,3 --dscp2prio set,10,5");
        assert_eq!((deleted.nics[0].dscp_to_priority[26], deleted.nics[0].dscp_to_priority[10]), (0, 5));
        assert_eq!(render(&pcp, &args("-i ens1np0 --dscp2prio del,26,0")).status, 1, "no DSCP entry on a pcp port");
        assert_eq!(set(&host, "--dscp2prio flush"), pcp);
        assert_eq!(render(&host, &args("--version")).stdout, "mlnx_qos 1.2\n");
    }

    #[test]
    fn unsupported_interfaces_fail_like_the_tool() {
        let host = healthy_host(0);
        for intf in ["ib0", "nosuch"] {
            for set in ["", " --pfc 0,0,0,1,0,0,0,0"] {
                let out = render(&host, &args(&format!("-i {intf}{set}")));
                assert_eq!((out.status, out.stdout.lines().count(), out.changed), (1, 4, None));
            }
        }
        assert_eq!(render(&host, &[]).status, 1);
    }
}
