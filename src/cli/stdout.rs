//! Standard output carries the report. A closed pipe (`fabcheck audit ... | head -1`) is not an
//! error and does not change the outcome: what is left to print is dropped, the run goes on
//! and its exit status still says whether findings reached `--fail-on` (a CI step that pipes
//! the verdict into `head` must not pass a failing audit).

use std::io::{ErrorKind, IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once stdout is found closed: nothing more is written.
static CLOSED: AtomicBool = AtomicBool::new(false);

/// Writes `text` and a newline to stdout.
pub fn line(text: &str) -> anyhow::Result<()> {
    if CLOSED.load(Ordering::Relaxed) {
        return Ok(());
    }
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Err(e) if e.kind() == ErrorKind::BrokenPipe => {
            CLOSED.store(true, Ordering::Relaxed);
            Ok(())
        }
        other => Ok(other?),
    }
}

/// ANSI colours for the terminal summary: on a terminal, unless `NO_COLOR` is set (no-color.org).
pub fn colour() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// `text` in the colour of a severity or verdict (`critical`, `error`, `fail`: red; `warning`,
/// `warn`: yellow; `pass`: green), when [`colour`] says so.
pub fn paint(text: &str, kind: &str) -> String {
    let code = match kind {
        "critical" | "error" | "fail" => "31",
        "warning" | "warn" => "33",
        "pass" => "32",
        _ => return text.to_string(),
    };
    if colour() { format!("\x1b[{code}m{text}\x1b[0m") } else { text.to_string() }
}

/// `println!` for the report on stdout; a closed pipe drops the rest quietly.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::stdout::line(&format!($($arg)*))
    };
}
