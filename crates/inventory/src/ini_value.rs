//! Typing of INI variable values, as Ansible's `ast.literal_eval` does it.
//!
//! Ansible passes each INI value through Python's `ast.literal_eval` and keeps the text when
//! that fails, so `ansible_port=22` is an integer, `x=True` a boolean, `x="'42'"` the string
//! `42` and `x=['a','b']` (quoted so shlex keeps the inner quotes) a list. This module covers
//! the literals inventories use: integers, `True`/`False`/`None`, quoted strings, and lists or
//! tuples of those. Floats, dicts and anything else stay text.

use crate::value::VarValue;

/// Types one INI value; `None` is Python's `None`, meaning "not set here".
pub(crate) fn parse_value(text: &str) -> Option<VarValue> {
    let trimmed = text.trim();
    match Literal::new(trimmed).whole() {
        Some(Parsed::Value(v)) => Some(v),
        Some(Parsed::None) => None,
        None => Some(VarValue::String(text.to_owned())),
    }
}

/// A literal: a value, or Python's `None`.
enum Parsed {
    Value(VarValue),
    None,
}

/// A cursor over the text of one literal.
struct Literal<'a> {
    rest: &'a str,
    depth: usize,
}

impl<'a> Literal<'a> {
    fn new(text: &'a str) -> Self {
        Literal { rest: text, depth: 0 }
    }

    /// The literal, if the whole text is exactly one.
    fn whole(mut self) -> Option<Parsed> {
        let value = self.value()?;
        self.skip_ws();
        self.rest.is_empty().then_some(value)
    }

    fn skip_ws(&mut self) {
        self.rest = self.rest.trim_start();
    }

    fn value(&mut self) -> Option<Parsed> {
        self.skip_ws();
        let first = self.rest.chars().next()?;
        match first {
            '\'' | '"' => self.string(first).map(|s| Parsed::Value(VarValue::String(s))),
            '[' => self.list(']'),
            '(' => self.list(')'),
            _ => self.word(),
        }
    }

    /// A bare word: an integer, `True`, `False` or `None`.
    fn word(&mut self) -> Option<Parsed> {
        let end = self
            .rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '+' || c == '-'))
            .unwrap_or(self.rest.len());
        let (word, rest) = self.rest.split_at(end);
        let parsed = match word {
            "True" => Parsed::Value(VarValue::Bool(true)),
            "False" => Parsed::Value(VarValue::Bool(false)),
            "None" => Parsed::None,
            _ => Parsed::Value(VarValue::Int(python_int(word)?)),
        };
        self.rest = rest;
        Some(parsed)
    }

    /// A quoted string with Python's common escapes.
    fn string(&mut self, quote: char) -> Option<String> {
        let mut out = String::new();
        let mut chars = self.rest.char_indices().skip(1);
        while let Some((i, c)) = chars.next() {
            match c {
                c if c == quote => {
                    self.rest = &self.rest[i + c.len_utf8()..];
                    return Some(out);
                }
                '\\' => {
                    let (_, e) = chars.next()?;
                    match e {
                        'n' => out.push('\n'),
                        't' => out.push('\t'),
                        'r' => out.push('\r'),
                        '0' => out.push('\0'),
                        '\\' | '\'' | '"' => out.push(e),
                        other => {
                            out.push('\\');
                            out.push(other);
                        }
                    }
                }
                c => out.push(c),
            }
        }
        None
    }

    /// A list or tuple of literals; a `None` item is dropped like a YAML null.
    fn list(&mut self, close: char) -> Option<Parsed> {
        // Nesting is bounded so that hostile input cannot exhaust the stack.
        if self.depth >= 16 {
            return None;
        }
        self.depth += 1;
        self.rest = &self.rest[1..];
        let mut items = Vec::new();
        loop {
            self.skip_ws();
            if let Some(rest) = self.rest.strip_prefix(close) {
                self.rest = rest;
                break;
            }
            if let Parsed::Value(v) = self.value()? {
                items.push(v);
            }
            self.skip_ws();
            if let Some(rest) = self.rest.strip_prefix(',') {
                self.rest = rest;
            } else if let Some(rest) = self.rest.strip_prefix(close) {
                self.rest = rest;
                break;
            } else {
                return None;
            }
        }
        self.depth -= 1;
        Some(Parsed::Value(VarValue::List(items)))
    }
}

/// A Python 3 decimal integer literal: no leading zeros (`007` is a syntax error there, so
/// it stays text), `_` allowed between digits.
fn python_int(word: &str) -> Option<i64> {
    let digits = word.strip_prefix(['+', '-']).unwrap_or(word);
    let bytes = digits.as_bytes();
    let well_formed = !bytes.is_empty()
        && bytes[0].is_ascii_digit()
        && bytes[bytes.len() - 1].is_ascii_digit()
        && bytes.iter().all(|c| c.is_ascii_digit() || *c == b'_')
        && !digits.contains("__")
        && (bytes[0] != b'0' || digits.bytes().all(|c| c == b'0' || c == b'_'));
    if !well_formed {
        return None;
    }
    word.replace('_', "").parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Option<VarValue> {
        Some(VarValue::from(x))
    }

    #[test]
    fn literals() {
        assert_eq!(parse_value("22"), Some(VarValue::Int(22)));
        assert_eq!(parse_value("-3"), Some(VarValue::Int(-3)));
        assert_eq!(parse_value("1_000"), Some(VarValue::Int(1000)));
        assert_eq!(parse_value("0"), Some(VarValue::Int(0)));
        assert_eq!(parse_value("True"), Some(VarValue::Bool(true)));
        assert_eq!(parse_value("False"), Some(VarValue::Bool(false)));
        assert_eq!(parse_value("None"), None);
        assert_eq!(parse_value("'42'"), s("42"));
        assert_eq!(parse_value(r#""a b""#), s("a b"));
        assert_eq!(parse_value(r"'it\'s'"), s("it's"));
        assert_eq!(parse_value("['mlx5_0', 'mlx5_1']"), Some(VarValue::List(vec!["mlx5_0".into(), "mlx5_1".into()])));
        assert_eq!(parse_value("(1, 'a',)"), Some(VarValue::List(vec![VarValue::Int(1), "a".into()])));
        assert_eq!(parse_value("[]"), Some(VarValue::List(vec![])));
    }

    #[test]
    fn everything_else_stays_text() {
        for text in [
            "007",
            "true",
            "yes",
            "1.5",
            "ntp.example.com",
            "mlx5_0,mlx5_1",
            "[mlx5_0,mlx5_1]",
            "{'a': 1}",
            "'unterminated",
            "'a' 'b'",
            "1__0",
            "_1",
            "",
            "99999999999999999999",
        ] {
            assert_eq!(parse_value(text), s(text), "{text}");
        }
        let deep = "[".repeat(100);
        assert_eq!(parse_value(&deep), s(&deep));
    }
}
