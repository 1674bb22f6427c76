//! The Kubernetes recipes as shipped (`deploy/k8s/`), read as the API server would take them:
//! every document a known kind and version with its required fields; the claim the Jobs mount
//! defined; the namespace's Pod Security level the pods need (hostNetwork and host paths need
//! `privileged`); a deadline on every Job; the node-problem-detector plugin's rule naming the
//! script shipped beside it, and that script keeping NPD's protocol (one line, exit 0, 1 or 2)
//! when run. Not a validation against the Kubernetes OpenAPI schema, which this machine has no
//! copy of.

use serde_json::Value;
use std::path::Path;

fn deploy(path: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/k8s").join(path)
}

/// Every YAML document of the recipe files, in apply order.
fn documents() -> Vec<Value> {
    ["fabcheck-shared.yaml", "fabcheck-nodes.yaml", "fabcheck-merge.yaml"]
        .iter()
        .flat_map(|f| {
            let text = std::fs::read_to_string(deploy(f)).unwrap();
            text.split("\n---\n")
                .map(|doc| serde_saphyr::from_str::<Value>(doc).unwrap_or_else(|e| panic!("{f}: {e}")))
                .collect::<Vec<_>>()
        })
        .collect()
}

fn of_kind<'a>(docs: &'a [Value], kind: &str) -> Vec<&'a Value> {
    docs.iter().filter(|d| d["kind"] == kind).collect()
}

#[test]
fn the_recipes_define_what_they_use_and_bound_their_time() {
    let docs = documents();
    for d in &docs {
        let known = matches!(
            (d["apiVersion"].as_str(), d["kind"].as_str()),
            (Some("v1"), Some("Namespace" | "PersistentVolumeClaim")) | (Some("batch/v1"), Some("Job"))
        );
        assert!(known, "unknown kind: {} {}", d["apiVersion"], d["kind"]);
        assert!(d["metadata"]["name"].is_string(), "{d}");
    }
    let namespace = of_kind(&docs, "Namespace")[0];
    let ns = namespace["metadata"]["name"].as_str().unwrap();
    let claims: Vec<&str> =
        of_kind(&docs, "PersistentVolumeClaim").iter().map(|c| c["metadata"]["name"].as_str().unwrap()).collect();
    for claim in of_kind(&docs, "PersistentVolumeClaim") {
        assert_eq!(claim["spec"]["accessModes"][0], "ReadWriteMany", "every node writes, one merge reads");
    }
    let jobs = of_kind(&docs, "Job");
    assert_eq!(jobs.len(), 2);
    for job in jobs {
        let name = job["metadata"]["name"].as_str().unwrap();
        assert_eq!(job["metadata"]["namespace"], ns, "{name}");
        assert!(job["spec"]["activeDeadlineSeconds"].as_u64().is_some_and(|s| s > 0), "{name}: no deadline");
        let pod = &job["spec"]["template"]["spec"];
        assert_eq!(pod["restartPolicy"], "Never", "{name}");
        for volume in pod["volumes"].as_array().unwrap() {
            if let Some(claim) = volume["persistentVolumeClaim"]["claimName"].as_str() {
                assert!(claims.contains(&claim), "{name} mounts the undefined claim {claim}");
            }
        }
        let host_access =
            pod["hostNetwork"] == true || pod["volumes"].as_array().unwrap().iter().any(|v| v["hostPath"].is_object());
        if host_access {
            assert_eq!(
                namespace["metadata"]["labels"]["pod-security.kubernetes.io/enforce"], "privileged",
                "{name} uses the host's network or paths, which the baseline level forbids"
            );
        }
        for container in pod["containers"].as_array().unwrap() {
            let security = &container["securityContext"];
            assert_eq!(security["allowPrivilegeEscalation"], false, "{name}");
            assert_eq!(security["capabilities"]["drop"][0], "ALL", "{name}");
        }
    }
    // The per-node Job names each snapshot as Kubernetes names the node.
    let nodes = docs.iter().find(|d| d["metadata"]["name"] == "fabcheck-nodes").unwrap();
    let args = nodes["spec"]["template"]["spec"]["containers"][0]["args"][0].as_str().unwrap();
    assert!(args.contains("--local-name \"$NODE_NAME\""), "{args}");
    let merge = docs.iter().find(|d| d["metadata"]["name"] == "fabcheck-merge").unwrap();
    let args = merge["spec"]["template"]["spec"]["containers"][0]["args"][0].as_str().unwrap();
    assert!(args.contains("--expect-nodes="), "{args}");
}

#[test]
fn the_node_problem_detector_plugin_keeps_its_protocol() {
    let config: Value =
        serde_json::from_str(&std::fs::read_to_string(deploy("node-problem-detector/fabcheck-plugin.json")).unwrap())
            .unwrap();
    assert_eq!(config["plugin"], "custom");
    let rule = &config["rules"][0];
    assert_eq!(rule["condition"], config["conditions"][0]["type"]);
    let script = rule["path"].as_str().unwrap().rsplit('/').next().unwrap().to_string();
    let path = deploy("node-problem-detector").join(&script);
    assert!(path.exists(), "the rule names {script}, which is not shipped");

    let (code, stdout) = crate::util::run_node_check(&path, &[("NODE_NAME", "gpu-node-7"), ("FABCHECK_WINDOW", "0")]);
    assert!(stdout.starts_with("fabcheck: gpu-node-7: "), "{stdout}");
    let max = config["pluginConfig"]["max_output_length"].as_u64().unwrap() as usize;
    assert!(stdout.len() <= max, "longer than NPD keeps: {stdout}");
    assert!(matches!(code, 0..=2), "{code}");
    if std::fs::read_dir("/sys/class/infiniband").map(|d| d.count()).unwrap_or(0) == 0 {
        assert_eq!((code, stdout.as_str()), (1, "fabcheck: gpu-node-7: fabcheck error collect.no_rdma_ports"));
    }
}
