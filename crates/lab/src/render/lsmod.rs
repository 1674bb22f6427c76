//! `lsmod` (kmod): `Module                  Size  Used by`, then `printf("%-19s %8ld  %d", name,
//! size, refcnt)` and ` holder,holder` per module, most recently loaded first.
//!
//! Sizes, reference counts and holder lists are those of real GPU/RDMA hosts (a GPUDirect
//! troubleshooting note: `nvidia_peermem 16384 0`, `ib_uverbs 200704 3 nvidia_peermem,rdma_ucm,
//! mlx5_ib`, `nvidia 54292480 63 nvidia_uvm,nvidia_peermem,nvidia_modeset`; a GPU-operator guide:
//! `ib_core 348160 9 rdma_cm,ib_ipoib,nvidia_peermem,iw_cm,ib_umad,rdma_ucm,ib_uverbs,mlx5_ib,ib_cm`;
//! upstream 6.x mlx5 hosts: `mlx5_core`, `mlxfw 36864 1 mlx5_core`). A holder is listed (and
//! counted) only when it is loaded, so removing `nvidia_peermem` also drops it from the `Used by`
//! lists of `ib_core`, `ib_uverbs` and `nvidia`, as on a real host. `modprobe` loads any module
//! listed here (the cure for `peermem-missing`).

use super::common::KERNEL_RELEASE;
use crate::shell::{Output, not_simulated};
use crate::state::LabHost;
use std::fmt::Write as _;

/// A module the lab knows: size, references that are not modules (open devices), holders in the
/// order `/sys/module/*/holders` lists them.
struct Known {
    name: &'static str,
    size: u64,
    other_refs: u32,
    holders: &'static [&'static str],
}

const KNOWN: &[Known] = &[
    Known { name: "nvidia_peermem", size: 16384, other_refs: 0, holders: &[] },
    Known { name: "nv_peer_mem", size: 16384, other_refs: 0, holders: &[] },
    Known { name: "rdma_ucm", size: 32768, other_refs: 0, holders: &[] },
    Known { name: "ib_ipoib", size: 159744, other_refs: 0, holders: &[] },
    Known { name: "ib_umad", size: 45056, other_refs: 0, holders: &[] },
    Known { name: "mlx5_ib", size: 495616, other_refs: 0, holders: &[] },
    Known { name: "ib_uverbs", size: 208896, other_refs: 0, holders: &["nvidia_peermem", "rdma_ucm", "mlx5_ib"] },
    Known { name: "rdma_cm", size: 147456, other_refs: 0, holders: &["rdma_ucm"] },
    Known { name: "iw_cm", size: 57344, other_refs: 0, holders: &["rdma_cm"] },
    Known { name: "ib_cm", size: 151552, other_refs: 0, holders: &["rdma_cm", "ib_ipoib"] },
    Known {
        name: "ib_core",
        size: 552960,
        other_refs: 0,
        holders: &[
            "rdma_cm",
            "ib_ipoib",
            "nvidia_peermem",
            "nv_peer_mem",
            "iw_cm",
            "ib_umad",
            "rdma_ucm",
            "ib_uverbs",
            "mlx5_ib",
            "ib_cm",
        ],
    },
    Known { name: "nvidia_uvm", size: 4956160, other_refs: 0, holders: &[] },
    Known { name: "nvidia_drm", size: 122880, other_refs: 0, holders: &[] },
    Known { name: "nvidia_modeset", size: 1355776, other_refs: 0, holders: &["nvidia_drm"] },
    Known {
        name: "nvidia",
        size: 54292480,
        other_refs: 60,
        holders: &["nvidia_uvm", "nvidia_peermem", "nv_peer_mem", "nvidia_modeset"],
    },
    Known { name: "mlx5_core", size: 2478080, other_refs: 0, holders: &["mlx5_ib"] },
    Known { name: "mlxfw", size: 36864, other_refs: 0, holders: &["mlx5_core"] },
    Known { name: "psample", size: 20480, other_refs: 0, holders: &["mlx5_core"] },
    Known { name: "tls", size: 155648, other_refs: 0, holders: &["mlx5_core"] },
    Known { name: "pci_hyperv_intf", size: 12288, other_refs: 0, holders: &["mlx5_core"] },
];

/// Modules every lab host has besides the state's (the rest of the RDMA and NVIDIA stacks, which
/// no fault removes), each printed just before the state module named second, or last.
const BACKGROUND: &[(&str, &str)] = &[
    ("rdma_ucm", "mlx5_ib"),
    ("ib_ipoib", "mlx5_ib"),
    ("ib_umad", "mlx5_ib"),
    ("rdma_cm", "ib_core"),
    ("iw_cm", "ib_core"),
    ("ib_cm", "ib_core"),
    ("nvidia_drm", "nvidia"),
    ("nvidia_modeset", "nvidia"),
    ("psample", ""),
    ("tls", ""),
    ("pci_hyperv_intf", ""),
];

/// The loaded modules in lsmod order: the state's, with the background ones inserted.
fn loaded(host: &LabHost) -> Vec<String> {
    let mut list: Vec<String> = Vec::new();
    for m in &host.modules {
        for (bg, before) in BACKGROUND {
            if before == m && !host.modules.iter().any(|s| s == bg) {
                list.push(bg.to_string());
            }
        }
        list.push(m.clone());
    }
    for (bg, before) in BACKGROUND {
        if !list.iter().any(|s| s == bg) && !host.modules.iter().any(|s| s == before) {
            list.push(bg.to_string());
        }
    }
    list
}

/// `modprobe MODULE` (kmod): loads a module the host has (`-` and `_` alike in its name), silently
/// and with status 0 when it is loaded already; the newly loaded module comes first in `lsmod`,
/// as the most recently loaded one does. A module the host does not have, a missing name or module
/// parameters are kmod's errors (status 1); options (`-r` ...) are not simulated.
pub(crate) fn modprobe(host: &LabHost, args: &[String]) -> Output {
    let (module, params) = match args {
        [] => return Output::fail(1, "", "modprobe: ERROR: missing parameters. See -h.\n"),
        [option, ..] if option.starts_with('-') => return not_simulated("modprobe", option),
        [module, params @ ..] => (module, params),
    };
    let name = module.replace('-', "_");
    let Some(known) = KNOWN.iter().find(|k| k.name == name) else {
        return Output::fail(
            1,
            "",
            format!("modprobe: FATAL: Module {module} not found in directory /lib/modules/{KERNEL_RELEASE}\n"),
        );
    };
    if !params.is_empty() {
        // None of these modules takes the parameters given.
        return Output::fail(
            1,
            "",
            format!(
                "modprobe: ERROR: could not insert '{}': Unknown symbol in module, or unknown parameter (see dmesg)\n",
                known.name
            ),
        );
    }
    if loaded(host).iter().any(|m| m == known.name) {
        return Output::ok("");
    }
    let mut changed = host.clone();
    changed.modules.insert(0, known.name.to_string());
    Output { changed: Some(Box::new(changed)), ..Output::ok("") }
}

/// `lsmod`.
pub(crate) fn render(host: &LabHost) -> Output {
    let list = loaded(host);
    let mut s = String::from("Module                  Size  Used by\n");
    for name in &list {
        let known = KNOWN.iter().find(|k| k.name == name);
        let size = known.map_or(16384, |k| k.size);
        let holders: Vec<&str> = known
            .map(|k| k.holders.iter().copied().filter(|h| list.iter().any(|l| l == h)).collect())
            .unwrap_or_default();
        let refs = known.map_or(0, |k| k.other_refs) + holders.len() as u32;
        let _ = write!(s, "{name:<19} {size:>8}  {refs}");
        if !holders.is_empty() {
            let _ = write!(s, " {}", holders.join(","));
        }
        s.push('\n');
    }
    Output::ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::healthy_host;
    use crate::faults::{Fault, apply};

    #[test]
    fn rows_have_the_real_columns() {
        let out = render(&healthy_host(0)).stdout;
        assert!(out.starts_with("Module                  Size  Used by\nnvidia_peermem         16384  0\n"));
        assert!(out.contains("\nnvidia              54292480  63 nvidia_uvm,nvidia_peermem,nvidia_modeset\n"));
        assert!(out.contains("\nib_uverbs             208896  3 nvidia_peermem,rdma_ucm,mlx5_ib\n"));
    }

    #[test]
    fn parses_back_and_peermem_missing_shows() {
        let mut host = healthy_host(0);
        let p = fabcheck_parse::linux::lsmod::parse(&render(&host).stdout).expect("parses");
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        for m in &host.modules {
            assert!(p.value.has(m), "{m}");
        }
        apply(&mut host, &"gpu001=peermem-missing".parse::<Fault>().unwrap()).unwrap();
        let p = fabcheck_parse::linux::lsmod::parse(&render(&host).stdout).unwrap();
        assert!(!p.value.has("nvidia_peermem"));
        let core = p.value.modules.iter().find(|m| m.name == "ib_core").unwrap();
        assert_eq!(core.used_by_count as usize, core.used_by.len());
        assert!(!core.used_by.iter().any(|u| u == "nvidia_peermem"));
        let nvidia = p.value.modules.iter().find(|m| m.name == "nvidia").unwrap();
        assert_eq!((nvidia.used_by_count, nvidia.used_by.len()), (62, 2));
    }
}
