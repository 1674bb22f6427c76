//! ssh's `%` tokens (`percent_expand`) and `${VAR}` (`percent_dollar_expand`), in one pass, as
//! misc.c's `vdollar_percent_expand` reads them.

/// The environment's variables, by name, for `${VAR}`.
pub(crate) type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

/// Expands `%x` from `tokens` and `%%`, and `${VAR}` from `env` when given (else kept as
/// written, as in ssh's `percent_expand`). As in ssh, a token not in `tokens`, a `%` at the end,
/// an unset variable or a `${` without its `}` is an error, saying which.
pub(crate) fn expand(text: &str, tokens: &[(char, &str)], env: Option<Env<'_>>) -> Result<String, String> {
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
            return Err(format!("`{text}` ends in a lone `%`"));
        };
        rest = &rest[t.len_utf8()..];
        match tokens.iter().find(|(k, _)| *k == t) {
            _ if t == '%' => out.push('%'),
            Some((_, v)) => out.push_str(v),
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
    fn expanded_or_refused() {
        let t = [('h', "gpu01"), ('r', "ops")];
        assert_eq!(expand("~/.ssh/%r@%h 100%%", &t, None).unwrap(), "~/.ssh/ops@gpu01 100%");
        assert_eq!(expand("${HOME}/%h", &t, None).unwrap(), "${HOME}/gpu01", "no environment given: kept");
        let env = |name: &str| (name == "SITE").then(|| "east".to_string());
        let refuse = |s| expand(s, &t, Some(&env));
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
        assert!(expand("%x", &t, None).unwrap_err().contains("token %x"), "refused without an environment too");
    }
}
