//! `grep -H '' /proc/irq/*/smp_affinity_list`: which CPUs may serve each IRQ (checked against
//! the NIC's NUMA node and for cores shared between two RDMA NICs).
//!
//! Format: one `/proc/irq/N/smp_affinity_list:LIST` line per IRQ, LIST a kernel CPU list such
//! as `0-3,8,10-11`. Variants: `grep .` over a glob with an extra path component
//! (`/proc/irq/67/idpf-Mailbox-0/../smp_affinity_list:0-55,112-167`, and directory names with
//! colons: `/proc/irq/141/0000:07:00.0-0/../smp_affinity_list:0`), `grep:` error lines
//! (warnings). A range longer than 65536 CPUs, a line whose list expands past 65536 CPUs, or more
//! than 4M CPUs over all lines is a warning and its line is skipped, so no input can make the
//! parser allocate without bound.

use crate::lines::{cut_line_skipped, numbered, unrecognised};
use crate::{ParseError, ParseResult, ParseWarning, Parsed};
pub use fabcheck_model::host::irq_affinity::IrqAffinity;

/// Most CPUs one IRQ line may expand to.
const MAX_CPUS_PER_IRQ: usize = 65536;
/// Most CPUs all lines together may expand to.
const MAX_CPUS_TOTAL: usize = 1 << 22;

/// Parses `grep -H '' /proc/irq/*/smp_affinity_list` output.
pub fn parse(text: &str) -> ParseResult<IrqAffinity> {
    let mut out = IrqAffinity::default();
    let mut warnings = Vec::new();
    let mut total = 0usize;
    for l in numbered(text) {
        let (n, t) = (l.n, l.text);
        let mut warn = |message: String| warnings.push(ParseWarning::at(n, message));
        if !l.ended {
            warn(cut_line_skipped(t));
            continue;
        }
        // The path ends at the file's name: directory names before it may hold colons
        // (`mlx5_comp0@pci:0000:08:00.0`).
        let Some((irq, list)) = split_at_file(t).and_then(|(dir, list)| Some((irq_of(dir)?, list))) else {
            warn(unrecognised(t));
            continue;
        };
        match cpu_list(list, MAX_CPUS_TOTAL.saturating_sub(total)) {
            Ok(cpus) => {
                total = total.saturating_add(cpus.len());
                if out.irqs.insert(irq, cpus).is_some() {
                    warn(format!("irq {irq} appears twice, the later list is kept"));
                }
            }
            Err(e) => warn(format!("irq {irq}: {e}, line skipped")),
        }
    }
    if out.irqs.is_empty() {
        return Err(ParseError::at(0, "not smp_affinity_list output: no `/proc/irq/N/smp_affinity_list:CPUS` lines"));
    }
    Ok(Parsed { value: out, warnings })
}

/// `line` split around its first `smp_affinity_list:`, as `split_once` would, found from the
/// colons of the line: `split_once` sets up a substring searcher on every line, which cost more
/// than reading the rest of the line. The first colon that ends the file's name ends its first
/// occurrence, as every occurrence ends with a colon.
fn split_at_file(line: &str) -> Option<(&str, &str)> {
    const FILE: &str = "smp_affinity_list";
    let bytes = line.as_bytes();
    let colon = (0..bytes.len()).find(|&at| bytes[at] == b':' && bytes[..at].ends_with(FILE.as_bytes()))?;
    Some((&line[..colon - FILE.len()], &line[colon + 1..]))
}

/// The IRQ number of the directory `/proc/irq/N/` (or `/proc/irq/N/x/../`) that
/// `smp_affinity_list` is read from: the path up to the file's name, which a `/` must end.
fn irq_of(dir: &str) -> Option<u32> {
    let (num, tail) = dir.strip_prefix("/proc/irq/")?.split_once('/')?;
    (tail.is_empty() || tail.ends_with('/')).then(|| num.parse().ok()).flatten()
}

/// Expands `0-3,8` to `[0, 1, 2, 3, 8]`, sorted and without repeats, refusing more than
/// `budget` (and 65536) CPUs. Repeats are dropped only when the list would pass the bound, so a
/// list that repeats CPUs is judged by the CPUs it names, and no more than the bound is ever
/// held. The kernel prints its lists in order, so the final sort has nothing to move.
fn cpu_list(list: &str, budget: usize) -> Result<Vec<u32>, String> {
    let limit = budget.min(MAX_CPUS_PER_IRQ);
    let mut cpus = Vec::new();
    for part in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let bad = || format!("bad CPU list item `{part}`");
        let (lo, hi) = match part.split_once('-') {
            Some((lo, hi)) => {
                (lo.trim().parse::<u32>().map_err(|_| bad())?, hi.trim().parse::<u32>().map_err(|_| bad())?)
            }
            None => {
                let cpu = part.parse::<u32>().map_err(|_| bad())?;
                (cpu, cpu)
            }
        };
        if hi < lo {
            return Err(bad());
        }
        let span = u64::from(hi - lo) + 1;
        if span > MAX_CPUS_PER_IRQ as u64 {
            return Err(format!("range `{part}` spans {span} CPUs, more than {MAX_CPUS_PER_IRQ}"));
        }
        if cpus.len() as u64 + span > limit as u64 {
            cpus.sort_unstable();
            cpus.dedup();
            if cpus.len() as u64 + span > limit as u64 {
                return Err(format!("the list expands to more than {limit} CPUs"));
            }
        }
        cpus.extend(lo..=hi);
    }
    cpus.sort_unstable();
    cpus.dedup();
    Ok(cpus)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str =
        include_str!("../../tests/fixtures/irq_affinity/idpf-grep-dot-smp_affinity_list-linux-commit-1500a866.txt");

    #[test]
    fn lists_ranges_errors_and_caps() {
        let text = "/proc/irq/98/smp_affinity_list:0-3,8\n/proc/irq/99/smp_affinity_list:\ngrep: /proc/irq/0/smp_affinity_list: Input/output error\n/proc/irq/100/smp_affinity_list:0-4294967295\n/proc/irq/101/smp_affinity_list:3-1\n/proc/irq/102/effective_affinity_list:1\n/proc/irq/98/smp_affinity_list:5\n";
        let p = parse(text).unwrap();
        assert_eq!(p.value.irqs[&98], [5]);
        assert!(p.value.irqs[&99].is_empty());
        assert_eq!(p.value.irqs.len(), 2);
        let lines: Vec<_> = p.warnings.iter().map(|w| w.line).collect();
        assert_eq!(lines, [3, 4, 5, 6, 7]);
        assert!(p.warnings[1].message.contains("4294967296 CPUs"));
    }

    #[test]
    fn lists_out_of_order_or_overlapping_come_back_sorted_once_and_paths_must_end_at_the_file() {
        let text = "/proc/irq/7/smp_affinity_list:3,0-2,2\n/proc/irq/8/x/../smp_affinity_list:1\n/proc/irq/9/xsmp_affinity_list:1\n/proc/irq/10smp_affinity_list:1\n";
        let p = parse(text).unwrap();
        assert_eq!(p.value.irqs[&7], [0, 1, 2, 3]);
        assert_eq!(p.value.irqs[&8], [1]);
        assert_eq!(p.value.irqs.len(), 2);
        let lines: Vec<_> = p.warnings.iter().map(|w| w.line).collect();
        assert_eq!(lines, [3, 4]);
    }

    #[test]
    fn expansion_is_bounded() {
        let text: String = (0..10).map(|i| format!("/proc/irq/{i}/smp_affinity_list:0-65535,65536-131071\n")).collect();
        let p = parse(&format!("{text}/proc/irq/77/smp_affinity_list:1\n")).unwrap();
        assert_eq!(p.value.irqs.len(), 1);
        assert_eq!(p.warnings.len(), 10);
        assert_eq!(cpu_list("0-65535", 10), Err("the list expands to more than 10 CPUs".into()));
        let repeated = cpu_list("0-30000,0-30000,0-30000,30001", MAX_CPUS_TOTAL).unwrap();
        assert_eq!(repeated.len(), 30_002, "a list is bounded by the CPUs it names, not by its repeats");
        assert_eq!(cpu_list("0-4,0-4", 10), Ok(vec![0, 1, 2, 3, 4]));
    }

    #[test]
    fn rejects_empty_and_foreign_input() {
        assert!(parse("").is_err());
        assert!(parse("\n \n").is_err());
        assert!(parse("0-3,8\n").is_err());
        assert!(parse("/sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent:1333\n").is_err());
    }

    crate::lines::parser_never_panics!(parse, SAMPLE);
}
