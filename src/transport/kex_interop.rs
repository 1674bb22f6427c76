//! fabcheck's russh is patched (vendor/russh/FABCHECK-PATCH.md: ML-KEM-768 from libcrux, X25519
//! and SHA-256 from ring, instead of the `ml-kem` crate, curve25519-dalek and sha2). A patched
//! client and a patched server agreeing with each other would not show that either speaks
//! mlkem768x25519-sha256 as everyone else does: a wrong encoding on both ends would still agree.
//! So each is run against the published russh 0.65.1 (those three crates) with the key exchange
//! restricted to mlkem768x25519-sha256: authentication succeeds only if both ends derived the
//! same keys from the exchange.

use std::any::TypeId;
use tokio::io::DuplexStream;

/// One end of the exchange, written once for each russh (`$russh` is the crate's name).
macro_rules! peer {
    ($module:ident, $russh:ident) => {
        mod $module {
            use russh::keys::ssh_key::private::{Ed25519Keypair, PrivateKey};
            use russh::server::Auth;
            use std::borrow::Cow;
            use std::sync::Arc;
            use tokio::io::DuplexStream;
            use $russh as russh;

            fn only_mlkem() -> russh::Preferred {
                russh::Preferred { kex: Cow::Borrowed(&[russh::kex::MLKEM768X25519_SHA256]), ..Default::default() }
            }

            struct Server;

            impl russh::server::Handler for Server {
                type Error = russh::Error;

                async fn auth_none(&mut self, _user: &str) -> Result<Auth, Self::Error> {
                    Ok(Auth::Accept)
                }
            }

            struct Client;

            impl russh::client::Handler for Client {
                type Error = russh::Error;

                async fn check_server_key(
                    &mut self,
                    _key: &russh::keys::PublicKeyOrCertificate,
                ) -> Result<bool, Self::Error> {
                    Ok(true)
                }
            }

            /// Serves one connection until the client leaves.
            pub async fn serve(stream: DuplexStream) {
                let key = PrivateKey::from(Ed25519Keypair::from_seed(&[7; 32]));
                let config =
                    Arc::new(russh::server::Config { keys: vec![key], preferred: only_mlkem(), ..Default::default() });
                if let Ok(session) = russh::server::run_stream(config, stream, Server).await {
                    let _ = session.await;
                }
            }

            /// Whether a client completes the exchange and authenticates.
            pub async fn connects(stream: DuplexStream) -> Result<bool, String> {
                let config = Arc::new(russh::client::Config { preferred: only_mlkem(), ..Default::default() });
                let mut handle =
                    russh::client::connect_stream(config, stream, Client).await.map_err(|e| e.to_string())?;
                let auth = handle.authenticate_none("fabcheck").await.map_err(|e| e.to_string())?;
                Ok(matches!(auth, russh::client::AuthResult::Success))
            }
        }
    };
}

peer!(patched, russh);
peer!(published, russh_published);

/// Whether a client (`connects`) completes the exchange with a server (`serve`) and authenticates.
async fn agree<S, C>(
    serve: impl FnOnce(DuplexStream) -> S,
    connects: impl FnOnce(DuplexStream) -> C,
) -> Result<bool, String>
where
    S: Future<Output = ()> + Send + 'static,
    C: Future<Output = Result<bool, String>>,
{
    let (client, server) = tokio::io::duplex(1 << 16);
    let served = tokio::spawn(serve(server));
    let agreed = connects(client).await;
    served.abort();
    agreed
}

#[tokio::test]
async fn the_patched_client_agrees_with_the_published_server() {
    assert_eq!(agree(published::serve, patched::connects).await, Ok(true));
}

#[tokio::test]
async fn the_patched_server_agrees_with_the_published_client() {
    assert_eq!(agree(patched::serve, published::connects).await, Ok(true));
}

#[test]
fn the_two_russh_are_distinct_builds() {
    // Were the dev-dependency resolved to the patched copy, the tests above would prove nothing.
    assert_ne!(TypeId::of::<russh::Error>(), TypeId::of::<russh_published::Error>());
}
