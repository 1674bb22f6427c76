//! The result table of nccl-tests: its columns, read from the header line, and its rows.
//!
//! Columns are named by the header (`#  size  count  type  redop  root  time  algbw  busbw
//! #wrong ...`), never assumed by position, because nccl-tests has printed five layouts (see the
//! module doc of [`super::nccl_tests`]). Everything before the first `time` (or `cputime`) column
//! describes the operation; each `time` starts one group of measured columns: the first group is
//! out-of-place, the second in-place; a trailing `timestamp` column takes two fields
//! (`2025-06-01 12:00:00`).
use super::nccl_tests::{Measure, PerIter, Row};
use crate::lines::clip;

/// An operation column (before the measured groups).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Param {
    Size,
    Count,
    Type,
    Redop,
    Root,
    /// A column this parser does not know: its field is skipped.
    Other,
}

/// A column of one measured group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Time,
    Algbw,
    Busbw,
    /// `#wrong`: the number of wrong elements (nccl-tests ≥ 2.13 with `-c 1`).
    Wrong,
    /// `error`: the largest relative error, `%5.0le` with `*` when above the bound (old format).
    Error,
    IterMin,
    IterMax,
    IterP99,
    IterCv,
    /// A column this parser does not know: its field is skipped.
    Other,
}

/// The columns of a result table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Layout {
    params: Vec<Param>,
    groups: Vec<Vec<Field>>,
    timestamp: bool,
}

/// One data row read with a [`Layout`], with the problems found in its fields.
pub(super) struct ReadRow {
    pub(super) row: Row,
    /// Measures whose old-format `error` value carried the `*` failure flag.
    pub(super) flagged: u64,
    /// Fields that were present but unreadable, as warning messages.
    pub(super) problems: Vec<String>,
}

impl Layout {
    /// The layout a column-name header line gives (`words` are the line's words after `#`), or
    /// `None` when the line is not a column header.
    pub(super) fn from_header(words: &[&str]) -> Option<Layout> {
        if !words.contains(&"size") || !words.contains(&"busbw") {
            return None;
        }
        let mut layout = Layout { params: Vec::new(), groups: Vec::new(), timestamp: false };
        for &word in words {
            let field = match word {
                "time" | "cputime" => {
                    layout.groups.push(vec![Field::Time]);
                    continue;
                }
                "timestamp" => {
                    layout.timestamp = true;
                    continue;
                }
                "algbw" => Field::Algbw,
                "busbw" => Field::Busbw,
                "#wrong" | "wrong" => Field::Wrong,
                "error" => Field::Error,
                "i_min" => Field::IterMin,
                "i_max" => Field::IterMax,
                "i_p99" => Field::IterP99,
                "i_cv%" => Field::IterCv,
                _ => Field::Other,
            };
            match layout.groups.last_mut() {
                Some(group) => group.push(field),
                None => layout.params.push(match word {
                    "size" => Param::Size,
                    "count" => Param::Count,
                    "type" => Param::Type,
                    "redop" => Param::Redop,
                    "root" => Param::Root,
                    _ => Param::Other,
                }),
            }
        }
        let complete = layout.params.contains(&Param::Size) && !layout.groups.is_empty();
        complete.then_some(layout)
    }

    /// The layout of a row seen before any header (a capture cut above the header), guessed from
    /// its field count: 13 fields are today's `size count type redop root` + 2 × 4; 12 fields
    /// are the old formats with `root` (broadcast, reduce: a number) or `redop` (all_reduce);
    /// 11 fields the old ones with neither (all_gather).
    pub(super) fn guess(fields: &[&str]) -> Option<Layout> {
        use Param::*;
        let params = match fields.len() {
            13 => vec![Size, Count, Type, Redop, Root],
            12 if fields[3].parse::<i64>().is_ok() => vec![Size, Count, Type, Root],
            12 => vec![Size, Count, Type, Redop],
            11 => vec![Size, Count, Type],
            _ => return None,
        };
        let wrong = if fields.len() == 13 { Field::Wrong } else { Field::Error };
        let group = vec![Field::Time, Field::Algbw, Field::Busbw, wrong];
        Some(Layout { params, groups: vec![group.clone(), group], timestamp: false })
    }

    /// How many fields a full row has.
    pub(super) fn width(&self) -> usize {
        self.params.len() + self.groups.iter().map(Vec::len).sum::<usize>() + if self.timestamp { 2 } else { 0 }
    }

    /// Reads one data row (its whitespace-separated `fields`), or says why it is not one.
    pub(super) fn read(&self, fields: &[&str]) -> Result<ReadRow, String> {
        let width = self.width();
        // A row without out-of-place results (trace replay) prints blanks in their place.
        let skipped_first = match self.groups.first() {
            Some(first) if self.groups.len() > 1 && fields.len() + first.len() == width => true,
            _ if fields.len() == width => false,
            _ => {
                return Err(format!("table row has {} fields where the column header has {width}", fields.len()));
            }
        };
        let mut read = ReadRow {
            row: Row {
                size_bytes: 0,
                count: 0,
                dtype: String::new(),
                redop: None,
                root: None,
                out_of_place: Measure::default(),
                in_place: None,
                timestamp: None,
            },
            flagged: 0,
            problems: Vec::new(),
        };
        let mut rest = fields.iter().copied();
        let (mut size, mut count) = (None, None);
        for (param, field) in self.params.iter().zip(rest.by_ref()) {
            match param {
                Param::Size => size = field.parse().ok(),
                Param::Count => count = field.parse().ok(),
                Param::Type => read.row.dtype = field.to_string(),
                Param::Redop => read.row.redop = Some(field.to_string()),
                Param::Root => read.row.root = field.parse().ok(),
                Param::Other => {}
            }
        }
        let (Some(size), Some(count)) = (size, count) else {
            return Err("table row without a numeric size and count".to_string());
        };
        read.row.size_bytes = size;
        read.row.count = count;
        let groups = self.groups.iter().skip(usize::from(skipped_first));
        let mut measures = Vec::new();
        for group in groups {
            let mut measure = Measure::default();
            for (&kind, field) in group.iter().zip(rest.by_ref()) {
                measure_field(&mut measure, kind, field, &mut read);
            }
            measures.push(measure);
        }
        if self.timestamp {
            let date: Vec<&str> = rest.collect();
            read.row.timestamp = Some(date.join(" "));
        }
        let mut measures = measures.into_iter();
        if !skipped_first {
            read.row.out_of_place = measures.next().unwrap_or_default();
        }
        read.row.in_place = measures.next();
        Ok(read)
    }
}

/// Stores one measured field in `measure`; an unreadable value is left out and reported.
fn measure_field(measure: &mut Measure, kind: Field, field: &str, read: &mut ReadRow) {
    let name = match kind {
        Field::Time => "time",
        Field::Algbw => "algbw",
        Field::Busbw => "busbw",
        Field::Wrong => "#wrong",
        Field::Error => "error",
        Field::IterMin => "i_min",
        Field::IterMax => "i_max",
        Field::IterP99 => "i_p99",
        Field::IterCv => "i_cv%",
        Field::Other => return,
    };
    let (field, flag) = match field.strip_suffix('*') {
        Some(value) if kind == Field::Error => (value, true),
        _ => (field, false),
    };
    let Ok(value) = number(field) else {
        read.problems.push(format!("unreadable `{name}` value `{}` in a table row", clip(field, 40)));
        return;
    };
    match kind {
        Field::Time => measure.time_us = value,
        Field::Algbw => measure.algbw_gbs = value,
        Field::Busbw => measure.busbw_gbs = value,
        Field::Wrong => measure.wrong = value.filter(|v| *v >= 0.0).map(|v| v as u64),
        Field::Error => {
            measure.max_error = value;
            read.flagged += u64::from(flag);
        }
        _ => {
            let stats = measure.per_iter.get_or_insert_with(PerIter::default);
            match kind {
                Field::IterMin => stats.min_us = value,
                Field::IterMax => stats.max_us = value,
                Field::IterP99 => stats.p99_us = value,
                _ => stats.cv_pct = value,
            }
        }
    }
}

/// Whether a field is a value as nccl-tests prints one (a number, `N/A`, `nan`, `inf`).
pub(super) fn is_number(field: &str) -> bool {
    number(field).is_ok()
}

/// A measured value: `N/A` (not measured: `-c 0`, or in-place of sendrecv) and `nan`/`inf`
/// (printed by `%f` for a zero time) are `None`; anything else that is not a number is an error.
fn number(field: &str) -> Result<Option<f64>, ()> {
    if field == "N/A" {
        return Ok(None);
    }
    let value: f64 = field.parse().map_err(|_| ())?;
    Ok(value.is_finite().then_some(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<&str> {
        line.trim_start_matches('#').split_whitespace().collect()
    }

    #[test]
    fn per_iteration_and_timestamp_columns() {
        let header = "# size count type redop root time algbw busbw #wrong i_min i_max i_p99 i_cv% \
                      time algbw busbw #wrong i_min i_max i_p99 i_cv% timestamp";
        let layout = Layout::from_header(&words(header)).expect("header");
        let row = "1024 256 float sum -1 10.5 0.10 0.19 0 9.0 12.0 11.9 3.5 \
                   10.1 0.10 0.19 0 9.1 11.0 10.9 2.5 2025-06-01 12:00:00";
        let read = layout.read(&words(row)).expect("row");
        let stats = read.row.out_of_place.per_iter.expect("stats");
        assert_eq!((stats.min_us, stats.cv_pct), (Some(9.0), Some(3.5)));
        assert_eq!(read.row.in_place.and_then(|m| m.busbw_gbs), Some(0.19));
        assert_eq!(read.row.timestamp.as_deref(), Some("2025-06-01 12:00:00"));
    }

    #[test]
    fn old_error_column_flag_and_missing_out_of_place() {
        let layout =
            Layout::from_header(&words("#  size count type redop time algbw busbw error time algbw busbw error"))
                .expect("header");
        let read = layout.read(&words("64 16 float sum 20.1 0.00 0.01 2e-07* 19.9 0.00 0.01 0e+00")).expect("row");
        assert_eq!(read.flagged, 1);
        assert_eq!(read.row.out_of_place.max_error, Some(2e-07));
        assert_eq!(read.row.out_of_place.wrong, None);
        let read = layout.read(&words("64 16 float sum 19.9 0.00 0.01 N/A")).expect("row");
        assert_eq!(read.row.out_of_place, Measure::default());
        assert_eq!(read.row.in_place.and_then(|m| m.time_us), Some(19.9));
    }

    #[test]
    fn guesses_and_rejections() {
        let old = Layout::guess(&words("8 2 float 0 45.82 0.00 0.00 N/A 38.17 0.00 0.00 N/A"));
        assert_eq!(old.map(|l| l.params.len()), Some(4));
        assert!(Layout::guess(&words("1 2 3")).is_none());
        let layout = Layout::guess(&words("8 2 float sum -1 1 1 1 0 1 1 1 0")).expect("new");
        assert!(layout.read(&words("x 2 float sum -1 1 1 1 0 1 1 1 0")).is_err());
        assert!(layout.read(&words("8 2 float")).is_err());
        let read = layout.read(&words("8 2 float sum -1 1 x 1 1e+06 1 nan 1 0")).expect("row");
        assert_eq!(read.problems.len(), 1);
        assert_eq!(read.row.out_of_place.wrong, Some(1_000_000));
        assert_eq!(read.row.in_place.and_then(|m| m.algbw_gbs), None);
    }
}
