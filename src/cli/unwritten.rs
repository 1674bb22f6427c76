//! What a run could not put on disk (evidence, a report, the diff, the drain list, the state).
//!
//! Nothing of it stops the run: every other file is still written and the verdict is still
//! printed. But a run that did not leave all it was asked to leave is not a clean run: each
//! loss is said on stderr at the end, naming the file and the cause, and the exit status is 2,
//! so a scheduler never takes a run without its reports or its state for a pass.

use fabcheck_model::exit_codes;
use fabcheck_report::Written;

/// The losses of one run, in the order they happened.
#[derive(Debug, Default)]
pub struct Unwritten(Vec<String>);

impl Unwritten {
    /// Records that `what` could not be written, with its cause (anyhow's `{:#}` chain).
    pub fn push(&mut self, what: impl Into<anyhow::Error>) {
        self.0.push(format!("{:#}", what.into()));
    }

    /// Records each file of a report set that could not be written.
    pub fn reports(&mut self, written: Written) {
        written.failed.into_iter().for_each(|e| self.push(e));
    }

    /// Whether anything was lost.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `code` when nothing was lost; otherwise says what was not written and returns 2.
    pub fn exit_code(self, code: i32) -> i32 {
        if self.0.is_empty() {
            return code;
        }
        self.say();
        eprintln!("fabcheck: the run's outputs are not all written: exit status 2");
        exit_codes::RUN_ERROR
    }

    /// Says on stderr what was not written, if anything.
    pub fn say(&self) {
        if self.0.is_empty() {
            return;
        }
        for loss in &self.0 {
            eprintln!("fabcheck: error: not written: {loss}");
        }
    }
}
