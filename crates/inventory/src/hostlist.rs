//! Slurm host lists (`gpu[01-16,20],login1`, `rack[1-2]-gpu[1-4]`), as `$SLURM_JOB_NODELIST` and
//! `scontrol show hostnames` write them: a job's nodes, expanded to host names.
//!
//! Slurm's syntax (slurm.conf(5), "NodeName"; `hostlist_create` in Slurm's src/common/hostlist.c):
//! comma-separated entries; each may hold bracketed ranges `lo-hi` or single numbers separated by
//! commas, and the width of `lo` sets zero padding (`[01-16]` → `01`..`16`); several bracket groups
//! in one name give every combination. Ansible's `[01:16]` is not Slurm syntax and is refused.

/// The most names a list may expand to: a job larger than any cluster is a typo, not a job.
pub const MAX_HOSTS: usize = 1_000_000;

/// Why a host list is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("host list `{list}`: {why}")]
pub struct HostlistError {
    /// The list as given.
    pub list: String,
    /// What is wrong with it.
    pub why: String,
}

/// The host names of a Slurm host list, in its order, each once.
pub fn expand(list: &str) -> Result<Vec<String>, HostlistError> {
    let fail = |why: String| HostlistError { list: list.to_string(), why };
    let mut names: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for entry in split_top_level(list).map_err(fail)? {
        let entry = entry.trim();
        if entry.is_empty() {
            continue;
        }
        for name in expand_entry(entry).map_err(fail)? {
            if seen.insert(name.clone()) {
                names.push(name);
                if names.len() > MAX_HOSTS {
                    return Err(fail(format!("more than {MAX_HOSTS} hosts")));
                }
            }
        }
    }
    if names.is_empty() {
        return Err(fail("no hosts".into()));
    }
    Ok(names)
}

/// The entries of a list: commas outside brackets separate them.
fn split_top_level(list: &str) -> Result<Vec<&str>, String> {
    let (mut depth, mut start, mut out) = (0usize, 0, Vec::new());
    for (i, c) in list.char_indices() {
        match c {
            '[' if depth == 0 => depth = 1,
            '[' => return Err("nested `[`".into()),
            ']' if depth == 1 => depth = 0,
            ']' => return Err(format!("`]` without `[` at byte {i}")),
            ',' if depth == 0 => {
                out.push(&list[start..i]);
                start = i + 1;
            }
            c if c.is_whitespace() && depth == 0 => {
                out.push(&list[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    if depth != 0 {
        return Err("`[` without `]`".into());
    }
    out.push(&list[start..]);
    Ok(out)
}

/// One entry's names: the text between bracket groups kept, each group's numbers in turn.
fn expand_entry(entry: &str) -> Result<Vec<String>, String> {
    let mut names = vec![String::new()];
    let mut rest = entry;
    while let Some(open) = rest.find('[') {
        let close = rest[open..].find(']').map(|c| open + c).ok_or("`[` without `]`")?;
        let prefix = &rest[..open];
        let numbers = group(&rest[open + 1..close]).map_err(|why| format!("`{entry}`: {why}"))?;
        if names.len().saturating_mul(numbers.len()) > MAX_HOSTS {
            return Err(format!("`{entry}` expands to more than {MAX_HOSTS} hosts"));
        }
        names = names.iter().flat_map(|n| numbers.iter().map(move |k| format!("{n}{prefix}{k}"))).collect();
        rest = &rest[close + 1..];
    }
    for n in &mut names {
        n.push_str(rest);
    }
    Ok(names)
}

/// A bracket group's numbers as text, zero-padded to the width of each range's start.
fn group(text: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for part in text.split(',') {
        let (lo, hi) = part.split_once('-').unwrap_or((part, part));
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if !digits(lo) || !digits(hi) {
            return Err(format!("`[{text}]`: `{part}` is not N or N-M (Slurm ranges use `-`)"));
        }
        let (start, end): (u64, u64) = match (lo.parse(), hi.parse()) {
            (Ok(a), Ok(b)) => (a, b),
            _ => return Err(format!("`{part}`: number too large")),
        };
        if end < start {
            return Err(format!("`{part}`: the range runs backwards"));
        }
        if (end - start) as usize >= MAX_HOSTS {
            return Err(format!("`{part}` is more than {MAX_HOSTS} hosts"));
        }
        let width = lo.len();
        out.extend((start..=end).map(|k| format!("{k:0width$}")));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_keep_their_zero_padding() {
        assert_eq!(expand("gpu[01-03]").unwrap(), ["gpu01", "gpu02", "gpu03"]);
        assert_eq!(expand("gpu[8-11]").unwrap(), ["gpu8", "gpu9", "gpu10", "gpu11"]);
        assert_eq!(expand("gpu[098-101]").unwrap(), ["gpu098", "gpu099", "gpu100", "gpu101"]);
    }

    #[test]
    fn lists_mix_ranges_numbers_and_plain_names() {
        assert_eq!(
            expand("gpu[01-02,07],login1,gpu01").unwrap(),
            ["gpu01", "gpu02", "gpu07", "login1"],
            "each host once, in order"
        );
        assert_eq!(expand("a1 b2").unwrap(), ["a1", "b2"], "scontrol's space-separated form");
    }

    #[test]
    fn several_groups_give_every_combination_with_suffixes() {
        assert_eq!(
            expand("rack[1-2]-gpu[1-2].ib").unwrap(),
            ["rack1-gpu1.ib", "rack1-gpu2.ib", "rack2-gpu1.ib", "rack2-gpu2.ib"]
        );
    }

    #[test]
    fn what_is_not_a_host_list_is_named() {
        let why = |list: &str| expand(list).unwrap_err().to_string();
        assert_eq!(
            why("gpu[01:16]"),
            "host list `gpu[01:16]`: `gpu[01:16]`: `[01:16]`: `01:16` is not N or N-M (Slurm ranges use `-`)"
        );
        assert!(why("gpu[1-3").contains("`[` without `]`"));
        assert!(why("gpu1-3]").contains("`]` without `[`"));
        assert!(why("gpu[[1]]").contains("nested"));
        assert!(why("gpu[5-1]").contains("backwards"));
        assert!(why("gpu[1-99999999999999999999]").contains("too large"));
        assert!(why("n[0-9999999]").contains("more than"));
        assert!(why("a[0-999]b[0-9999]").contains("more than"));
        assert!(why(" , ").contains("no hosts"));
    }

    #[test]
    fn no_input_panics() {
        for list in ["[", "]", "[]", "[-]", "a[,]", "a[1-]", "[1-2][3-4]", "é[1-2]ß", "\u{0}[0]"] {
            let _ = expand(list);
        }
        assert_eq!(expand("[1-2][3-4]").unwrap(), ["13", "14", "23", "24"]);
    }
}
