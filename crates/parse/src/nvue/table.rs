//! The layout every NVUE `nv show` command prints, read once for all of them.
//!
//! ```text
//! cumulus@switch:mgmt:~$ nv show qos roce                  <- echoed prompt (optional)
//!                     operational            applied       <- column titles
//! ------------------  ---------------------  ------------  <- dashes: the column spans
//! mode                lossless-single-ipool  lossless-...  <- key, then one value per column
//! pfc                                                      <- a key without values opens a group
//!   pfc-priority      3                                    <- indented two spaces per level
//! RoCE SP->TC mapping and ETS configurations               <- a table title ...
//! =============================================            <- ... underlined with `=`
//!        switch-prio  traffic-class  scheduler-weight      <- its column titles
//!     -  -----------  -------------  ----------------      <- its column spans
//!     0  0            0              DWRR-50%               <- rows
//! ```
//!
//! Cells are cut at the column spans of the dash line above them, not at white space: values
//! such as `146.48 KB`, `ecn, absolute` and `strict priority` hold spaces. Lines of one space
//! (the status output prints them between tables) are blank. A last line without a line end is
//! skipped with a warning: it may hold half a value.
use crate::ParseWarning;
use crate::lines::{cells, column_starts, cut_line_skipped, is_prompt, numbered, unrecognised_clipped};

/// One `key  value  value` line of the key/value part.
#[derive(Debug, Clone)]
pub(super) struct Field {
    /// Line number.
    pub(super) n: usize,
    /// The key with its groups, joined with `.`: `pfc.pfc-priority`.
    pub(super) path: String,
    /// The first value column (`operational`).
    pub(super) operational: String,
    /// The second value column (`applied`).
    pub(super) applied: String,
}

impl Field {
    /// What the switch runs: the operational value, or the applied one when the operational
    /// column is empty (NVUE leaves it empty for settings it does not read back).
    pub(super) fn value(&self) -> &str {
        if self.operational.is_empty() { &self.applied } else { &self.operational }
    }
}

/// A titled table (`RoCE Pool Status` + `====`).
#[derive(Debug, Clone, Default)]
pub(super) struct Table {
    /// Line number of the title.
    pub(super) n: usize,
    /// The title as printed.
    pub(super) title: String,
    /// Column titles (the first, the row label, is usually empty).
    pub(super) columns: Vec<String>,
    /// Rows: line number and cells, one per column.
    pub(super) rows: Vec<(usize, Vec<String>)>,
    /// Lines of text inside the table that are not rows (`No Data`).
    pub(super) notes: Vec<(usize, String)>,
}

impl Table {
    /// The cell of `row` under the column titled `name`.
    pub(super) fn cell<'a>(&self, row: &'a [String], name: &str) -> Option<&'a str> {
        let i = self.columns.iter().position(|c| c == name)?;
        row.get(i).map(String::as_str).filter(|c| !c.is_empty())
    }
}

/// Everything an `nv show` output holds.
#[derive(Debug, Clone, Default)]
pub(super) struct Show {
    /// The command of the echoed prompt line (`nv show interface swp16 qos roce status`).
    pub(super) command: Option<String>,
    /// Key/value lines with values.
    pub(super) fields: Vec<Field>,
    /// Titled tables.
    pub(super) tables: Vec<Table>,
    /// Lines that fit neither.
    pub(super) warnings: Vec<ParseWarning>,
}

#[cfg(test)]
impl Show {
    /// The field at `path`.
    fn field(&self, path: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.path == path)
    }

    /// The first table whose title contains `part` (case-insensitive).
    fn table(&self, part: &str) -> Option<&Table> {
        let part = part.to_ascii_lowercase();
        self.tables.iter().find(|t| t.title.to_ascii_lowercase().contains(&part))
    }
}

/// Where we are in the output.
enum State {
    /// Before the column titles of the key/value part.
    Start,
    /// Column titles seen, dashes expected.
    KeyTitles,
    /// Inside the key/value part, with its column starts.
    Keys(Vec<usize>),
    /// A table title seen, its `====` line expected.
    TableRule,
    /// Table column titles expected.
    TableTitles,
    /// Table dashes expected (the titles line is kept to cut it once the spans are known).
    TableDashes(usize, String),
    /// Inside a table, with its column starts.
    Rows(Vec<usize>),
}

/// Reads an `nv show` output.
pub(super) fn read(text: &str) -> Show {
    let mut show = Show::default();
    let lines: Vec<_> = numbered(text).collect();
    let mut state = State::Start;
    let mut groups: Vec<String> = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if !l.ended {
            show.warnings.push(ParseWarning::at(l.n, cut_line_skipped(l.text)));
            continue;
        }
        let next_is_rule = lines.get(i + 1).is_some_and(|next| is_rule(next.text, '='));
        if next_is_rule {
            show.tables.push(Table { n: l.n, title: l.text.to_string(), ..Table::default() });
            state = State::TableRule;
            continue;
        }
        state = match state {
            State::Start if show.command.is_none() && is_prompt(l.text, "nv ") => {
                show.command = l.text.find("nv ").map(|at| l.text[at..].trim().to_string());
                State::Start
            }
            State::Start if !is_rule(l.text, '-') => State::KeyTitles,
            State::Start | State::KeyTitles if is_rule(l.text, '-') => State::Keys(column_starts(l.raw)),
            State::Keys(starts) => {
                key_line(l.n, l.raw, &starts, &mut groups, &mut show);
                State::Keys(starts)
            }
            State::TableRule if is_rule(l.text, '=') => State::TableTitles,
            State::TableTitles if is_rule(l.text, '-') => {
                // No titles line: the columns stay unnamed.
                State::Rows(column_starts(l.raw))
            }
            State::TableTitles => State::TableDashes(l.n, l.raw.to_string()),
            State::TableDashes(_, titles) if is_rule(l.text, '-') => {
                let starts = column_starts(l.raw);
                if let Some(table) = show.tables.last_mut() {
                    table.columns = cells(&titles, &starts);
                }
                State::Rows(starts)
            }
            State::Rows(starts) => {
                if let Some(table) = show.tables.last_mut() {
                    if is_rule(l.text, '-') {
                        // A dashed rule under the last row closes nothing: skip it.
                    } else if l.raw.starts_with(' ') {
                        table.rows.push((l.n, cells(l.raw, &starts)));
                    } else {
                        table.notes.push((l.n, l.text.to_string()));
                    }
                }
                State::Rows(starts)
            }
            other => {
                show.warnings.push(ParseWarning::at(l.n, unrecognised_clipped(l.text)));
                other
            }
        };
    }
    // A table with one line and no dashes (`Exception List` / `No Data`): the line is a note.
    if let (State::TableDashes(n, line), Some(table)) = (state, show.tables.last_mut()) {
        table.notes.push((n, line.trim().to_string()));
    }
    show
}

/// A key/value line: `  pfc-priority      3   ...`.
fn key_line(n: usize, raw: &str, starts: &[usize], groups: &mut Vec<String>, show: &mut Show) {
    // The key is the first word, even when it runs past its column; the values are cut from
    // the rest of the line.
    let indent = raw.len() - raw.trim_start().len();
    let key = raw.split_whitespace().next().unwrap_or_default();
    let key_end = raw[..indent].chars().count() + key.chars().count();
    let blanked: String = raw.chars().enumerate().map(|(i, c)| if i < key_end { ' ' } else { c }).collect();
    let cells = cells(&blanked, starts);
    if key.is_empty() || cells.first().is_some_and(|c| !c.is_empty()) {
        show.warnings.push(ParseWarning::at(n, unrecognised_clipped(raw.trim())));
        return;
    }
    let depth = indent / 2;
    groups.truncate(depth);
    let values = cells.get(1..).unwrap_or_default();
    if values.iter().take(2).all(String::is_empty) {
        // A group (`pfc`) or a key without a value: later keys nest under it.
        groups.push(key.to_string());
        return;
    }
    let mut path = groups.join(".");
    if !path.is_empty() {
        path.push('.');
    }
    path.push_str(key);
    show.fields.push(Field {
        n,
        path,
        operational: values.first().cloned().unwrap_or_default(),
        applied: values.get(1).cloned().unwrap_or_default(),
    });
}

/// Whether `text` is a rule of `c` (`-----  ---` or `=====`).
fn is_rule(text: &str, c: char) -> bool {
    !text.is_empty() && text.chars().all(|x| x == c || x == ' ') && text.contains(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_groups_tables_and_notes() {
        let text = "cumulus@sw:~$ nv show qos roce\n           operational  applied\n---------  -----------  -------\nenable                  on\npfc\n  pfc-priority  3\nT\n===\n    a  b c\n -  -  ---\n 0  x  y z\nNo Data\n";
        let show = read(text);
        assert_eq!(show.command.as_deref(), Some("nv show qos roce"));
        assert_eq!(show.field("enable").map(Field::value), Some("on"));
        assert_eq!(show.field("pfc.pfc-priority").map(|f| f.n), Some(6));
        let t = show.table("t").expect("table");
        assert_eq!(t.columns, ["", "a", "b c"]);
        assert_eq!(t.rows[0].1, ["0", "x", "y z"]);
        assert_eq!(t.notes, [(12, "No Data".to_string())]);
        assert!(show.warnings.is_empty(), "{:?}", show.warnings);
    }

    #[test]
    fn cells_never_slice_out_of_range() {
        assert_eq!(cells("ab", &[0, 5, 9]), ["ab", "", ""]);
        assert_eq!(cells("", &[3]), [""]);
        assert_eq!(cells("éé  x", &[0, 4]), ["éé", "x"]);
    }
}
