//! The algorithms offered to one device: fabcheck's defaults, the old ones added for
//! `fabcheck_ssh_legacy`, then ssh_config's `KexAlgorithms`, `Ciphers`, `MACs` and
//! `HostKeyAlgorithms` applied with ssh's rules, so a config written for `ssh` to reach old
//! switch firmware reaches it from fabcheck too.

use fabcheck_inventory::ssh_config::{AlgorithmKind, AlgorithmSetting, LeftOut, assemble};
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
    /// Whether the old algorithms are among the defaults (`fabcheck_ssh_legacy`).
    legacy: bool,
    /// Why a device cannot be offered anything: the ssh_config line that emptied a list.
    unusable: Option<String>,
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
            legacy: false,
            unusable: None,
        }
    }

    /// The modern algorithms, then the old ones some switch firmware still needs (SHA-1 key
    /// exchange, CBC ciphers, hmac-sha1) last, so a modern peer still gets modern ones.
    pub fn legacy() -> Algorithms {
        let mut a = Algorithms::modern();
        a.kex.extend([kex::DH_G14_SHA1, kex::DH_GEX_SHA1, kex::DH_G1_SHA1]);
        a.cipher.extend([cipher::AES_128_CBC, cipher::AES_256_CBC]);
        a.mac.push(mac::HMAC_SHA1);
        a.legacy = true;
        a
    }

    /// Every algorithm fabcheck can use (never `none`), in russh's order.
    fn supported() -> Algorithms {
        let (kex, cipher, mac, key) = (supported_kex(), supported_ciphers(), supported_macs(), supported_host_keys());
        Algorithms { kex, cipher, mac, key, legacy: false, unusable: None }
    }

    /// A device's algorithms: the defaults (`legacy` or modern), changed by its ssh_config
    /// lines; names fabcheck does not speak are left out (see [`config_line_warning`]). A line
    /// that leaves a list empty makes the device [unusable](Algorithms::unusable).
    pub fn for_device(legacy: bool, settings: &[AlgorithmSetting]) -> Algorithms {
        let mut a = if legacy { Algorithms::legacy() } else { Algorithms::modern() };
        for setting in settings {
            a.apply(setting);
            if a.names(setting.kind).is_empty() && a.unusable.is_none() {
                a.unusable = Some(format!(
                    "{}:{}: {} `{}` leaves nothing to offer (fabcheck speaks {}; a `+` list adds to the defaults)",
                    setting.file,
                    setting.line,
                    setting.kind.keyword(),
                    setting.list,
                    Algorithms::supported().names(setting.kind).join(", ")
                ));
            }
        }
        a
    }

    /// Why nothing can be offered to the device, if so: it is not connected to.
    pub fn unusable(&self) -> Option<&str> {
        self.unusable.as_deref()
    }

    /// What to change when the device's sshd has nothing in common with these.
    pub fn remedy(&self) -> &'static str {
        if self.legacy {
            "ssh_config's KexAlgorithms, Ciphers, MACs or HostKeyAlgorithms can add what the device speaks"
        } else {
            "old firmware: fabcheck_ssh_legacy=true, or ssh_config's KexAlgorithms, Ciphers, MACs or HostKeyAlgorithms"
        }
    }

    /// Applies one line; returns what of it is not offered.
    fn apply(&mut self, setting: &AlgorithmSetting) -> LeftOut {
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

/// What fabcheck leaves out of one ssh_config algorithm line, said once per line that applies
/// to a device of the run: the names it does not speak (ssh speaks more: `ssh-dss`,
/// `sntrup761x25519-sha512@openssh.com`, `umac-128-etm@openssh.com`...), and negations outside a
/// `-` list (ssh refuses those). Names the file and line.
pub fn config_line_warning(setting: &AlgorithmSetting) -> Option<String> {
    let left_out = Algorithms::modern().apply(setting);
    let quoted = |names: &[String]| names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ");
    let mut parts = Vec::new();
    if !left_out.unsupported.is_empty() {
        let speaks = Algorithms::supported().names(setting.kind).join(", ");
        parts.push(format!("{} not spoken by fabcheck (it speaks {speaks})", quoted(&left_out.unsupported)));
    }
    if !left_out.negated.is_empty() {
        parts.push(format!("{}: a negation means something only in a `-` list", quoted(&left_out.negated)));
    }
    (!parts.is_empty()).then(|| {
        format!("{}:{}: {}: {}; left out", setting.file, setting.line, setting.kind.keyword(), parts.join("; "))
    })
}

fn supported_kex() -> Vec<kex::Name> {
    kex::ALL_KEX_ALGORITHMS.iter().map(|n| **n).filter(|n| *n != kex::NONE).collect()
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

/// Replaces `current` with what `list` makes of it; returns what of the list is not offered.
fn change<T: Clone>(current: &mut Vec<T>, supported: &[T], name: fn(&T) -> &str, list: &str) -> LeftOut {
    let default: Vec<&str> = current.iter().map(name).collect();
    let all: Vec<&str> = supported.iter().map(name).collect();
    let made = assemble(list, &default, &all);
    let chosen: Vec<T> = made.names.iter().filter_map(|n| supported.iter().find(|s| name(s) == *n)).cloned().collect();
    let left_out = made.left_out;
    *current = chosen;
    left_out
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
    fn a_line_that_empties_a_list_makes_the_device_unusable_naming_it() {
        assert_eq!(Algorithms::modern().unusable(), None);
        let a = Algorithms::for_device(false, &[setting(AlgorithmKind::Ciphers, "3des-cbc")]);
        let why = a.unusable().unwrap();
        assert!(
            why.starts_with("cfg:3: Ciphers `3des-cbc` leaves nothing to offer (fabcheck speaks aes128-ctr,"),
            "{why}"
        );
        assert!(!why.contains("none"), "none is never spoken: {why}");
        assert!(why.ends_with("; a `+` list adds to the defaults)"), "{why}");
        assert!(Algorithms::for_device(false, &[setting(AlgorithmKind::Macs, "-*")]).unusable().is_some());
        let legacy_left = Algorithms::for_device(true, &[setting(AlgorithmKind::Ciphers, "-*gcm*,*ctr,chacha*")]);
        assert_eq!(legacy_left.unusable(), None, "the legacy defaults keep their CBC ciphers");
        assert_eq!(legacy_left.names(AlgorithmKind::Ciphers), ["aes128-cbc", "aes256-cbc"]);
        assert!(
            Algorithms::for_device(false, &[setting(AlgorithmKind::Ciphers, "-*gcm*,*ctr,chacha*")])
                .unusable()
                .is_some()
        );
    }

    #[test]
    fn the_remedy_for_nothing_in_common_depends_on_the_defaults() {
        assert!(Algorithms::modern().remedy().starts_with("old firmware: fabcheck_ssh_legacy=true"));
        assert!(!Algorithms::for_device(true, &[]).remedy().contains("fabcheck_ssh_legacy"), "already legacy");
    }

    #[test]
    fn what_is_left_out_of_a_line_is_said_once_naming_the_line() {
        let warning = config_line_warning(&setting(
            AlgorithmKind::Kex,
            "sntrup761x25519-sha512@openssh.com,curve25519-sha256,!ecdh*,foo*",
        ))
        .unwrap();
        assert!(
            warning.starts_with("cfg:3: KexAlgorithms: `sntrup761x25519-sha512@openssh.com`, `foo*` not spoken by fabcheck (it speaks mlkem768x25519-sha256, curve25519-sha256,"),
            "{warning}"
        );
        assert!(warning.ends_with("; `!ecdh*`: a negation means something only in a `-` list; left out"), "{warning}");
        assert_eq!(config_line_warning(&setting(AlgorithmKind::HostKeys, "+ssh-rsa")), None);
        assert_eq!(
            config_line_warning(&setting(AlgorithmKind::Ciphers, "-3des-cbc,!aes*")),
            None,
            "removals ask nothing"
        );
        assert_eq!(
            config_line_warning(&setting(AlgorithmKind::Ciphers, "none")).unwrap(),
            format!(
                "cfg:3: Ciphers: `none` not spoken by fabcheck (it speaks {}); left out",
                supported_ciphers().iter().map(AsRef::as_ref).collect::<Vec<&str>>().join(", ")
            )
        );
    }
}
