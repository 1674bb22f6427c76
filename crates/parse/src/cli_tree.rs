//! What the indented CLI configurations (Arista EOS, Cisco NX-OS, Dell OS10) have in common, read
//! once: lines nested by indentation into a tree, `!` comments, multi-line banners, number lists
//! and ranges, thresholds with units, and the `switch#show ...` prompt that captures begin with.
//!
//! The tree is deliberately dumb: a line's children are the lines indented deeper below it, up
//! to the next line indented as much or less. Each vendor parser walks the tree and decides which
//! lines it models; the others are counted, not warned about (a running-config has thousands).
//! It is a crate module of its own because three vendors (`eos`, `nxos`, `dell_os10`) read
//! their configurations with it.

use crate::eos::running_config::speed_mbps;
use crate::lines::{no_facts, numbered, quote};
use crate::switch::to_bytes;
use crate::{ParseResult, ParseWarning, Parsed};
use serde::Serialize;

/// One configuration line with the lines nested under it.
#[derive(Debug, Clone)]
pub(crate) struct Node<'a> {
    /// 1-based line number in the input.
    pub(crate) n: usize,
    /// The line without its indentation and trailing white space.
    pub(crate) text: &'a str,
    /// Lines indented deeper, up to the next line at this depth or shallower.
    pub(crate) children: Vec<Node<'a>>,
}

impl Node<'_> {
    /// How many lines this node and its descendants hold (for counting unmodelled lines).
    pub(crate) fn size(&self) -> usize {
        1 + self.children.iter().map(Node::size).sum::<usize>()
    }

    /// The words of the line.
    pub(crate) fn words(&self) -> Vec<&str> {
        self.text.split_whitespace().collect()
    }
}

/// Reads a whole configuration (NX-OS, OS10): `top_level` reads each top-level line with its
/// block and gives `Some(lines not modelled)` when fabcheck knows the line, `None` otherwise (the
/// whole block is then not modelled); the count goes to the field `unmodelled` names. `Err` with
/// `empty` or `foreign` when no top-level line is known.
pub(crate) fn read_config<C: Default>(
    text: &str,
    top_level: impl Fn(&Node<'_>, &mut C, &mut Vec<ParseWarning>) -> Option<usize>,
    unmodelled: impl Fn(&mut C) -> &mut usize,
    empty: &str,
    foreign: &str,
) -> ParseResult<C> {
    let tree = tree(text);
    let mut cfg = C::default();
    let mut w = Vec::new();
    let mut known = 0;
    for node in &tree.roots {
        match top_level(node, &mut cfg, &mut w) {
            Some(lines) => {
                known += 1;
                *unmodelled(&mut cfg) += lines;
            }
            None => *unmodelled(&mut cfg) += node.size(),
        }
    }
    *unmodelled(&mut cfg) += tree.banner_lines;
    if known == 0 {
        return Err(no_facts(text, empty, foreign));
    }
    if let Some(n) = tree.cut_line {
        w.push(ParseWarning::at(n, "no line end after the last line: the output may be cut off"));
    }
    w.sort_by_key(|w| w.line);
    Ok(Parsed { value: cfg, warnings: w })
}

/// Reads every child of `node` with `read` (true: a line fabcheck models), counting the lines
/// not modelled: a child `read` does not know with all its block, the block of one it knows.
pub(crate) fn each_child<'a>(node: &Node<'a>, unmodelled: &mut usize, mut read: impl FnMut(&Node<'a>) -> bool) {
    for child in &node.children {
        *unmodelled += if read(child) { child.size() - 1 } else { child.size() };
    }
}

/// A class map's `match KIND N...` line, read into the list `list` gives for KIND (with the
/// largest number allowed); false, and nothing read, when the line is no `match` or `list` has
/// none for its kind. A list that cannot be read warns.
pub(crate) fn class_map_match<'l>(
    line: &Node<'_>,
    w: &mut Vec<ParseWarning>,
    list: impl FnOnce(&str) -> Option<(&'l mut Vec<u8>, u8)>,
) -> bool {
    let words = line.words();
    let Some((values, max)) = (match words.as_slice() {
        ["match", kind, ..] => list(kind),
        _ => None,
    }) else {
        return false;
    };
    match numbers(&words[2..], max) {
        Some(v) => values.extend(v),
        None => w.push(malformed(line.n, line.text)),
    }
    true
}

/// A configuration read into a tree.
#[derive(Debug, Default)]
pub(crate) struct Tree<'a> {
    /// Top-level lines in input order.
    pub(crate) roots: Vec<Node<'a>>,
    /// Lines inside banners (`banner motd #` ... `#`, EOS `banner login` ... `EOF`): text, not
    /// configuration, so never read as commands.
    pub(crate) banner_lines: usize,
    /// The last non-blank line when it has no line end (the capture may be cut there).
    pub(crate) cut_line: Option<usize>,
}

/// Reads `text` into a tree of lines nested by indentation. Comment lines (`!`, `!!`, EOS and
/// NX-OS) are dropped wherever they are; banner bodies are skipped.
pub(crate) fn tree(text: &str) -> Tree<'_> {
    let mut out = Tree::default();
    // Open nodes, outermost first, with their indentation.
    let mut stack: Vec<(usize, Node<'_>)> = Vec::new();
    let mut banner_end: Option<String> = None;
    for l in numbered(text) {
        out.cut_line = (!l.ended).then_some(l.n);
        if let Some(end) = &banner_end {
            out.banner_lines += 1;
            if l.text == end.as_str() || (end.len() == 1 && l.text.contains(end.as_str())) {
                banner_end = None;
            }
            continue;
        }
        if l.text.starts_with('!') {
            continue;
        }
        let indent = l.raw.len() - l.raw.trim_start().len();
        if indent == 0 {
            banner_end = banner_terminator(l.text);
        }
        while stack.last().is_some_and(|(depth, _)| *depth >= indent) {
            close(&mut stack, &mut out.roots);
        }
        let node = Node { n: l.n, text: l.text, children: Vec::new() };
        stack.push((indent, node));
    }
    while !stack.is_empty() {
        close(&mut stack, &mut out.roots);
    }
    out
}

fn close<'a>(stack: &mut Vec<(usize, Node<'a>)>, roots: &mut Vec<Node<'a>>) {
    if let Some((_, node)) = stack.pop() {
        match stack.last_mut() {
            Some((_, parent)) => parent.children.push(node),
            None => roots.push(node),
        }
    }
}

/// Where a top-level `banner` line's body ends: NX-OS `banner motd #` runs to the next line
/// holding the delimiter (unless the delimiter closes on the same line); EOS `banner login` runs
/// to a line `EOF`.
fn banner_terminator(line: &str) -> Option<String> {
    let mut words = line.split_whitespace();
    if words.next() != Some("banner") {
        return None;
    }
    let _kind = words.next()?;
    match words.next() {
        None => Some("EOF".to_string()),
        Some(delimiter) => {
            let d = delimiter.chars().next()?;
            // `banner motd #text#` on one line closes itself.
            let after = line.split_once(d).map(|(_, rest)| rest).unwrap_or("");
            (!after.contains(d)).then(|| d.to_string())
        }
    }
}

/// A queue-depth threshold as configured, with its size in bytes when the unit allows one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Threshold {
    /// The number as configured.
    pub value: f64,
    /// The unit as configured (`kbytes`, `segments`, `milliseconds` ...; empty when none).
    pub unit: String,
    /// The size in bytes: `None` when the unit is a time or a platform-sized cell.
    pub bytes: Option<u64>,
}

impl Threshold {
    /// Whether the unit is a kilo- or megabyte (`KB`, `kbytes`, `MB` ...), which vendors write
    /// without saying whether it is decimal or binary.
    pub(crate) fn kilo_or_mega(&self) -> bool {
        matches!(
            self.unit.to_ascii_lowercase().as_str(),
            "k" | "kb" | "kbyte" | "kbytes" | "m" | "mb" | "mbyte" | "mbytes"
        )
    }

    /// The pair of thresholds as written, when either's unit leaves the bytes uncertain
    /// ([`Threshold::kilo_or_mega`]): `150 kbytes / 1500 kbytes`.
    pub(crate) fn uncertain_pair(min: Option<&Threshold>, max: Option<&Threshold>) -> Option<String> {
        let written = |t: Option<&Threshold>| t.map_or("?".to_string(), |t| format!("{} {}", t.value, t.unit));
        [min, max].iter().flatten().any(|t| t.kilo_or_mega()).then(|| format!("{} / {}", written(min), written(max)))
    }

    /// Reads `value` in `unit`, converting with [`to_bytes`]. Units that need a port rate
    /// (`milliseconds`, `microseconds`) or a platform's buffer-cell size (`segments`, `cells`:
    /// EOS segments are buffer cells, not TCP segments) keep `bytes: None` and give a warning
    /// that says so. `None` when `value` is not a number.
    pub(crate) fn read(what: &str, value: &str, unit: &str, n: usize, w: &mut Vec<ParseWarning>) -> Option<Threshold> {
        let number: f64 = value.parse().ok().filter(|v: &f64| v.is_finite() && *v >= 0.0)?;
        let lower = unit.to_ascii_lowercase();
        let bytes = match lower.as_str() {
            "segments" | "segment" | "cells" | "cell" => to_bytes(number, "cells", None, None),
            _ => to_bytes(number, &lower, None, None),
        };
        if bytes.is_none() {
            let why = match lower.as_str() {
                "milliseconds" | "microseconds" | "ms" | "us" => {
                    "is a time: converting it to bytes needs the port rate"
                }
                "segments" | "segment" | "cells" | "cell" => "counts buffer cells of a platform-dependent size",
                _ => "has a unit fabcheck does not convert",
            };
            w.push(ParseWarning::at(n, format!("{what} `{value} {unit}` {why}; kept without a size in bytes")));
        }
        Some(Threshold { value: number, unit: unit.to_string(), bytes })
    }
}

/// Numbers from a list such as `8 9 10`, `0-2,4-6`, `3,4` or `1 - 3`, each at most `max`.
/// `None` when a part is not a number, a range runs backwards, or a number exceeds `max`.
pub(crate) fn numbers(words: &[&str], max: u8) -> Option<Vec<u8>> {
    let joined = words.join(" ").replace(" - ", "-");
    let mut out = Vec::new();
    for part in joined.split([',', ' ']).filter(|p| !p.is_empty()) {
        let (lo, hi) = match part.split_once('-') {
            Some((a, b)) => (a.parse::<u8>().ok()?, b.parse::<u8>().ok()?),
            None => {
                let v = part.parse::<u8>().ok()?;
                (v, v)
            }
        };
        if lo > hi || hi > max {
            return None;
        }
        out.extend(lo..=hi);
    }
    (!out.is_empty()).then_some(out)
}

/// One number at most `max`.
pub(crate) fn number(word: Option<&&str>, max: u32) -> Option<u32> {
    word?.parse::<u32>().ok().filter(|v| *v <= max)
}

/// The words after `key` in `words` (`after(&w, "percent")`), empty when `key` is absent.
pub(crate) fn after<'w, 'a>(words: &'w [&'a str], key: &str) -> &'w [&'a str] {
    match words.iter().position(|w| *w == key) {
        Some(i) => &words[i + 1..],
        None => &[],
    }
}

/// A warning for a configuration line fabcheck models but cannot read.
pub(crate) fn malformed(n: usize, line: &str) -> ParseWarning {
    ParseWarning::at(n, quote("unreadable configuration line", line))
}

/// The name of a front-panel interface (Ethernet or port-channel, not a sub-interface) from the
/// words after `interface`, without the space NX-OS prints between type and number (`Ethernet
/// 1/1`), so that [`crate::switch::canonical_interface`] can read it. `None` for VLAN, loopback,
/// management and other interfaces, which carry no lossless configuration.
pub(crate) fn port_name(words: &[&str]) -> Option<String> {
    let name = words.concat();
    let lower = name.to_ascii_lowercase();
    let front_panel = ["ethernet", "port-channel"].iter().any(|p| lower.starts_with(p));
    (front_panel && !name.contains('.')).then_some(name)
}

/// The most ports one interface range may name (a 1U switch has at most a few hundred).
const MAX_RANGE_PORTS: usize = 1024;

/// The ports of a range, as OS10's `interface range ethernet 1/1/1-1/1/18,1/1/20` and NX-OS's
/// configuration mode (`interface Ethernet1/1/1 - 2`, `interface ethernet 1/1-4, ethernet 1/7`)
/// write them, the words split anywhere: each item a port, or a span whose ends differ in their
/// last number only. `None` when an item is not that, or the range names more than
/// [`MAX_RANGE_PORTS`].
fn port_range(words: &[&str]) -> Option<Vec<String>> {
    let text = words.concat();
    let split = text.find(|c: char| c.is_ascii_digit())?;
    let (kind, list) = text.split_at(split);
    port_name(&[kind, "1/1/1"])?;
    let mut names = Vec::new();
    for item in list.split(',') {
        // A later item may repeat the type: `ethernet1/7`.
        let item =
            item.get(..kind.len()).filter(|k| k.eq_ignore_ascii_case(kind)).map_or(item, |_| &item[kind.len()..]);
        let (first, last) = item.split_once('-').unwrap_or((item, item));
        let (stem, from) = first.rsplit_once('/')?;
        let to = last.strip_prefix(stem).and_then(|l| l.strip_prefix('/')).unwrap_or(last);
        let (from, to): (u32, u32) = (from.parse().ok()?, to.parse().ok()?);
        if to < from || names.len() + (to - from) as usize >= MAX_RANGE_PORTS {
            return None;
        }
        names.extend((from..=to).map(|n| format!("{kind}{stem}/{n}")));
    }
    Some(names)
}

/// An interface range's block (`interface range ethernet 1/1/1-1/1/4`, `interface
/// Ethernet1/1/1 - 2`): its lines read once into one interface (so each bad line warns once)
/// and the ports it names, for the caller to give each a copy. A range that cannot be read
/// warns, and its lines count as not modelled.
pub(crate) fn range_block<I: Default>(
    node: &Node<'_>,
    range: &[&str],
    unmodelled: &mut usize,
    w: &mut Vec<ParseWarning>,
    mut read: impl FnMut(&Node<'_>, &mut I, &mut Vec<ParseWarning>) -> bool,
) -> Option<(Vec<String>, I)> {
    let Some(names) = port_range(range) else {
        w.push(malformed(node.n, node.text));
        *unmodelled += node.size().saturating_sub(1);
        return None;
    };
    let mut block = I::default();
    each_child(node, unmodelled, |line| read(line, &mut block, w));
    Some((names, block))
}

/// The interface lines NX-OS and OS10 write alike: `mtu N`, `speed N` (Mb/s; `speed auto`
/// gives none), `shutdown`, `no shutdown` and `description ...`, each read into its field (an
/// unreadable value warns); false for any other line.
pub(crate) fn port_line(
    line: &Node<'_>,
    mtu: &mut Option<u32>,
    speed: &mut Option<u64>,
    shutdown: &mut Option<bool>,
    description: &mut Option<String>,
    w: &mut Vec<ParseWarning>,
) -> bool {
    let words = line.words();
    let bad = |w: &mut Vec<ParseWarning>| w.push(malformed(line.n, line.text));
    match words.as_slice() {
        ["mtu", v] => match number(Some(v), 65_535) {
            Some(v) => *mtu = Some(v),
            None => bad(w),
        },
        ["speed", "auto"] => {}
        ["speed", v] => match speed_mbps(&[v]) {
            Ok(mbps) => *speed = mbps,
            Err(()) => bad(w),
        },
        ["shutdown"] => *shutdown = Some(true),
        ["no", "shutdown"] => *shutdown = Some(false),
        ["description", ..] => *description = Some(line.text["description".len()..].trim().to_string()),
        _ => return false,
    }
    true
}

/// Whether `line` is a switch prompt echoing a show command (`leaf1#show qos interfaces`,
/// `router#sh qos int po33`, `switch> show ...`): captures often begin with one.
pub(crate) fn is_switch_prompt(line: &str) -> bool {
    line.split_once(['#', '>']).is_some_and(|(host, cmd)| {
        !host.is_empty() && !host.contains(char::is_whitespace) && cmd.trim_start().starts_with("sh")
    })
}

/// The `class ...` children of a policy map, each read with `read` for every line under it.
pub(crate) fn classes<T: Default + Named>(
    node: &Node<'_>,
    unmodelled: &mut usize,
    read: impl Fn(&mut T, &Node<'_>, &mut Vec<ParseWarning>) -> bool,
    w: &mut Vec<ParseWarning>,
) -> Vec<T> {
    let mut out = Vec::new();
    for child in &node.children {
        let words = child.words();
        let Some(name) = (match words.as_slice() {
            ["class", "type", _, name] | ["class", name] => Some(*name),
            _ => None,
        }) else {
            *unmodelled += child.size();
            continue;
        };
        let mut class = T::default();
        class.set_name(name);
        each_child(child, unmodelled, |line| read(&mut class, line, w));
        out.push(class);
    }
    out
}

/// Policy-map classes that carry their class map's name.
pub(crate) trait Named {
    /// Sets the class name.
    fn set_name(&mut self, name: &str);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_lists_of_ports() {
        assert_eq!(port_range(&["Ethernet1/1/1", "-", "2"]).unwrap(), ["Ethernet1/1/1", "Ethernet1/1/2"]);
        assert_eq!(
            port_range(&["ethernet", "1/1-3,", "ethernet", "1/7"]).unwrap(),
            ["ethernet1/1", "ethernet1/2", "ethernet1/3", "ethernet1/7"]
        );
        assert_eq!(port_range(&["ethernet", "1/1/1-1/1/3,1/1/20"]).unwrap().len(), 4);
        assert_eq!(port_range(&["ethernet", "1/5-1/2"]), None, "backwards");
        assert_eq!(port_range(&["ethernet", "1/1-99999"]), None, "too many ports");
        assert_eq!(port_range(&["vlan", "1-4"]), None, "not a front-panel port");
    }

    /// Each node's line number and number of children.
    fn shape(nodes: &[Node<'_>]) -> Vec<(usize, usize)> {
        nodes.iter().map(|n| (n.n, n.children.len())).collect()
    }

    #[test]
    fn nesting_follows_indentation_and_skips_comments() {
        let t = tree("a\n   b\n      c\n   !\n   d\n!\ne\n  f\n");
        assert_eq!(shape(&t.roots), [(1, 2), (7, 1)]);
        assert_eq!(t.roots[0].children[0].children[0].text, "c");
        assert_eq!(t.roots[0].children[1].text, "d");
        assert_eq!(t.roots[0].size(), 4);
        assert_eq!(t.cut_line, None);
        assert_eq!(tree("a\nb").cut_line, Some(2));
    }

    #[test]
    fn banners_are_skipped() {
        let t = tree("banner motd #\nhostname evil\n#\nhostname real\n");
        assert_eq!(t.roots.len(), 2);
        assert_eq!(t.roots[1].text, "hostname real");
        assert_eq!(t.banner_lines, 2);
        let t = tree("banner login\nhello\nEOF\nhostname x\n");
        assert_eq!(t.roots.len(), 2);
        let t = tree("banner motd #one line#\nhostname x\n");
        assert_eq!(t.roots.len(), 2);
    }

    #[test]
    fn number_lists_and_ranges() {
        assert_eq!(numbers(&["0-2,4-6"], 7), Some(vec![0, 1, 2, 4, 5, 6]));
        assert_eq!(numbers(&["8", "9", "10"], 63), Some(vec![8, 9, 10]));
        assert_eq!(numbers(&["3,4"], 7), Some(vec![3, 4]));
        assert_eq!(numbers(&["1", "-", "3"], 7), Some(vec![1, 2, 3]));
        assert_eq!(numbers(&["8"], 7), None);
        assert_eq!(numbers(&["3-1"], 7), None);
        assert_eq!(numbers(&["x"], 7), None);
        assert_eq!(numbers(&[], 7), None);
    }

    #[test]
    fn thresholds_convert_or_say_why_not() {
        let mut w = Vec::new();
        let t = Threshold::read("minimum-threshold", "320", "kbytes", 3, &mut w).expect("number");
        assert_eq!(t.bytes, Some(327_680));
        assert!(w.is_empty());
        let t = Threshold::read("minimum-threshold", "3", "milliseconds", 4, &mut w).expect("number");
        assert_eq!(t.bytes, None);
        let t = Threshold::read("maximum-threshold", "320", "segments", 5, &mut w).expect("number");
        assert_eq!(t.bytes, None);
        assert_eq!(w.iter().map(|w| w.line).collect::<Vec<_>>(), [4, 5]);
        assert!(Threshold::read("minimum-threshold", "x", "kbytes", 6, &mut w).is_none());
    }

    #[test]
    fn prompts() {
        assert!(is_switch_prompt("router#sh qos int po33"));
        assert!(is_switch_prompt("leaf1# show interfaces status"));
        assert!(!is_switch_prompt("Port-Channel33:"));
        assert!(!is_switch_prompt("# show"));
    }
}
