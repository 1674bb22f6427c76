//! `lsmod`: loaded kernel modules (GPUDirect RDMA needs `nvidia_peermem` or the older
//! `nv_peer_mem`; RDMA needs `mlx5_ib`/`ib_core`).
//!
//! Format: a `Module Size Used by` header, then `name size count [user,user,...]` per module.
//! Variants: a `| grep` excerpt without the header, older tools that end the user list with a
//! comma, `-` or `[permanent]` in the user column (not users: dropped). Other lines, and a last
//! line without a line end (a cut capture), are warnings.

use crate::lines::{cut_line_skipped, numbered, unrecognised};
use crate::{ParseError, ParseResult, ParseWarning, Parsed};
pub use fabcheck_model::host::lsmod::{Lsmod, Module};

/// Parses the output of `lsmod`.
pub fn parse(text: &str) -> ParseResult<Lsmod> {
    let mut out = Lsmod::default();
    let mut warnings = Vec::new();
    let mut header = false;
    // One buffer for the words of every line, not a new list per line.
    let mut fields: Vec<&str> = Vec::new();
    for l in numbered(text) {
        let (n, t) = (l.n, l.text);
        fields.clear();
        fields.extend(t.split_whitespace());
        if fields == ["Module", "Size", "Used", "by"] {
            header = true;
            continue;
        }
        let message = if !l.ended {
            cut_line_skipped(t)
        } else if let Some(m) = module(&fields) {
            out.modules.push(m);
            continue;
        } else {
            unrecognised(t)
        };
        warnings.push(ParseWarning::at(n, message));
    }
    if out.modules.is_empty() && !header {
        return Err(ParseError::at(0, "not lsmod output: no header and no module lines"));
    }
    Ok(Parsed { value: out, warnings })
}

fn module(fields: &[&str]) -> Option<Module> {
    let (name, size, count, users) = match fields {
        [name, size, count] => (name, size, count, ""),
        [name, size, count, users] => (name, size, count, *users),
        _ => return None,
    };
    let valid = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    if !name.chars().all(valid) {
        return None;
    }
    Some(Module {
        name: name.to_string(),
        size: size.parse().ok()?,
        used_by_count: count.parse().ok()?,
        used_by: users
            .split(',')
            .filter(|u| !u.is_empty() && *u != "-" && !u.starts_with('['))
            .map(String::from)
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str =
        include_str!("../../tests/fixtures/lsmod/ubuntu2404-v100s-nvidia580-peermem-mlx5-grep-vectorflow-gx.txt");

    #[test]
    fn header_old_trailing_comma_permanent_and_wrapped_users() {
        let text = "Module                  Size  Used by\nnv_peer_mem            16384  0\nib_core               241664 11\n    rdma_cm,ib_cm,nv_peer_mem\nmlx5_ib               561152  0 mlx4_ib,\nnf_tables             237568  1 [permanent]\nbridge                 0  0 -\n";
        let p = parse(text).unwrap();
        let l = &p.value;
        assert!(l.has("nv_peer_mem"));
        assert!(l.has("nv-peer-mem"));
        assert!(!l.has("nvidia_peermem"));
        assert_eq!(l.modules[1].used_by_count, 11);
        assert_eq!(l.modules[2].used_by, ["mlx4_ib"]);
        assert!(l.modules[3].used_by.is_empty());
        assert!(l.modules[4].used_by.is_empty());
        assert_eq!(p.warnings.len(), 1);
        assert_eq!(p.warnings[0].line, 4);
    }

    #[test]
    fn header_only_is_empty_and_cut_line_is_skipped() {
        assert!(parse("Module                  Size  Used by\n").unwrap().value.modules.is_empty());
        let p = parse("nvidia_peermem         16384  0\nnvidia              1041").unwrap();
        assert_eq!(p.value.modules.len(), 1);
        assert_eq!(p.warnings[0].line, 2);
    }

    #[test]
    fn rejects_empty_and_foreign_input() {
        assert!(parse("").is_err());
        assert!(parse("\n\n").is_err());
        assert!(parse("  98:  0  0  IR-PCI-MSI 1572865-edge  mlx5_comp0@pci:0000:03:00.0\n").is_err());
    }

    crate::lines::parser_never_panics!(parse, SAMPLE);
}
