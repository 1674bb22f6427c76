//! The reference designs fabcheck ships: policies for published, correct fabric designs, each
//! file in `playbooks/policies/` with its public sources in its header, and each built into the
//! binary so `--policy NAME` works on a machine with no clone of the project.

use super::{Policy, PolicyError};

/// One reference design: its name and its policy text (whose header says what it is and where
/// it comes from).
#[derive(Debug, Clone, Copy)]
pub struct Design {
    /// The name `--policy` and `fabcheck policy show` take (the policy's own `name`).
    pub name: &'static str,
    /// The policy, as in `playbooks/policies/NAME.yaml`.
    pub text: &'static str,
}

/// Every reference design; the first is the built-in policy.
pub const LIBRARY: &[Design] = &[
    Design {
        name: "roce-lossless-prio3",
        text: include_str!("../../../../playbooks/policies/roce-lossless-prio3.yaml"),
    },
    Design { name: "sonic-lossless-3-4", text: include_str!("../../../../playbooks/policies/sonic-lossless-3-4.yaml") },
    Design { name: "cisco-nexus-aiml", text: include_str!("../../../../playbooks/policies/cisco-nexus-aiml.yaml") },
    Design { name: "pfc-only-prio3", text: include_str!("../../../../playbooks/policies/pfc-only-prio3.yaml") },
];

impl Design {
    /// The design named `name`.
    pub fn find(name: &str) -> Option<Design> {
        LIBRARY.iter().copied().find(|d| d.name == name)
    }

    /// The names of every design, for messages.
    pub fn names() -> String {
        LIBRARY.iter().map(|d| d.name).collect::<Vec<_>>().join(", ")
    }

    /// The design's policy.
    pub fn policy(&self) -> Result<Policy, PolicyError> {
        Policy::parse(self.text, &format!("built-in policy {}", self.name))
    }

    /// What the design is, in one line: the header's first comment line.
    pub fn summary(&self) -> &'static str {
        self.text.lines().next().and_then(|l| l.strip_prefix("# ")).unwrap_or("")
    }

    /// Where the design is published: the header's `# Source:` lines.
    pub fn sources(&self) -> impl Iterator<Item = &'static str> {
        self.text.lines().take_while(|l| l.starts_with('#')).filter_map(|l| l.strip_prefix("# Source: "))
    }
}

/// The policy `--policy` names: a file when one exists at that path, else a reference design of
/// that name. A file wins so that a local `sonic-lossless-3-4` file is never shadowed.
pub fn resolve(arg: &std::path::Path) -> Result<Policy, PolicyError> {
    if arg.exists() {
        return Policy::load(arg);
    }
    match arg.to_str().and_then(Design::find) {
        Some(design) => design.policy(),
        None => Err(PolicyError {
            file: arg.display().to_string(),
            message: format!(
                "no such file, and no built-in policy of that name (built-in: {}; `fabcheck policy list` describes them)",
                Design::names()
            ),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// The repository's `playbooks/policies`, where the designs' files are.
    fn designs_dir() -> PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../playbooks/policies")
    }

    /// Each design parses, is named as its file and its entry, says what it is and cites a
    /// public source, and asks for nothing contradictory.
    #[test]
    fn every_design_parses_cites_its_source_and_has_no_contradiction() {
        for d in LIBRARY {
            let p = d.policy().unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(p.name.as_deref(), Some(d.name));
            let file = std::fs::read_to_string(designs_dir().join(format!("{}.yaml", d.name))).unwrap();
            assert_eq!(file, d.text);
            assert!(d.summary().len() > 20, "{}: no summary", d.name);
            assert!(d.sources().count() >= 1 && d.sources().all(|s| s.contains("https://")), "{}", d.name);
            assert_eq!(p.warnings(), Vec::<String>::new(), "{}", d.name);
        }
    }

    /// Every file in playbooks/policies/ is in the library, so `policy list` shows them all.
    #[test]
    fn every_shipped_policy_file_is_in_the_library() {
        for entry in std::fs::read_dir(designs_dir()).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_stem().unwrap().to_string_lossy().to_string();
            assert!(Design::find(&name).is_some(), "{} is not in LIBRARY", path.display());
        }
    }

    #[test]
    fn a_policy_is_named_by_file_or_by_design() {
        assert_eq!(resolve(std::path::Path::new("cisco-nexus-aiml")).unwrap().display_name(), "cisco-nexus-aiml");
        let file = resolve(&designs_dir().join("pfc-only-prio3.yaml")).unwrap();
        assert_eq!(file.display_name(), "pfc-only-prio3");
        let e = resolve(std::path::Path::new("sonic-default")).unwrap_err().to_string();
        assert!(e.starts_with("sonic-default: no such file, and no built-in policy of that name (built-in: roce-lossless-prio3, sonic-lossless-3-4"), "{e}");
    }

    /// The designs differ where their publishers differ: SONiC's two lossless classes and
    /// weighted CNP queue, Cisco's two RoCE DSCPs and strict CNP class 7, no DCQCN in PFC-only.
    #[test]
    fn the_designs_say_what_their_sources_say() {
        let sonic = Design::find("sonic-lossless-3-4").unwrap().policy().unwrap();
        assert_eq!(sonic.lossless_priorities(), Some(vec![3, 4]));
        assert_eq!(sonic.lossless_dscps(), [3, 4]);
        assert_eq!(sonic.cnp_queue_strict(), None);
        let cisco = Design::find("cisco-nexus-aiml").unwrap().policy().unwrap();
        assert_eq!(cisco.lossless_dscps(), [24, 26]);
        assert_eq!(cisco.cnp_queue_strict(), Some(7));
        let pfc_only = Design::find("pfc-only-prio3").unwrap().policy().unwrap();
        assert!(pfc_only.ecn.is_none() && pfc_only.cnp.is_none());
        assert_eq!(pfc_only.nic.unwrap().dcqcn, Some(super::super::Requirement::Ignore));
    }
}
