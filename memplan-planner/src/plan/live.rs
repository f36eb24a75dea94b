//! The bytes live in each section of time while spilling chooses regions: a segment tree
//! over the sections with "add to a range" and "the most in a range", each `O(log S)` for
//! `S` sections, where a plain array costs the length of the range (quadratic for nested
//! lifetimes).

/// Bytes per section, exact (a sum of at most `2^64` sizes of at most `2^64 - 1` bytes
/// fits in a `u128`).
pub(super) struct LiveBytes {
    /// Leaves: a power of two, at least the number of sections.
    leaves: usize,
    /// Per node: the most bytes in a section under it, counting the adds of its own
    /// subtree only.
    most: Vec<u128>,
    /// Per node: bytes added to every section under it.
    added: Vec<u128>,
}

impl LiveBytes {
    /// Nothing live in any of `sections` sections.
    pub(super) fn new(sections: usize) -> LiveBytes {
        let leaves = sections.max(1).next_power_of_two();
        LiveBytes {
            leaves,
            most: vec![0; 2 * leaves],
            added: vec![0; 2 * leaves],
        }
    }

    /// Adds `bytes` to every section in `[lo, hi)`.
    pub(super) fn add(&mut self, (lo, hi): (usize, usize), bytes: u64) {
        if lo < hi {
            self.add_at(1, 0, self.leaves, lo, hi, u128::from(bytes));
        }
    }

    /// The most bytes live in one section of `[lo, hi)` (0 for an empty range).
    pub(super) fn most(&self, (lo, hi): (usize, usize)) -> u128 {
        if lo < hi {
            self.most_at(1, 0, self.leaves, lo, hi)
        } else {
            0
        }
    }

    fn add_at(&mut self, v: usize, l: usize, r: usize, lo: usize, hi: usize, bytes: u128) {
        if hi <= l || r <= lo {
            return;
        }
        if lo <= l && r <= hi {
            self.added[v] += bytes;
            self.most[v] += bytes;
            return;
        }
        let m = l + (r - l) / 2;
        self.add_at(2 * v, l, m, lo, hi, bytes);
        self.add_at(2 * v + 1, m, r, lo, hi, bytes);
        self.most[v] = self.added[v] + self.most[2 * v].max(self.most[2 * v + 1]);
    }

    fn most_at(&self, v: usize, l: usize, r: usize, lo: usize, hi: usize) -> u128 {
        if hi <= l || r <= lo {
            return 0;
        }
        if lo <= l && r <= hi {
            return self.most[v];
        }
        let m = l + (r - l) / 2;
        self.added[v]
            + self
                .most_at(2 * v, l, m, lo, hi)
                .max(self.most_at(2 * v + 1, m, r, lo, hi))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn adds_and_maxima_match_an_array(
            ops in proptest::collection::vec((0usize..20, 0usize..20, 0u64..1000, any::<bool>()), 1..60),
        ) {
            let mut tree = LiveBytes::new(19);
            let mut plain = vec![0u128; 19];
            for (a, b, bytes, query) in ops {
                let (lo, hi) = (a.min(b).min(19), a.max(b).min(19));
                if query {
                    let want = plain[lo..hi].iter().copied().max().unwrap_or(0);
                    prop_assert_eq!(tree.most((lo, hi)), want);
                } else {
                    tree.add((lo, hi), bytes);
                    plain[lo..hi].iter_mut().for_each(|p| *p += u128::from(bytes));
                }
            }
        }
    }

    #[test]
    fn sums_past_u64_are_exact() {
        let mut t = LiveBytes::new(3);
        t.add((0, 2), u64::MAX);
        t.add((1, 3), u64::MAX);
        assert_eq!(t.most((0, 3)), 2 * u128::from(u64::MAX));
        assert_eq!(t.most((2, 3)), u128::from(u64::MAX));
    }
}
