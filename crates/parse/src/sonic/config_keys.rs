//! The small languages inside config DB keys and values: references to other tables' entries,
//! port lists, index ranges and priority lists.

/// A reference to another table's entry, as its plain name: `[DSCP_TO_TC_MAP|AZURE]` (older
/// releases) and `AZURE` (newer ones) both give `AZURE`.
pub(crate) fn reference(v: &str) -> String {
    let v = v.trim();
    let inner = v.strip_prefix('[').and_then(|r| r.strip_suffix(']')).unwrap_or(v);
    match inner.split_once('|') {
        Some((table, name)) if v.starts_with('[') && !table.is_empty() => name.trim().to_string(),
        _ => inner.trim().to_string(),
    }
}

/// A list of references: `[BUFFER_PROFILE|a],[BUFFER_PROFILE|b]` or `a,b`.
pub(crate) fn references(v: &str) -> Vec<String> {
    v.split(',').map(reference).filter(|r| !r.is_empty()).collect()
}

/// The ports and indexes of a `QUEUE`, `BUFFER_PG` or `BUFFER_QUEUE` key: `Ethernet0|3`,
/// `Ethernet0,Ethernet4|0-2`, `Ethernet0|3-4`, and on a VOQ chassis the system port
/// `sonic3|asic0|Ethernet0|3` (kept whole as the port). `None` when malformed.
pub(crate) fn port_indexes(key: &str) -> Option<(Vec<String>, Vec<u8>)> {
    let (ports, indexes) = key.rsplit_once('|')?;
    let ports: Vec<String> = if ports.contains('|') { vec![ports.trim().to_string()] } else { port_list(ports) };
    if ports.is_empty() || ports.iter().any(String::is_empty) {
        return None;
    }
    Some((ports, index_list(indexes)?))
}

/// The ports of a key that may list several: `Ethernet0,Ethernet4` (older releases).
pub(crate) fn port_list(key: &str) -> Vec<String> {
    key.split(',').map(|p| p.trim().to_string()).collect()
}

/// `3`, `3-4`, `0,1,5-6` → the indexes, ascending and without repeats; `None` if any part is not
/// a number or a rising range of numbers up to 255.
pub(crate) fn index_list(v: &str) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    for part in v.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (lo, hi) = part.split_once('-').unwrap_or((part, part));
        let (lo, hi): (u8, u8) = (lo.trim().parse().ok()?, hi.trim().parse().ok()?);
        if lo > hi {
            return None;
        }
        out.extend(lo..=hi);
    }
    out.sort_unstable();
    out.dedup();
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_old_and_new() {
        assert_eq!(reference("[DSCP_TO_TC_MAP|AZURE]"), "AZURE");
        assert_eq!(reference(" AZURE "), "AZURE");
        assert_eq!(reference("[AZURE]"), "AZURE");
        assert_eq!(reference("NULL"), "NULL");
        assert_eq!(references("[BUFFER_PROFILE|a],[BUFFER_PROFILE|b]"), ["a", "b"]);
        assert_eq!(references("a,b,"), ["a", "b"]);
    }

    #[test]
    fn queue_keys() {
        let one = |p: &[&str], i: &[u8]| Some((p.iter().map(|s| s.to_string()).collect::<Vec<_>>(), i.to_vec()));
        assert_eq!(port_indexes("Ethernet0|3"), one(&["Ethernet0"], &[3]));
        assert_eq!(port_indexes("Ethernet0,Ethernet4|0-2"), one(&["Ethernet0", "Ethernet4"], &[0, 1, 2]));
        assert_eq!(port_indexes("sonic3|asic0|Ethernet0|4"), one(&["sonic3|asic0|Ethernet0"], &[4]));
        assert_eq!(port_indexes("Ethernet0|4-3"), None);
        assert_eq!(port_indexes("Ethernet0|x"), None);
        assert_eq!(port_indexes("Ethernet0"), None);
        assert_eq!(port_indexes(",|1"), None);
        assert_eq!(index_list("5, 3-4,4"), Some(vec![3, 4, 5]));
        assert_eq!(index_list(""), Some(vec![]));
        assert_eq!(index_list("0-300"), None);
    }
}
