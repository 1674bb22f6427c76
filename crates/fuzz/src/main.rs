//! `fabcheck-fuzz`: the fuzz campaign as a command. See docs/development.md, "Fuzzing".
use anyhow::{Context, bail};
use clap::Parser;
use fabcheck_fuzz::campaign::{self, Failure, Outcome, Plan};
use fabcheck_fuzz::seeds::Seeds;
use fabcheck_fuzz::targets::{self, Target};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Fuzzes fabcheck's readers in-process, seeded from the checkout's real samples.
#[derive(Parser)]
#[command(version)]
struct Args {
    /// Targets to run (all when none; see --list). A name ending in `*` matches its prefix.
    targets: Vec<String>,
    /// Inputs per target, seeds included (`10M`, `500k`).
    #[arg(long, default_value = "1M", value_parser = count)]
    inputs: u64,
    /// Threads per target (default: every core).
    #[arg(long)]
    threads: Option<usize>,
    /// The mutators' seed: the same seed, inputs and threads replay the same campaign.
    #[arg(long)]
    seed: Option<u64>,
    /// An evidence snapshot to seed from as well (repeatable): its outputs seed their parsers,
    /// its devices the facts stage.
    #[arg(long = "seeds", value_name = "DIR")]
    snapshots: Vec<PathBuf>,
    /// The fabcheck checkout whose fixtures seed the campaign.
    #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))]
    root: PathBuf,
    /// Where each failing input is written, as TARGET/KIND-HASH (with a .txt saying why).
    #[arg(long, default_value = "target/fuzz-failures")]
    failures: PathBuf,
    /// Replays every file of DIR/TARGET/ through TARGET instead of fuzzing (the regression
    /// inputs).
    #[arg(long, value_name = "DIR")]
    replay: Option<PathBuf>,
    /// Also writes the figures as JSON.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Lists the targets and their seed counts.
    #[arg(long)]
    list: bool,
    /// Seconds between progress lines on stderr when it is not a terminal (a terminal gets a
    /// bar).
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    progress_every: u64,
}

fn count(text: &str) -> Result<u64, String> {
    let (digits, scale) = match text.char_indices().last() {
        Some((i, 'k' | 'K')) => (&text[..i], 1_000),
        Some((i, 'M' | 'm')) => (&text[..i], 1_000_000),
        Some((i, 'G' | 'g')) => (&text[..i], 1_000_000_000),
        _ => (text, 1),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .ok_or_else(|| format!("`{text}` is not a count (1000, 500k, 10M)"))
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let seeds = Seeds::load(&args.root, &args.snapshots)?;
    let chosen = select(targets::all(&seeds), &args.targets)?;
    if args.list {
        for t in &chosen {
            println!("{:<24} {:>5} seeds  inputs within {} bytes", t.name, t.seeds.len(), t.max_len);
        }
        return Ok(());
    }
    if let Some(dir) = &args.replay {
        return replay(&chosen, dir);
    }
    let threads = args.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
    });
    println!("fabcheck-fuzz: {} targets, {} inputs each, {threads} threads, --seed {seed}", chosen.len(), args.inputs);
    println!(
        "{:<24} {:>12} {:>9} {:>10} {:>7} {:>7} {:>9}  failures",
        "target", "inputs", "seconds", "inputs/s", "features", "corpus", "slowest"
    );
    let mut figures = Vec::new();
    let mut failed = 0;
    for target in &chosen {
        let plan = Plan { inputs: args.inputs, threads, seed };
        let every = Duration::from_secs(args.progress_every);
        let outcome = with_progress(&target.name, args.inputs, every, |done| campaign::run(target, plan, done));
        println!(
            "{:<24} {:>12} {:>9.1} {:>10.0} {:>7} {:>7} {:>7}ms  {}",
            target.name,
            outcome.inputs,
            outcome.elapsed.as_secs_f64(),
            outcome.rate(),
            outcome.features,
            outcome.corpus,
            outcome.slowest.as_millis(),
            outcome.failures.len()
        );
        for failure in &outcome.failures {
            let path = keep(&args.failures, &target.name, failure)?;
            println!("  {} {}: {}", failure.kind, path.display(), failure.message);
        }
        failed += outcome.failures.len();
        figures.push(serde_json::json!({
            "target": target.name,
            "inputs": outcome.inputs,
            "seconds": outcome.elapsed.as_secs_f64(),
            "inputs_per_second": outcome.rate(),
            "features": outcome.features,
            "corpus": outcome.corpus,
            "slowest_ms": outcome.slowest.as_secs_f64() * 1000.0,
            "failures": outcome.failures.iter().map(|f| serde_json::json!({"kind": f.kind, "message": f.message})).collect::<Vec<_>>(),
        }));
        // After every target: a long campaign stopped early still has its figures.
        if let Some(path) = &args.json {
            let summary = serde_json::json!({"seed": seed, "threads": threads, "inputs_per_target": args.inputs, "targets": figures});
            std::fs::write(path, serde_json::to_vec_pretty(&summary)?).with_context(|| path.display().to_string())?;
        }
    }
    if failed > 0 {
        bail!("{failed} failing inputs, kept in {}", args.failures.display());
    }
    Ok(())
}

/// Runs `campaign` while showing how far it is: a bar on a terminal; otherwise a line every
/// `every` on stderr, since a long campaign runs unattended into a log.
fn with_progress(name: &str, total: u64, every: Duration, campaign: impl FnOnce(&AtomicU64) -> Outcome) -> Outcome {
    let done = AtomicU64::new(0);
    let (finished, stop) = std::sync::mpsc::channel::<()>();
    std::thread::scope(|scope| {
        let done = &done;
        scope.spawn(move || watch(name, total, every, done, stop));
        let outcome = campaign(done);
        drop(finished);
        outcome
    })
}

/// Shows `done` of `total` until `stop` disconnects.
fn watch(name: &str, total: u64, every: Duration, done: &AtomicU64, stop: std::sync::mpsc::Receiver<()>) {
    let start = Instant::now();
    let bar = std::io::stderr().is_terminal().then(|| {
        let style = ProgressStyle::with_template("{prefix:<24} {bar:30} {human_pos}/{human_len} {per_sec} eta {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar());
        ProgressBar::new(total).with_style(style).with_prefix(name.to_string())
    });
    let mut last_line = Instant::now();
    while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = stop.recv_timeout(Duration::from_millis(200)) {
        let n = done.load(Ordering::Relaxed);
        match &bar {
            Some(bar) => bar.set_position(n),
            None if last_line.elapsed() >= every => {
                last_line = Instant::now();
                let rate = n as f64 / start.elapsed().as_secs_f64().max(1e-9);
                let left = total.saturating_sub(n) as f64 / rate.max(1e-9) / 60.0;
                eprintln!("fabcheck-fuzz: {name}: {n} of {total} inputs, {rate:.0}/s, about {left:.0} min left");
            }
            None => {}
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
}

/// The targets named (all when none), or an error naming the unknown one.
fn select(all: Vec<Target>, names: &[String]) -> anyhow::Result<Vec<Target>> {
    if names.is_empty() {
        return Ok(all);
    }
    let matches = |t: &Target, n: &String| match n.strip_suffix('*') {
        Some(prefix) => t.name.starts_with(prefix),
        None => t.name == *n,
    };
    if let Some(unknown) = names.iter().find(|n| !all.iter().any(|t| matches(t, n))) {
        bail!("no target `{unknown}` (see --list)");
    }
    Ok(all.into_iter().filter(|t| names.iter().any(|n| matches(t, n))).collect())
}

/// Writes a failing input and why, named by its content so that a re-found input is one file.
fn keep(dir: &Path, target: &str, failure: &Failure) -> anyhow::Result<PathBuf> {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    failure.input.hash(&mut h);
    let dir = dir.join(target);
    std::fs::create_dir_all(&dir).with_context(|| dir.display().to_string())?;
    let path = dir.join(format!("{}-{:016x}", failure.kind, h.finish()));
    std::fs::write(&path, &failure.input).with_context(|| path.display().to_string())?;
    std::fs::write(path.with_extension("txt"), &failure.message)?;
    Ok(path)
}

/// Runs every input kept under `dir/TARGET/` (but the `.txt` notes) through its target.
fn replay(targets: &[Target], dir: &Path) -> anyhow::Result<()> {
    let mut failed = 0;
    let mut replayed = 0;
    for target in targets {
        let Ok(entries) = std::fs::read_dir(dir.join(&target.name)) else { continue };
        for path in entries.flatten().map(|e| e.path()).filter(|p| p.extension().is_none_or(|e| e != "txt")) {
            let input = std::fs::read(&path).with_context(|| path.display().to_string())?;
            replayed += 1;
            if let Err(f) = campaign::run_one(target, &input) {
                failed += 1;
                println!("{} {}: {}", f.kind, path.display(), f.message);
            }
        }
    }
    println!("{replayed} inputs replayed, {failed} failing");
    if failed > 0 {
        bail!("{failed} of {replayed} regression inputs fail");
    }
    Ok(())
}
