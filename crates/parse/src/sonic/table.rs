//! The tables SONiC's show commands print (python `tabulate`, format `simple`): a header line, a
//! rule of dashes with one run per column, then one line per row, values padded to the width of
//! the column's run.
//!
//! ```text
//!   Port Rx    PFC0    PFC1
//! ---------  ------  ------
//! Ethernet0   1,200     201
//! ```
//!
//! Column names and cells may hold spaces (`Port Rx`, `QSFP28 or later`) and cells may be empty,
//! so splitting on white space is not enough: the rule gives each column's character span, and a
//! line whose text stays inside the spans is cut along them. A line that does not (a copy whose
//! spacing was collapsed) is split on runs of two or more spaces, then on white space, and kept
//! when that gives exactly one cell per column. Every parser of this module reads its tables here,
//! so they agree on what a row is.

use crate::ParseWarning;
use crate::lines::{Line, cut_line_skipped, is_prompt, numbered, unrecognised_clipped};

/// The columns of one table: names (trimmed) and character spans (start inclusive, end exclusive).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Columns {
    pub(crate) names: Vec<String>,
    spans: Vec<(usize, usize)>,
}

impl Columns {
    /// The index of the column called `name` (ASCII case ignored).
    pub(crate) fn find(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n.eq_ignore_ascii_case(name))
    }

    /// `line` cut into one trimmed cell per column, or `None` when it cannot be.
    fn split(&self, raw: &str) -> Option<Vec<String>> {
        if let Some(cells) = self.by_span(raw) {
            return Some(cells);
        }
        let wide: Vec<String> = split_wide(raw.trim());
        if wide.len() == self.spans.len() {
            return Some(wide);
        }
        let words: Vec<String> = raw.split_whitespace().map(String::from).collect();
        (words.len() == self.spans.len()).then_some(words)
    }

    /// Cells cut along the spans, when every non-space character of `raw` lies inside one.
    fn by_span(&self, raw: &str) -> Option<Vec<String>> {
        let chars: Vec<char> = raw.chars().collect();
        let inside = |i: usize| self.spans.iter().any(|&(s, e)| s <= i && i < e);
        if chars.iter().enumerate().any(|(i, c)| !c.is_whitespace() && !inside(i)) {
            return None;
        }
        let cells = self
            .spans
            .iter()
            .map(|&(s, e)| {
                let cell: String = chars.iter().take(e).skip(s).collect();
                cell.trim().to_string()
            })
            .collect();
        Some(cells)
    }
}

/// One non-blank line of a show command's output, classified.
#[derive(Debug, Clone)]
pub(crate) enum Item<'a> {
    /// A header line followed by its rule: a table starts (the rule is consumed with it).
    Header { line: Line<'a>, columns: Columns },
    /// A line after a header that splits into one cell per column of that header.
    Row { line: Line<'a>, cells: Vec<String> },
    /// Any other line: before the first header, or not a row of the current table.
    Other(Line<'a>),
}

/// The lines of `text`, each classified as a table header, a row of the table above it, or other.
pub(crate) fn items(text: &str) -> Vec<Item<'_>> {
    let lines: Vec<Line<'_>> = numbered(text).collect();
    let mut out = Vec::with_capacity(lines.len());
    let mut current: Option<Columns> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let header = lines.get(i + 1).filter(|rule| is_rule(rule.raw)).and_then(|rule| columns(line.raw, rule.raw));
        if let Some(columns) = header {
            current = Some(columns.clone());
            out.push(Item::Header { line, columns });
            i += 2;
            continue;
        }
        // `...`, `..`, `.`: rows elided by whoever saved the output, not a port named so; and
        // multi-ASIC `For namespace X:` lines between tables are never rows of the one above.
        let not_a_row = line.text.chars().all(|c| c == '.') || line.text.starts_with("For namespace");
        match current.as_ref().filter(|_| !not_a_row).and_then(|c| c.split(line.raw)) {
            Some(cells) => out.push(Item::Row { line, cells }),
            None => out.push(Item::Other(line)),
        }
        i += 1;
    }
    out
}

/// Reads the tables of `text` whose header `known` accepts and gives how many there were. Each
/// row of one goes to `row` (the cells, the column names, the line number); a row cut off by the
/// end of the capture is skipped with a warning. A line that is neither header nor row goes to
/// `other`, which says whether it knows the line. Headers `known` refuses, rows under them and
/// lines `other` does not know warn as unrecognised.
pub(crate) fn read_tables<T>(
    text: &str,
    value: &mut T,
    warnings: &mut Vec<ParseWarning>,
    known: impl Fn(&Columns) -> bool,
    mut row: impl FnMut(&mut T, &[String], &[String], usize, &mut Vec<ParseWarning>),
    mut other: impl FnMut(&mut T, &str) -> bool,
) -> usize {
    let mut tables = 0;
    let mut names: Option<Vec<String>> = None;
    for item in items(text) {
        match item {
            Item::Header { line, columns } => {
                names = known(&columns).then_some(columns.names);
                match names {
                    Some(_) => tables += 1,
                    None => warnings.push(unknown(line.n, line.text)),
                }
            }
            Item::Row { line, cells } => {
                let Some(names) = &names else {
                    warnings.push(unknown(line.n, line.text));
                    continue;
                };
                if !line.ended {
                    warnings.push(ParseWarning::at(line.n, cut_line_skipped(line.text)));
                    continue;
                }
                row(value, &cells, names, line.n, warnings);
            }
            Item::Other(line) => {
                if !other(value, line.text) {
                    warnings.push(unknown(line.n, line.text));
                }
            }
        }
    }
    tables
}

fn unknown(line: usize, text: &str) -> ParseWarning {
    ParseWarning::at(line, unrecognised_clipped(text))
}

/// A counter cell: digits, with or without thousands separators (`1,200`), give the number;
/// `N/A` (no counter on that port or queue) gives `Ok(None)`; anything else is `Err`.
pub(crate) fn counter(cell: &str) -> Result<Option<u64>, ()> {
    let cell = cell.trim();
    if cell.eq_ignore_ascii_case("N/A") {
        return Ok(None);
    }
    let digits: String = cell.chars().filter(|&c| c != ',').collect();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(());
    }
    digits.parse().map(Some).map_err(|_| ())
}

/// Whether `line` is a shell prompt echoing one of the SONiC commands fabcheck runs
/// (`admin@sonic:~$ show pfc counters`, `# pfcstat`): not output.
pub(crate) fn is_sonic_prompt(line: &str) -> bool {
    const COMMANDS: [&str; 7] = ["show ", "pfcstat", "pfcwd", "queuestat", "intfutil", "sonic-cfggen", "sudo "];
    COMMANDS.iter().any(|c| is_prompt(line, c))
}

/// A rule: dashes and spaces only, at least one dash.
fn is_rule(raw: &str) -> bool {
    raw.contains('-') && raw.chars().all(|c| c == '-' || c == ' ')
}

/// The columns a header and its rule describe, or `None` when a column would have no name.
fn columns(header: &str, rule: &str) -> Option<Columns> {
    let mut spans = Vec::new();
    let mut start = None;
    for (i, c) in rule.chars().chain(std::iter::once(' ')).enumerate() {
        match (c == '-', start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                spans.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    let by_span = Columns { names: Vec::new(), spans };
    let names = match by_span.by_span(header) {
        Some(names) => names,
        // A header whose spacing does not match its rule: its names, if they count right.
        None => Some(split_wide(header.trim())).filter(|n| n.len() == by_span.spans.len()).unwrap_or_default(),
    };
    if names.is_empty() || names.iter().any(String::is_empty) {
        return None;
    }
    Some(Columns { names, spans: by_span.spans })
}

/// `text` split on runs of two or more spaces.
fn split_wide(text: &str) -> Vec<String> {
    text.split("  ").map(str::trim).filter(|s| !s.is_empty()).map(String::from).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(text: &str) -> Vec<(usize, Vec<String>)> {
        items(text)
            .into_iter()
            .filter_map(|i| match i {
                Item::Row { line, cells, .. } => Some((line.n, cells)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn cells_with_spaces_and_empty_cells_follow_the_rule() {
        let text = "  Name    Type  Vlan\n------  ------  ----\n  Eth0  a b c\n  Eth1    RJ45  \n";
        assert_eq!(
            rows(text),
            [
                (3, vec!["Eth0".into(), "a b c".into(), String::new()]),
                (4, vec!["Eth1".into(), "RJ45".into(), String::new()]),
            ]
        );
    }

    #[test]
    fn collapsed_spacing_falls_back_to_words() {
        let text = "Port Rx  PFC0\n---------  ------\nEthernet0 1,200\nEthernet4 1 2\n";
        let all = items(text);
        let Item::Header { columns, .. } = &all[0] else { panic!("header first") };
        assert_eq!(columns.names, ["Port Rx", "PFC0"]);
        assert!(matches!(&all[1], Item::Row { cells, .. } if cells == &["Ethernet0", "1,200"]));
        assert!(matches!(&all[2], Item::Other(l) if l.n == 4));
    }

    #[test]
    fn counters_and_prompts() {
        assert_eq!(counter("1,200"), Ok(Some(1200)));
        assert_eq!(counter(" N/A "), Ok(None));
        assert_eq!(counter("12a"), Err(()));
        assert_eq!(counter(""), Err(()));
        assert_eq!(counter("99999999999999999999999"), Err(()));
        assert!(is_sonic_prompt("admin@sonic:~$ show pfc counters"));
        assert!(is_sonic_prompt("# pfcstat "));
        assert!(!is_sonic_prompt("Ethernet0 show"));
    }

    #[test]
    fn lines_before_a_header_and_a_lone_rule_are_other() {
        let text = "Last cached time was x\n  A   B\n---  ---\n  1   2\nx y z\n";
        let kinds: Vec<(usize, &str)> = items(text)
            .iter()
            .map(|i| match i {
                Item::Header { line, .. } => (line.n, "h"),
                Item::Row { line, .. } => (line.n, "r"),
                Item::Other(line) => (line.n, "o"),
            })
            .collect();
        assert_eq!(kinds, [(1, "o"), (2, "h"), (4, "r"), (5, "o")]);
    }
}
