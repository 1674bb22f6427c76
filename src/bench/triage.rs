//! Network or compute (a host fast alone over NVLink but slow across hosts is the network; a host
//! slow alone is its GPUs, NVLink or memory: NVIDIA NCCL troubleshooting): each host also runs alone, and the verdict on a slow multi-host
//! run says which side it is on.

use super::env::NcclFacts;
use fabcheck_model::Finding;

/// Findings that say a run over several hosts was slow.
const SLOW: [&str; 2] = ["nccl.busbw_low", "nccl.straggler"];

/// Adds the side to every slow multi-host verdict among `findings`: the compute side of the hosts
/// on its path that were slow alone too (their `nccl.intra_node_slow` becomes its cause), else
/// the network, every host being fast alone.
pub fn name_the_side(findings: &mut [Finding], slow_alone: &[String]) {
    for f in findings.iter_mut().filter(|f| SLOW.contains(&f.code.as_str())) {
        let on_path: Vec<&String> = slow_alone.iter().filter(|h| f.path.contains(h) || f.device == **h).collect();
        if on_path.is_empty() {
            f.message.push_str(if slow_alone.is_empty() {
                "; every host is fast alone (intra-node healthy): the network side"
            } else {
                "; the hosts of this run are fast alone (intra-node healthy): the network side"
            });
        } else {
            let names: Vec<&str> = on_path.iter().map(|h| h.as_str()).collect();
            f.message.push_str(&format!(
                "; {} slow alone too (nccl.intra_node_slow): the compute side (GPU, NVLink, PCIe), not the network",
                names.join(", ")
            ));
            if !f.caused_by.iter().any(|c| c == "nccl.intra_node_slow") {
                f.caused_by.push("nccl.intra_node_slow".into());
            }
        }
    }
}

/// What the host's `nvidia-smi topo -m` says about its GPUs' links, when it stands out: a host
/// whose GPUs lack NVLink between some pair while the cluster's have it.
pub fn topology_hint(facts: &NcclFacts, host: &str) -> String {
    let topo_read = facts.near_gpus.contains_key(host);
    match (facts.typical_nvlinks(), facts.nvlinks.get(host)) {
        (Some(typical), None) if topo_read => {
            format!(
                "; nvidia-smi topo -m shows GPUs without NVLink between them where the other hosts have NV{typical}"
            )
        }
        (Some(typical), Some(links)) if *links < typical => {
            format!("; nvidia-smi topo -m shows NV{links} between some GPUs where the other hosts have NV{typical}")
        }
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fabcheck_model::Severity;

    fn slow_run(path: &[&str]) -> Finding {
        let mut f = Finding::new("nccl.busbw_low", Severity::Error, path[0], "all hosts: bus bandwidth 20.1 GB/s");
        f.path = path.iter().map(|h| h.to_string()).collect();
        f
    }

    #[test]
    fn fast_alone_everywhere_is_the_network() {
        let mut findings = vec![slow_run(&["gpu1", "gpu2"])];
        name_the_side(&mut findings, &[]);
        assert!(findings[0].message.ends_with("the network side"), "{}", findings[0].message);
        assert!(findings[0].caused_by.is_empty());
    }

    #[test]
    fn a_host_slow_alone_is_the_compute_side_and_the_cause() {
        let mut findings = vec![slow_run(&["gpu1", "gpu2", "gpu3"]), slow_run(&["gpu4", "gpu5"])];
        name_the_side(&mut findings, &["gpu2".to_string()]);
        assert!(findings[0].message.contains("gpu2 slow alone too"), "{}", findings[0].message);
        assert_eq!(findings[0].caused_by, ["nccl.intra_node_slow"]);
        assert!(findings[1].message.ends_with("the network side"), "{}", findings[1].message);
    }

    #[test]
    fn a_host_without_the_clusters_nvlinks_is_pointed_at() {
        let mut facts = NcclFacts::default();
        for h in ["gpu1", "gpu2", "gpu3"] {
            facts.near_gpus.insert(h.into(), Default::default());
        }
        facts.nvlinks.insert("gpu1".into(), 18);
        facts.nvlinks.insert("gpu2".into(), 18);
        assert!(topology_hint(&facts, "gpu3").contains("without NVLink"));
        assert_eq!(topology_hint(&facts, "gpu1"), "");
        assert_eq!(topology_hint(&facts, "gpu9"), "", "no topology read: nothing to say");
    }
}
