//! Finding the slow host (a synchronous all-reduce runs at the pace of its slowest rank).
//!
//! Pairwise with the two-pass rule: round 1 pairs every host with another and runs all pairs at
//! once; a slow pair does not yet say which of its two hosts is slow, so in round 2 each host of a
//! slow pair is re-paired with a host from a fast pair (known good). Only a host that is slow again
//! next to a known-good partner is blamed. One slow host among 64 is named after 2 rounds of
//! parallel pairs; an odd host out is checked in round 2 with a known-good partner.
//! Bisection narrows a slow multi-host job the same way: halves run side by side, the slow half
//! is split again, down to a pair, which the two-pass rule settles.
//!
//! The planning here is pure; running the pairs is the driver's job (`run.rs`).

/// One run and whether it was slow (below the floor, or failed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trial {
    /// The hosts that ran together.
    pub hosts: Vec<String>,
    /// Too slow, or did not finish.
    pub slow: bool,
}

/// Round 1: hosts two by two; an odd host out waits for round 2.
pub fn first_round(hosts: &[String]) -> (Vec<Vec<String>>, Option<String>) {
    let pairs = hosts.chunks_exact(2).map(|c| c.to_vec()).collect();
    let odd = (hosts.len() % 2 == 1).then(|| hosts[hosts.len() - 1].clone());
    (pairs, odd)
}

/// Round 2: every host of a slow pair, and the odd host out, next to a different known-good
/// host. `None` when there is no known-good host to compare with (every pair was slow: the
/// problem is not one host).
pub fn second_round(first: &[Trial], odd: Option<&String>) -> Option<Vec<Vec<String>>> {
    let good: Vec<&String> = first.iter().filter(|t| !t.slow).flat_map(|t| &t.hosts).collect();
    let suspects: Vec<&String> = first.iter().filter(|t| t.slow).flat_map(|t| &t.hosts).chain(odd).collect();
    if suspects.is_empty() {
        return Some(Vec::new());
    }
    if good.is_empty() {
        return None;
    }
    Some(suspects.iter().enumerate().map(|(i, s)| vec![(*s).clone(), good[i % good.len()].clone()]).collect())
}

/// What the two rounds say.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Isolation {
    /// Slow next to a known-good host: to blame.
    pub stragglers: Vec<String>,
    /// Hosts of slow pairs that were fast next to a known-good host. When both hosts of a slow
    /// pair are cleared, the problem is between them (a path), not in either.
    pub cleared: Vec<String>,
}

/// Blames the suspects that were slow again in round 2 (the first host of each round-2 run is
/// the suspect, the second the known-good partner).
pub fn verdict(second: &[Trial]) -> Isolation {
    let mut iso = Isolation::default();
    for t in second {
        if let Some(suspect) = t.hosts.first() {
            if t.slow { iso.stragglers.push(suspect.clone()) } else { iso.cleared.push(suspect.clone()) }
        }
    }
    iso.stragglers.sort();
    iso.stragglers.dedup();
    iso.cleared.sort();
    iso.cleared.dedup();
    iso
}

/// Bisection: the two halves of a slow job, to run side by side.
pub fn halves(hosts: &[String]) -> (Vec<String>, Vec<String>) {
    let mid = hosts.len().div_ceil(2);
    (hosts[..mid].to_vec(), hosts[mid..].to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hosts(n: usize) -> Vec<String> {
        (1..=n).map(|i| format!("gpu{i:03}")).collect()
    }

    /// Runs the plan against a cluster where `bad` hosts make any run they are in slow.
    fn isolate(all: &[String], bad: &[&str]) -> (Isolation, usize) {
        let slow = |h: &[String]| h.iter().any(|x| bad.contains(&x.as_str()));
        let (pairs, odd) = first_round(all);
        let first: Vec<Trial> = pairs.into_iter().map(|p| Trial { slow: slow(&p), hosts: p }).collect();
        let second: Vec<Trial> = second_round(&first, odd.as_ref())
            .unwrap()
            .into_iter()
            .map(|p| Trial { slow: slow(&p), hosts: p })
            .collect();
        let rounds = if second.is_empty() { 1 } else { 2 };
        (verdict(&second), rounds)
    }

    #[test]
    fn one_slow_host_among_64_is_named_in_two_rounds() {
        let all = hosts(64);
        let (iso, rounds) = isolate(&all, &["gpu037"]);
        assert_eq!(iso.stragglers, ["gpu037"]);
        assert_eq!(iso.cleared, ["gpu038"], "its round-1 partner is cleared, not blamed");
        assert_eq!(rounds, 2);
    }

    #[test]
    fn a_clean_cluster_needs_one_round_and_blames_nobody() {
        let (iso, rounds) = isolate(&hosts(8), &[]);
        assert_eq!((iso, rounds), (Isolation::default(), 1));
    }

    #[test]
    fn two_slow_hosts_in_one_pair_are_both_named() {
        let (iso, _) = isolate(&hosts(8), &["gpu003", "gpu004"]);
        assert_eq!(iso.stragglers, ["gpu003", "gpu004"]);
    }

    #[test]
    fn the_odd_host_out_is_checked_with_a_good_partner() {
        let (iso, rounds) = isolate(&hosts(5), &["gpu005"]);
        assert_eq!((iso.stragglers.as_slice(), rounds), (["gpu005".to_string()].as_slice(), 2));
    }

    #[test]
    fn when_every_pair_is_slow_nobody_is_blamed() {
        let first = vec![Trial { hosts: hosts(2), slow: true }];
        assert_eq!(second_round(&first, None), None);
    }

    #[test]
    fn halves_split_evenly() {
        let (a, b) = halves(&hosts(5));
        assert_eq!((a.len(), b.len()), (3, 2));
    }
}
