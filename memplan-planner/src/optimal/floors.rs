//! Section floors over a tree of sections: the lowest offset any unplaced local of a
//! section can take, kept in `O(log S)` per local that moves instead of a pass over each
//! section the local lives in, and the check the search prunes on (a section's floor plus
//! its unplaced bytes must fit under the capacity).
//!
//! # The tree
//!
//! The sections are the leaves of a binary tree; each local is stored at the nodes of the
//! usual segment-tree cover of its lifetime (at most two per level), so that the locals
//! live in a section are exactly those stored on its path to the root, and a section's
//! floor is the smallest node floor on that path. A node keeps the lowest offset of the
//! unplaced locals stored at it and how many have it, so that it is scanned only when the
//! last of them leaves or rises; only then can the floors of the sections below it rise.
//!
//! After a placement, [`Floors::overflows`] checks the sections below the nodes whose floor
//! rose, by a walk down from each carrying the smallest floor on the way. Every other
//! section kept its floor, and lost bytes or kept them, so it still fits.
//!
//! Nothing is logged: taking back, in reverse order, the moves of the locals (as the
//! state's undo log records them) restores every node exactly ([`Floors::returned`]).

/// A tree node's state, kept together so that a visit reads one place.
#[derive(Clone, Copy, Debug)]
struct Node {
    /// The lowest offset of the node's unplaced locals (`u64::MAX` for none).
    floor: u64,
    /// How many of them have it.
    count: u32,
    /// The placement that last listed the node in `risen`.
    listed: u32,
    /// Where the node's locals start in `stored`.
    start: u32,
    /// How many of them are unplaced (they come first).
    unplaced: u32,
}

/// The tree (see the module documentation).
pub(super) struct Floors {
    /// Leaves: a power of two, at least the number of sections.
    leaves: usize,
    /// The number of sections (leaves past it are padding).
    sections: usize,
    /// `stored[stored_start[v]..stored_start[v + 1]]`: the locals stored at node `v`, the
    /// unplaced ones first (`unplaced[v]` of them); `entry[p]`: the index in `homes` of the
    /// local at `stored[p]` for that node, and `at[k]`: where the local of `homes[k]` sits
    /// in `stored`.
    stored_start: Vec<u32>,
    stored: Vec<u32>,
    entry: Vec<u32>,
    at: Vec<u32>,
    /// `homes[home_start[u]..home_start[u + 1]]`: the nodes local `u` is stored at.
    home_start: Vec<u32>,
    homes: Vec<u32>,
    /// Per tree node: what [`Node`] says.
    node: Vec<Node>,
    /// The placement in progress.
    generation: u32,
    /// The nodes whose floor rose in this placement.
    risen: Vec<u32>,
}

impl Floors {
    /// The tree over `sections` sections for locals living in the sections `span[u]`.
    ///
    /// # Panics
    ///
    /// With more than `u32::MAX` nodes or stored entries.
    pub(super) fn new(sections: usize, span: &[(u32, u32)]) -> Floors {
        let leaves = sections.max(1).next_power_of_two();
        let nodes = 2 * leaves;
        let mut home_start = Vec::with_capacity(span.len() + 1);
        let mut homes: Vec<u32> = Vec::new();
        home_start.push(0);
        for &(lo, hi) in span {
            let (mut l, mut r) = (lo as usize + leaves, hi as usize + leaves);
            while l < r {
                if l & 1 == 1 {
                    homes.push(l as u32);
                    l += 1;
                }
                if r & 1 == 1 {
                    r -= 1;
                    homes.push(r as u32);
                }
                l >>= 1;
                r >>= 1;
            }
            home_start.push(u32::try_from(homes.len()).expect("fewer than 2^32 entries"));
        }
        let mut size = vec![0u32; nodes + 1];
        for &v in &homes {
            size[v as usize + 1] += 1;
        }
        for v in 0..nodes {
            size[v + 1] += size[v];
        }
        let stored_start = size;
        let mut fill = stored_start.clone();
        let mut stored = vec![0u32; homes.len()];
        let (mut entry, mut at) = (vec![0u32; homes.len()], vec![0u32; homes.len()]);
        for u in 0..span.len() {
            for k in home_start[u] as usize..home_start[u + 1] as usize {
                let v = homes[k] as usize;
                let p = fill[v] as usize;
                stored[p] = u as u32;
                entry[p] = k as u32;
                at[k] = p as u32;
                fill[v] += 1;
            }
        }
        let node = (0..nodes)
            .map(|v| Node {
                floor: u64::MAX,
                count: 0,
                listed: 0,
                start: stored_start[v],
                unplaced: stored_start[v + 1] - stored_start[v],
            })
            .collect();
        Floors {
            leaves,
            sections,
            stored_start,
            stored,
            entry,
            at,
            home_start,
            homes,
            node,
            generation: 0,
            risen: Vec::new(),
        }
    }

    /// Everything unplaced, with lowest offsets `min_off`.
    pub(super) fn reset(&mut self, min_off: &[u64]) {
        for v in 1..2 * self.leaves {
            self.node[v].unplaced = self.stored_start[v + 1] - self.stored_start[v];
            (self.node[v].floor, self.node[v].count) = self.scan(v, min_off);
        }
        self.generation = 0;
        self.node.iter_mut().for_each(|n| n.listed = u32::MAX);
    }

    /// Starts a new placement (the nodes whose floor rises are listed afresh).
    pub(super) fn begin(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == u32::MAX {
            self.node.iter_mut().for_each(|n| n.listed = u32::MAX - 1);
            self.generation = 0;
        }
        self.risen.clear();
    }

    /// The lowest offset of the unplaced locals stored at `v` and how many have it.
    fn scan(&self, v: usize, min_off: &[u64]) -> (u64, u32) {
        let (mut m, mut c) = (u64::MAX, 0u32);
        let n = &self.node[v];
        let start = n.start as usize;
        for &u in &self.stored[start..start + n.unplaced as usize] {
            let x = min_off[u as usize];
            if x < m {
                (m, c) = (x, 1);
            } else if x == m {
                c += 1;
            }
        }
        (m, c)
    }

    /// Local `u`, whose lowest offset was `old`, has been placed (`placed`) or now has the
    /// lowest offset `min_off[u]`.
    pub(super) fn moved(&mut self, u: usize, old: u64, min_off: &[u64], placed: bool) {
        let (a, b) = (self.home_start[u] as usize, self.home_start[u + 1] as usize);
        if placed {
            for k in a..b {
                self.take_out(self.homes[k] as usize, k);
            }
        }
        let homes = &self.homes[a..b];
        for &v in homes {
            let v = v as usize;
            let node = &mut self.node[v];
            if node.floor != old {
                continue;
            }
            if node.count > 1 {
                node.count -= 1;
                continue;
            }
            let (floor, count) = self.scan(v, min_off);
            let node = &mut self.node[v];
            (node.floor, node.count) = (floor, count);
            if node.listed != self.generation {
                node.listed = self.generation;
                self.risen.push(v as u32);
            }
        }
    }

    /// Moves the local of `homes[k]` (stored at `v`) past the unplaced locals of `v`.
    fn take_out(&mut self, v: usize, k: usize) {
        let last = (self.node[v].start + self.node[v].unplaced - 1) as usize;
        let p = self.at[k] as usize;
        let other = self.entry[last] as usize;
        self.stored.swap(p, last);
        self.entry.swap(p, last);
        self.at[k] = last as u32;
        self.at[other] = p as u32;
        self.node[v].unplaced -= 1;
    }

    /// Whether a section below a node whose floor rose in this placement can no longer hold
    /// its unplaced bytes `rem` above its floor under `cap`.
    pub(super) fn overflows(&self, rem: &[u64], cap: u64) -> bool {
        'risen: for &v in &self.risen {
            let v = v as usize;
            let mut above = u64::MAX;
            let mut a = v / 2;
            while a >= 1 {
                // A node below another risen one is walked with it.
                let n = &self.node[a];
                if n.listed == self.generation {
                    continue 'risen;
                }
                above = above.min(n.floor);
                a /= 2;
            }
            if self.overflows_below(v, above, rem, cap) {
                return true;
            }
        }
        false
    }

    /// Whether a section of `[lo, hi)` can no longer hold its unplaced bytes `rem` above its
    /// floor under `cap`.
    pub(super) fn overflows_in(&self, (lo, hi): (u32, u32), rem: &[u64], cap: u64) -> bool {
        let (lo, hi) = (lo as usize + self.leaves, hi as usize + self.leaves);
        (lo..hi).any(|leaf| {
            let mut floor = u64::MAX;
            let mut v = leaf;
            while v >= 1 {
                floor = floor.min(self.node[v].floor);
                v /= 2;
            }
            let r = rem[leaf - self.leaves];
            r > 0 && floor.saturating_add(r) > cap
        })
    }

    /// Whether a section below `v` overflows, `above` the smallest floor above `v`.
    fn overflows_below(&self, v: usize, above: u64, rem: &[u64], cap: u64) -> bool {
        let floor = above.min(self.node[v].floor);
        if v >= self.leaves {
            let s = v - self.leaves;
            return s < self.sections && rem[s] > 0 && floor.saturating_add(rem[s]) > cap;
        }
        self.overflows_below(2 * v, floor, rem, cap)
            || self.overflows_below(2 * v + 1, floor, rem, cap)
    }

    /// The floor of section `s`: the smallest node floor on its path to the root.
    #[cfg(test)]
    pub(super) fn floor(&self, s: usize) -> u64 {
        let mut v = self.leaves + s;
        let mut floor = u64::MAX;
        while v >= 1 {
            floor = floor.min(self.node[v].floor);
            v /= 2;
        }
        floor
    }

    /// Takes back the last [`Floors::moved`] of local `u` not yet taken back: `u` is
    /// unplaced again (`placed`: it had been placed) with the lowest offset `old`. At each of its nodes, the node's floor
    /// was `old` before the move: the move either lowered the count there (the floor is
    /// still `old`) or emptied it (the floor rose, and `u` was alone at `old`); or the node
    /// floor was lower, and the move changed nothing there.
    pub(super) fn returned(&mut self, u: usize, old: u64, placed: bool) {
        let homes = &self.homes[self.home_start[u] as usize..self.home_start[u + 1] as usize];
        for &v in homes {
            let node = &mut self.node[v as usize];
            if placed {
                // The last one taken out, so just past the unplaced ones.
                node.unplaced += 1;
            }
            if node.floor == old {
                node.count += 1;
            } else if node.floor > old {
                (node.floor, node.count) = (old, 1);
            }
        }
    }
}
