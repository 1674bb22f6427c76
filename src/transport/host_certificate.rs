//! Whether a host certificate signed by an authority listed for the host is valid for it now:
//! the checks of OpenSSH's `sshkey_cert_check_host` (sshkey.c), which ssh runs once known_hosts
//! has vouched for the signer.

use super::known_hosts::glob_exact;
use russh::keys::ssh_key::certificate::CertType;
use russh::keys::{Certificate, HashAlg, PublicKey};

/// ssh's default `CASignatureAlgorithms`: every signature but ssh-rsa, whose SHA-1 can be forged.
const DEFAULT_CA_SIGNATURES: &[&str] = &[
    "ssh-ed25519",
    "ecdsa-sha2-nistp256",
    "ecdsa-sha2-nistp384",
    "ecdsa-sha2-nistp521",
    "sk-ssh-ed25519@openssh.com",
    "sk-ecdsa-sha2-nistp256@openssh.com",
    "rsa-sha2-512",
    "rsa-sha2-256",
];

/// Judges `certificate`, signed by `authority`, for `principal` (the host in lower case, or its
/// `HostKeyAlias`) at `now` (seconds since 1970), its signature one that `signatures` allows
/// (ssh_config's `CASignatureAlgorithms`, `None` for ssh's default); `Err` says what is wrong, to
/// follow "its certificate".
pub fn judge(
    certificate: &Certificate,
    authority: &PublicKey,
    principal: &str,
    signatures: Option<&str>,
    now: u64,
) -> Result<(), String> {
    if certificate.cert_type() != CertType::Host {
        return Err("is a user certificate, not a host's".into());
    }
    let signature = certificate.signature().algorithm();
    if !signature_allowed(signatures, signature.as_str()) {
        let allowed = signatures.map_or("ssh's default: all but ssh-rsa".to_string(), |l| format!("`{l}`"));
        return Err(format!("is signed with {signature}, which CASignatureAlgorithms ({allowed}) does not allow"));
    }
    if now < certificate.valid_after() {
        return Err(format!("is not valid before {} (Unix time)", certificate.valid_after()));
    }
    if now >= certificate.valid_before() {
        return Err(format!("expired at {} (Unix time)", certificate.valid_before()));
    }
    let fingerprint = authority.fingerprint(HashAlg::Sha256);
    if certificate.validate_at(now, [&fingerprint]).is_err() {
        return Err("is not signed by that authority's key (a bad signature)".into());
    }
    if !certificate.critical_options().is_empty() {
        let options: Vec<&str> = certificate.critical_options().keys().map(String::as_str).collect();
        return Err(format!("has critical options ({}), which no host certificate may have", options.join(", ")));
    }
    // A host certificate without principals was valid for any host before OpenSSH 10.3; ssh
    // refuses it now, and so does fabcheck.
    let principals = certificate.valid_principals();
    if !principals.iter().any(|p| glob_exact(p, principal)) {
        let listed = if principals.is_empty() { "none".to_string() } else { principals.join(", ") };
        return Err(format!("is not for {principal} (its principals: {listed})"));
    }
    Ok(())
}

/// Whether `CASignatureAlgorithms` as written (`list`, ssh's default when `None`) allows the
/// signature `name`: a list replaces the default, `+list` and `^list` add to it, `-list` takes
/// from it; names may be `*`/`?` patterns.
fn signature_allowed(list: Option<&str>, name: &str) -> bool {
    let in_default = DEFAULT_CA_SIGNATURES.contains(&name);
    let Some(list) = list else { return in_default };
    let named = |names: &str| names.split(',').any(|p| glob_exact(p, name));
    match list.as_bytes().first() {
        Some(b'+' | b'^') => in_default || named(&list[1..]),
        Some(b'-') => in_default && !named(&list[1..]),
        _ => named(list),
    }
}

/// Certificates made by OpenSSH's ssh-keygen, for the tests of this module and of known_hosts.
#[cfg(test)]
pub(crate) mod made_by_ssh_keygen {
    use russh::keys::Certificate;
    use std::cell::Cell;
    use std::path::Path;

    /// Authorities (`ca`, `other_ca`, and `rsa_ca`, an RSA one) and a host key, made by
    /// ssh-keygen (OpenSSH's own certificates, not ones built by the code under test).
    pub struct Signer {
        dir: tempfile::TempDir,
        signed: Cell<u32>,
    }

    impl Signer {
        pub fn new() -> Signer {
            let dir = tempfile::tempdir().unwrap();
            for name in ["ca", "other_ca", "host"] {
                keygen(&dir.path().join(name), &["-t", "ed25519"]);
            }
            keygen(&dir.path().join("rsa_ca"), &["-t", "rsa", "-b", "2048"]);
            Signer { dir, signed: Cell::new(0) }
        }

        /// The public key `name`, as a known_hosts line ends.
        pub fn public(&self, name: &str) -> String {
            std::fs::read_to_string(self.dir.path().join(format!("{name}.pub"))).unwrap().trim().to_string()
        }

        /// `ssh-keygen -s CA -I test ARGS` on a copy of the host's public key.
        pub fn sign(&self, ca: &str, args: &[&str]) -> Certificate {
            let n = self.signed.get() + 1;
            self.signed.set(n);
            let copy = self.dir.path().join(format!("host{n}.pub"));
            std::fs::copy(self.dir.path().join("host.pub"), &copy).unwrap();
            run(std::process::Command::new("ssh-keygen")
                .args(["-q", "-s"])
                .arg(self.dir.path().join(ca))
                .args(["-I", "test"])
                .args(args)
                .arg(&copy));
            let text = std::fs::read_to_string(self.dir.path().join(format!("host{n}-cert.pub"))).unwrap();
            Certificate::from_openssh(text.trim()).unwrap()
        }
    }

    fn keygen(path: &Path, kind: &[&str]) {
        run(std::process::Command::new("ssh-keygen").arg("-q").args(kind).args(["-N", "", "-f"]).arg(path));
    }

    fn run(command: &mut std::process::Command) {
        let status = command.status().expect("ssh-keygen (openssh-client) is needed by this test");
        assert!(status.success(), "{command:?}");
    }
}

#[cfg(test)]
mod tests {
    use super::made_by_ssh_keygen::Signer;
    use super::*;

    fn now() -> u64 {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs()
    }

    fn key(text: &str) -> PublicKey {
        PublicKey::from_openssh(text).unwrap()
    }

    #[test]
    fn each_check_of_ssh_on_a_certificate_its_authority_signed() {
        let s = Signer::new();
        let ca = key(&s.public("ca"));
        let judged = |args: &[&str], host: &str| judge(&s.sign("ca", args), &ca, host, None, now());
        assert_eq!(judged(&["-h", "-n", "gpu01,10.0.0.*"], "gpu01"), Ok(()));
        assert_eq!(judged(&["-h", "-n", "gpu01,10.0.0.*"], "10.0.0.7"), Ok(()), "a principal may be a pattern");
        let why = |args: &[&str], host: &str| judged(args, host).unwrap_err();
        assert_eq!(why(&["-h", "-n", "gpu01,10.0.0.*"], "gpu02"), "is not for gpu02 (its principals: gpu01, 10.0.0.*)");
        assert_eq!(
            why(&["-h", "-n", "GPU01"], "gpu01"),
            "is not for gpu01 (its principals: GPU01)",
            "as ssh: exact case"
        );
        assert_eq!(why(&["-h"], "gpu01"), "is not for gpu01 (its principals: none)");
        let expired = why(&["-h", "-n", "gpu01", "-V", "-2w:-1w"], "gpu01");
        assert!(expired.starts_with("expired at ") && expired.ends_with(" (Unix time)"), "{expired}");
        let early = why(&["-h", "-n", "gpu01", "-V", "+1w:+2w"], "gpu01");
        assert!(early.starts_with("is not valid before "), "{early}");
        assert_eq!(why(&["-n", "gpu01"], "gpu01"), "is a user certificate, not a host's");
        let other = judge(&s.sign("other_ca", &["-h", "-n", "gpu01"]), &ca, "gpu01", None, now());
        assert_eq!(other.unwrap_err(), "is not signed by that authority's key (a bad signature)");
    }

    #[test]
    fn an_authority_signing_with_sha1_is_refused_and_with_sha2_trusted() {
        let s = Signer::new();
        let ca = key(&s.public("rsa_ca"));
        let sha1 = s.sign("rsa_ca", &["-h", "-n", "gpu01", "-t", "ssh-rsa"]);
        assert_eq!(
            judge(&sha1, &ca, "gpu01", None, now()).unwrap_err(),
            "is signed with ssh-rsa, which CASignatureAlgorithms (ssh's default: all but ssh-rsa) does not allow"
        );
        let sha2 = s.sign("rsa_ca", &["-h", "-n", "gpu01", "-t", "rsa-sha2-512"]);
        assert_eq!(judge(&sha2, &ca, "gpu01", None, now()), Ok(()));
        assert_eq!(judge(&sha1, &ca, "gpu01", Some("+ssh-rsa"), now()), Ok(()), "the operator's choice");
        let why = judge(&sha2, &ca, "gpu01", Some("-rsa-sha2-*"), now()).unwrap_err();
        assert_eq!(why, "is signed with rsa-sha2-512, which CASignatureAlgorithms (`-rsa-sha2-*`) does not allow");
        assert!(judge(&sha2, &ca, "gpu01", Some("ssh-ed25519"), now()).is_err(), "a list replaces the default");
    }

    #[test]
    fn ca_signature_algorithms_in_each_of_sshs_forms() {
        for (list, name, allowed) in [
            (None, "rsa-sha2-256", true),
            (None, "ssh-rsa", false),
            (Some("ssh-ed25519"), "ssh-ed25519", true),
            (Some("ssh-ed25519"), "rsa-sha2-256", false),
            (Some("^ssh-rsa"), "ssh-rsa", true),
            (Some("^ssh-rsa"), "ssh-ed25519", true),
            (Some("-ecdsa-*"), "ecdsa-sha2-nistp256", false),
            (Some("-ecdsa-*"), "ssh-ed25519", true),
            (Some("-ecdsa-*"), "ssh-rsa", false),
        ] {
            assert_eq!(signature_allowed(list, name), allowed, "{list:?} {name}");
        }
    }
}
