//! `ip -j route show table all` (iproute2 JSON), or the text of `ip route show table all`.
//!
//! ```text
//! [{"dst":"default","gateway":"172.16.0.1","dev":"eno3np2","table":"152","protocol":"static","flags":[]}]
//! default via 172.16.0.1 dev eno3np2 table 152 proto static
//! 172.16.0.0/16 dev eno3np2 proto kernel scope link src 172.16.0.10
//! local 172.16.0.10 dev eno3np2 table local proto kernel scope host src 172.16.0.10
//! ```
//!
//! iproute2 (`ip/iproute.c`) leaves out what is the default: `type` when unicast, `table` when
//! main, `protocol` when boot, `scope` when global (`-d` prints them all); the facts carry those
//! defaults. JSON keys: `type`, `dst`, `gateway`, `dev`, `table`, `protocol`, `scope`, `prefsrc`,
//! `metric`, `flags` (`["linkdown"]`); others (`nexthops`, `mtu` ...) are ignored. Text: an
//! optional type word, the destination, then `via`, `dev`, `table`, `proto`, `scope`, `src`,
//! `metric`, the flag words (`linkdown`, `onlink` ...) and valued words fabcheck skips.
use super::iproute_json::{self, Json};
use crate::lines::{cut_off, no_facts, numbered, quote, unrecognised};
use crate::{ParseResult, ParseWarning, Parsed};
pub use fabcheck_model::host::ip_route::{IpRoute, IpRoutes};

/// Route types iproute2 prints before the destination.
const TYPES: [&str; 10] =
    ["unicast", "local", "broadcast", "multicast", "anycast", "blackhole", "unreachable", "prohibit", "throw", "nat"];
/// Words that take a value, besides the ones kept.
const VALUED: [&str; 13] = [
    "mtu", "advmss", "pref", "expires", "realm", "realms", "tos", "nhid", "rtt", "rttvar", "window", "hoplimit",
    "initcwnd",
];
/// Words without a value.
const FLAGS: [&str; 9] = ["linkdown", "onlink", "pervasive", "offload", "trap", "dead", "notify", "rt_offload", "lock"];

/// Parses `ip -j route show table all` or its text form.
///
/// # Errors
/// Input with neither a JSON array nor a route line.
pub fn parse(text: &str) -> ParseResult<IpRoutes> {
    let json = numbered(text).any(|l| l.text.starts_with('['));
    if json { parse_json(text) } else { parse_text(text) }
}

fn parse_json(text: &str) -> ParseResult<IpRoutes> {
    let (routes, warnings) = iproute_json::facts(text, "route", json_route)?;
    Ok(Parsed { value: IpRoutes { routes }, warnings })
}

/// One JSON route, with the defaults iproute2 leaves out; or `dst` when it lacks one.
fn json_route(v: &Json) -> Result<IpRoute, &'static str> {
    let dst = v.text("dst").ok_or("dst")?;
    let or = |key: &str, default: &str| v.text(key).unwrap_or_else(|| default.to_string());
    Ok(IpRoute {
        dst,
        kind: or("type", "unicast"),
        table: or("table", "main"),
        dev: v.text("dev"),
        gateway: v.text("gateway"),
        prefsrc: v.text("prefsrc"),
        protocol: or("protocol", "boot"),
        scope: or("scope", "global"),
        metric: v.u64_of("metric").and_then(|m| u32::try_from(m).ok()),
        flags: v
            .get("flags")
            .and_then(Json::as_array)
            .map(|flags| flags.iter().filter_map(Json::as_str).map(String::from).collect())
            .unwrap_or_default(),
    })
}

fn parse_text(text: &str) -> ParseResult<IpRoutes> {
    let mut routes = Vec::new();
    let mut warnings = Vec::new();
    for l in numbered(text) {
        match text_route(l.text) {
            Some((route, unknown)) => {
                if let Some(word) = unknown {
                    warnings.push(ParseWarning::at(l.n, quote(&format!("word `{word}` not understood in"), l.text)));
                }
                routes.push(route);
            }
            None => warnings.push(ParseWarning::at(l.n, unrecognised(l.text))),
        }
    }
    if routes.is_empty() {
        return Err(no_facts(text, "empty output: no route", "no route line: not ip route output"));
    }
    warnings.extend(cut_off(text));
    Ok(Parsed { value: IpRoutes { routes }, warnings })
}

/// Whether `word` reads as a destination: `default`, an address, or a prefix.
fn is_destination(word: &str) -> bool {
    word == "default" || word.split('/').next().is_some_and(|a| a.parse::<std::net::IpAddr>().is_ok())
}

/// One text route line, and the first word not understood.
fn text_route(line: &str) -> Option<(IpRoute, Option<String>)> {
    let mut words = line.split_whitespace().peekable();
    let kind = match words.peek() {
        Some(w) if TYPES.contains(w) => words.next().map(String::from),
        _ => None,
    };
    let dst = words.next().filter(|w| is_destination(w))?.to_string();
    let mut route = IpRoute {
        dst,
        kind: kind.unwrap_or_else(|| "unicast".into()),
        table: "main".into(),
        dev: None,
        gateway: None,
        prefsrc: None,
        protocol: "boot".into(),
        scope: "global".into(),
        metric: None,
        flags: Vec::new(),
    };
    let mut unknown = None;
    while let Some(word) = words.next() {
        let value = |words: &mut std::iter::Peekable<std::str::SplitWhitespace>| words.next().map(String::from);
        match word {
            "via" => {
                // `via inet6 fe80::1`: the family word comes first.
                let next = value(&mut words);
                route.gateway = match next.as_deref() {
                    Some("inet" | "inet6") => value(&mut words),
                    _ => next,
                };
            }
            "dev" => route.dev = value(&mut words),
            "table" => route.table = value(&mut words).unwrap_or_default(),
            "proto" => route.protocol = value(&mut words).unwrap_or_default(),
            "scope" => route.scope = value(&mut words).unwrap_or_default(),
            "src" => route.prefsrc = value(&mut words),
            "metric" => route.metric = value(&mut words).and_then(|m| m.parse().ok()),
            w if VALUED.contains(&w) => {
                words.next();
            }
            w if FLAGS.contains(&w) => route.flags.push(w.to_string()),
            w => {
                unknown.get_or_insert_with(|| w.to_string());
            }
        }
    }
    Some((route, unknown))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_left_out_are_filled_in() {
        let text = r#"[{"dst":"default","gateway":"172.16.0.1","dev":"eno3np2","table":"152","protocol":"static","flags":[]},{"dst":"172.16.0.0/16","dev":"eno3np2","protocol":"kernel","scope":"link","prefsrc":"172.16.0.10","flags":[]},{"type":"local","dst":"172.16.0.10","dev":"eno3np2","table":"local","protocol":"kernel","scope":"host","prefsrc":"172.16.0.10","flags":[]},{"dev":"x"}]"#;
        let parsed = parse(text).expect("parses");
        let r = &parsed.value.routes;
        assert_eq!(r.len(), 3);
        assert_eq!(
            (r[0].table.as_str(), r[0].gateway.as_deref(), r[0].scope.as_str()),
            ("152", Some("172.16.0.1"), "global")
        );
        assert_eq!(
            (r[1].table.as_str(), r[1].protocol.as_str(), r[1].prefsrc.as_deref()),
            ("main", "kernel", Some("172.16.0.10"))
        );
        assert_eq!((r[2].kind.as_str(), r[2].table.as_str()), ("local", "local"));
        assert_eq!(parsed.warnings.len(), 1);
    }

    #[test]
    fn text_routes() {
        let text = "default via 172.16.0.1 dev eno3np2 table 152 proto static\n172.16.0.0/16 dev eno3np2 proto kernel scope link src 172.16.0.10 metric 100 linkdown\nlocal 172.16.0.10 dev eno3np2 table local proto kernel scope host src 172.16.0.10\nroot@host:~# ip r\n";
        let parsed = parse(text).expect("parses");
        let r = &parsed.value.routes;
        assert_eq!(r.len(), 3);
        assert_eq!((r[0].dst.as_str(), r[0].table.as_str(), r[0].dev.as_deref()), ("default", "152", Some("eno3np2")));
        assert_eq!((r[1].scope.as_str(), r[1].prefsrc.as_deref()), ("link", Some("172.16.0.10")));
        assert_eq!((r[1].metric, r[1].flags.as_slice()), (Some(100), ["linkdown".to_string()].as_slice()));
        assert_eq!((r[0].metric, r[0].flags.is_empty()), (None, true));
        assert_eq!((r[2].kind.as_str(), r[2].table.as_str()), ("local", "local"));
        assert_eq!(parsed.warnings.iter().map(|w| w.line).collect::<Vec<_>>(), [4]);
    }

    #[test]
    fn json_metric_and_linkdown_are_kept() {
        // iproute2 prints the flags as an array (`print_rt_flags` in ip/iproute.c).
        let text = r#"[{"dst":"default","gateway":"192.168.0.1","dev":"wlp0s20f3","protocol":"dhcp","prefsrc":"192.168.0.18","metric":600,"flags":[]},{"dst":"172.17.0.0/16","dev":"docker0","protocol":"kernel","scope":"link","prefsrc":"172.17.0.1","flags":["linkdown"]},{"dst":"default","dev":"eth0","gateway":"192.168.12.7","flags":["onlink"],"metric":99999999999}]"#;
        let r = parse(text).expect("parses").value.routes;
        assert_eq!((r[0].metric, r[0].flags.is_empty()), (Some(600), true));
        assert_eq!((r[1].metric, r[1].flags.as_slice()), (None, ["linkdown".to_string()].as_slice()));
        assert_eq!(
            (r[2].metric, r[2].flags.as_slice()),
            (None, ["onlink".to_string()].as_slice()),
            "a metric past u32 is no metric"
        );
    }
}
