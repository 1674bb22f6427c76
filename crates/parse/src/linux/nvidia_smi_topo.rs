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
use regex::Regex;
use std::sync::LazyLock;

const AFFINITY: [&str; 3] = ["CPU Affinity", "NUMA Affinity", "GPU NUMA ID"];

static HEADER_SPLIT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\t|\s{2,}").expect("valid regex"));

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
    // Each distinct connection once (see `Topo`): its index by text.
    let mut interned: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
    let mut warnings = Vec::new();
    let mut section = Section::Matrix;
    for l in numbered(text) {
        let (n, raw, line) = (l.n, l.raw, l.text);
        let mut warn = |message: String| warnings.push(ParseWarning::at(n, message));
        let words: Vec<&str> = line.split_whitespace().collect();
        if line == "Legend:" {
            section = Section::Legend;
        } else if line == "NIC Legend:" {
            section = Section::NicLegend;
        } else if topo.columns.is_empty() {
            if words.first() == Some(&"GPU0") && !words.contains(&"X") {
                topo.columns =
                    HEADER_SPLIT.split(line).map(str::trim).filter(|c| !c.is_empty()).map(String::from).collect();
                topo.matrix = topo.columns.iter().filter(|c| !AFFINITY.contains(&c.as_str())).cloned().collect();
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
            && topo.columns.iter().any(|c| Some(&c.as_str()) == words.first())
        {
            let tabbed = raw.contains('\t');
            let fields: Vec<&str> = match tabbed {
                true => raw.split('\t').map(str::trim).collect(),
                false => words,
            };
            let row = row(&topo.columns, topo.matrix.len(), &fields, tabbed, &mut warn, |link| {
                let next = topo.links.len() as u32;
                *interned.entry(link.to_string()).or_insert_with(|| {
                    topo.links.push(link.to_string());
                    next
                })
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

/// `fields[0]` is the row name; its `matrix` cells come first (each interned by `intern`), then
/// the affinity columns (`tabbed`: one field per tab, so an empty one is an empty value).
fn row(
    columns: &[String],
    matrix: usize,
    fields: &[&str],
    tabbed: bool,
    warn: &mut impl FnMut(String),
    mut intern: impl FnMut(&str) -> u32,
) -> Row {
    let (name, values) = fields.split_first().map_or(("", &[][..]), |(n, v)| (*n, v));
    let cells: Vec<u32> = values.iter().take(matrix).map(|v| intern(v)).collect();
    if cells.len() < matrix {
        warn(format!("row `{name}` has {} of {matrix} matrix cells", cells.len()));
    }
    let mut row = Row { name: name.to_string(), cells, cpu_affinity: None, numa_affinity: None, gpu_numa_id: None };
    let extra: Vec<&String> = columns.iter().filter(|c| AFFINITY.contains(&c.as_str())).collect();
    let mut rest: Vec<&str> = values.iter().skip(matrix).copied().collect();
    if tabbed {
        while rest.last() == Some(&"") {
            rest.pop();
        }
        // The empty field before the last column (`0-79\t0\t\tN/A`).
        if rest.len() == extra.len() + 1 && extra.len() > 1 && rest[extra.len() - 1].is_empty() {
            rest.remove(extra.len() - 1);
        }
    }
    let mut values = rest.into_iter();
    for (column, v) in extra.into_iter().zip(values.by_ref()) {
        let slot = match column.as_str() {
            "CPU Affinity" => &mut row.cpu_affinity,
            "NUMA Affinity" => &mut row.numa_affinity,
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
