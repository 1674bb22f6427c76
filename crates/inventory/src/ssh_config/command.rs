//! ssh_config's `KnownHostsCommand`: what to run for a host's keys, made into an argument vector
//! as ssh makes it (`load_hostkeys_command` in sshconnect.c): the line split by `argv_split`
//! (quotes and backslash escapes, no shell), then every argument but the program expanded, with
//! the client's tokens, the call's own (`%H` `%I` `%t` `%f` `%K`) and `${VAR}`.

use super::host_keys::ConfigLine;
use super::tokens::{Env, expand};

/// One host's `KnownHostsCommand`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownHostsCommand {
    /// The command as written: the rest of its line.
    pub command: String,
    /// The client's tokens for this host (`%C %d %h %i %j %k %L %l %n %p %r %u`), resolved.
    pub tokens: Vec<(char, String)>,
    /// Where it is set.
    pub set_at: ConfigLine,
}

impl KnownHostsCommand {
    /// The argument vector of one call: `call` gives the call's own tokens, `env` the
    /// environment's variables. An error refuses the host: an unknown token or an unset
    /// variable, as in ssh; unbalanced quotes or no program, where ssh runs nothing and goes on
    /// with no keys from the command (a line that cannot be run is refused, not passed over).
    pub fn argv(&self, call: &[(char, &str)], env: Env<'_>) -> Result<Vec<String>, String> {
        let at = format!("KnownHostsCommand at {}:{}", self.set_at.file, self.set_at.line);
        let mut argv = argv_split(&self.command).ok_or_else(|| format!("{at} has unbalanced quotes"))?;
        if argv.is_empty() {
            return Err(format!("{at} gives no program to run"));
        }
        let mut tokens: Vec<(char, &str)> = self.tokens.iter().map(|(k, v)| (*k, v.as_str())).collect();
        tokens.extend_from_slice(call);
        for arg in &mut argv[1..] {
            *arg = expand(arg, &tokens, Some(env)).map_err(|e| format!("{at}: {e}"))?;
        }
        Ok(argv)
    }
}

/// Splits `s` into arguments as ssh's `argv_split` does (without ending at a comment): blanks
/// (space, tab) separate, `'` and `"` quote, and a backslash escapes a quote, a backslash, or
/// (outside quotes) a space, and is kept before anything else. `None` for an unclosed quote.
pub(crate) fn argv_split(s: &str) -> Option<Vec<String>> {
    let mut argv = Vec::new();
    let mut chars = s.chars().peekable();
    loop {
        while chars.next_if(|c| *c == ' ' || *c == '\t').is_some() {}
        if chars.peek().is_none() {
            return Some(argv);
        }
        let (mut arg, mut quote) = (String::new(), None);
        while let Some(c) = chars.next() {
            match (c, quote) {
                ('\\', _) => match chars.peek() {
                    Some(&next @ ('\'' | '"' | '\\')) => {
                        arg.push(next);
                        chars.next();
                    }
                    Some(' ') if quote.is_none() => {
                        arg.push(' ');
                        chars.next();
                    }
                    _ => arg.push('\\'),
                },
                (' ' | '\t', None) => break,
                ('"' | '\'', None) => quote = Some(c),
                (c, Some(q)) if c == q => quote = None,
                (c, _) => arg.push(c),
            }
        }
        if quote.is_some() {
            return None;
        }
        argv.push(arg);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(text: &str) -> KnownHostsCommand {
        KnownHostsCommand {
            command: text.into(),
            tokens: vec![('h', "10.0.0.1".into()), ('n', "gpu01".into())],
            set_at: ConfigLine { file: "cfg".into(), line: 4 },
        }
    }

    #[test]
    fn split_as_ssh_splits() {
        let split = |s| argv_split(s).unwrap();
        assert_eq!(split("  /bin/k  a\tb "), ["/bin/k", "a", "b"]);
        assert_eq!(split(r#"/bin/k "a b" 'c "d"' e\ f"#), ["/bin/k", "a b", "c \"d\"", "e f"]);
        assert_eq!(split(r#"/bin/k a\"b \\ x\y "q\ r""#), ["/bin/k", "a\"b", "\\", "x\\y", "q\\ r"]);
        assert_eq!(split(r#"/bin/k a""b # c"#), ["/bin/k", "ab", "#", "c"], "no comment in a command");
        assert_eq!(split(""), Vec::<String>::new());
        assert_eq!(argv_split("/bin/k 'open"), None);
    }

    #[test]
    fn the_program_is_not_expanded_and_every_argument_is() {
        let env = |name: &str| (name == "SITE").then(|| "east".to_string());
        let argv = command("/opt/%n/keys %n %h %H %I ${SITE} 100%%").argv(&[('H', "gpu01"), ('I', "ORDER")], &env);
        assert_eq!(argv.unwrap(), ["/opt/%n/keys", "gpu01", "10.0.0.1", "gpu01", "ORDER", "east", "100%"]);
        for (text, why) in [
            ("/bin/k %Z", "cfg:4: `%Z` has the token %Z"),
            ("/bin/k ${UNSET_HERE}", "${UNSET_HERE} has no value"),
            ("/bin/k 'x", "unbalanced quotes"),
            ("   ", "no program"),
        ] {
            let error = command(text).argv(&[], &env).unwrap_err();
            assert!(error.contains(why), "{text}: {error}");
        }
    }
}
