//! The conflict graph of an instance: which items share a step.
//!
//! Built once by a sweep over the items sorted by first step, in `O(n log n + P)` time for
//! `P` conflicting pairs (at most `n` times the largest number of items live at one step).
//! First fit ([`crate::greedy`]), the `conflicts` ordering of [`crate::best_of`] and the
//! exact search ([`crate::optimal`]) read it.

use crate::instance::Instance;

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
