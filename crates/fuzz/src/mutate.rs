//! The mutator: new inputs made from a real one by the edits that real outputs differ by (a
//! line gone, repeated or moved, a number at its limits, a word from elsewhere, a field's
//! separator changed, an output cut short) as well as by blind byte edits, one to four at a time.
//!
//! Line and token edits come first because the readers are line and field oriented: a flipped
//! bit mostly makes a line unreadable, while a duplicated section or a counter at 2^64 reaches
//! the code behind the first check.

use fastrand::Rng;

/// Numbers at the edges of what the readers convert: integer widths, signs, floats, hex.
const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "-1",
    "1",
    "255",
    "256",
    "65535",
    "65536",
    "2147483647",
    "2147483648",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999999999",
    "-9223372036854775809",
    "1e308",
    "1e309",
    "-1e309",
    "NaN",
    "inf",
    "0.5",
    "1.",
    ".5",
    "0x7fffffff",
    "0xffffffffffffffff",
    "00000000000000000000000000007",
];

/// Bytes that separate or quote fields in the outputs, and bytes that are not UTF-8 alone.
const BYTES: &[u8] = b"\n\r\t :,;=|/.-_\"'{}[]()<>#*%0a9Z\x00\x7f\x80\xc3\xff";

/// Text that tends to break assumptions: multi-byte characters, separators, line endings.
const SPECIALS: &[&str] = &["é", "\u{200b}", "𝕏", "\r\n", "\r", "\t", "  ", "::", "==", "\u{feff}", "\\", "%s", "${x}"];

/// Makes new inputs from a target's corpus. Seeded: a campaign's inputs are replayed from its
/// seed.
pub struct Mutator {
    rng: Rng,
    max_len: usize,
    dictionary: Vec<Vec<u8>>,
}

impl Mutator {
    /// `dictionary`: tokens of the target's seeds, reused in place of others.
    pub fn new(seed: u64, max_len: usize, dictionary: Vec<Vec<u8>>) -> Mutator {
        Mutator { rng: Rng::with_seed(seed), max_len, dictionary }
    }

    /// A random index below `n` (which must not be 0).
    pub fn below(&mut self, n: usize) -> usize {
        self.rng.usize(..n)
    }

    /// Writes into `out` an input made from `base` (a window of it when longer than the
    /// maximum), with `other` as a second input to take lines and tails from.
    pub fn mutate(&mut self, base: &[u8], other: &[u8], out: &mut Vec<u8>) {
        out.clear();
        out.extend_from_slice(self.window(base));
        // One edit most often, up to four.
        let edits = 1 + self.rng.usize(..4).min(self.rng.usize(..4));
        for _ in 0..edits {
            self.edit(out, other);
        }
        out.truncate(2 * self.max_len);
    }

    /// `input` itself, or a window of whole lines of it within the maximum length.
    fn window<'a>(&mut self, input: &'a [u8]) -> &'a [u8] {
        if input.len() <= self.max_len {
            return input;
        }
        let mut start = self.rng.usize(..input.len() - self.max_len / 2);
        start = input[..start].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let end = (start + self.max_len).min(input.len());
        let end = input[start..end].iter().rposition(|&b| b == b'\n').map_or(end, |i| start + i + 1);
        &input[start..end]
    }

    fn edit(&mut self, out: &mut Vec<u8>, other: &[u8]) {
        match self.rng.u8(..16) {
            0 => self.flip_bit(out),
            1 => self.set_byte(out),
            2 => self.erase_range(out),
            3 => self.insert_bytes(out),
            4 | 5 => self.replace_number(out),
            6 => self.replace_word(out),
            7 => self.insert_token(out),
            8 => self.delete_line(out),
            9 => self.duplicate_line(out),
            10 => self.swap_lines(out),
            11 => self.insert_line_from(out, other),
            12 => self.copy_range(out),
            13 => self.splice(out, other),
            14 => self.truncate(out),
            _ => self.change_space(out),
        }
    }

    fn flip_bit(&mut self, out: &mut [u8]) {
        if !out.is_empty() {
            let i = self.rng.usize(..out.len());
            out[i] ^= 1 << self.rng.u8(..8);
        }
    }

    fn set_byte(&mut self, out: &mut Vec<u8>) {
        let b = BYTES[self.rng.usize(..BYTES.len())];
        match out.len() {
            0 => out.push(b),
            n => out[self.rng.usize(..n)] = b,
        }
    }

    fn erase_range(&mut self, out: &mut Vec<u8>) {
        if out.is_empty() {
            return;
        }
        let start = self.rng.usize(..out.len());
        let len = 1 + self.rng.usize(..16.min(out.len() - start));
        out.drain(start..start + len);
    }

    fn insert_bytes(&mut self, out: &mut Vec<u8>) {
        let at = self.rng.usize(..=out.len());
        let n = 1 + self.rng.usize(..8);
        let bytes: Vec<u8> = (0..n).map(|_| self.rng.u8(..)).collect();
        out.splice(at..at, bytes);
    }

    /// A run of digits (a counter, a priority, a speed) replaced by a number at some limit.
    fn replace_number(&mut self, out: &mut Vec<u8>) {
        let number = NUMBERS[self.rng.usize(..NUMBERS.len())].as_bytes();
        match self.pick_run(out, |b| b.is_ascii_digit()) {
            Some((start, end)) => drop(out.splice(start..end, number.iter().copied())),
            None => self.insert_at_random(out, number),
        }
    }

    /// A word replaced by a token of the seeds: an interface name where a state was, say.
    fn replace_word(&mut self, out: &mut Vec<u8>) {
        let token = self.token();
        if let Some((start, end)) = self.pick_run(out, |b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
            out.splice(start..end, token);
        }
    }

    fn insert_token(&mut self, out: &mut Vec<u8>) {
        let token = if self.rng.bool() { self.token() } else { SPECIALS[self.rng.usize(..SPECIALS.len())].into() };
        self.insert_at_random(out, &token);
    }

    fn token(&mut self) -> Vec<u8> {
        if self.dictionary.is_empty() || self.rng.u8(..4) == 0 {
            NUMBERS[self.rng.usize(..NUMBERS.len())].into()
        } else {
            self.dictionary[self.rng.usize(..self.dictionary.len())].clone()
        }
    }

    fn delete_line(&mut self, out: &mut Vec<u8>) {
        if let Some(line) = self.pick_line(out) {
            out.drain(line);
        }
    }

    fn duplicate_line(&mut self, out: &mut Vec<u8>) {
        if let Some(line) = self.pick_line(out) {
            let copy = out[line.clone()].to_vec();
            let times = if self.rng.u8(..8) == 0 { 1 + self.rng.usize(..64) } else { 1 };
            for _ in 0..times {
                out.splice(line.start..line.start, copy.iter().copied());
            }
        }
    }

    fn swap_lines(&mut self, out: &mut Vec<u8>) {
        let (Some(a), Some(b)) = (self.pick_line(out), self.pick_line(out)) else { return };
        let (first, second) = if a.start <= b.start { (a, b) } else { (b, a) };
        if first.end > second.start {
            return;
        }
        let second_text = out[second.clone()].to_vec();
        let first_text = out[first.clone()].to_vec();
        out.splice(second, first_text);
        out.splice(first, second_text);
    }

    fn insert_line_from(&mut self, out: &mut Vec<u8>, other: &[u8]) {
        let Some(line) = self.pick_line(other) else { return };
        let at = self.pick_line(out).map_or(out.len(), |l| l.start);
        out.splice(at..at, other[line].iter().copied());
    }

    fn copy_range(&mut self, out: &mut Vec<u8>) {
        if out.is_empty() {
            return;
        }
        let start = self.rng.usize(..out.len());
        let len = 1 + self.rng.usize(..64.min(out.len() - start));
        let copy = out[start..start + len].to_vec();
        self.insert_at_random(out, &copy);
    }

    /// The head of this input and the tail of another.
    fn splice(&mut self, out: &mut Vec<u8>, other: &[u8]) {
        let cut = self.rng.usize(..=out.len());
        let from = self.rng.usize(..=other.len());
        let tail = &other[from..other.len().min(from + self.max_len)];
        out.truncate(cut);
        out.extend_from_slice(tail);
    }

    /// An output cut short, as a timeout or `--max-output` leaves it.
    fn truncate(&mut self, out: &mut Vec<u8>) {
        let at = self.rng.usize(..=out.len());
        out.truncate(at);
    }

    /// A field separator changed: columns realigned, a tab for spaces, spaces dropped.
    fn change_space(&mut self, out: &mut Vec<u8>) {
        let Some((start, end)) = self.pick_run(out, |b| b == b' ') else { return };
        let with: &[u8] = match self.rng.u8(..4) {
            0 => b"",
            1 => b"\t",
            2 => b"                                ",
            _ => b" ",
        };
        out.splice(start..end, with.iter().copied());
    }

    fn insert_at_random(&mut self, out: &mut Vec<u8>, bytes: &[u8]) {
        let at = self.rng.usize(..=out.len());
        out.splice(at..at, bytes.iter().copied());
    }

    /// A random maximal run of bytes matching `is`, found from a random place onwards.
    fn pick_run(&mut self, out: &[u8], is: impl Fn(u8) -> bool) -> Option<(usize, usize)> {
        if out.is_empty() {
            return None;
        }
        let from = self.rng.usize(..out.len());
        let start =
            out[from..].iter().position(|&b| is(b)).map(|i| from + i).or_else(|| out.iter().position(|&b| is(b)))?;
        let start = out[..start].iter().rposition(|&b| !is(b)).map_or(0, |i| i + 1);
        let end = out[start..].iter().position(|&b| !is(b)).map_or(out.len(), |i| start + i);
        Some((start, end))
    }

    /// A random whole line, its newline included.
    fn pick_line(&mut self, text: &[u8]) -> Option<std::ops::Range<usize>> {
        if text.is_empty() {
            return None;
        }
        let at = self.rng.usize(..text.len());
        let start = text[..at].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let end = text[at..].iter().position(|&b| b == b'\n').map_or(text.len(), |i| at + i + 1);
        Some(start..end)
    }
}

/// The distinct words of `seeds` (2 to 32 bytes, split at spaces and punctuation), at most
/// `limit` of them: the tokens the mutator puts in place of others.
pub fn dictionary(seeds: &[Vec<u8>], limit: usize) -> Vec<Vec<u8>> {
    let mut words = std::collections::BTreeSet::new();
    for seed in seeds {
        for word in seed.split(|b| b.is_ascii_whitespace() || b",:;=|\"'{}[]()".contains(b)) {
            if (2..=32).contains(&word.len()) {
                words.insert(word.to_vec());
            }
        }
    }
    let words: Vec<Vec<u8>> = words.into_iter().collect();
    let step = words.len().div_ceil(limit.max(1)).max(1);
    words.into_iter().step_by(step).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_edit_keeps_within_twice_the_maximum_and_windows_end_at_a_line() {
        let base: Vec<u8> = (0..400).flat_map(|i| format!("line {i}: value {}\n", i * 7).into_bytes()).collect();
        let mut m = Mutator::new(7, 512, dictionary(std::slice::from_ref(&base), 100));
        let mut out = Vec::new();
        for _ in 0..20_000 {
            m.mutate(&base, b"other: 1\nthing 2\n", &mut out);
            assert!(out.len() <= 1024);
        }
        let window = m.window(&base);
        assert!(window.len() <= 512 && window.ends_with(b"\n"), "{}", String::from_utf8_lossy(window));
    }

    #[test]
    fn the_same_seed_makes_the_same_inputs() {
        let run = |seed| {
            let mut m = Mutator::new(seed, 256, vec![b"swp1".to_vec()]);
            let mut out = Vec::new();
            (0..100)
                .map(|_| {
                    m.mutate(b"Ethernet0 up 100G\nEthernet4 down 40G\n", b"x 1\n", &mut out);
                    out.clone()
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(run(3), run(3));
        assert_ne!(run(3), run(4));
    }

    #[test]
    fn the_dictionary_holds_the_seeds_words_within_its_limit() {
        let words = dictionary(&[b"PFC enabled: 3,4\nDSCP 26 -> prio 3".to_vec()], 100);
        for w in ["PFC", "enabled", "3,4", "DSCP", "26", "->", "prio"] {
            let expected = !w.contains(',') && w.len() >= 2;
            assert_eq!(words.contains(&w.as_bytes().to_vec()), expected, "{w}");
        }
        assert!(dictionary(&[b"aa bb cc dd ee ff gg".to_vec()], 3).len() <= 3);
    }
}
