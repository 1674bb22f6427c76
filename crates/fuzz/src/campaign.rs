//! A campaign on one target: its seeds first, then mutated inputs, in this process, on every
//! thread asked for. A panic is caught and kept with its input; so is a broken promise (the
//! target's own check) and an input slower than the target allows. An input whose outcome has a feature
//! not seen before ([`crate::shape`]) joins the corpus that later inputs are made from.

use crate::mutate::{Mutator, dictionary};
use crate::targets::Target;
use rustc_hash::FxHashSet as HashSet;
use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Once;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The corpus each thread keeps at most (inputs with a new feature beyond it replace others).
const CORPUS_LIMIT: usize = 4096;

/// What a campaign asks.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    /// Inputs to run, seeds included, over all threads.
    pub inputs: u64,
    /// Threads.
    pub threads: usize,
    /// Seed of the mutators (thread `t` uses `seed + t`).
    pub seed: u64,
}

/// An input that made the target panic, break a promise, or run slow.
#[derive(Debug, Clone)]
pub struct Failure {
    /// `panic`, `promise` or `slow`.
    pub kind: &'static str,
    /// The panic's message and place, the promise broken, or the time taken.
    pub message: String,
    /// The input.
    pub input: Vec<u8>,
}

/// What a campaign did.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    /// Inputs run.
    pub inputs: u64,
    /// Distinct outcome features seen.
    pub features: usize,
    /// Corpus size at the end (the largest thread's).
    pub corpus: usize,
    /// Wall time.
    pub elapsed: Duration,
    /// The slowest input's time.
    pub slowest: Duration,
    /// Distinct failures (one per panic place or message), first input kept.
    pub failures: Vec<Failure>,
}

impl Outcome {
    /// Inputs per second.
    pub fn rate(&self) -> f64 {
        self.inputs as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

thread_local! {
    /// The last panic's message and place on this thread, set by the hook.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
    /// Whether this thread is running a reader on an input (its panics are the campaign's).
    static READING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Replaces the panic hook, once, by one that keeps a reader's message for the campaign instead
/// of printing it (a campaign may catch millions); any other panic, a test's failed assertion
/// among them, is printed as before.
fn quiet_panics() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let printing = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !READING.with(std::cell::Cell::get) {
                return printing(info);
            }
            let place = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
            let message = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_default();
            LAST_PANIC.with(|p| *p.borrow_mut() = Some(format!("{message}{place}")));
        }));
    });
}

/// Runs one input: its features, or the failure.
pub fn run_one(target: &Target, input: &[u8]) -> Result<Vec<u64>, Failure> {
    quiet_panics();
    let start = Instant::now();
    let result = read(target, input);
    let took = start.elapsed();
    let failure = |kind, message| Failure { kind, message, input: input.to_vec() };
    match result {
        Err(_) => Err(failure("panic", LAST_PANIC.with(|p| p.borrow_mut().take()).unwrap_or_default())),
        Ok(Err(promise)) => Err(failure("promise", promise)),
        Ok(Ok(_))
            if took > target.slow
                && let Some(least) = slow_again(target, input) =>
        {
            Err(failure("slow", format!("{} ms, the least of 3 runs", least.as_millis())))
        }
        Ok(Ok(features)) => Ok(features),
    }
}

/// Runs the reader on `input`, catching its panic, with the hook keeping the message.
fn read(target: &Target, input: &[u8]) -> std::thread::Result<Result<Vec<u64>, String>> {
    READING.with(|r| r.set(true));
    let result = catch_unwind(AssertUnwindSafe(|| (target.run)(input)));
    READING.with(|r| r.set(false));
    result
}

/// The least of two more runs of an input that was slow once, if it is slow again: a campaign
/// shares the machine, and a thread descheduled mid-input is not a slow reader.
fn slow_again(target: &Target, input: &[u8]) -> Option<Duration> {
    let least = (0..2)
        .map(|_| {
            let start = Instant::now();
            let _ = read(target, input);
            start.elapsed()
        })
        .min()?;
    (least > target.slow).then_some(least)
}

/// Runs `plan` on `target`, counting the inputs run so far in `done` (for a progress line).
pub fn run(target: &Target, plan: Plan, done: &AtomicU64) -> Outcome {
    let start = Instant::now();
    let per_thread = plan.inputs.div_ceil(plan.threads.max(1) as u64);
    let dictionary = dictionary(&target.seeds, 4096);
    let results: Vec<ThreadOutcome> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..plan.threads.max(1))
            .map(|t| {
                let mutator = Mutator::new(plan.seed.wrapping_add(t as u64), target.max_len, dictionary.clone());
                let inputs = per_thread.min(plan.inputs.saturating_sub(per_thread * t as u64));
                scope.spawn(move || thread(target, mutator, inputs, done))
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("a campaign thread catches its panics")).collect()
    });
    let mut outcome = Outcome { elapsed: start.elapsed(), ..Outcome::default() };
    let mut features = HashSet::default();
    for r in results {
        outcome.inputs += r.inputs;
        outcome.corpus = outcome.corpus.max(r.corpus);
        outcome.slowest = outcome.slowest.max(r.slowest);
        features.extend(r.features);
        for f in r.failures {
            if !outcome.failures.iter().any(|known| known.key() == f.key()) {
                outcome.failures.push(f);
            }
        }
    }
    outcome.features = features.len();
    outcome
}

impl Failure {
    /// Two failures are one when they are of a kind and panic at the same place (or break the
    /// same promise); every slow input of a target is one failure.
    fn key(&self) -> (&'static str, String) {
        let place = match self.kind {
            "slow" => String::new(),
            _ => self.message.rsplit_once(" at ").map_or(self.message.clone(), |(_, p)| p.to_string()),
        };
        (self.kind, place)
    }
}

struct ThreadOutcome {
    inputs: u64,
    corpus: usize,
    slowest: Duration,
    features: HashSet<u64>,
    failures: Vec<Failure>,
}

fn thread(target: &Target, mut mutator: Mutator, inputs: u64, done: &AtomicU64) -> ThreadOutcome {
    let mut corpus: Vec<Vec<u8>> = target.seeds.clone();
    if corpus.is_empty() {
        corpus.push(Vec::new());
    }
    let mut out =
        ThreadOutcome { inputs: 0, corpus: 0, slowest: Duration::ZERO, features: HashSet::default(), failures: vec![] };
    let mut input = Vec::new();
    // Failures are kept one per place: a common panic is not copied a million times.
    let mut failed: HashSet<(&'static str, String)> = HashSet::default();
    // Whether the input was new: a feature never seen.
    let mut record = |out: &mut ThreadOutcome, input: &[u8]| -> bool {
        out.inputs += 1;
        done.fetch_add(1, Ordering::Relaxed);
        let start = Instant::now();
        let result = run_one(target, input);
        out.slowest = out.slowest.max(start.elapsed());
        match result {
            Ok(features) => features.into_iter().fold(false, |new, f| out.features.insert(f) | new),
            Err(f) => {
                if failed.insert(f.key()) {
                    out.failures.push(f);
                }
                false
            }
        }
    };
    for seed in target.seeds.iter().take(inputs as usize) {
        record(&mut out, seed);
    }
    while out.inputs < inputs {
        let base = mutator.below(corpus.len());
        let other = mutator.below(corpus.len());
        mutator.mutate(&corpus[base], &corpus[other], &mut input);
        if record(&mut out, &input) {
            if corpus.len() < CORPUS_LIMIT {
                corpus.push(input.clone());
            } else {
                // Seeds stay; a found input replaces another found one.
                let found = corpus.len() - target.seeds.len().min(corpus.len() - 1);
                let slot = corpus.len() - 1 - mutator.below(found);
                corpus[slot].clone_from(&input);
            }
        }
    }
    out.corpus = corpus.len();
    out
}
