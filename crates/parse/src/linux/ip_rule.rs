//! `ip -j rule show` (iproute2 JSON), or the text of `ip rule show`: the policy-routing rules.
//!
//! ```text
//! [{"priority":0,"src":"all","table":"local"},{"priority":32763,"src":"172.16.0.10","table":"152","protocol":"static"}]
//! 0:      from all lookup local
//! 32762:  not to 172.16.0.0/16 lookup main proto static
//! 32763:  from 172.16.0.10 lookup 152 proto static
//! ```
//!
//! JSON keys, as iproute2's `ip/iprule.c` prints them: `priority`, `src` (`all` for any) with
//! `srclen` only when shorter than the address, `dst`/`dstlen`, `not` (present, null, when
//! inverted), `iif`/`oif`, `table` (always a string: `local`, `main`, `152`); the other match
//! conditions (`fwmark`, `uid_start`/`uid_end`, `ipproto`, `sport`, `dscp` ...) are kept as
//! `selectors`, since a rule that has them does not match all the traffic of its source; the
//! rest (`protocol`, `goto` ...) is not needed and ignored. Text: `PRIO:` then the same
//! selectors as words (`from`, `to`, `iif`, `oif`, `lookup`/`table`, `fwmark 0x77`...); a word
//! it does not know is a warning on its line. Prompt lines (`$ ip rule`) are warnings.
use super::iproute_json::{self, Json};
use crate::lines::{cut_off, no_facts, numbered, quote, unrecognised};
use crate::{ParseResult, ParseWarning, Parsed};
pub use fabcheck_model::host::ip_rule::{IpRule, IpRules};

/// Match conditions that take a value and narrow a rule to part of the traffic (kept in
/// `selectors`); in JSON the same keys, or `KEY_start`/`KEY_end` (`uid_start` for `uidrange`)
/// for a range.
const NARROWING: [&str; 10] =
    ["fwmark", "tos", "dsfield", "dscp", "flowlabel", "uidrange", "ipproto", "sport", "dport", "tun_id"];
/// Words that take a value and do not narrow which traffic the rule matches.
const VALUED: [&str; 7] = ["proto", "goto", "realms", "suppress_prefixlength", "suppress_ifgroup", "nat", "map-to"];
/// Words without a value.
const FLAGS: [&str; 6] = ["blackhole", "unreachable", "prohibit", "[detached]", "nop", "unicast"];

/// Parses `ip -j rule show` or `ip rule show` output.
///
/// # Errors
/// Input with neither a JSON array nor a `PRIO:` rule line.
pub fn parse(text: &str) -> ParseResult<IpRules> {
    let json = numbered(text).any(|l| l.text.starts_with('['));
    if json { parse_json(text) } else { parse_text(text) }
}

fn parse_json(text: &str) -> ParseResult<IpRules> {
    let (rules, warnings) = iproute_json::facts(text, "rule", |v| json_rule(v).ok_or("priority"))?;
    Ok(Parsed { value: IpRules { rules }, warnings })
}

fn json_rule(v: &Json) -> Option<IpRule> {
    let priority = u32::try_from(v.u64_of("priority")?).ok()?;
    let with_len = |addr: &str, len: &str| {
        let addr = v.text(addr).filter(|a| a != "all")?;
        Some(match v.u64_of(len) {
            Some(len) => format!("{addr}/{len}"),
            None => addr,
        })
    };
    Some(IpRule {
        priority,
        src: with_len("src", "srclen"),
        dst: with_len("dst", "dstlen"),
        not: v.get("not").is_some(),
        interface: v.text("iif").or_else(|| v.text("oif")),
        selectors: json_selectors(v),
        // A VRF's rule: the text form prints it as `lookup [l3mdev-table]`.
        table: v.text("table").or_else(|| v.get("l3mdev").map(|_| "[l3mdev-table]".to_string())),
    })
}

/// The narrowing match conditions of a JSON rule, written as `ip rule` prints them.
fn json_selectors(v: &Json) -> Vec<String> {
    // Member `stem` + `suffix`: most rules have none of them, so their names are not built.
    let scalar = |stem: &str, suffix: &str| match v.get_joined(stem, suffix)? {
        Json::Str(s) => Some(s.to_string()),
        Json::Num(n) => Some(n.to_string()),
        _ => None,
    };
    let mut selectors = Vec::new();
    for key in NARROWING {
        let range_key = if key == "uidrange" { "uid" } else { key };
        let value = scalar(key, "").or_else(|| {
            let (start, end) = (scalar(range_key, "_start")?, scalar(range_key, "_end")?);
            Some(format!("{start}-{end}"))
        });
        if let Some(value) = value {
            let mask = scalar(key, "_mask").or_else(|| (key == "fwmark").then(|| scalar("fwmask", "")).flatten());
            selectors.push(match mask {
                Some(mask) => format!("{key} {value}/{mask}"),
                None => format!("{key} {value}"),
            });
        }
    }
    selectors
}

fn parse_text(text: &str) -> ParseResult<IpRules> {
    let mut rules = Vec::new();
    let mut warnings = Vec::new();
    for l in numbered(text) {
        match text_rule(l.text) {
            Some((rule, unknown)) => {
                if let Some(word) = unknown {
                    warnings.push(ParseWarning::at(l.n, quote(&format!("word `{word}` not understood in"), l.text)));
                }
                rules.push(rule);
            }
            None => warnings.push(ParseWarning::at(l.n, unrecognised(l.text))),
        }
    }
    if rules.is_empty() {
        return Err(no_facts(text, "empty output: no rule", "no `PRIO: from ...` line: not ip rule output"));
    }
    warnings.extend(cut_off(text));
    Ok(Parsed { value: IpRules { rules }, warnings })
}

/// `32763:\tfrom 172.16.0.10 lookup 152 proto static`, and the first word not understood.
fn text_rule(line: &str) -> Option<(IpRule, Option<String>)> {
    let (priority, rest) = line.split_once(':')?;
    let priority = priority.trim().parse().ok()?;
    let mut rule =
        IpRule { priority, src: None, dst: None, not: false, interface: None, selectors: Vec::new(), table: None };
    let mut unknown = None;
    let mut words = rest.split_whitespace();
    while let Some(word) = words.next() {
        match word {
            "not" => rule.not = true,
            "from" => rule.src = words.next().filter(|a| *a != "all").map(String::from),
            "to" => rule.dst = words.next().filter(|a| *a != "all").map(String::from),
            "iif" | "oif" => rule.interface = words.next().map(String::from),
            "lookup" | "table" => rule.table = words.next().map(String::from),
            w if NARROWING.contains(&w) => match words.next() {
                Some(value) => rule.selectors.push(format!("{w} {value}")),
                None => {
                    unknown.get_or_insert_with(|| w.to_string());
                }
            },
            w if VALUED.contains(&w) => {
                words.next();
            }
            w if FLAGS.contains(&w) => {}
            w => {
                unknown.get_or_insert_with(|| w.to_string());
            }
        }
    }
    Some((rule, unknown))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_rules_keep_source_table_and_inversion() {
        let text = r#"[{"priority":0,"src":"all","table":"local"},{"priority":32762,"not":null,"dst":"172.16.0.0","dstlen":16,"table":"main","protocol":"static"},{"priority":32763,"src":"172.16.0.10","table":"152"},{"priority":5,"src":"10.0.0.0","srclen":24,"iif":"ens1np0","table":"101"},{"src":"all"}]"#;
        let parsed = parse(text).expect("parses");
        let r = &parsed.value.rules;
        assert_eq!(r.len(), 4);
        assert_eq!((r[0].src.as_deref(), r[0].table.as_deref()), (None, Some("local")));
        assert!(r[1].not && r[1].dst.as_deref() == Some("172.16.0.0/16"));
        assert_eq!(
            (r[2].priority, r[2].src.as_deref(), r[2].table.as_deref()),
            (32763, Some("172.16.0.10"), Some("152"))
        );
        assert_eq!((r[3].src.as_deref(), r[3].interface.as_deref()), (Some("10.0.0.0/24"), Some("ens1np0")));
        assert_eq!(parsed.warnings.len(), 1, "the element without a priority: {:?}", parsed.warnings);
    }

    #[test]
    fn text_rules_and_the_words_not_understood() {
        let text = "$ ip rule\n0:\tfrom all lookup local\n32763:\tfrom 172.16.0.10 lookup 152 proto static\n32765:\tfrom all fwmark 0x1 lookup 100 frobnicate\n";
        let parsed = parse(text).expect("parses");
        assert_eq!(parsed.value.rules.len(), 3);
        assert_eq!(parsed.value.rules[1].table.as_deref(), Some("152"));
        assert_eq!(parsed.value.rules[2].table.as_deref(), Some("100"));
        let lines: Vec<usize> = parsed.warnings.iter().map(|w| w.line).collect();
        assert_eq!(lines, [1, 4], "{:?}", parsed.warnings);
        assert!(parse("").is_err());
        assert!(parse("[{\"broadcast\",\"dst\":1}]").is_err(), "old iproute2's invalid JSON is an error, not a panic");
    }
}
