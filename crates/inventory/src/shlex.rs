//! Splitting a line into words with shell-like quoting.
//!
//! Ansible splits INI host lines with Python's `shlex.split(line, comments=True)` (POSIX
//! mode) and OpenSSH splits ssh_config lines with its own `argv_split`; the two differ only
//! in where `#` starts a comment, so one splitter serves both.

/// Where `#` starts a comment.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Comments {
    /// Anywhere outside quotes, even inside a word (Python's shlex).
    Anywhere,
    /// Only at the start of a word (OpenSSH).
    WordStart,
}

/// Why a line could not be split, with the 1-based column of the culprit.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum SplitError {
    /// A quote opened at this column is never closed.
    UnterminatedQuote(u32),
    /// The line ends in a backslash that escapes nothing.
    TrailingBackslash(u32),
}

/// Splits `line` into words: whitespace separates, `'...'` quotes literally, `"..."` quotes
/// with `\"` and `\\` escapes, and `\` outside quotes escapes the next character.
pub(crate) fn split(line: &str, comments: Comments) -> Result<Vec<String>, SplitError> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars().zip(1u32..).peekable();
    while let Some((c, col)) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '#' if !in_word || comments == Comments::Anywhere => break,
            '\\' => match chars.next() {
                Some((next, _)) => {
                    word.push(next);
                    in_word = true;
                }
                None => return Err(SplitError::TrailingBackslash(col)),
            },
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some(('\'', _)) => break,
                        Some((q, _)) => word.push(q),
                        None => return Err(SplitError::UnterminatedQuote(col)),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some(('"', _)) => break,
                        Some(('\\', _)) => match chars.peek() {
                            Some(&(next @ ('"' | '\\'), _)) => {
                                word.push(next);
                                chars.next();
                            }
                            _ => word.push('\\'),
                        },
                        Some((q, _)) => word.push(q),
                        None => return Err(SplitError::UnterminatedQuote(col)),
                    }
                }
            }
            c => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(line: &str) -> Vec<String> {
        split(line, Comments::Anywhere).unwrap()
    }

    #[test]
    fn words_and_quotes() {
        assert_eq!(sh("gpu01  a=1\tb=2"), ["gpu01", "a=1", "b=2"]);
        assert_eq!(sh(r#"h k="quoted value" k3='x y'"#), ["h", "k=quoted value", "k3=x y"]);
        assert_eq!(sh(r#"h k="a \"b\" \\ \n""#), ["h", r#"k=a "b" \ \n"#]);
        assert_eq!(sh(r"h k='a\b'"), ["h", r"k=a\b"]);
        assert_eq!(sh(r"h k=a\ b"), ["h", "k=a b"]);
        assert_eq!(sh("h k=''"), ["h", "k="]);
        assert_eq!(sh("h ''"), ["h", ""]);
        assert_eq!(sh(r#"h k="'03#pa33w0rd'""#), ["h", "k='03#pa33w0rd'"]);
    }

    #[test]
    fn comments() {
        assert_eq!(sh("h a=1 # note"), ["h", "a=1"]);
        assert_eq!(sh("h a=1#note"), ["h", "a=1"]);
        assert_eq!(sh("# all comment"), Vec::<String>::new());
        let ssh = split("IdentityFile a#b # c", Comments::WordStart).unwrap();
        assert_eq!(ssh, ["IdentityFile", "a#b"]);
    }

    #[test]
    fn errors_point_at_the_quote() {
        assert_eq!(split(r#"h k="open"#, Comments::Anywhere), Err(SplitError::UnterminatedQuote(5)));
        assert_eq!(split("h k='open", Comments::Anywhere), Err(SplitError::UnterminatedQuote(5)));
        assert_eq!(split(r"h k=\", Comments::Anywhere), Err(SplitError::TrailingBackslash(5)));
    }
}
