//! iproute2's JSON output (`ip -j link`, `ip -j rule`, `ip -j route`): one array of objects, on
//! one line or pretty-printed over many (`-p`). Read once here so every `ip -j` parser numbers
//! its elements' lines and words its warnings the same way: lines before the array (an echoed
//! prompt) and text after it are warnings; input without a JSON array is an error.

use crate::lines::{numbered, unrecognised};
use crate::{ParseError, ParseWarning};
use serde_json::Value;

/// The array's elements, each with the line it starts on.
pub(crate) type Elements = Vec<(usize, Value)>;

/// The array's elements and the warnings about what is around the array; or why there is no
/// array (`what` names the command in the error).
pub(crate) fn elements(text: &str, what: &str) -> Result<(Elements, Vec<ParseWarning>), ParseError> {
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
        return Err(ParseError::at(0, format!("not {what} output: no JSON array")));
    };
    let body = text.get(offset..).unwrap_or("");
    let mut stream = serde_json::Deserializer::from_str(body).into_iter::<Vec<Value>>();
    let values = match stream.next() {
        Some(Ok(values)) => values,
        Some(Err(e)) => {
            return Err(ParseError::at(first_line + e.line().saturating_sub(1), format!("not {what} JSON: {e}")));
        }
        None => return Err(ParseError::at(0, format!("not {what} output: no JSON array"))),
    };
    let rest = body.get(stream.byte_offset()..).unwrap_or("");
    if !rest.trim().is_empty() {
        let line = first_line + body.get(..stream.byte_offset()).unwrap_or("").matches('\n').count();
        warnings.push(ParseWarning::at(line, "text after the JSON array ignored"));
    }
    let starts = element_lines(body);
    let elements =
        values.into_iter().enumerate().map(|(i, v)| (first_line + starts.get(i).copied().unwrap_or(0), v)).collect();
    Ok((elements, warnings))
}

/// A string member of an element.
pub(crate) fn text_of(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(String::from)
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
