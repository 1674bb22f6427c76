//! Incidents: each root cause with everything it broke, so a reader starts from five faults, not
//! forty findings.
//!
//! A finding's incident is found by following its preferred explanation (the first of
//! `explained_by`, [`super::causes`]) to a finding that nothing explains: its root. Roots of one
//! code on one hop are one incident (an ECN threshold's Kmin and Kmax, one fault seen twice).
//! Every finding is in exactly one incident: a root with nothing to explain is an incident of
//! its own.

use fabcheck_model::{AuditResult, Finding, Incident};
use std::collections::{BTreeMap, HashMap};

/// The kind of consequence a finding is, as incidents count them.
fn kind(f: &Finding) -> &'static str {
    match f.category() {
        "path" => "paths",
        "flow" => "flows",
        "nccl" => "benchmarks",
        "counter" => "counters",
        _ if matches!(f.code.as_str(), "ib.symbol_errors" | "ib.link_downed" | "switch.pfc_storm") => "counters",
        _ => "findings",
    }
}

/// Fills `result.incidents` from the findings' `explained_by`.
pub fn group(result: &mut AuditResult) {
    let index: HashMap<&str, usize> = result.findings.iter().enumerate().map(|(i, f)| (f.id.as_str(), i)).collect();
    // Each finding's root, by following preferred explanations; tiers make the chain finite,
    // and the step bound keeps a malformed result (a state file edited by hand) from looping.
    let root_of = |mut i: usize| {
        for _ in 0..=result.findings.len() {
            match result.findings[i].explained_by.first().and_then(|id| index.get(id.as_str())) {
                Some(&next) if next != i => i = next,
                _ => break,
            }
        }
        i
    };
    let mut incidents: Vec<Incident> = Vec::new();
    let mut by_key: BTreeMap<String, usize> = BTreeMap::new();
    let roots: Vec<usize> = (0..result.findings.len()).map(root_of).collect();
    // Roots first, in the result's order (worst first), so each incident is named by its root.
    for f in result.findings.iter().enumerate().filter(|(i, _)| roots[*i] == *i).map(|(_, f)| f) {
        let key = f.base_id();
        if let Some(&n) = by_key.get(&key) {
            let incident = &mut incidents[n];
            incident.roots.push(f.id.clone());
            if let Some(fix) = f.fix.as_ref().filter(|fix| !incident.fixes.contains(fix)) {
                incident.fixes.push(fix.clone());
            }
            for e in &f.evidence {
                if !incident.evidence.contains(e) {
                    incident.evidence.push(e.clone());
                }
            }
            continue;
        }
        by_key.insert(key, incidents.len());
        incidents.push(Incident::rooted_at(f));
    }
    for (i, f) in result.findings.iter().enumerate() {
        let root = &result.findings[roots[i]];
        let incident = &mut incidents[by_key[&root.base_id()]];
        incident.severity = incident.severity.max(f.severity);
        incident.waived &= f.waived.is_some();
        if !incident.devices.contains(&f.device) {
            incident.devices.push(f.device.clone());
        }
        if roots[i] != i {
            incident.consequences.push(f.id.clone());
            *incident.kinds.entry(kind(f).to_string()).or_default() += 1;
        }
    }
    incidents.sort_by(|a, b| {
        b.severity.cmp(&a.severity).then_with(|| b.consequences.len().cmp(&a.consequences.len())).then(a.id.cmp(&b.id))
    });
    result.incidents = incidents;
}

#[cfg(test)]
mod tests {
    use super::*;
    use fabcheck_model::Severity;

    fn finding(code: &str, severity: Severity, device: &str, port: &str, message: &str) -> Finding {
        Finding::new(code, severity, device, message).port(port)
    }

    #[test]
    fn every_finding_is_in_one_incident_named_by_the_root_its_explanations_lead_to() {
        let mut result = AuditResult {
            findings: vec![
                finding("nic.pfc_mismatch", Severity::Critical, "gpu002", "ens1np0", "PFC off"),
                finding("counter.out_of_buffer", Severity::Critical, "gpu002", "ens1np0", "drops"),
                finding("flow.nak_rate", Severity::Error, "gpu001", "ens1np0", "NAKs"),
                finding("switch.ecn_threshold", Severity::Error, "leaf2", "Ethernet1/1", "Kmin 20 KB"),
                finding("switch.ecn_threshold", Severity::Error, "leaf2", "Ethernet1/1", "Kmax 50 KB"),
                finding("flow.ecn_ce", Severity::Warning, "gpu003", "ens1np0", "CE"),
                Finding::new("ssh.unreachable", Severity::Error, "gpu009", "cannot connect"),
            ],
            ..AuditResult::default()
        }
        .finish();
        let id = |code: &str, device: &str| {
            result.findings.iter().find(|f| f.code == code && f.device == device).unwrap().id.clone()
        };
        let (pfc, drops, kmin) = (id("nic.pfc_mismatch", "gpu002"), id("counter.out_of_buffer", "gpu002"), {
            result.findings.iter().find(|f| f.message == "Kmin 20 KB").unwrap().id.clone()
        });
        let explain = |f: &mut Finding| match f.code.as_str() {
            "counter.out_of_buffer" => f.explained_by = vec![pfc.clone()],
            "flow.nak_rate" => f.explained_by = vec![drops.clone()],
            "flow.ecn_ce" => f.explained_by = vec![kmin.clone()],
            _ => {}
        };
        result.findings.iter_mut().for_each(explain);
        group(&mut result);
        let got: Vec<(&str, Severity, usize, String)> =
            result.incidents.iter().map(|i| (i.id.as_str(), i.severity, i.roots.len(), i.broke())).collect();
        assert_eq!(
            got,
            [
                ("nic.pfc_mismatch@gpu002:ens1np0", Severity::Critical, 1, "1 counter, 1 flow".to_string()),
                ("switch.ecn_threshold@leaf2:Ethernet1/1", Severity::Error, 2, "1 flow".to_string()),
                ("ssh.unreachable@gpu009", Severity::Error, 1, String::new()),
            ]
        );
        let members: usize = result.incidents.iter().map(|i| i.roots.len() + i.consequences.len()).sum();
        assert_eq!(members, result.findings.len(), "every finding in exactly one incident");
        assert_eq!(result.incidents[0].devices, ["gpu002", "gpu001"]);
        assert_eq!(result.incidents[1].kinds["flows"], 1);
    }
}
