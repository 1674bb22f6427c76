//! `cat /proc/interrupts`: per-CPU interrupt counts, used to find which cores serve each RDMA
//! NIC's completion vectors (`mlx5_comp3@pci:0000:3b:00.0`).
//!
//! Format: a header `CPU0 CPU1 ...`, then per IRQ `ID: count... chip hwirq-type  action[, action]`
//! where the kernel prints the chip name (which may hold spaces: `Hyper-V PCIe MSI`), the
//! hardware IRQ number joined to the flow type (`1572865-edge`, or `-fasteoi` on its own, or a
//! separate `Level`/`Edge` on ARM), then the action names. Old kernels print `PCI-MSI-edge` as one
//! word. Named rows (`NMI`, `LOC` ...) have a description instead of a chip; `ERR` and `MIS` have a
//! single count. Variants: a `| grep` excerpt without the header (all leading numbers are counts),
//! and a cut last line (warned, skipped). A numbered row with fewer counts than CPUs is a warning.

use crate::lines::{self, cut_line_skipped, numbered, unrecognised};
use crate::{ParseError, ParseResult, ParseWarning, Parsed};
pub use fabcheck_model::host::interrupts::{Interrupts, Irq};

/// Parses the contents of `/proc/interrupts`.
pub fn parse(text: &str) -> ParseResult<Interrupts> {
    let mut out = Interrupts::default();
    let mut warnings = Vec::new();
    // One buffer for the words of every line: the header's, then each row's after its counts.
    let mut tokens: Vec<&str> = Vec::new();
    for l in numbered(text) {
        let (n, t) = (l.n, l.text);
        let mut warn = |message: String| warnings.push(ParseWarning::at(n, message));
        if out.cpus.is_empty() && out.irqs.is_empty() {
            tokens.clear();
            push_words(t, &mut tokens);
            if tokens.iter().all(|c| c.starts_with("CPU")) {
                out.cpus = tokens.iter().map(|c| c.to_string()).collect();
                continue;
            }
        }
        if !l.ended {
            warn(cut_line_skipped(t));
            continue;
        }
        let (first, rest) = first_word(t);
        let Some(id) = first.strip_suffix(':').filter(|id| !id.is_empty()) else {
            warn(unrecognised(t));
            continue;
        };
        let numbered = id.chars().all(|c| c.is_ascii_digit());
        let max = if out.cpus.is_empty() { usize::MAX } else { out.cpus.len() };
        let counts = counts_then_words(rest, max, &mut tokens);
        let rest = tokens.as_slice();
        if numbered && !out.cpus.is_empty() && counts.len() < out.cpus.len() {
            warn(format!("irq {id} has {} counts for {} CPUs", counts.len(), out.cpus.len()));
        }
        let (chip, name) = if numbered { chip_and_name(rest) } else { (None, rest.join(" ")) };
        out.irqs.push(Irq { irq: id.to_string(), counts, chip, name });
    }
    if out.cpus.is_empty() && out.irqs.is_empty() {
        return Err(ParseError::at(0, "not /proc/interrupts: no CPU header and no `ID: counts` rows"));
    }
    Ok(Parsed { value: out, warnings })
}

/// A line's first word (as [`str::split_whitespace`] finds it) and what follows it.
fn first_word(line: &str) -> (&str, &str) {
    let line = line.trim_start();
    line.split_at(line.find(char::is_whitespace).unwrap_or(line.len()))
}

/// The counts (at most `max`) that start `text`, as the words that parse as numbers would be;
/// `words` gets the words after them.
fn counts_then_words<'a>(text: &'a str, max: usize, words: &mut Vec<&'a str>) -> Vec<u64> {
    // Each count takes two bytes at least (a digit and a space).
    let mut counts = Vec::with_capacity(max.min(text.len() / 2 + 1));
    let rest = plain_counts(text, max, &mut counts);
    // What the quick reader left: any counts it does not read (`+5`, a tab before them), read
    // word by word, then the chip and the names.
    words.clear();
    push_words(rest, words);
    let quick = counts.len();
    counts.extend(words.iter().map_while(|c| c.parse::<u64>().ok()).take(max - quick));
    words.drain(..counts.len() - quick);
    counts
}

/// Reads the counts at the start of `text` into `counts`, at most `max` in all, while they are
/// plain decimal numbers between spaces: a host with 200 CPUs prints 200 counts, each padded to
/// eleven characters, on each of hundreds of lines, and splitting them into words first was most
/// of the cost of reading the table. Returns the rest of `text` from the first word it did not
/// read (a word that is not only digits, or too large, or a separator other than a space), which
/// is then read word by word, so the result is the same as reading every word.
fn plain_counts<'a>(text: &'a str, max: usize, counts: &mut Vec<u64>) -> &'a str {
    let bytes = text.as_bytes();
    let mut at = 0;
    while counts.len() < max {
        at = skip_spaces(bytes, at);
        let Some((count, end)) = count_at(bytes, at) else {
            // `at` follows spaces or is the start of `text`: a character boundary.
            return text.get(at..).unwrap_or_default();
        };
        counts.push(count);
        at = end;
    }
    text.get(at..).unwrap_or_default()
}

/// The first position from `at` on that is not a space. Most of the table is the padding before
/// each count, so eight bytes are looked at together, the first other byte found from the
/// lowest set bit of their difference from eight spaces.
fn skip_spaces(bytes: &[u8], mut at: usize) -> usize {
    const SPACES: u64 = u64::from_le_bytes([b' '; 8]);
    while let Some(chunk) = bytes.get(at..).and_then(<[u8]>::first_chunk::<8>) {
        let other = u64::from_le_bytes(*chunk) ^ SPACES;
        if other != 0 {
            return at + (other.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while bytes.get(at) == Some(&b' ') {
        at += 1;
    }
    at
}

/// The count that starts at `at` and where it ends, if digits start there, fit a `u64`, and a
/// space or the end of `bytes` follows them.
fn count_at(bytes: &[u8], at: usize) -> Option<(u64, usize)> {
    let (mut value, mut end) = (0u64, at);
    while let Some(digit) = bytes.get(end).map(|b| b.wrapping_sub(b'0')).filter(|d| *d <= 9) {
        value = value.checked_mul(10)?.checked_add(u64::from(digit))?;
        end += 1;
    }
    (end > at && matches!(bytes.get(end), None | Some(b' '))).then_some((value, end))
}

/// Adds the words of `text` to `words`, as [`str::split_whitespace`] finds them (by
/// [`lines::words`], byte by byte on ASCII text).
fn push_words<'a>(text: &'a str, words: &mut Vec<&'a str>) {
    words.extend(lines::words(text));
}

/// Flow handler names the kernel appends to the hwirq number or the chip name.
const FLOWS: &[&str] = &["edge", "level", "fasteoi", "simple", "percpu", "percpu_devid", "bad", "untracked", "nmi"];

/// Whether a token is the flow type: `1572865-edge`, `-fasteoi`, `PCI-MSI-edge`, `Level`.
fn is_flow(tok: &str) -> bool {
    matches!(tok, "Edge" | "Level") || tok.rsplit_once('-').is_some_and(|(_, tail)| FLOWS.contains(&tail))
}

fn is_number(tok: &str) -> bool {
    !tok.is_empty() && tok.chars().all(|c| c.is_ascii_digit())
}

/// Splits `IR-PCI-MSIX-0000:01:00.0 0-edge mlx5_comp0@pci:...` into chip and action names.
fn chip_and_name(rest: &[&str]) -> (Option<String>, String) {
    let Some(at) = rest.iter().position(|t| is_flow(t)) else {
        return (rest.first().map(|c| c.to_string()), rest.get(1..).unwrap_or_default().join(" "));
    };
    let before = rest.get(..at).unwrap_or_default();
    // The chip's words are borrowed from `rest`, not copied into a list of their own per row.
    let (words, head) = match rest.get(at).and_then(|tok| tok.rsplit_once('-')) {
        // `PCI-MSI-edge`: the chip and the flow in one word.
        Some((head, _)) if !head.is_empty() && !is_number(head) => (before, Some(head)),
        // `-fasteoi` or `Level` after a separate hwirq number: the number is not the chip.
        _ => match before {
            [chip @ .., hwirq] if !chip.is_empty() && is_number(hwirq) => (chip, None),
            _ => (before, None),
        },
    };
    let mut chip = words.join(" ");
    if let Some(head) = head {
        if !chip.is_empty() {
            chip.push(' ');
        }
        chip.push_str(head);
    }
    (Some(chip).filter(|c| !c.is_empty()), rest.get(at + 1..).unwrap_or_default().join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte splitter finds the words `split_whitespace` finds, on every ASCII white space
    /// (vertical tab and form feed included) and on text that is not ASCII.
    #[test]
    fn words_are_split_as_split_whitespace_splits_them() {
        for text in
            ["", " ", "a", " a  b\tc\x0bd\x0ce\rf\ng ", "mlx5_comp0@pci:0000:1a:00.0", "é  ü\u{2003}x", "\x0b\x0c"]
        {
            let mut words = Vec::new();
            push_words(text, &mut words);
            assert_eq!(words, text.split_whitespace().collect::<Vec<_>>(), "{text:?}");
        }
    }

    const SAMPLE: &str = include_str!("../../tests/fixtures/interrupts/cx-mlx5-12cpu-grep-mlx-crow-100gbe-blog.txt");

    const TABLE: &str = "           CPU0       CPU1
  0:         37          0   IO-APIC   2-edge      timer
 24:          0          0   PCI-MSI-edge      mlx5_pages_eq@pci:8b76:00:02.0
 34:        154       9690  Hyper-V PCIe MSI 2701534461953-edge      mlx5_comp0@pci:4ea0:00:02.0
 11:       2601       2030     GICv3  30 Level     arch_timer
 18:          0         16  IR-IO-APIC     18    -fasteoi   i801_smbus
 77:          0          0  IR-PCI-MSI 1572865-edge
NMI:          0          0   Non-maskable interrupts
ERR:          0
MIS:          0
 99:          5
garbage here
";

    #[test]
    fn chip_variants_named_rows_and_short_rows() {
        let p = parse(TABLE).unwrap();
        let v = &p.value;
        assert_eq!(v.cpus, ["CPU0", "CPU1"]);
        let got: Vec<_> = v.irqs.iter().map(|i| (i.irq.as_str(), i.chip.as_deref(), i.name.as_str())).collect();
        assert_eq!(
            got,
            vec![
                ("0", Some("IO-APIC"), "timer"),
                ("24", Some("PCI-MSI"), "mlx5_pages_eq@pci:8b76:00:02.0"),
                ("34", Some("Hyper-V PCIe MSI"), "mlx5_comp0@pci:4ea0:00:02.0"),
                ("11", Some("GICv3"), "arch_timer"),
                ("18", Some("IR-IO-APIC"), "i801_smbus"),
                ("77", Some("IR-PCI-MSI"), ""),
                ("NMI", None, "Non-maskable interrupts"),
                ("ERR", None, ""),
                ("MIS", None, ""),
                ("99", None, ""),
            ]
        );
        assert_eq!(v.irqs[2].counts, [154, 9690]);
        assert_eq!(v.irqs[7].counts, [0]);
        assert_eq!(v.irqs_matching("4ea0:00:02.0").count(), 1);
        let w: Vec<_> = p.warnings.iter().map(|w| w.line).collect();
        assert_eq!(w, [11, 12]);
    }

    #[test]
    fn rejects_empty_and_foreign_input() {
        assert!(parse("").is_err());
        assert!(parse(" \n").is_err());
        assert!(parse("Module                  Size  Used by\nmlx5_ib 561152 0\n").is_err());
    }

    /// A row's first word ends at any white space, as `split_whitespace` has it, so a row
    /// whose id is followed by a tab or a no-break space still has its id and counts.
    #[test]
    fn the_id_ends_at_any_white_space() {
        let text = "      CPU0 CPU1\n 5:\t1 2  IR-PCI-MSI 1-edge  a\n 6:\u{a0}3\u{3000}4  IR-PCI-MSI 2-edge  b\nNMI:\u{2003}7 8   Non-maskable interrupts\n";
        let p = parse(text).unwrap();
        let got: Vec<_> = p.value.irqs.iter().map(|i| (i.irq.as_str(), i.counts.clone(), i.name.as_str())).collect();
        assert_eq!(
            got,
            [("5", vec![1, 2], "a"), ("6", vec![3, 4], "b"), ("NMI", vec![7, 8], "Non-maskable interrupts")]
        );
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    }

    /// The quick reader gives what reading every word would: the same counts, the same words
    /// after them, whatever separates or fills them.
    #[test]
    fn counts_read_quickly_are_the_counts_read_word_by_word() {
        let pieces = [
            " ",
            "  ",
            "\t",
            "\u{a0}",
            "\u{b}",
            "0",
            "7",
            "0042",
            "18446744073709551615",
            "18446744073709551616",
            "+5",
            "-1",
            "12a",
            "IR-PCI-MSIX-0000:01:00.0",
            "1-edge",
            "mlx5_comp0@pci:0000:01:00.0",
            "é",
            "\r",
            "\u{c}",
            "\u{85}",
            "\u{3000}",
            "3",
        ];
        // Every sequence of up to three pieces, of four of the pieces most alike a count, and a
        // long row of counts.
        let sequences = |pieces: &[&str], n: usize| {
            let (mut all, mut level) = (vec![String::new()], vec![String::new()]);
            for _ in 0..n {
                level = level.iter().flat_map(|t| pieces.iter().map(move |p| format!("{t}{p}"))).collect();
                all.extend(level.iter().cloned());
            }
            all
        };
        let mut texts = sequences(&pieces, 3);
        texts.extend(sequences(&[" ", "\t", "\u{a0}", "7", "+5", "18446744073709551616", "12a"], 4));
        texts.push(format!("{}  IR-PCI-MSIX 5-edge  mlx5_comp1", "         12".repeat(200)));
        for text in &texts {
            for max in [0, 1, 2, 3, 199, 200, 201, usize::MAX] {
                let mut words = Vec::new();
                let counts = counts_then_words(text, max, &mut words);
                let all: Vec<&str> = text.split_whitespace().collect();
                let expected: Vec<u64> = all.iter().map_while(|w| w.parse().ok()).take(max).collect();
                assert_eq!(counts, expected, "{text:?} max {max}");
                assert_eq!(words, all[expected.len()..], "{text:?} max {max}");
            }
        }
    }

    crate::lines::parser_never_panics!(parse, SAMPLE);
}
