//! `nvidia-smi topo -m`: the PCIe/NVLink distance between every pair of GPUs and NICs.
//!
//! ```text
//!         GPU0    GPU1    NIC0    NIC1    CPU Affinity    NUMA Affinity   GPU NUMA ID
//! GPU0     X      PHB     NODE    NODE    0-23    0               N/A
//! NIC0    NODE    NODE     X      PIX
//!
//! Legend:
//!
//!   X    = Self
//!   ...
//! NIC Legend:
//!
//!   NIC0: mlx5_0
//! ```
//!
//! nvidia-smi separates columns with tabs; pasted copies often have them expanded to spaces.
//! Header cells are split on tabs or runs of 2+ spaces (`CPU Affinity` has one space). A row with
//! tabs is split on each tab, so an empty affinity (a VM whose GPUs have none: `\t\t\t\tN/A`)
//! stays empty instead of shifting the next value into it; the empty field nvidia-smi prints
//! between `NUMA Affinity` and `GPU NUMA ID` is skipped. A row without tabs (expanded copies)
//! is split on any whitespace, as its cells never hold spaces. Matrix cells come first, then the
//! affinity columns in header order. Variants seen: tabs or spaces, old drivers naming NIC
//! columns `mlx5_N` (no NIC legend, no NUMA columns), the `Legend:` block (recognised, not
//! warned about), and copies cut mid-row.
use crate::lines::{cut_off, no_facts, numbered, unrecognised_clipped};
use crate::{ParseResult, ParseWarning, Parsed};
pub use fabcheck_model::host::nvidia_smi_topo::{Row, Topo};
use std::collections::HashMap;

const AFFINITY: [&str; 3] = ["CPU Affinity", "NUMA Affinity", "GPU NUMA ID"];

#[derive(PartialEq)]
enum Section {
    Matrix,
    Legend,
    NicLegend,
}

/// Parses `nvidia-smi topo -m` output.
///
/// # Errors
/// Empty input, or no header line starting with `GPU0`.
pub fn parse(text: &str) -> ParseResult<Topo> {
    let mut topo = Topo::default();
    let mut interned = Interned::default();
    // A row's fields, in one buffer for all rows.
    let mut fields: Vec<&str> = Vec::new();
    // Which of the `AFFINITY` columns the header has, in its order: where a row's values go.
    let mut affinity: Vec<usize> = Vec::new();
    let mut warnings = Vec::new();
    let mut section = Section::Matrix;
    for l in numbered(text) {
        let (n, raw, line) = (l.n, l.raw, l.text);
        let mut warn = |message: String| warnings.push(ParseWarning::at(n, message));
        // Only the first word is needed on most lines: the rest are split when a row needs them.
        let first = line.split_whitespace().next();
        if line == "Legend:" {
            section = Section::Legend;
        } else if line == "NIC Legend:" {
            section = Section::NicLegend;
        } else if topo.columns.is_empty() {
            if first == Some("GPU0") && !line.split_whitespace().any(|w| w == "X") {
                topo.columns = header_cells(line);
                topo.matrix = topo.columns.iter().filter(|c| !AFFINITY.contains(&c.as_str())).cloned().collect();
                affinity = topo.columns.iter().filter_map(|c| AFFINITY.iter().position(|a| a == c)).collect();
                // A copy whose tabs were expanded can glue two names (`NIC7NIC8`): their cells
                // cannot be told apart.
                for glued in topo.matrix.iter().filter(|c| c.matches("GPU").count() + c.matches("NIC").count() > 1) {
                    warn(format!(
                        "header column `{glued}` is two names glued together (tabs lost in a copy): its cells are not read right"
                    ));
                }
            } else {
                warn(unrecognised_clipped(line));
            }
        } else if section == Section::Legend && line.contains('=') {
            // `X    = Self`, `NV#  = Connection traversing a bonded set of # NVLinks`.
        } else if section == Section::NicLegend {
            match line.split_once(':') {
                Some((nic, dev)) if !dev.trim().is_empty() => {
                    topo.nic_legend.insert(nic.trim().into(), dev.trim().into());
                }
                _ => warn(unrecognised_clipped(line)),
            }
        } else if raw.starts_with(|c: char| !c.is_whitespace())
            && topo.columns.iter().any(|c| Some(c.as_str()) == first)
        {
            let tabbed = raw.contains('\t');
            fields.clear();
            match tabbed {
                true => fields.extend(raw.split('\t').map(str::trim)),
                false => fields.extend(line.split_whitespace()),
            }
            let row = row(&affinity, topo.matrix.len(), &fields, tabbed, &mut warn, |link| {
                interned.index(&mut topo.links, link)
            });
            topo.rows.push(row);
        } else {
            warn(unrecognised_clipped(line));
        }
    }
    if topo.columns.is_empty() {
        return Err(no_facts(
            text,
            "empty nvidia-smi topo output",
            "no header line starting with `GPU0`: not `nvidia-smi topo -m` output",
        ));
    }
    warnings.extend(cut_off(text));
    Ok(Parsed { value: topo, warnings })
}

/// The header's cells: cut at each tab and each run of two or more white space characters
/// (`CPU Affinity` has one space), as the regex `\t|\s{2,}` cut them, by one pass over the line.
fn header_cells(line: &str) -> Vec<String> {
    let mut cells = Vec::new();
    let mut cell_start = 0;
    // The run of white space being read: where it starts, how many characters, whether a tab.
    let mut run: Option<(usize, usize, bool)> = None;
    for (i, c) in line.char_indices() {
        if c.is_whitespace() {
            let (start, chars, tab) = run.unwrap_or((i, 0, false));
            run = Some((start, chars + 1, tab || c == '\t'));
        } else if let Some((start, chars, tab)) = run.take()
            && (chars > 1 || tab)
        {
            cells.push(&line[cell_start..start]);
            cell_start = i;
        }
    }
    // A run at the end is trimmed off, as the regex left an empty cell after it.
    cells.push(&line[cell_start..]);
    cells.into_iter().map(str::trim).filter(|c| !c.is_empty()).map(String::from).collect()
}

/// Each distinct connection once (see `Topo`), looked up by its text in the input, so that a
/// cell already seen is neither copied nor hashed: a matrix holds a handful of connections,
/// which a scan of the first [`Interned::SCANNED`] finds sooner than SipHash hashes one. The
/// map holds those after them, so that an output of many distinct cells still costs a hash each.
#[derive(Default)]
struct Interned<'a> {
    later: HashMap<&'a str, u32>,
}

impl<'a> Interned<'a> {
    const SCANNED: usize = 8;

    /// The index of `link` in `links`, added there if new.
    fn index(&mut self, links: &mut Vec<String>, link: &'a str) -> u32 {
        if let Some(i) = links.iter().take(Self::SCANNED).position(|l| l == link) {
            return i as u32;
        }
        let next = links.len() as u32;
        let scanned = links.len() < Self::SCANNED;
        let mut add = || {
            links.push(link.to_string());
            next
        };
        match scanned {
            true => add(),
            false => *self.later.entry(link).or_insert_with(add),
        }
    }
}

/// `fields[0]` is the row name; its `matrix` cells come first (each interned by `intern`), then
/// the values of the `affinity` columns (indexes into `AFFINITY`, in header order; `tabbed`: one
/// field per tab, so an empty one is an empty value).
fn row<'a>(
    affinity: &[usize],
    matrix: usize,
    fields: &[&'a str],
    tabbed: bool,
    warn: &mut impl FnMut(String),
    mut intern: impl FnMut(&'a str) -> u32,
) -> Row {
    let (name, values) = fields.split_first().map_or(("", &[][..]), |(n, v)| (*n, v));
    let cells: Vec<u32> = values.iter().take(matrix).map(|v| intern(v)).collect();
    if cells.len() < matrix {
        warn(format!("row `{name}` has {} of {matrix} matrix cells", cells.len()));
    }
    let mut row = Row { name: name.to_string(), cells, cpu_affinity: None, numa_affinity: None, gpu_numa_id: None };
    let mut rest: Vec<&str> = values.iter().skip(matrix).copied().collect();
    if tabbed {
        while rest.last() == Some(&"") {
            rest.pop();
        }
        // The empty field before the last column (`0-79\t0\t\tN/A`).
        if rest.len() == affinity.len() + 1 && affinity.len() > 1 && rest[affinity.len() - 1].is_empty() {
            rest.remove(affinity.len() - 1);
        }
    }
    let mut values = rest.into_iter();
    for (column, v) in affinity.iter().zip(values.by_ref()) {
        // In the order of `AFFINITY`.
        let slot = match column {
            0 => &mut row.cpu_affinity,
            1 => &mut row.numa_affinity,
            _ => &mut row.gpu_numa_id,
        };
        *slot = (!v.is_empty()).then(|| v.to_string());
    }
    let left: Vec<&str> = values.collect();
    if !left.is_empty() {
        warn(format!("row `{name}` has extra cells `{}`", left.join(" ")));
    }
    row
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str =
        include_str!("../../tests/fixtures/nvidia_smi_topo/h100-8gpu-9nic-tab-separated-nccl-1453-PARTIAL.txt");

    #[test]
    fn short_and_long_rows_warn() {
        let text = "\tGPU0\tNIC0\tCPU Affinity\nGPU0\t X \tPIX\t0-7\tsurplus\nNIC0\tPIX\n";
        let parsed = parse(text).expect("parses");
        assert_eq!(parsed.value.rows[0].cpu_affinity.as_deref(), Some("0-7"));
        assert_eq!(parsed.value.rows[1].cells.len(), 1);
        let lines: Vec<usize> = parsed.warnings.iter().map(|w| w.line).collect();
        assert_eq!(lines, [2, 3]);
    }

    #[test]
    fn unknown_rows_and_legend_lines() {
        let text = "\tGPU0\nGPU0\t X \nGPU9\t X \nLegend:\n  X    = Self\nNIC Legend:\n  NIC0: mlx5_0\n  oops\n";
        let parsed = parse(text).expect("parses");
        assert_eq!(parsed.value.nic_legend.get("NIC0").map(String::as_str), Some("mlx5_0"));
        let lines: Vec<usize> = parsed.warnings.iter().map(|w| w.line).collect();
        assert_eq!(lines, [3, 8]);
    }

    #[test]
    fn errors() {
        assert!(parse("").is_err());
        assert!(parse("No devices were found\n").is_err());
    }

    crate::lines::parser_never_panics!(parse, SAMPLE);
}
