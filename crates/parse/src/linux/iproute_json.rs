//! iproute2's JSON output (`ip -j link`, `ip -j rule`, `ip -j route`): one array of objects, on
//! one line or pretty-printed over many (`-p`). Read once here so every `ip -j` parser numbers
//! its elements' lines and words its warnings the same way: lines before the array (an echoed
//! prompt) and text after it are warnings; input without a JSON array is an error.
//!
//! The array is read into [`Json`], a lighter `serde_json::Value`: strings borrowed from the
//! input and objects kept as lists of members rather than maps of owned keys, which made reading
//! a `Value` cost several times what the parsers do with it. [`Json`] accepts exactly what
//! `Value` accepts (every shape through `deserialize_any`, the same recursion limit, numbers and
//! escapes checked alike), so the same input is an error at the same place with the same words.

use crate::lines::{numbered, unrecognised};
use crate::{ParseError, ParseWarning};
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Number;
use std::borrow::Cow;
use std::fmt;

/// One JSON value, as far as the `ip -j` parsers read it.
pub(crate) enum Json<'a> {
    /// A string, borrowed from the input unless it had escapes.
    Str(Cow<'a, str>),
    /// A number, as `serde_json::Value` keeps it.
    Num(Number),
    /// An array.
    Array(Vec<Json<'a>>),
    /// An object's members in input order, repeated keys included (see [`Json::get_joined`]).
    Object(Vec<(Cow<'a, str>, Json<'a>)>),
    /// `true`, `false` or `null`: the parsers only ask whether such a member is there.
    Other,
}

impl<'a> Json<'a> {
    /// The member `key` of an object.
    pub(crate) fn get(&self, key: &str) -> Option<&Json<'a>> {
        self.get_joined(key, "")
    }

    /// The member named `stem` then `suffix` (`uid` `_start`), without building the name. Of
    /// members named alike the last counts, as in the map `serde_json::Value` builds.
    pub(crate) fn get_joined(&self, stem: &str, suffix: &str) -> Option<&Json<'a>> {
        let Json::Object(members) = self else { return None };
        let named = |k: &str| k.len() == stem.len() + suffix.len() && k.starts_with(stem) && k.ends_with(suffix);
        members.iter().rev().find(|(k, _)| named(k)).map(|(_, v)| v)
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn as_u64(&self) -> Option<u64> {
        match self {
            Json::Num(n) => n.as_u64(),
            _ => None,
        }
    }

    pub(crate) fn as_array(&self) -> Option<&[Json<'a>]> {
        match self {
            Json::Array(items) => Some(items),
            _ => None,
        }
    }

    /// A string member, owned for the facts.
    pub(crate) fn text(&self, key: &str) -> Option<String> {
        self.get(key).and_then(Json::as_str).map(String::from)
    }

    /// An unsigned integer member.
    pub(crate) fn u64_of(&self, key: &str) -> Option<u64> {
        self.get(key).and_then(Json::as_u64)
    }
}

impl<'de> Deserialize<'de> for Json<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Json<'de>, E> {
        Ok(Json::Other)
    }

    fn visit_unit<E>(self) -> Result<Json<'de>, E> {
        Ok(Json::Other)
    }

    fn visit_u64<E>(self, n: u64) -> Result<Json<'de>, E> {
        Ok(Json::Num(n.into()))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Json<'de>, E> {
        Ok(Json::Num(n.into()))
    }

    /// `serde_json::Value` turns a float it cannot hold into `null`.
    fn visit_f64<E>(self, n: f64) -> Result<Json<'de>, E> {
        Ok(Number::from_f64(n).map_or(Json::Other, Json::Num))
    }

    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Json<'de>, E> {
        Ok(Json::Str(Cow::Borrowed(s)))
    }

    fn visit_str<E>(self, s: &str) -> Result<Json<'de>, E> {
        Ok(Json::Str(Cow::Owned(s.to_owned())))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json<'de>, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json<'de>, A::Error> {
        // Room for all the members of a link, the largest of these objects, without regrowing.
        let mut members = Vec::with_capacity(16);
        while let Some((Key(key), value)) = map.next_entry()? {
            members.push((key, value));
        }
        Ok(Json::Object(members))
    }
}

/// An object's key, borrowed from the input unless it had escapes.
struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string key")
    }

    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Borrowed(s)))
    }

    fn visit_str<E>(self, s: &str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Owned(s.to_owned())))
    }
}

/// The facts `fact` reads from the elements of `ip -j NOUN`'s array, and the warnings: lines
/// before the array, text after it, then each element `fact` turns down for lacking the key it
/// names, on the line the element starts on; or why there is no array.
pub(crate) fn facts<'a, T>(
    text: &'a str,
    noun: &str,
    fact: impl Fn(&Json<'a>) -> Result<T, &'static str>,
) -> Result<(Vec<T>, Vec<ParseWarning>), ParseError> {
    let mut warnings = Vec::new();
    let mut start = None;
    for l in numbered(text) {
        if l.text.starts_with('[') {
            start = Some((l.n, l.start));
            break;
        }
        warnings.push(ParseWarning::at(l.n, format!("{} before the JSON array", unrecognised(l.text))));
    }
    let Some((first_line, offset)) = start else {
        return Err(ParseError::at(0, format!("not ip -j {noun} output: no JSON array")));
    };
    let body = text.get(offset..).unwrap_or("");
    let mut stream = serde_json::Deserializer::from_str(body).into_iter::<Vec<Json>>();
    let values = match stream.next() {
        Some(Ok(values)) => values,
        Some(Err(e)) => {
            return Err(ParseError::at(first_line + e.line().saturating_sub(1), format!("not ip -j {noun} JSON: {e}")));
        }
        None => return Err(ParseError::at(0, format!("not ip -j {noun} output: no JSON array"))),
    };
    let rest = body.get(stream.byte_offset()..).unwrap_or("");
    if !rest.trim().is_empty() {
        let line = first_line + body.get(..stream.byte_offset()).unwrap_or("").matches('\n').count();
        warnings.push(ParseWarning::at(line, "text after the JSON array ignored"));
    }
    let mut facts = Vec::new();
    let mut lacking = Vec::new();
    for (i, v) in values.iter().enumerate() {
        match fact(v) {
            Ok(f) => facts.push(f),
            Err(key) => lacking.push((i, key)),
        }
    }
    // Elements' lines are only needed to place these warnings: found only when there are some.
    if !lacking.is_empty() {
        let starts = element_lines(body);
        warnings.extend(lacking.into_iter().map(|(i, key)| {
            let line = first_line + starts.get(i).copied().unwrap_or(0);
            ParseWarning::at(line, format!("{noun} element {} lacks `{key}`, skipped", i + 1))
        }));
    }
    Ok((facts, warnings))
}

/// For each top-level array element, the number of line breaks before it (0-based line).
fn element_lines(json: &str) -> Vec<usize> {
    let (mut depth, mut line, mut in_str, mut escaped) = (0usize, 0usize, false, false);
    let mut expect = false; // Inside the top array, before an element.
    let mut starts = Vec::new();
    for c in json.chars() {
        if in_str {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_str = false,
                _ => {}
            }
            continue;
        }
        if c == '\n' {
            line += 1;
            continue;
        }
        if depth == 1 && expect && !c.is_whitespace() && c != ']' {
            starts.push(line);
            expect = false;
        }
        match c {
            '"' => in_str = true,
            '[' | '{' => {
                depth = depth.saturating_add(1);
                expect |= depth == 1;
            }
            ']' | '}' => depth = depth.saturating_sub(1),
            ',' if depth == 1 => expect = true,
            _ => {}
        }
    }
    starts
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn json_is_refused_where_value_is_and_reads_members_as_value_does() {
        let deep = format!("[{}{}]", "[".repeat(130), "]".repeat(130));
        for text in [
            r#"[{"a":"\ud800"}]"#,
            r#"[{"a":1e400}]"#,
            r#"[{"a":[1,]}]"#,
            r#"[{"a":"ctl"#,
            "[{\"a\":\"\u{1}\"}]",
            "[{1:2}]",
            deep.as_str(),
        ] {
            let (json, value) = (serde_json::from_str::<Vec<Json>>(text), serde_json::from_str::<Vec<Value>>(text));
            assert_eq!(json.err().map(|e| e.to_string()), value.err().map(|e| e.to_string()), "{text}");
        }
        let text = r#"[{"mtu":1,"if\u006eame":"a","mtu":"x","n":-0,"f":[1,"UP"]},7]"#;
        let (json, value) =
            (serde_json::from_str::<Vec<Json>>(text).unwrap(), serde_json::from_str::<Vec<Value>>(text).unwrap());
        for key in ["mtu", "ifname", "n", "f", "absent"] {
            assert_eq!(json[0].get(key).and_then(Json::as_str), value[0].get(key).and_then(Value::as_str), "{key}");
            assert_eq!(json[0].u64_of(key), value[0].get(key).and_then(Value::as_u64), "{key}");
            assert_eq!(json[0].get(key).is_some(), value[0].get(key).is_some(), "{key}");
            assert!(json[1].get(key).is_none());
        }
    }
}
