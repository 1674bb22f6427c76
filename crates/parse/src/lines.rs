//! What every parser does with its input text, written once so that all of them number lines,
//! word their warnings and tell empty from foreign input the same way.
//!
//! Two conventions exist for a capture whose last line has no line end (the output was cut
//! mid-line), and parsers keep the one they were written with: skip that line with
//! [`cut_line_skipped`] (the line may be half a value), or keep it and add [`cut_off`] at the end.

use crate::{ParseError, ParseWarning};
use std::collections::BTreeMap;

/// How many characters of an offending line [`quote`] shows, so that one huge line of binary junk
/// cannot make a huge report.
const QUOTE_CHARS: usize = 100;

/// What a warning about a line no rule matched says before quoting it.
const UNRECOGNISED: &str = "unrecognised line";

/// One non-blank line of the input, as [`numbered`] yields it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Line<'a> {
    /// 1-based line number (blank lines count), the number a [`ParseWarning`] carries.
    pub(crate) n: usize,
    /// Byte offset of the line's first character in the input, for parsers that hand the rest of
    /// the input to another reader (a JSON body).
    pub(crate) start: usize,
    /// The line as printed, without its `\n` or `\r\n`: for parsers to which indentation matters.
    pub(crate) raw: &'a str,
    /// The line without leading and trailing white space (a `\r` included).
    pub(crate) text: &'a str,
    /// Whether a `\n` ends the line: false only for the last line of a capture cut mid-line.
    pub(crate) ended: bool,
}

/// The non-blank lines of `text` with their 1-based numbers. Every parser skips blank lines
/// (captures and pasted copies are full of them) but must count them, so that the numbers in
/// its warnings match the evidence file. Lines split as [`str::lines`] does.
pub(crate) fn numbered(text: &str) -> impl Iterator<Item = Line<'_>> {
    let (mut start, mut n) = (0, 0);
    std::iter::from_fn(move || {
        while start < text.len() {
            let line_start = start;
            n += 1;
            // One pass over each byte: the indentation, then the rest up to the line end (read
            // byte by byte and not decoded: most of a line's cost was finding its end and
            // trimming it, each in a pass of its own).
            let rest = &text.as_bytes()[line_start..];
            let indent = rest.iter().position(|&b| b == b'\n' || !is_ascii_space(b)).unwrap_or(rest.len());
            let len = indent + line_end(&rest[indent..]).unwrap_or(rest.len() - indent);
            let ended = len < rest.len();
            start += len + usize::from(ended);
            let trimmed = trim(&text[line_start + indent..line_start + len]);
            if trimmed.is_empty() {
                continue;
            }
            let raw = &text[line_start..line_start + len];
            let raw = if ended { raw.strip_suffix('\r').unwrap_or(raw) } else { raw };
            return Some(Line { n, start: line_start, raw, text: trimmed, ended });
        }
        None
    })
}

/// Where the first `\n` of `bytes` is (`memchr`: no searcher to set up per line, as `str::find`
/// has, and wide reads on long lines).
fn line_end(bytes: &[u8]) -> Option<usize> {
    memchr::memchr(b'\n', bytes)
}

/// The ASCII bytes that are white space to [`char::is_whitespace`] (`\t` to `\r` and the
/// space: `u8::is_ascii_whitespace` leaves out the vertical tab, which `trim()` strips).
pub(crate) fn is_ascii_space(b: u8) -> bool {
    matches!(b, b'\t'..=b'\r' | b' ')
}

/// `text.trim()`, with its ASCII white space stripped byte by byte (indentation is most of it,
/// and `trim()` decodes every character it looks at): only an end left on a byte of a
/// multi-byte character, which may be Unicode white space, goes through `trim()`.
pub(crate) fn trim(text: &str) -> &str {
    let bytes = text.as_bytes();
    // Most values and lines have nothing to strip: both ends printable ASCII is decided at once.
    if let (Some(&first), Some(&last)) = (bytes.first(), bytes.last())
        && is_ascii_non_space(first)
        && is_ascii_non_space(last)
    {
        return text;
    }
    let from = bytes.iter().position(|&b| !is_ascii_space(b)).unwrap_or(bytes.len());
    let to = bytes.iter().rposition(|&b| !is_ascii_space(b)).map_or(from, |last| last + 1);
    // Both ends sit next to an ASCII byte or the text's ends: character boundaries.
    let inner = &text[from..to];
    match (inner.bytes().next(), inner.bytes().next_back()) {
        (Some(first), Some(last)) if !first.is_ascii() || !last.is_ascii() => inner.trim(),
        _ => inner,
    }
}

/// `text` split at the first `sep` (an ASCII byte), like `split_once(char)`: for the short
/// fields of a line a plain scan beats the searcher `split_once` sets up on every call, which
/// was most of what reading a sysfs path cost.
pub(crate) fn split_at_byte(text: &str, sep: u8) -> Option<(&str, &str)> {
    debug_assert!(sep.is_ascii(), "an ASCII separator never falls inside a UTF-8 character");
    let at = text.bytes().position(|b| b == sep)?;
    Some((&text[..at], &text[at + 1..]))
}

/// `text.split(sep)` for an ASCII `sep` (every piece, empty ones included), by byte scans: the
/// pieces of a comma list are a few bytes long, and `split(char)` sets up a searcher for the list
/// and a `memchr` call for each piece, which cost more than reading them.
pub(crate) fn split_bytes(text: &str, sep: u8) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let piece = rest?;
        match split_at_byte(piece, sep) {
            Some((piece, after)) => {
                rest = Some(after);
                Some(piece)
            }
            None => rest.take(),
        }
    })
}

/// `text` split around the first `sep` (ASCII text), like `split_once(&str)` without the
/// two-way searcher that it prepares on every call, for a short line's key. Inlined: called on
/// every line of a short output, the call cost as much as the scan.
#[inline]
pub(crate) fn split_at_str<'a>(text: &'a str, sep: &str) -> Option<(&'a str, &'a str)> {
    debug_assert!(sep.is_ascii() && !sep.is_empty(), "an ASCII separator never falls inside a UTF-8 character");
    let (bytes, sep_bytes) = (text.as_bytes(), sep.as_bytes());
    // Only where the first byte matches is the rest compared.
    let mut from = 0;
    while let Some(found) = bytes[from..].iter().position(|&b| b == sep_bytes[0]) {
        let at = from + found;
        if bytes[at..].starts_with(sep_bytes) {
            return Some((&text[..at], &text[at + sep.len()..]));
        }
        from = at + 1;
    }
    None
}

/// `text` split at the last `sep` (an ASCII byte), like `rsplit_once(char)` without the
/// searcher it sets up on every call.
pub(crate) fn split_at_last_byte(text: &str, sep: u8) -> Option<(&str, &str)> {
    debug_assert!(sep.is_ascii(), "an ASCII separator never falls inside a UTF-8 character");
    let at = text.bytes().rposition(|b| b == sep)?;
    Some((&text[..at], &text[at + 1..]))
}

/// `text` split after its leading run of bytes that `ascii` admits, or `None` when the run is
/// empty: what a regex's greedy `\d+`, `\w+` or `\S+` takes of ASCII text, for the fast paths
/// that spare a parser compiling a Unicode regex (millions of instructions) on ASCII input.
/// `ascii` must admit only ASCII bytes, so that the split never falls inside a character.
pub(crate) fn split_run(text: &str, ascii: impl Fn(u8) -> bool) -> Option<(&str, &str)> {
    let len = text.bytes().position(|b| !ascii(b)).unwrap_or(text.len());
    debug_assert!(text.as_bytes()[..len].is_ascii(), "a run of ASCII bytes ends on a character boundary");
    (len > 0).then(|| text.split_at(len))
}

/// `text` without its leading ASCII white space: a regex's `\s*` on ASCII text.
pub(crate) fn skip_ascii_space(text: &str) -> &str {
    split_run(text, is_ascii_space).map_or(text, |(_, after)| after)
}

/// The words of `text`, as [`str::split_whitespace`] finds them: ASCII text (a real table) is
/// cut by byte runs, which costs a fraction of decoding every character; other text is left to
/// `split_whitespace`.
pub(crate) fn words(text: &str) -> impl Iterator<Item = &str> {
    let (mut ascii, other) = if text.is_ascii() { (text, "") } else { ("", text) };
    std::iter::from_fn(move || {
        let (word, rest) = split_run(skip_ascii_space(ascii), is_ascii_non_space)?;
        ascii = rest;
        Some(word)
    })
    .chain(other.split_whitespace())
}

/// Whether `b` is not white space to a Unicode regex's `\s` (nor to [`char::is_whitespace`]),
/// for a `\S+` run on ASCII text.
pub(crate) fn is_ascii_non_space(b: u8) -> bool {
    b.is_ascii() && !is_ascii_space(b)
}

/// A name's first eight bytes as a big-endian number, zero-padded: ordering by it, then by the
/// whole name, is the names' byte order (a shorter name padded with zeros never sorts after a
/// longer one it begins, and ties fall back to the names), and most comparisons of counter names
/// end at it: the counter parsers sort thousands of names a port by it.
pub(crate) fn prefix_key(name: &str) -> u64 {
    let mut bytes = [0u8; 8];
    for (to, from) in bytes.iter_mut().zip(name.bytes()) {
        *to = from;
    }
    u64::from_be_bytes(bytes)
}

/// Values read by name, made a map of owned names once at the end: sorted by [`prefix_key`] and
/// the name (most comparisons end at the key), stably, so that of a name read twice the last
/// value is kept, as `insert` keeps it. Inserting each owned name into the map as its line is
/// read, searched from the root by `memcmp`, costs several times as much.
pub(crate) struct NamedValues<'a, V>(Vec<(u64, &'a str, V)>);

impl<'a, V> NamedValues<'a, V> {
    pub(crate) fn new() -> Self {
        NamedValues(Vec::new())
    }

    pub(crate) fn insert(&mut self, name: &'a str, value: V) {
        self.0.push((prefix_key(name), name, value));
    }

    pub(crate) fn into_map(mut self) -> BTreeMap<String, V> {
        self.0.sort_by(|(a, a_name, _), (b, b_name, _)| (a, a_name).cmp(&(b, b_name)));
        self.0.into_iter().map(|(_, name, value)| (name.to_string(), value)).collect()
    }
}

/// The first `max` characters of `text` (not bytes: never splits a character), for warnings and
/// errors that quote input of unbounded length.
pub(crate) fn clip(text: &str, max: usize) -> String {
    text.chars().take(max).collect()
}

/// A warning message that names a problem and quotes (at most [`QUOTE_CHARS`] characters of)
/// the line it is about: ``what `line` ``.
pub(crate) fn quote(what: &str, line: &str) -> String {
    format!("{what} `{}`", clip(line, QUOTE_CHARS))
}

/// The warning message for a line that no rule of the parser matched, quoting the whole line, so
/// that skipping it is never silent and reads the same in every parser's report.
pub(crate) fn unrecognised(line: &str) -> String {
    format!("{UNRECOGNISED} `{line}`")
}

/// [`unrecognised`] for the parsers that bound their warnings: quotes at most [`QUOTE_CHARS`]
/// characters of the line.
pub(crate) fn unrecognised_clipped(line: &str) -> String {
    quote(UNRECOGNISED, line)
}

/// The warning message for a last line without a line end that the parser skips: the capture was
/// cut there, so the line may hold half a value (`rx_discards_phy: 12` cut to `rx_discards_phy: 1`).
pub(crate) fn cut_line_skipped(line: &str) -> String {
    format!("line `{line}` has no line end: the output is cut here, line skipped")
}

/// For parsers that keep a last line without a line end: a warning on that line that the output
/// may be cut off, or `None` when `text` ends with a line end.
pub(crate) fn cut_off(text: &str) -> Option<ParseWarning> {
    (!text.ends_with('\n'))
        .then(|| ParseWarning::at(text.lines().count(), "no line end after the last line: the output may be cut off"))
}

/// Whether `line` is a shell prompt echoing `command` (`root@host:~# mlnx_qos -i ens4np0`,
/// `$ ethtool ens4np0`): captures and pasted copies often begin with one, and it is not output.
pub(crate) fn is_prompt(line: &str, command: &str) -> bool {
    // Most lines have neither prompt character: one `memchr2` scan, before the search for `command`.
    memchr::memchr2(b'#', b'$', line.as_bytes()).is_some()
        && line.split_once(command).is_some_and(|(before, _)| before.ends_with("# ") || before.ends_with("$ "))
}

/// Where each column of a dash line (`------ ----  ---`) starts, in characters: for the tables
/// whose rule gives the columns (EOS `show lldp neighbors`, NVUE `nv show`).
pub(crate) fn column_starts(dashes: &str) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut previous = ' ';
    for (i, c) in dashes.chars().enumerate() {
        if c == '-' && previous != '-' {
            starts.push(i);
        }
        previous = c;
    }
    starts
}

/// Where each of `titles` starts in a table's header line, in characters (as [`cells`] cuts),
/// for the tables without a dash line to give the columns; `None` unless every title is
/// there, in order.
pub(crate) fn title_starts(header: &str, titles: &[&str]) -> Option<Vec<usize>> {
    let starts: Vec<usize> = titles
        .iter()
        .map(|title| header.find(title).map(|byte| header[..byte].chars().count()))
        .collect::<Option<_>>()?;
    starts.windows(2).all(|w| w[0] < w[1]).then_some(starts)
}

/// `line` cut at the column starts of [`column_starts`] (in characters; the last cell runs to
/// the end of the line), each cell trimmed: as many cells as columns. The first cell starts at
/// the beginning of the line, whatever its span.
pub(crate) fn cells(line: &str, starts: &[usize]) -> Vec<String> {
    let chars: Vec<char> = line.chars().collect();
    (0..starts.len())
        .map(|i| {
            let from = if i == 0 { 0 } else { starts[i].min(chars.len()) };
            let to = starts.get(i + 1).map_or(chars.len(), |&s| s.min(chars.len()));
            let to = to.max(from);
            chars[from..to].iter().collect::<String>().trim().to_string()
        })
        .collect()
}

/// The error for input that yielded no fact: `empty` when it is blank (the command printed
/// nothing, which the report tells apart from a wrong command), `foreign` otherwise.
pub(crate) fn no_facts(text: &str, empty: &str, foreign: &str) -> ParseError {
    ParseError::at(0, if text.trim().is_empty() { empty } else { foreign })
}

/// [`no_facts`] for the infiniband-diags tools, which print an error instead of output when they
/// cannot reach the fabric: when [`diag_failure`] finds one, the error is `failed(diag)`, so the
/// report names the cause rather than calling the output foreign.
pub(crate) fn diag_no_facts(text: &str, failed: impl FnOnce(&str) -> String, empty: &str, foreign: &str) -> ParseError {
    match diag_failure(text) {
        Some(diag) => ParseError::at(0, failed(&diag)),
        None => no_facts(text, empty, foreign),
    }
}

/// The first line in which infiniband-diags (libibmad, libibnetdisc) report that they could not
/// talk to the fabric, trimmed and cut to 200 characters: `ibwarn:`, `iberror:`, `ibpanic:` or a
/// MAD port open failure (`mad_rpc_open_port: client_register for mgmt 1 failed`).
pub(crate) fn diag_failure(text: &str) -> Option<String> {
    const MARKERS: [&str; 5] = ["ibwarn:", "iberror:", "ibpanic:", "can't open MAD port", "mad_rpc_open_port"];
    text.lines().map(str::trim).find(|l| MARKERS.iter().any(|m| l.contains(m))).map(|l| clip(l, 200))
}

/// `v` trimmed, or `None` when nothing is left: a `Key:` printed without a value is absent, not
/// an empty string.
pub(crate) fn non_empty(v: &str) -> Option<String> {
    Some(trim(v)).filter(|s| !s.is_empty()).map(str::to_string)
}

/// `sample` with one of its lines mutated, for the property tests that feed every parser damaged
/// copies of a real capture: line `line` (modulo the number of lines) is cut to its first `cut`
/// characters (modulo its length + 1, so every cut point, none included, can come up: never inside
/// a character) for `op` 0, doubled for `op` 1, replaced by `junk` for any other `op`. Lines split
/// as [`str::lines`] does and are joined again with `\n`, without one after the last; a sample
/// without lines counts as one empty line.
#[cfg(test)]
pub(crate) fn mutate_line(sample: &str, line: usize, op: u8, cut: usize, junk: &str) -> String {
    let mut lines: Vec<String> = sample.lines().map(String::from).collect();
    if lines.is_empty() {
        lines.push(String::new());
    }
    let i = line % lines.len();
    match op {
        0 => {
            let keep = cut % (lines[i].chars().count() + 1);
            lines[i] = lines[i].chars().take(keep).collect();
        }
        1 => lines.insert(i, lines[i].clone()),
        _ => lines[i] = junk.to_string(),
    }
    lines.join("\n")
}

/// The two property tests every parser module has: `parse` never panics on arbitrary text
/// (`never_panics`), nor on a sample with one line cut, doubled or replaced by junk
/// ([`mutate_line`]; `mutated_sample_never_panics`, every sample in each case).
///
/// `parser_never_panics!(parse, SAMPLE)`, `parser_never_panics!(parse, [SAMPLE_A, SAMPLE_B])`, or
/// `parser_never_panics!(parse)` for the arbitrary-text test alone (for a module whose sample is
/// one long line, which mutates it at a character instead). Use it inside the module's `mod tests`.
#[cfg(test)]
macro_rules! parser_never_panics {
    ($parse:path) => {
        ::proptest::proptest! {
            #[test]
            fn never_panics(s in "\\PC*") {
                let _ = $parse(&s);
            }
        }
    };
    ($parse:path, [$($sample:expr),+ $(,)?]) => {
        $crate::lines::parser_never_panics!($parse);

        ::proptest::proptest! {
            #[test]
            fn mutated_sample_never_panics(
                line in ::proptest::prelude::any::<usize>(),
                op in 0u8..3,
                cut in ::proptest::prelude::any::<usize>(),
                junk in "\\PC{0,140}",
            ) {
                let samples: &[&str] = &[$($sample),+];
                for sample in samples {
                    let _ = $parse(&$crate::lines::mutate_line(sample, line, op, cut, &junk));
                }
            }
        }
    };
    ($parse:path, $sample:expr) => {
        $crate::lines::parser_never_panics!($parse, [$sample]);
    };
}
#[cfg(test)]
pub(crate) use parser_never_panics;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_counts_blank_lines_and_strips_line_ends() {
        let got: Vec<_> = numbered("a\r\n\n  b \nc").map(|l| (l.n, l.start, l.raw, l.text, l.ended)).collect();
        assert_eq!(got, [(1, 0, "a", "a", true), (3, 4, "  b ", "b", true), (4, 9, "c", "c", false),]);
        assert_eq!(numbered("").count(), 0);
        assert_eq!(numbered(" \n\t\r\n").count(), 0);
        let unicode: Vec<_> = numbered(" \u{a0}\u{b} x \u{2003} \n").map(|l| l.text).collect();
        assert_eq!(unicode, ["x"], "white space beyond ASCII is trimmed too");
    }

    proptest::proptest! {
        #[test]
        fn line_end_finds_the_first_newline(bytes in proptest::collection::vec(proptest::sample::select(vec![b'\n', b'a', 0x0b, 0x8a, 0xff, 0, 0x09]), 0..40)) {
            proptest::prop_assert_eq!(line_end(&bytes), bytes.iter().position(|&b| b == b'\n'));
        }
    }

    /// `numbered` as it was first written, from the standard library's splitting and trimming:
    /// the contract the byte scans of [`numbered`] and [`trim`] must keep.
    fn numbered_by_str(text: &str) -> Vec<(usize, usize, &str, &str, bool)> {
        let mut start = 0;
        let mut lines = Vec::new();
        for (i, with_end) in text.split_inclusive('\n').enumerate() {
            let raw = match with_end.strip_suffix('\n') {
                Some(r) => r.strip_suffix('\r').unwrap_or(r),
                None => with_end,
            };
            if !with_end.trim().is_empty() {
                lines.push((i + 1, start, raw, with_end.trim(), with_end.ends_with('\n')));
            }
            start += with_end.len();
        }
        lines
    }

    proptest::proptest! {
        #[test]
        fn numbered_is_split_inclusive_then_trim(
            text in "[ \t\r\n\u{b}\u{c}\u{1c}\u{85}\u{a0}\u{1680}\u{2003}\u{2028}\u{3000}\u{feff}ax:é語]{0,80}",
            any_text in "\\PC{0,40}",
        ) {
            for text in [text.as_str(), any_text.as_str()] {
                let got: Vec<_> = numbered(text).map(|l| (l.n, l.start, l.raw, l.text, l.ended)).collect();
                proptest::prop_assert_eq!(got, numbered_by_str(text));
            }
        }
    }

    #[test]
    fn split_at_byte_is_split_once() {
        for (text, sep) in [("a/b/c", b'/'), ("/x", b'/'), ("x/", b'/'), ("none", b'/'), ("", b':'), ("é:ü", b':')] {
            assert_eq!(split_at_byte(text, sep), text.split_once(char::from(sep)), "{text}");
            assert_eq!(split_at_last_byte(text, sep), text.rsplit_once(char::from(sep)), "{text}");
        }
    }

    #[test]
    fn split_bytes_and_split_at_str_are_split_and_split_once() {
        for text in ["", ",", "a,,b,", "é,ü", "1,2", "dscp:", "3 dscp:1,", "xdscdscp:dscp:", "é dscp:ü"] {
            assert_eq!(split_bytes(text, b',').collect::<Vec<_>>(), text.split(',').collect::<Vec<_>>(), "{text}");
            assert_eq!(split_at_str(text, "dscp:"), text.split_once("dscp:"), "{text}");
        }
    }

    #[test]
    fn named_values_are_a_map_with_the_last_value_of_a_name() {
        let mut values = NamedValues::new();
        for (name, value) in [("b", 1), ("PortXmitData", 2), ("a", 3), ("b", 4), ("PortXmitDataX", 5), ("é", 6)] {
            values.insert(name, value);
        }
        let expected: BTreeMap<String, i32> = [("PortXmitData", 2), ("PortXmitDataX", 5), ("a", 3), ("b", 4), ("é", 6)]
            .map(|(n, v)| (n.to_string(), v))
            .into();
        assert_eq!(values.into_map(), expected);
    }

    proptest::proptest! {
        #[test]
        fn words_are_split_whitespace(
            text in "[ \t\r\n\u{b}\u{c}\u{1c}\u{85}\u{a0}\u{2003}\u{3000}a1:é]{0,40}",
            any_text in "\\PC{0,40}",
        ) {
            for text in [text.as_str(), any_text.as_str()] {
                proptest::prop_assert_eq!(words(text).collect::<Vec<_>>(), text.split_whitespace().collect::<Vec<_>>());
            }
        }
    }

    #[test]
    fn split_run_takes_the_leading_run() {
        assert_eq!(split_run("12ab", |b| b.is_ascii_digit()), Some(("12", "ab")));
        assert_eq!(split_run("12", |b| b.is_ascii_digit()), Some(("12", "")));
        assert_eq!(split_run("ab", |b| b.is_ascii_digit()), None);
        assert_eq!(split_run("x\u{b}é", is_ascii_non_space), Some(("x", "\u{b}é")));
        assert_eq!(split_run("xé", is_ascii_non_space), Some(("x", "é")));
    }

    #[test]
    fn cut_off_names_the_last_line() {
        assert_eq!(cut_off("a\nb\n"), None);
        assert_eq!(cut_off("a\n\nb").map(|w| w.line), Some(3));
    }

    #[test]
    fn prompts_and_clipping() {
        assert!(is_prompt("root@h:~# mlnx_qos -i x", "mlnx_qos"));
        assert!(is_prompt("$ ethtool eth0", "ethtool"));
        assert!(!is_prompt("ethtool eth0", "ethtool"));
        assert_eq!(clip("éèà", 2), "éè");
        assert_eq!(unrecognised_clipped(&"x".repeat(150)).len(), 100 + 20);
        assert_eq!(diag_failure("x\n  ibwarn: y \n").as_deref(), Some("ibwarn: y"));
    }

    #[test]
    fn mutate_line_cuts_on_characters_doubles_and_replaces() {
        let sample = "ab\r\néèà\nc\n";
        assert_eq!(mutate_line(sample, 1, 0, 2, "j"), "ab\néè\nc");
        assert_eq!(mutate_line(sample, 4, 0, 5, "j"), "ab\né\nc");
        assert_eq!(mutate_line(sample, 3, 0, 3, "j"), "\néèà\nc");
        assert_eq!(mutate_line(sample, 2, 1, 0, "j"), "ab\néèà\nc\nc");
        assert_eq!(mutate_line(sample, 0, 2, 0, "j"), "j\néèà\nc");
        assert_eq!(mutate_line("", 5, 2, 0, "j"), "j");
    }
}
