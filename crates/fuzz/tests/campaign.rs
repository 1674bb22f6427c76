//! The fuzz harness itself: every seed and every kept regression input runs clean through its
//! target, a short campaign on every target finds nothing, and the engine does catch a panic,
//! a broken promise, and keeps the input that caused it.
use fabcheck_fuzz::campaign::{self, Plan};
use fabcheck_fuzz::seeds::Seeds;
use fabcheck_fuzz::targets::{self, Target};
use std::path::{Path, PathBuf};
use std::sync::LazyLock;
use std::sync::atomic::{AtomicU64, Ordering};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

static TARGETS: LazyLock<Vec<Target>> =
    LazyLock::new(|| targets::all(&Seeds::load(&root(), &[]).unwrap()).into_iter().map(as_built).collect());

/// `target` with its limit for a slow input fit to this build: the limits are for the release
/// campaign, and unoptimized code sharing a loaded CI machine with the other tests runs ten to
/// thirty times slower (a capture input took 309 ms so), which is no slow reader.
fn as_built(target: Target) -> Target {
    if cfg!(debug_assertions) {
        let slow = target.slow * 30;
        target.slow_after(slow)
    } else {
        target
    }
}

#[test]
fn every_reader_is_a_target_with_seeds_of_its_own_kind() {
    let names: Vec<&str> = TARGETS.iter().map(|t| t.name.as_str()).collect();
    for source in fabcheck_parse::sources() {
        assert!(names.contains(&source), "parser `{source}` has no target");
    }
    for reader in [
        "inventory.ini",
        "inventory.yaml",
        "inventory.json",
        "ssh_config",
        "known_hosts",
        "revoked_host_keys",
        "policy",
        "snapshot.manifest",
        "snapshot.commands",
    ] {
        assert!(names.contains(&reader), "{reader}");
    }
    for reader in ["device.linux.host", "device.sonic.leaf", "device.nvue.spine", "capture", "sflow", "flow_records"] {
        assert!(names.contains(&reader), "{reader}");
    }
    for t in TARGETS.iter() {
        assert!(!t.seeds.is_empty(), "{} has no seed", t.name);
    }
    let mlnx = TARGETS.iter().find(|t| t.name == "mlnx_qos").unwrap();
    assert!(
        mlnx.seeds.iter().all(|s| String::from_utf8_lossy(s).contains("PFC")),
        "mlnx_qos seeds are mlnx_qos output"
    );
}

#[test]
fn every_seed_and_regression_input_runs_clean() {
    let regressions = Path::new(env!("CARGO_MANIFEST_DIR")).join("regressions");
    let mut replayed = 0;
    for t in TARGETS.iter() {
        for seed in &t.seeds {
            if let Err(f) = campaign::run_one(t, seed) {
                panic!("{} seed: {} {}", t.name, f.kind, f.message);
            }
        }
        for entry in std::fs::read_dir(regressions.join(&t.name)).into_iter().flatten().flatten() {
            let input = std::fs::read(entry.path()).unwrap();
            replayed += 1;
            if let Err(f) = campaign::run_one(t, &input) {
                panic!("{}: {} {}", entry.path().display(), f.kind, f.message);
            }
        }
    }
    assert!(replayed >= 1, "the regression inputs were not found");
}

#[test]
fn a_short_campaign_on_every_target_finds_nothing_and_grows_its_corpus() {
    for t in TARGETS.iter() {
        let outcome = campaign::run(t, Plan { inputs: 300, threads: 2, seed: 20261201 }, &AtomicU64::new(0));
        assert_eq!(outcome.inputs, 300, "{}", t.name);
        let failures: Vec<String> = outcome.failures.iter().map(|f| format!("{} {}", f.kind, f.message)).collect();
        assert!(failures.is_empty(), "{}: {failures:?}", t.name);
        assert!(outcome.features >= 2, "{}: every input had one outcome", t.name);
    }
}

/// A reader that panics past a prefix only the campaign's edits can reach from its seed.
fn booby_trapped() -> Target {
    Target::new(
        "trap",
        64,
        vec![b"bo\nok 1\n".to_vec()],
        Box::new(|input| {
            let text = String::from_utf8_lossy(input);
            if text.contains("ok 18446744073709551616") {
                panic!("boom: counter past u64");
            }
            if text.lines().count() > 40 {
                return Err("more than 40 lines".into());
            }
            Ok(vec![text.lines().count() as u64])
        }),
    )
}

#[test]
fn the_engine_catches_a_panic_and_a_broken_promise_with_their_inputs() {
    let done = AtomicU64::new(0);
    let outcome = campaign::run(&booby_trapped(), Plan { inputs: 200_000, threads: 2, seed: 7 }, &done);
    assert_eq!((done.load(Ordering::Relaxed), outcome.inputs), (200_000, 200_000), "every input counted as it ran");
    let panic = outcome.failures.iter().find(|f| f.kind == "panic").expect("the panic is found");
    assert!(panic.message.starts_with("boom: counter past u64 at crates/fuzz/tests/campaign.rs:"), "{}", panic.message);
    assert!(String::from_utf8_lossy(&panic.input).contains("ok 18446744073709551616"));
    let promise = outcome.failures.iter().find(|f| f.kind == "promise").expect("the broken promise is found");
    assert!(String::from_utf8_lossy(&promise.input).lines().count() > 40);
    assert_eq!(outcome.failures.len(), 2, "one failure per place: {:?}", outcome.failures);
}

#[test]
fn the_command_writes_its_figures_and_replays_kept_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("figures.json");
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_fabcheck-fuzz"))
        .args(["mlnx_qos", "sflow", "--inputs", "2k", "--threads", "1", "--seed", "1", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    // Unattended (stderr is not a terminal), a campaign says how far it is every
    // --progress-every seconds.
    let progress = std::process::Command::new(env!("CARGO_BIN_EXE_fabcheck-fuzz"))
        .args(["mlnx_qos", "--inputs", "200k", "--threads", "1", "--seed", "1", "--progress-every", "0"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&progress.stderr);
    let line =
        stderr.lines().find(|l| l.starts_with("fabcheck-fuzz: mlnx_qos: ")).unwrap_or_else(|| panic!("{stderr}"));
    assert!(line.contains(" of 200000 inputs, ") && line.ends_with(" min left"), "{line}");
    let figures: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let targets = figures["targets"].as_array().unwrap();
    assert_eq!(targets.len(), 2);
    assert_eq!(targets[0]["target"], "mlnx_qos");
    assert_eq!(targets[0]["inputs"], 2000);
    assert!(targets[0]["features"].as_u64().unwrap() > 10);

    let replay = std::process::Command::new(env!("CARGO_BIN_EXE_fabcheck-fuzz"))
        .arg("--replay")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("regressions"))
        .output()
        .unwrap();
    assert!(replay.status.success(), "{}", String::from_utf8_lossy(&replay.stdout));
    assert!(String::from_utf8_lossy(&replay.stdout).contains("inputs replayed, 0 failing"));

    let unknown = std::process::Command::new(env!("CARGO_BIN_EXE_fabcheck-fuzz")).arg("no_such").output().unwrap();
    assert!(!unknown.status.success());
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("no target `no_such`"));
}
