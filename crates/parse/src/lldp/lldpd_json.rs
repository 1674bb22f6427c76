//! lldpd's JSON: `lldpcli -f json show neighbors` / `lldpctl -f json`, and `-f json0`.
//!
//! ```text
//! {"lldp": {"interface": [              <- an object instead when there is one interface
//!   {"eth0": {"via": "LLDP", "rid": "1",
//!             "chassis": {"c6500-vxlan": {"id": {"type": "mac", "value": "00:1c:0f:5f:c7:c0"},
//!                                         "mgmt-ip": "172.31.1.254", ...}},
//!             "port": {"id": {"type": "ifname", "value": "Gi3/36"}, "descr": "..."}}}]}}
//! ```
//!
//! `json` keys interfaces and chassis by name and turns one-element lists into objects
//! (`mgmt-ip` is a string or a list, `capability` an object or a list; a chassis without a
//! system name has no name level); `json0` always uses lists, with `name` fields and
//! `[{"value": ...}]` for every value. Both are read, and the mixed form some lldpd builds print
//! (`interface` a list of objects with a `name` field). `show interfaces` prints the same shape
//! with `via: unknown`: such entries are this system's own and go to
//! [`LldpNeighbors::advertised`].
//!
//! A capture cut inside the JSON (a pasted excerpt) is read up to the last complete value and
//! the cut is warned about at the last line. JSON carries no line numbers: a warning about an
//! entry names the line where its interface name first appears.
use super::neighbors::{LldpFormat, LldpNeighbors, is_cli_echo, mac, management_ip, unrecognised};
use crate::lines::{clip, no_facts, numbered};
use crate::switch::LldpNeighbor;
use crate::{ParseError, ParseResult, ParseWarning, Parsed};
use serde_json::{Map, Value};

/// Parses lldpd JSON (`json` or `json0`).
///
/// # Errors
/// Empty input, JSON that does not parse (and is not merely cut short), or JSON without `lldp`.
pub fn parse(text: &str) -> ParseResult<LldpNeighbors> {
    let mut warnings = Vec::new();
    let Some(start) = numbered(text).find_map(|l| {
        if l.text.starts_with(['{', '[']) {
            Some(Ok(l.start + (l.raw.len() - l.raw.trim_start().len())))
        } else if is_cli_echo(l.text) {
            None
        } else {
            Some(Err(l))
        }
    }) else {
        return Err(no_facts(text, "empty lldpd JSON output", "no JSON: not lldpd JSON output"));
    };
    let start = match start {
        Ok(start) => start,
        Err(l) => {
            return Err(ParseError::at(
                l.n,
                format!("text before the JSON `{}`: not lldpd JSON output", clip(l.text, 60)),
            ));
        }
    };
    let skipped = text[..start].matches('\n').count();
    let body = &text[start..];
    let mut stream = serde_json::Deserializer::from_str(body).into_iter::<Value>();
    let root = match stream.next() {
        Some(Ok(root)) => {
            let rest = &body[stream.byte_offset()..];
            if let Some(l) = numbered(rest).next() {
                let n = skipped + body[..stream.byte_offset()].matches('\n').count() + l.n;
                warnings.push(unrecognised(n, l.text));
            }
            root
        }
        Some(Err(e)) if e.is_eof() => {
            let root = close_truncated(body)
                .and_then(|fixed| serde_json::from_str(&fixed).ok())
                .ok_or_else(|| ParseError::at(0, "lldpd JSON cut before its first complete value"))?;
            warnings.push(ParseWarning::at(
                text.lines().count(),
                "the JSON is cut here: what follows the last complete value is lost",
            ));
            root
        }
        Some(Err(e)) => {
            return Err(ParseError::at(skipped + e.line(), format!("not lldpd JSON: {}", clip(&e.to_string(), 120))));
        }
        None => {
            return Err(no_facts(text, "empty lldpd JSON output", "not lldpd JSON output"));
        }
    };
    let Some(lldp) = root.get("lldp") else {
        return Err(ParseError::at(0, "JSON without `lldp`: not lldpd output"));
    };
    let mut found = LldpNeighbors::new(LldpFormat::LldpdJson);
    for section in one_or_many(lldp) {
        let Some(interfaces) = section.get("interface") else {
            continue;
        };
        for (name, entry) in interfaces_of(interfaces) {
            let line = line_of(text, &name);
            let Some(entry) = entry else {
                warnings.push(ParseWarning::at(line, format!("interface `{}` is not an object", clip(&name, 40))));
                continue;
            };
            let neighbor = neighbor(&name, entry);
            if text_of(entry.get("via")).as_deref() == Some("unknown") {
                found.advertised.push(neighbor);
            } else {
                found.neighbors.push(neighbor);
            }
        }
    }
    Ok(Parsed { value: found, warnings })
}

/// The interfaces of `interface`: `{name: {...}}`, `[{name: {...}}, ...]` or
/// `[{"name": name, ...}, ...]`. `None` for an entry that is not an object.
fn interfaces_of(interfaces: &Value) -> Vec<(String, Option<&Map<String, Value>>)> {
    let mut out = Vec::new();
    for item in one_or_many(interfaces) {
        match item {
            Value::Object(m) => keyed(m, &mut out),
            other => out.push((text(other).unwrap_or_default(), None)),
        }
    }
    out
}

/// `{"name": name, ...}` is one entry; `{name: {...}, ...}` one entry per key.
fn keyed<'a>(m: &'a Map<String, Value>, out: &mut Vec<(String, Option<&'a Map<String, Value>>)>) {
    if let Some(name) = m.get("name").and_then(text) {
        out.push((name, Some(m)));
    } else {
        for (k, v) in m {
            out.push((k.clone(), v.as_object()));
        }
    }
}

/// One interface entry as the model's neighbour.
fn neighbor(name: &str, entry: &Map<String, Value>) -> LldpNeighbor {
    let mut nb = LldpNeighbor { local_port: name.to_string(), ..LldpNeighbor::default() };
    if let Some((system_name, chassis)) = entry.get("chassis").and_then(chassis_of) {
        nb.chassis_id = chassis.get("id").and_then(id_of);
        nb.system_name = system_name.or_else(|| chassis.get("name").and_then(text));
        let ips: Vec<String> =
            chassis.get("mgmt-ip").map(|v| one_or_many(v).filter_map(text).collect()).unwrap_or_default();
        nb.management_ip = management_ip(&ips);
    }
    if let Some(port) = entry.get("port").and_then(|p| one_or_many(p).find_map(Value::as_object)) {
        nb.port_id = port.get("id").and_then(id_of);
        nb.port_description = port.get("descr").and_then(text);
    }
    nb
}

/// The chassis object and its system name (the key of `json`'s name level, if any).
fn chassis_of(chassis: &Value) -> Option<(Option<String>, &Map<String, Value>)> {
    let c = one_or_many(chassis).find_map(Value::as_object)?;
    if c.contains_key("id") || c.is_empty() {
        return Some((None, c));
    }
    let (name, inner) = c.iter().next()?;
    Some((Some(name.clone()), inner.as_object()?))
}

/// `{"type": "mac", "value": "..."}` (or a list of one) → the ID, a MAC in colon form.
fn id_of(v: &Value) -> Option<String> {
    let id = text(v)?;
    Some(mac(&id).unwrap_or(id))
}

/// A value's text: a string, a number, the first of a list, an object's `value`.
fn text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.trim().to_string()).filter(|s| !s.is_empty()),
        Value::Number(n) => Some(n.to_string()),
        Value::Array(items) => items.iter().find_map(text),
        Value::Object(m) => m.get("value").and_then(text),
        Value::Bool(_) | Value::Null => None,
    }
}

fn text_of(v: Option<&Value>) -> Option<String> {
    v.and_then(text)
}

/// A list's elements, or the value itself: lldpd's `json` drops one-element lists.
fn one_or_many(v: &Value) -> Box<dyn Iterator<Item = &Value> + '_> {
    match v {
        Value::Array(items) => Box::new(items.iter()),
        other => Box::new(std::iter::once(other)),
    }
}

/// The line where `"name"` first appears (0 when it does not).
fn line_of(text: &str, name: &str) -> usize {
    let quoted = format!("\"{name}\"");
    text.lines().position(|l| l.contains(&quoted)).map_or(0, |i| i + 1)
}

/// `json` cut short, closed after its last complete value: the text up to the last point where
/// every open string had ended and a value had just been completed (before a `,`, after a `}`,
/// `]`, `{` or `[`), then the brackets still open, closed. `None` when there is no such point.
fn close_truncated(json: &str) -> Option<String> {
    let mut stack: Vec<char> = Vec::new();
    let mut safe: Option<(usize, Vec<char>)> = None;
    let (mut in_string, mut escaped) = (false, false);
    for (i, c) in json.char_indices() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' => {
                stack.push('}');
                safe = Some((i + 1, stack.clone()));
            }
            '[' => {
                stack.push(']');
                safe = Some((i + 1, stack.clone()));
            }
            '}' | ']' => {
                if stack.pop() != Some(c) {
                    return None;
                }
                safe = Some((i + 1, stack.clone()));
            }
            ',' => safe = Some((i, stack.clone())),
            _ => {}
        }
    }
    let (at, open) = safe?;
    let mut fixed = json[..at].to_string();
    fixed.extend(open.iter().rev());
    Some(fixed)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str =
        include_str!("../../tests/fixtures/lldp/lldpctl-json-two-macs-one-port-sonic-utilities-test.json");
    const CUT: &str =
        include_str!("../../tests/fixtures/lldp/lldpctl-json-sonic-leaf-c6500-neighbor-suzieq-259-PARTIAL.txt");

    #[test]
    fn json0_and_nameless_chassis() {
        let json0 = r#"{"lldp": [{"interface": [{"name": "eth0", "via": "LLDP",
            "chassis": [{"id": [{"type": "mac", "value": "00:00:00:00:00:02"}],
                         "name": [{"value": "ns-2.example.com"}],
                         "mgmt-ip": [{"value": "fe80::200:ff:fe00:2"}]}],
            "port": [{"id": [{"type": "mac", "value": "00:00:00:00:00:02"}],
                      "descr": [{"value": "eth1"}]}]}]}]}"#;
        let nb = &parse(json0).expect("parses").value.neighbors[0];
        assert_eq!(nb.local_port, "eth0");
        assert_eq!(nb.system_name.as_deref(), Some("ns-2.example.com"));
        assert_eq!(nb.management_ip.as_deref(), Some("fe80::200:ff:fe00:2"));
        assert_eq!(nb.port_description.as_deref(), Some("eth1"));
        let nameless = r#"{"lldp": {"interface": {"eth0": {"via": "LLDP",
            "chassis": {"id": {"type": "local", "value": "Chassis ID 007"}},
            "port": {"id": {"type": "ifname", "value": "swp1"}}}}}}"#;
        let nb = &parse(nameless).expect("parses").value.neighbors[0];
        assert_eq!((nb.chassis_id.as_deref(), nb.system_name.clone()), (Some("Chassis ID 007"), None));
        assert_eq!(nb.port_id.as_deref(), Some("swp1"));
    }

    #[test]
    fn truncated_json_is_closed() {
        assert_eq!(close_truncated(r#"{"a": [1, 2"#).as_deref(), Some(r#"{"a": [1]}"#));
        assert_eq!(close_truncated(r#"{"a": {"b": "x\"}"#).as_deref(), Some(r#"{"a": {}}"#));
        assert_eq!(close_truncated("}"), None);
    }

    #[test]
    fn empty_foreign_and_broken_text_are_errors() {
        assert!(parse("").is_err());
        assert!(parse("hello\n{}\n").is_err());
        assert!(parse("{\"x\": 1}\n").is_err());
        assert_eq!(parse("{\n\"lldp\": ]\n").unwrap_err().line, 2);
    }

    crate::lines::parser_never_panics!(parse, [SAMPLE, CUT]);
}
