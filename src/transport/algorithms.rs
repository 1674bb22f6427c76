//! The algorithms offered to one device: fabcheck's defaults, the old ones added for
//! `fabcheck_ssh_legacy`, then ssh_config's `KexAlgorithms`, `Ciphers`, `MACs` and
//! `HostKeyAlgorithms` applied with ssh's rules, so a config written for `ssh` to reach old
//! switch firmware reaches it from fabcheck too.

use fabcheck_inventory::ssh_config::{AlgorithmKind, AlgorithmSetting, assemble};
use russh::keys::{Algorithm, EcdsaCurve, HashAlg};
use russh::{Preferred, cipher, kex, mac};
use std::borrow::Cow;

/// What a device is offered, most preferred first in each list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Algorithms {
    kex: Vec<kex::Name>,
    cipher: Vec<cipher::Name>,
    mac: Vec<mac::Name>,
    key: Vec<Algorithm>,
}

impl Algorithms {
    /// russh's defaults with AES-256-GCM before ChaCha20-Poly1305: both are AEAD ciphers OpenSSH
    /// offers by default, and GCM runs on the CPU's AES instructions (every packet of every
    /// command is sealed and opened, and ChaCha20-Poly1305 was 3% of a lab audit's CPU).
    pub fn modern() -> Algorithms {
        let d = Preferred::default();
        let mut cipher = vec![cipher::AES_256_GCM];
        cipher.extend(d.cipher.iter().filter(|c| **c != cipher::AES_256_GCM));
        Algorithms {
            kex: d.kex.iter().copied().filter(is_kex_algorithm).collect(),
            cipher,
            mac: d.mac.to_vec(),
            key: d.key.to_vec(),
        }
    }

    /// The modern algorithms, then the old ones some switch firmware still needs (SHA-1 key
    /// exchange, CBC ciphers, hmac-sha1) last, so a modern peer still gets modern ones.
    pub fn legacy() -> Algorithms {
        let mut a = Algorithms::modern();
        a.kex.extend([kex::DH_G14_SHA1, kex::DH_GEX_SHA1, kex::DH_G1_SHA1]);
        a.cipher.extend([cipher::AES_128_CBC, cipher::AES_256_CBC]);
        a.mac.push(mac::HMAC_SHA1);
        a
    }

    /// Every algorithm fabcheck can use (never `none`), in russh's order.
    fn supported() -> Algorithms {
        Algorithms {
            kex: supported_kex(),
            cipher: supported_ciphers(),
            mac: supported_macs(),
            key: supported_host_keys(),
        }
    }

    /// A device's algorithms: the defaults (`legacy` or modern), changed by its ssh_config
    /// lines. Names fabcheck does not speak are left out (see [`check_config_line`]).
    pub fn for_device(legacy: bool, settings: &[AlgorithmSetting]) -> Algorithms {
        let mut a = if legacy { Algorithms::legacy() } else { Algorithms::modern() };
        for setting in settings {
            a.apply(setting);
        }
        a
    }

    /// Applies one line; returns the names of its list that match nothing fabcheck speaks.
    fn apply(&mut self, setting: &AlgorithmSetting) -> Vec<String> {
        let list = setting.list.as_str();
        match setting.kind {
            AlgorithmKind::Kex => change(&mut self.kex, &supported_kex(), |n| n.as_ref(), list),
            AlgorithmKind::Ciphers => change(&mut self.cipher, &supported_ciphers(), |n| n.as_ref(), list),
            AlgorithmKind::Macs => change(&mut self.mac, &supported_macs(), |n| n.as_ref(), list),
            AlgorithmKind::HostKeys => change(&mut self.key, &supported_host_keys(), Algorithm::as_str, list),
        }
    }

    /// The names of one list, for messages.
    fn names(&self, kind: AlgorithmKind) -> Vec<&str> {
        match kind {
            AlgorithmKind::Kex => self.kex.iter().map(AsRef::as_ref).collect(),
            AlgorithmKind::Ciphers => self.cipher.iter().map(AsRef::as_ref).collect(),
            AlgorithmKind::Macs => self.mac.iter().map(AsRef::as_ref).collect(),
            AlgorithmKind::HostKeys => self.key.iter().map(Algorithm::as_str).collect(),
        }
    }

    /// russh's negotiation preferences; the key exchange keeps russh's extension markers
    /// (`ext-info-c`, strict kex), which OpenSSH too adds to whatever list is configured.
    pub fn preferred(&self) -> Preferred {
        let d = Preferred::default();
        let markers = d.kex.iter().copied().filter(|k| !is_kex_algorithm(k));
        Preferred {
            kex: Cow::Owned(self.kex.iter().copied().chain(markers).collect()),
            cipher: Cow::Owned(self.cipher.clone()),
            mac: Cow::Owned(self.mac.clone()),
            key: Cow::Owned(self.key.clone()),
            ..d
        }
    }
}

/// Checks one ssh_config algorithm line as ssh does when it reads the file (whether or not its
/// block applies): `Ok` with a warning for each name fabcheck does not speak (left out), an
/// error when the line leaves nothing to offer. The message names the file and line.
pub fn check_config_line(setting: &AlgorithmSetting) -> Result<Vec<String>, String> {
    let mut a = Algorithms::modern();
    let unsupported = a.apply(setting);
    let keyword = setting.kind.keyword();
    let speaks = Algorithms::supported().names(setting.kind).join(", ");
    let at = format!("{}:{}", setting.file, setting.line);
    if a.names(setting.kind).is_empty() {
        return Err(format!(
            "{at}: {keyword} `{}` leaves no algorithm fabcheck speaks (it speaks {speaks})",
            setting.list
        ));
    }
    Ok(unsupported
        .iter()
        .map(|name| {
            format!("{at}: {keyword}: `{name}` is not an algorithm fabcheck speaks (it speaks {speaks}); left out")
        })
        .collect())
}

fn supported_kex() -> Vec<kex::Name> {
    kex::ALL_KEX_ALGORITHMS.iter().map(|n| **n).filter(is_kex_algorithm).collect()
}

/// A key exchange fabcheck may offer: not `none`, and not a marker such as `ext-info-c`.
fn is_kex_algorithm(name: &kex::Name) -> bool {
    *name != kex::NONE && kex::ALL_KEX_ALGORITHMS.contains(&name)
}

fn supported_ciphers() -> Vec<cipher::Name> {
    cipher::ALL_CIPHERS.iter().map(|n| **n).filter(|n| ![cipher::NONE, cipher::CLEAR].contains(n)).collect()
}

fn supported_macs() -> Vec<mac::Name> {
    mac::ALL_MAC_ALGORITHMS.iter().map(|n| **n).filter(|n| *n != mac::NONE).collect()
}

/// The host key types russh verifies (its default list: no certificates, no security keys).
fn supported_host_keys() -> Vec<Algorithm> {
    let ecdsa = |curve| Algorithm::Ecdsa { curve };
    vec![
        Algorithm::Ed25519,
        ecdsa(EcdsaCurve::NistP256),
        ecdsa(EcdsaCurve::NistP384),
        ecdsa(EcdsaCurve::NistP521),
        Algorithm::Rsa { hash: Some(HashAlg::Sha512) },
        Algorithm::Rsa { hash: Some(HashAlg::Sha256) },
        Algorithm::Rsa { hash: None },
    ]
}

/// Replaces `current` with what `list` makes of it; returns the names that matched nothing.
fn change<T: Clone>(current: &mut Vec<T>, supported: &[T], name: fn(&T) -> &str, list: &str) -> Vec<String> {
    let default: Vec<&str> = current.iter().map(name).collect();
    let all: Vec<&str> = supported.iter().map(name).collect();
    let made = assemble(list, &default, &all);
    let chosen: Vec<T> = made.names.iter().filter_map(|n| supported.iter().find(|s| name(s) == *n)).cloned().collect();
    let unsupported = made.unsupported;
    *current = chosen;
    unsupported
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setting(kind: AlgorithmKind, list: &str) -> AlgorithmSetting {
        AlgorithmSetting { kind, list: list.into(), file: "cfg".into(), line: 3 }
    }

    #[test]
    fn defaults_are_russhs_with_gcm_first_and_legacy_adds_the_old_ones_last() {
        let modern = Algorithms::modern();
        assert_eq!(modern.names(AlgorithmKind::Kex)[..2], ["mlkem768x25519-sha256", "curve25519-sha256"]);
        assert_eq!(modern.names(AlgorithmKind::Ciphers)[0], "aes256-gcm@openssh.com");
        assert!(!modern.names(AlgorithmKind::Kex).contains(&"diffie-hellman-group14-sha1"));
        assert!(!modern.names(AlgorithmKind::Kex).contains(&"ext-info-c"), "markers are not algorithms");
        let legacy = Algorithms::legacy();
        assert_eq!(legacy.names(AlgorithmKind::Kex).last(), Some(&"diffie-hellman-group1-sha1"));
        assert_eq!(legacy.names(AlgorithmKind::Macs).last(), Some(&"hmac-sha1"));
        assert_eq!(modern.preferred().kex, Preferred::default().kex, "unchanged defaults are russh's own list");
    }

    #[test]
    fn config_lines_change_the_device_defaults() {
        let lines = [
            setting(AlgorithmKind::Kex, "+diffie-hellman-group14-sha1"),
            setting(AlgorithmKind::Ciphers, "aes128-cbc"),
            setting(AlgorithmKind::Macs, "-hmac-sha2-512*"),
            setting(AlgorithmKind::HostKeys, "^ssh-rsa"),
        ];
        let a = Algorithms::for_device(false, &lines);
        assert_eq!(a.names(AlgorithmKind::Kex).last(), Some(&"diffie-hellman-group14-sha1"));
        assert_eq!(a.names(AlgorithmKind::Ciphers), ["aes128-cbc"]);
        assert_eq!(a.names(AlgorithmKind::Macs), ["hmac-sha2-256-etm@openssh.com", "hmac-sha2-256"]);
        assert_eq!(a.names(AlgorithmKind::HostKeys)[..2], ["ssh-rsa", "ssh-ed25519"]);
        let p = a.preferred();
        assert!(p.kex.contains(&kex::EXTENSION_OPENSSH_STRICT_KEX_AS_CLIENT), "strict kex is kept under any list");
        let removed = Algorithms::for_device(true, &[setting(AlgorithmKind::Kex, "-*sha1")]);
        assert!(
            removed.names(AlgorithmKind::Kex).iter().all(|k| !k.ends_with("sha1")),
            "a `-` list removes from the legacy defaults too"
        );
    }

    #[test]
    fn lines_are_checked_as_ssh_reads_them() {
        let warn =
            check_config_line(&setting(AlgorithmKind::Kex, "sntrup761x25519-sha512@openssh.com,curve25519-sha256"));
        let warnings = warn.unwrap();
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].starts_with("cfg:3: KexAlgorithms: `sntrup761x25519-sha512@openssh.com` is not an algorithm fabcheck speaks (it speaks mlkem768x25519-sha256, curve25519-sha256,"), "{}", warnings[0]);
        let err = check_config_line(&setting(AlgorithmKind::Ciphers, "3des-cbc")).unwrap_err();
        assert!(err.starts_with("cfg:3: Ciphers `3des-cbc` leaves no algorithm fabcheck speaks"), "{err}");
        assert!(check_config_line(&setting(AlgorithmKind::Macs, "-*")).is_err());
        assert!(check_config_line(&setting(AlgorithmKind::Ciphers, "none")).is_err(), "no cleartext, even when asked");
        assert_eq!(check_config_line(&setting(AlgorithmKind::HostKeys, "+ssh-rsa")), Ok(vec![]));
    }
}
