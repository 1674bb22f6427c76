//! `fabcheck parse SOURCE FILE`: what fabcheck reads from one saved output, as JSON on stdout;
//! skipped lines as warnings on stderr. Exit 2 when the output cannot be parsed at all.

use super::app::ParseArgs;
use crate::out;
use anyhow::Context;
use fabcheck_model::exit_codes;
use std::io::Read;

/// Parses and prints.
pub fn run(args: ParseArgs) -> anyhow::Result<i32> {
    let (name, text) = match args.file.as_deref() {
        None => ("<stdin>".to_string(), read_stdin()?),
        Some(p) if p.as_os_str() == "-" => ("<stdin>".to_string(), read_stdin()?),
        Some(p) => {
            let bytes = std::fs::read(p).with_context(|| format!("reading {}", p.display()))?;
            (p.display().to_string(), String::from_utf8_lossy(&bytes).into_owned())
        }
    };
    let result = fabcheck_parse::parse_to_json(&args.source, &text)
        .with_context(|| format!("unknown source `{}`", args.source))?;
    let parsed = result.map_err(|e| anyhow::anyhow!("{name}: {} output: {e}", args.source))?;
    for w in &parsed.warnings {
        eprintln!("fabcheck: warning: {name}:{}: {}", w.line, w.message);
    }
    let json = serde_json::to_string_pretty(&parsed.value).context("encoding JSON")?;
    out!("{json}")?;
    Ok(exit_codes::CLEAN)
}

fn read_stdin() -> anyhow::Result<String> {
    let mut bytes = Vec::new();
    std::io::stdin().read_to_end(&mut bytes).context("reading standard input")?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}
