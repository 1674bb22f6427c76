//! Correlation: a benchmark that lost bus bandwidth while a lossless-chain counter grew on one of
//! its hosts says so in one finding (bus bandwidth low while out_of_buffer grows: the
//! lossless chain is broken on that host's path, NVIDIA's "Understanding mlx5 Linux Counters"), instead of two findings a reader must connect.

use fabcheck_model::Finding;

/// Counter codes that explain a slow collective.
const CAUSES: [&str; 5] =
    ["counter.out_of_buffer", "counter.rx_discards", "counter.tx_discards", "counter.seq_err", "counter.pause_storm"];

/// Adds to every slow-benchmark finding the counter findings of its hosts, as `caused_by` and in
/// its message; and a run without GPUDirect is put on the host whose audit found the
/// peer-memory module missing (the launching host is only where the log was read).
pub fn correlate(findings: &mut [Finding]) {
    let no_peermem: Vec<String> =
        findings.iter().filter(|f| f.code == "host.gdr_disabled").map(|f| f.device.clone()).collect();
    for f in findings.iter_mut().filter(|f| f.code == "nccl.gdr_disabled") {
        // A host's own finding (it received without GDRDMA, actual `off on HOST`) stays on it;
        // the run's (actual `off`, put on the launching host) moves to the host without peermem.
        let runs_own = f.actual == "off";
        if no_peermem.contains(&f.device) {
            f.caused_by.push("host.gdr_disabled".into());
        } else if let Some(host) = f.path.iter().find(|h| no_peermem.contains(h)).filter(|_| runs_own) {
            f.device = host.clone();
            f.caused_by.push("host.gdr_disabled".into());
        }
    }
    let causes: Vec<Finding> = findings.iter().filter(|f| CAUSES.contains(&f.code.as_str())).cloned().collect();
    for f in findings.iter_mut().filter(|f| matches!(f.code.as_str(), "nccl.busbw_low" | "nccl.straggler")) {
        let hosts: Vec<&str> =
            if f.path.is_empty() { vec![f.device.as_str()] } else { f.path.iter().map(String::as_str).collect() };
        let related: Vec<&Finding> = causes.iter().filter(|c| hosts.contains(&c.device.as_str())).collect();
        for c in &related {
            if !f.caused_by.contains(&c.code) {
                f.caused_by.push(c.code.clone());
            }
        }
        if !related.is_empty() {
            let why: Vec<String> = related
                .iter()
                .map(|c| {
                    format!(
                        "{} on {}{} ({})",
                        c.code.trim_start_matches("counter."),
                        c.device,
                        c.port.as_deref().map(|p| format!(" {p}")).unwrap_or_default(),
                        c.actual
                    )
                })
                .collect();
            f.message = format!("{}; during the run: {}", f.message, why.join(", "));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fabcheck_model::Severity;

    #[test]
    fn a_run_without_gpudirect_is_put_on_the_host_without_peermem() {
        let mut gdr = Finding::new("nccl.gdr_disabled", Severity::Error, "gpu003", "pair gpu003+gpu004: no GDRDMA")
            .expected_actual("GDRDMA", "off");
        gdr.path = vec!["gpu003".into(), "gpu004".into()];
        let mut findings = vec![gdr, Finding::new("host.gdr_disabled", Severity::Error, "gpu004", "no peermem")];
        correlate(&mut findings);
        assert_eq!(
            (findings[0].device.as_str(), findings[0].caused_by.as_slice()),
            ("gpu004", ["host.gdr_disabled".to_string()].as_slice())
        );
        // A host's own finding is never moved, to a host without peermem or anywhere.
        let mut far = Finding::new("nccl.gdr_disabled", Severity::Error, "gpu003", "gpu003 receives without GDRDMA")
            .expected_actual("GDRDMA", "off on gpu003");
        far.path = vec!["gpu003".into(), "gpu004".into()];
        let mut findings = vec![far, Finding::new("host.gdr_disabled", Severity::Error, "gpu004", "no peermem")];
        correlate(&mut findings);
        assert_eq!((findings[0].device.as_str(), findings[0].caused_by.len()), ("gpu003", 0));
        // Already on a host without peermem (one host receiving without GDRDMA): kept there.
        let mut own = Finding::new("nccl.gdr_disabled", Severity::Error, "gpu004", "gpu004 receives without GDRDMA");
        own.path = vec!["gpu003".into(), "gpu004".into()];
        let mut findings = vec![
            own,
            Finding::new("host.gdr_disabled", Severity::Error, "gpu003", "no peermem"),
            Finding::new("host.gdr_disabled", Severity::Error, "gpu004", "no peermem"),
        ];
        correlate(&mut findings);
        assert_eq!(
            (findings[0].device.as_str(), findings[0].caused_by.as_slice()),
            ("gpu004", ["host.gdr_disabled".to_string()].as_slice())
        );
    }

    #[test]
    fn a_slow_run_names_the_counter_that_grew_on_its_hosts() {
        let mut slow = Finding::new("nccl.busbw_low", Severity::Error, "gpu001", "all hosts: bus bandwidth 55.0 GB/s");
        slow.path = vec!["gpu001".into(), "gpu002".into()];
        let oob = Finding::new("counter.out_of_buffer", Severity::Critical, "gpu002", "x")
            .port("ens1np0")
            .expected_actual("+0", "+48000");
        let elsewhere = Finding::new("counter.seq_err", Severity::Error, "gpu009", "y");
        let mut findings = vec![slow, oob, elsewhere];
        correlate(&mut findings);
        assert_eq!(findings[0].caused_by, ["counter.out_of_buffer"]);
        assert_eq!(
            findings[0].message,
            "all hosts: bus bandwidth 55.0 GB/s; during the run: out_of_buffer on gpu002 ens1np0 (+48000)"
        );
        assert!(findings[2].caused_by.is_empty());
    }
}
