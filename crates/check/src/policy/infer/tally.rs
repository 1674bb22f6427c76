//! Votes on one setting and what they decide. A value is the fleet's when it is a **clear
//! majority**: held by at least two thirds of the ports (or hosts) whose setting was read. Two
//! thirds, not half: a fabric split 60/40 is two designs, or a rollout half done, and writing
//! either half into a policy would call the other half broken; the operator decides that. A
//! setting nobody read gets no vote and no key.

use std::collections::BTreeMap;

/// The share of the votes a value needs: two in three.
pub const CLEAR: (usize, usize) = (2, 3);

/// Who holds which value of one setting.
#[derive(Debug, Clone)]
pub struct Tally<T> {
    votes: BTreeMap<T, Vec<String>>,
}

impl<T: Ord + Clone> Default for Tally<T> {
    fn default() -> Self {
        Tally { votes: BTreeMap::new() }
    }
}

/// What the votes decided.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision<T> {
    /// Nobody's setting was read.
    Unread,
    /// The value a clear majority holds, how many hold it of how many, and who does not
    /// (with their value).
    Clear { value: T, count: usize, total: usize, others: Vec<(String, T)> },
    /// No value is held by a clear majority: every value with its holders' count.
    Split { values: Vec<(T, usize)>, total: usize },
}

impl<T: Ord + Clone> Tally<T> {
    /// `who` (a device, or `device:port`) holds `value`.
    pub fn vote(&mut self, who: impl Into<String>, value: T) {
        self.votes.entry(value).or_default().push(who.into());
    }

    /// How many voted.
    pub fn total(&self) -> usize {
        self.votes.values().map(Vec::len).sum()
    }

    /// The decision.
    pub fn decide(&self) -> Decision<T> {
        let total = self.total();
        let Some((value, holders)) = self.votes.iter().max_by_key(|(_, h)| h.len()) else {
            return Decision::Unread;
        };
        if holders.len() * CLEAR.1 >= total * CLEAR.0 {
            let others = self
                .votes
                .iter()
                .filter(|(v, _)| *v != value)
                .flat_map(|(v, who)| who.iter().map(move |w| (w.clone(), v.clone())))
                .collect();
            Decision::Clear { value: value.clone(), count: holders.len(), total, others }
        } else {
            let mut values: Vec<(T, usize)> = self.votes.iter().map(|(v, h)| (v.clone(), h.len())).collect();
            values.sort_by_key(|v| std::cmp::Reverse(v.1));
            Decision::Split { values, total }
        }
    }
}

impl<T> Decision<Option<T>> {
    /// A decision on a value that may be absent (a DSCP a port leaves unmapped), as a decision
    /// on the value: a clear majority of "absent" decides nothing.
    pub fn flatten(self) -> Decision<T> {
        match self {
            Decision::Clear { value: Some(value), count, total, others } => Decision::Clear {
                value,
                count,
                total,
                others: others.into_iter().filter_map(|(who, v)| Some((who, v?))).collect(),
            },
            Decision::Clear { value: None, .. } | Decision::Unread => Decision::Unread,
            Decision::Split { values, total } => {
                Decision::Split { values: values.into_iter().filter_map(|(v, n)| Some((v?, n))).collect(), total }
            }
        }
    }
}

impl<T> Decision<T> {
    /// The clear majority's value.
    pub fn value(&self) -> Option<&T> {
        match self {
            Decision::Clear { value, .. } => Some(value),
            _ => None,
        }
    }
}

/// How far a range reaches past the values it was drawn from, in percent: vendors round a
/// threshold to their buffer cells and print kilobytes of 1,000 or 1,024 bytes, so the same
/// configured value reads a little differently from one platform to the next (150 KB on one,
/// 146 on another).
pub const RANGE_MARGIN_PERCENT: u64 = 5;

/// The tightest range `[low, high]` that holds a clear majority of `values` (an ECN threshold
/// the fleet runs, allowing for the few that differ), widened by [`RANGE_MARGIN_PERCENT`] each
/// way, or `None` when there are no values.
pub fn majority_range(values: &mut [u64]) -> Option<[u64; 2]> {
    values.sort_unstable();
    let n = values.len();
    let need = (n * CLEAR.0).div_ceil(CLEAR.1).max(1);
    let [lo, hi] =
        (0..=n.checked_sub(need)?).map(|i| [values[i], values[i + need - 1]]).min_by_key(|[lo, hi]| hi - lo)?;
    let (below, above) = (lo * (100 - RANGE_MARGIN_PERCENT) / 100, (hi * (100 + RANGE_MARGIN_PERCENT)).div_ceil(100));
    // Values within the margin join the majority's window before it is widened: the same
    // setting read 1,495 on one platform and 1,500 on the others is one value, and a fault on
    // one port must not move the range by tipping which of them is the tightest two thirds.
    let lo = values.iter().copied().filter(|v| *v >= below).min().unwrap_or(lo);
    let hi = values.iter().copied().filter(|v| *v <= above).max().unwrap_or(hi);
    Some([lo * (100 - RANGE_MARGIN_PERCENT) / 100, (hi * (100 + RANGE_MARGIN_PERCENT)).div_ceil(100)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_thirds_is_a_clear_majority_and_half_is_a_split() {
        let mut t = Tally::default();
        for who in ["a", "b"] {
            t.vote(who, 3u8);
        }
        t.vote("c", 4);
        assert_eq!(t.decide(), Decision::Clear { value: 3, count: 2, total: 3, others: vec![("c".into(), 4)] });
        t.vote("d", 4);
        assert_eq!(t.decide(), Decision::Split { values: vec![(3, 2), (4, 2)], total: 4 });
        assert_eq!(Tally::<u8>::default().decide(), Decision::Unread);
    }

    #[test]
    fn the_range_holds_the_majority_and_leaves_the_outliers_out() {
        assert_eq!(majority_range(&mut [150, 150, 150, 20]), Some([142, 158]));
        assert_eq!(majority_range(&mut [100, 200, 300]), Some([95, 210]), "two of three");
        assert_eq!(majority_range(&mut [100, 120, 5000, 110, 20, 115]), Some([95, 126]));
        assert_eq!(majority_range(&mut []), None);
        // 1,495 within 5 % of 1,500 joins the majority whichever of the two is tightest.
        assert_eq!(majority_range(&mut [1500, 1500, 1500, 1495, 1495]), Some([1420, 1575]));
        assert_eq!(majority_range(&mut [1500, 1500, 50, 1495, 1495]), Some([1420, 1575]));
    }
}
