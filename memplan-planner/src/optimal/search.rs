//! The decision search: "is there a layout within `cap` bytes?", as a depth-first loop over
//! an explicit stack of nodes (one item placed each) and splits (independent parts solved
//! one after the other). The rules are in the module documentation of [`super`].

use crate::conflicts::Conflicts;
use crate::instance::Instance;

use super::build::{Locals, Part, Sections};
use super::memo::{Memo, zobrist};
use super::preorder::{PREORDERS, Preorder};
use super::state::{State, UNPLACED, state_term};

/// A decision search's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Status {
    /// A layout within the capacity was found.
    Found,
    /// The whole search space was explored: there is none.
    Infeasible,
    /// The node budget ran out first.
    OutOfNodes,
}

#[derive(Clone, Copy, Debug)]
struct SearchFrame {
    part: usize,
    /// The offset and preorder of the last item placed: later items come after it.
    o: u64,
    pre: u32,
    cands: (usize, usize),
    next: usize,
    mark: usize,
    /// The part's unplaced count at this node (restored when a child fails).
    len: usize,
    /// The node's state key (see [`Search::candidates`]).
    key: u128,
}

/// Independent parts of a node, solved one after the other; each starts a canonical order
/// of its own.
#[derive(Clone, Copy, Debug)]
struct SplitFrame {
    /// The part the split was made in.
    parent: usize,
    parts: (usize, usize),
    next: usize,
    /// The length of the rank log when the split was made.
    rank_mark: usize,
}

#[derive(Clone, Copy, Debug)]
enum Frame {
    Search(SearchFrame),
    Split(SplitFrame),
}

/// The explicit stack of the depth-first search.
#[derive(Default)]
struct Stack {
    frames: Vec<Frame>,
    /// The parts of the nodes on the stack, and their items.
    parts: Vec<Part>,
    part_items: Vec<u32>,
    /// The candidates of the nodes on the stack.
    cands: Vec<u32>,
}

impl Stack {
    fn clear(&mut self) {
        self.frames.clear();
        self.parts.clear();
        self.part_items.clear();
        self.cands.clear();
    }
}

/// The search over the locals of one instance.
pub(super) struct Search {
    pub(super) loc: Locals,
    pub(super) sec: Sections,
    pub(super) st: State,
    /// Failed states, one memo per preorder of [`PREORDERS`] (a failure holds under the
    /// preorder it was found with), kept across the rounds of one decision search.
    memos: Vec<Memo>,
    /// The preorder in use (an index into [`PREORDERS`]).
    keys: usize,
    stack: Stack,
    order: Preorder,
    nodes_left: u64,
    pub(super) nodes_used: u64,
    /// The key computed by the last call of [`Search::candidates`].
    last_key: u128,
    /// Room for the candidates of [`Search::push_candidates`], with their sort keys.
    scratch: Vec<(u64, u32, u32)>,
    /// Where each local sits in the list of the innermost part being searched that holds
    /// it (`stack.part_items`).
    pos: Vec<usize>,
    /// Room for the section boundaries a node may split at ([`Search::child`]).
    cuts: Vec<u32>,
}

impl Search {
    pub(super) fn new(instance: &Instance, conflicts: &Conflicts) -> Search {
        let (loc, timeline, total) = Locals::new(instance, conflicts);
        let sec = Sections::new(&loc, &timeline, total);
        let st = State::new(&loc, &sec);
        let order = Preorder::new(loc.len());
        Search {
            loc,
            sec,
            st,
            memos: PREORDERS.iter().map(|_| Memo::default()).collect(),
            keys: 0,
            stack: Stack::default(),
            order,
            nodes_left: 0,
            nodes_used: 0,
            last_key: 0,
            scratch: Vec::new(),
            pos: Vec::new(),
            cuts: Vec::new(),
        }
    }

    fn reset(&mut self) {
        self.st.reset(&self.loc, &self.sec);
        self.order.clear_log();
        self.stack.clear();
    }

    /// Pushes the candidates of a node of part `p` (of the stack) after an item at
    /// `(o, pre)`; returns `None` when the part has no unplaced item left (solved), else the
    /// candidate range. `first` for the part's first node, which also records what its
    /// later nodes need to skip a pass over the part's items.
    fn candidates(
        &mut self,
        p: usize,
        (o, pre): (u64, u32),
        cap: u64,
        first: bool,
    ) -> Option<(usize, usize)> {
        if first {
            return self.first_candidates(p, cap);
        }
        let part = self.stack.parts[p];
        if part.len == 0 {
            return None;
        }
        let start = self.stack.cands.len();
        // Only this part's locals were placed or raised since its first node, and every one
        // still fits (or the placement failed).
        let key = part.salt ^ self.st.unplaced_key.wrapping_sub(part.outside);
        self.last_key = key;
        // The same unplaced items at the same lowest offsets failed before with at least
        // these candidates.
        let dead = self.memos[self.keys]
            .failed_at(key)
            .is_some_and(|at| at <= (o, pre));
        let most = self.most_unplaced(&part);
        if dead || most > cap {
            return Some((start, start));
        }
        self.push_candidates(&part, (o, pre), cap - most, start);
        Some((start, self.stack.cands.len()))
    }

    /// Pushes the unplaced items of `part` that may go next after `(o, pre)`, in order of
    /// offset then rank, onto the candidates from `start`: those at most at `limit` and
    /// below the lowest top of the part's unplaced items (dominance), in one pass over
    /// them.
    fn push_candidates(&mut self, part: &Part, (o, pre): (u64, u32), limit: u64, start: usize) {
        let mut next = std::mem::take(&mut self.scratch);
        next.clear();
        let mut min_height = u64::MAX;
        for &u in self.unplaced(part) {
            let u = u as usize;
            let m = self.st.min_off[u];
            min_height = min_height.min(m.saturating_add(self.loc.size[u]));
            if m > limit {
                continue;
            }
            let rank = self.order.rank[u];
            let twin = self.order.twin_prev[u];
            if (m, rank) >= (o, pre) && (twin == u32::MAX || self.st.off[twin as usize] != UNPLACED)
            {
                next.push((m, rank, u as u32));
            }
        }
        // Dominance: no item goes at or above the top of another's lowest position.
        next.retain(|&(m, _, _)| m < min_height);
        // Ranks differ, so the order is total.
        next.sort_unstable();
        debug_assert_eq!(self.stack.cands.len(), start);
        self.stack.cands.extend(next.iter().map(|&(_, _, u)| u));
        self.scratch = next;
    }

    /// The unplaced locals of `part`, the part being searched.
    fn unplaced(&self, part: &Part) -> &[u32] {
        &self.stack.part_items[part.items.0..part.items.0 + part.len]
    }

    /// Moves local `b` of part `p` out of the part's unplaced locals (it was just placed).
    fn take_out(&mut self, p: usize, b: usize) {
        let part = &mut self.stack.parts[p];
        let last = part.items.0 + part.len - 1;
        let at = self.pos[b];
        let w = self.stack.part_items[last] as usize;
        self.stack.part_items.swap(at, last);
        self.pos[w] = at;
        self.pos[b] = last;
        part.len -= 1;
    }

    /// Points the positions of the locals of part `p` at its list again.
    fn index_part(&mut self, p: usize) {
        let (start, end) = self.stack.parts[p].items;
        for k in start..end {
            self.pos[self.stack.part_items[k] as usize] = k;
        }
    }

    /// The most unplaced bytes in a section of `part`.
    fn most_unplaced(&self, part: &Part) -> u64 {
        let mut most = 0;
        for &r in &self.st.rem[part.lo as usize..part.hi as usize] {
            most = most.max(r);
        }
        most
    }

    /// [`Search::candidates`] for the first node of part `p`, by passes over its items.
    fn first_candidates(&mut self, p: usize, cap: u64) -> Option<(usize, usize)> {
        let part = self.stack.parts[p];
        let start = self.stack.cands.len();
        let mut dead = false;
        let mut sum = 0u128;
        for &u in self.unplaced(&part) {
            let u = u as usize;
            sum = sum.wrapping_add(state_term(self.st.hkey[u], self.st.min_off[u]));
            let h = self.st.min_off[u].saturating_add(self.loc.size[u]);
            if h > cap {
                dead = true;
                break;
            }
        }
        if part.len == 0 {
            return None;
        }
        let key = part.salt ^ sum;
        self.last_key = key;
        self.stack.parts[p].outside = self.st.unplaced_key.wrapping_sub(sum);
        if !dead && let Some(at) = self.memos[self.keys].failed_at(key) {
            dead = at <= (0, 0);
        }
        // Every later item goes at or above the next one's offset `x`, so each section
        // needs `x` plus its unplaced bytes to fit: `x <= cap - (most bytes unplaced in a
        // section)`. With dominance, `x` is below every unplaced item's lowest top.
        let most = self.most_unplaced(&part);
        if !dead && most <= cap {
            self.push_candidates(&part, (0, 0), cap - most, start);
        }
        Some((start, self.stack.cands.len()))
    }

    /// Depth-first search of one part under `cap`.
    fn solve_part(&mut self, root: Part, cap: u64) -> Status {
        self.stack.clear();
        self.stack
            .part_items
            .extend_from_slice(&self.sec.part_items[root.items.0..root.items.1]);
        self.stack.parts.push(Part {
            items: (0, self.stack.part_items.len()),
            lo: root.lo,
            hi: root.hi,
            len: self.stack.part_items.len(),
            ..Part::default()
        });
        self.pos.resize(self.loc.len(), 0);
        self.index_part(0);
        let root_part = self.stack.parts[0];
        if !self.st.fits((root_part.lo, root_part.hi), cap) {
            return Status::Infeasible;
        }
        let Some(cands) = self.candidates(0, (0, 0), cap, true) else {
            return Status::Found;
        };
        let mark = self.st.mark();
        self.stack.frames.push(Frame::Search(SearchFrame {
            part: 0,
            o: 0,
            pre: 0,
            cands,
            next: cands.0,
            mark,
            len: self.stack.parts[0].len,
            key: self.last_key,
        }));
        let mut ret: Option<Status> = None;
        while let Some(&frame) = self.stack.frames.last() {
            let top = self.stack.frames.len() - 1;
            let step = match frame {
                Frame::Search(f) => self.resume_search(top, f, ret.take(), cap),
                Frame::Split(sp) => self.resume_split(top, sp, ret.take(), cap),
            };
            match step {
                Ok(r) => ret = r,
                Err(out_of_nodes) => return out_of_nodes,
            }
        }
        ret.unwrap_or(Status::Infeasible)
    }

    /// Resumes the node on top of the stack, told how its last child ended (`incoming`):
    /// tries its next candidate. Returns how the node ended, `None` when it pushed a
    /// child, or `Err` when the budget ran out.
    fn resume_search(
        &mut self,
        top: usize,
        mut f: SearchFrame,
        incoming: Option<Status>,
        cap: u64,
    ) -> Result<Option<Status>, Status> {
        match incoming {
            Some(Status::Found) => {
                self.stack.cands.truncate(f.cands.0);
                self.stack.frames.pop();
                return Ok(Some(Status::Found));
            }
            Some(Status::Infeasible) => {
                self.st.undo(&self.loc, f.mark);
                self.stack.parts[f.part].len = f.len;
            }
            Some(Status::OutOfNodes) => return Err(Status::OutOfNodes),
            None => {}
        }
        let mut child: Option<Frame> = None;
        let mut solved = false;
        while f.next < f.cands.1 {
            let b = self.stack.cands[f.next] as usize;
            f.next += 1;
            f.mark = self.st.mark();
            let x = self.st.min_off[b];
            if !self.st.place(&self.loc, b, cap) {
                self.st.undo(&self.loc, f.mark);
                continue;
            }
            // A node: a partial layout that passed every check.
            if self.nodes_left == 0 {
                return Err(Status::OutOfNodes);
            }
            self.nodes_left -= 1;
            self.nodes_used += 1;
            self.take_out(f.part, b);
            let part = self.stack.parts[f.part];
            match self.child(&part, f.part, b, x, cap) {
                Some(c) => {
                    child = Some(c);
                    break;
                }
                None => {
                    // The part is solved.
                    solved = true;
                    break;
                }
            }
        }
        self.stack.frames[top] = Frame::Search(f);
        if solved {
            return Ok(Some(Status::Found));
        }
        Ok(match child {
            Some(Frame::Search(c)) if c.cands.0 == c.cands.1 => {
                // A child with no candidates fails at once.
                self.stack.cands.truncate(c.cands.0);
                Some(Status::Infeasible)
            }
            Some(c) => {
                self.stack.frames.push(c);
                None
            }
            None => {
                self.stack.cands.truncate(f.cands.0);
                self.stack.frames.pop();
                self.memos[self.keys].remember(f.key, (f.o, f.pre));
                Some(Status::Infeasible)
            }
        })
    }

    /// Resumes the split on top of the stack, told how its last part ended: starts the
    /// next part. Returns how the split ended, `None` when it pushed a part's first node,
    /// or `Err` when the budget ran out.
    fn resume_split(
        &mut self,
        top: usize,
        mut sp: SplitFrame,
        incoming: Option<Status>,
        cap: u64,
    ) -> Result<Option<Status>, Status> {
        match incoming {
            None | Some(Status::Found) => {}
            Some(Status::Infeasible) => {
                self.pop_split(&sp);
                return Ok(Some(Status::Infeasible));
            }
            Some(Status::OutOfNodes) => return Err(Status::OutOfNodes),
        }
        if sp.next == sp.parts.1 {
            self.pop_split(&sp);
            return Ok(Some(Status::Found));
        }
        let p = sp.next;
        sp.next += 1;
        self.stack.frames[top] = Frame::Split(sp);
        let part = self.stack.parts[p];
        self.order.rerank(
            &self.loc,
            &self.stack.part_items[part.items.0..part.items.1],
            &self.st.rem,
        );
        Ok(match self.candidates(p, (0, 0), cap, true) {
            None => Some(Status::Found),
            Some(c) if c.0 == c.1 => Some(Status::Infeasible),
            Some(cands) => {
                let mark = self.st.mark();
                self.stack.frames.push(Frame::Search(SearchFrame {
                    part: p,
                    o: 0,
                    pre: 0,
                    cands,
                    next: cands.0,
                    mark,
                    len: part.len,
                    key: self.last_key,
                }));
                None
            }
        })
    }

    fn pop_split(&mut self, sp: &SplitFrame) {
        self.order.restore(sp.rank_mark);
        let first = self.stack.parts[sp.parts.0].items.0;
        self.stack.parts.truncate(sp.parts.0);
        self.stack.part_items.truncate(first);
        self.stack.frames.pop();
        // The parent part is searched again: its locals' positions are in its list.
        self.index_part(sp.parent);
    }

    /// The node after placing `b` at `x` in `part` (number `pi`): a search of the same part,
    /// or a split when `b` was the last unplaced item across some boundary. `None` when the
    /// part has nothing left to place.
    fn child(&mut self, part: &Part, pi: usize, b: usize, x: u64, cap: u64) -> Option<Frame> {
        let pre = self.order.rank[b];
        let (blo, bhi) = self.loc.span[b];
        let lo = blo.max(part.lo);
        let hi = bhi.min(part.hi);
        let mut cuts = std::mem::take(&mut self.cuts);
        cuts.clear();
        for k in lo..hi.saturating_sub(1) {
            if self.st.cut[k as usize] == 0 && k + 1 < part.hi && k >= part.lo {
                cuts.push(k + 1);
            }
        }
        let split = if cuts.is_empty() {
            None
        } else {
            self.split(part, pi, &cuts)
        };
        self.cuts = cuts;
        if let Some(split) = split {
            return split;
        }
        let cands = self.candidates(pi, (x, pre), cap, false)?;
        let mark = self.st.mark();
        Some(Frame::Search(SearchFrame {
            part: pi,
            o: x,
            pre,
            cands,
            next: cands.0,
            mark,
            len: self.stack.parts[pi].len,
            key: self.last_key,
        }))
    }

    /// Splits `part` at the section boundaries `cuts` (no unplaced item lives across
    /// them). Returns `Some(None)` when no unplaced item is left, `Some(split)` for two or
    /// more sides, and `None` when only one side has items (the node goes on with the part
    /// as it is).
    fn split(&mut self, part: &Part, pi: usize, cuts: &[u32]) -> Option<Option<Frame>> {
        // Sub-parts: [part.lo, cuts[0]), [cuts[0], cuts[1]), ..., [last, part.hi).
        let first_part = self.stack.parts.len();
        let mut bounds = Vec::with_capacity(cuts.len() + 2);
        bounds.push(part.lo);
        bounds.extend_from_slice(cuts);
        bounds.push(part.hi);
        let m = self.loc.len();
        for w in bounds.windows(2) {
            let start = self.stack.part_items.len();
            for k in part.items.0..part.items.0 + part.len {
                let u = self.stack.part_items[k];
                let s0 = self.loc.span[u as usize].0;
                if s0 >= w[0] && s0 < w[1] {
                    self.stack.part_items.push(u);
                }
            }
            if self.stack.part_items.len() > start {
                let salt = self.stack.part_items[start..]
                    .iter()
                    .fold(0u128, |h, &u| h ^ zobrist(m + u as usize, 0));
                self.stack.parts.push(Part {
                    items: (start, self.stack.part_items.len()),
                    lo: w[0],
                    hi: w[1],
                    salt,
                    len: self.stack.part_items.len() - start,
                    ..Part::default()
                });
            }
        }
        let count = self.stack.parts.len() - first_part;
        if count == 0 {
            return Some(None);
        }
        if count >= 2 {
            for p in first_part..self.stack.parts.len() {
                self.index_part(p);
            }
            return Some(Some(Frame::Split(SplitFrame {
                parent: pi,
                parts: (first_part, self.stack.parts.len()),
                next: first_part,
                rank_mark: self.order.mark(),
            })));
        }
        // One side only: go on with the part as it is.
        let first = self.stack.parts[first_part].items.0;
        self.stack.parts.truncate(first_part);
        self.stack.part_items.truncate(first);
        None
    }

    /// The decision: is there a layout of every part within `cap` bytes, given the current
    /// heights `heights` of the static parts (parts already within `cap` are not searched)?
    /// On `Found`, `self.st.off` holds the offsets of the searched parts.
    fn decide(&mut self, cap: u64, heights: &[u64], nodes: u64) -> (Status, Vec<bool>) {
        self.nodes_left = nodes;
        self.reset();
        let mut searched = vec![false; self.sec.parts.len()];
        // Pinned items are obstacles, never placed: one (of those in a movable item's way)
        // that ends above `cap` makes every layout end above it. ([`super::optimal`] never
        // asks below the end of any pinned item.)
        if self.loc.obs.iter().any(|&(_, end)| end > cap) {
            return (Status::Infeasible, searched);
        }
        for p in 0..self.sec.parts.len() {
            if heights[p] <= cap {
                continue;
            }
            searched[p] = true;
            let part = self.sec.parts[p];
            match self.solve_part(part, cap) {
                Status::Found => {}
                other => return (other, searched),
            }
        }
        (Status::Found, searched)
    }

    /// The decision with a round robin over [`PREORDERS`] under node limits that start at
    /// twice the number of items and double, until `nodes` are spent. Each preorder keeps
    /// the states it proved to fail from one round to the next, so a longer run skips
    /// what a shorter one already explored to the end.
    pub(super) fn decide_round_robin(
        &mut self,
        cap: u64,
        heights: &[u64],
        nodes: u64,
    ) -> (Status, Vec<bool>) {
        let mut left = nodes;
        let mut limit = (2 * self.loc.len() as u64).max(64);
        self.memos.iter_mut().for_each(Memo::clear);
        loop {
            for (k, keys) in PREORDERS.iter().enumerate() {
                let budget = limit.min(left);
                self.keys = k;
                self.order.set(keys, &self.loc, &self.sec.total);
                let before = self.nodes_used;
                let (status, searched) = self.decide(cap, heights, budget);
                left -= self.nodes_used - before;
                if status != Status::OutOfNodes || left == 0 {
                    return (status, searched);
                }
            }
            limit = limit.saturating_mul(2);
        }
    }
}
