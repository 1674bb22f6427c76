//! Line numbers for the keys of a JSON document, so that warnings about a config DB entry can
//! point at the line it is on (`serde_json::Value` keeps no positions).

use std::collections::HashMap;

/// The line of every object key down to a depth, by path (`["QUEUE", "Ethernet0|3"]`).
#[derive(Debug, Default)]
pub(crate) struct KeyLines {
    first_line: usize,
    lines: HashMap<Vec<String>, usize>,
}

impl KeyLines {
    /// Scans `json`, whose first character is on line `first_line` of the input, recording the
    /// keys of objects nested at most `max_depth` deep (inside objects only, not arrays).
    pub(crate) fn new(json: &str, first_line: usize, max_depth: usize) -> KeyLines {
        let mut lines = HashMap::new();
        // Per open container: whether it is an object, and its current key.
        let mut stack: Vec<(bool, Option<String>)> = Vec::new();
        let (mut line, mut expect_key) = (first_line, false);
        let mut chars = json.chars();
        while let Some(c) = chars.next() {
            match c {
                '\n' => line += 1,
                '{' => {
                    stack.push((true, None));
                    expect_key = true;
                }
                '[' => {
                    stack.push((false, None));
                    expect_key = false;
                }
                '}' | ']' => {
                    stack.pop();
                    expect_key = false;
                }
                ',' => expect_key = matches!(stack.last(), Some((true, _))),
                '"' => {
                    let mut s = String::new();
                    while let Some(c) = chars.next() {
                        match c {
                            '"' => break,
                            '\\' => s.extend(chars.next()),
                            '\n' => line += 1,
                            _ => s.push(c),
                        }
                    }
                    if !expect_key {
                        continue;
                    }
                    expect_key = false;
                    if let Some(top) = stack.last_mut() {
                        top.1 = Some(s);
                    }
                    if stack.len() <= max_depth && stack.iter().all(|(object, _)| *object) {
                        let path: Vec<String> = stack.iter().filter_map(|(_, k)| k.clone()).collect();
                        lines.entry(path).or_insert(line);
                    }
                }
                _ => {}
            }
        }
        KeyLines { first_line, lines }
    }

    /// The line of the key at `path`, or of its nearest ancestor that was recorded, or the line
    /// the document starts on.
    pub(crate) fn line(&self, path: &[&str]) -> usize {
        (1..=path.len())
            .rev()
            .find_map(|n| {
                let key: Vec<String> = path[..n].iter().map(|s| s.to_string()).collect();
                self.lines.get(&key).copied()
            })
            .unwrap_or(self.first_line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_get_their_lines_and_unknown_paths_fall_back() {
        let json = "{\n \"A\": {\n  \"k\\\"1\": {\"x\": [ {\"deep\": 1} ]},\n  \"k2\": 2\n },\n \"B\": []\n}";
        let kl = KeyLines::new(json, 10, 3);
        assert_eq!(kl.line(&["A"]), 11);
        assert_eq!(kl.line(&["A", "k\"1"]), 12);
        assert_eq!(kl.line(&["A", "k\"1", "x"]), 12);
        assert_eq!(kl.line(&["A", "k2"]), 13);
        assert_eq!(kl.line(&["B"]), 15);
        assert_eq!(kl.line(&["A", "nope"]), 11);
        assert_eq!(kl.line(&["Z"]), 10);
        assert_eq!(kl.line(&[]), 10);
        // Keys inside arrays are not recorded.
        assert_eq!(kl.line(&["A", "k\"1", "x", "deep"]), 12);
    }
}
