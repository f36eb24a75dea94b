//! Unions of byte intervals that answer "the lowest aligned offset, at or above `x`, where
//! `size` bytes overlap none of the intervals" without scanning every interval below it.
//!
//! [`Unions`] holds many sets (one per node of first fit's time tree that some item reads,
//! see [`crate::fit`]). Each set is the union of the byte ranges inserted into it, kept as
//! disjoint, non-touching intervals `[start, end)` in order of `start`: in a sorted array
//! inside the set's own record while it has at most [`SHORT`] intervals (most sets do, and
//! a short array in one place is the fastest thing to scan), then in a treap in one arena
//! shared by all the sets. In the treap every
//! interval records the free gap before it (`start` minus the previous interval's `end`, or
//! minus 0 for the first), and every subtree the largest such gap in it, so a search skips
//! every subtree whose gaps are all smaller than the size asked for.
//!
//! Insertion only (a set is cleared as a whole): inserting a range merges it with every
//! interval it overlaps or touches.
//!
//! # Cost
//!
//! With `m` intervals in a set: at most [`SHORT`] steps while the set is short; then an
//! insertion is `O(log m)` expected, and a fit query `O(log m)` expected, plus `O(log m)` for each gap it meets that is large enough in bytes
//! but too small once its start is rounded up to the alignment (none when every size and
//! offset is a multiple of the alignment). The treap's priorities are a fixed hash of the
//! node's slot, so the shape, like the answers, is the same on every run.

/// No node.
const NIL: u32 = u32::MAX;

/// A set with more intervals than this moves from its record's array to the treap.
pub(crate) const SHORT: usize = 7;

/// One set: its intervals in order while it has at most [`SHORT`], else its treap root.
#[derive(Clone, Copy, Debug)]
struct Set {
    /// The treap root (`NIL` while the intervals are in `short`).
    root: u32,
    /// How many of `short` are in use.
    len: u32,
    short: [(u64, u64); SHORT],
}

impl Set {
    const EMPTY: Set = Set {
        root: NIL,
        len: 0,
        short: [(0, 0); SHORT],
    };

    fn short(&self) -> &[(u64, u64)] {
        &self.short[..self.len as usize]
    }
}

#[derive(Clone, Copy, Debug)]
struct Node {
    /// The interval `[start, end)`, `start < end`.
    start: u64,
    end: u64,
    /// Free bytes before it: `start` minus the end of the previous interval of its set (or
    /// minus 0 for the first one).
    gap: u64,
    /// The largest `gap` in the subtree.
    max_gap: u64,
    /// The `end` of the subtree's last interval.
    last_end: u64,
    left: u32,
    right: u32,
    priority: u32,
}

/// Many interval unions in one arena (see the module documentation).
#[derive(Clone, Debug, Default)]
pub(crate) struct Unions {
    nodes: Vec<Node>,
    /// Slots of nodes merged away, for reuse.
    spare: Vec<u32>,
    sets: Vec<Set>,
}

/// `value` rounded up to a multiple of `align` (a power of two), without overflow.
fn align_up(value: u128, align: u64) -> u128 {
    let mask = u128::from(align) - 1;
    (value + mask) & !mask
}

impl Unions {
    /// Empties every set and makes room for `sets` of them.
    pub(crate) fn reset(&mut self, sets: usize) {
        self.nodes.clear();
        self.spare.clear();
        self.sets.clear();
        self.sets.resize(sets, Set::EMPTY);
    }

    /// Whether set `s` has no interval.
    pub(crate) fn is_empty(&self, s: usize) -> bool {
        let set = &self.sets[s];
        set.root == NIL && set.len == 0
    }

    /// Adds the bytes `[start, end)` to set `s` (`start < end`).
    pub(crate) fn insert(&mut self, s: usize, start: u64, end: u64) {
        debug_assert!(start < end);
        if self.sets[s].root != NIL {
            self.insert_in_tree(s, start, end);
            return;
        }
        let set = &mut self.sets[s];
        let len = set.len as usize;
        // The intervals that overlap or touch `[start, end]` are `short[i..j]`.
        let i = set.short[..len].partition_point(|&(_, e)| e < start);
        let mut j = i;
        while j < len && set.short[j].0 <= end {
            j += 1;
        }
        if i < j {
            set.short[i] = (start.min(set.short[i].0), end.max(set.short[j - 1].1));
            set.short.copy_within(j..len, i + 1);
            set.len -= (j - i - 1) as u32;
        } else if len < SHORT {
            set.short.copy_within(i..len, i + 1);
            set.short[i] = (start, end);
            set.len += 1;
        } else {
            // Full: the set moves to the treap.
            let short = set.short;
            set.len = 0;
            for (a, b) in short {
                self.insert_in_tree(s, a, b);
            }
            self.insert_in_tree(s, start, end);
        }
    }

    fn insert_in_tree(&mut self, s: usize, start: u64, end: u64) {
        let (mut a, mut b) = (start, end);
        let (mut left, rest) = self.split(self.sets[s].root, |n| n.start < a);
        // The last interval before `a` overlaps or touches the new one: absorb it.
        if left != NIL && self.nodes[left as usize].last_end >= a {
            let (l, last) = self.split_last(left);
            left = l;
            a = self.nodes[last as usize].start;
            b = b.max(self.nodes[last as usize].end);
            self.spare.push(last);
        }
        // Intervals starting inside `[a, b]` are absorbed too.
        let (inside, mut right) = self.split(rest, |n| n.start <= b);
        if inside != NIL {
            b = b.max(self.nodes[inside as usize].last_end);
            self.release(inside);
        }
        let prev_end = if left == NIL {
            0
        } else {
            self.nodes[left as usize].last_end
        };
        let node = self.alloc(a, b, a - prev_end);
        if right != NIL {
            right = self.set_first_gap(right, b);
        }
        let joined = self.merge(left, node);
        self.sets[s].root = self.merge(joined, right);
    }

    /// The lowest offset `y >= x`, a multiple of `align`, such that `[y, y + size)` overlaps
    /// no interval of set `s` (`size > 0`). In `u128`, so that an answer past `u64::MAX` is
    /// exact too.
    pub(crate) fn fit(&self, s: usize, x: u128, size: u64, align: u64) -> u128 {
        let size = u128::from(size);
        let root = self.sets[s].root;
        let mut y = align_up(x, align);
        if root == NIL {
            let list = self.sets[s].short();
            let first = list.partition_point(|&(_, e)| u128::from(e) <= y);
            for &(start, end) in &list[first..] {
                if y + size <= u128::from(start) {
                    break;
                }
                if u128::from(end) > y {
                    y = align_up(u128::from(end), align);
                }
            }
            return y;
        }
        loop {
            // The first interval that ends above `y`: `y` is inside it or below it.
            let Some(k) = self.first_ending_above(root, y) else {
                return y;
            };
            let blocker = self.nodes[k as usize];
            if y + size <= u128::from(blocker.start) {
                return y;
            }
            // Blocked: the answer is in a later gap of at least `size` bytes, or on top.
            let Some(w) = self.first_gap_after(root, blocker.start, size) else {
                return align_up(u128::from(self.nodes[root as usize].last_end), align);
            };
            let w = self.nodes[w as usize];
            let cand = align_up(u128::from(w.start - w.gap), align);
            if cand + size <= u128::from(w.start) {
                return cand;
            }
            // The gap is large enough in bytes but not once aligned: go on after it.
            y = cand;
        }
    }

    fn alloc(&mut self, start: u64, end: u64, gap: u64) -> u32 {
        let node = Node {
            start,
            end,
            gap,
            max_gap: gap,
            last_end: end,
            left: NIL,
            right: NIL,
            priority: 0,
        };
        let slot = match self.spare.pop() {
            Some(slot) => {
                self.nodes[slot as usize] = node;
                slot
            }
            None => {
                let slot = u32::try_from(self.nodes.len()).expect("fewer than 2^32 intervals");
                self.nodes.push(node);
                slot
            }
        };
        self.nodes[slot as usize].priority = priority(slot);
        slot
    }

    /// Every node of the subtree `v` back to the spare slots.
    fn release(&mut self, v: u32) {
        let mut stack = vec![v];
        while let Some(v) = stack.pop() {
            let n = self.nodes[v as usize];
            for c in [n.left, n.right] {
                if c != NIL {
                    stack.push(c);
                }
            }
            self.spare.push(v);
        }
    }

    /// Recomputes `v`'s subtree summaries from its children.
    fn pull(&mut self, v: u32) {
        let n = self.nodes[v as usize];
        let mut max_gap = n.gap;
        let mut last_end = n.end;
        if n.left != NIL {
            max_gap = max_gap.max(self.nodes[n.left as usize].max_gap);
        }
        if n.right != NIL {
            let r = &self.nodes[n.right as usize];
            max_gap = max_gap.max(r.max_gap);
            last_end = r.last_end;
        }
        let n = &mut self.nodes[v as usize];
        n.max_gap = max_gap;
        n.last_end = last_end;
    }

    /// Splits the subtree `v` into the nodes for which `before` holds (a prefix in order)
    /// and the rest.
    fn split(&mut self, v: u32, before: impl Fn(&Node) -> bool + Copy) -> (u32, u32) {
        if v == NIL {
            return (NIL, NIL);
        }
        if before(&self.nodes[v as usize]) {
            let (l, r) = self.split(self.nodes[v as usize].right, before);
            self.nodes[v as usize].right = l;
            self.pull(v);
            (v, r)
        } else {
            let (l, r) = self.split(self.nodes[v as usize].left, before);
            self.nodes[v as usize].left = r;
            self.pull(v);
            (l, v)
        }
    }

    /// Takes the last node out of the non-empty subtree `v`: `(rest, last)`.
    fn split_last(&mut self, v: u32) -> (u32, u32) {
        let right = self.nodes[v as usize].right;
        if right == NIL {
            return (self.nodes[v as usize].left, v);
        }
        let (rest, last) = self.split_last(right);
        self.nodes[v as usize].right = rest;
        self.pull(v);
        (v, last)
    }

    /// Joins two subtrees, every interval of `a` before every interval of `b`.
    fn merge(&mut self, a: u32, b: u32) -> u32 {
        if a == NIL {
            return b;
        }
        if b == NIL {
            return a;
        }
        if self.nodes[a as usize].priority > self.nodes[b as usize].priority {
            let r = self.merge(self.nodes[a as usize].right, b);
            self.nodes[a as usize].right = r;
            self.pull(a);
            a
        } else {
            let l = self.merge(a, self.nodes[b as usize].left);
            self.nodes[b as usize].left = l;
            self.pull(b);
            b
        }
    }

    /// Sets the gap of the first interval of the non-empty subtree `v` as if the interval
    /// before it ended at `prev_end`; returns `v`.
    fn set_first_gap(&mut self, v: u32, prev_end: u64) -> u32 {
        let left = self.nodes[v as usize].left;
        if left == NIL {
            let n = &mut self.nodes[v as usize];
            n.gap = n.start - prev_end;
        } else {
            self.set_first_gap(left, prev_end);
        }
        self.pull(v);
        v
    }

    /// The first interval (in order) whose end is above `y`.
    fn first_ending_above(&self, mut v: u32, y: u128) -> Option<u32> {
        let mut found = None;
        while v != NIL {
            let n = &self.nodes[v as usize];
            if u128::from(n.end) > y {
                found = Some(v);
                v = n.left;
            } else {
                v = n.right;
            }
        }
        found
    }

    /// The first interval that starts after `key` and has a gap of at least `size` before
    /// it.
    fn first_gap_after(&self, v: u32, key: u64, size: u128) -> Option<u32> {
        if v == NIL || u128::from(self.nodes[v as usize].max_gap) < size {
            return None;
        }
        let n = &self.nodes[v as usize];
        if n.start <= key {
            return self.first_gap_after(n.right, key, size);
        }
        self.first_gap_after(n.left, key, size)
            .or_else(|| (u128::from(n.gap) >= size).then_some(v))
            .or_else(|| self.first_gap(n.right, size))
    }

    /// The first interval of the subtree `v` with a gap of at least `size` before it.
    fn first_gap(&self, mut v: u32, size: u128) -> Option<u32> {
        while v != NIL && u128::from(self.nodes[v as usize].max_gap) >= size {
            let n = &self.nodes[v as usize];
            if n.left != NIL && u128::from(self.nodes[n.left as usize].max_gap) >= size {
                v = n.left;
            } else if u128::from(n.gap) >= size {
                return Some(v);
            } else {
                v = n.right;
            }
        }
        None
    }
}

/// A fixed, well-mixed priority for the node in slot `slot` (SplitMix64's finaliser).
fn priority(slot: u32) -> u32 {
    let mut z = u64::from(slot).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The answer by brute force over the intervals, as a plain list.
    fn fit_by_scan(intervals: &[(u64, u64)], x: u128, size: u64, align: u64) -> u128 {
        let mut y = align_up(x, align);
        loop {
            let blocker = intervals
                .iter()
                .filter(|&&(s, e)| u128::from(s) < y + u128::from(size) && u128::from(e) > y)
                .map(|&(_, e)| e)
                .max();
            match blocker {
                None => return y,
                Some(e) => y = align_up(u128::from(e), align),
            }
        }
    }

    /// The union of `ranges` as sorted, disjoint, non-touching intervals.
    fn union(ranges: &[(u64, u64)]) -> Vec<(u64, u64)> {
        let mut v = ranges.to_vec();
        v.sort_unstable();
        let mut out: Vec<(u64, u64)> = Vec::new();
        for (s, e) in v {
            match out.last_mut() {
                Some(last) if last.1 >= s => last.1 = last.1.max(e),
                _ => out.push((s, e)),
            }
        }
        out
    }

    /// The intervals of set `s`, in order, with their gaps checked on the way.
    fn intervals(u: &Unions, s: usize) -> Vec<(u64, u64)> {
        fn walk(u: &Unions, v: u32, prev: &mut u64, out: &mut Vec<(u64, u64)>) {
            if v == NIL {
                return;
            }
            let n = u.nodes[v as usize];
            walk(u, n.left, prev, out);
            assert_eq!(n.gap, n.start - *prev, "gap of [{}, {})", n.start, n.end);
            *prev = n.end;
            out.push((n.start, n.end));
            walk(u, n.right, prev, out);
        }
        let mut out = Vec::new();
        if u.sets[s].root == NIL {
            return u.sets[s].short().to_vec();
        }
        walk(u, u.sets[s].root, &mut 0, &mut out);
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn inserts_keep_the_union_and_fits_match_a_scan(
            ranges in proptest::collection::vec((0u64..2000, 1u64..40), 0..160),
            queries in proptest::collection::vec((0u64..2100, 1u64..60, 0u32..5), 1..20),
        ) {
            let mut u = Unions::default();
            u.reset(2);
            let mut added = Vec::new();
            for &(s, len) in &ranges {
                u.insert(1, s, s + len);
                added.push((s, s + len));
                prop_assert_eq!(intervals(&u, 1), union(&added));
            }
            prop_assert!(u.is_empty(0));
            for &(x, size, a) in &queries {
                let align = 1u64 << (2 * a);
                prop_assert_eq!(
                    u.fit(1, u128::from(x), size, align),
                    fit_by_scan(&added, u128::from(x), size, align)
                );
            }
        }
    }

    #[test]
    fn answers_past_the_address_space_are_exact() {
        let mut u = Unions::default();
        u.reset(1);
        u.insert(0, 0, u64::MAX);
        assert_eq!(u.fit(0, 0, 1, 1), u128::from(u64::MAX));
        assert_eq!(u.fit(0, 0, 1, 16), u128::from(u64::MAX) + 1);
    }
}
