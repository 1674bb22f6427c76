//! The Kubernetes recipes as shipped (`deploy/k8s/`), read as the API server would take them:
//! every document a known kind and version with its required fields; the claim the Jobs mount
//! defined; the namespace's Pod Security level the pods need (hostNetwork and host paths need
//! `privileged`); a deadline on every Job; the node-problem-detector plugin's rule naming the
//! script shipped beside it, and that script keeping NPD's protocol (one line, exit 0, 1 or 2)
//! when run; and every file valid against the Kubernetes API's own schema, strictly (no unknown
//! field), for each release from 1.25 to 1.37, by `kubernetes-validate` (PyPI), which carries
//! the JSON schemas generated from Kubernetes' OpenAPI document of each release.

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

/// The Kubernetes releases the recipes are validated against: every one `kubernetes-validate`
/// 1.37 carries a schema for.
const KUBERNETES_RELEASES: std::ops::RangeInclusive<u32> = 25..=37;

/// Runs `kubernetes-validate --strict` on `files` against release 1.`minor`; `None` when the
/// validator is not installed (which CI=true refuses: `.ci/run` installs it from PyPI).
fn validate(minor: u32, files: &[std::path::PathBuf]) -> Option<(bool, String)> {
    let run = std::process::Command::new("kubernetes-validate")
        .args(["--strict", "--quiet", "-k", &format!("1.{minor}")])
        .args(files)
        .output();
    let Ok(run) = run else {
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "CI=true but kubernetes-validate is missing: .ci/run must install it (pip install kubernetes-validate)"
        );
        return None;
    };
    let said = format!("{}{}", String::from_utf8_lossy(&run.stdout), String::from_utf8_lossy(&run.stderr));
    Some((run.status.success(), said))
}

/// The files as shipped are what the API server accepts, field by field, in every release from
/// 1.25 to 1.37; and the same validator refuses a copy with one field misspelt, so a pass means
/// the schema was applied.
#[test]
fn the_recipes_are_valid_against_the_kubernetes_api_schema() {
    let files: Vec<_> = ["fabcheck-shared.yaml", "fabcheck-nodes.yaml", "fabcheck-merge.yaml"].map(deploy).into();
    for minor in KUBERNETES_RELEASES {
        let Some((valid, said)) = validate(minor, &files) else { return };
        assert!(valid, "Kubernetes 1.{minor} refuses the recipes:\n{said}");
    }
    let dir = tempfile::tempdir().unwrap();
    let misspelt = dir.path().join("fabcheck-nodes.yaml");
    let shipped = std::fs::read_to_string(deploy("fabcheck-nodes.yaml")).unwrap();
    assert!(shipped.contains("hostNetwork: true"));
    std::fs::write(&misspelt, shipped.replace("hostNetwork: true", "hostNetwerk: true")).unwrap();
    let (valid, said) = validate(*KUBERNETES_RELEASES.end(), &[misspelt]).unwrap();
    assert!(!valid && said.contains("'hostNetwerk' was unexpected"), "{said}");
}
