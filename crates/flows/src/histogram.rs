//! Completion times kept in bounded memory: a log-linear histogram (16 sub-buckets per power of
//! two, so a percentile is within 1/16 of the true value), exact minimum and maximum.
use std::collections::BTreeMap;

/// Sub-buckets per power of two.
const SUB: u32 = 16;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Histogram {
    buckets: BTreeMap<u32, u64>,
    count: u64,
    min: Option<u64>,
    max: Option<u64>,
}

impl Histogram {
    pub fn record(&mut self, v: u64) {
        *self.buckets.entry(bucket(v)).or_default() += 1;
        self.count += 1;
        self.min = Some(self.min.map_or(v, |m| m.min(v)));
        self.max = Some(self.max.map_or(v, |m| m.max(v)));
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn min(&self) -> Option<u64> {
        self.min
    }

    pub fn max(&self) -> Option<u64> {
        self.max
    }

    /// The value at quantile `q` (0..=1): the upper edge of its bucket, within [min, max].
    pub fn quantile(&self, q: f64) -> Option<u64> {
        let rank = ((q * self.count as f64).ceil() as u64).clamp(1, self.count.max(1));
        let mut seen = 0;
        for (b, n) in &self.buckets {
            seen += n;
            if seen >= rank {
                return Some(upper(*b).clamp(self.min?, self.max?));
            }
        }
        self.max
    }
}

/// The bucket of `v`: values below 16 exactly, then 16 per power of two.
fn bucket(v: u64) -> u32 {
    if v < u64::from(SUB) {
        return v as u32;
    }
    let exp = 63 - v.leading_zeros(); // v >= 16: exp >= 4
    let sub = ((v >> (exp - 4)) & 0xf) as u32;
    (exp - 3) * SUB + sub
}

/// The largest value of bucket `b`.
fn upper(b: u32) -> u64 {
    if b < SUB {
        return u64::from(b);
    }
    let exp = b / SUB + 3;
    let sub = u128::from(b % SUB);
    let next = (16 + sub + 1) << (exp - 4);
    u64::try_from(next - 1).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_within_a_sixteenth() {
        let mut h = Histogram::default();
        for v in 1..=1000u64 {
            h.record(v * 1000);
        }
        let p50 = h.quantile(0.5).unwrap();
        assert!((500_000..=500_000 + 500_000 / 16).contains(&p50), "{p50}");
        let p99 = h.quantile(0.99).unwrap();
        assert!((990_000..=990_000 + 990_000 / 16).contains(&p99), "{p99}");
        assert_eq!((h.min(), h.max(), h.count()), (Some(1000), Some(1_000_000), 1000));
        for v in [0u64, 5, 15, 16, 17, 31, 32, 1 << 40, u64::MAX] {
            assert!(upper(bucket(v)) >= v, "{v}");
        }
        assert_eq!(Histogram::default().quantile(0.5), None);
    }
}
