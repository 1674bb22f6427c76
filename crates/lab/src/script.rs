//! What a lab host's `sh -c SCRIPT` runs: Debian's `/bin/sh` (dash), for the subset a script of
//! simple commands needs. The script is cut into commands at unquoted `;` and line ends; in each,
//! `$?` is the last command's exit status, a trailing `>&2` (or `1>&2`) sends its output to
//! stderr, and `printf` is the builtin (`\n`, `\t`, `\\`, octal `\NNN`; `%s`, `%d`, `%%`, the
//! format reused while arguments remain). Every other command runs as the host's login shell runs
//! it ([`crate::shell`]), with dash's own message for a command it cannot find
//! (`sh: 1: foo: not found`, status 127).

use crate::shell::{Mark, Output};
use std::time::Duration;

/// Runs `script`, each command through `run` (given the command line and how long the script
/// has been running), and joins their outputs as the script prints them over time.
pub(crate) fn run(script: &str, mut run: impl FnMut(&str, Duration) -> Output) -> Output {
    let mut joined = Output::default();
    let mut at = Duration::ZERO;
    let mut status = 0;
    for (line, command) in commands(script) {
        let expanded = with_status(&command, status);
        let (text, to_stderr) = redirected(&expanded);
        let mut out = match printf_args(text) {
            Some(args) => printf(&args),
            None => dash_messages(run(text, at), line),
        };
        if to_stderr {
            out.stderr.insert_str(0, &std::mem::take(&mut out.stdout));
            for mark in &mut out.marks {
                (mark.stdout, mark.stderr) = (0, mark.stderr + mark.stdout);
            }
        }
        let (o, e) = (joined.stdout.len(), joined.stderr.len());
        joined.marks.extend(out.marks.iter().map(|m| Mark {
            at: at + m.at,
            stdout: o + m.stdout,
            stderr: e + m.stderr,
        }));
        at += out.duration();
        joined.stdout.push_str(&out.stdout);
        joined.stderr.push_str(&out.stderr);
        joined.marks.push(Mark { at, stdout: joined.stdout.len(), stderr: joined.stderr.len() });
        status = out.status;
        if out.hangs {
            joined.hangs = true;
            return joined;
        }
    }
    joined.status = status;
    if at.is_zero() {
        joined.marks.clear();
    }
    joined
}

/// The script's commands, each with the line it is on (from 1): cut at unquoted `;` and line
/// ends, comments dropped, blanks skipped.
fn commands(script: &str) -> Vec<(usize, String)> {
    let mut commands = Vec::new();
    let mut line = 1;
    let mut current = String::new();
    let mut quote: Option<char> = None;
    let mut chars = script.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some('\''), '\'') | (Some('"'), '"') => quote = None,
            (Some('"'), '\\') => {
                current.push(c);
                if let Some(next) = chars.next() {
                    current.push(next);
                }
                continue;
            }
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '\\') => {
                current.push(c);
                if let Some(next) = chars.next() {
                    current.push(next);
                }
                continue;
            }
            (None, '#') if current.is_empty() || current.ends_with([' ', '\t']) => {
                while chars.next_if(|&c| c != '\n').is_some() {}
                continue;
            }
            (None, ';' | '\n') => {
                commands.push((line, std::mem::take(&mut current)));
                line += usize::from(c == '\n');
                continue;
            }
            (None, _) => {}
        }
        current.push(c);
    }
    commands.push((line, current));
    commands.into_iter().filter(|(_, c)| !c.trim().is_empty()).collect()
}

/// `command` with each `$?` outside single quotes replaced by `status`.
fn with_status(command: &str, status: u32) -> String {
    let mut out = String::with_capacity(command.len());
    let mut single = false;
    let mut double = false;
    let mut chars = command.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '\\' if !single => {
                out.push(c);
                if let Some(next) = chars.next() {
                    out.push(next);
                }
                continue;
            }
            '$' if !single && chars.peek() == Some(&'?') => {
                chars.next();
                out.push_str(&status.to_string());
                continue;
            }
            _ => {}
        }
        out.push(c);
    }
    out
}

/// The command without a trailing `>&2` / `1>&2`, and whether it had one.
fn redirected(command: &str) -> (&str, bool) {
    let trimmed = command.trim_end();
    for suffix in [" 1>&2", " >&2"] {
        if let Some(rest) = trimmed.strip_suffix(suffix) {
            return (rest, true);
        }
    }
    (command, false)
}

/// The arguments of a `printf` command, quotes removed; `None` for any other command.
fn printf_args(command: &str) -> Option<Vec<String>> {
    let args = crate::shell::bash_args(command).ok()?;
    (args.first().map(String::as_str) == Some("printf")).then(|| args[1..].to_vec())
}

/// dash's `printf` builtin.
fn printf(args: &[String]) -> Output {
    let Some((format, mut rest)) = args.split_first() else {
        return Output::fail(2, "", "sh: 1: printf: usage: printf format [arg ...]\n");
    };
    let mut out = String::new();
    loop {
        let used = format_once(format, &mut rest, &mut out);
        if rest.is_empty() || !used {
            break;
        }
    }
    Output::ok(out)
}

/// One pass of `format` over `args` (taking those it uses) into `out`; whether it used any.
fn format_once(format: &str, args: &mut &[String], out: &mut String) -> bool {
    let mut used = false;
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('\\') => out.push('\\'),
                Some(d @ '0'..='7') => {
                    let mut value = d.to_digit(8).unwrap_or(0);
                    for _ in 0..2 {
                        match chars.peek().and_then(|c| c.to_digit(8)) {
                            Some(v) => {
                                value = value * 8 + v;
                                chars.next();
                            }
                            None => break,
                        }
                    }
                    out.push(char::from_u32(value).unwrap_or('\u{fffd}'));
                }
                Some(other) => {
                    out.push('\\');
                    out.push(other);
                }
                None => out.push('\\'),
            },
            '%' => match chars.next() {
                Some('%') => out.push('%'),
                Some('s' | 'd') => {
                    used = true;
                    if let Some((first, rest)) = args.split_first() {
                        out.push_str(first);
                        *args = rest;
                    }
                }
                Some(other) => {
                    out.push('%');
                    out.push(other);
                }
                None => out.push('%'),
            },
            c => out.push(c),
        }
    }
    used
}

/// bash's "not found" messages as dash prints them on line `line` of its script.
fn dash_messages(out: Output, line: usize) -> Output {
    match crate::shell::not_found_name(&out) {
        Some(name) => Output::fail(127, out.stdout.clone(), format!("sh: {line}: {name}: not found\n")),
        None => out,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn echo(command: &str, _at: Duration) -> Output {
        match command.trim() {
            "fail" => Output::fail(3, "", "failed\n"),
            "missing" => Output::fail(127, "", "bash: missing: command not found\n"),
            other => Output::ok(format!("ran {other}\n")),
        }
    }

    #[test]
    fn commands_run_in_order_with_status_redirects_and_printf() {
        let script =
            "a 'x;y'; fail; printf '\\n\\036t %s %s\\n' 0 $?; printf '\\n\\036t %s\\n' 0 >&2; missing\n# note\nb";
        let out = run(script, echo);
        assert_eq!(out.stdout, "ran a 'x;y'\n\n\x1et 0 3\nran b\n");
        assert_eq!(out.stderr, "failed\n\n\x1et 0\nsh: 1: missing: not found\n");
        assert_eq!((out.status, out.marks.len(), out.hangs), (0, 0, false));
    }

    #[test]
    fn single_quotes_keep_dollar_question_and_printf_reuses_its_format() {
        assert_eq!(with_status("echo '$?' \"$?\" $?", 7), "echo '$?' \"7\" 7");
        assert_eq!(printf(&["%s-".into(), "a".into(), "b".into()]).stdout, "a-b-");
        assert_eq!(printf(&["100%% \\t\\\\".into()]).stdout, "100% \t\\");
    }

    /// A command that takes time shifts the later ones; one that hangs ends the script there.
    #[test]
    fn time_taken_and_hangs_carry_over() {
        let slow = |command: &str, at: Duration| match command.trim() {
            "slow" => Output {
                stdout: "s\n".into(),
                marks: vec![Mark { at: Duration::from_secs(2), stdout: 2, stderr: 0 }],
                ..Output::default()
            },
            "hang" => Output { hangs: true, ..Output::default() },
            _ => Output::ok(format!("at {}\n", at.as_secs())),
        };
        let out = run("slow; after; hang; never", slow);
        assert_eq!(out.stdout, "s\nat 2\n");
        assert!(out.hangs);
        assert_eq!(out.duration(), Duration::from_secs(2));
    }
}
