//! The traffic classes a policy describes, as the checks see them whichever form the policy
//! wrote them in (`roce` for one lossless class, `lossless` for several), and the rules that
//! keep them consistent: what cannot be built is refused when the policy is read, what can be
//! built but is unusual is a warning `fabcheck policy check` prints.

use super::{Policy, Scheduling, TrafficClass};

impl Policy {
    /// The lossless classes: `lossless`, or `roce` as the only one.
    pub fn lossless_classes(&self) -> Vec<&TrafficClass> {
        if self.lossless.is_empty() { self.roce.iter().collect() } else { self.lossless.iter().collect() }
    }

    /// Exactly the priorities PFC must be on: `pfc.priorities`, else those of the `lossless`
    /// classes. (A one-class `roce` policy without `pfc.priorities` checks no PFC set, as it
    /// always has.)
    pub fn lossless_priorities(&self) -> Option<Vec<u8>> {
        let mut set = match self.pfc.as_ref().and_then(|p| p.priorities.clone()) {
            Some(p) => p,
            None if !self.lossless.is_empty() => self.lossless.iter().filter_map(|c| c.priority).collect(),
            None => return None,
        };
        set.sort_unstable();
        set.dedup();
        Some(set)
    }

    /// Every DSCP of every lossless class.
    pub fn lossless_dscps(&self) -> Vec<u8> {
        self.lossless_classes().iter().flat_map(|c| c.dscps().iter().copied()).collect()
    }

    /// Whether the class's queue must mark ECN (and its priority run DCQCN): its own `ecn`, else
    /// `ecn.enabled`.
    pub fn class_ecn(&self, class: &TrafficClass) -> Option<bool> {
        class.ecn.or(self.ecn.as_ref().and_then(|e| e.enabled))
    }

    /// Whether the CNP queue must be strict priority: a CNP class with a traffic class or
    /// priority whose `queue` is not `weighted`.
    pub fn cnp_queue_strict(&self) -> Option<u8> {
        let cnp = self.cnp.as_ref()?;
        (cnp.queue != Some(Scheduling::Weighted)).then_some(())?;
        cnp.switch_tc()
    }

    /// Each class with the key it is written under (`roce`, `lossless[1]`, `cnp`).
    fn keyed_classes(&self) -> Vec<(String, &TrafficClass)> {
        let mut out: Vec<(String, &TrafficClass)> = self.roce.iter().map(|c| ("roce".to_string(), c)).collect();
        out.extend(self.lossless.iter().enumerate().map(|(i, c)| (format!("lossless[{i}]"), c)));
        out.extend(self.cnp.iter().map(|c| ("cnp".to_string(), c)));
        out
    }

    /// What makes the classes impossible to build: out-of-range values, keys in the wrong
    /// section, a DSCP in two classes (a packet has one DSCP and lands in one queue), a lossless
    /// class on a priority PFC leaves lossy.
    pub(super) fn validate_classes(&self) -> Result<(), String> {
        if self.roce.is_some() && !self.lossless.is_empty() {
            return Err(
                "roce and lossless: give one lossless class as `roce` or several as `lossless`, not both".into()
            );
        }
        let mut owner: [Option<String>; 64] = std::array::from_fn(|_| None);
        for (key, class) in self.keyed_classes() {
            if let Some(d) = class.dscps().iter().find(|d| **d > 63) {
                return Err(format!("{key}.dscp: DSCP {d} is out of range 0-63"));
            }
            for (what, value) in [("priority", class.priority), ("traffic_class", class.traffic_class)] {
                if let Some(v) = value.filter(|v| *v > 7) {
                    return Err(format!("{key}.{what}: {what} {v} is out of range 0-7")
                        .replace("priority priority", "priority"));
                }
            }
            let cnp = key == "cnp";
            if cnp && (class.name.is_some() || class.ecn.is_some()) {
                return Err("cnp: `name` and `ecn` belong to lossless classes".into());
            }
            if !cnp && class.queue.is_some() {
                return Err(format!("{key}.queue: only the cnp class takes a queue scheduling"));
            }
            for &d in class.dscps() {
                if let Some(first) = &owner[usize::from(d)] {
                    return Err(format!("{key}.dscp: DSCP {d} is already in {first}: a packet lands in one class"));
                }
                owner[usize::from(d)] = Some(key.clone());
            }
            if let (false, Some(p), Some(pfc)) =
                (cnp, class.priority, self.pfc.as_ref().and_then(|p| p.priorities.as_ref()))
                && !pfc.contains(&p)
            {
                return Err(format!(
                    "{key}.priority: priority {p} is a lossless class but not in pfc.priorities {pfc:?}"
                ));
            }
        }
        Ok(())
    }

    /// Keys that can be built but contradict each other or what RoCE needs, each said in a
    /// sentence: `fabcheck policy check` prints them.
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        let lossless = self.lossless_priorities().unwrap_or_default();
        if let Some(p) = self.cnp.as_ref().and_then(|c| c.priority).filter(|p| lossless.contains(p)) {
            out.push(format!("cnp.priority {p} is also lossless: CNPs are paused with the data they should slow down"));
        }
        let dcqcn = self.nic.as_ref().and_then(|n| n.dcqcn) == Some(super::Requirement::Required);
        for class in self.lossless_classes() {
            if dcqcn && self.class_ecn(class) == Some(false) {
                out.push(format!(
                    "nic.dcqcn is required but ECN is off for the {} class: the NICs wait for CNPs no switch will cause",
                    class.label()
                ));
            }
            if class.priority.is_none() {
                out.push(format!("the {} class has no priority: its DSCP map is not checked", class.label()));
            }
        }
        if dcqcn && self.cnp.is_none() {
            out.push("nic.dcqcn is required but no cnp class is given: CNP marking is not checked".into());
        }
        for name in self.counters.keys() {
            let prio = name
                .strip_prefix("rx_prio")
                .or_else(|| name.strip_prefix("tx_prio"))
                .and_then(|r| r.strip_suffix("_pause"))
                .and_then(|p| p.parse::<u8>().ok());
            if let Some(p) = prio.filter(|p| !lossless.is_empty() && !lossless.contains(p)) {
                out.push(format!("counters.{name}: priority {p} is not lossless, so it should see no pause at all"));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::Policy;

    const SONIC_LIKE: &str = "lossless:\n  - { dscp: 3, priority: 3 }\n  - { dscp: 4, priority: 4, ecn: false }\n\
                              ecn: { enabled: true }\ncnp: { dscp: 48, priority: 6, queue: weighted }\n";

    #[test]
    fn several_lossless_classes_set_the_pfc_priorities_and_their_own_ecn() {
        let p = Policy::parse(SONIC_LIKE, "p.yaml").unwrap();
        assert_eq!(p.lossless_priorities(), Some(vec![3, 4]));
        assert_eq!(p.lossless_dscps(), [3, 4]);
        let ecn: Vec<_> = p.lossless_classes().iter().map(|c| p.class_ecn(c)).collect();
        assert_eq!(ecn, [Some(true), Some(false)]);
        assert_eq!(p.cnp_queue_strict(), None, "a weighted CNP queue is not asked to be strict");
    }

    #[test]
    fn the_one_class_form_keeps_its_meaning() {
        let p = Policy::parse("roce: { dscp: 26, priority: 3 }\ncnp: { dscp: 48, priority: 6 }\n", "p.yaml").unwrap();
        assert_eq!(p.lossless_priorities(), None, "no pfc.priorities: no PFC set is checked, as before");
        assert_eq!(p.lossless_dscps(), [26]);
        assert_eq!(p.cnp_queue_strict(), Some(6), "a CNP class is strict unless it says weighted");
    }

    #[test]
    fn classes_that_cannot_be_built_are_refused_naming_the_key() {
        for (text, says) in [
            ("roce: { dscp: 26 }\nlossless: [{ dscp: 3 }]\n", "roce and lossless"),
            ("lossless: [{ dscp: 3 }, { dscp: 3 }]\n", "lossless[1].dscp: DSCP 3 is already in lossless[0]"),
            ("roce: { dscp: 48 }\ncnp: { dscp: 48 }\n", "cnp.dscp: DSCP 48 is already in roce"),
            (
                "lossless: [{ priority: 4 }]\npfc: { priorities: [3] }\n",
                "lossless[0].priority: priority 4 is a lossless class but not in pfc.priorities",
            ),
            ("cnp: { ecn: true }\n", "cnp: `name` and `ecn` belong to lossless classes"),
            ("roce: { queue: strict }\n", "roce.queue: only the cnp class"),
            ("lossless: [{ traffic_class: 9 }]\n", "lossless[0].traffic_class: traffic_class 9 is out of range 0-7"),
            ("cnp: { priority: 8 }\n", "cnp.priority: priority 8 is out of range 0-7"),
        ] {
            let e = Policy::parse(text, "p.yaml").unwrap_err().to_string();
            assert!(e.contains(says), "{text}: {e}");
        }
    }

    #[test]
    fn contradictions_that_can_be_built_are_warnings() {
        let p = Policy::parse(
            "lossless: [{ dscp: 26, priority: 3, ecn: false }, { dscp: 30 }]\ncnp: { priority: 3 }\n\
             nic: { dcqcn: required }\ncounters: { rx_prio5_pause: { max: 0 } }\n",
            "p.yaml",
        )
        .unwrap();
        let w = p.warnings().join("\n");
        for says in [
            "cnp.priority 3 is also lossless",
            "ECN is off for the RoCE class",
            "has no priority",
            "counters.rx_prio5_pause: priority 5 is not lossless",
        ] {
            assert!(w.contains(says), "{says} missing from:\n{w}");
        }
        assert!(Policy::parse(crate::policy::DEFAULT_POLICY, "built-in").unwrap().warnings().is_empty());
    }
}
