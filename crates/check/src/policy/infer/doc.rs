//! The inferred policy's text: YAML lines, each key under the comment that says how many of how
//! many run it, and the keys left out with why.

use super::tally::Decision;

/// How many names a comment lists before `and N more`.
const NAMED: usize = 5;

/// The policy being written.
#[derive(Debug, Default)]
pub struct Doc {
    lines: Vec<String>,
    /// Notes waiting for their section, by key.
    notes: Vec<(String, String)>,
    left_out: Vec<String>,
}

impl Doc {
    /// A YAML line.
    pub fn line(&mut self, indent: usize, text: &str) {
        self.lines.push(format!("{:indent$}{text}", ""));
    }

    /// A comment line.
    pub fn comment(&mut self, indent: usize, text: &str) {
        self.lines.push(format!("{:indent$}# {text}", ""));
    }

    /// A note on `key`, written above its section when [`Doc::flush_notes`] reaches it.
    pub fn note(&mut self, key: &str, text: &str) {
        self.notes.push((key.to_string(), text.to_string()));
    }

    /// Writes the waiting notes whose key starts with `prefix`.
    pub fn flush_notes(&mut self, indent: usize, prefix: &str) {
        let (now, later): (Vec<_>, Vec<_>) =
            std::mem::take(&mut self.notes).into_iter().partition(|(k, _)| k.starts_with(prefix));
        self.notes = later;
        for (key, text) in now {
            self.comment(indent, &format!("{key}: {text}"));
        }
    }

    /// `key` is not written, because of `why`: said in the text and to the caller.
    pub fn leave_out(&mut self, key: &str, why: &str) {
        self.comment(0, &format!("{key}: left out: {why}"));
        self.left_out.push(format!("{key}: {why}"));
    }

    /// The text, and the keys left out.
    pub fn finish(mut self) -> (String, Vec<String>) {
        self.flush_notes(0, "");
        (self.lines.join("\n") + "\n", self.left_out)
    }
}

/// What a decision was, in a comment: `3 (30 of 32 switch ports); not: leaf1:Ethernet8 (none)`, or
/// the split.
pub fn said<T>(d: &Decision<T>, unit: &str, show: impl Fn(&T) -> String) -> String {
    match d {
        Decision::Unread => format!("not read on any {unit}"),
        Decision::Clear { value, count, total, others } => {
            let mut text = format!("{} ({count} of {total} {unit})", show(value));
            if !others.is_empty() {
                let named: Vec<String> =
                    others.iter().take(NAMED).map(|(who, v)| format!("{who} ({})", show(v))).collect();
                text.push_str(&format!("; not: {}", named.join(", ")));
                if others.len() > NAMED {
                    text.push_str(&format!(" and {} more", others.len() - NAMED));
                }
            }
            text
        }
        Decision::Split { values, total } => {
            let parts: Vec<String> = values.iter().map(|(v, n)| format!("{} ({n})", show(v))).collect();
            format!("no clear majority among {total} {unit}: {}", parts.join(", "))
        }
    }
}
