//! The run's private key files, each read once per run rather than once per device, and Ed25519
//! keys signing with their public half derived once.
//!
//! Why: reading a key file checks that its public half matches its private one, and ssh-key's
//! Ed25519 signer derives the public half again for every signature: two scalar multiplications
//! per connection that give the same answer every time (0.23 M and 0.42 M instructions of the
//! 13 M a lab host costs the auditor). A run of thousands of devices logs in with the same one
//! or two keys.

use russh::keys::signature::Signer as _;
use russh::keys::ssh_encoding::Encode as _;
use russh::keys::ssh_key::{Algorithm, Signature};
use russh::keys::{HashAlg, PrivateKey, PublicKey};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::{TransportError, is_fd_limit};

/// A key file as read: the key, or why it cannot be used.
pub type Loaded = Result<Identity, String>;

/// The key files read so far in this run, by path.
#[derive(Default)]
pub struct KeyFiles {
    loaded: Mutex<HashMap<PathBuf, Arc<Loaded>>>,
}

impl std::fmt::Debug for KeyFiles {
    /// The paths only: never a key.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let loaded = self.loaded.lock().unwrap_or_else(|p| p.into_inner());
        f.debug_struct("KeyFiles").field("paths", &loaded.keys().collect::<Vec<_>>()).finish()
    }
}

impl KeyFiles {
    /// The key in `path`, read on first use. An unusable file stays unusable for the run (as
    /// `ssh` reads its keys once per invocation), except one this machine had no file descriptor
    /// left to open: that is the auditor's limit of the moment, and caching it failed every
    /// later login of the run.
    pub fn get(&self, path: &Path) -> Result<Arc<Loaded>, TransportError> {
        let mut loaded = self.loaded.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(known) = loaded.get(path) {
            return Ok(known.clone());
        }
        let read = match russh::keys::load_secret_key(path, None) {
            Err(russh::keys::Error::IO(e)) if is_fd_limit(&e) => {
                return Err(TransportError::FdLimit {
                    doing: format!("reading {}", path.display()),
                    reason: e.to_string(),
                });
            }
            read => Arc::new(read.map_err(|e| e.to_string()).map(Identity::new)),
        };
        loaded.insert(path.to_path_buf(), read.clone());
        Ok(read)
    }
}

/// A private key ready to sign.
pub struct Identity {
    /// The key as read.
    pub key: Arc<PrivateKey>,
    /// For an Ed25519 key, its signing key with the public half already derived.
    ed25519: Option<Ed25519Signer>,
}

impl Identity {
    fn new(key: PrivateKey) -> Identity {
        let ed25519 = key.key_data().ed25519().and_then(|pair| ed25519_dalek::SigningKey::try_from(pair).ok());
        Identity { key: Arc::new(key), ed25519: ed25519.map(Ed25519Signer) }
    }

    /// The signer that saves deriving the public half at each signature, where there is one.
    pub fn fast_signer(&self) -> Option<(PublicKey, Ed25519Signer)> {
        self.ed25519.clone().map(|signer| (self.key.public_key().clone(), signer))
    }
}

/// Signs a login request with an Ed25519 key whose public half is derived once.
#[derive(Clone)]
pub struct Ed25519Signer(ed25519_dalek::SigningKey);

impl russh::Signer for Ed25519Signer {
    type Error = russh::AgentAuthError;

    /// Appends the signature of `to_sign` to it, as an SSH signature blob (what russh's own
    /// key signer and ssh-agent append).
    async fn auth_sign(
        &mut self,
        _key: &russh::keys::agent::AgentIdentity,
        _hash_alg: Option<HashAlg>,
        mut to_sign: Vec<u8>,
    ) -> Result<Vec<u8>, Self::Error> {
        let signature = Signature::new(Algorithm::Ed25519, self.0.sign(&to_sign).to_bytes().to_vec())
            .map_err(russh::keys::Error::from)?;
        let mut blob = Vec::new();
        signature.encode(&mut blob).map_err(russh::keys::Error::from)?;
        blob.encode(&mut to_sign).map_err(russh::keys::Error::from)?;
        Ok(to_sign)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use russh::keys::ssh_encoding::Decode as _;

    const ED25519: &str = "-----BEGIN OPENSSH PRIVATE KEY-----
b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW
QyNTUxOQAAACDy75SBIdU4OtjCPSopiOGhVOiH4q2DpXlBKV1P9Svz5QAAAJgT0qdIE9Kn
SAAAAAtzc2gtZWQyNTUxOQAAACDy75SBIdU4OtjCPSopiOGhVOiH4q2DpXlBKV1P9Svz5Q
AAAED/DxhRNTYmwyVOVQKuwG7A/GZ9sJPc+kkY2XPZ9V0NYPLvlIEh1Tg62MI9KimI4aFU
6IfirYOleUEpXU/1K/PlAAAAEWZhYmNoZWNrLXRlc3Qta2V5AQIDBA==
-----END OPENSSH PRIVATE KEY-----
";

    fn key_file(text: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("id");
        std::fs::write(&path, text).unwrap();
        (dir, path)
    }

    #[tokio::test]
    async fn the_appended_signature_is_the_one_the_key_itself_makes_and_verifies() {
        let (_dir, path) = key_file(ED25519);
        let identity = Identity::new(russh::keys::load_secret_key(&path, None).unwrap());
        let (public, mut signer) = identity.fast_signer().expect("an Ed25519 key signs fast");
        let request = b"session id and userauth request".to_vec();
        let agent_identity =
            russh::keys::agent::AgentIdentity::PublicKey { key: public.clone(), comment: String::new() };
        let signed = russh::Signer::auth_sign(&mut signer, &agent_identity, None, request.clone()).await.unwrap();
        assert_eq!(&signed[..request.len()], &request[..], "the request is kept as it was");
        let mut appended = &signed[request.len()..];
        let blob = Vec::<u8>::decode(&mut appended).unwrap();
        assert!(appended.is_empty(), "one length-prefixed blob appended, nothing else");
        let signature = Signature::decode(&mut &blob[..]).unwrap();
        assert_eq!(signature.algorithm(), Algorithm::Ed25519);
        russh::keys::signature::Verifier::verify(public.key_data(), &request, &signature)
            .expect("the server's check passes");
        let own: Signature = identity.key.try_sign(&request).unwrap();
        let mut own_blob = Vec::new();
        own.encode(&mut own_blob).unwrap();
        assert_eq!(blob, own_blob, "byte for byte what ssh-key's own Ed25519 signer gives");
    }

    #[test]
    fn each_file_is_read_once_and_an_unusable_one_says_why() {
        let (_dir, path) = key_file(ED25519);
        let keys = KeyFiles::default();
        let first = keys.get(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        let again = keys.get(&path).unwrap();
        assert!(Arc::ptr_eq(&first, &again), "the second device reuses the first read");
        let (_dir2, garbage) = key_file("not a key\n");
        let unusable = keys.get(&garbage).unwrap();
        assert!(unusable.as_ref().as_ref().is_err_and(|e| !e.is_empty()));
        assert!(!format!("{keys:?}").contains("PRIVATE"), "Debug shows paths, never keys");
    }
}
