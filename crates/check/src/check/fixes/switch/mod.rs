//! What restores the policy on a switch, in the syntax of the platform it runs: the change is
//! worked out once ([`change`]), and one module per platform writes it down, each citing the
//! vendor's documentation it follows. A finding the platform has no safe command for gets what
//! to inspect; one whose command would need a name the facts do not give gets no fix.
//!
//! Every fix says in its note what applying it does to traffic (a PFC, buffer or headroom change
//! sets the port's lossless queues up again) and how to keep it across a reboot.

pub mod change;
pub mod cli;
mod eos;
mod nvue;
mod nxos;
mod os10;
mod sonic;

use crate::policy::Policy;
use change::Change;
use fabcheck_model::facts::SwitchFacts;
use fabcheck_model::{Finding, Fix};

/// Sets `fix` on each finding of switch `facts` that fabcheck knows how to cure (or where to
/// look), in the syntax of the switch's platform.
pub fn attach_switch(findings: &mut [Finding], facts: &SwitchFacts, policy: &Policy) {
    for f in findings.iter_mut() {
        f.fix = change::of(f, facts, policy).and_then(|c| fix(facts, f.port.as_deref(), &c));
    }
}

/// The fix for `change` on `port` (`None` for a switch-wide finding) in `facts.platform`'s syntax.
fn fix(facts: &SwitchFacts, port: Option<&str>, change: &Change) -> Option<Fix> {
    match facts.platform {
        "sonic" => sonic::fix(facts, port, change),
        "eos" => eos::fix(port?, change),
        "nvue" => nvue::fix(port?, change),
        "nxos" => nxos::fix(port?, change),
        "dell_os10" => os10::fix(port?, change),
        _ => None,
    }
}

/// A fix made of commands.
fn run(commands: Vec<String>, note: &str, source: &str) -> Option<Fix> {
    Some(Fix { commands, inspect: String::new(), note: note.into(), source: source.into() })
}

/// A fix that says what to look at.
fn inspect(what: String, note: &str, source: &str) -> Option<Fix> {
    Some(Fix { commands: Vec::new(), inspect: what, note: note.into(), source: source.into() })
}

/// What to inspect for a link down or trained slow, on any platform: no command retrains a
/// link; `reads` are the platform's commands that show the port and its optic.
fn link(port: &str, reads: &str, source: &str) -> Option<Fix> {
    inspect(
        format!("the cable or optic of {port} and of its peer: {reads}"),
        "no command restores a link down or trained slow: it is the physical layer (cable, optic, the peer's port); reseat or replace what is out of range",
        source,
    )
}

/// What to inspect for `switch.lossless_not_effective`: PFC configured, yet drops without a
/// pause; `reads` are the platform's commands that show the port's PFC and queues.
fn lossless(priority: u8, reads: &str, source: &str) -> Option<Fix> {
    inspect(
        format!(
            "PFC on priority {priority} at this port and at its peer (the host NIC's `mlnx_qos`, or the neighbour switch): both ends must pause on it, and RoCE must arrive on it (the DSCP map of both ends); here: {reads}"
        ),
        "a configuration that says PFC is on and a port that drops without pausing: read both ends before changing either",
        source,
    )
}

/// The note of a PFC, buffer or headroom change.
const LOSSLESS_NOTE: &str =
    "the port's lossless queues are set up again (a brief loss of lossless service on it); run in a maintenance window";

/// What the platform modules' tests share: a finding of a code with its values, through
/// [`attach_switch`] with the built-in policy.
#[cfg(test)]
mod tests {
    use super::*;
    use fabcheck_model::Severity;

    pub(super) fn policy() -> Policy {
        Policy::parse(crate::policy::DEFAULT_POLICY, "built-in").unwrap()
    }

    /// The fix finding `code` on `port` with these values gets on switch `facts`.
    pub(super) fn fixed(
        facts: &SwitchFacts,
        code: &str,
        port: Option<&str>,
        expected: &str,
        actual: &str,
    ) -> Option<Fix> {
        let mut f = Finding::new(code, Severity::Error, "leaf1", "m").expected_actual(expected, actual);
        f.port = port.map(str::to_string);
        attach_switch(std::slice::from_mut(&mut f), facts, &policy());
        f.fix
    }

    /// A switch of `platform` with no facts but its platform.
    pub(super) fn on(platform: &'static str) -> SwitchFacts {
        SwitchFacts { platform, ..SwitchFacts::default() }
    }

    pub(super) fn commands(fix: Option<Fix>) -> Vec<String> {
        fix.expect("a fix").commands
    }

    /// What a fix says to inspect; it has no command.
    pub(super) fn inspected(fix: Option<Fix>) -> String {
        let fix = fix.expect("a fix");
        assert!(fix.commands.is_empty(), "{:?}", fix.commands);
        fix.inspect
    }

    #[test]
    fn an_unknown_platform_or_a_portless_port_finding_gets_nothing() {
        assert_eq!(fixed(&on("junos"), "switch.mtu_mismatch", Some("et-0/0/0"), "MTU ≥ 4200", ""), None);
        assert_eq!(fixed(&on("eos"), "switch.mtu_mismatch", None, "MTU ≥ 4200", ""), None);
    }
}
