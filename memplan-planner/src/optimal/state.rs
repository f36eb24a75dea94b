//! The dynamic state of the search: where each placed local sits, each unplaced local's
//! lowest offset, each section's floor and unplaced bytes, and the undo log that takes a
//! node back to its parent.

use super::build::{Locals, Sections};
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
    /// A section's floor changed from this value.
    Floor(u32, u64),
}

/// The state of a node.
pub(super) struct State {
    /// Locals live in each section; the first `sec_len[s]` of section `s` are the unplaced
    /// ones (dynamic order).
    sec_items: Vec<u32>,
    /// Where local `u` sits in section `s`'s list, indexed through [`Sections::pos_start`].
    pos: Vec<usize>,
    /// Unplaced locals in each section (a prefix of its list in `sec_items`).
    sec_len: Vec<usize>,
    /// Each local's offset, or [`UNPLACED`].
    pub(super) off: Vec<u64>,
    /// `zobrist(u, min_off[u])`, kept up to date.
    pub(super) zkey: Vec<u128>,
    /// Each unplaced local's lowest offset.
    pub(super) min_off: Vec<u64>,
    /// The lowest offset any unplaced local of each section can take.
    floor: Vec<u64>,
    /// Bytes of unplaced locals in each section.
    pub(super) rem: Vec<u64>,
    /// Unplaced locals crossing each section boundary.
    pub(super) cut: Vec<u32>,
    log: Vec<Undo>,
    stamp: Vec<u32>,
    generation: u32,
    affected: Vec<u32>,
}

impl State {
    /// A state for `loc` over `sec` (set up by [`State::reset`] before use).
    pub(super) fn new(loc: &Locals, sec: &Sections) -> State {
        let (m, s) = (loc.len(), sec.count());
        State {
            sec_items: sec.items0.clone(),
            pos: sec.positions(loc),
            sec_len: Vec::new(),
            off: vec![UNPLACED; m],
            zkey: vec![0; m],
            min_off: vec![0; m],
            floor: vec![0; s],
            rem: vec![0; s],
            cut: Vec::new(),
            log: Vec::new(),
            stamp: vec![0; s],
            generation: 0,
            affected: Vec::new(),
        }
    }

    /// Nothing placed.
    pub(super) fn reset(&mut self, loc: &Locals, sec: &Sections) {
        self.off.iter_mut().for_each(|o| *o = UNPLACED);
        self.min_off.clone_from(&loc.base_min);
        self.zkey = self
            .min_off
            .iter()
            .enumerate()
            .map(|(u, &m)| zobrist(u, m))
            .collect();
        self.rem.clone_from(&sec.total);
        self.cut.clone_from(&sec.cut0);
        self.sec_len = sec.start.windows(2).map(|w| w[1] - w[0]).collect();
        for s in 0..self.rem.len() {
            self.floor[s] = self.section_floor(sec, s);
        }
        self.log.clear();
    }

    /// The length of the undo log, to [`undo`](State::undo) to.
    pub(super) fn mark(&self) -> usize {
        self.log.len()
    }

    /// The lowest offset any unplaced local of section `s` can take (`u64::MAX` if none).
    fn section_floor(&self, sec: &Sections, s: usize) -> u64 {
        let start = sec.start[s];
        self.sec_items[start..start + self.sec_len[s]]
            .iter()
            .map(|&u| self.min_off[u as usize])
            .min()
            .unwrap_or(u64::MAX)
    }

    /// Moves local `u` out of the unplaced prefix of each of its sections.
    fn remove_from_sections(&mut self, loc: &Locals, sec: &Sections, u: usize) {
        let (lo, hi) = loc.span[u];
        for s in lo as usize..hi as usize {
            let last = sec.start[s] + self.sec_len[s] - 1;
            let at = self.pos[sec.pos_start[u] + (s - lo as usize)];
            let w = self.sec_items[last] as usize;
            self.sec_items.swap(at, last);
            self.pos[sec.pos_start[w] + (s - loc.span[w].0 as usize)] = at;
            self.pos[sec.pos_start[u] + (s - lo as usize)] = last;
            self.sec_len[s] -= 1;
        }
    }

    /// Undoes [`State::remove_from_sections`] (the last removal first).
    fn restore_to_sections(&mut self, loc: &Locals, u: usize) {
        // `u` sits just past the prefix of each of its sections: growing the prefix by one
        // takes it back in (the order inside the prefix does not matter).
        let (lo, hi) = loc.span[u];
        for s in lo as usize..hi as usize {
            self.sec_len[s] += 1;
        }
    }

    fn mark_affected(&mut self, lo: u32, hi: u32) {
        for s in lo..hi {
            if self.stamp[s as usize] != self.generation {
                self.stamp[s as usize] = self.generation;
                self.affected.push(s);
            }
        }
    }

    /// Places local `b` at its lowest offset, updating the state (undoable to the log's
    /// length before the call).
    ///
    /// Returns whether the node lives: `false` when an item it raises no longer fits under
    /// `cap`, or a section it touches can no longer hold its unplaced bytes (the state is
    /// then partly updated: undo it).
    pub(super) fn place(&mut self, loc: &Locals, sec: &Sections, b: usize, cap: u64) -> bool {
        let x = self.min_off[b];
        let top = x.saturating_add(loc.size[b]);
        self.off[b] = x;
        self.log.push(Undo::Place(b as u32));
        self.remove_from_sections(loc, sec, b);
        let (lo, hi) = loc.span[b];
        for s in lo..hi {
            self.rem[s as usize] -= loc.size[b];
        }
        for k in lo..hi.saturating_sub(1) {
            self.cut[k as usize] -= 1;
        }
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.stamp.iter_mut().for_each(|s| *s = u32::MAX);
        }
        self.affected.clear();
        self.mark_affected(lo, hi);
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
                self.zkey[u] = zobrist(u, m);
                if m.saturating_add(loc.size[u]) > cap {
                    return false;
                }
                // Only sections whose floor was `u`'s old offset can rise; those of `b`
                // are marked already.
                let (ulo, uhi) = loc.span[u];
                for s in (ulo..lo.max(ulo)).chain(hi.min(uhi)..uhi) {
                    if self.floor[s as usize] == old && self.stamp[s as usize] != self.generation {
                        self.stamp[s as usize] = self.generation;
                        self.affected.push(s);
                    }
                }
            }
        }
        // Sections whose floor may have risen: those of `b` (it left their unplaced set)
        // and those of every item it raised. The others are unchanged, and were checked
        // when their floor or remaining bytes last changed.
        for a in 0..self.affected.len() {
            let s = self.affected[a] as usize;
            let f = self.section_floor(sec, s);
            if f != self.floor[s] {
                self.log.push(Undo::Floor(s as u32, self.floor[s]));
                self.floor[s] = f;
            }
            if self.rem[s] > 0 && f.saturating_add(self.rem[s]) > cap {
                return false;
            }
        }
        true
    }

    /// Takes the state back to the log's length `mark`.
    pub(super) fn undo(&mut self, loc: &Locals, mark: usize) {
        while self.log.len() > mark {
            match self.log.pop() {
                Some(Undo::Place(b)) => {
                    let b = b as usize;
                    self.off[b] = UNPLACED;
                    self.restore_to_sections(loc, b);
                    let (lo, hi) = loc.span[b];
                    for s in lo..hi {
                        self.rem[s as usize] += loc.size[b];
                    }
                    for k in lo..hi.saturating_sub(1) {
                        self.cut[k as usize] += 1;
                    }
                }
                Some(Undo::MinOff(u, v)) => {
                    self.min_off[u as usize] = v;
                    self.zkey[u as usize] = zobrist(u as usize, v);
                }
                Some(Undo::Floor(s, v)) => self.floor[s as usize] = v,
                None => {}
            }
        }
    }

    /// Whether every section in `[lo, hi)` can still hold its unplaced bytes under `cap`,
    /// with nothing placed below `o` any more.
    pub(super) fn fits(&self, (lo, hi): (u32, u32), o: u64, cap: u64) -> bool {
        let (lo, hi) = (lo as usize, hi as usize);
        self.rem[lo..hi]
            .iter()
            .zip(&self.floor[lo..hi])
            .all(|(&r, &f)| r == 0 || f.max(o).saturating_add(r) <= cap)
    }
}
