//! ssh's `%` tokens (`percent_expand`) and `${VAR}` (`percent_dollar_expand`), in one pass, as
//! misc.c's `vdollar_percent_expand` reads them.

/// The environment's variables, by name, for `${VAR}`.
pub(crate) type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

/// What an expansion does with a token it has no value for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unknown {
    /// Kept as written (file names, where fabcheck has not every value ssh has).
    Keep,
    /// An error, as in ssh, which refuses to go on.
    Refuse,
}

/// Expands `%x` from `tokens` and `%%`; `${VAR}` from `env` when given (else kept as written).
/// Under [`Unknown::Refuse`], an unknown token, a `%` at the end, an unset variable or a `${`
/// without its `}` is an error saying which, as ssh's are.
pub(crate) fn expand(
    text: &str,
    tokens: &[(char, &str)],
    env: Option<Env<'_>>,
    unknown: Unknown,
) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        rest = &rest[c.len_utf8()..];
        if c == '$'
            && let Some(env) = env
            && let Some(after) = rest.strip_prefix('{')
        {
            let Some((name, tail)) = after.split_once('}') else {
                return Err(format!("the environment variable in `{text}` has no closing `}}`"));
            };
            if name.is_empty() {
                return Err(format!("`{text}` names an environment variable of no name"));
            }
            out.push_str(&env(name).ok_or_else(|| format!("the environment variable ${{{name}}} has no value"))?);
            rest = tail;
            continue;
        }
        if c != '%' {
            out.push(c);
            continue;
        }
        let Some(t) = rest.chars().next() else {
            match unknown {
                Unknown::Keep => out.push('%'),
                Unknown::Refuse => return Err(format!("`{text}` ends in a lone `%`")),
            }
            break;
        };
        rest = &rest[t.len_utf8()..];
        match tokens.iter().find(|(k, _)| *k == t) {
            _ if t == '%' => out.push('%'),
            Some((_, v)) => out.push_str(v),
            None if unknown == Unknown::Keep => {
                out.push('%');
                out.push(t);
            }
            None => return Err(format!("`{text}` has the token %{t}, which ssh does not know there")),
        }
    }
    Ok(out)
}

/// `%C`: the SHA-1 of this host, the remote host, the port, the remote user and the jump host,
/// in hex (`ssh_connection_hash`).
pub(crate) fn connection_hash(parts: &[&str]) -> String {
    use sha1::Digest;
    let mut hash = sha1::Sha1::new();
    parts.iter().for_each(|p| hash.update(p.as_bytes()));
    hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_or_refused() {
        let t = [('h', "gpu01"), ('r', "ops")];
        let keep = |s| expand(s, &t, None, Unknown::Keep).unwrap();
        assert_eq!(keep("~/.ssh/%r@%h"), "~/.ssh/ops@gpu01");
        assert_eq!(keep("100%% %x %"), "100% %x %");
        assert_eq!(keep("${HOME}/%h"), "${HOME}/gpu01", "no environment given: kept");
        let env = |name: &str| (name == "SITE").then(|| "east".to_string());
        let refuse = |s| expand(s, &t, Some(&env), Unknown::Refuse);
        assert_eq!(refuse("/k/${SITE}/%h%%").unwrap(), "/k/east/gpu01%");
        assert_eq!(refuse("%%{SITE}").unwrap(), "%{SITE}", "`%%` first, as ssh reads left to right");
        for (bad, why) in [
            ("%x", "token %x"),
            ("a%", "lone `%`"),
            ("${NOPE}", "${NOPE} has no value"),
            ("${SITE", "no closing"),
            ("${}", "of no name"),
        ] {
            let error = refuse(bad).unwrap_err();
            assert!(error.contains(why), "{bad}: {error}");
        }
    }
}
