//! Every pair of buffers of one region that are live at a common step and share bytes,
//! without comparing every pair (the planner's check of pinned buffers, and `memplan
//! check` on a plan file's offsets): a sweep over the steps keeps the live buffers in a
//! segment tree over their start offsets, each node holding the largest end below it.
//! When a buffer starts, the live buffers that share bytes with it are those that start
//! below its end and end above its start: the query descends only into nodes whose largest
//! end is above its start, so each reported pair costs O(log n), and a plan without
//! overlaps costs O(n log n) in all.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};

/// A buffer as [`overlapping_pairs`] needs it: its bytes and its lifetime.
#[derive(Clone, Copy, Debug)]
pub struct Extent {
    /// Offset in bytes.
    pub offset: u64,
    /// Size in bytes.
    pub size: u64,
    /// First step live.
    pub first: u32,
    /// Last step live (inclusive).
    pub last: u32,
}

impl Extent {
    /// One past its last byte (saturating).
    pub fn end(&self) -> u64 {
        self.offset.saturating_add(self.size)
    }
}

/// The live buffers, by start offset.
struct Live {
    /// The distinct start offsets, sorted: leaf `k` holds the buffers starting at `starts[k]`.
    starts: Vec<u64>,
    /// Per leaf, its live buffers as (end, index).
    leaves: Vec<BTreeSet<(u64, usize)>>,
    /// Largest end in each node's leaves (0 when none); leaves at `size..2 * size`.
    max_end: Vec<u64>,
    size: usize,
}

impl Live {
    fn new(mut starts: Vec<u64>) -> Live {
        starts.sort_unstable();
        starts.dedup();
        let size = starts.len().next_power_of_two();
        Live {
            leaves: vec![BTreeSet::new(); starts.len()],
            max_end: vec![0; 2 * size],
            starts,
            size,
        }
    }

    fn leaf(&self, offset: u64) -> usize {
        self.starts.partition_point(|&s| s < offset)
    }

    fn update(&mut self, k: usize) {
        let mut node = self.size + k;
        self.max_end[node] = self.leaves[k].last().map_or(0, |&(end, _)| end);
        while node > 1 {
            node /= 2;
            self.max_end[node] = self.max_end[2 * node].max(self.max_end[2 * node + 1]);
        }
    }

    fn insert(&mut self, e: &Extent, i: usize) {
        let k = self.leaf(e.offset);
        self.leaves[k].insert((e.end(), i));
        self.update(k);
    }

    fn remove(&mut self, e: &Extent, i: usize) {
        let k = self.leaf(e.offset);
        self.leaves[k].remove(&(e.end(), i));
        self.update(k);
    }

    /// Every live buffer that starts below `end` and ends above `start`.
    fn sharing(&self, start: u64, end: u64, out: &mut Vec<usize>) {
        let below = self.starts.partition_point(|&s| s < end);
        let mut stack = vec![(1usize, 0usize, self.size)];
        while let Some((node, lo, hi)) = stack.pop() {
            if lo >= below || self.max_end[node] <= start {
                continue;
            }
            if hi - lo == 1 {
                let found = self.leaves[lo].range((start.saturating_add(1), 0)..);
                out.extend(found.map(|&(_, j)| j));
                continue;
            }
            let mid = (lo + hi) / 2;
            stack.push((2 * node + 1, mid, hi));
            stack.push((2 * node, lo, mid));
        }
    }
}

/// Every pair `(a, b)` of `extents` with bytes that are live at a common step and share
/// bytes, `a` the one that starts first (by step, then by index).
pub fn overlapping_pairs(extents: &[Extent]) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    for_each_overlapping_pair(extents, |a, b| {
        pairs.push((a, b));
        true
    });
    pairs
}

/// [`overlapping_pairs`] one at a time, in the same order, to `visit`, until it returns
/// `false`: then the sweep stops, so that a caller that wants the first few of a plan with
/// millions of pairs does the work of those few (`O(n log n)`, and `O(log n)` per pair
/// visited, plus the live buffers of the last step reached). Returns whether every pair was
/// visited.
pub fn for_each_overlapping_pair(
    extents: &[Extent],
    mut visit: impl FnMut(usize, usize) -> bool,
) -> bool {
    let mut order: Vec<usize> = (0..extents.len())
        .filter(|&i| extents[i].size > 0)
        .collect();
    order.sort_by_key(|&i| (extents[i].first, i));
    let mut live = Live::new(order.iter().map(|&i| extents[i].offset).collect());
    let mut ending: BinaryHeap<Reverse<(u32, usize)>> = BinaryHeap::new();
    let mut found = Vec::new();
    for &i in &order {
        let e = &extents[i];
        while let Some(&Reverse((last, j))) = ending.peek() {
            if last >= e.first {
                break;
            }
            ending.pop();
            live.remove(&extents[j], j);
        }
        found.clear();
        live.sharing(e.offset, e.end(), &mut found);
        found.sort_unstable();
        for &j in &found {
            if !visit(j, i) {
                return false;
            }
        }
        live.insert(e, i);
        ending.push(Reverse((e.last, i)));
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sweep_stops_when_asked() {
        // 20,000 buffers on the same bytes at one step: 200 million pairs, of which the
        // first ten are visited, at once.
        let extents: Vec<Extent> = (0..20_000).map(|_| ext(0, 16, 0, 0)).collect();
        let start = std::time::Instant::now();
        let mut seen = Vec::new();
        let complete = for_each_overlapping_pair(&extents, |a, b| {
            seen.push((a, b));
            seen.len() < 10
        });
        assert!(!complete);
        assert_eq!(
            seen,
            (0..5)
                .flat_map(|i| (0..i).map(move |j| (j, i)))
                .collect::<Vec<_>>()
        );
        assert!(start.elapsed().as_secs() < 5);
        assert!(for_each_overlapping_pair(&extents[..3], |_, _| true));
    }

    fn ext(offset: u64, size: u64, first: u32, last: u32) -> Extent {
        Extent {
            offset,
            size,
            first,
            last,
        }
    }

    fn quadratic(extents: &[Extent]) -> Vec<(usize, usize)> {
        let mut v = Vec::new();
        for a in 0..extents.len() {
            for b in 0..extents.len() {
                let (x, y) = (&extents[a], &extents[b]);
                let before = (x.first, a) < (y.first, b);
                if before
                    && x.size > 0
                    && y.size > 0
                    && x.first <= y.last
                    && y.first <= x.last
                    && x.offset < y.end()
                    && y.offset < x.end()
                {
                    v.push((a, b));
                }
            }
        }
        v.sort();
        v
    }

    #[test]
    fn finds_exactly_the_pairs_that_share_a_step_and_a_byte() {
        let extents = [
            ext(0, 100, 0, 2),
            ext(100, 50, 1, 3), // touches the first: no overlap
            ext(90, 20, 2, 2),  // overlaps both
            ext(0, 100, 3, 4),  // the first's bytes, after it: no overlap; the second's? no
            ext(40, 0, 0, 4),   // zero-size: never
            ext(0, 1000, 4, 4), // overlaps the fourth
        ];
        let mut got = overlapping_pairs(&extents);
        got.sort();
        assert_eq!(got, vec![(0, 2), (1, 2), (3, 5)]);
    }

    proptest::proptest! {
        #[test]
        fn agrees_with_every_pair_compared_on_random_layouts(
            raw in proptest::collection::vec((0..60u64, 0..30u64, 0..10u32, 0..5u32), 1..26)
        ) {
            let extents: Vec<Extent> =
                raw.iter().map(|&(o, s, f, l)| ext(o, s, f, f + l)).collect();
            let mut got = overlapping_pairs(&extents);
            got.sort();
            proptest::prop_assert_eq!(got, quadratic(&extents), "{:?}", extents);
        }
    }
}
