//! The bytes live in each section of time while spilling chooses regions: a segment tree
//! over the sections with "add to a range", "the most in a range" and "the least in any
//! section", each `O(log S)` for `S` sections (a plain array costs the length of the range:
//! quadratic for nested lifetimes). One tree serves every region in turn: [`LiveBytes::reset`]
//! clears only the nodes touched since the last reset, so a region that takes little costs
//! little, however many sections there are.

/// Bytes per section, exact (a sum of at most `2^64` sizes of at most `2^64 - 1` bytes
/// fits in a `u128`).
pub(super) struct LiveBytes {
    /// Leaves: a power of two, at least the number of sections.
    leaves: usize,
    /// The number of sections (leaves past it are padding).
    sections: usize,
    /// Per node: the most bytes in a section under it, counting the adds of its own
    /// subtree only.
    most: Vec<u128>,
    /// Per node: the least bytes in a (real) section under it, likewise; `u128::MAX` under
    /// padding only.
    least: Vec<u128>,
    /// Per node: bytes added to every section under it.
    added: Vec<u128>,
    /// Nodes changed since the last reset.
    touched: Vec<usize>,
}

impl LiveBytes {
    /// Nothing live in any of `sections` sections.
    pub(super) fn new(sections: usize) -> LiveBytes {
        let leaves = sections.max(1).next_power_of_two();
        let mut t = LiveBytes {
            leaves,
            sections,
            most: vec![0; 2 * leaves],
            least: vec![0; 2 * leaves],
            added: vec![0; 2 * leaves],
            touched: Vec::new(),
        };
        for v in (1..2 * leaves).rev() {
            t.least[v] = t.least_initial(v);
        }
        t
    }

    /// Node `v`'s least with nothing added: 0 over a real section, `u128::MAX` over
    /// padding only.
    fn least_initial(&self, v: usize) -> u128 {
        // Node `v` at depth `d` covers `leaves >> d` leaves from `(v - 2^d) * width`.
        let depth = v.ilog2();
        let width = self.leaves >> depth;
        let first = (v - (1 << depth)) * width;
        if first < self.sections { 0 } else { u128::MAX }
    }

    /// Nothing live again, in time proportional to the nodes touched since the last reset.
    pub(super) fn reset(&mut self) {
        for v in std::mem::take(&mut self.touched) {
            self.most[v] = 0;
            self.added[v] = 0;
            self.least[v] = self.least_initial(v);
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

    /// The least bytes live in any section (0 with no section).
    pub(super) fn least(&self) -> u128 {
        if self.sections == 0 { 0 } else { self.least[1] }
    }

    fn add_at(&mut self, v: usize, l: usize, r: usize, lo: usize, hi: usize, bytes: u128) {
        if hi <= l || r <= lo {
            return;
        }
        self.touched.push(v);
        if lo <= l && r <= hi {
            self.added[v] += bytes;
            self.most[v] += bytes;
            self.least[v] = self.least[v].saturating_add(bytes);
            return;
        }
        let m = l + (r - l) / 2;
        self.add_at(2 * v, l, m, lo, hi, bytes);
        self.add_at(2 * v + 1, m, r, lo, hi, bytes);
        self.most[v] = self.added[v] + self.most[2 * v].max(self.most[2 * v + 1]);
        self.least[v] = self.least[2 * v]
            .min(self.least[2 * v + 1])
            .saturating_add(self.added[v]);
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
            for (k, (a, b, bytes, query)) in ops.into_iter().enumerate() {
                let (lo, hi) = (a.min(b).min(19), a.max(b).min(19));
                if query {
                    let want = plain[lo..hi].iter().copied().max().unwrap_or(0);
                    prop_assert_eq!(tree.most((lo, hi)), want);
                    prop_assert_eq!(tree.least(), plain.iter().copied().min().unwrap());
                } else if k % 7 == 6 {
                    // Now and then, start again (as the next region does).
                    tree.reset();
                    plain.iter_mut().for_each(|p| *p = 0);
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
