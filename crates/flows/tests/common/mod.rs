//! What the flow tests share: the real captures of a fixture folder.
use std::path::{Path, PathBuf};

/// The `.pcap` files of `tests/fixtures/<folder>`, in name order; `count` is how many its
/// SOURCES.md lists, so a capture that goes missing fails the tests rather than thinning them.
pub fn captures(folder: &str, count: usize) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(folder);
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pcap"))
        .collect();
    files.sort();
    assert_eq!(files.len(), count, "every capture of {folder}/SOURCES.md");
    files
}
