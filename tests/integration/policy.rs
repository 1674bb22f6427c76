//! The `policy` commands and the first-run hint through the binary on the lab. `policy infer`:
//! the policy a healthy fabric runs is its reference design's, key by key or tighter (and the
//! test says where); the same policy comes out with faults planted, and auditing by it finds each
//! fault and nothing else; a fabric split half and half gets no key for the split; hosts that run
//! RoCE without PFC give a finding, not a lossy policy; a snapshot gives what the live fabric
//! gives. A fabric judged by another design opens its verdict with the hint.

use crate::util::{RunningLab, fabcheck_on, start_design, start_platforms};
use fabcheck::policy::Policy;
use fabcheck::policy::library::Design;
use fabcheck_lab::Platform;
use std::collections::BTreeSet;

/// Every switch platform, so every platform's rendering of the design is read.
const LEAVES: [Platform; 3] = [Platform::Sonic, Platform::Eos, Platform::Nvue];
const SPINES: [Platform; 2] = [Platform::Nxos, Platform::DellOs10];

/// `policy infer` on the lab: its exit code, the policy, and stderr.
fn infer(lab: &RunningLab) -> (i32, Policy, String) {
    let file = lab.dir.path().join(format!("inferred-{}.yaml", std::process::id()));
    let run = fabcheck_on(lab, None, &["policy", "infer"], &["--out", &file.display().to_string()]);
    assert!(run.code == 0 || run.code == 1, "{}{}", run.stdout, run.stderr);
    let text = std::fs::read_to_string(&file).unwrap();
    let policy = Policy::parse(&text, "inferred").unwrap_or_else(|e| panic!("{e}\n{text}"));
    (run.code, policy, run.stderr)
}

/// Where `inferred` differs from `reference`: `Err` where it is looser or other, else the keys
/// where it is tighter (checks more than the reference does).
fn compare(inferred: &Policy, reference: &Policy) -> Result<BTreeSet<String>, String> {
    let mut tighter = BTreeSet::new();
    let mut differ = Vec::new();
    let mut same = |key: &str, equal: bool| {
        if !equal {
            differ.push(key.to_string());
        }
    };
    same("pfc.priorities", inferred.lossless_priorities() == reference.lossless_priorities());
    let (have, want) = (inferred.lossless_classes(), reference.lossless_classes());
    same("lossless classes", have.len() == want.len());
    for w in &want {
        match have.iter().find(|h| h.priority == w.priority) {
            None => same(&format!("class on priority {:?}", w.priority), false),
            Some(h) => {
                same("class traffic_class", h.switch_tc() == w.switch_tc());
                same("class ecn", inferred.class_ecn(h) == reference.class_ecn(w) || reference.class_ecn(w).is_none());
                same("class dscp", w.dscps().iter().all(|d| h.dscps().contains(d)));
                if h.dscps().len() > w.dscps().len() {
                    tighter.insert(format!("class dscp {:?}", h.dscps()));
                }
            }
        }
    }
    match (&inferred.cnp, &reference.cnp) {
        (Some(h), Some(w)) => {
            same("cnp.dscp", h.dscps() == w.dscps());
            same("cnp.traffic_class", h.switch_tc() == w.switch_tc());
            same("cnp.queue", inferred.cnp_queue_strict() == reference.cnp_queue_strict());
            match (h.priority, w.priority) {
                (Some(_), None) => {
                    tighter.insert("cnp.priority".into());
                }
                (have, want) => same("cnp.priority", have == want),
            }
        }
        (None, None) => {}
        _ => same("cnp", false),
    }
    let range = |p: &Policy| p.ecn.as_ref().map(|e| (e.min_threshold_kb, e.max_threshold_kb));
    match (range(inferred), range(reference)) {
        (Some((hmin, hmax)), Some((wmin, wmax))) => {
            for (key, h, w) in [("ecn.min_threshold_kb", hmin, wmin), ("ecn.max_threshold_kb", hmax, wmax)] {
                match (h, w) {
                    (Some([hl, hh]), Some([wl, wh])) => {
                        same(key, wl <= hl && hh <= wh);
                        if [hl, hh] != [wl, wh] {
                            tighter.insert(key.into());
                        }
                    }
                    (_, None) => {}
                    (None, Some(_)) => same(key, false),
                }
            }
        }
        (_, None) => {}
        (None, Some(_)) => same("ecn", false),
    }
    same(
        "pfc.watchdog",
        inferred.pfc.as_ref().and_then(|p| p.watchdog) == reference.pfc.as_ref().and_then(|p| p.watchdog),
    );
    let nic = |p: &Policy| p.nic.clone().unwrap_or_default();
    let (h, w) = (nic(inferred), nic(reference));
    same("nic.trust", h.trust == w.trust);
    same("nic.dcqcn", h.dcqcn == w.dcqcn);
    same("nic.rocev2_gid", h.rocev2_gid == w.rocev2_gid);
    for (key, have, want) in [("nic.mtu", h.mtu, w.mtu), ("nic.min_speed_gbps", h.min_speed_gbps, w.min_speed_gbps)] {
        match (have, want) {
            (Some(_), None) => {
                tighter.insert(key.into());
            }
            (have, want) => same(key, have == want),
        }
    }
    same("host.gdr", inferred.host.as_ref().and_then(|x| x.gdr) == reference.host.as_ref().and_then(|x| x.gdr));
    for (name, rule) in &reference.counters {
        same(&format!("counters.{name}"), inferred.counters.get(name) == Some(rule));
    }
    if differ.is_empty() { Ok(tighter) } else { Err(differ.join(", ")) }
}

/// Per reference design, where the policy inferred from a healthy lab built to it is tighter
/// than the design: what the fleet runs that the design leaves open. The ECN thresholds are the
/// switches' own values within the design's ranges; SONiC's and Cisco's designs say nothing of
/// the hosts' MTU and speed, which the fleet has; Cisco's says nothing of the CNPs' 802.1p
/// priority, which the NICs set. (SONiC and NVUE map DSCP 24-31 to TC 3; EOS, NX-OS and OS10 only
/// the design's DSCPs: so the design's DSCPs alone are the majority's class.)
const TIGHTER: [(&str, &[&str]); 4] = [
    ("roce-lossless-prio3", &["ecn.max_threshold_kb", "ecn.min_threshold_kb"]),
    ("sonic-lossless-3-4", &["ecn.max_threshold_kb", "ecn.min_threshold_kb", "nic.min_speed_gbps", "nic.mtu"]),
    (
        "cisco-nexus-aiml",
        &["cnp.priority", "ecn.max_threshold_kb", "ecn.min_threshold_kb", "nic.min_speed_gbps", "nic.mtu"],
    ),
    ("pfc-only-prio3", &["nic.min_speed_gbps", "nic.mtu"]),
];

/// The faults planted per design: a host's PFC, a host's GPUDirect, and a switch port.
fn planted(design: &str) -> [&'static str; 3] {
    let switch = if design == "pfc-only-prio3" { "leaf2=pfcwd-off" } else { "leaf2=ecn-threshold" };
    ["gpu002=pfc-off", "gpu003=peermem-missing", switch]
}

/// Each reference design: the policy inferred from a healthy lab built to it is the design's,
/// key by key, or tighter where [`TIGHTER`] says; auditing by it is clean.
#[test]
fn a_healthy_fabric_gives_its_design_and_audits_clean_by_it() {
    for (design, tighter) in TIGHTER {
        let lab = start_design(design, 4, &LEAVES, &SPINES, &[]);
        let (code, inferred, stderr) = infer(&lab);
        assert_eq!(code, 0, "{design}: {stderr}");
        let reference = Design::find(design).unwrap().policy().unwrap();
        let got = compare(&inferred, &reference).unwrap_or_else(|e| panic!("{design}: differs from the design at {e}"));
        let expected: BTreeSet<String> = tighter.iter().map(|k| k.to_string()).collect();
        assert_eq!(got, expected, "{design}");
        let file = lab.dir.path().join("healthy.yaml");
        std::fs::write(&file, yaml_of(&lab)).unwrap();
        let run = crate::util::audit(&lab, &["--policy", &file.display().to_string(), "--fail-on", "warning"]);
        assert_eq!(run.code, 0, "{design}: {}{}", run.stdout, run.stderr);
    }
}

/// The inferred policy's text.
fn yaml_of(lab: &RunningLab) -> String {
    let run = fabcheck_on(lab, None, &["policy", "infer"], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout
}

/// Each reference design: faults on a few ports do not move the majority, so the same policy
/// comes out; auditing by it finds each planted fault as an incident's root, and nothing else.
#[test]
fn with_faults_planted_the_same_policy_comes_out_and_finds_each_fault() {
    for (design, _) in TIGHTER {
        let healthy = infer(&start_design(design, 4, &LEAVES, &SPINES, &[])).1;
        let faults = planted(design);
        let lab = start_design(design, 4, &LEAVES, &SPINES, &faults);
        let (code, inferred, stderr) = infer(&lab);
        assert_eq!(code, 0, "{design}: {stderr}");
        assert_eq!(inferred, healthy, "{design}: the faults moved the inferred policy");
        let file = lab.dir.path().join("inferred.yaml");
        std::fs::write(&file, yaml_of(&lab)).unwrap();
        let run = crate::util::audit(&lab, &["--policy", &file.display().to_string()]);
        assert_eq!(run.code, 1, "{design}: {}{}", run.stdout, run.stderr);
        let json = run.json();
        let roots: BTreeSet<String> = json["incidents"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["severity"] != "info")
            .map(|i| format!("{}@{}", i["code"].as_str().unwrap(), i["device"].as_str().unwrap()))
            .collect();
        let switch_root = if design == "pfc-only-prio3" {
            "switch.pfc_watchdog_disabled@leaf2"
        } else {
            "switch.ecn_threshold@leaf2"
        };
        let expected: BTreeSet<String> =
            ["nic.pfc_mismatch@gpu002", "host.gdr_disabled@gpu003", switch_root].map(String::from).into();
        assert_eq!(roots, expected, "{design}: {}", run.stdout);
    }
}

/// Half the hosts with PFC off on both rails: no clear majority, so no PFC key, said on stderr.
#[test]
fn a_fabric_split_half_and_half_gets_no_key_for_the_split() {
    let faults =
        ["gpu001=pfc-off@ens1np0", "gpu001=pfc-off@ens2np0", "gpu002=pfc-off@ens1np0", "gpu002=pfc-off@ens2np0"];
    let lab = start_platforms(4, &[], &[], &faults);
    let (code, inferred, stderr) = infer(&lab);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(inferred.lossless_priorities(), None);
    assert!(stderr.contains("left out pfc.priorities: no clear majority"), "{stderr}");
}

/// Every host running RoCE without PFC: the finding, and no lossy policy.
#[test]
fn hosts_running_roce_without_pfc_give_the_finding_not_a_lossy_policy() {
    let faults: Vec<String> =
        (1..=3).flat_map(|h| ["ens1np0", "ens2np0"].map(|n| format!("gpu{h:03}=pfc-off@{n}"))).collect();
    let faults: Vec<&str> = faults.iter().map(String::as_str).collect();
    let lab = start_platforms(3, &[], &[], &faults);
    let (code, inferred, stderr) = infer(&lab);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("critical infer.lossy_design: the hosts run RoCE with PFC on no priority"), "{stderr}");
    assert_eq!(inferred.lossless_priorities(), None);
    assert!(inferred.lossless_classes().is_empty());
}

/// A fabric built to NVIDIA's design audited by SONiC's: the verdict opens with the hint, which
/// names the design the fabric fits, and the findings are all still there.
#[test]
fn a_fabric_judged_by_another_design_gets_the_hint_naming_its_own() {
    let lab = start_platforms(4, &LEAVES, &SPINES, &[]);
    let run = crate::util::audit(&lab, &["--policy", "sonic-lossless-3-4"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let hint_at =
        run.stdout.find("another design?: the fabric looks built to another design than the policy sonic-lossless-3-4");
    let incidents_at = run.stdout.find(" incidents (");
    assert!(hint_at.is_some() && hint_at < incidents_at, "{}", run.stdout);
    assert!(
        run.stdout.contains("it matches the reference design roce-lossless-prio3 (`--policy roce-lossless-prio3`)")
    );
    assert!(
        run.stdout
            .contains("nic.pfc_mismatch on 8 of 8 host ports: PFC on priorities 3 (the policy: PFC on priorities 3,4)")
    );
    let json = run.json();
    assert_eq!(json["design_hint"]["matches"], serde_json::json!(["roce-lossless-prio3"]));
    assert!(json["findings"].as_array().unwrap().len() > 8, "the findings are reported all the same");
    // Judged by its own design, the same fabric gets no hint.
    let own = crate::util::audit(&lab, &[]);
    assert_eq!(own.code, 0, "{}", own.stdout);
    assert!(!own.stdout.contains("another design?"));
    // Each other design's fabric, judged by the built-in policy, is named as what it is.
    for design in ["sonic-lossless-3-4", "cisco-nexus-aiml", "pfc-only-prio3"] {
        let lab = start_design(design, 4, &LEAVES, &SPINES, &[]);
        let run = crate::util::audit(&lab, &[]);
        assert_eq!(run.json()["design_hint"]["matches"], serde_json::json!([design]), "{design}: {}", run.stdout);
    }
}

/// `policy list`, `show` and `check` through the binary: the library with its sources, a
/// design's file as shipped, and a policy read key by key with its contradictions.
#[test]
fn the_policy_commands_list_show_and_check() {
    let list = crate::util::fabcheck(&["policy", "list"]);
    assert_eq!(list.code, 0, "{}", list.stderr);
    for design in fabcheck::policy::library::LIBRARY {
        assert!(list.stdout.contains(&format!("{}\n  ", design.name)), "{}", list.stdout);
    }
    assert!(list.stdout.contains("source: sonic-buildimage, files/build_templates/qos_config.j2"));
    let show = crate::util::fabcheck(&["policy", "show", "cisco-nexus-aiml"]);
    assert_eq!(show.stdout, std::fs::read_to_string("playbooks/policies/cisco-nexus-aiml.yaml").unwrap());
    let unknown = crate::util::fabcheck(&["policy", "show", "sonic"]);
    assert_eq!(unknown.code, 2);
    assert!(
        unknown.stderr.contains("no built-in policy named `sonic` (built-in: roce-lossless-prio3, sonic-lossless-3-4")
    );

    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let good = crate::util::fabcheck(&["policy", "check", "sonic-lossless-3-4"]);
    assert_eq!(good.code, 0, "{}", good.stderr);
    assert!(good.stdout.contains("lossless[1] ECN"), "{}", good.stdout);
    let odd = write(
        "odd.yaml",
        "roce: { dscp: 26, priority: 3 }\ncnp: { dscp: 48, priority: 3 }\npfc: { priorities: [3] }\n",
    );
    let warned = crate::util::fabcheck(&["policy", "check", &odd]);
    assert_eq!(warned.code, 1);
    assert!(warned.stderr.contains("cnp.priority 3 is also lossless"), "{}", warned.stderr);
    let bad = write("bad.yaml", "lossless: [{ dscp: 3, priority: 3 }, { dscp: 3, priority: 4 }]\n");
    let refused = crate::util::fabcheck(&["policy", "check", &bad]);
    assert_eq!(refused.code, 2);
    assert!(refused.stderr.contains("lossless[1].dscp: DSCP 3 is already in lossless[0]"), "{}", refused.stderr);
}

/// `policy infer --snapshot` reads an earlier audit's evidence as `-i` reads the devices: the
/// same policy.
#[test]
fn infer_from_a_snapshot_gives_what_the_live_fabric_gives() {
    let lab = start_platforms(2, &LEAVES[..1], &SPINES[..1], &["gpu001=pfc-off"]);
    let (_, live, _) = infer(&lab);
    let run = crate::util::audit(&lab, &[]);
    let snapshot = run.out.join("evidence");
    assert!(snapshot.join("manifest.json").exists(), "no evidence in {}", run.out.display());
    let file = lab.dir.path().join("from-snapshot.yaml");
    let again = crate::util::fabcheck(&[
        "policy",
        "infer",
        "--snapshot",
        &snapshot.display().to_string(),
        "--out",
        &file.display().to_string(),
    ]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let saved = Policy::parse(&std::fs::read_to_string(&file).unwrap(), "saved").unwrap();
    assert_eq!(saved, live);
}
