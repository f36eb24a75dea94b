//! The branches of an execution plan's `cond`s: steps that no invocation runs together.
//!
//! ExecuTorch's emitter (`_emit_cond` in `exir/emit/_emitter.py`) lays a `cond` out in its
//! chain as `JumpFalseCall(pred, F)` at step `j`, the true branch from `j + 1`, ending with
//! `JumpFalseCall(false, E)` (a `Bool` that is false and that nothing writes: a jump always
//! taken), the false branch from `F` up to `E`. One invocation runs one branch, so a value
//! written only in the true branch and one written only in the false branch are never live
//! together, whatever their lifetimes in steps say; ExecuTorch's planner puts both branches
//! on the same bytes (each branch is planned as a submodule from offset 0,
//! `_apply_algo_to_submodules` in `exir/memory_planning.py`).
//!
//! [`Branches::read`] recognizes exactly that layout, nested or one after another. Any
//! other jump (or a nesting deeper than [`MAX_DEPTH`]) leaves every step compatible with
//! every other: memplan then judges as if every instruction ran, which never misses two
//! values live together, and may see more than there are.

use crate::problem::Step;

use crate::files::model::PlannedTensor;

use super::lifetimes::{Instr, Kind, Uses};

/// The deepest nesting of `cond`s memplan tells branches apart in.
pub const MAX_DEPTH: u32 = 64;

/// A region: the whole program (region 0) or one branch of a `cond`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Region {
    /// The region this one's `cond` is in (region 0 for itself).
    parent: u32,
    /// Its `cond`'s index (`u32::MAX` for region 0).
    cond: u32,
    /// How many branches it is nested in (0 for region 0).
    depth: u32,
}

/// The branches of a program: for each step, the innermost branch it is in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Branches {
    /// Region 0, then each `cond`'s true and false branch.
    regions: Vec<Region>,
    /// The innermost region of each step (empty: every step in region 0).
    region_of: Vec<u32>,
    /// For each planned tensor, the innermost region holding every step that writes it or
    /// binds it; `None` when nothing does.
    defined_in: Vec<Option<u32>>,
}

/// One `cond`, in steps: the predicate's jump, where the false branch starts, where the
/// `cond` ends (one past its last step).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Cond {
    jump: usize,
    split: usize,
    end: usize,
}

impl Branches {
    /// The branches of `instrs` (validated by [`super::lifetimes::uses`]: every jump is
    /// forward and within its chain) whose values are `kinds`, used as `u` says.
    pub(super) fn read(instrs: &[Instr], kinds: &[Kind], u: &Uses) -> Branches {
        Self::conds(instrs, kinds, u)
            .and_then(|conds| Self::nest(&conds, instrs.len()))
            .unwrap_or_default()
    }

    /// The program's `cond`s, by the predicate's step; `None` when a jump is not one of a
    /// `cond`'s two.
    fn conds(instrs: &[Instr], kinds: &[Kind], u: &Uses) -> Option<Vec<Cond>> {
        let target = |s: usize, dest: i32| u.chain_of[s].1 as usize + dest as usize;
        let always = |c: i32| {
            let c = c as usize;
            kinds.get(c) == Some(&Kind::Bool(false))
                && u.written[c].is_none()
                && u.bound[c].is_none()
        };
        let mut conds = Vec::new();
        let mut skips = 0;
        for (s, instr) in instrs.iter().enumerate() {
            let Instr::JumpFalse(c, dest) = *instr else {
                continue;
            };
            if always(c) {
                skips += 1;
                continue;
            }
            let split = target(s, dest);
            let skip = split.checked_sub(1).filter(|&k| k > s)?;
            match instrs[skip] {
                Instr::JumpFalse(c2, d2) if always(c2) && u.chain_of[skip] == u.chain_of[s] => {
                    let end = target(skip, d2);
                    conds.push(Cond {
                        jump: s,
                        split,
                        end,
                    });
                }
                _ => return None,
            }
        }
        // Every jump always taken ends the true branch of exactly one cond.
        let mut ends: Vec<usize> = conds.iter().map(|c| c.split).collect();
        ends.sort_unstable();
        ends.dedup();
        (ends.len() == conds.len() && skips == conds.len()).then_some(conds)
    }

    /// The regions of `conds` (sorted by step), if they nest: each `cond` inside one
    /// branch of another, or apart from it.
    fn nest(conds: &[Cond], steps: usize) -> Option<Branches> {
        let mut regions = vec![Region {
            parent: 0,
            cond: u32::MAX,
            depth: 0,
        }];
        // (start, end inclusive, region) of each non-empty branch.
        let mut sides: Vec<(usize, usize, u32)> = Vec::with_capacity(2 * conds.len());
        // The conds open at the current one: (cond, its true region).
        let mut open: Vec<(Cond, u32)> = Vec::new();
        for (i, &c) in conds.iter().enumerate() {
            while open.last().is_some_and(|(o, _)| o.end <= c.jump) {
                open.pop();
            }
            let parent = match open.last() {
                None => 0,
                Some(&(o, t)) if c.jump > o.jump && c.end < o.split => t,
                Some(&(o, t)) if c.jump >= o.split && c.end <= o.end => t + 1,
                Some(_) => return None,
            };
            let depth = regions[parent as usize].depth + 1;
            if depth > MAX_DEPTH {
                return None;
            }
            let t = regions.len() as u32;
            for _ in 0..2 {
                regions.push(Region {
                    parent,
                    cond: i as u32,
                    depth,
                });
            }
            sides.push((c.jump + 1, c.split - 1, t));
            if c.end > c.split {
                sides.push((c.split, c.end - 1, t + 1));
            }
            open.push((c, t));
        }
        if conds.is_empty() {
            return Some(Branches::default());
        }
        // Outer branches first where two start together.
        sides.sort_unstable_by_key(|&(start, end, _)| (start, std::cmp::Reverse(end)));
        let mut region_of = Vec::with_capacity(steps);
        let mut stack: Vec<(usize, u32)> = Vec::new();
        let mut next = 0;
        for s in 0..steps {
            while stack.last().is_some_and(|&(end, _)| end < s) {
                stack.pop();
            }
            while next < sides.len() && sides[next].0 == s {
                stack.push((sides[next].1, sides[next].2));
                next += 1;
            }
            region_of.push(stack.last().map_or(0, |&(_, r)| r));
        }
        Some(Branches {
            regions,
            region_of,
            defined_in: Vec::new(),
        })
    }

    /// Records where each of `tensors` (planned index `planned_index[v]` of value `v`) is
    /// written or bound, as `u` says.
    pub(super) fn define(
        &mut self,
        tensors: &[PlannedTensor],
        u: &Uses,
        planned_index: &[Option<usize>],
    ) {
        if !self.any() {
            return;
        }
        let mut defined: Vec<Option<u32>> = vec![None; tensors.len()];
        let mut at = |k: usize, s: Step, this: &Branches| {
            let r = this.region_of(s);
            defined[k] = Some(defined[k].map_or(r, |d| this.common(d, r)));
        };
        for (s, a) in u.access.iter().enumerate() {
            for k in a.writes.iter().filter_map(|&v| planned_index[v]) {
                at(k, s as Step, self);
            }
        }
        for &(s, _, to) in &u.binds {
            if let Some(k) = planned_index[to] {
                at(k, s, self);
            }
        }
        // Plan inputs and values with initial state are written before step 0, which no
        // branch holds.
        for (k, t) in tensors.iter().enumerate() {
            if u.written[t.id.index as usize] == Some(0) {
                at(k, 0, self);
            }
        }
        self.defined_in = defined;
    }

    /// Where the planned tensors `members` (a group sharing bytes, or one tensor) are
    /// written or bound: the innermost region holding every such step; `None` when nothing
    /// writes them, or the program has no `cond`.
    pub fn defined(&self, members: &[usize]) -> Option<u32> {
        if !self.any() {
            return None;
        }
        members
            .iter()
            .filter_map(|&k| self.defined_in.get(k).copied().flatten())
            .reduce(|x, y| self.common(x, y))
    }

    /// Whether what is written in regions `a` and `b` ([`Branches::defined`]) is never
    /// live together: they are the two branches of one `cond`, or in them.
    pub fn apart(&self, a: Option<u32>, b: Option<u32>) -> bool {
        match (a, b) {
            (Some(x), Some(y)) => !self.compatible(x, y),
            _ => false,
        }
    }

    /// Whether no invocation writes both: the planned tensors `a` and `b` (each a group
    /// of planned tensors sharing bytes) are written or bound only in the two branches of
    /// one `cond`, so they are never live together.
    pub fn exclusive(&self, a: &[usize], b: &[usize]) -> bool {
        self.apart(self.defined(a), self.defined(b))
    }

    /// Whether the program has `cond`s memplan tells apart.
    pub fn any(&self) -> bool {
        self.regions.len() > 1
    }

    /// The innermost region of step `s`.
    pub(super) fn region_of(&self, s: Step) -> u32 {
        self.region_of.get(s as usize).copied().unwrap_or(0)
    }

    /// `a` and `b` walked up to one depth, then together until they are one region or two
    /// regions of one parent.
    fn climb(&self, mut a: u32, mut b: u32) -> (u32, u32) {
        let r = |x: u32| self.regions[x as usize];
        while r(a).depth > r(b).depth {
            a = r(a).parent;
        }
        while r(b).depth > r(a).depth {
            b = r(b).parent;
        }
        while a != b && r(a).parent != r(b).parent {
            a = r(a).parent;
            b = r(b).parent;
        }
        (a, b)
    }

    /// The innermost region that holds both regions `a` and `b` (for the two branches of
    /// one `cond`, the region the `cond` is in).
    pub(super) fn common(&self, a: u32, b: u32) -> u32 {
        if !self.any() {
            return 0;
        }
        match self.climb(a, b) {
            (a, b) if a == b => a,
            (a, _) => self.regions[a as usize].parent,
        }
    }

    /// Whether steps in regions `a` and `b` can run in one invocation: false when they are
    /// in the two branches of one `cond`.
    pub fn compatible(&self, a: u32, b: u32) -> bool {
        if !self.any() {
            return true;
        }
        let (x, y) = self.climb(a, b);
        x == y || self.regions[x as usize].cond != self.regions[y as usize].cond
    }
}

#[cfg(test)]
mod tests {
    use super::super::lifetimes::{Program, uses};
    use super::*;

    /// The branches of one chain `instrs` over `kinds`.
    fn branches(kinds: &[Kind], instrs: &[Instr]) -> Branches {
        let names = vec![String::new(); instrs.len()];
        let u = uses(&Program {
            kinds,
            instrs,
            chains: &[instrs.len()],
            views: &[false],
            in_place: &[false],
            delegates: 0,
            inputs: &[],
            outputs: &[],
            persistent: &[],
            names: &names,
        })
        .unwrap();
        Branches::read(instrs, kinds, &u)
    }

    const T: Kind = Kind::Tensor(false);

    #[test]
    fn the_emitter_s_cond_has_two_exclusive_branches() {
        // cond.pte's layout: 0 pred; 1 JF(pred, 5); 2, 3 true; 4 JF(false, 7); 5, 6 false;
        // 7 after. Value 0 the predicate (a Bool tensor), 1 the Bool false.
        let kinds = [Kind::Tensor(true), Kind::Bool(false), T];
        let k = || Instr::Kernel(0, vec![2, 2]);
        let instrs = [
            k(),
            Instr::JumpFalse(0, 5),
            k(),
            k(),
            Instr::JumpFalse(1, 7),
            k(),
            k(),
            k(),
        ];
        let b = branches(&kinds, &instrs);
        let r: Vec<u32> = (0..8).map(|s| b.region_of(s)).collect();
        assert_eq!(r, [0, 0, 1, 1, 1, 2, 2, 0]);
        assert!(!b.compatible(1, 2));
        assert!(b.compatible(0, 2) && b.compatible(1, 1));
        assert_eq!(b.common(1, 2), 0);
        // A nested cond in the false branch: 5 JF(pred, 8), 6, 7 JF(false, 9), 8 false;
        // the outer false branch 5..=8, the outer cond ends at 9.
        let instrs = [
            k(),
            Instr::JumpFalse(0, 5),
            k(),
            k(),
            Instr::JumpFalse(1, 9),
            Instr::JumpFalse(0, 8),
            k(),
            Instr::JumpFalse(1, 9),
            k(),
            k(),
        ];
        let b = branches(&kinds, &instrs);
        let r: Vec<u32> = (0..10).map(|s| b.region_of(s)).collect();
        assert_eq!(r, [0, 0, 1, 1, 1, 2, 3, 3, 4, 0]);
        assert!(!b.compatible(3, 4) && !b.compatible(1, 3) && b.compatible(2, 3));
        assert_eq!(b.common(3, 4), 2);
    }

    #[test]
    fn other_jumps_tell_nothing_apart() {
        // A jump on a Bool that a kernel writes is not always taken; a lone forward jump.
        let kinds = [Kind::Tensor(true), Kind::Bool(false), T];
        let instrs = [
            Instr::Kernel(0, vec![2, 1]),
            Instr::JumpFalse(0, 3),
            Instr::JumpFalse(1, 4),
            Instr::Kernel(0, vec![2, 2]),
        ];
        assert!(!branches(&kinds, &instrs).any());
        let instrs = [Instr::JumpFalse(0, 2), Instr::Kernel(0, vec![2, 2])];
        assert!(!branches(&kinds, &instrs).any());
    }
}
