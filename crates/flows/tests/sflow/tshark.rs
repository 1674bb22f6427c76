//! tshark, the independent dissector: fields of the frames of a capture, each frame's values of a
//! field in dissection order (a datagram's samples, a sample's headers). tshark (Debian package
//! `tshark`) must be installed: `.ci/run` installs it.
use std::path::Path;
use std::process::Command;

/// For every frame of `file` that `filter` keeps, each of `fields`: its values, in order.
pub fn fields(file: &Path, filter: &str, fields: &[&str]) -> Vec<Vec<Vec<String>>> {
    let mut cmd = Command::new("tshark");
    cmd.arg("-r").arg(file).args(["-Y", filter, "-T", "fields", "-E", "separator=|", "-E", "occurrence=a"]);
    for f in fields {
        cmd.args(["-e", f]);
    }
    let out = cmd.output().unwrap_or_else(|e| panic!("tshark is needed for this test (apt-get install tshark): {e}"));
    assert!(out.status.success(), "tshark on {}: {}", file.display(), String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            line.split('|')
                .map(|values| values.split(',').filter(|v| !v.is_empty()).map(String::from).collect())
                .collect()
        })
        .collect()
}

/// A tshark number: decimal, or hexadecimal with `0x`.
pub fn number(s: &str) -> u64 {
    match s.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).unwrap(),
        None => s.parse().unwrap_or_else(|_| panic!("number `{s}`")),
    }
}

/// Numbers of one field.
pub fn numbers(values: &[String]) -> Vec<u64> {
    values.iter().map(|v| number(v)).collect()
}
