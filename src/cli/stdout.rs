//! Standard output carries the report; a closed pipe (`fabcheck parse ... | head`) is not an
//! error: fabcheck stops quietly with status 0, as ripgrep does.

use std::io::{ErrorKind, Write};

/// Writes `text` and a newline to stdout.
pub fn line(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Err(e) if e.kind() == ErrorKind::BrokenPipe => std::process::exit(0),
        other => Ok(other?),
    }
}

/// `println!` for the report on stdout, stopping quietly on a closed pipe.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::stdout::line(&format!($($arg)*))
    };
}
