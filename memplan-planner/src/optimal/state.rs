//! The dynamic state of the search: where each placed local sits, each unplaced local's
//! lowest offset, each section's unplaced bytes, the section floors ([`Floors`]), and the
//! undo log that takes a node back to its parent.

use super::build::{Locals, Sections};
use super::floors::Floors;
use super::memo::zobrist;

/// The offset of a local that is not placed.
pub(super) const UNPLACED: u64 = u64::MAX;

/// One change to the state, as the undo log records it.
#[derive(Clone, Copy, Debug)]
enum Undo {
    /// An item was placed (its sections' remaining bytes and cut counts were lowered).
    Place(u32),
    /// An item's lowest offset was raised from this value.
    MinOff(u32, u64),
}

/// A local's term in a state's key: its multiplier `hkey` (random and odd) times its lowest
/// offset plus one, wrapping. A state's key is the sum of the terms of its unplaced locals:
/// two different states get the same key when `sum(hkey[u] * d[u]) = 0 mod 2^128` for
/// their differences `d`, with a chance of about `2^-118` per pair (offsets differ by
/// multiples of at most `2^10` on MiniMalloc's instances), and a local raised from `old`
/// to `m` changes it by one product, `hkey * (m - old)`, where a table of random keys per
/// offset (Zobrist's) needs two hashes.
pub(super) fn state_term(hkey: u128, min_off: u64) -> u128 {
    hkey.wrapping_mul(u128::from(min_off) + 1)
}

/// The state of a node.
pub(super) struct State {
    /// Each local's offset, or [`UNPLACED`].
    pub(super) off: Vec<u64>,
    /// Each local's random odd multiplier ([`state_term`]).
    pub(super) hkey: Vec<u128>,
    /// `state_term(u)` summed over every unplaced local (wrapping).
    pub(super) unplaced_key: u128,
    /// How many locals are placed.
    pub(super) placed: u64,
    /// Each unplaced local's lowest offset.
    pub(super) min_off: Vec<u64>,
    /// Bytes of unplaced locals in each section.
    pub(super) rem: Vec<u64>,
    /// Unplaced locals crossing each section boundary.
    pub(super) cut: Vec<u32>,
    floors: Floors,
    log: Vec<Undo>,
}

impl State {
    /// A state for `loc` over `sec` (set up by [`State::reset`] before use).
    pub(super) fn new(loc: &Locals, sec: &Sections) -> State {
        let m = loc.len();
        State {
            off: vec![UNPLACED; m],
            hkey: (0..m).map(|u| zobrist(u, 0) | 1).collect(),
            unplaced_key: 0,
            placed: 0,
            min_off: vec![0; m],
            rem: Vec::new(),
            cut: Vec::new(),
            floors: Floors::new(sec.count(), &loc.span),
            log: Vec::new(),
        }
    }

    /// Nothing placed.
    pub(super) fn reset(&mut self, loc: &Locals, sec: &Sections) {
        self.off.iter_mut().for_each(|o| *o = UNPLACED);
        self.min_off.clone_from(&loc.base_min);
        self.unplaced_key = (0..self.min_off.len()).fold(0, |k: u128, u| {
            k.wrapping_add(state_term(self.hkey[u], self.min_off[u]))
        });
        self.placed = 0;
        self.rem.clone_from(&sec.total);
        self.cut.clone_from(&sec.cut0);
        self.floors.reset(&self.min_off);
        self.log.clear();
    }

    /// The length of the undo log, to [`undo`](State::undo) to.
    pub(super) fn mark(&self) -> usize {
        self.log.len()
    }

    /// Places local `b` at its lowest offset, updating the state (undoable to the log's
    /// length before the call).
    ///
    /// Returns whether the node lives: `false` when an item it raises no longer fits under
    /// `cap`, or a section it touches can no longer hold its unplaced bytes above its floor
    /// (the state is then partly updated: undo it).
    pub(super) fn place(&mut self, loc: &Locals, b: usize, cap: u64) -> bool {
        let x = self.min_off[b];
        let top = x.saturating_add(loc.size[b]);
        self.off[b] = x;
        self.unplaced_key = self.unplaced_key.wrapping_sub(state_term(self.hkey[b], x));
        self.placed += 1;
        self.log.push(Undo::Place(b as u32));
        self.floors.begin();
        let (lo, hi) = (loc.span[b].0 as usize, loc.span[b].1 as usize);
        let size = loc.size[b];
        for r in &mut self.rem[lo..hi] {
            *r -= size;
        }
        for c in &mut self.cut[lo..hi.saturating_sub(1).max(lo)] {
            *c -= 1;
        }
        self.floors.moved(b, x, &self.min_off, true);
        let mut alive = true;
        for k in loc.adj_start[b]..loc.adj_start[b + 1] {
            let u = loc.adj[k] as usize;
            if self.off[u] != UNPLACED {
                continue;
            }
            let old = self.min_off[u];
            if old < top {
                self.log.push(Undo::MinOff(u as u32, old));
                let m = loc.lowest(u, top);
                self.min_off[u] = m;
                // `m > old`: the term grows by `hkey * (m - old)`.
                self.unplaced_key = self
                    .unplaced_key
                    .wrapping_add(self.hkey[u].wrapping_mul(u128::from(m - old)));
                self.floors.moved(u, old, &self.min_off, false);
                if m.saturating_add(loc.size[u]) > cap {
                    alive = false;
                    break;
                }
            }
        }
        let alive = alive && !self.floors.overflows(&self.rem, cap);
        #[cfg(test)]
        self.check(loc, b, cap, alive);
        alive
    }

    /// Test builds, up to 16 locals: every section's floor is the lowest offset of its
    /// unplaced locals, and a placement that raised no local past `cap` lives exactly when
    /// no section of the time range it touched overflows (the others held before and did
    /// not change).
    #[cfg(test)]
    fn check(&self, loc: &Locals, b: usize, cap: u64, alive: bool) {
        if loc.len() > 16 {
            return;
        }
        let floor = |s: usize| {
            (0..loc.len())
                .filter(|&u| self.off[u] == UNPLACED)
                .filter(|&u| (loc.span[u].0 as usize..loc.span[u].1 as usize).contains(&s))
                .map(|u| self.min_off[u])
                .min()
                .unwrap_or(u64::MAX)
        };
        for s in 0..self.rem.len() {
            assert_eq!(self.floors.floor(s), floor(s), "section {s}");
        }
        let touched = (loc.adj_start[b]..loc.adj_start[b + 1])
            .map(|k| loc.adj[k] as usize)
            .chain([b])
            .filter(|&u| u == b || self.off[u] == UNPLACED);
        if touched
            .clone()
            .any(|u| self.off[u] == UNPLACED && self.min_off[u].saturating_add(loc.size[u]) > cap)
        {
            return;
        }
        let lo = touched.clone().map(|u| loc.span[u].0).min().unwrap_or(0) as usize;
        let hi = touched.map(|u| loc.span[u].1).max().unwrap_or(0) as usize;
        let overflows =
            (lo..hi).any(|s| self.rem[s] > 0 && floor(s).saturating_add(self.rem[s]) > cap);
        assert_eq!(alive, !overflows);
    }

    /// Takes the state back to the log's length `mark`.
    pub(super) fn undo(&mut self, loc: &Locals, mark: usize) {
        while self.log.len() > mark {
            match self.log.pop() {
                Some(Undo::Place(b)) => {
                    let b = b as usize;
                    self.off[b] = UNPLACED;
                    self.unplaced_key = self
                        .unplaced_key
                        .wrapping_add(state_term(self.hkey[b], self.min_off[b]));
                    self.placed -= 1;
                    self.floors.returned(b, self.min_off[b], true);
                    let (lo, hi) = (loc.span[b].0 as usize, loc.span[b].1 as usize);
                    let size = loc.size[b];
                    for r in &mut self.rem[lo..hi] {
                        *r += size;
                    }
                    for c in &mut self.cut[lo..hi.saturating_sub(1).max(lo)] {
                        *c += 1;
                    }
                }
                Some(Undo::MinOff(u, v)) => {
                    let u = u as usize;
                    let d = self.min_off[u] - v;
                    self.min_off[u] = v;
                    self.unplaced_key = self
                        .unplaced_key
                        .wrapping_sub(self.hkey[u].wrapping_mul(u128::from(d)));
                    let u = u as u32;
                    self.floors.returned(u as usize, v, false);
                }
                None => {}
            }
        }
    }

    /// Whether every section in `[lo, hi)` can still hold its unplaced bytes above its
    /// floor under `cap`.
    pub(super) fn fits(&self, span: (u32, u32), cap: u64) -> bool {
        !self.floors.overflows_in(span, &self.rem, cap)
    }
}
