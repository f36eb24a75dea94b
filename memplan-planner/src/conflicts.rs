//! The conflict graph of an instance: which items share a step.
//!
//! Only the exact search ([`crate::optimal`]) needs the graph itself: built by a sweep over
//! the items sorted by first step, in `O(n log n + P)` time and `O(n + P)` memory for `P`
//! conflicting pairs, which is quadratic when many items are live at once. The number of
//! items each one conflicts with ([`degrees`], for the `conflicts` ordering of
//! [`crate::best_of`]) and the number of pairs ([`pairs`], to bound the search's memory
//! before building anything) are counted without it, in `O(n log n)`.

use crate::instance::Instance;

/// For each item, the number of other items with bytes it shares a step with (0 for a
/// zero-size item): the degree of the item in [`Conflicts`], counted from the sorted first
/// and last steps in `O(n log n)`.
pub(crate) fn degrees(instance: &Instance) -> Vec<u64> {
    let items = &instance.items;
    let mut firsts: Vec<u32> = Vec::with_capacity(items.len());
    let mut lasts: Vec<u32> = Vec::with_capacity(items.len());
    for it in items.iter().filter(|it| it.size > 0) {
        firsts.push(it.lifetime.first);
        lasts.push(it.lifetime.last);
    }
    firsts.sort_unstable();
    lasts.sort_unstable();
    items
        .iter()
        .map(|it| {
            if it.size == 0 {
                return 0;
            }
            // Items with bytes that start by `last` and do not end before `first`; the
            // item itself is one of them.
            let started = firsts.partition_point(|&f| f <= it.lifetime.last);
            let ended = lasts.partition_point(|&l| l < it.lifetime.first);
            (started - ended - 1) as u64
        })
        .collect()
}

/// The number of conflicting pairs (the edges of [`Conflicts`]), in `O(n log n)`.
pub(crate) fn pairs(instance: &Instance) -> u64 {
    degrees(instance).iter().sum::<u64>() / 2
}

/// Which items share a step, as adjacency lists (compressed rows).
///
/// Only items with bytes are in the graph: a zero-size item overlaps nothing.
#[derive(Clone, Debug, Default)]
pub(crate) struct Conflicts {
    /// `start[i]..start[i + 1]` is item `i`'s range in `adj`.
    start: Vec<usize>,
    /// Neighbours, each list in increasing index order.
    adj: Vec<u32>,
}

impl Conflicts {
    /// The conflict graph of `instance`, by a sweep over the items in order of first step.
    ///
    /// # Panics
    ///
    /// If the instance has more than `u32::MAX` items.
    pub(crate) fn new(instance: &Instance) -> Conflicts {
        let items = &instance.items;
        let n = items.len();
        assert!(u32::try_from(n).is_ok(), "more than u32::MAX items");
        let mut by_first: Vec<u32> = (0..n as u32)
            .filter(|&i| items[i as usize].size > 0)
            .collect();
        by_first.sort_unstable_by_key(|&i| (items[i as usize].lifetime.first, i));
        // Every pair (i, j) with j starting no earlier than i and i still live at j's first
        // step is found once, when j is reached.
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        let mut active: Vec<u32> = Vec::new();
        let mut degree = vec![0usize; n];
        for &j in &by_first {
            let first = items[j as usize].lifetime.first;
            active.retain(|&i| items[i as usize].lifetime.last >= first);
            for &i in &active {
                pairs.push((i, j));
                degree[i as usize] += 1;
                degree[j as usize] += 1;
            }
            active.push(j);
        }
        let mut start = Vec::with_capacity(n + 1);
        let mut acc = 0usize;
        start.push(0);
        for d in &degree {
            acc += d;
            start.push(acc);
        }
        let mut fill = start[..n].to_vec();
        let mut adj = vec![0u32; acc];
        for &(i, j) in &pairs {
            adj[fill[i as usize]] = j;
            fill[i as usize] += 1;
            adj[fill[j as usize]] = i;
            fill[j as usize] += 1;
        }
        drop(pairs);
        for i in 0..n {
            adj[start[i]..start[i + 1]].sort_unstable();
        }
        Conflicts { start, adj }
    }

    /// The items that share a step with item `i` (none for a zero-size item).
    pub(crate) fn of(&self, i: usize) -> &[u32] {
        &self.adj[self.start[i]..self.start[i + 1]]
    }
}
